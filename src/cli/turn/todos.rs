//! The model's task list as the program draws it. What the list is (built
//! from the CLI's `TaskCreate`, `TaskUpdate`, `TaskList` and `TodoWrite`
//! calls) is the library's [`claudio::progress::Todos`]; this draws it.
//! The task tools are off in stream-json mode unless
//! `CLAUDE_CODE_ENABLE_TODO_TOOLS` is set, as the chat does (probed:
//! docs/cli-2.1.328-observed.md).

use crate::cli::sanitize::Sanitizer;
use crate::cli::term::style::Style;
use crate::cli::term::text::first_line;
use crate::cli::term::wrap::wrap;
use claudio::progress::{TodoStatus, Todos};

/// A task's text as shown: one line, inert.
fn shown(text: &str) -> String {
    Sanitizer::clean(&first_line(text, 200))
}

/// The checklist, each row within `width` (a long task wraps under its
/// text, nothing is cut): `☐` to do, `◐` running (with its running form),
/// `☑` done (dimmed).
pub fn lines(todos: &Todos, style: Style, width: usize) -> Vec<String> {
    let mut out = vec![format!(
        "  {}",
        style.dim(&format!(
            "tasks {}/{}",
            todos.completed(),
            todos.items().len()
        ))
    )];
    for t in todos.items() {
        let (mark, text) = match t.status {
            TodoStatus::InProgress => (
                style.yellow("◐"),
                style.bold(&shown(t.active_form.as_deref().unwrap_or(&t.subject))),
            ),
            TodoStatus::Completed => (style.green("☑"), style.dim(&shown(&t.subject))),
            _ => ("☐".to_owned(), shown(&t.subject)),
        };
        out.extend(wrap(&text, width, &format!("  {mark} "), "    "));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use claudio::progress::Progress;
    use claudio::Message;
    use serde_json::{json, Value};

    fn msg(v: Value) -> Message {
        Message::parse(v.to_string().as_bytes()).unwrap()
    }

    /// A call and its successful result (`structured`: its
    /// `tool_use_result`).
    fn done(p: &mut Progress, id: &str, name: &str, input: Value, structured: Value) {
        p.observe(&msg(
            json!({"type":"assistant","message":{"id":"m","role":"assistant",
            "content":[{"type":"tool_use","id":id,"name":name,"input":input}]},"session_id":"s"}),
        ));
        p.observe(&msg(json!({"type":"user","message":{"role":"user","content":[
            {"type":"tool_result","tool_use_id":id,"content":"ok"}]},"tool_use_result":structured,"session_id":"s"})));
    }

    #[test]
    fn the_list_is_drawn_inert_with_its_running_form() {
        // as 2.1.328 answers them (probed)
        let mut p = Progress::default();
        done(
            &mut p,
            "c1",
            "TaskCreate",
            json!({"subject":"Write tests","description":"d","activeForm":"Writing tests"}),
            json!({"task":{"id":"1","subject":"Write tests"}}),
        );
        done(
            &mut p,
            "c2",
            "TaskCreate",
            json!({"subject":"Fix \u{1b}[2Jbug","description":"d"}),
            json!({"task":{"id":"2","subject":"Fix bug"}}),
        );
        done(
            &mut p,
            "u1",
            "TaskUpdate",
            json!({"taskId":"1","status":"in_progress"}),
            json!({"success":true}),
        );
        let shown = lines(p.todos(), Style::plain(), 80).join("\n");
        assert_eq!(shown, "  tasks 0/2\n  ◐ Writing tests\n  ☐ Fix bug");
        done(
            &mut p,
            "u2",
            "TaskUpdate",
            json!({"taskId":"1","status":"completed"}),
            json!({}),
        );
        done(
            &mut p,
            "u3",
            "TaskUpdate",
            json!({"taskId":"2","status":"deleted"}),
            json!({}),
        );
        assert_eq!(
            lines(p.todos(), Style::plain(), 80).join("\n"),
            "  tasks 1/1\n  ☑ Write tests"
        );
        assert!(!p.todos().has_open());
    }
}
