//! Times as the commands show them: how long ago, or the local
//! date and time.

/// Milliseconds since the epoch, now (0 before it).
pub(crate) fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// How long ago, for a listing: `just now`, `5m ago`, ... and past a
/// month the local date; a time more than a minute ahead of now (a file
/// dated ahead, a clock set wrong) is its local date too.
pub(crate) fn relative_time(now_ms: i64, then_ms: i64) -> String {
    let secs = now_ms.saturating_sub(then_ms) / 1000;
    match secs {
        s if s < -60 => local_time(then_ms).0,
        s if s < 60 => "just now".into(),
        s if s < 3600 => format!("{}m ago", s / 60),
        s if s < 86_400 => format!("{}h ago", s / 3600),
        s if s < 30 * 86_400 => format!("{}d ago", s / 86_400),
        _ => local_time(then_ms).0,
    }
}

/// (`YYYY-MM-DD`, `HH:MM`) in local time: the zone `TZ` names, else the
/// system's (UTC when neither can be read; see [`local_zone`]).
pub(crate) fn local_time(ms: i64) -> (String, String) {
    let Ok(t) = jiff::Timestamp::from_millisecond(ms) else {
        // beyond the years jiff knows (±9999): shown in UTC, the date
        // whole (a year may have more than four digits)
        let iso = claudio::store::format_iso_millis(ms);
        let (date, time) = iso.split_once('T').unwrap_or((&iso, ""));
        return (date.to_owned(), time.chars().take(5).collect());
    };
    let d = local_zone().to_datetime(t);
    (
        format!("{:04}-{:02}-{:02}", d.year(), d.month(), d.day()),
        format!("{:02}:{:02}", d.hour(), d.minute()),
    )
}

/// The largest time zone file read (a TZif file of the tz database is at
/// most a few KiB; one with leap seconds under 5 KiB).
pub(crate) const MAX_TZIF: u64 = 256 * 1024;

/// Where a time zone name (`Europe/Paris`) is looked for, after `TZDIR`.
const ZONEINFO_DIRS: &[&str] = &[
    "/usr/share/zoneinfo",
    "/usr/lib/zoneinfo",
    "/usr/share/lib/zoneinfo",
    "/etc/zoneinfo",
];

/// The local time zone, found once: the zone `TZ` names, else the
/// system's (`/etc/localtime`), else UTC. `TZ` and `TZDIR` are paths from
/// the environment: a file is opened without blocking (a FIFO never
/// waits), only a regular file is read, and at most [`MAX_TZIF`] bytes of
/// it (`/dev/zero` never grows the process). A `TZ` that cannot be used
/// gives UTC, and [`zone_note`] says why (nothing is printed here: the
/// chat's screen calls this too).
pub(crate) fn local_zone() -> &'static jiff::tz::TimeZone {
    &zone().0
}

/// The zone [`local_zone`] found, and why `TZ` could not be used.
static ZONE: std::sync::OnceLock<(jiff::tz::TimeZone, Option<String>)> = std::sync::OnceLock::new();

fn zone() -> &'static (jiff::tz::TimeZone, Option<String>) {
    ZONE.get_or_init(|| {
        zone_from(
            std::env::var_os("TZ").as_deref(),
            std::env::var_os("TZDIR").as_deref(),
        )
    })
}

/// Why `TZ` could not be used, once a local time was needed, and only the
/// first time it is asked for: one line for stderr.
pub(crate) fn zone_note() -> Option<String> {
    static SAID: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    let note = ZONE.get()?.1.as_deref()?;
    let first = !SAID.swap(true, std::sync::atomic::Ordering::Relaxed);
    first.then(|| crate::cli::term::text::flat(note))
}

/// The zone of `tz` (the value of `TZ`, `None` when unset) with `tzdir`
/// (of `TZDIR`), and a note when `TZ` was set but could not be used. As
/// the C library reads it: empty is UTC; a POSIX rule
/// (`EST5EDT,M3.2.0,M11.1.0`); `:` and a path; a name in the tz database.
pub(crate) fn zone_from(
    tz: Option<&std::ffi::OsStr>,
    tzdir: Option<&std::ffi::OsStr>,
) -> (jiff::tz::TimeZone, Option<String>) {
    use jiff::tz::TimeZone;
    let Some(tz) = tz else {
        // the system's: what /etc/localtime links to, or the file itself
        let named = std::fs::read_link("/etc/localtime").ok().and_then(|l| {
            let l = l.to_str()?.to_owned();
            let name = &l[l.rfind("zoneinfo/")? + "zoneinfo/".len()..];
            zone_named(name, tzdir).ok()
        });
        return match named {
            Some(z) => (z, None),
            None => (
                read_tzif(std::path::Path::new("/etc/localtime"), "localtime")
                    .unwrap_or(TimeZone::UTC),
                None,
            ),
        };
    };
    let shown = crate::cli::term::text::first_line(&tz.to_string_lossy(), 60);
    let utc = |why: ZoneError| {
        (
            TimeZone::UTC,
            Some(format!("TZ={shown}: {why}; times are shown in UTC")),
        )
    };
    let Some(tz) = tz.to_str() else {
        return utc(ZoneError::NotUtf8);
    };
    if tz.is_empty() {
        return (TimeZone::UTC, None);
    }
    if !tz.starts_with(':') {
        if let Ok(z) = TimeZone::posix(tz) {
            return (z, None);
        }
    }
    let name = tz.strip_prefix(':').unwrap_or(tz);
    let found = if name.starts_with('/') {
        read_tzif(std::path::Path::new(name), name)
    } else {
        zone_named(name, tzdir)
    };
    match found {
        Ok(z) => (z, None),
        // UTC by name needs no file (a container without the database)
        Err(_) if ["UTC", "Etc/UTC", "GMT", "Etc/GMT", "UCT", "Zulu"].contains(&name) => {
            (TimeZone::UTC, None)
        }
        Err(why) => utc(why),
    }
}

/// Why a `TZ` gave no zone (said in the note; UTC is used instead).
#[derive(Debug, thiserror::Error)]
enum ZoneError {
    #[error("not UTF-8")]
    NotUtf8,
    #[error("not a time zone name")]
    NotAName,
    #[error("no such time zone")]
    NoSuchZone,
    #[error("no such file")]
    NoSuchFile,
    #[error("not a regular file")]
    NotRegular,
    #[error("larger than {} KiB", MAX_TZIF / 1024)]
    TooLarge,
    #[error("not a time zone file")]
    NotTzif,
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

/// A zone of the tz database by name (`Europe/Paris`): from `TZDIR` (an
/// absolute one) or the usual folders. A name that climbs out (`..`) or
/// is a path is not looked up.
fn zone_named(
    name: &str,
    tzdir: Option<&std::ffi::OsStr>,
) -> Result<jiff::tz::TimeZone, ZoneError> {
    use std::path::{Component, Path};
    let plain = !name.is_empty()
        && Path::new(name)
            .components()
            .all(|c| matches!(c, Component::Normal(_)));
    if !plain {
        return Err(ZoneError::NotAName);
    }
    let dirs = tzdir
        .map(Path::new)
        .filter(|d| d.is_absolute())
        .into_iter()
        .chain(ZONEINFO_DIRS.iter().map(Path::new));
    let mut why = ZoneError::NoSuchZone;
    for dir in dirs {
        match read_tzif(&dir.join(name), name) {
            Ok(z) => return Ok(z),
            Err(ZoneError::NoSuchFile) => {}
            Err(e) => why = e,
        }
    }
    Err(why)
}

/// A TZif file read as [`local_zone`] says: without blocking, a regular
/// file only, at most [`MAX_TZIF`] bytes. A link is followed (a zone's
/// file often is one), and the file it ends at is checked.
fn read_tzif(path: &std::path::Path, name: &str) -> Result<jiff::tz::TimeZone, ZoneError> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_CLOEXEC)
        .open(path)
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => ZoneError::NoSuchFile,
            _ => ZoneError::Io(e),
        })?;
    if !file.metadata()?.is_file() {
        return Err(ZoneError::NotRegular);
    }
    let mut data = Vec::new();
    file.take(MAX_TZIF + 1).read_to_end(&mut data)?;
    if data.len() as u64 > MAX_TZIF {
        return Err(ZoneError::TooLarge);
    }
    jiff::tz::TimeZone::tzif(name, &data).map_err(|_| ZoneError::NotTzif)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `TZ` naming a device, a FIFO, a folder or a huge file: each read
    /// bounded, never waited on, and said once; the times are UTC (TZ=/dev/zero
    /// grew to 5 GB in 5 s, a FIFO blocked for ever: the fourth attack round).
    #[test]
    fn a_tz_that_names_no_zone_file_is_utc_with_a_note() {
        use jiff::tz::TimeZone;
        let d = tempfile::tempdir().unwrap();
        let fifo = d.path().join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.unwrap().success());
        let huge = d.path().join("huge");
        std::fs::File::create(&huge)
            .unwrap()
            .set_len(MAX_TZIF + 1)
            .unwrap();
        let zero_link = d.path().join("zero");
        std::os::unix::fs::symlink("/dev/zero", &zero_link).unwrap();
        let bad = |tz: &str| {
            let (z, note) = zone_from(Some(tz.as_ref()), None);
            assert_eq!(z, TimeZone::UTC, "{tz}");
            let note = note.unwrap_or_else(|| panic!("no note for {tz}"));
            assert!(note.contains("times are shown in UTC") && !note.contains('\n'));
            note
        };
        assert!(bad("/dev/zero").contains("not a regular file"));
        assert!(bad(":/dev/zero").contains("not a regular file"));
        assert!(bad(&zero_link.display().to_string()).contains("not a regular file"));
        assert!(bad(&fifo.display().to_string()).contains("not a regular file"));
        assert!(bad(&d.path().display().to_string()).contains("not a regular file"));
        assert!(bad(&huge.display().to_string()).contains("larger than"));
        assert!(bad("/nonexistent/zone").contains("no such file"));
        assert!(bad("../../../dev/zero").contains("not a time zone name"));
        assert!(bad("No/Such_Zone").contains("no such time zone"));
        // a TZDIR holding a FIFO by the zone's name: not waited on either
        std::fs::create_dir(d.path().join("Europe")).unwrap();
        let made = std::process::Command::new("mkfifo")
            .arg(d.path().join("Europe/Paris"))
            .status();
        assert!(made.unwrap().success());
        let (z, _) = zone_from(Some("Europe/Paris".as_ref()), Some(d.path().as_os_str()));
        if std::path::Path::new("/usr/share/zoneinfo/Europe/Paris").exists() {
            assert_ne!(
                z,
                TimeZone::UTC,
                "found past the FIFO, in the system's folder"
            );
        }
        // what works: empty, UTC by name, a POSIX rule, a name, a path
        assert_eq!(zone_from(Some("".as_ref()), None), (TimeZone::UTC, None));
        assert_eq!(zone_from(Some("UTC".as_ref()), None).1, None);
        let (z, note) = zone_from(Some("EST5EDT,M3.2.0,M11.1.0".as_ref()), None);
        assert!(note.is_none() && z != TimeZone::UTC);
        let paris = "/usr/share/zoneinfo/Europe/Paris";
        if std::path::Path::new(paris).exists() {
            for tz in ["Europe/Paris", ":Europe/Paris", paris] {
                let (z, note) = zone_from(Some(tz.as_ref()), None);
                assert!(note.is_none(), "{tz}: {note:?}");
                let t = jiff::Timestamp::from_second(1_800_000_000).unwrap();
                assert_eq!(z.to_offset(t).seconds(), 3600, "{tz}");
            }
        }
    }

    #[test]
    fn relative_times() {
        assert_eq!(relative_time(100_000, 90_000), "just now");
        assert_eq!(relative_time(7_200_000, 0), "2h ago");
    }

    /// A time ahead of now (a file dated ahead, a clock set wrong) is its
    /// date, not "just now"; a minute ahead (clocks a little apart) is
    /// "just now"; a time at either end of the range is a date, no
    /// overflow.
    #[test]
    fn a_time_ahead_of_now_is_its_date() {
        let now = 1_796_653_952_647; // 2026-12-07
        let ahead = 13_569_465_600_000; // 2400-01-01, as `touch -d` sets it
        assert_eq!(relative_time(now, ahead), local_time(ahead).0);
        assert_eq!(
            relative_time(now, now + 3_600_000),
            local_time(now + 3_600_000).0
        );
        assert_eq!(relative_time(now, now + 30_000), "just now");
        for then in [i64::MIN, i64::MAX] {
            assert_eq!(relative_time(now, then), local_time(then).0);
        }
    }
}
