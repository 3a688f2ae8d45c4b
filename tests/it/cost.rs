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

/// A session forked by `sessions fork` (copied without its `cost-state`,
/// as the TypeScript SDK's `forkSession` copies) and resumed: the real CLI
/// counts from 0 again, so the fork's `cost-state` is its own turn's
/// alone. By session, the fork costs exactly that, the session it came
/// from its own figure, and the total both; the fork was given a sliver
/// of its figure (the copied responses shared it, and were the other
/// session's), and the total fell short by the rest. The CLI's own fork
/// (`--fork-session`) goes on from the parent's total, and is the same.
#[tokio::test(flavor = "multi_thread")]
async fn a_forked_session_costs_what_its_own_cost_state_says() {
    let w = world!("a_forked_session_costs_what_its_own_cost_state_says");
    w.api.push(Reply::text("First answer."));
    w.api.push(Reply::text("Second answer."));
    let client = claudio::Client::connect(w.options()).await.unwrap();
    one_turn(&client, "one").await;
    let (parent_cost, parent) = result_cost(&one_turn(&client, "two").await);
    client.close().await.unwrap();
    let o = w
        .claudio()
        .args(["sessions", "fork", &parent])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let fork = String::from_utf8(o.stdout).unwrap().trim().to_owned();
    w.api.push(Reply::text("Forked answer."));
    let client = claudio::Client::connect(w.options().resume(fork.clone()))
        .await
        .unwrap();
    let (fork_cost, _) = result_cost(&one_turn(&client, "three").await);
    client.close().await.unwrap();
    // the fork's figure is its one turn's: the CLI began again at 0
    assert!(
        fork_cost > 0.0 && fork_cost < parent_cost,
        "{fork_cost} {parent_cost}"
    );
    let states = cost_states(w.home.path());
    let fork_state = states
        .iter()
        .rfind(|(p, _)| p.contains(&fork))
        .expect("the fork's cost-state");
    assert_eq!(fork_state.1["totalCostUSD"].as_f64(), Some(fork_cost));
    let o = w
        .claudio()
        .args([
            "sessions", "usage", "--all", "--by", "session", "-o", "json",
        ])
        .env("CLAUDIO_CACHE_DIR", w.home.path().join("cache"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let cost_of = |id: &str| {
        let row = v["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["key"] == id)
            .unwrap_or_else(|| panic!("{id} not in {v}"));
        assert_eq!(row["costIsEstimate"], false, "{row}");
        row["estimatedCostUsd"].as_f64().unwrap()
    };
    let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
    assert!(close(cost_of(&parent), parent_cost), "{v}");
    assert!(close(cost_of(&fork), fork_cost), "{v}");
    let total = v["total"]["estimatedCostUsd"].as_f64().unwrap();
    assert!(close(total, parent_cost + fork_cost), "{v}");
}

/// The models the CLI's own price list (its model catalog) prices, as
/// `scripts/check-prices --show` reads them out of the binary: each
/// catalog id and first-party API name.
fn catalog_models(cli: &std::path::Path) -> Vec<String> {
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/check-prices");
    let o = std::process::Command::new("python3")
        .arg(&script)
        .arg("--show")
        .arg(cli)
        .output()
        .expect("python3 runs scripts/check-prices");
    assert!(o.status.success(), "{o:?}");
    String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .filter_map(|l| l.split_once(':').map(|(m, _)| m.to_owned()))
        .collect()
}

/// A `usage` with every kind of token, different for each `n` (so a rate
/// that is wrong for any kind shows): `long` puts the request past every
/// long-prompt threshold (200k input tokens).
fn known_usage(n: u64, long: bool) -> serde_json::Value {
    let (w5, w1) = (300 + 11 * n, 700 + 13 * n);
    serde_json::json!({
        "input_tokens": if long { 210_000 } else { 1_000 } + 7 * n,
        "output_tokens": 500 + 3 * n,
        "cache_read_input_tokens": 20_000 + 17 * n,
        "cache_creation_input_tokens": w5 + w1,
        "cache_creation": {"ephemeral_5m_input_tokens": w5, "ephemeral_1h_input_tokens": w1},
        "service_tier": "standard",
    })
}

/// Every transcript of the store under `home` copied under `to`, without
/// its `cost-state` lines.
fn copy_without_cost_states(home: &std::path::Path, to: &std::path::Path) {
    let from = home.join(".claude/projects");
    let mut stack = vec![from.clone()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            let dest = to.join(p.strip_prefix(&from).unwrap());
            if p.is_dir() {
                std::fs::create_dir_all(&dest).unwrap();
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "jsonl") {
                let text = std::fs::read_to_string(&p).unwrap();
                let kept: Vec<&str> = text
                    .lines()
                    .filter(|l| {
                        let v: serde_json::Value = serde_json::from_str(l).unwrap_or_default();
                        v["type"] != "cost-state"
                    })
                    .collect();
                assert!(kept.len() < text.lines().count() || !text.contains("cost-state"));
                std::fs::write(dest, kept.join("\n") + "\n").unwrap();
            }
        }
    }
}

/// `sessions usage --all --by model -o json` over the store in `claude`
/// (a `.claude` folder), by model: (cost, whether an estimate).
fn claudio_by_model(
    w: &crate::common::real::World,
    claude: &std::path::Path,
) -> (
    std::collections::BTreeMap<String, (Option<f64>, bool)>,
    serde_json::Value,
) {
    let cache = tempfile::tempdir().unwrap();
    let o = w
        .claudio()
        .args(["sessions", "usage", "--all", "--by", "model", "-o", "json"])
        .env("CLAUDE_CONFIG_DIR", claude)
        .env("CLAUDIO_CACHE_DIR", cache.path())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let rows = v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["key"].as_str().unwrap().to_owned(),
                (r["estimatedCostUsd"].as_f64(), r["costIsEstimate"] == true),
            )
        })
        .collect();
    (rows, v)
}

/// Equal to float rounding.
fn same_usd(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 + 1e-9 * b.abs()
}

/// A `usage` field a turn adds, and its JSON (`speed` `"fast"`,
/// `inference_geo` `"us"`, `server_tool_use` with web searches).
type Extra = Option<(&'static str, &'static str)>;

/// The built-in price table is the CLI's own (#40.8): the real CLI is
/// driven through one turn per model it knows, each answered with known
/// counts of every kind of token (input, output, cache reads, 5-minute
/// and 1-hour cache writes), plus turns in fast mode and US-only, past
/// the long-prompt threshold, and of a model it has no price for. What the CLI says each model cost
/// (`modelUsage.<model>.costUSD`, and `total_cost_usd`) is what
/// `sessions usage` prices the same transcript at by the table, once its
/// `cost-state` line is taken out. Run against every CLI the tests
/// install, so the table cannot drift from them (`scripts/check-prices`
/// reads the same prices out of the binaries; this checks what the CLI
/// does with them). The CLI sends a retired model's turn (Claude Opus 4
/// and 4.1) to its default model, so those rates are checked by
/// `scripts/check-prices` alone. For a model it has no price for the CLI
/// says `hasUnknownModelCost` and a figure at its default model's price:
/// a guess, which `sessions usage` does not show as a cost.
#[tokio::test(flavor = "multi_thread")]
async fn real_cli_prices_every_model_as_the_table_does() {
    let w = world!("real_cli_prices_every_model_as_the_table_does");
    let models = catalog_models(&w.cli);
    assert!(models.iter().any(|m| m == "claude-opus-5-5"), "{models:?}");
    let unknown = "claude-unknown-9";
    // each model once; a model the CLI has no price for; then past the
    // long-prompt threshold, a model that has a long-prompt tier and one
    // that has none (both with a window of a million tokens: past a
    // smaller one the CLI compacts, and prices that too)
    // then fast mode (`usage.speed`), for each model the CLI has fast
    // rates for and one it has none for; US-only inference
    // (`usage.inference_geo`), 1.1×; web searches, $10 a thousand
    let mut plan: Vec<(&str, bool, Extra)> =
        models.iter().map(|m| (m.as_str(), false, None)).collect();
    let fast = Some(("speed", r#""fast""#));
    plan.extend([
        (unknown, false, None),
        ("claude-opus-5-5", false, fast),
        ("claude-opus-5", false, fast),
        ("claude-opus-4-8", false, fast),
        ("claude-opus-4-7", false, fast),
        ("claude-opus-4-6", false, fast),
        ("claude-fable-5-2", false, fast),
        ("claude-mythos-5-2", false, fast),
        ("claude-sonnet-5-5", false, fast),
        (
            "claude-haiku-4-5",
            false,
            Some(("inference_geo", r#""us""#)),
        ),
        (
            "claude-sonnet-5",
            false,
            Some(("server_tool_use", r#"{"web_search_requests":3}"#)),
        ),
        ("claude-haiku-5-5", true, None),
        ("claude-opus-5-5", true, None),
    ]);
    let client = claudio::Client::connect(w.options()).await.unwrap();
    let mut last = None;
    for (n, (model, long, extra)) in plan.iter().enumerate() {
        client.set_model(Some(model)).await.expect(model);
        let mut usage = known_usage(n as u64, *long);
        if let Some((k, v)) = extra {
            usage[*k] = serde_json::from_str(v).unwrap();
        }
        w.api.push(Reply::text("ok").with_usage(usage));
        match one_turn(&client, "price this").await.pop() {
            Some(claudio::Message::Result(r)) => last = Some(r),
            other => panic!("{model}: no result: {other:?}"),
        }
    }
    client.close().await.unwrap();
    let last = last.unwrap();
    // one request a turn, every one answered with the known counts
    let asked: Vec<String> = w
        .main_requests()
        .iter()
        .map(|r| r.model().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(asked.len(), plan.len(), "{asked:?}");
    let used = &last.model_usage;
    let mut served = std::collections::BTreeMap::<&str, (u64, u64)>::new();
    for (n, ((_, long, _), model)) in plan.iter().zip(&asked).enumerate() {
        let u = known_usage(n as u64, *long);
        let e = served.entry(model.as_str()).or_default();
        e.0 += u["input_tokens"].as_u64().unwrap();
        e.1 += u["cache_read_input_tokens"].as_u64().unwrap();
    }
    for (model, (input, read)) in &served {
        let m = used
            .get(*model)
            .unwrap_or_else(|| panic!("{model}: {used:?}"));
        assert_eq!(
            (m.input_tokens, m.cache_read_input_tokens),
            (*input, *read),
            "{model}: the CLI counted other requests too"
        );
    }
    // the CLI's figures add up, and its model it has no price for is
    // priced at a guess it says is one (its default model's price)
    let total = last.total_cost_usd.expect("a total");
    let sum: f64 = used.values().map(|m| m.cost_usd).sum();
    assert!(same_usd(total, sum), "{total} {sum}");
    let states = cost_states(w.home.path());
    let state = &states.last().expect("a cost-state on exit").1;
    assert_eq!(state["hasUnknownModelCost"], true, "{state}");
    assert!(used[unknown].cost_usd > 0.0);

    // the table prices each of the CLI's models as it does: the
    // transcript without its cost-state line, priced by claudio
    let bare = tempfile::tempdir().unwrap();
    copy_without_cost_states(w.home.path(), &bare.path().join("projects"));
    let (rows, v) = claudio_by_model(&w, bare.path());
    let mut checked = 0;
    for (model, m) in used {
        let row = rows.get(model).unwrap_or_else(|| panic!("{model}: {v}"));
        if model == unknown {
            assert_eq!(row.0, None, "{model} is not priced by a guess: {v}");
            continue;
        }
        let said = row.0.unwrap_or_else(|| panic!("{model} has no price: {v}"));
        assert!(
            same_usd(said, m.cost_usd),
            "{model}: the table says ${said}, the CLI ${}",
            m.cost_usd
        );
        assert!(row.1, "{model}: an estimate, and said to be");
        checked += 1;
    }
    assert!(checked >= 20, "{checked} models checked: {v}");
    assert_eq!(v["unpricedModels"], serde_json::json!([unknown]), "{v}");

    // the store as the CLI left it: its own figures, the guess not
    // believed
    let (rows, v) = claudio_by_model(&w, &w.home.path().join(".claude"));
    for (model, m) in used {
        let row = &rows[model];
        if model == unknown {
            assert_eq!(
                row.0, None,
                "the CLI's guess for {model} is not a price: {v}"
            );
        } else {
            assert!(
                row.0.is_some_and(|c| same_usd(c, m.cost_usd)) && !row.1,
                "{model}: {row:?} is not the CLI's {}",
                m.cost_usd
            );
        }
    }
}
