//! Session and message ids: checking them before any file is touched, and
//! making new ones.

use super::error::{StoreError, StoreResult};
use std::io::Read;

/// Shortest accepted id prefix, in hex digits.
const MIN_PREFIX: usize = 4;

/// A checked id: a whole UUID or a prefix of one. Only lowercase hex digits
/// and dashes at the UUID's dash positions get through, so an id can never
/// name a path (`../`, `/`, NUL...).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IdQuery {
    /// A whole UUID (lowercased).
    Full(String),
    /// A prefix of at least 4 hex digits (lowercased).
    Prefix(String),
}

impl IdQuery {
    /// Check an id as typed by a person.
    ///
    /// ```
    /// use claudio::store::{IdQuery, StoreError};
    /// let q = IdQuery::parse("B55ADE39")?;
    /// assert_eq!(q, IdQuery::Prefix("b55ade39".into()));
    /// assert!(q.matches("b55ade39-3f1c-4d2e-9a8b-7c6d5e4f3a2b"));
    /// assert!(matches!(IdQuery::parse("../etc"), Err(StoreError::InvalidId(_))));
    /// assert!(IdQuery::parse("b55").is_err()); // too short: at least 4 digits
    /// # Ok::<(), StoreError>(())
    /// ```
    pub fn parse(input: &str) -> StoreResult<IdQuery> {
        let lower = input.to_ascii_lowercase();
        if is_uuid(&lower) {
            return Ok(IdQuery::Full(lower));
        }
        let bytes = lower.as_bytes();
        let shaped = bytes.len() < 36
            && bytes.iter().enumerate().all(|(i, b)| match i {
                8 | 13 | 18 | 23 => *b == b'-',
                _ => b.is_ascii_hexdigit(),
            });
        let digits = bytes.iter().filter(|b| b.is_ascii_hexdigit()).count();
        if shaped && digits >= MIN_PREFIX {
            Ok(IdQuery::Prefix(lower))
        } else {
            // a pasted megabyte is not echoed back whole
            let shown: String = input.chars().take(80).collect();
            let shown = if shown.len() < input.len() {
                format!("{shown}…")
            } else {
                shown
            };
            Err(StoreError::InvalidId(shown))
        }
    }

    /// The id or prefix, lowercased.
    pub fn as_str(&self) -> &str {
        match self {
            IdQuery::Full(s) | IdQuery::Prefix(s) => s,
        }
    }

    /// Whether `id` (any case) is this id or starts with this prefix.
    pub fn matches(&self, id: &str) -> bool {
        let q = self.as_str();
        id.len() >= q.len() && id.as_bytes()[..q.len()].eq_ignore_ascii_case(q.as_bytes())
    }
}

/// Whether `s` is a UUID in the 8-4-4-4-12 hex form (any case).
///
/// ```
/// use claudio::store::is_uuid;
/// assert!(is_uuid("0b7d4e8a-9c55-4f0e-8d3c-4b5a3f2a9c1e"));
/// assert!(!is_uuid("0b7d4e8a"));
/// ```
pub fn is_uuid(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => *c == b'-',
            _ => c.is_ascii_hexdigit(),
        })
}

/// A new random (version 4) UUID.
///
/// ```
/// use claudio::store::{is_uuid, new_uuid};
/// let id = new_uuid();
/// assert!(is_uuid(&id));
/// assert_ne!(id, new_uuid());
/// ```
pub fn new_uuid() -> String {
    let mut b = [0u8; 16];
    let filled = std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut b))
        .is_ok();
    if !filled {
        // No /dev/urandom: mix the clock, the pid and a counter.
        use std::sync::atomic::{AtomicU64, Ordering};
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default()
            .as_nanos() as u64;
        let mut x = now
            ^ ((std::process::id() as u64) << 32)
            ^ COUNTER
                .fetch_add(1, Ordering::Relaxed)
                .wrapping_mul(0x9e37_79b9_7f4a_7c15);
        for chunk in b.chunks_mut(8) {
            // splitmix64
            x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = x;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^= z >> 31;
            chunk.copy_from_slice(&z.to_le_bytes()[..chunk.len()]);
        }
    }
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let h: String = b.iter().map(|x| format!("{x:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &h[0..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..32]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_ids_and_prefixes() {
        let id = "696FA53C-870c-4b01-b848-22bc0277365c";
        assert_eq!(
            IdQuery::parse(id).unwrap(),
            IdQuery::Full(id.to_lowercase())
        );
        assert_eq!(
            IdQuery::parse("696f").unwrap(),
            IdQuery::Prefix("696f".into())
        );
        assert_eq!(
            IdQuery::parse("696fa53c-87").unwrap(),
            IdQuery::Prefix("696fa53c-87".into())
        );
        assert!(IdQuery::parse("696fa53c-").is_ok());
        assert!(IdQuery::parse("696fa53c-870c-4b01-b848-22bc0277365").is_ok());
    }

    #[test]
    fn refused_before_touching_files() {
        for bad in [
            "",
            "abc",
            "../../etc/passwd",
            "..",
            "/",
            "696f/..",
            "696f\0",
            "zzzz",
            "696fa53c870c",
            "696fa53c-870c-4b01-b848-22bc0277365cc",
            " 696f",
            "696f ",
            "-696f",
            "696fa53c--",
            "696fa53c-870c-4b01-b848-22bc0277365c/",
            "%2e%2e",
        ] {
            assert!(
                matches!(IdQuery::parse(bad), Err(StoreError::InvalidId(_))),
                "{bad:?} was accepted"
            );
        }
    }

    #[test]
    fn matching_ignores_case() {
        let q = IdQuery::parse("ABCD").unwrap();
        assert!(q.matches("abcd1234-0000-0000-0000-000000000000"));
        assert!(q.matches("ABCD1234-0000-0000-0000-000000000000"));
        assert!(!q.matches("abc"));
        assert!(!q.matches("bbcd1234-0000-0000-0000-000000000000"));
    }

    #[test]
    fn new_ids_are_v4_uuids() {
        let a = new_uuid();
        let b = new_uuid();
        assert!(is_uuid(&a), "{a}");
        assert_ne!(a, b);
        assert_eq!(&a[14..15], "4");
        assert!(matches!(&a[19..20], "8" | "9" | "a" | "b"));
    }
}
