//! What a prompt and the session cost, as the chat says it (issue 33.6).
//! The real CLI's `total_cost_usd` is the session's running total; the
//! end-of-turn line and `/cost` say the same figure for the session.

use crate::common::real::{world, Reply};
use crate::common::term::Term;

/// The figure after `label` on the screen's last line that holds it.
fn dollars_before(screen: &str, label: &str) -> Option<String> {
    let line = screen.lines().rev().find(|l| l.contains(label))?;
    let at = line.find(label)?;
    let head = &line[..at];
    let start = head.rfind('$')?;
    Some(head[start..].trim().to_owned())
}

fn value(dollars: &str) -> f64 {
    dollars.trim_start_matches('$').parse().unwrap()
}

#[test]
fn the_end_line_and_cost_agree_on_the_session() {
    let w = world!("the_end_line_and_cost_agree_on_the_session");
    w.api.push(Reply::text("First answer."));
    w.api.push(Reply::text("Second answer."));
    let mut c = w.claudio();
    c.env("XDG_DATA_HOME", w.home.path());
    let mut t = Term::spawn(c);
    t.wait_for("Ctrl-D exits");
    t.line("one");
    t.wait_for("First answer.");
    let first = t.wait_for("1 API call ·");
    let one = dollars_before(&first, " session").expect("a session cost on the end line");
    t.wait_prompt();
    t.line("two");
    t.wait_for("Second answer.");
    let second = t.wait_for_n("1 API call ·", 2);
    let end = second
        .lines()
        .rev()
        .find(|l| l.contains("API call"))
        .unwrap()
        .to_owned();
    // the second prompt's own cost is shown beside the session's, and
    // the session is the two prompts (not the CLI's totals added up)
    let session = dollars_before(&second, " session").unwrap();
    let step = end.split("+$").nth(1).and_then(|r| r.split(' ').next());
    let (one_v, step_v, session_v) = (value(&one), value(step.expect(&end)), value(&session));
    assert!(
        (one_v + step_v - session_v).abs() < 0.00015 && step_v > 0.0,
        "{one} + {step:?} is not {session}: {end}"
    );
    t.wait_prompt();
    t.line("/cost");
    let cost = t.wait_for("this chat");
    let said = cost
        .lines()
        .rev()
        .find(|l| l.contains("this chat"))
        .unwrap();
    assert!(
        said.contains(&format!("session {session} ")),
        "/cost disagrees with the end line ({session}): {said}"
    );
    assert!(said.contains("2 prompts · 2 API calls"), "{said}");
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
}

/// Every `cost-state` line of the transcripts under `home`, as JSON.
fn cost_states(home: &std::path::Path) -> Vec<(String, serde_json::Value)> {
    let mut out = Vec::new();
    let projects = home.join(".claude/projects");
    let mut stack = vec![projects];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "jsonl") {
                let text = std::fs::read_to_string(&p).unwrap();
                for l in text.lines() {
                    let v: serde_json::Value = serde_json::from_str(l).unwrap_or_default();
                    if v["type"] == "cost-state" {
                        out.push((p.display().to_string(), v));
                    }
                }
            }
        }
    }
    out
}

async fn one_turn(client: &claudio::Client, prompt: &str) -> Vec<claudio::Message> {
    client.send(prompt).await.expect("send");
    crate::common::real::turn(client).await
}

/// `sessions usage --by model` over the store, as JSON.
fn usage_by_model(w: &crate::common::real::World) -> serde_json::Value {
    let o = w
        .claudio()
        .args(["sessions", "usage", "--all", "--by", "model", "-o", "json"])
        .env("CLAUDIO_CACHE_DIR", w.home.path().join("cache"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    serde_json::from_slice(&o.stdout).unwrap()
}

fn result_cost(msgs: &[claudio::Message]) -> (f64, String) {
    match msgs.last() {
        Some(claudio::Message::Result(r)) => (
            r.total_cost_usd.expect("a cost"),
            r.session_id.clone().expect("an id"),
        ),
        other => panic!("no result: {other:?}"),
    }
}

/// The real CLI 2.1.332 writes one `cost-state` line when it exits: the
/// session's running total (a resumed session's goes on from the last),
/// per model. `sessions usage` says exactly those figures for the CLI's
/// default model, which the built-in table once lacked (#40.8), and a
/// session resumed and still open is priced on at the unit price the
/// store's cost-state lines teach: the total equals what the CLI says.
#[tokio::test(flavor = "multi_thread")]
async fn sessions_usage_equals_the_cli_s_cost_state() {
    let w = world!("sessions_usage_equals_the_cli_s_cost_state");
    w.api.push(Reply::text("First answer."));
    w.api.push(Reply::text("Second answer."));
    let client = claudio::Client::connect(w.options()).await.unwrap();
    one_turn(&client, "one").await;
    assert!(
        cost_states(w.home.path()).is_empty(),
        "written only on exit"
    );
    let (cost, id) = result_cost(&one_turn(&client, "two").await);
    client.close().await.unwrap();
    let states = cost_states(w.home.path());
    assert_eq!(states.len(), 1, "{states:?}");
    assert_eq!(states[0].1["totalCostUSD"].as_f64(), Some(cost));

    // resumed: a second line, the running total
    w.api.push(Reply::text("Third answer."));
    let client = claudio::Client::connect(w.options().resume(id.clone()))
        .await
        .unwrap();
    let (cost, _) = result_cost(&one_turn(&client, "three").await);
    client.close().await.unwrap();
    let states = cost_states(w.home.path());
    assert_eq!(states.len(), 2, "{states:?}");
    let last = &states[1].1;
    assert_eq!(last["totalCostUSD"].as_f64(), Some(cost));
    let v = usage_by_model(&w);
    let rows = v["rows"].as_array().unwrap();
    let models = last["modelUsage"].as_object().unwrap();
    assert_eq!(rows.len(), models.len(), "{v}");
    for (model, m) in models {
        let row = rows
            .iter()
            .find(|r| r["key"] == model.as_str())
            .expect(model);
        let said = row["estimatedCostUsd"].as_f64().unwrap();
        assert!(
            (said - m["costUSD"].as_f64().unwrap()).abs() < 1e-9,
            "{row} {m}"
        );
        assert_eq!(row["costIsEstimate"], false, "{row}");
    }
    assert!(
        (v["total"]["estimatedCostUsd"].as_f64().unwrap() - cost).abs() < 1e-9,
        "{v}"
    );

    // list -l says the same figure, not as an estimate
    let o = w
        .claudio()
        .args(["sessions", "list", "--all", "--long"])
        .env("CLAUDIO_CACHE_DIR", w.home.path().join("cache"))
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    let row = out.lines().find(|l| l.contains(&id[..8])).expect(&out);
    assert!(row.trim_end().ends_with(&format!("\t${cost:.2}")), "{out}");

    // resumed again and still open: its new turn has no cost-state yet,
    // and is priced as the earlier ones taught
    w.api.push(Reply::text("Fourth answer."));
    let client = claudio::Client::connect(w.options().resume(id))
        .await
        .unwrap();
    let (open_cost, _) = result_cost(&one_turn(&client, "four").await);
    assert!(open_cost > cost);
    let v = usage_by_model(&w);
    let said = v["total"]["estimatedCostUsd"].as_f64().unwrap();
    assert!(
        (said - open_cost).abs() < 1e-6,
        "{said} is not the CLI's {open_cost}: {v}"
    );
    assert_eq!(v["total"]["costIsEstimate"], false, "{v}");
    client.close().await.unwrap();
}
