//! The lines the renderer draws from what the reading holds: a tool call's
//! line, and the live region under the answer (running calls, working
//! agents, the task list, prompts typed ahead). Pure.

use crate::cli::commands::chat::live::{self, LiveLine};
use crate::cli::term::style::Style;
use crate::cli::term::text::cut_width;
use crate::cli::term::wrap::{undisputed, visible_width};
use crate::cli::turn::reading::{Call, Reading};
use crate::cli::turn::tasks::{Agent, Agents};
use std::collections::{HashMap, HashSet};
use std::time::Instant;

/// A tool's line around its mark: the indent before it, and its name,
/// summary and detail after it, cut to leave room for the time.
pub(super) fn tool_parts(t: &Call, agents: &Agents, s: Style, width: usize) -> (String, String) {
    let indent = match &t.parent {
        // a sub-agent's call: indented, and named after the agent
        Some(p) => format!("    {} ", s.dim(&format!("{} ›", agents.label(p)))),
        None => "  ".repeat(t.depth + 1),
    };
    // as the terminal counts it: what it counts otherwise is left out
    let (name, detail, summary) = (
        undisputed(&t.name),
        undisputed(&t.detail),
        undisputed(&t.summary),
    );
    let shown = if detail.is_empty() {
        String::new()
    } else {
        format!("  {}", s.dim(&detail))
    };
    // keep the whole line within the terminal width (no wrapping)
    let fixed = visible_width(&indent)
        + 2
        + visible_width(&name)
        + 2
        + visible_width(&detail)
        + live::TIME_COLUMNS;
    let room = width.saturating_sub(fixed).max(10);
    let summary = cut_width(&summary, room);
    (indent, format!("{}  {summary}{shown}", s.cyan(&name)))
}

/// Most rows the running calls and working agents take in the live
/// region: past it the rest are folded into one row, `… N more running`
/// (each is written once, as it ends, above the region).
pub const MAX_CALL_ROWS: usize = 10;

/// A row of the region's calls: a running call, or a working agent whose
/// `Task` call is not running.
enum CallRow<'r> {
    Call(&'r Call),
    Agent(Agent),
}

/// The live region, within `rows` rows: each running call (a sub-agent's
/// under its `Task` line), each working agent with its progress, the task
/// list (when shown), the turn's status line and the typed-ahead prompts.
/// What does not fit is folded into a row that counts it. The work is
/// linear in the calls, and only the rows shown are made.
#[allow(clippy::too_many_arguments)]
pub(super) fn live(
    reading: &Reading,
    s: Style,
    width: usize,
    now: Instant,
    todos: Option<Vec<String>>,
    retry: Option<LiveLine>,
    status: Option<LiveLine>,
    footer: &[String],
    rows: usize,
) -> Vec<LiveLine> {
    let ms = |since: Instant| now.saturating_duration_since(since).as_millis() as u64;
    let calls = reading.calls();
    let agents = reading.agents();
    // the working agents whose Task call is not running: a row of their own
    let lone: Vec<Agent> = agents
        .running()
        .filter(|a| reading.call(&a.call).is_none())
        .collect();
    let lone_ids: HashSet<&str> = lone.iter().map(|a| a.call.as_str()).collect();
    // a sub-agent's call is drawn under its Task line or its agent's row
    let drawn_under =
        |p: &str| lone_ids.contains(p) || reading.call(p).is_some_and(|t| t.parent.is_none());
    // how many rows they all take (one cheap pass: only the rows shown are
    // made, so each change costs the calls' count, not their rows)
    let any_subs = reading.sub_calls() > 0;
    let total = lone.len()
        + if any_subs {
            calls
                .clone()
                .filter(|c| c.parent.as_deref().is_none_or(drawn_under))
                .count()
        } else {
            calls.len()
        };
    let call_rows_wanted = total.min(MAX_CALL_ROWS);
    // the first rows, in order: each call, the calls its agent started
    let mut order: Vec<CallRow<'_>> = Vec::new();
    let heads: Vec<CallRow<'_>> = calls
        .clone()
        .filter(|t| t.parent.is_none())
        .take(call_rows_wanted)
        .map(CallRow::Call)
        .chain(
            lone.iter()
                .take(call_rows_wanted)
                .map(|a| CallRow::Agent(a.clone())),
        )
        .collect();
    let mut subs: HashMap<&str, Vec<&Call>> = HashMap::new();
    if any_subs {
        let wanted: HashSet<&str> = heads
            .iter()
            .map(|h| match h {
                CallRow::Call(t) => t.id.as_str(),
                CallRow::Agent(a) => a.call.as_str(),
            })
            .collect();
        for c in calls.clone() {
            if let Some(p) = c.parent.as_deref().filter(|p| wanted.contains(p)) {
                let list = subs.entry(p).or_default();
                if list.len() < call_rows_wanted {
                    list.push(c);
                }
            }
        }
    }
    for head in heads {
        if order.len() >= call_rows_wanted {
            break;
        }
        let id = match &head {
            CallRow::Call(t) => t.id.clone(),
            CallRow::Agent(a) => a.call.clone(),
        };
        order.push(head);
        if let Some(list) = subs.get(id.as_str()) {
            order.extend(list.iter().map(|c| CallRow::Call(c)));
        }
    }
    let todos = todos.unwrap_or_default();
    // the rows each part gets: the status line first, then the API call
    // being retried, the prompt being typed, the calls, the task list, the
    // prompts queued
    let mut left = rows;
    let mut take = |want: usize| {
        let n = want.min(left);
        left -= n;
        n
    };
    let status_rows = take(usize::from(status.is_some()));
    let retry_rows = take(usize::from(retry.is_some()));
    let typing_rows = take(footer.len().min(1));
    let call_rows = take(call_rows_wanted);
    let todo_rows = take(todos.len());
    let footer_rows = typing_rows + take(footer.len() - typing_rows);

    let mut lines = Vec::new();
    let room = width.saturating_sub(4 + live::TIME_COLUMNS).max(10);
    let shown = if call_rows < total {
        call_rows.saturating_sub(1)
    } else {
        call_rows
    };
    for row in order.iter().take(shown) {
        lines.push(match row {
            CallRow::Call(t) => {
                let (indent, text) = tool_parts(t, &agents, s, width);
                LiveLine::Spinner {
                    key: t.id.clone(),
                    indent,
                    text,
                    ms: ms(t.started),
                }
            }
            CallRow::Agent(a) => {
                let (started, progress) = reading
                    .agent_ui(&a.call)
                    .map_or((now, ""), |u| (u.started, u.progress.as_str()));
                let doing = if progress.is_empty() {
                    "working"
                } else {
                    progress
                };
                let text = format!("{}  {doing}", a.label);
                LiveLine::Spinner {
                    key: format!("agent {}", a.call),
                    indent: "  ".into(),
                    text: s.dim(&cut_width(&text, room)),
                    ms: ms(started),
                }
            }
        });
    }
    if call_rows > 0 && shown < total {
        let more = total - shown;
        let text = if shown == 0 {
            format!("… {more} running")
        } else {
            format!("… {more} more running")
        };
        lines.push(LiveLine::Plain {
            key: "calls folded".into(),
            text: format!("  {}", s.dim(&text)),
        });
    }
    let todo_shown = if todo_rows < todos.len() {
        todo_rows.saturating_sub(1)
    } else {
        todo_rows
    };
    let todo_more = todos.len() - todo_shown;
    for (i, text) in todos.into_iter().take(todo_shown).enumerate() {
        lines.push(LiveLine::Plain {
            key: format!("todo {i}"),
            text,
        });
    }
    if todo_rows > 0 && todo_more > 0 {
        lines.push(LiveLine::Plain {
            key: "todos folded".into(),
            text: format!("    {}", s.dim(&format!("… {todo_more} more rows"))),
        });
    }
    // the API call being retried, over the turn's status line, the prompts
    // typed ahead under it
    if retry_rows > 0 {
        lines.extend(retry);
    }
    if status_rows > 0 {
        lines.extend(status);
    }
    let room = width.saturating_sub(3).max(10);
    let skipped = footer.len() - footer_rows;
    let folded = skipped > 0 && footer_rows > 1;
    let from = if folded { skipped + 1 } else { skipped };
    if folded {
        lines.push(LiveLine::Plain {
            key: "footer folded".into(),
            text: format!(
                "  {}",
                s.dim(&format!("… {} more typed ahead", skipped + 1))
            ),
        });
    }
    for (i, f) in footer.iter().enumerate().skip(from) {
        lines.push(LiveLine::Plain {
            key: format!("footer {i}"),
            text: format!("  {}", s.dim(&cut_width(f, room))),
        });
    }
    lines
}
