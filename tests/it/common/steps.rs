//! The fake CLI's script, typed: a [`Step`] is one thing the fake does
//! (tests/support/fake_claude.rs says what each does), and
//! [`Step::to_json`] writes it as the JSON the fake reads. A misspelt step
//! is a compile error, not a fake that exits 2 in the middle of a test.
//! What the CLI would say (an `emit`'s line, an `expect`'s pattern) stays
//! JSON: that is the protocol the tests check claudio against.
//!
//! The building blocks below script the usual exchanges: `initialize`, a
//! prompt, a streamed answer, a result.

use serde_json::{json, Value};

/// One step of the fake CLI's script.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// Read a stdin line; `pattern` must be a recursive subset of it. With
    /// a `name`, its `request_id` is kept for `{{name}}` in later steps.
    Expect {
        pattern: Value,
        name: Option<String>,
    },
    /// Write `line` as one compact JSON line (`{{name}}` replaced).
    Emit(Value),
    /// Write this text and a newline, as it is (not JSON, or broken JSON).
    EmitRaw(String),
    /// Write a valid `user` tool-result line of about this many bytes.
    HugeLine(u64),
    /// Write this line to stderr.
    Stderr(String),
    /// Write about this many bytes of noise to stderr, then `END-OF-FLOOD`.
    StderrFlood(u64),
    /// Sleep this many milliseconds.
    SleepMs(u64),
    /// Wait until this file exists (the test creates it when the fake is
    /// to go on: a definite point, where a sleep guesses one).
    WaitFile(std::path::PathBuf),
    /// Exit with this code.
    Exit(i32),
    /// Abort (no core file).
    Crash,
    /// Sleep forever.
    Hang,
    /// Ignore SIGTERM from now on.
    IgnoreSigterm,
    /// Read stdin until it closes.
    WaitStdinEof,
    /// Nothing may arrive on stdin for this many milliseconds (else exit 3).
    ExpectSilenceMs(u64),
    /// Start `sleep SECS`, never waited for; its pid goes to `child.pid`.
    SpawnSleeper(u64),
    /// Write `content` to the file at `path` (replacing it).
    WriteFile { path: String, content: String },
    /// These steps, only when an argument starts with `prefix`.
    WhenArg { prefix: String, steps: Vec<Step> },
    /// One `assistant` line holding `count` text blocks, each `text`.
    ManyBlocks { count: u64, text: String },
}

impl Step {
    /// Read a stdin line that `pattern` matches.
    pub fn expect(pattern: Value) -> Step {
        Step::Expect {
            pattern,
            name: None,
        }
    }

    /// Read a stdin line that `pattern` matches, and keep its `request_id`
    /// for `{{name}}`.
    pub fn expect_as(pattern: Value, name: &str) -> Step {
        Step::Expect {
            pattern,
            name: Some(name.to_owned()),
        }
    }

    /// The step as the fake reads it.
    pub fn to_json(&self) -> Value {
        match self {
            Step::Expect {
                pattern,
                name: None,
            } => json!({ "expect": pattern }),
            Step::Expect {
                pattern,
                name: Some(name),
            } => json!({ "expect": pattern, "as": name }),
            Step::Emit(line) => json!({ "emit": line }),
            Step::EmitRaw(text) => json!({ "emit_raw": text }),
            Step::HugeLine(bytes) => json!({ "huge_line": bytes }),
            Step::Stderr(text) => json!({ "stderr": text }),
            Step::StderrFlood(bytes) => json!({ "stderr_flood": bytes }),
            Step::SleepMs(ms) => json!({ "sleep_ms": ms }),
            Step::WaitFile(path) => json!({ "wait_file": path }),
            Step::Exit(code) => json!({ "exit": code }),
            Step::Crash => json!({ "crash": true }),
            Step::Hang => json!({ "hang": true }),
            Step::IgnoreSigterm => json!({ "ignore_sigterm": true }),
            Step::WaitStdinEof => json!({ "wait_stdin_eof": true }),
            Step::ExpectSilenceMs(ms) => json!({ "expect_silence_ms": ms }),
            Step::SpawnSleeper(secs) => json!({ "spawn_sleeper": secs }),
            Step::WriteFile { path, content } => {
                json!({ "write_file": { "path": path, "content": content } })
            }
            Step::WhenArg { prefix, steps } => {
                let steps: Vec<Value> = steps.iter().map(Step::to_json).collect();
                json!({ "when_arg": { "prefix": prefix, "steps": steps } })
            }
            Step::ManyBlocks { count, text } => {
                json!({ "many_blocks": { "count": count, "text": text } })
            }
        }
    }
}

// ---- scenario building blocks -------------------------------------------

/// Read `initialize` and answer it.
pub fn init() -> Vec<Step> {
    vec![
        Step::expect_as(
            json!({"type":"control_request","request":{"subtype":"initialize"}}),
            "init",
        ),
        Step::Emit(
            json!({"type":"control_response","response":{"subtype":"success","request_id":"{{init}}","response":{"commands":[],"models":[{"value":"fake"},{"value":"opus"},{"value":"sonnet"}]}}}),
        ),
    ]
}

/// A turn the chat interrupts: `prompt`, the answer begun (`said`), the
/// interrupt awaited and answered, and the CLI's result of an aborted turn.
pub fn interrupted_turn(prompt: &str, said: &str) -> Vec<Step> {
    vec![
        expect_user(prompt),
        system_init(),
        delta(said),
        Step::expect_as(
            json!({"type":"control_request","request":{"subtype":"interrupt"}}),
            "i",
        ),
        Step::Emit(
            json!({"type":"control_response","response":{"subtype":"success","request_id":"{{i}}","response":{}}}),
        ),
        Step::Emit(
            json!({"type":"result","subtype":"error_during_execution","is_error":true,"session_id":"s","num_turns":1,"terminal_reason":"aborted_streaming"}),
        ),
    ]
}

pub fn expect_user(text: &str) -> Step {
    Step::expect(json!({"type":"user","message":{"role":"user","content":text}}))
}

pub fn system_init() -> Step {
    Step::Emit(
        json!({"type":"system","subtype":"init","session_id":"sess-1","model":"fake-model","cwd":"/tmp","tools":["Bash"],"permissionMode":"default","mcp_servers":[]}),
    )
}

pub fn delta(text: &str) -> Step {
    Step::Emit(
        json!({"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":text}},"parent_tool_use_id":null,"session_id":"sess-1"}),
    )
}

/// The stream's start of the API response `id` (the CLI streams one per
/// call, before its deltas).
pub fn message_start(id: &str) -> Step {
    Step::Emit(
        json!({"type":"stream_event","event":{"type":"message_start","message":{"id":id,"type":"message","role":"assistant","model":"fake-model","content":[]}},"parent_tool_use_id":null,"session_id":"sess-1"}),
    )
}

pub fn assistant_text(text: &str) -> Step {
    Step::Emit(
        json!({"type":"assistant","message":{"id":"msg_1","model":"fake-model","role":"assistant","content":[{"type":"text","text":text}]},"parent_tool_use_id":null,"session_id":"sess-1"}),
    )
}

pub fn assistant_tool_use(id: &str, name: &str, input: Value) -> Step {
    Step::Emit(
        json!({"type":"assistant","message":{"id":"msg_2","model":"fake-model","role":"assistant","content":[{"type":"tool_use","id":id,"name":name,"input":input}]},"parent_tool_use_id":null,"session_id":"sess-1"}),
    )
}

pub fn result(text: &str) -> Step {
    Step::Emit(
        json!({"type":"result","subtype":"success","is_error":false,"result":text,"session_id":"sess-1","num_turns":1,"duration_ms":5,"total_cost_usd":0.001,"terminal_reason":"completed"}),
    )
}

/// A whole turn: read the prompt, stream `answer` in two deltas, end it.
pub fn turn(prompt: &str, answer: &str) -> Vec<Step> {
    let (a, b) = answer.split_at(answer.len() / 2);
    vec![
        expect_user(prompt),
        system_init(),
        delta(a),
        delta(b),
        assistant_text(answer),
        result(answer),
    ]
}

/// A `can_use_tool` control request the fake sends: `tool` wants to run
/// with `input`. The rest of the request's fields are added with
/// [`CanUseTool::with`]; [`CanUseTool::emit`] makes it a step.
pub fn can_use_tool(id: &str, tool: &str, input: Value) -> CanUseTool {
    CanUseTool {
        id: id.to_owned(),
        request: json!({"subtype":"can_use_tool","tool_name":tool,"input":input}),
    }
}

/// A `can_use_tool` request being built (see [`can_use_tool`]).
#[derive(Debug, Clone)]
pub struct CanUseTool {
    id: String,
    request: Value,
}

impl CanUseTool {
    /// The request with one more field (`tool_use_id`, `description`,
    /// `permission_suggestions`, `requires_user_interaction`, ...).
    pub fn with(mut self, field: &str, value: Value) -> CanUseTool {
        self.request[field] = value;
        self
    }

    /// The CLI suggests keeping `tool(rule)` in the project's local settings.
    pub fn suggest_rule(self, tool: &str, rule: &str) -> CanUseTool {
        self.with(
            "permission_suggestions",
            json!([{"type":"addRules","rules":[{"toolName":tool,"ruleContent":rule}],"behavior":"allow","destination":"localSettings"}]),
        )
    }

    /// The CLI suggests switching to `acceptEdits` for the session.
    pub fn suggest_accept_edits(self) -> CanUseTool {
        self.with(
            "permission_suggestions",
            json!([{"type":"setMode","mode":"acceptEdits","destination":"session"}]),
        )
    }

    /// The request as the line the fake writes.
    pub fn emit(self) -> Step {
        Step::Emit(json!({"type":"control_request","request_id":self.id,"request":self.request}))
    }
}

/// The model asks `questions` (an `AskUserQuestion` tool call, then the
/// CLI's request to show it), as the real CLI does.
pub fn ask_question(id: &str, questions: Value) -> Vec<Step> {
    let tool_use_id = format!("toolu_{id}");
    vec![
        assistant_tool_use(
            &tool_use_id,
            "AskUserQuestion",
            json!({ "questions": questions.clone() }),
        ),
        can_use_tool(id, "AskUserQuestion", json!({ "questions": questions }))
            .with("tool_use_id", json!(tool_use_id))
            .with("requires_user_interaction", json!(true))
            .with("permission_suggestions", json!([]))
            .emit(),
    ]
}

pub fn steps(parts: Vec<Vec<Step>>) -> Vec<Step> {
    parts.into_iter().flatten().collect()
}

#[test]
fn a_built_request_is_the_line_the_cli_writes() {
    let built = can_use_tool("p1", "Bash", json!({"command":"ls"}))
        .with("tool_use_id", json!("toolu_p1"))
        .suggest_rule("Bash", "ls")
        .emit();
    assert_eq!(
        built,
        Step::Emit(
            json!({"type":"control_request","request_id":"p1","request":{"subtype":"can_use_tool","tool_name":"Bash","input":{"command":"ls"},"tool_use_id":"toolu_p1",
            "permission_suggestions":[{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"ls"}],"behavior":"allow","destination":"localSettings"}]}})
        )
    );
}

#[test]
fn every_step_is_written_as_the_fake_reads_it() {
    let all = [
        (
            Step::expect_as(json!({"type":"user"}), "u"),
            json!({"expect": {"type":"user"}, "as": "u"}),
        ),
        (
            Step::expect(json!({"type":"user"})),
            json!({"expect": {"type":"user"}}),
        ),
        (Step::Emit(json!({"a":1})), json!({"emit": {"a":1}})),
        (Step::EmitRaw("x".into()), json!({"emit_raw": "x"})),
        (Step::HugeLine(9), json!({"huge_line": 9})),
        (Step::Stderr("e".into()), json!({"stderr": "e"})),
        (Step::StderrFlood(9), json!({"stderr_flood": 9})),
        (Step::SleepMs(9), json!({"sleep_ms": 9})),
        (Step::Exit(-1), json!({"exit": -1})),
        (Step::Crash, json!({"crash": true})),
        (Step::Hang, json!({"hang": true})),
        (Step::IgnoreSigterm, json!({"ignore_sigterm": true})),
        (Step::WaitStdinEof, json!({"wait_stdin_eof": true})),
        (Step::ExpectSilenceMs(9), json!({"expect_silence_ms": 9})),
        (Step::SpawnSleeper(9), json!({"spawn_sleeper": 9})),
        (
            Step::WriteFile {
                path: "/p".into(),
                content: "c".into(),
            },
            json!({"write_file": {"path": "/p", "content": "c"}}),
        ),
        (
            Step::WhenArg {
                prefix: "--x=".into(),
                steps: vec![Step::Hang],
            },
            json!({"when_arg": {"prefix": "--x=", "steps": [{"hang": true}]}}),
        ),
        (
            Step::ManyBlocks {
                count: 2,
                text: "t".into(),
            },
            json!({"many_blocks": {"count": 2, "text": "t"}}),
        ),
    ];
    for (step, want) in all {
        assert_eq!(step.to_json(), want, "{step:?}");
    }
}
