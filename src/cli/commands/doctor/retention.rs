//! The CLI's transcript cleanup, as `claudio doctor` reports it: the
//! `cleanupPeriodDays` in effect, and what the CLI will delete soon.
//!
//! CLI 2.1.328 deletes, when it starts, transcripts last written more than
//! `cleanupPeriodDays` days ago (30 when no settings file sets it; 0 turns
//! the cleanup off). It takes the value from its merged settings, later
//! sources winning: the user's (`$CLAUDE_CONFIG_DIR/settings.json`, else
//! `~/.claude/settings.json`), the project's (`.claude/settings.json` in the
//! directory it starts in), the local one (`.claude/settings.local.json`)
//! and the managed one (`/etc/claude-code/managed-settings.json`).

use crate::cli::common::settings;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// The CLI's default period, in days.
pub const DEFAULT_DAYS: u64 = 30;

/// How far ahead doctor looks.
pub const SOON_DAYS: u64 = 7;

/// The period in effect and where it comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Period {
    /// Days kept; 0: no cleanup.
    pub days: u64,
    /// The settings file that sets it; `None`: the CLI's default.
    pub from: Option<PathBuf>,
}

/// The period the CLI would use with these settings files (lowest
/// precedence first: [`settings::files`]).
pub fn period(files: &[PathBuf]) -> Period {
    match settings::lookup(files, "cleanupPeriodDays").and_then(|(v, f)| Some((v.as_u64()?, f))) {
        Some((days, from)) => Period {
            days,
            from: Some(from),
        },
        None => Period {
            days: DEFAULT_DAYS,
            from: None,
        },
    }
}

/// Transcripts (sessions and their sub-agents) the CLI deletes within
/// `SOON_DAYS`: last written more than `days - SOON_DAYS` days ago.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AtRisk {
    /// Sessions.
    pub sessions: u64,
    /// Their bytes, sub-agents included.
    pub bytes: u64,
    /// Those of them not in the archive as they are now.
    pub unarchived: u64,
}

/// What the cleanup will take from `projects` within a week, and how much
/// of it `archive` (if any) does not hold.
pub fn at_risk(projects: &Path, days: u64, archive: Option<&Path>, now: SystemTime) -> AtRisk {
    let mut out = AtRisk::default();
    if days == 0 {
        return out;
    }
    let keep = Duration::from_secs(days.saturating_sub(SOON_DAYS) * 86_400);
    let Some(cutoff) = now.checked_sub(keep) else {
        return out;
    };
    let Ok((folders, _)) = project_folders(projects) else {
        return out;
    };
    for folder in folders {
        let Ok(files) = std::fs::read_dir(&folder) else {
            continue;
        };
        for f in files.flatten() {
            let name = f.file_name();
            let Some(id) = name.to_str().and_then(|n| n.strip_suffix(".jsonl")) else {
                continue;
            };
            let Ok(meta) = f.metadata() else { continue };
            let old = meta.modified().is_ok_and(|t| t < cutoff);
            if !meta.is_file() || !old {
                continue;
            }
            out.sessions += 1;
            out.bytes += meta.len() + subagent_bytes(&folder.join(id));
            let archived = archive.is_some_and(|a| {
                let Some(name) = folder.file_name() else {
                    return false;
                };
                let packed = a.join(name).join(format!("{id}.jsonl.zst"));
                std::fs::metadata(packed)
                    .and_then(|m| m.modified())
                    .is_ok_and(|t| Some(t) == meta.modified().ok())
            });
            if !archived {
                out.unarchived += 1;
            }
        }
    }
    out
}

/// A folder passed over, and why.
pub type Passed = (PathBuf, String);

/// The project folders of `projects` as the store reads them: its
/// sub-folders, and the links to a folder of the person's own (owned by
/// the user claudio runs as); apart, the links to a folder that are not
/// followed, with why.
pub fn project_folders(projects: &Path) -> std::io::Result<(Vec<PathBuf>, Vec<Passed>)> {
    use std::os::unix::fs::MetadataExt;
    let (mut folders, mut passed) = (Vec::new(), Vec::new());
    for e in std::fs::read_dir(projects)? {
        let e = e?;
        let t = e.file_type()?;
        if t.is_dir() {
            folders.push(e.path());
        } else if t.is_symlink() {
            let me = rustix::process::geteuid().as_raw();
            match std::fs::metadata(e.path()) {
                Ok(m) if !m.is_dir() => {}
                Ok(m) if m.uid() == me => folders.push(e.path()),
                Ok(m) => passed.push((
                    e.path(),
                    format!(
                        "a link to a folder of another user (uid {}): not followed",
                        m.uid()
                    ),
                )),
                Err(err) => passed.push((
                    e.path(),
                    format!("a link whose target cannot be reached: {err}"),
                )),
            }
        }
    }
    folders.sort();
    passed.sort();
    Ok((folders, passed))
}

fn subagent_bytes(side: &Path) -> u64 {
    let dir = side.join("subagents");
    if !std::fs::symlink_metadata(&dir).is_ok_and(|m| m.is_dir()) {
        return 0;
    }
    std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .filter_map(|e| e.metadata().ok())
                .filter(|m| m.is_file())
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn later_settings_files_win_and_the_default_is_30() {
        let d = tempfile::tempdir().unwrap();
        let user = d.path().join("settings.json");
        let local = d.path().join("local.json");
        assert_eq!(period(&[user.clone(), local.clone()]).days, 30);
        std::fs::write(&user, r#"{"cleanupPeriodDays": 90}"#).unwrap();
        std::fs::write(&local, r#"{"model": "opus"}"#).unwrap();
        let p = period(&[user.clone(), local.clone()]);
        assert_eq!((p.days, p.from.as_deref()), (90, Some(user.as_path())));
        std::fs::write(&local, r#"{"cleanupPeriodDays": 10}"#).unwrap();
        assert_eq!(period(&[user.clone(), local.clone()]).days, 10);
        std::fs::write(&local, "not json").unwrap();
        assert_eq!(period(&[user, local]).days, 90);
    }

    #[test]
    fn old_transcripts_are_counted_and_archived_ones_told_apart() {
        let d = tempfile::tempdir().unwrap();
        let folder = d.path().join("projects/-w");
        std::fs::create_dir_all(folder.join("a1/subagents")).unwrap();
        std::fs::write(folder.join("a1.jsonl"), "x\n").unwrap();
        std::fs::write(folder.join("a1/subagents/agent-1.jsonl"), "yy\n").unwrap();
        std::fs::write(folder.join("b2.jsonl"), "zzzz\n").unwrap();
        let now = SystemTime::now();
        let old = now - Duration::from_secs(25 * 86_400);
        let f = std::fs::File::options()
            .write(true)
            .open(folder.join("a1.jsonl"))
            .unwrap();
        f.set_modified(old).unwrap();
        let projects = d.path().join("projects");
        let r = at_risk(&projects, 30, None, now);
        assert_eq!(
            r,
            AtRisk {
                sessions: 1,
                bytes: 5,
                unarchived: 1
            }
        );
        assert_eq!(at_risk(&projects, 40, None, now).sessions, 0);
        assert_eq!(at_risk(&projects, 0, None, now).sessions, 0);
        // archived as it is now: not at risk of being lost
        let archive = d.path().join("archive");
        std::fs::create_dir_all(archive.join("-w")).unwrap();
        let copy = archive.join("-w/a1.jsonl.zst");
        std::fs::write(&copy, "").unwrap();
        std::fs::File::options()
            .write(true)
            .open(&copy)
            .unwrap()
            .set_modified(old)
            .unwrap();
        assert_eq!(at_risk(&projects, 30, Some(&archive), now).unarchived, 0);
    }
}
