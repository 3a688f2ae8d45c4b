//! Where transcripts live, and how a working directory maps to its folder.
//!
//! The CLI keeps one folder per working directory under
//! `$CLAUDE_CONFIG_DIR/projects` (or `~/.claude/projects`). The folder name
//! is the absolute path with every UTF-16 code unit outside `[A-Za-z0-9]`
//! replaced by `-`; names over 200 characters are cut to 200 and a hash of the
//! whole path is appended (`-` and the hash in base 36), so long paths are
//! matched by prefix.

use super::error::{StoreError, StoreResult};
use std::path::PathBuf;

/// Longest folder name kept whole; longer ones are cut and hashed.
pub(super) const MAX_FOLDER_NAME: usize = 200;

/// The Claude configuration folder: `$CLAUDE_CONFIG_DIR`, else `~/.claude`.
/// A relative `$CLAUDE_CONFIG_DIR` is [`StoreError::RelativeConfigDir`]
/// (resolved against the working directory, it would be another folder
/// wherever the program runs); with no `HOME`, or a relative one,
/// [`StoreError::NoConfigDir`].
pub fn default_config_dir() -> StoreResult<PathBuf> {
    config_dir_in(
        std::env::var_os("CLAUDE_CONFIG_DIR"),
        std::env::var_os("HOME"),
    )
}

/// [`default_config_dir`] given `CLAUDE_CONFIG_DIR` and `HOME`.
fn config_dir_in(
    config_dir: Option<std::ffi::OsString>,
    home: Option<std::ffi::OsString>,
) -> StoreResult<PathBuf> {
    if let Some(dir) = config_dir.filter(|d| !d.is_empty()) {
        let dir = PathBuf::from(dir);
        if dir.is_relative() {
            return Err(StoreError::RelativeConfigDir(dir));
        }
        return Ok(dir);
    }
    match home.map(PathBuf::from).filter(|h| h.is_absolute()) {
        Some(home) => Ok(home.join(".claude")),
        None => Err(StoreError::NoConfigDir),
    }
}

/// The environment variable naming claudio's archive folder (absolute).
#[cfg(feature = "archive")]
pub const ARCHIVE_DIR_ENV: &str = "CLAUDIO_ARCHIVE_DIR";

/// claudio's archive of transcripts (the folder [`Store::archive_to`]
/// writes, kept past the CLI's cleanup): `$CLAUDIO_ARCHIVE_DIR`, else
/// `claudio/archive` under the XDG data directory (`$XDG_DATA_HOME` when
/// absolute, else `~/.local/share`). A relative `$CLAUDIO_ARCHIVE_DIR` is
/// [`StoreError::RelativeArchiveDir`]; with no `HOME` either,
/// [`StoreError::NoConfigDir`]. The folder may not exist yet.
///
/// ```
/// let dir = claudio::store::default_archive_dir();
/// assert!(dir.map_or(true, |d| d.is_absolute()));
/// ```
///
/// [`Store::archive_to`]: super::Store::archive_to
#[cfg(feature = "archive")]
pub fn default_archive_dir() -> StoreResult<PathBuf> {
    if let Some(dir) = std::env::var_os(ARCHIVE_DIR_ENV).filter(|d| !d.is_empty()) {
        let dir = PathBuf::from(dir);
        if dir.is_relative() {
            return Err(StoreError::RelativeArchiveDir(dir));
        }
        return Ok(dir);
    }
    let data = std::env::var_os("XDG_DATA_HOME")
        .map(PathBuf::from)
        .filter(|d| d.is_absolute())
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|h| !h.is_empty())
                .map(|h| PathBuf::from(h).join(".local").join("share"))
        })
        .ok_or(StoreError::NoConfigDir)?;
    Ok(data.join("claudio").join("archive"))
}

/// Every character outside `[A-Za-z0-9]` becomes `-` (one per UTF-16 code
/// unit, as the CLI does it: a character outside the BMP gives two):
/// `/home/me/my_app` → `-home-me-my-app`.
pub(super) fn sanitize_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for c in path.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else {
            for _ in 0..c.len_utf16() {
                out.push('-');
            }
        }
    }
    out
}

/// The folder name the CLI uses for a working directory (an absolute path).
///
/// ```no_run
/// use claudio::store::{project_folder_name, Store};
/// let store = Store::from_env()?;
/// let folder = store.projects_dir().join(project_folder_name("/home/me/app"));
/// println!("{}", folder.display()); // …/projects/-home-me-app
/// # Ok::<(), claudio::store::StoreError>(())
/// ```
pub fn project_folder_name(path: &str) -> String {
    let s = sanitize_path(path);
    if s.len() <= MAX_FOLDER_NAME {
        return s;
    }
    let hash = (js_string_hash(path) as i64).unsigned_abs();
    format!("{}-{}", &s[..MAX_FOLDER_NAME], base36(hash))
}

/// `h = h * 31 + unit` over UTF-16 code units, in 32-bit wrapping arithmetic.
fn js_string_hash(s: &str) -> i32 {
    let mut h: i32 = 0;
    for unit in s.encode_utf16() {
        h = h.wrapping_shl(5).wrapping_sub(h).wrapping_add(unit as i32);
    }
    h
}

fn base36(mut n: u64) -> String {
    const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    if n == 0 {
        return "0".into();
    }
    let mut out = Vec::new();
    while n > 0 {
        out.push(DIGITS[(n % 36) as usize]);
        n /= 36;
    }
    out.reverse();
    String::from_utf8(out).expect("ascii")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    /// A relative `CLAUDE_CONFIG_DIR` (or `HOME`) names no folder: read
    /// against the working directory, it would be a project's own.
    #[test]
    fn a_relative_config_dir_is_refused() {
        let os = |s: &str| Some(std::ffi::OsString::from(s));
        assert!(matches!(
            config_dir_in(os("rel/cfg"), os("/home/me")),
            Err(StoreError::RelativeConfigDir(p)) if p == Path::new("rel/cfg")
        ));
        assert!(matches!(
            config_dir_in(None, os("home/me")),
            Err(StoreError::NoConfigDir)
        ));
        assert_eq!(
            config_dir_in(os("/c"), os("home")).unwrap(),
            Path::new("/c")
        );
        assert_eq!(
            config_dir_in(os(""), os("/home/me")).unwrap(),
            Path::new("/home/me/.claude")
        );
    }

    #[test]
    fn short_paths_are_sanitized() {
        assert_eq!(project_folder_name("/home/me/my proj"), "-home-me-my-proj");
        assert_eq!(project_folder_name("/tmp/.tmpkWBax6"), "-tmp--tmpkWBax6");
        assert_eq!(project_folder_name("/a/é/b_c"), "-a---b-c");
        // Outside the BMP: two UTF-16 units, two dashes.
        assert_eq!(project_folder_name("/x/🦀"), "-x---");
    }

    #[test]
    fn long_paths_are_cut_and_hashed_like_the_cli() {
        // Folder written by the real CLI 2.1.328 (tests/fixtures/sessions/real).
        let dir = format!(
            "/tmp/.tmpZ8Chz6/{}-é",
            "a-very-long-directory-name".repeat(9)
        );
        let name = project_folder_name(&dir);
        assert_eq!(name.len(), 200 + 1 + "pyyiph".len());
        assert!(name.ends_with("--pyyiph"), "{name}");
        assert!(name.starts_with("-tmp--tmpZ8Chz6-a-very-long-directory-namea-very"));
    }

    #[test]
    fn hash_matches_javascript() {
        // Values computed with node: Math.abs(h).toString(36) for the JS hash.
        assert_eq!(js_string_hash(""), 0);
        assert_eq!(js_string_hash("a"), 97);
        assert_eq!(js_string_hash("hello"), 99162322);
        assert_eq!(base36(99162322), "1n1e4y");
        assert_eq!(base36(2147483648), "zik0zk");
        assert_eq!((i32::MIN as i64).unsigned_abs(), 2147483648);
    }
}
