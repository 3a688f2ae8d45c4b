//! Round five's attack on what landed in round four (issues 39 and 40):
//! each test is one repro, against the real CLI where the CLI is involved.

use crate::common::real::{turn, world, Reply, World};
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};

/// Runs `calls` through the real CLI, allowing each; what each
/// can_use_tool request carried (tool, input).
async fn run_allowing(w: &World, calls: Vec<(&str, Value)>) -> Vec<(String, Value)> {
    for (name, input) in calls {
        w.api.push(Reply::tool_use(name, input));
    }
    w.api.push(Reply::text("Done."));
    let seen = Arc::new(Mutex::new(Vec::new()));
    let s2 = seen.clone();
    let options = w.options().can_use_tool(move |req, _ctx| {
        s2.lock()
            .unwrap()
            .push((req.tool_name.clone(), req.input.clone()));
        async move { Ok(claudio::PermissionResult::allow()) }
    });
    let client = claudio::Client::connect(options).await.expect("connect");
    client.send("go").await.unwrap();
    let _ = turn(&client).await;
    client.close().await.unwrap();
    let v = seen.lock().unwrap().clone();
    v
}

/// What the real CLI's Edit and Write do with line endings, a byte-order
/// mark and the CLI's own input aliases: what the approval's diff now
/// models (the unit tests `crlf_files_are_matched_as_the_cli_reads_them`
/// and `line_endings_and_a_byte_order_mark_are_what_the_cli_writes` in
/// src/cli/requests/diff.rs show claudio's side).
/// - A CRLF file is matched as `\n` text: `x\ny` with replace_all in
///   `x\r\ny\nx\ny\n` changes both places (the approval showed one), and
///   the file is written back with the ending most of its lines have.
/// - A Write of `\n` text over a CRLF file writes `\n` (the approval said
///   "(no change)").
/// - An empty old_string into a file holding only a byte-order mark is
///   made, the mark kept (the approval said the CLI would refuse).
/// - `path`/`old_str`/`new_str` are renamed by the CLI before it asks:
///   the approval is given `file_path`/`old_string`/`new_string` (held).
#[tokio::test(flavor = "multi_thread")]
async fn real_cli_edit_line_endings_and_aliases_are_as_the_approval_shows() {
    let w = world!("real_cli_edit_line_endings_and_aliases_are_as_the_approval_shows");
    let p = |n: &str| w.work.path().join(n).display().to_string();
    std::fs::write(p("a.txt"), "alpha\nbeta\n").unwrap();
    std::fs::write(p("crlf.txt"), "one\r\ntwo\nthree\r\n").unwrap();
    std::fs::write(p("mixed.txt"), "x\r\ny\nx\ny\n").unwrap();
    std::fs::write(p("w.txt"), "x\r\ny\r\n").unwrap();
    std::fs::write(p("bom.txt"), "\u{FEFF}").unwrap();
    let calls = vec![
        ("Read", json!({"file_path": p("a.txt")})),
        (
            "Edit",
            json!({"path": p("a.txt"), "old_str": "alpha", "new_str": "ALPHA"}),
        ),
        ("Read", json!({"file_path": p("crlf.txt")})),
        (
            "Edit",
            json!({"file_path": p("crlf.txt"), "old_string": "two\nthree", "new_string": "TWO\nTHREE"}),
        ),
        ("Read", json!({"file_path": p("mixed.txt")})),
        (
            "Edit",
            json!({"file_path": p("mixed.txt"), "old_string": "x\ny", "new_string": "Z", "replace_all": true}),
        ),
        ("Read", json!({"file_path": p("w.txt")})),
        (
            "Write",
            json!({"file_path": p("w.txt"), "content": "x\ny\n"}),
        ),
        ("Read", json!({"file_path": p("bom.txt")})),
        (
            "Edit",
            json!({"file_path": p("bom.txt"), "old_string": "", "new_string": "evil\n"}),
        ),
    ];
    let seen = run_allowing(&w, calls).await;
    let first = &seen.first().expect("the CLI asked").1;
    assert_eq!(first["file_path"], p("a.txt"), "{seen:?}");
    assert_eq!(first["old_string"], "alpha", "{seen:?}");
    assert_eq!(first["new_string"], "ALPHA", "{seen:?}");
    let read = |n: &str| std::fs::read_to_string(p(n)).unwrap();
    assert_eq!(read("a.txt"), "ALPHA\nbeta\n");
    assert_eq!(read("crlf.txt"), "one\r\nTWO\r\nTHREE\r\n");
    assert_eq!(read("mixed.txt"), "Z\nZ\n");
    assert_eq!(read("w.txt"), "x\ny\n");
    assert_eq!(read("bom.txt"), "\u{FEFF}evil\n");
}
