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
///
/// A call changes it only once its result says it succeeded: the CLI
/// rejects a tool it does not have (`TodoWrite` on 2.1.328: "No such tool
/// available"), and such a call's list was never the session's.
#[derive(Debug, Default)]
pub struct Todos {
    list: Vec<Todo>,
    /// `TaskCreate` calls waiting for their id, by `tool_use_id`.
    creating: HashMap<String, usize>,
    /// The task tools' calls waiting for their result: name and input, by
    /// `tool_use_id` (until the turn's result).
    pending: HashMap<String, (String, Value)>,
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
                for b in &a.message.content {
                    if let ContentBlock::ToolUse(t) = b {
                        if is_todo_tool(&t.name) {
                            let call = (t.name.clone(), t.input.clone());
                            self.pending.insert(t.id.clone(), call);
                        }
                    }
                }
                false
            }
            Message::User(u) if u.parent_tool_use_id.is_none() => {
                let MessageContent::Blocks(blocks) = &u.message.content else {
                    return false;
                };
                let mut changed = false;
                for b in blocks {
                    if let ContentBlock::ToolResult(r) = b {
                        // a failed call changes nothing
                        let Some((name, input)) = self.pending.remove(&r.tool_use_id) else {
                            continue;
                        };
                        if r.is_error() {
                            continue;
                        }
                        changed |= self.call(&r.tool_use_id, &name, &input);
                        changed |= self.result(&r.tool_use_id, u.tool_use_result.as_ref());
                    }
                }
                changed
            }
            // the main turn is over: a call still waiting never ran
            Message::Result(_) => {
                self.pending.clear();
                false
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

    /// A call and its successful result (`structured`: its
    /// `tool_use_result`); whether the list changed.
    fn done(t: &mut Todos, id: &str, name: &str, input: Value, structured: Value) -> bool {
        let called = t.observe(&call(id, name, input));
        assert!(!called, "a call changes nothing before its result");
        t.observe(&result(id, structured))
    }

    #[test]
    fn the_cli_s_task_tools_build_the_list() {
        // as 2.1.328 answers them (probed)
        let mut t = Todos::default();
        assert!(done(
            &mut t,
            "c1",
            "TaskCreate",
            json!({"subject":"Write tests","description":"d","activeForm":"Writing tests"}),
            json!({"task":{"id":"1","subject":"Write tests"}})
        ));
        done(
            &mut t,
            "c2",
            "TaskCreate",
            json!({"subject":"Fix \u{1b}[2Jbug","description":"d"}),
            json!({"task":{"id":"2","subject":"Fix bug"}}),
        );
        assert!(done(
            &mut t,
            "u1",
            "TaskUpdate",
            json!({"taskId":"1","status":"in_progress"}),
            json!({"success":true})
        ));
        let shown = t.lines(Style::plain(), 80).join("\n");
        assert_eq!(shown, "  tasks 0/2\n  ◐ Writing tests\n  ☐ Fix bug");
        done(
            &mut t,
            "u2",
            "TaskUpdate",
            json!({"taskId":"1","status":"completed"}),
            json!({}),
        );
        done(
            &mut t,
            "u3",
            "TaskUpdate",
            json!({"taskId":"2","status":"deleted"}),
            json!({}),
        );
        assert_eq!(
            t.lines(Style::plain(), 80).join("\n"),
            "  tasks 1/1\n  ☑ Write tests"
        );
        assert!(!t.open());
        // an update for an unknown task changes nothing
        assert!(!done(
            &mut t,
            "u4",
            "TaskUpdate",
            json!({"taskId":"9","status":"completed"}),
            json!({})
        ));
    }

    #[test]
    fn task_list_results_are_the_truth_and_todo_write_replaces_all() {
        let mut t = Todos::default();
        assert!(done(
            &mut t,
            "l",
            "TaskList",
            json!({}),
            json!({"tasks":[
            {"id":"1","subject":"a","status":"completed","blockedBy":[]},
            {"id":"2","subject":"b","status":"pending","blockedBy":[]}]})
        ));
        assert!(t.open());
        assert!(done(
            &mut t,
            "w",
            "TodoWrite",
            json!({"todos":[
            {"content":"only","status":"in_progress","activeForm":"Doing only"}]}),
            json!({})
        ));
        assert_eq!(t.lines(Style::plain(), 80)[1], "  ◐ Doing only");
        // a sub-agent's calls are not the session's list
        let sub = msg(
            json!({"type":"assistant","parent_tool_use_id":"task1","message":{"id":"m","role":"assistant",
            "content":[{"type":"tool_use","id":"x","name":"TaskCreate","input":{"subject":"theirs"}}]},"session_id":"s"}),
        );
        assert!(!t.observe(&sub));
        assert!(!t.observe(&result("x", json!({"task":{"id":"9"}}))));
        assert!(is_todo_tool("TaskUpdate") && !is_todo_tool("Task"));
    }

    /// A call the CLI rejected (`is_error`: TodoWrite on a CLI without it,
    /// "No such tool available") changes nothing; nor does one that never
    /// got its result before the turn ended (#40.5).
    #[test]
    fn only_calls_that_succeeded_change_the_list() {
        let mut t = Todos::default();
        let write = json!({"todos":[{"content":"ghost","status":"pending","activeForm":"x"}]});
        assert!(!t.observe(&call("w", "TodoWrite", write.clone())));
        let rejected = msg(json!({"type":"user","message":{"role":"user","content":[
            {"type":"tool_result","tool_use_id":"w","is_error":true,
             "content":"<tool_use_error>Error: No such tool available: TodoWrite</tool_use_error>"}]},"session_id":"s"}));
        assert!(!t.observe(&rejected));
        assert!(t.is_empty(), "{:?}", t.list);
        // no result before the turn's end: it never ran
        t.observe(&call("w2", "TodoWrite", write));
        t.observe(&msg(
            json!({"type":"result","subtype":"success","is_error":false}),
        ));
        assert!(!t.observe(&result("w2", json!({}))));
        assert!(t.is_empty());
    }
}
