//! The model's task list, as the messages tell it. The CLI 2.1.328 keeps it
//! with the tools `TaskCreate`, `TaskUpdate`, `TaskList` and `TaskGet`
//! (`TodoWrite` is off; older models still call it, and it is read too).
//! They are off in stream-json mode unless `CLAUDE_CODE_ENABLE_TODO_TOOLS`
//! is set, as the chat does (probed: docs/cli-2.1.328-observed.md).
//!
//! Pure: messages in, a checklist out.

use crate::cli::sanitize::Sanitizer;
use crate::cli::style::Style;
use crate::cli::summary::one_line;
use crate::cli::wrap::wrap;
use claudio::protocol::{ContentBlock, MessageContent};
use claudio::Message;
use serde_json::Value;
use std::collections::HashMap;

/// Whether a tool keeps the task list (its calls show as the checklist,
/// not as tool lines).
pub fn is_todo_tool(name: &str) -> bool {
    matches!(
        name,
        "TaskCreate" | "TaskUpdate" | "TaskList" | "TaskGet" | "TodoWrite"
    )
}

/// A task's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Pending,
    InProgress,
    Completed,
}

impl Status {
    fn parse(s: &str) -> Option<Status> {
        match s {
            "pending" => Some(Status::Pending),
            "in_progress" => Some(Status::InProgress),
            "completed" => Some(Status::Completed),
            _ => None,
        }
    }
}

/// One task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Todo {
    /// The CLI's id (`1`), once its `TaskCreate` returned.
    pub id: Option<String>,
    /// What it is (inert, one line).
    pub subject: String,
    /// What is shown while it runs (`Running tests`).
    pub active: Option<String>,
    pub status: Status,
}

/// The session's task list.
#[derive(Debug, Default)]
pub struct Todos {
    list: Vec<Todo>,
    /// `TaskCreate` calls waiting for their id, by `tool_use_id`.
    creating: HashMap<String, usize>,
}

fn text(v: &Value, k: &str) -> Option<String> {
    v.get(k)
        .and_then(Value::as_str)
        .map(|s| Sanitizer::clean(&one_line(s, 200)))
}

impl Todos {
    /// Take in a message; true when the list changed.
    pub fn observe(&mut self, m: &Message) -> bool {
        match m {
            // the main agent's list (a sub-agent's tasks are its own)
            Message::Assistant(a) if a.parent_tool_use_id.is_none() => {
                let mut changed = false;
                for b in &a.message.content {
                    if let ContentBlock::ToolUse(t) = b {
                        changed |= self.call(&t.id, &t.name, &t.input);
                    }
                }
                changed
            }
            Message::User(u) if u.parent_tool_use_id.is_none() => {
                let MessageContent::Blocks(blocks) = &u.message.content else {
                    return false;
                };
                let mut changed = false;
                for b in blocks {
                    if let ContentBlock::ToolResult(r) = b {
                        changed |= self.result(&r.tool_use_id, u.tool_use_result.as_ref());
                    }
                }
                changed
            }
            _ => false,
        }
    }

    fn call(&mut self, id: &str, name: &str, input: &Value) -> bool {
        match name {
            "TaskCreate" => {
                let Some(subject) = text(input, "subject") else {
                    return false;
                };
                self.list.push(Todo {
                    id: None,
                    subject,
                    active: text(input, "activeForm"),
                    status: Status::Pending,
                });
                self.creating.insert(id.to_owned(), self.list.len() - 1);
                true
            }
            "TaskUpdate" => {
                let Some(task) = input.get("taskId").and_then(Value::as_str) else {
                    return false;
                };
                let Some(i) = self.list.iter().position(|t| t.id.as_deref() == Some(task)) else {
                    return false;
                };
                if input.get("status").and_then(Value::as_str) == Some("deleted") {
                    self.list.remove(i);
                    self.creating.retain(|_, at| *at != i);
                    for at in self.creating.values_mut() {
                        if *at > i {
                            *at -= 1;
                        }
                    }
                    return true;
                }
                let t = &mut self.list[i];
                if let Some(s) = input
                    .get("status")
                    .and_then(Value::as_str)
                    .and_then(Status::parse)
                {
                    t.status = s;
                }
                if let Some(s) = text(input, "subject") {
                    t.subject = s;
                }
                if let Some(a) = text(input, "activeForm") {
                    t.active = Some(a);
                }
                true
            }
            // older models: the whole list each time
            "TodoWrite" => {
                let Some(items) = input.get("todos").and_then(Value::as_array) else {
                    return false;
                };
                self.creating.clear();
                self.list = items
                    .iter()
                    .filter_map(|i| {
                        Some(Todo {
                            id: None,
                            subject: text(i, "content")?,
                            active: text(i, "activeForm"),
                            status: i
                                .get("status")
                                .and_then(Value::as_str)
                                .and_then(Status::parse)
                                .unwrap_or(Status::Pending),
                        })
                    })
                    .collect();
                true
            }
            _ => false,
        }
    }

    /// A result: a created task's id, or the whole list from `TaskList`.
    fn result(&mut self, call: &str, result: Option<&Value>) -> bool {
        if let Some(i) = self.creating.remove(call) {
            let id = result
                .and_then(|r| r.pointer("/task/id"))
                .and_then(Value::as_str);
            if let (Some(id), Some(t)) = (id, self.list.get_mut(i)) {
                t.id = Some(id.to_owned());
            }
            return false;
        }
        // `TaskList`: the CLI's own list is the truth
        let Some(tasks) = result
            .and_then(|r| r.get("tasks"))
            .and_then(Value::as_array)
        else {
            return false;
        };
        let fresh: Vec<Todo> = tasks
            .iter()
            .filter_map(|t| {
                let id = t.get("id").and_then(Value::as_str)?.to_owned();
                let active = self
                    .list
                    .iter()
                    .find(|o| o.id.as_deref() == Some(id.as_str()))
                    .and_then(|o| o.active.clone());
                Some(Todo {
                    id: Some(id),
                    subject: text(t, "subject")?,
                    active,
                    status: t
                        .get("status")
                        .and_then(Value::as_str)
                        .and_then(Status::parse)
                        .unwrap_or(Status::Pending),
                })
            })
            .collect();
        let changed = fresh != self.list;
        self.list = fresh;
        self.creating.clear();
        changed
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// Whether a task is still to do.
    pub fn open(&self) -> bool {
        self.list.iter().any(|t| t.status != Status::Completed)
    }

    /// A new session: its list starts empty.
    pub fn clear(&mut self) {
        *self = Todos::default();
    }

    /// The checklist, each row within `width` (a long task wraps under
    /// its text, nothing is cut): `☐` to do, `◐` running (with its running
    /// form), `☑` done (dimmed).
    pub fn lines(&self, style: Style, width: usize) -> Vec<String> {
        let done = self
            .list
            .iter()
            .filter(|t| t.status == Status::Completed)
            .count();
        let mut out = vec![format!(
            "  {}",
            style.dim(&format!("tasks {done}/{}", self.list.len()))
        )];
        for t in &self.list {
            let (mark, text) = match t.status {
                Status::Pending => ("☐".to_owned(), t.subject.clone()),
                Status::InProgress => (
                    style.yellow("◐"),
                    style.bold(t.active.as_deref().unwrap_or(&t.subject)),
                ),
                Status::Completed => (style.green("☑"), style.dim(&t.subject)),
            };
            out.extend(wrap(&text, width, &format!("  {mark} "), "    "));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn msg(v: Value) -> Message {
        Message::parse(v.to_string().as_bytes()).unwrap()
    }

    fn call(id: &str, name: &str, input: Value) -> Message {
        msg(
            json!({"type":"assistant","message":{"id":"m","role":"assistant",
            "content":[{"type":"tool_use","id":id,"name":name,"input":input}]},"session_id":"s"}),
        )
    }

    fn result(id: &str, structured: Value) -> Message {
        msg(json!({"type":"user","message":{"role":"user","content":[
            {"type":"tool_result","tool_use_id":id,"content":"ok"}]},"tool_use_result":structured,"session_id":"s"}))
    }

    #[test]
    fn the_cli_s_task_tools_build_the_list() {
        // as 2.1.328 answers them (probed)
        let mut t = Todos::default();
        assert!(t.observe(&call(
            "c1",
            "TaskCreate",
            json!({"subject":"Write tests","description":"d","activeForm":"Writing tests"})
        )));
        assert!(!t.observe(&result(
            "c1",
            json!({"task":{"id":"1","subject":"Write tests"}})
        )));
        t.observe(&call(
            "c2",
            "TaskCreate",
            json!({"subject":"Fix \u{1b}[2Jbug","description":"d"}),
        ));
        t.observe(&result(
            "c2",
            json!({"task":{"id":"2","subject":"Fix bug"}}),
        ));
        assert!(t.observe(&call(
            "u1",
            "TaskUpdate",
            json!({"taskId":"1","status":"in_progress"})
        )));
        let shown = t.lines(Style::plain(), 80).join("\n");
        assert_eq!(shown, "  tasks 0/2\n  ◐ Writing tests\n  ☐ Fix bug");
        t.observe(&call(
            "u2",
            "TaskUpdate",
            json!({"taskId":"1","status":"completed"}),
        ));
        t.observe(&call(
            "u3",
            "TaskUpdate",
            json!({"taskId":"2","status":"deleted"}),
        ));
        assert_eq!(
            t.lines(Style::plain(), 80).join("\n"),
            "  tasks 1/1\n  ☑ Write tests"
        );
        assert!(!t.open());
        // an update for an unknown task changes nothing
        assert!(!t.observe(&call(
            "u4",
            "TaskUpdate",
            json!({"taskId":"9","status":"completed"})
        )));
    }

    #[test]
    fn task_list_results_are_the_truth_and_todo_write_replaces_all() {
        let mut t = Todos::default();
        t.observe(&call("l", "TaskList", json!({})));
        assert!(t.observe(&result(
            "l",
            json!({"tasks":[
            {"id":"1","subject":"a","status":"completed","blockedBy":[]},
            {"id":"2","subject":"b","status":"pending","blockedBy":[]}]})
        )));
        assert!(t.open());
        assert!(t.observe(&call(
            "w",
            "TodoWrite",
            json!({"todos":[
            {"content":"only","status":"in_progress","activeForm":"Doing only"}]})
        )));
        assert_eq!(t.lines(Style::plain(), 80)[1], "  ◐ Doing only");
        // a sub-agent's calls are not the session's list
        let sub = msg(
            json!({"type":"assistant","parent_tool_use_id":"task1","message":{"id":"m","role":"assistant",
            "content":[{"type":"tool_use","id":"x","name":"TaskCreate","input":{"subject":"theirs"}}]},"session_id":"s"}),
        );
        assert!(!t.observe(&sub));
        assert!(is_todo_tool("TaskUpdate") && !is_todo_tool("Task"));
    }
}
