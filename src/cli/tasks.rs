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

/// One sub-agent of the session, as the messages tell of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Agent {
    /// The `Task` call that started it (its sub-agent's messages carry it
    /// as `parent_tool_use_id`).
    pub call: String,
    /// The task id the CLI reports in `task_*` messages (and as `agent_id`
    /// on the sub-agent's permission requests).
    pub task_id: Option<String>,
    /// What it is called on screen.
    pub label: String,
    /// It works in the background (its report comes in a turn of its own).
    pub background: bool,
    /// It does no more work.
    pub done: bool,
    /// Its `Task` call has not returned yet.
    call_open: bool,
}

/// The session's sub-agents, tracked once for the chat and `ask`: which
/// exist, what they are called, which still work.
#[derive(Debug, Default)]
pub struct Agents {
    list: Vec<Agent>,
}

impl Agents {
    /// Take in a message: a `Task` call of the main agent, its result, or
    /// task news. Returns the task news it carried, for the caller's own
    /// state (progress lines, say).
    pub fn observe(&mut self, m: &Message) -> Option<TaskEvent> {
        match m {
            Message::Assistant(a) if a.parent_tool_use_id.is_none() => {
                for b in &a.message.content {
                    if let claudio::ContentBlock::ToolUse(t) = b {
                        if is_task_tool(&t.name) && self.get(&t.id).is_none() {
                            self.list.push(Agent {
                                call: t.id.clone(),
                                task_id: None,
                                label: task_call_label(&t.input),
                                background: false,
                                done: false,
                                call_open: true,
                            });
                        }
                    }
                }
            }
            Message::User(u) if u.parent_tool_use_id.is_none() => {
                if let claudio::protocol::MessageContent::Blocks(blocks) = &u.message.content {
                    for b in blocks {
                        let claudio::ContentBlock::ToolResult(r) = b else {
                            continue;
                        };
                        let Some(a) = self.list.iter_mut().find(|a| a.call == r.tool_use_id) else {
                            continue;
                        };
                        a.call_open = false;
                        if !r.is_error() && is_background_launch(&r.text()) {
                            a.background = true;
                        } else {
                            // a foreground agent that finished, or one that
                            // never started
                            a.done = true;
                        }
                    }
                }
            }
            _ => {}
        }
        let ev = event(m)?;
        match &ev {
            TaskEvent::Started {
                task_id,
                tool_use_id: Some(call),
                description,
                background,
            } => match self.list.iter_mut().find(|a| &a.call == call) {
                Some(a) => {
                    a.task_id = Some(task_id.clone());
                    a.background |= *background;
                }
                None => self.list.push(Agent {
                    call: call.clone(),
                    task_id: Some(task_id.clone()),
                    label: agent_label(description.as_deref()),
                    background: *background,
                    done: false,
                    call_open: false,
                }),
            },
            TaskEvent::Started { .. } | TaskEvent::Progress { .. } => {}
            TaskEvent::Ended { task_id, .. } => {
                for a in &mut self.list {
                    if a.task_id.as_deref() == Some(task_id.as_str()) {
                        a.done = true;
                    }
                }
            }
            TaskEvent::Running(ids) => {
                for a in &mut self.list {
                    if a.task_id.as_ref().is_some_and(|t| !ids.contains(t)) && !a.call_open {
                        a.done = true;
                    }
                }
            }
        }
        Some(ev)
    }

    /// The agent its `Task` call started.
    pub fn get(&self, call: &str) -> Option<&Agent> {
        self.list.iter().find(|a| a.call == call)
    }

    /// The agent with this task id.
    pub fn by_task(&self, task_id: &str) -> Option<&Agent> {
        self.list
            .iter()
            .find(|a| a.task_id.as_deref() == Some(task_id))
    }

    /// What the agent of `call` is called (`sub-agent` when it is unknown).
    pub fn label(&self, call: &str) -> String {
        self.get(call)
            .map(|a| a.label.clone())
            .unwrap_or_else(|| "sub-agent".into())
    }

    /// The agents still at work, oldest first.
    pub fn running(&self) -> impl Iterator<Item = &Agent> {
        self.list.iter().filter(|a| !a.done)
    }

    /// How many agents still work in the background.
    pub fn background_running(&self) -> usize {
        self.running().filter(|a| a.background).count()
    }

    /// Whether the agent of `call` is done (or unknown).
    #[cfg(test)]
    pub fn is_done(&self, call: &str) -> bool {
        self.get(call).is_none_or(|a| a.done)
    }

    /// A `task_notification` for `task_id` came: the agent is done.
    pub fn finish(&mut self, task_id: &str) {
        for a in &mut self.list {
            if a.task_id.as_deref() == Some(task_id) {
                a.done = true;
            }
        }
    }

    /// A new session: none of the old one's agents works any more.
    pub fn clear(&mut self) {
        self.list.clear();
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

    fn msg(v: Value) -> Message {
        Message::parse(v.to_string().as_bytes()).unwrap()
    }

    #[test]
    fn agents_are_tracked_from_call_to_report() {
        let mut a = Agents::default();
        // a foreground agent: done when its call returns
        a.observe(&msg(json!({"type":"assistant","message":{"id":"m","content":[{"type":"tool_use","id":"fg","name":"Task","input":{"description":"read files"}}]}})));
        assert_eq!(a.label("fg"), "read files");
        assert_eq!(a.running().count(), 1);
        a.observe(&msg(json!({"type":"system","subtype":"task_started","task_id":"t1","tool_use_id":"fg","description":"read files"})));
        // a background list without it does not end a call still open
        a.observe(&msg(
            json!({"type":"system","subtype":"background_tasks_changed","tasks":[]}),
        ));
        assert!(!a.is_done("fg"));
        a.observe(&msg(json!({"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"fg","content":"found 3"}]}})));
        assert!(a.is_done("fg"));
        // a background one: launched, then it reports
        a.observe(&msg(json!({"type":"assistant","message":{"id":"m2","content":[{"type":"tool_use","id":"bg","name":"Agent","input":{"description":"count"}}]}})));
        a.observe(&msg(json!({"type":"system","subtype":"task_started","task_id":"t2","tool_use_id":"bg","is_backgrounded":true})));
        a.observe(&msg(json!({"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"bg","content":"Async agent launched successfully."}]}})));
        assert_eq!(a.background_running(), 1);
        assert_eq!(a.by_task("t2").map(|x| x.label.as_str()), Some("count"));
        let ev = a.observe(&msg(json!({"type":"system","subtype":"task_notification","task_id":"t2","status":"completed"})));
        assert!(matches!(ev, Some(TaskEvent::Ended { .. })));
        assert_eq!(a.background_running(), 0);
        assert_eq!(a.label("unknown"), "sub-agent");
        a.clear();
        assert_eq!(a.running().count(), 0);
    }
}
