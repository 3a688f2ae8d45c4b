use super::*;
use serde_json::json;

fn msg(v: Value) -> Message {
    Message::parse(v.to_string().as_bytes()).unwrap()
}

fn ev(v: Value) -> Event {
    Event::Message(msg(v))
}

fn assistant(id: &str, parent: Option<&str>, content: Value) -> Value {
    json!({"type":"assistant","parent_tool_use_id":parent,
        "message":{"id":id,"role":"assistant","content":content},"session_id":"s"})
}

fn results(blocks: Value, structured: Value) -> Value {
    json!({"type":"user","message":{"role":"user","content":blocks},
        "tool_use_result":structured,"session_id":"s"})
}

fn result(cost: f64) -> Value {
    json!({"type":"result","subtype":"success","is_error":false,"session_id":"s",
        "total_cost_usd":cost,"usage":{"input_tokens":10,"output_tokens":5}})
}

/// Everything the events changed, as short strings.
fn changes(p: &mut Progress, events: &[Event]) -> Vec<String> {
    let mut out = Vec::new();
    for e in events {
        p.observe_event_with(e, |c| {
            out.push(match c {
                Change::CallStarted(id) => format!("start {id}"),
                Change::CallEnded { call, end } => format!("end {} {end:?}", call.id),
                Change::CallDropped(call) => format!("drop {}", call.id),
                Change::TodosChanged => "todos".into(),
                Change::AgentStopped => "agent stopped".into(),
                Change::TurnEnded => "turn ended".into(),
            })
        });
    }
    out
}

/// The first part of a turn as the CLI 2.1.332 writes it (trimmed): a
/// prompt, streamed text, a task created, a Bash call, a sub-agent in the
/// foreground with a call of its own, the Bash call failing.
fn recorded_turn() -> Vec<Event> {
    vec![
        Event::TurnStarted,
        ev(json!({"type":"system","subtype":"init","session_id":"s"})),
        ev(
            json!({"type":"stream_event","event":{"type":"message_start","message":{"id":"m1"}},"session_id":"s"}),
        ),
        ev(
            json!({"type":"stream_event","event":{"type":"content_block_delta","index":0,
            "delta":{"type":"text_delta","text":"Looking"}},"session_id":"s"}),
        ),
        ev(assistant(
            "m1",
            None,
            json!([{"type":"text","text":"Looking"}]),
        )),
        ev(assistant(
            "m2",
            None,
            json!([
                {"type":"tool_use","id":"c1","name":"TaskCreate","input":{"subject":"Run tests","description":"d","activeForm":"Running tests"}},
                {"type":"tool_use","id":"b1","name":"Bash","input":{"command":"cargo test"}},
                {"type":"tool_use","id":"a1","name":"Task","input":{"description":"read the docs","prompt":"…"}}
            ]),
        )),
        ev(results(
            json!([{"type":"tool_result","tool_use_id":"c1","content":"Task #1 created"}]),
            json!({"task":{"id":"1","subject":"Run tests"}}),
        )),
        ev(
            json!({"type":"system","subtype":"task_started","task_id":"t1","tool_use_id":"a1","description":"read the docs","session_id":"s"}),
        ),
        ev(assistant(
            "s1",
            Some("a1"),
            json!([{"type":"tool_use","id":"r1","name":"Read","input":{"file_path":"/docs"}}]),
        )),
        ev(results(
            json!([{"type":"tool_result","tool_use_id":"b1","content":"1 failed","is_error":true}]),
            json!(null),
        )),
    ]
}

#[test]
fn a_recorded_turn_gives_what_runs_what_ended_the_tasks_and_the_cost() {
    let mut p = Progress::default();
    let got = changes(&mut p, &recorded_turn());
    assert_eq!(
        got,
        [
            "start c1",
            "start b1",
            "start a1",
            "todos",
            "end c1 Done",
            "start r1",
            "end b1 Failed"
        ]
    );
    assert!(
        !p.already_streamed(),
        "m2, the last main line, was not streamed"
    );
    let running: Vec<(&str, &str, Option<&str>)> = p
        .running()
        .map(|c| (c.id.as_str(), c.name.as_str(), c.parent.as_deref()))
        .collect();
    assert_eq!(
        running,
        [("a1", "Task", None), ("r1", "Read", Some("a1"))],
        "the sub-agent and its own call run"
    );
    assert_eq!(p.call("r1").unwrap().input, json!({"file_path":"/docs"}));
    let todos = p.todos().items();
    assert_eq!(todos.len(), 1);
    assert_eq!(
        (
            todos[0].id.as_deref(),
            todos[0].subject.as_str(),
            todos[0].active_form.as_deref(),
            todos[0].status
        ),
        (
            Some("1"),
            "Run tests",
            Some("Running tests"),
            TodoStatus::Pending
        )
    );
    assert!(p.turn_open());
    assert_eq!(p.agents().running().count(), 1);

    // the agent returns in the foreground: its calls are over with it
    let rest = [
        ev(results(
            json!([{"type":"tool_result","tool_use_id":"a1","content":"Found it."}]),
            json!(null),
        )),
        ev(assistant(
            "m3",
            None,
            json!([{"type":"tool_use","id":"u1","name":"TaskUpdate","input":{"taskId":"1","status":"completed"}}]),
        )),
        ev(results(
            json!([{"type":"tool_result","tool_use_id":"u1","content":"ok"}]),
            json!({"success":true}),
        )),
        ev(result(0.0421)),
        Event::TurnEnded,
    ];
    let got = changes(&mut p, &rest);
    assert_eq!(
        got,
        [
            "agent stopped",
            "drop r1",
            "end a1 Done",
            "start u1",
            "todos",
            "end u1 Done",
            "turn ended"
        ]
    );
    assert_eq!(p.running().count(), 0);
    assert_eq!(p.todos().items()[0].status, TodoStatus::Completed);
    assert!(!p.todos().has_open());
    assert!(!p.turn_open());
    assert_eq!(p.cost_usd(), Some(0.0421));
    assert_eq!(p.usage().map(|u| u.output_tokens), Some(5));
    assert_eq!(p.results(), 1);
}

#[test]
fn streamed_text_is_told_from_text_that_was_not() {
    let mut p = Progress::default();
    let events = recorded_turn();
    changes(&mut p, &events[..5]);
    assert!(p.already_streamed(), "m1 came as deltas first");
    changes(&mut p, &events[5..6]);
    assert!(!p.already_streamed(), "m2 did not");
    // a stream with no message_start: the deltas alone say it
    p.observe(&msg(
        json!({"type":"stream_event","event":{"type":"content_block_delta","index":0,
        "delta":{"type":"thinking_delta","thinking":"hm"}},"session_id":"s"}),
    ));
    p.observe(&msg(assistant(
        "m9",
        None,
        json!([{"type":"thinking","thinking":"hm"}]),
    )));
    assert!(p.already_streamed());
}

#[test]
fn a_background_agent_keeps_its_calls_past_the_result() {
    let mut p = Progress::default();
    let events = [
        Event::TurnStarted,
        ev(assistant(
            "m",
            None,
            json!([{"type":"tool_use","id":"task1","name":"Agent","input":{"description":"dig"}}]),
        )),
        ev(
            json!({"type":"system","subtype":"task_started","task_id":"a1","tool_use_id":"task1","description":"dig"}),
        ),
        ev(results(
            json!([{"type":"tool_result","tool_use_id":"task1","content":"Async agent launched successfully"}]),
            json!(null),
        )),
        ev(assistant(
            "s1",
            Some("task1"),
            json!([{"type":"tool_use","id":"sub1","name":"Read","input":{}},
                {"type":"tool_use","id":"q1","name":"AskUserQuestion","input":{}}]),
        )),
        // a call of no known agent does not outlive the turn
        ev(assistant(
            "s2",
            Some("ghost"),
            json!([{"type":"tool_use","id":"g1","name":"Read","input":{}}]),
        )),
        ev(result(0.5)),
        Event::TurnEnded,
    ];
    let got = changes(&mut p, &events);
    assert_eq!(
        got,
        [
            "start task1",
            "end task1 Background",
            "start sub1",
            "start q1",
            "start g1",
            "drop g1",
            "turn ended"
        ]
    );
    let ids: Vec<&str> = p.running().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["sub1", "q1"]);
    assert_eq!(p.agents().background_running(), 1);
    // its report: the agent's calls end with it
    let done = ev(
        json!({"type":"system","subtype":"task_notification","task_id":"a1","status":"completed"}),
    );
    assert_eq!(
        changes(&mut p, &[done]),
        ["agent stopped", "drop sub1", "drop q1"]
    );
    assert_eq!(p.running().count(), 0);
}

#[test]
fn the_task_list_takes_only_calls_that_succeeded_and_reads_them_typed() {
    let mut p = Progress::default();
    let write = |id: &str, todos: Value| {
        msg(assistant(
            "m",
            None,
            json!([{"type":"tool_use","id":id,"name":"TodoWrite","input":{"todos":todos}}]),
        ))
    };
    // rejected by the CLI: nothing changes
    p.observe(&write(
        "w0",
        json!([{"content":"ghost","status":"pending"}]),
    ));
    p.observe(&msg(results(
        json!([{"type":"tool_result","tool_use_id":"w0","is_error":true,"content":"No such tool available: TodoWrite"}]),
        json!(null),
    )));
    assert!(p.todos().is_empty());
    // an item of another shape is passed over, not the list; an unknown
    // status is pending
    p.observe(&write(
        "w1",
        json!([{"content":"one","status":"in_progress","activeForm":"Doing one"},
            {"content":7},{"content":"two","status":"someday"}]),
    ));
    p.observe(&msg(results(
        json!([{"type":"tool_result","tool_use_id":"w1","content":"ok"}]),
        json!(null),
    )));
    let got: Vec<(&str, TodoStatus)> = p
        .todos()
        .items()
        .iter()
        .map(|t| (t.subject.as_str(), t.status))
        .collect();
    assert_eq!(
        got,
        [
            ("one", TodoStatus::InProgress),
            ("two", TodoStatus::Pending)
        ]
    );
    // `TaskList`'s result is the truth; the running form is kept by id
    p.observe(&msg(assistant(
        "m",
        None,
        json!([{"type":"tool_use","id":"l1","name":"TaskList","input":{}}]),
    )));
    p.observe(&msg(results(
        json!([{"type":"tool_result","tool_use_id":"l1","content":"…"}]),
        json!({"tasks":[{"id":"1","subject":"a","status":"completed"},{"id":"2","subject":"b"}]}),
    )));
    assert_eq!(p.todos().completed(), 1);
    assert_eq!(p.todos().items()[1].id.as_deref(), Some("2"));
    // a sub-agent's task calls are its own
    p.observe(&msg(assistant(
        "s",
        Some("x"),
        json!([{"type":"tool_use","id":"c9","name":"TaskCreate","input":{"subject":"theirs"}}]),
    )));
    p.observe(&msg(results(
        json!([{"type":"tool_result","tool_use_id":"c9","content":"ok"}]),
        json!({"task":{"id":"9"}}),
    )));
    assert_eq!(p.todos().items().len(), 2);
}

#[test]
fn a_report_s_result_owes_nothing_and_a_new_session_forgets_the_old() {
    // a result and its `TurnEnded`, as the stream gives them
    let end = |p: &mut Progress, v: Value| {
        p.observe_event(&Event::Message(msg(v)));
        p.observe_event(&Event::TurnEnded);
    };
    let mut p = Progress::default();
    p.observe_event(&Event::TurnStarted);
    p.observe_event(&Event::TurnStarted); // an interjection
    end(&mut p, result(0.1));
    assert_eq!(p.results_owed(), 1);
    end(
        &mut p,
        json!({"type":"result","subtype":"success","is_error":false,"total_cost_usd":0.2,"origin":{"kind":"task-notification"}}),
    );
    assert_eq!(p.results_owed(), 1, "a report is not the prompt's");
    assert_eq!(p.cost_usd(), Some(0.2));
    end(&mut p, result(0.3));
    assert!(!p.turn_open());
    // a prompt taken into the running turn: one result, two ends
    p.observe_event(&Event::TurnStarted);
    p.observe_event(&Event::TurnStarted);
    p.observe_event(&Event::Message(msg(result(0.3))));
    p.observe_event(&Event::TurnEnded);
    assert!(p.turn_open());
    p.observe_event(&Event::TurnEnded);
    assert!(!p.turn_open());
    // a result without a cost keeps the last one
    p.observe(&msg(
        json!({"type":"result","subtype":"success","is_error":false}),
    ));
    assert_eq!(p.cost_usd(), Some(0.3));

    p.observe(&msg(assistant(
        "m",
        None,
        json!([{"type":"tool_use","id":"b","name":"Bash","input":{}}]),
    )));
    let mut dropped = Vec::new();
    p.abandon_turn(|c| dropped.push(c));
    assert_eq!(dropped.len(), 1);
    assert_eq!(p.running().count(), 0);
    p.forget_session();
    assert!(p.todos().is_empty());
    assert_eq!(p.cost_usd(), Some(0.3));
}

#[test]
fn the_snapshot_round_trips_through_json() {
    let mut p = Progress::default();
    changes(&mut p, &recorded_turn());
    let s = p.snapshot();
    assert_eq!(s.running.len(), 2);
    assert_eq!(s.todos.len(), 1);
    assert!(s.turn_open);
    assert_eq!(s.agents_running, 1);
    let json = serde_json::to_value(&s).unwrap();
    assert_eq!(json["running"][1]["parent"], "a1");
    assert_eq!(json["todos"][0]["status"], "pending");
    assert_eq!(json["todos"][0]["active_form"], "Running tests");
    let back: Snapshot = serde_json::from_value(json).unwrap();
    assert_eq!(back, s);
    // a snapshot from a later version, with more fields, still reads
    let later: Snapshot = serde_json::from_value(json!({"running":[],"more":1})).unwrap();
    assert_eq!(later, Snapshot::default());
}

#[test]
fn fifty_thousand_calls_then_their_results_each_end_once() {
    const N: usize = 50_000;
    let mut p = Progress::default();
    let uses: Vec<Value> = (0..N)
        .map(|i| json!({"type":"tool_use","id":format!("c{i}"),"name":"Bash","input":{}}))
        .collect();
    let done: Vec<Value> = (0..N)
        .map(|i| json!({"type":"tool_result","tool_use_id":format!("c{i}"),"content":"ok"}))
        .collect();
    let mut ended = 0;
    for m in [
        msg(assistant("m", None, Value::Array(uses))),
        msg(results(Value::Array(done), json!(null))),
    ] {
        p.observe_with(&m, |c| {
            ended += usize::from(matches!(c, Change::CallEnded { .. }))
        });
    }
    assert_eq!(ended, N);
    assert_eq!(p.running().count(), 0);
}

/// A CLI that gives its responses huge ids (a line may be 256 MiB): what
/// the count holds does not grow with their length, only with their number
/// (it held every id whole: 64 of 256 KiB held 16 MiB until the turn's end).
#[test]
fn api_calls_hold_no_id_whole() {
    let mut p = Progress::default();
    let long = "x".repeat(256 * 1024);
    for n in 0..64 {
        let id = format!("{n}{long}");
        p.observe(&msg(json!({"type":"stream_event","session_id":"s",
            "event":{"type":"message_start","message":{"id":id}}})));
        // the same response given whole counts once
        p.observe(&msg(assistant(&id, None, json!([]))));
    }
    assert_eq!(p.api_calls(), 64);
    let held = format!("{:?}", p.calls).len();
    assert!(held < 64 * 64, "{held} bytes held for 64 calls");
    // a stream event with no id, or one that is not a string: no call
    p.observe(&msg(json!({"type":"stream_event","session_id":"s",
        "event":{"type":"message_start","message":{"id":7}}})));
    p.observe(&msg(json!({"type":"stream_event","session_id":"s",
        "event":{"type":"message_start","message":{}}})));
    assert_eq!(p.api_calls(), 64);
}

/// The main agent's streamed responses with huge ids, in one turn: what
/// the whole reading holds does not grow with the ids' length (the text
/// dedup beside the count held each `message_start` id whole: 64 of
/// 256 KiB held 16 MiB until the turn's end); the whole line after its
/// stream is still known as streamed, and one never streamed is not.
#[test]
fn a_turn_s_streamed_ids_are_not_held_whole() {
    let mut p = Progress::default();
    let long = "x".repeat(256 * 1024);
    for n in 0..64 {
        let id = format!("{n}{long}");
        p.observe(&msg(json!({"type":"stream_event","session_id":"s",
            "event":{"type":"message_start","message":{"id":id}}})));
    }
    let held = format!("{p:?}").len();
    assert!(held < 64 * 1024, "{held} bytes held for 64 responses");
    p.observe(&msg(assistant(&format!("7{long}"), None, json!([]))));
    assert!(p.already_streamed(), "a streamed response given whole");
    p.observe(&msg(assistant(&format!("64{long}"), None, json!([]))));
    assert!(!p.already_streamed(), "a response never streamed");
}

/// A sub-agent's response whose stream began before the main turn's
/// result and whose whole message came after it (a background agent goes
/// on after the turn) is one call, counted in the turn that saw it begin:
/// the next turn counted it again.
#[test]
fn a_response_across_a_turn_s_end_counts_once() {
    let mut p = Progress::default();
    let start = |id: &str| {
        msg(
            json!({"type":"stream_event","session_id":"s","parent_tool_use_id":"toolu_bg",
            "event":{"type":"message_start","message":{"id":id}}}),
        )
    };
    p.observe(&start("b1"));
    p.observe(&msg(assistant("r1", None, json!([]))));
    p.observe(&msg(result(0.1)));
    assert_eq!(p.api_calls(), 2);
    // the background agent's response given whole, then its next one
    p.observe(&msg(assistant("b1", Some("toolu_bg"), json!([]))));
    p.observe(&start("b2"));
    p.observe(&msg(assistant("b2", Some("toolu_bg"), json!([]))));
    p.observe(&msg(result(0.2)));
    assert_eq!(p.api_calls(), 1, "b2 alone");
    // a turn with no call, then one that calls again
    p.observe(&msg(result(0.2)));
    assert_eq!(p.api_calls(), 0);
    p.observe(&msg(assistant("b2", Some("toolu_bg"), json!([]))));
    p.observe(&msg(assistant("r3", None, json!([]))));
    assert_eq!(p.api_calls(), 1, "r3 alone: b2 was counted two turns ago");
}

/// A response first given three turns back, given whole again (a
/// background agent's, long after): it was counted there, and counts
/// nothing now. Only the turn before was remembered: it counted again.
#[test]
fn a_response_from_three_turns_back_counts_once_in_the_session() {
    let mut p = Progress::default();
    for (n, id) in ["old", "t2", "t3"].iter().enumerate() {
        p.observe(&msg(assistant(id, None, json!([]))));
        p.observe(&msg(result(0.1 * n as f64)));
        assert_eq!(p.api_calls(), 1, "{id}");
    }
    p.observe(&msg(assistant("old", Some("toolu_bg"), json!([]))));
    p.observe(&msg(assistant("t4", None, json!([]))));
    assert_eq!(
        p.api_calls(),
        1,
        "t4 alone: old was counted three turns ago"
    );
    p.observe(&msg(result(0.5)));
    p.observe(&msg(assistant("old", Some("toolu_bg"), json!([]))));
    assert_eq!(p.api_calls(), 0, "old again: nothing new");
}

/// A CLI giving more responses than the session remembers: what is held
/// stays at the bound, each new one counts once, and the newest are still
/// known (given again, they count nothing).
#[test]
fn the_session_s_response_ids_are_remembered_to_a_bound() {
    let mut p = Progress::default();
    let n = CALLS_REMEMBERED + 5_000;
    for i in 0..n {
        p.calls.saw(Some(&format!("r{i}")));
    }
    assert_eq!(p.api_calls(), n as u64);
    assert_eq!(p.calls.seen.len(), CALLS_REMEMBERED);
    assert_eq!(p.calls.order.len(), CALLS_REMEMBERED);
    p.observe(&msg(result(0.1)));
    p.calls.saw(Some(&format!("r{}", n - 1)));
    p.calls.saw(Some(&format!("r{}", n - CALLS_REMEMBERED)));
    assert_eq!(p.api_calls(), 0, "the newest are remembered");
    p.calls.saw(Some("fresh"));
    assert_eq!(p.api_calls(), 1);
    assert_eq!(p.calls.seen.len(), CALLS_REMEMBERED);
}
