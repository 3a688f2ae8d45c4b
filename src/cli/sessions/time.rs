//! Times as the sessions commands show them: how long ago, or the local
//! date and time.

/// How long ago, for a listing: `just now`, `5m ago`, ... and past a
/// month the local date.
pub(crate) fn relative_time(now_ms: i64, then_ms: i64) -> String {
    let secs = (now_ms - then_ms) / 1000;
    match secs {
        s if s < 60 => "just now".into(),
        s if s < 3600 => format!("{}m ago", s / 60),
        s if s < 86_400 => format!("{}h ago", s / 3600),
        s if s < 30 * 86_400 => format!("{}d ago", s / 86_400),
        _ => local_time(then_ms).0,
    }
}

/// (`YYYY-MM-DD`, `HH:MM`) in local time: the zone `TZ` names, else the
/// system's (UTC when neither can be read).
pub(super) fn local_time(ms: i64) -> (String, String) {
    let Ok(t) = jiff::Timestamp::from_millisecond(ms) else {
        // beyond the years jiff knows (±9999): shown in UTC
        let iso = claudio::store::format_iso_millis(ms);
        return (iso[..10].to_owned(), iso[11..16].to_owned());
    };
    let d = jiff::tz::TimeZone::system().to_datetime(t);
    (
        format!("{:04}-{:02}-{:02}", d.year(), d.month(), d.day()),
        format!("{:02}:{:02}", d.hour(), d.minute()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_times() {
        assert_eq!(relative_time(100_000, 90_000), "just now");
        assert_eq!(relative_time(7_200_000, 0), "2h ago");
    }
}
