//! Timestamps as the CLI writes them (`2026-01-02T03:04:05.678Z`).

use std::time::{SystemTime, UNIX_EPOCH};

/// Milliseconds since the Unix epoch of an ISO 8601 date-time, as
/// JavaScript's `Date.parse` reads the forms transcripts use: `YYYY`,
/// `YYYY-MM`, `YYYY-MM-DD` (UTC), optionally followed by `THH:mm`, `:ss` and
/// a fraction, then `Z` or `±HH:mm`. A date-time without a zone is read as
/// UTC (JavaScript would use local time; transcripts always carry `Z`).
///
/// ```
/// use claudio::store::{format_iso_millis, parse_iso_millis};
/// let ms = parse_iso_millis("2026-01-02T03:04:05.678Z").expect("a date-time");
/// assert_eq!(format_iso_millis(ms), "2026-01-02T03:04:05.678Z");
/// assert_eq!(parse_iso_millis("1970-01-01T00:00:01+01:00"), Some(-3_599_000));
/// assert_eq!(parse_iso_millis("yesterday"), None);
/// ```
pub fn parse_iso_millis(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    let mut i = 0;
    let num = |i: &mut usize, n: usize| -> Option<i64> {
        let digits = b.get(*i..*i + n)?;
        if !digits.iter().all(u8::is_ascii_digit) {
            return None;
        }
        *i += n;
        Some(digits.iter().fold(0i64, |a, d| a * 10 + (d - b'0') as i64))
    };
    let year = match b.first() {
        Some(b'+') | Some(b'-') => {
            let neg = b[0] == b'-';
            i = 1;
            let y = num(&mut i, 6)?;
            if neg && y == 0 {
                return None;
            }
            if neg {
                -y
            } else {
                y
            }
        }
        _ => num(&mut i, 4)?,
    };
    let (mut month, mut day) = (1, 1);
    if b.get(i) == Some(&b'-') {
        i += 1;
        month = num(&mut i, 2)?;
        if b.get(i) == Some(&b'-') {
            i += 1;
            day = num(&mut i, 2)?;
        }
    }
    // V8 accepts any day up to 31 and rolls over (2023-02-31 is March 3).
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return None;
    }
    let (mut h, mut m, mut sec, mut ms) = (0, 0, 0, 0);
    let mut offset_min = 0;
    if matches!(b.get(i), Some(b'T' | b't' | b' ')) {
        i += 1;
        h = num(&mut i, 2)?;
        if b.get(i) != Some(&b':') {
            return None;
        }
        i += 1;
        m = num(&mut i, 2)?;
        if b.get(i) == Some(&b':') {
            i += 1;
            sec = num(&mut i, 2)?;
            if b.get(i) == Some(&b'.') {
                i += 1;
                let start = i;
                while b.get(i).is_some_and(u8::is_ascii_digit) {
                    i += 1;
                }
                if i == start {
                    return None;
                }
                let frac = &s[start..i.min(start + 3)];
                ms = frac.parse::<i64>().ok()? * 10i64.pow(3 - frac.len() as u32);
            }
        }
        if h > 24 || m > 59 || sec > 59 || (h == 24 && (m, sec, ms) != (0, 0, 0)) {
            return None;
        }
        match b.get(i) {
            Some(b'Z') | Some(b'z') => i += 1,
            Some(&sign @ (b'+' | b'-')) => {
                i += 1;
                let oh = num(&mut i, 2)?;
                if b.get(i) == Some(&b':') {
                    i += 1;
                }
                let om = num(&mut i, 2)?;
                if oh > 23 || om > 59 {
                    return None;
                }
                offset_min = (oh * 60 + om) * if sign == b'+' { 1 } else { -1 };
            }
            _ => {}
        }
    }
    if i != b.len() {
        return None;
    }
    let days = days_from_civil(year, month, day);
    let millis = ((days * 24 + h) * 60 + m - offset_min) * 60_000 + sec * 1000 + ms;
    // ECMAScript's time value range: ±8.64e15 ms.
    (millis.abs() <= 8_640_000_000_000_000).then_some(millis)
}

/// Days since 1970-01-01 of a proleptic Gregorian date.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// (year, month, day) of a count of days since 1970-01-01.
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (
        if m <= 2 {
            yoe + era * 400 + 1
        } else {
            yoe + era * 400
        },
        m,
        d,
    )
}

/// `2026-01-02T03:04:05.678Z`, as JavaScript's `toISOString`.
///
/// ```
/// assert_eq!(claudio::store::format_iso_millis(0), "1970-01-01T00:00:00.000Z");
/// ```
pub fn format_iso_millis(millis: i64) -> String {
    let days = millis.div_euclid(86_400_000);
    let rem = millis.rem_euclid(86_400_000);
    let (y, mo, d) = civil_from_days(days);
    format!(
        "{y:04}-{mo:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3_600_000,
        rem / 60_000 % 60,
        rem / 1000 % 60,
        rem % 1000
    )
}

/// Now, in milliseconds since the epoch.
pub(super) fn now_millis() -> i64 {
    millis_of(SystemTime::now())
}

/// A system time in milliseconds since the epoch (negative before 1970).
/// Rounded to the nearest millisecond, as Node's `stat().mtime` is.
pub(super) fn millis_of(t: SystemTime) -> i64 {
    let nanos: i128 = match t.duration_since(UNIX_EPOCH) {
        Ok(d) => d.as_nanos() as i128,
        Err(e) => -(e.duration().as_nanos() as i128),
    };
    (nanos + 500_000).div_euclid(1_000_000) as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_like_date_parse() {
        // Values from node's Date.parse.
        assert_eq!(
            parse_iso_millis("2026-11-29T21:18:34.573Z"),
            Some(1_795_987_114_573)
        );
        assert_eq!(parse_iso_millis("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(parse_iso_millis("1970-01-01"), Some(0));
        assert_eq!(
            parse_iso_millis("2024-02-29T12:00:00.5+02:00"),
            Some(1_709_200_800_500)
        );
        assert_eq!(
            parse_iso_millis("2024-02-29T12:00:00.123456Z"),
            Some(1_709_208_000_123)
        );
        assert_eq!(parse_iso_millis("1969-12-31T23:59:59.999Z"), Some(-1));
        assert_eq!(
            parse_iso_millis("2023-02-31T00:00:00Z"),
            Some(1_677_801_600_000)
        );
        assert_eq!(parse_iso_millis("2023-02-32T00:00:00Z"), None);
        assert_eq!(
            parse_iso_millis("2023-01-01T24:00:00Z"),
            Some(1_672_617_600_000)
        );
        assert_eq!(parse_iso_millis("2023-01-01T24:00:01Z"), None);
        assert_eq!(
            parse_iso_millis("2023-01-01T10:00:00+0100"),
            Some(1_672_563_600_000)
        );
        assert_eq!(
            parse_iso_millis("+002023-01-01T00:00:00Z"),
            Some(1_672_531_200_000)
        );
        assert_eq!(parse_iso_millis("2023-01-01T10:00:00.Z"), None);
        assert_eq!(parse_iso_millis("not a date"), None);
        assert_eq!(parse_iso_millis("2026-11-29T21:18:34.573Zjunk"), None);
        assert_eq!(parse_iso_millis(""), None);
    }

    #[test]
    fn file_times_round_like_node() {
        use std::time::Duration;
        let at = |ns: u64| millis_of(UNIX_EPOCH + Duration::from_nanos(ns));
        assert_eq!(at(1_066_499_999), 1066);
        assert_eq!(at(1_066_500_000), 1067);
        assert_eq!(at(1_066_999_999), 1067);
        assert_eq!(millis_of(UNIX_EPOCH - Duration::from_millis(5)), -5);
    }

    #[test]
    fn formats_like_to_iso_string() {
        assert_eq!(
            format_iso_millis(1_795_987_114_573),
            "2026-11-29T21:18:34.573Z"
        );
        assert_eq!(format_iso_millis(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(format_iso_millis(-1), "1969-12-31T23:59:59.999Z");
        for ms in [0, 951_782_400_000, 1_709_208_000_123, 4_102_444_800_000] {
            assert_eq!(parse_iso_millis(&format_iso_millis(ms)), Some(ms));
        }
    }
}
