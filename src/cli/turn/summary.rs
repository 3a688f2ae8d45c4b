//! One-line summaries of tool calls, for activity lines and prompts.

use crate::cli::term::text::first_line;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Longest summary, in characters.
pub const MAX_SUMMARY: usize = 120;

/// Where the person is, for showing paths short: the working directory
/// and the home folder. [`Here::default`] knows neither (paths exact).
#[derive(Debug, Clone, Default)]
pub struct Here {
    cwd: Option<PathBuf>,
    home: Option<PathBuf>,
}

impl Here {
    /// In `cwd`, with the home folder from `HOME`.
    pub fn new(cwd: &Path) -> Here {
        let home = std::env::var_os("HOME")
            .map(PathBuf::from)
            .filter(|h| h.is_absolute() && h.parent().is_some());
        Here::with_home(cwd, home)
    }

    pub fn with_home(cwd: &Path, home: Option<PathBuf>) -> Here {
        Here {
            cwd: cwd.is_absolute().then(|| cwd.to_owned()),
            home,
        }
    }

    /// `path` as shown: relative to the working directory when inside it
    /// (`src/main.rs`), `~/…` under the home folder, else as given. Only
    /// the text is looked at (no link is followed); a relative path is
    /// kept, and one that would read as the home folder (`~x`) starts
    /// with `./`.
    pub fn show(&self, path: &str) -> String {
        let p = Path::new(path);
        if !p.is_absolute() {
            return path.to_owned();
        }
        if let Some(rest) = self.cwd.as_deref().and_then(|c| p.strip_prefix(c).ok()) {
            let rest = rest.to_string_lossy();
            return match rest.as_ref() {
                "" => ".".to_owned(),
                r if r.starts_with('~') => format!("./{r}"),
                r => r.to_owned(),
            };
        }
        if let Some(rest) = self.home.as_deref().and_then(|h| p.strip_prefix(h).ok()) {
            let rest = rest.to_string_lossy();
            return if rest.is_empty() {
                "~".to_owned()
            } else {
                format!("~/{rest}")
            };
        }
        path.to_owned()
    }
}

/// What a tool call does, in one line: the command, the path, the
/// pattern... Paths exact (for transcripts and exports).
pub fn tool_summary(name: &str, input: &Value) -> String {
    tool_summary_at(name, input, &Here::default())
}

/// [`tool_summary`] with its paths as [`Here::show`] shows them (a tool's
/// line, an approval's head).
pub fn tool_summary_at(name: &str, input: &Value, here: &Here) -> String {
    let field = |k: &str| input.get(k).and_then(Value::as_str);
    let path = |k: &str| field(k).map(|p| here.show(p));
    let s = match name {
        "Bash" => field("command").map(str::to_owned),
        "Read" | "Write" | "Edit" | "MultiEdit" => path("file_path"),
        "NotebookEdit" | "NotebookRead" => path("notebook_path"),
        "Glob" => field("pattern").map(|p| match path("path") {
            Some(dir) => format!("{p} in {dir}"),
            None => p.to_owned(),
        }),
        "Grep" => field("pattern").map(|p| match path("path") {
            Some(dir) => format!("/{p}/ in {dir}"),
            None => format!("/{p}/"),
        }),
        "WebFetch" => field("url").map(str::to_owned),
        "WebSearch" => field("query").map(str::to_owned),
        "Task" | "Agent" => field("description").map(str::to_owned),
        "TodoWrite" => input
            .get("todos")
            .and_then(Value::as_array)
            .map(|t| format!("{} todo(s)", t.len())),
        "LS" => path("path"),
        _ => None,
    };
    let s = s.unwrap_or_else(|| {
        if let Some(rest) = name.strip_prefix("mcp__") {
            let (server, tool) = rest.split_once("__").unwrap_or((rest, ""));
            format!("{server}/{tool} {}", compact(input))
        } else {
            compact(input)
        }
    });
    first_line(&s, MAX_SUMMARY)
}

fn compact(v: &Value) -> String {
    match v {
        Value::Object(m) if m.is_empty() => String::new(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// What an `api_retry` said, inert: the attempt, of how many, the wait
/// before it and why the last one failed.
#[derive(Debug, Clone, PartialEq)]
pub struct Retry {
    pub attempt: u32,
    pub max: Option<u32>,
    /// Milliseconds until the attempt.
    pub delay_ms: f64,
    /// The error, on one line (an HTTP status when the CLI gave none).
    pub why: String,
}

impl Retry {
    pub fn of(r: &claudio::protocol::ApiRetry) -> Retry {
        let why = match &r.error {
            Some(serde_json::Value::String(s)) => s.clone(),
            Some(v) => v
                .get("message")
                .and_then(|m| m.as_str())
                .map(str::to_owned)
                .or_else(|| v.get("type").and_then(|t| t.as_str()).map(str::to_owned))
                .unwrap_or_else(|| v.to_string()),
            None => r
                .error_status
                .map(|s| format!("HTTP {s}"))
                .unwrap_or_default(),
        };
        Retry {
            attempt: r.attempt.unwrap_or(0),
            max: r.max_retries,
            delay_ms: r.retry_delay_ms.unwrap_or(0.0).max(0.0),
            why: crate::cli::sanitize::Sanitizer::clean(&first_line(&why, 80)),
        }
    }

    /// `↻ retrying (3/10) in 2.4 s — overloaded`, the wait `left_ms`
    /// (none: the attempt is under way, `↻ retrying (3/10) — overloaded`).
    pub fn waiting(&self, left_ms: Option<f64>) -> String {
        let max = self.max.map(|m| format!("/{m}")).unwrap_or_default();
        let wait = left_ms
            .map(|ms| format!(" in {:.1} s", ms / 1000.0))
            .unwrap_or_default();
        let why = self.because();
        format!("↻ retrying ({}{max}){wait}{why}", self.attempt)
    }

    /// What `times` retries came to, for the scrollback: `↻ retried 3
    /// times — overloaded`.
    pub fn retried(&self, times: u32) -> String {
        let times = match times {
            1 => "once".to_owned(),
            n => format!("{n} times"),
        };
        format!("↻ retried {times}{}", self.because())
    }

    fn because(&self) -> String {
        if self.why.is_empty() {
            String::new()
        } else {
            format!(" — {}", self.why)
        }
    }
}

/// `↻ retrying (3/10) in 2.4 s — overloaded`, inert.
pub fn retry_line(r: &claudio::protocol::ApiRetry) -> String {
    let r = Retry::of(r);
    r.waiting(Some(r.delay_ms))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn summaries_by_tool() {
        assert_eq!(tool_summary("Bash", &json!({"command":"ls -la"})), "ls -la");
        assert_eq!(
            tool_summary("Bash", &json!({"command":"echo a\necho b"})),
            "echo a…"
        );
        assert_eq!(
            tool_summary("Edit", &json!({"file_path":"/x/y.rs"})),
            "/x/y.rs"
        );
        assert_eq!(
            tool_summary("Grep", &json!({"pattern":"fn main","path":"src"})),
            "/fn main/ in src"
        );
        assert_eq!(
            tool_summary("mcp__calc__add", &json!({"a":1})),
            "calc/add {\"a\":1}"
        );
        assert_eq!(tool_summary("Other", &json!({})), "");
        let long = "x".repeat(500);
        assert_eq!(
            tool_summary("Bash", &json!({ "command": long }))
                .chars()
                .count(),
            MAX_SUMMARY + 1
        );
    }

    #[test]
    fn paths_are_shown_from_where_the_person_is() {
        let here = Here::with_home(Path::new("/home/u/proj"), Some("/home/u".into()));
        let show = |p: &str| tool_summary_at("Edit", &json!({ "file_path": p }), &here);
        assert_eq!(show("/home/u/proj/src/main.rs"), "src/main.rs");
        assert_eq!(show("/home/u/other/x.rs"), "~/other/x.rs");
        assert_eq!(show("/etc/hosts"), "/etc/hosts");
        assert_eq!(
            show("/home/u/project/x"),
            "~/project/x",
            "a prefix, not a parent"
        );
        assert_eq!(show("/home/u/proj/~/x"), "./~/x", "never read as home");
        assert_eq!(show("src/lib.rs"), "src/lib.rs");
        assert_eq!(show("/home/u/proj/a\tb.rs"), "a b.rs", "a tab is a column");
        assert_eq!(
            tool_summary_at("Grep", &json!({"pattern":"a","path":"/home/u/proj"}), &here),
            "/a/ in ."
        );
        assert_eq!(
            tool_summary("Edit", &json!({"file_path":"/home/u/proj/a"})),
            "/home/u/proj/a",
            "exact without a place"
        );
    }
}
