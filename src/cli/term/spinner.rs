//! `ask`'s one spinner line on stderr (indicatif): a waiting line with the
//! elapsed time until the first text, then the running tool's summary and
//! its time. Only on a terminal; cleared before anything else is written to
//! stderr, and before the answer when the answer goes to the same terminal.

use crate::cli::term::style::Style;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};
use std::io::IsTerminal;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

const FRAMES: [char; 10] = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/// The spinner frame `ms` milliseconds after a start (the chat's spinners
/// use the same frames).
pub fn frame(ms: u64) -> char {
    FRAMES[(ms / 80) as usize % FRAMES.len()]
}

#[derive(Debug, Default)]
struct State {
    bar: Option<ProgressBar>,
    /// Questions being asked on the terminal: nothing is drawn meanwhile.
    held: usize,
    /// What to show once they are answered.
    wanted: Option<(String, Instant)>,
}

/// The spinner, shared with whoever writes to the terminal (the approval
/// prompt pauses it).
#[derive(Clone, Debug)]
pub struct Spinner {
    style: Style,
    state: Arc<Mutex<State>>,
}

/// The spinner is off the screen while this lives (see [`Spinner::pause`]).
pub struct Paused(Spinner);

impl Drop for Paused {
    fn drop(&mut self) {
        let mut st = self.0.lock();
        st.held = st.held.saturating_sub(1);
        if st.held == 0 {
            if let Some((text, since)) = st.wanted.take() {
                self.0.draw(&mut st, text, since);
            }
        }
    }
}

impl Spinner {
    /// A spinner on stderr, or `None` when stderr is no terminal.
    pub fn on_stderr(style: Style) -> Option<Spinner> {
        std::io::stderr().is_terminal().then(|| Spinner {
            style,
            state: Arc::default(),
        })
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Show `text` with a spinner and the time since `since`.
    pub fn show(&self, text: String, since: Instant) {
        let mut st = self.lock();
        if st.held > 0 {
            st.wanted = Some((text, since));
            return;
        }
        self.draw(&mut st, text, since);
    }

    fn draw(&self, st: &mut State, text: String, since: Instant) {
        if let Some(b) = st.bar.as_ref() {
            b.set_message(text);
            b.set_elapsed(since.elapsed());
            return;
        }
        let b = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr())
            .with_style(line_style(self.style))
            .with_message(text)
            .with_elapsed(since.elapsed());
        // drawn now, not at the first tick: work shorter than a tick is
        // said too (before the ticker: with one installed, `tick` does
        // nothing and the first draw waits for the ticker's thread)
        b.tick();
        b.enable_steady_tick(Duration::from_millis(80));
        st.bar = Some(b);
    }

    /// Take the line away (nothing is left of it on the screen).
    pub fn hide(&self) {
        let mut st = self.lock();
        st.wanted = None;
        if let Some(b) = st.bar.take() {
            b.finish_and_clear();
        }
    }

    /// Take the line away for as long as the guard lives (a question is
    /// asked on the terminal), then show it again as it was, or as it was
    /// asked to be meanwhile.
    pub fn pause(&self) -> Paused {
        let mut st = self.lock();
        st.held += 1;
        if let Some(b) = st.bar.take() {
            let since = Instant::now()
                .checked_sub(b.elapsed())
                .unwrap_or_else(Instant::now);
            st.wanted = Some((b.message().to_string(), since));
            b.finish_and_clear();
        }
        drop(st);
        Paused(self.clone())
    }

    /// Whether the line is shown.
    pub fn shown(&self) -> bool {
        self.lock().bar.is_some()
    }

    /// Write to stderr with the line out of the way; it comes back after.
    pub fn above<R>(&self, f: impl FnOnce() -> R) -> R {
        let st = self.lock();
        match st.bar.as_ref() {
            Some(b) => b.suspend(f),
            None => f(),
        }
    }
}

/// `text` with a spinner and its time on stderr while `work` runs, on a
/// terminal only (nothing when stderr is piped); the line is gone when it
/// returns. For long work that prints nothing until it is done
/// (`sessions archive`, `list --long`).
pub fn while_working<R>(style: Style, text: &str, work: impl FnOnce() -> R) -> R {
    let spinner = Spinner::on_stderr(style);
    if let Some(s) = &spinner {
        s.show(text.to_owned(), Instant::now());
    }
    let r = work();
    if let Some(s) = &spinner {
        s.hide();
    }
    r
}

/// `⠋ text  1.2s`: the frame cyan and the time dim, when colors are on;
/// the time is the bar's own.
fn line_style(style: Style) -> ProgressStyle {
    timed_style("{frame} {msg}  {secs}", style, |s| {
        s.elapsed().as_millis() as u64
    })
}

/// A style whose `{frame}` (cyan) and `{secs}` (dim) keys show the
/// milliseconds `clock` reads from a bar's state: the chat's spinners and
/// `ask`'s line draw alike.
pub fn timed_style(
    template: &str,
    style: Style,
    clock: fn(&ProgressState) -> u64,
) -> ProgressStyle {
    ProgressStyle::with_template(template)
        .expect("a valid template")
        .with_key(
            "frame",
            move |s: &ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = w.write_str(&style.cyan(&frame(clock(s)).to_string()));
            },
        )
        .with_key(
            "secs",
            move |s: &ProgressState, w: &mut dyn std::fmt::Write| {
                let secs = format!("{:.1}s", clock(s) as f64 / 1000.0);
                let _ = w.write_str(&style.dim(&secs));
            },
        )
}
