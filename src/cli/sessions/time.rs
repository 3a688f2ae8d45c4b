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

/// (`YYYY-MM-DD`, `HH:MM`) in local time.
pub(super) fn local_time(ms: i64) -> (String, String) {
    let t = ms.div_euclid(1000) as libc::time_t;
    // SAFETY: localtime_r writes into the tm we own.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    if unsafe { libc::localtime_r(&t, &mut tm) }.is_null() {
        let iso = claudio::store::format_iso_millis(ms);
        return (iso[..10].to_owned(), iso[11..16].to_owned());
    }
    (
        format!(
            "{:04}-{:02}-{:02}",
            tm.tm_year + 1900,
            tm.tm_mon + 1,
            tm.tm_mday
        ),
        format!("{:02}:{:02}", tm.tm_hour, tm.tm_min),
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
