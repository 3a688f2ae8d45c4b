//! Sub-agent tasks as the CLI reports them (`system` messages), read the
//! same way by the chat and by `ask`. Observed in 2.1.328
//! (docs/cli-2.1.328-observed.md §5): `task_started` (with
//! `is_backgrounded`), `task_progress`, `task_updated` (`patch.status`),
//! `task_notification` (`status`, `summary`), and `background_tasks_changed`
//! (the whole list of background tasks still running).

use claudio::{Message, SystemMessage};
use serde_json::Value;

/// Whether a tool starts a sub-agent (the API names it `Agent`, the CLI's
/// tool list `Task`; both work).
pub fn is_task_tool(name: &str) -> bool {
    matches!(name, "Task" | "Agent")
}

/// What a sub-agent is called on screen: its description (else its type),
/// one line, inert; `agent` when it has neither.
pub fn agent_label(description: Option<&str>) -> String {
    description
        .map(|d| crate::cli::sanitize::Sanitizer::clean(&crate::cli::summary::one_line(d, 60)))
        .filter(|d| !d.trim().is_empty())
        .unwrap_or_else(|| "agent".into())
}

/// The label of a `Task` call, from its input.
pub fn task_call_label(input: &Value) -> String {
    agent_label(
        ["description", "subagent_type"]
            .iter()
            .find_map(|k| input.get(*k).and_then(Value::as_str)),
    )
}

/// Whether a `Task` call's result only says the agent went to work in the
/// background (its report comes later, in a turn of its own).
pub fn is_background_launch(result_text: &str) -> bool {
    result_text.starts_with("Async agent launched")
}

/// What one message says about tasks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TaskEvent {
    Started {
        task_id: String,
        /// The `Task` call that started it.
        tool_use_id: Option<String>,
        description: Option<String>,
        background: bool,
    },
    Progress {
        task_id: String,
        description: String,
    },
    /// Finished, failed or stopped (`notified`: a `task_notification`,
    /// which carries the summary).
    Ended { task_id: String, status: String },
    /// The background tasks still running; any other has ended.
    Running(Vec<String>),
}

/// Statuses after which a task does no more work.
fn is_final(status: &str) -> bool {
    matches!(
        status,
        "completed" | "failed" | "killed" | "stopped" | "cancelled" | "canceled" | "error"
    )
}

fn str_of(v: &Value, k: &str) -> Option<String> {
    v.get(k).and_then(Value::as_str).map(str::to_owned)
}

/// Read a message for task news.
pub fn event(m: &Message) -> Option<TaskEvent> {
    let Message::System(s) = m else {
        return None;
    };
    match &**s {
        SystemMessage::TaskStarted(t) => Some(TaskEvent::Started {
            task_id: t.task_id.clone()?,
            tool_use_id: t.tool_use_id.clone(),
            description: t.description.clone(),
            background: t.extra.get("is_backgrounded").and_then(Value::as_bool) == Some(true),
        }),
        SystemMessage::TaskNotification(n) => Some(TaskEvent::Ended {
            task_id: n.task_id.clone()?,
            status: n.status.clone().unwrap_or_else(|| "finished".into()),
        }),
        SystemMessage::Other(v) => match v.get("subtype").and_then(Value::as_str)? {
            "task_progress" => Some(TaskEvent::Progress {
                task_id: str_of(v, "task_id")?,
                description: str_of(v, "description").unwrap_or_default(),
            }),
            "task_updated" => {
                let status = v.get("patch").and_then(|p| str_of(p, "status"))?;
                is_final(&status).then(|| TaskEvent::Ended {
                    task_id: str_of(v, "task_id").unwrap_or_default(),
                    status,
                })
            }
            "background_tasks_changed" => Some(TaskEvent::Running(
                v.get("tasks")
                    .and_then(Value::as_array)?
                    .iter()
                    .filter_map(|t| str_of(t, "task_id"))
                    .collect(),
            )),
            _ => None,
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ev(v: Value) -> Option<TaskEvent> {
        event(&Message::parse(v.to_string().as_bytes()).unwrap())
    }

    #[test]
    fn reads_the_cli_s_task_messages() {
        assert_eq!(
            ev(
                json!({"type":"system","subtype":"task_started","task_id":"a1","tool_use_id":"t1","description":"count","is_backgrounded":true})
            ),
            Some(TaskEvent::Started {
                task_id: "a1".into(),
                tool_use_id: Some("t1".into()),
                description: Some("count".into()),
                background: true
            })
        );
        assert_eq!(
            ev(
                json!({"type":"system","subtype":"task_progress","task_id":"a1","description":"Running ls"})
            ),
            Some(TaskEvent::Progress {
                task_id: "a1".into(),
                description: "Running ls".into()
            })
        );
        assert_eq!(
            ev(
                json!({"type":"system","subtype":"task_updated","task_id":"a1","patch":{"status":"completed"}})
            ),
            Some(TaskEvent::Ended {
                task_id: "a1".into(),
                status: "completed".into()
            })
        );
        assert_eq!(
            ev(
                json!({"type":"system","subtype":"task_updated","task_id":"a1","patch":{"status":"running"}})
            ),
            None
        );
        assert_eq!(
            ev(
                json!({"type":"system","subtype":"task_notification","task_id":"a1","status":"failed"})
            ),
            Some(TaskEvent::Ended {
                task_id: "a1".into(),
                status: "failed".into()
            })
        );
        assert_eq!(
            ev(
                json!({"type":"system","subtype":"background_tasks_changed","tasks":[{"task_id":"a2"}]})
            ),
            Some(TaskEvent::Running(vec!["a2".into()]))
        );
        assert_eq!(
            ev(json!({"type":"system","subtype":"status","status":null})),
            None
        );
    }
}
