//! Unit prices learnt from the whole store (#40.8): a session with no
//! `cost-state` of its own (still running, an older CLI) is priced at the
//! unit price the `cost-state` lines of the same model teach anywhere in
//! the store, in a view of its folder alone too; only then by the table.

use serde_json::{json, Value};
use std::path::Path;

const TAUGHT: &str = "aaaaaaaa-1111-4111-8111-111111111111";
const OPEN: &str = "bbbbbbbb-2222-4222-8222-222222222222";

fn assistant(session: &str, id: &str, cwd: &str, input: u64) -> String {
    json!({"type":"assistant","sessionId":session,"requestId":id,"timestamp":"2026-11-01T10:00:01.000Z",
        "uuid":format!("{session}-{id}"),"cwd":cwd,
        "message":{"id":id,"model":"claude-opus-5-5","role":"assistant","content":[{"type":"text","text":"x"}],
        "usage":{"input_tokens":input,"output_tokens":0}}})
    .to_string()
}

/// A transcript: a prompt, then `lines`.
fn write(d: &Path, folder: &str, id: &str, cwd: &str, lines: &[String]) {
    let p = d.join(format!("projects/{folder}/{id}.jsonl"));
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    let prompt = json!({"type":"user","sessionId":id,"timestamp":"2026-11-01T10:00:00.000Z",
        "uuid":format!("{id}-p"),"cwd":cwd,"message":{"role":"user","content":"price it"}});
    let text: Vec<String> = std::iter::once(prompt.to_string())
        .chain(lines.iter().cloned())
        .collect();
    std::fs::write(&p, text.join("\n") + "\n").unwrap();
}

/// Project /work/a: a session the CLI priced at $7 a million input tokens
/// (not the table's $4). Project /work/b: a session of the same model with
/// no `cost-state`, 2 million input tokens.
fn store() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    let state = json!({"type":"cost-state","totalCostUSD":7.0,"hasUnknownModelCost":false,
        "modelUsage":{"claude-opus-5-5":{"inputTokens":1_000_000,"outputTokens":0,"costUSD":7.0}}});
    write(
        d.path(),
        "-work-a",
        TAUGHT,
        "/work/a",
        &[
            assistant(TAUGHT, "m1", "/work/a", 1_000_000),
            state.to_string(),
        ],
    );
    write(
        d.path(),
        "-work-b",
        OPEN,
        "/work/b",
        &[assistant(OPEN, "m2", "/work/b", 2_000_000)],
    );
    d
}

fn claudio(d: &Path, args: &[&str]) -> String {
    String::from_utf8(crate::common::sessions_in(d, args)).unwrap()
}

/// `sessions usage` of /work/b alone, `list -l` and `list --json --usage`
/// of it, and `inspect`: its session is priced at $7 a million, as /work/a's
/// `cost-state` teaches, not an estimate. Before, a view of one folder
/// learnt only from the sessions it read, and priced it by the table
/// ($8.00, marked `~`).
#[test]
fn a_folder_s_view_prices_at_what_the_rest_of_the_store_teaches() {
    let d = store();
    // twice: the first reads /work/a's transcript (the usage index keeps
    // its figures), the second learns from the index
    for _ in 0..2 {
        let v: Value = serde_json::from_str(&claudio(
            d.path(),
            &["usage", "--cwd", "/work/b", "--by", "model", "--json"],
        ))
        .unwrap();
        let total = &v["total"];
        assert_eq!(total["estimatedCostUsd"], json!(14.0), "{v}");
        assert_eq!(total["costIsEstimate"], false, "{v}");
    }
    let long = claudio(d.path(), &["list", "--cwd", "/work/b", "--long"]);
    let row = long
        .lines()
        .find(|l| l.starts_with("bbbbbbbb"))
        .expect(&long);
    assert!(row.trim_end().ends_with("\t$14.00"), "{long}");
    let rows: Value = serde_json::from_str(&claudio(
        d.path(),
        &["list", "--cwd", "/work/b", "--json", "--usage"],
    ))
    .unwrap();
    assert_eq!(rows[0]["estimatedCostUsd"], json!(14.0), "{rows}");
    assert_eq!(rows[0]["costIsEstimate"], false, "{rows}");
    let shown = claudio(d.path(), &["inspect", "bbbbbbbb"]);
    assert!(shown.contains("$14.00"), "{shown}");
    // the whole store: the same
    let v: Value = serde_json::from_str(&claudio(d.path(), &["usage", "--all", "--json"])).unwrap();
    assert_eq!(v["total"]["estimatedCostUsd"], json!(21.0), "{v}");
}

/// With no `cost-state` anywhere for the model, the table's price, marked
/// an estimate.
#[test]
fn with_no_cost_state_anywhere_the_table_s_estimate() {
    let d = store();
    std::fs::remove_dir_all(d.path().join("projects/-work-a")).unwrap();
    let v: Value =
        serde_json::from_str(&claudio(d.path(), &["usage", "--cwd", "/work/b", "--json"])).unwrap();
    assert_eq!(v["total"]["estimatedCostUsd"], json!(8.0), "{v}");
    assert_eq!(v["total"]["costIsEstimate"], true, "{v}");
}

/// The status line reads only the recent sessions: /work/b's, today (2
/// million input tokens, no `cost-state`), not /work/a's of two days ago
/// that taught $7 a million. Today's cost is at that price all the same:
/// the whole store's unit prices are learnt once a day and kept beside
/// the usage index, and the kept ones serve until then (even with
/// /work/a gone). Before, it learnt from the recent sessions alone and
/// said the table's $8.00.
#[test]
fn the_status_line_prices_today_at_what_the_whole_store_teaches() {
    let d = store();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    let day = 86_400_000;
    let sent = (now - 60_000).max(now.div_euclid(day) * day);
    let at = |ms: i64| std::time::UNIX_EPOCH + std::time::Duration::from_millis(ms as u64);
    let taught = d.path().join(format!("projects/-work-a/{TAUGHT}.jsonl"));
    let f = std::fs::File::options().write(true).open(&taught).unwrap();
    f.set_modified(at(now - 2 * day)).unwrap();
    let open = d.path().join(format!("projects/-work-b/{OPEN}.jsonl"));
    let line = assistant(OPEN, "m2", "/work/b", 2_000_000).replace(
        "2026-11-01T10:00:01.000Z",
        &claudio::store::format_iso_millis(sent),
    );
    std::fs::write(&open, line + "\n").unwrap();
    let input = json!({"session_id": OPEN, "transcript_path": open.display().to_string(),
        "model": {"id": "claude-opus-5-5", "display_name": "Opus 5.5"},
        "cost": {"total_cost_usd": 14.0}});
    let today = || {
        let mut c = crate::common::over_store(env!("CARGO_BIN_EXE_claudio"), d.path());
        c.args(["statusline", "--format", "{today_cost} today"]);
        let o = crate::common::run(c, Some(input.to_string().as_bytes()));
        assert!(o.status.success(), "{o:?}");
        String::from_utf8(o.stdout).unwrap()
    };
    assert_eq!(today(), "$14.00 today\n");
    assert!(d.path().join(".claudio-cache/unit-prices").is_file());
    std::fs::remove_dir_all(d.path().join("projects/-work-a")).unwrap();
    assert_eq!(today(), "$14.00 today\n");
}
