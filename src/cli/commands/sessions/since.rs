//! `--since`, as `sessions list`, `search` and `usage` take it.

/// `--since`: a span back from now (`30m`, `12h`, `7d`, `2w`) or a date
/// (`2026-11-01`, midnight UTC), in ms since the epoch.
pub(crate) fn parse_since(s: &str, now_ms: i64) -> anyhow::Result<i64> {
    let s = s.trim();
    let unit = |c: char| match c {
        'm' => Some(60_000i64),
        'h' => Some(3_600_000),
        'd' => Some(86_400_000),
        'w' => Some(7 * 86_400_000),
        _ => None,
    };
    if let Some(last) = s.chars().last() {
        if let (Some(ms), Ok(n)) = (unit(last), s[..s.len() - 1].parse::<i64>()) {
            return Ok(now_ms.saturating_sub(n.max(0).saturating_mul(ms)));
        }
    }
    // a date that is one (not 2026-02-30, which would roll into March)
    let midnight = |date: &str| {
        claudio::store::parse_iso_millis(&format!("{date}T00:00:00.000Z"))
            .filter(|&ms| claudio::store::format_iso_millis(ms).starts_with(date))
    };
    if let Some(ms) = midnight(s) {
        return Ok(ms);
    }
    let real_day = s.get(..10).and_then(midnight).is_some();
    claudio::store::parse_iso_millis(s)
        .filter(|_| real_day)
        .ok_or_else(|| {
            crate::cli::common::exit::usage_error!(
                "--since {}: give a span (30m, 12h, 7d, 2w) or a date (2026-11-01)",
                crate::cli::term::text::first_line(s, 40)
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn since_takes_spans_and_dates() {
        let now = 10 * 86_400_000;
        assert_eq!(parse_since("2d", now).unwrap(), 8 * 86_400_000);
        assert_eq!(parse_since("30m", now).unwrap(), now - 1_800_000);
        assert_eq!(parse_since("1w", now).unwrap(), 3 * 86_400_000);
        assert_eq!(
            parse_since("1970-01-02", now).unwrap(),
            86_400_000,
            "a date is midnight UTC"
        );
        assert!(parse_since("soon", now).is_err());
        // no day rolls into the next month
        assert!(parse_since("2026-02-30", now).is_err());
        assert!(parse_since("2026-02-30T10:00:00Z", now).is_err());
        assert!(parse_since("2028-02-29", now).is_ok());
        assert!(parse_since("2026-02-28T10:00:00Z", now).is_ok());
        // a span too long for the clock is all of time, not an overflow
        assert!(parse_since("999999999999999999w", now).unwrap() < 0);
    }
}
