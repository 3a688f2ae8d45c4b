//! The 5-hour billing windows of the subscription plans, as ccusage
//! reports them, and the projection of an open one: the program's
//! estimate (the plans' rules are not published; this follows ccusage),
//! not something the CLI or the API records.

use crate::cli::common::pricing::Cost;
use claudio::store::Tokens;

/// How long a billing window of the subscription plans lasts: 5 hours.
pub const BILLING_WINDOW_MS: i64 = 5 * 60 * 60 * 1000;

/// One 5-hour billing window and what was used in it, as
/// [`billing_windows`] finds them.
#[derive(Debug, Clone, PartialEq)]
pub struct BillingWindow {
    /// When it starts: its first message's time, floored to the hour (UTC).
    pub start: i64,
    /// When it ends: `start` + [`BILLING_WINDOW_MS`].
    pub end: i64,
    /// Its first message's time (ms since the epoch).
    pub first: i64,
    /// Its last message's time.
    pub last: i64,
    /// Tokens by model.
    pub models: std::collections::BTreeMap<String, Tokens>,
    /// Cost by model.
    pub costs: std::collections::BTreeMap<String, Cost>,
    /// The API messages counted in it.
    pub messages: usize,
    /// Whether it is open at the `now` it was found with: its first
    /// message is at or before `now`, it has not ended, and its last
    /// message is within 5 hours. Messages dated after `now` (a clock that
    /// was wrong, a hand-edited line) are a window of their own, listed but
    /// never open.
    pub active: bool,
}

impl BillingWindow {
    /// All its tokens.
    pub fn tokens(&self) -> Tokens {
        let mut t = Tokens::default();
        for m in self.models.values() {
            t.add(m);
        }
        t
    }

    /// Tokens per minute from its first message to its last; `None` when
    /// they are at the same time (no rate yet).
    pub fn tokens_per_minute(&self) -> Option<f64> {
        let minutes = (self.last - self.first) as f64 / 60_000.0;
        (minutes > 0.0).then(|| self.tokens().total() as f64 / minutes)
    }

    /// For an open window, how many times what it holds it will hold at
    /// its end if use goes on at the rate of [`tokens_per_minute`]
    /// (ccusage's projection): multiply its tokens, or its cost, by this.
    /// `None` when it is closed at `now` or has no rate yet.
    ///
    /// [`tokens_per_minute`]: BillingWindow::tokens_per_minute
    pub fn projection_factor(&self, now: i64) -> Option<f64> {
        if !self.active || self.last <= self.first {
            return None;
        }
        let left = (self.end - now).max(0) as f64;
        Some(1.0 + left / (self.last - self.first) as f64)
    }

    /// Its cost over the models with a price; `partial` when some had none.
    pub fn cost(&self) -> Cost {
        let mut c = Cost::default();
        for x in self.costs.values() {
            c.add(x);
        }
        c
    }

    /// Whether some model of it has a price.
    pub fn any_priced(&self) -> bool {
        self.costs.values().any(|c| c.usd > 0.0 || !c.partial)
    }
}

/// An open 5-hour window as a one-line status shows it (`claudio
/// statusline`): what `sessions usage --by block` computes for it, in dollars.
#[derive(Debug, Clone, PartialEq)]
pub struct OpenWindow {
    /// Whole minutes until it ends.
    pub minutes_left: i64,
    /// Its estimated cost so far.
    pub cost: f64,
    /// At its present rate: dollars per hour, and its cost at its end
    /// (`None` with one request so far: no rate yet).
    pub cost_per_hour: Option<f64>,
    pub projected: Option<f64>,
    /// Some of its models have no price: the costs are a lower bound.
    pub partial: bool,
    /// None of its models has a price: no cost to show.
    pub unpriced: bool,
}

impl OpenWindow {
    /// The window `w` at `now`.
    pub fn of(w: &BillingWindow, now: i64) -> OpenWindow {
        let cost = w.cost();
        let factor = w
            .projection_factor(now)
            .filter(|_| w.tokens_per_minute().is_some());
        let hours = (w.last - w.first) as f64 / 3_600_000.0;
        OpenWindow {
            minutes_left: (w.end - now).max(0) / 60_000,
            cost: cost.usd,
            cost_per_hour: factor.map(|_| cost.usd / hours),
            projected: factor.map(|f| cost.usd * f),
            partial: cost.partial,
            unpriced: !w.any_priced(),
        }
    }
}

/// Group API messages into 5-hour billing windows, as ccusage reports the
/// subscription plans' windows: a window starts at the first message after
/// the previous one ended, floored to the hour (UTC), and lasts
/// [`BILLING_WINDOW_MS`]; a message more than 5 hours after the window's
/// last one starts a new window too, and so does one dated after `now`
/// that would join a window begun by `now` (a window holds no future). `messages` are (time in ms since the
/// epoch, model, tokens, cost), in any order; `now` decides which window is
/// still open. Windows come oldest first; hours without use are no window.
pub fn billing_windows<'a, I>(messages: I, now: i64) -> Vec<BillingWindow>
where
    I: IntoIterator<Item = (i64, &'a str, Tokens, Cost)>,
{
    let mut all: Vec<(i64, &str, Tokens, Cost)> = messages.into_iter().collect();
    all.sort_by_key(|m| m.0);
    let mut out: Vec<BillingWindow> = Vec::new();
    for (at, model, tokens, cost) in all {
        let open = out.last_mut().filter(|w| {
            at.saturating_sub(w.start) <= BILLING_WINDOW_MS
                && at.saturating_sub(w.last) <= BILLING_WINDOW_MS
                // a message dated after now never joins a window begun by
                // then: the window that holds now counts no future
                && (at <= now || w.first > now)
        });
        let w = match open {
            Some(w) => w,
            None => {
                let start = at.div_euclid(3_600_000) * 3_600_000;
                out.push(BillingWindow {
                    start,
                    end: start.saturating_add(BILLING_WINDOW_MS),
                    first: at,
                    last: at,
                    models: Default::default(),
                    costs: Default::default(),
                    messages: 0,
                    active: false,
                });
                out.last_mut().expect("just pushed")
            }
        };
        w.last = at;
        w.messages += 1;
        w.models.entry(model.to_owned()).or_default().add(&tokens);
        w.costs.entry(model.to_owned()).or_default().add(&cost);
    }
    for w in &mut out {
        // ccusage's rule: not ended, and the last message within 5 hours;
        // and a window holds now only if it has begun (one dated in 2099
        // is not open today)
        w.active = w.first <= now && now < w.end && now.saturating_sub(w.last) < BILLING_WINDOW_MS;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The open window as `claudio statusline` shows it: its cost, its
    /// rate per hour and its cost at its end at that rate; with one
    /// message, no rate.
    #[test]
    fn the_open_window_has_its_cost_rate_and_projection() {
        let h = 3_600_000;
        let usd = |usd| Cost {
            usd,
            ..Cost::default()
        };
        let m = [
            (10 * h, "opus", Tokens::default(), usd(1.0)),
            (11 * h, "opus", Tokens::default(), usd(2.0)),
        ];
        let w = &super::billing_windows(m, 12 * h)[0];
        let o = OpenWindow::of(w, 12 * h);
        assert_eq!(
            o,
            OpenWindow {
                minutes_left: 180,
                cost: 3.0,
                cost_per_hour: Some(3.0),
                projected: Some(12.0),
                partial: false,
                unpriced: false,
            }
        );
        let w = &super::billing_windows([m[0]], 12 * h)[0];
        let o = OpenWindow::of(w, 12 * h);
        assert_eq!((o.cost, o.cost_per_hour, o.projected), (1.0, None, None));
    }

    /// The windows of unpriced messages.
    fn billing_windows<'a>(
        m: impl IntoIterator<Item = (i64, &'a str, Tokens)>,
        now: i64,
    ) -> Vec<BillingWindow> {
        super::billing_windows(
            m.into_iter().map(|(a, m, t)| (a, m, t, Cost::default())),
            now,
        )
    }

    /// A transcript's numbers are not trusted: counts at `u64::MAX` stay
    /// there when summed into a window, and its rate is a number.
    #[test]
    fn token_counts_saturate_in_a_window() {
        let max = u64::MAX;
        let t = |input: u64, output: u64| {
            let mut t = Tokens::default();
            (t.input, t.output) = (input, output);
            t
        };
        let at = claudio::store::parse_iso_millis("2026-11-01T10:00:00Z").unwrap();
        let w = billing_windows(
            [
                (at + 1000, "claude-sonnet-4-5", t(max, max)),
                (at + 2000, "claude-sonnet-4-5", t(max, 1)),
                (at + 3000, "claude-opus-4-5", t(5, max)),
            ],
            at,
        );
        assert_eq!(w.len(), 1);
        assert_eq!(w[0].tokens().total(), max);
        assert!(w[0].tokens_per_minute().is_some_and(f64::is_finite));
    }

    #[test]
    fn billing_windows_start_at_the_hour_of_their_first_message() {
        let ms = |s: &str| claudio::store::parse_iso_millis(s).unwrap();
        let t = |input: u64| {
            let mut t = Tokens::default();
            t.input = input;
            t
        };
        let msgs = [
            // given out of order
            (ms("2026-11-01T12:10:00.000Z"), "b", t(2)),
            (ms("2026-11-01T10:40:00.000Z"), "a", t(1)),
            // 15:00 exactly is still the first window (start + 5 h)
            (ms("2026-11-01T15:00:00.000Z"), "a", t(4)),
            // past it: a new window, floored to 15:00
            (ms("2026-11-01T15:00:00.001Z"), "a", t(8)),
            // a gap of more than 5 hours: a new window at 21:00
            (ms("2026-11-01T21:30:00.000Z"), "a", t(16)),
            (ms("2026-11-01T22:30:00.000Z"), "a", t(32)),
        ];
        let now = ms("2026-11-01T23:30:00.000Z");
        let w = billing_windows(msgs, now);
        let starts: Vec<i64> = w.iter().map(|w| w.start).collect();
        assert_eq!(
            starts,
            [
                ms("2026-11-01T10:00:00.000Z"),
                ms("2026-11-01T15:00:00.000Z"),
                ms("2026-11-01T21:00:00.000Z")
            ]
        );
        let inputs: Vec<u64> = w.iter().map(|w| w.tokens().input).collect();
        assert_eq!(inputs, [7, 8, 48]);
        assert_eq!(w[0].models.len(), 2);
        assert_eq!(
            (w[0].messages, w[0].first),
            (3, ms("2026-11-01T10:40:00.000Z"))
        );
        assert_eq!(w[2].end, ms("2026-11-02T02:00:00.000Z"));
        let active: Vec<bool> = w.iter().map(|w| w.active).collect();
        assert_eq!(active, [false, false, true]);

        // the open window: 48 tokens in 60 minutes, 150 minutes left
        let open = &w[2];
        assert_eq!(open.tokens_per_minute(), Some(0.8));
        assert_eq!(open.projection_factor(now), Some(1.0 + 150.0 / 60.0));
        assert_eq!(w[0].projection_factor(now), None, "closed");
        // one message: no rate yet
        assert_eq!(w[1].tokens_per_minute(), None);
        // at its end it is closed; later still, every window is
        let at_end = billing_windows(msgs, ms("2026-11-02T02:00:00.000Z"));
        assert!(at_end.iter().all(|w| !w.active));
        assert!(billing_windows([], now).is_empty());
        // a time before 1970 floors down too
        let w = billing_windows([(-1, "a", t(1))], 0);
        assert_eq!((w[0].start, w[0].active), (-3_600_000, true));
    }

    /// A message dated in the future (2099) is a window of its own that
    /// is never open: the window that holds now stays the open one, and
    /// one that starts after now (even within the hour) is not open.
    #[test]
    fn a_window_that_starts_after_now_is_never_open() {
        let ms = |s: &str| claudio::store::parse_iso_millis(s).unwrap();
        let t = |input: u64| {
            let mut t = Tokens::default();
            t.input = input;
            t
        };
        let now = ms("2026-11-01T10:30:00.000Z");
        let w = billing_windows(
            [
                (ms("2026-11-01T10:10:00.000Z"), "a", t(1)),
                (ms("2099-01-01T00:00:00.000Z"), "a", t(2)),
            ],
            now,
        );
        let active: Vec<bool> = w.iter().map(|w| w.active).collect();
        assert_eq!(active, [true, false]);
        // the future window alone: listed, not open
        let w = billing_windows([(ms("2099-01-01T00:00:00.000Z"), "a", t(2))], now);
        assert_eq!((w.len(), w[0].active), (1, false));
        // a message at 11:05 when it is 10:30: its window starts at 11:00
        let w = billing_windows([(ms("2026-11-01T11:05:00.000Z"), "a", t(2))], now);
        assert_eq!(
            (w[0].start, w[0].active),
            (ms("2026-11-01T11:00:00.000Z"), false)
        );
        // one at 10:45: a window of its own (from 10:00, still not open),
        // not a part of the open one, whose rate it would change
        let w = billing_windows(
            [
                (ms("2026-11-01T10:10:00.000Z"), "a", t(1)),
                (ms("2026-11-01T10:45:00.000Z"), "a", t(2)),
            ],
            now,
        );
        let seen: Vec<(u64, bool)> = w.iter().map(|w| (w.tokens().input, w.active)).collect();
        assert_eq!(seen, [(1, true), (2, false)]);
        assert_eq!(w[0].tokens_per_minute(), None);
        // at its start it is open
        let w = billing_windows([(now, "a", t(2))], now);
        assert!(w[0].active);
    }
}
