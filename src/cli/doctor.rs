//! `claudio doctor`: is everything in place? Each problem comes with its fix.
//! Credentials are reported as present or absent, never shown.

use super::args::SessionFlags;
use super::config::Config;
use super::exit::Exit;
use super::style::Style;
use claudio::transport::find_cli;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

/// The CLI version claudio is tested with.
pub const TESTED_CLI_VERSION: &str = "2.1.328";

#[derive(Debug, PartialEq, Eq)]
enum Level {
    Ok,
    Warn,
    Problem,
}

struct Report {
    style: Style,
    problems: usize,
    out: String,
}

impl Report {
    fn line(&mut self, level: Level, what: &str, detail: &str, fix: Option<&str>) {
        let s = self.style;
        let mark = match level {
            Level::Ok => s.green("✓"),
            Level::Warn => s.yellow("!"),
            Level::Problem => {
                self.problems += 1;
                s.red("✗")
            }
        };
        self.out
            .push_str(&format!("{mark} {:<12} {detail}\n", s.bold(what)));
        if let Some(fix) = fix {
            self.out
                .push_str(&format!("  {:<12} {}\n", "", s.dim(&format!("fix: {fix}"))));
        }
    }
}

pub fn run(session: &SessionFlags, config: anyhow::Result<(Config, Option<PathBuf>)>) -> Exit {
    let mut r = Report {
        style: Style::decide(
            session.color_choice(),
            std::io::IsTerminal::is_terminal(&std::io::stdout()),
        ),
        problems: 0,
        out: String::new(),
    };
    check_cli(&mut r, session);
    check_credentials(&mut r);
    check_store(&mut r);
    let auto = matches!(&config, Ok((c, _)) if c.archive == Some(super::config::ArchiveMode::Auto));
    check_cleanup(&mut r, auto);
    match config {
        Ok((_, Some(path))) => r.line(Level::Ok, "config", &path.display().to_string(), None),
        Ok((_, None)) => {
            let where_ = super::config::config_path()
                .map(|(p, _)| format!("none (looked for {})", p.display()))
                .unwrap_or_else(|| "none".into());
            r.line(Level::Ok, "config", &where_, None)
        }
        Err(e) => r.line(
            Level::Problem,
            "config",
            &format!("{e:#}"),
            Some("correct the file, or move it away to use the defaults"),
        ),
    }
    print!("{}", r.out);
    if r.problems == 0 {
        Exit::Success
    } else {
        Exit::Failure
    }
}

fn check_cli(r: &mut Report, session: &SessionFlags) {
    let path = match find_cli(session.cli_path.as_deref()) {
        Ok(p) => p,
        Err(e) => {
            r.line(
                Level::Problem,
                "claude",
                &e.to_string(),
                Some("npm install -g @anthropic-ai/claude-code"),
            );
            return;
        }
    };
    match cli_version(&path) {
        Some(v) => {
            let older = version_tuple(&v) < version_tuple(TESTED_CLI_VERSION);
            let detail = format!("{} ({v})", path.display());
            if older {
                r.line(
                    Level::Warn,
                    "claude",
                    &format!(
                        "{detail}; older than {TESTED_CLI_VERSION}, which claudio is tested with"
                    ),
                    Some("npm install -g @anthropic-ai/claude-code@latest"),
                );
            } else {
                r.line(Level::Ok, "claude", &detail, None);
            }
        }
        None => r.line(
            Level::Problem,
            "claude",
            &format!("{} does not answer `--version`", path.display()),
            Some("reinstall it: npm install -g @anthropic-ai/claude-code"),
        ),
    }
}

fn cli_version(path: &Path) -> Option<String> {
    let mut child = Command::new(path)
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let deadline = std::time::Instant::now() + Duration::from_secs(15);
    loop {
        match child.try_wait().ok()? {
            Some(_) => break,
            None if std::time::Instant::now() > deadline => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
            None => std::thread::sleep(Duration::from_millis(20)),
        }
    }
    let mut text = String::new();
    std::io::Read::read_to_string(&mut child.stdout.take()?, &mut text).ok()?;
    let v = text.split_whitespace().next()?.to_owned();
    v.chars().next()?.is_ascii_digit().then_some(v)
}

fn version_tuple(v: &str) -> Vec<u64> {
    v.split(|c: char| !c.is_ascii_digit())
        .filter(|p| !p.is_empty())
        .take(3)
        .map(|p| p.parse().unwrap_or(0))
        .collect()
}

/// The CLI's configuration folder, found as the store finds it (one rule:
/// `$CLAUDE_CONFIG_DIR`, else `$HOME/.claude`).
fn claude_dir() -> Option<PathBuf> {
    claudio::store::default_config_dir().ok()
}

fn check_credentials(r: &mut Report) {
    let vars = [
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_AUTH_TOKEN",
        "CLAUDE_CODE_OAUTH_TOKEN",
        "CLAUDE_CODE_USE_BEDROCK",
        "CLAUDE_CODE_USE_VERTEX",
    ];
    let mut found: Vec<String> = vars
        .iter()
        .filter(|v| std::env::var_os(v).is_some_and(|x| !x.is_empty()))
        .map(|v| v.to_string())
        .collect();
    if let Some(dir) = claude_dir() {
        let f = dir.join(".credentials.json");
        if f.is_file() {
            found.push(f.display().to_string());
        }
    }
    if found.is_empty() {
        r.line(
            Level::Problem,
            "credentials",
            "none found",
            Some("run `claude` once and log in, or set ANTHROPIC_API_KEY"),
        );
    } else {
        r.line(
            Level::Ok,
            "credentials",
            &format!("present ({})", found.join(", ")),
            None,
        );
    }
}

fn check_store(r: &mut Report) {
    let Some(dir) = claudio::store::Store::from_env()
        .ok()
        .map(|s| s.projects_dir())
    else {
        r.line(Level::Warn, "transcripts", "no home directory", None);
        return;
    };
    match std::fs::metadata(&dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => r.line(
            Level::Ok,
            "transcripts",
            &format!("{} (empty: no sessions yet)", dir.display()),
            None,
        ),
        Ok(m) if !m.is_dir() => r.line(
            Level::Problem,
            "transcripts",
            &format!("{} is not a directory", dir.display()),
            Some("move the file away; Claude Code keeps a folder there"),
        ),
        other => match other.and_then(|_| store_size(&dir)) {
            Ok((n, bytes, 0)) => r.line(
                Level::Ok,
                "transcripts",
                &format!(
                    "{} ({n} sessions, {})",
                    dir.display(),
                    super::sessions::human_size(bytes)
                ),
                None,
            ),
            Ok((n, bytes, odd)) => r.line(
                Level::Warn,
                "transcripts",
                &format!(
                    "{} ({n} sessions, {}; {odd} named like transcripts are not regular files)",
                    dir.display(),
                    super::sessions::human_size(bytes)
                ),
                Some("links, FIFOs and devices there are never read; `claudio sessions list --all` names them"),
            ),
            Err(e) => r.line(
                Level::Problem,
                "transcripts",
                &format!("{}: {e}", dir.display()),
                Some("check the folder's permissions"),
            ),
        },
    }
}

/// The CLI's cleanup: the period in effect, what goes within a week, and
/// whether claudio keeps it.
fn check_cleanup(r: &mut Report, auto: bool) {
    use super::retention::{at_risk, period, SOON_DAYS};
    let Ok(store) = claudio::store::Store::from_env() else {
        return;
    };
    let cwd = std::env::current_dir().ok();
    let p = period(&super::settings::files(store.config_dir(), cwd.as_deref()));
    let from = match &p.from {
        Some(f) => format!("cleanupPeriodDays in {}", f.display()),
        None => "cleanupPeriodDays, the CLI's default".to_owned(),
    };
    if p.days == 0 {
        r.line(Level::Ok, "cleanup", &format!("off (0: {from})"), None);
        return;
    }
    let archive = super::sessions::archive_dir();
    let risk = at_risk(
        &store.projects_dir(),
        p.days,
        archive.as_deref(),
        std::time::SystemTime::now(),
    );
    let mut detail = format!(
        "the CLI deletes transcripts older than {} days ({from}); in the next {SOON_DAYS} days: {} session{} ({})",
        p.days,
        risk.sessions,
        if risk.sessions == 1 { "" } else { "s" },
        super::sessions::human_size(risk.bytes)
    );
    if risk.sessions > 0 {
        detail.push_str(&format!(", {} not archived", risk.unarchived));
    }
    let archive_text = archive.as_ref().map_or_else(
        || "claudio's archive".to_owned(),
        |d| d.display().to_string(),
    );
    if auto {
        detail.push_str(&format!("; archived automatically into {archive_text}"));
        r.line(Level::Ok, "cleanup", &detail, None);
    } else {
        r.line(
            Level::Warn,
            "cleanup",
            &detail,
            Some(&format!(
                "keep them: `archive = \"auto\"` in the config file (or `claudio sessions archive` now), into {archive_text}"
            )),
        );
    }
}

/// Sessions (regular `.jsonl` files), their bytes, and the other entries
/// named like transcripts (links, FIFOs, devices: never read, not counted).
fn store_size(dir: &Path) -> std::io::Result<(u64, u64, u64)> {
    let (mut n, mut bytes, mut odd) = (0, 0, 0);
    for project in std::fs::read_dir(dir)? {
        let project = project?;
        if !project.file_type()?.is_dir() {
            continue;
        }
        for f in std::fs::read_dir(project.path())? {
            let f = f?;
            let name = f.file_name();
            if !name.to_string_lossy().ends_with(".jsonl") {
                continue;
            }
            // the entry itself (a link is not followed)
            let meta = f.metadata()?;
            if meta.is_file() {
                n += 1;
                bytes += meta.len();
            } else if !meta.is_dir() {
                odd += 1;
            }
        }
    }
    Ok((n, bytes, odd))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_compare() {
        assert!(version_tuple("2.1.9") < version_tuple("2.1.328"));
        assert!(version_tuple("2.2.0") > version_tuple("2.1.328"));
        assert_eq!(version_tuple("2.1.328"), vec![2, 1, 328]);
    }
}
