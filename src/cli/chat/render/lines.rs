//! The lines the renderer draws from what the reading holds: a tool call's
//! line, and the live region under the answer (running calls, working
//! agents, the task list, prompts typed ahead). Pure.

use crate::cli::chat::live::{self, Line};
use crate::cli::reading::{Call, Reading};
use crate::cli::style::Style;
use crate::cli::summary::truncate_width;
use crate::cli::tasks::Agents;
use std::time::Instant;
use unicode_width::UnicodeWidthStr;

/// A tool's line around its mark: the indent before it, and its name,
/// summary and detail after it, cut to leave room for the time.
pub(super) fn tool_parts(t: &Call, agents: &Agents, s: Style, width: usize) -> (String, String) {
    let indent = match &t.parent {
        // a sub-agent's call: indented, and named after the agent
        Some(p) => format!("    {} ", s.dim(&format!("{} ›", agents.label(p)))),
        None => "  ".repeat(t.depth + 1),
    };
    let detail = if t.detail.is_empty() {
        String::new()
    } else {
        format!("  {}", s.dim(&t.detail))
    };
    // keep the whole line within the terminal width (no wrapping)
    let fixed = indent.width() + 2 + t.name.width() + 2 + t.detail.width() + live::TIME_COLUMNS;
    let room = width.saturating_sub(fixed).max(10);
    let summary = truncate_width(&t.summary, room);
    (indent, format!("{}  {summary}{detail}", s.cyan(&t.name)))
}

/// The live region: each running call (a sub-agent's under its `Task`
/// line), each working agent with its progress, the task list (when
/// shown), and the typed-ahead prompts.
pub(super) fn live(
    reading: &Reading,
    s: Style,
    width: usize,
    now: Instant,
    todos: Option<Vec<String>>,
    status: Option<Line>,
    footer: &[String],
) -> Vec<Line> {
    let ms = |since: Instant| now.saturating_duration_since(since).as_millis() as u64;
    let mut lines = Vec::new();
    let calls = reading.calls();
    let agents = reading.agents();
    let tool = |t: &Call| {
        let (indent, text) = tool_parts(t, agents, s, width);
        Line::Spinner {
            key: t.id.clone(),
            indent,
            text,
            ms: ms(t.started),
        }
    };
    // the running calls of the agent a Task call started
    let calls_of = |task: &str, lines: &mut Vec<Line>| {
        for sub in calls.clone().filter(|x| x.parent.as_deref() == Some(task)) {
            lines.push(tool(sub));
        }
    };
    for t in calls.clone().filter(|t| t.parent.is_none()) {
        lines.push(tool(t));
        // a foreground agent's calls, under its Task line
        calls_of(&t.id, &mut lines);
    }
    let room = width.saturating_sub(4 + live::TIME_COLUMNS).max(10);
    for a in agents.running() {
        if reading.call(&a.call).is_some() {
            continue; // drawn with its Task line
        }
        let (started, progress) = reading
            .agent_ui(&a.call)
            .map_or((now, ""), |u| (u.started, u.progress.as_str()));
        let doing = if progress.is_empty() {
            "working"
        } else {
            progress
        };
        let text = format!("{}  {doing}", a.label);
        lines.push(Line::Spinner {
            key: format!("agent {}", a.call),
            indent: "  ".into(),
            text: s.dim(&truncate_width(&text, room)),
            ms: ms(started),
        });
        calls_of(&a.call, &mut lines);
    }
    for (i, text) in todos.into_iter().flatten().enumerate() {
        lines.push(Line::Plain {
            key: format!("todo {i}"),
            text,
        });
    }
    // the turn's status line, the prompts typed ahead under it
    lines.extend(status);
    let room = width.saturating_sub(3).max(10);
    for (i, f) in footer.iter().enumerate() {
        lines.push(Line::Plain {
            key: format!("footer {i}"),
            text: format!("  {}", s.dim(&truncate_width(f, room))),
        });
    }
    lines
}
