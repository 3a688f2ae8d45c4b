//! `sessions usage` and the usage line of `inspect`, on a fixture store that
//! repeats one message's usage across content-block lines and across a
//! resumed session's files.

use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, UNIX_EPOCH};

const FIRST: &str = "aaaaaaaa-1111-4111-8111-111111111111";
const RESUMED: &str = "bbbbbbbb-2222-4222-8222-222222222222";

fn assistant(session: &str, msg: &str, req: &str, model: &str, output: u64, ts: &str) -> String {
    json!({"type":"assistant","sessionId":session,"requestId":req,"timestamp":ts,"uuid":format!("{msg}-{output}"),
        "cwd":"/work/shop","message":{"id":msg,"model":model,"role":"assistant","content":[{"type":"text","text":"x"}],
        "usage":{"input_tokens":1000,"output_tokens":output,"cache_creation_input_tokens":200,"cache_read_input_tokens":3000}}})
    .to_string()
}

fn prompt(session: &str, text: &str, ts: &str) -> String {
    json!({"type":"user","sessionId":session,"timestamp":ts,"uuid":format!("{session}-{ts}"),"cwd":"/work/shop",
        "message":{"role":"user","content":text}})
    .to_string()
}

fn write(dir: &Path, id: &str, lines: &[String], secs: u64) {
    let p = dir.join(format!("projects/-work-shop/{id}.jsonl"));
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, lines.join("\n") + "\n").unwrap();
    let f = std::fs::File::options().write(true).open(&p).unwrap();
    f.set_modified(UNIX_EPOCH + Duration::from_secs(secs))
        .unwrap();
}

fn fixture() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        FIRST,
        &[
            prompt(FIRST, "fix it", "2026-11-01T10:00:00.000Z"),
            // one API message in three content-block lines
            assistant(
                FIRST,
                "m1",
                "r1",
                "claude-sonnet-4-5",
                10,
                "2026-11-01T10:00:01.000Z",
            ),
            assistant(
                FIRST,
                "m1",
                "r1",
                "claude-sonnet-4-5",
                60,
                "2026-11-01T10:00:02.000Z",
            ),
            assistant(
                FIRST,
                "m1",
                "r1",
                "claude-sonnet-4-5",
                100,
                "2026-11-01T10:00:03.000Z",
            ),
        ],
        1_790_000_000,
    );
    // resumed the next day: the file repeats m1, then goes on
    write(
        d.path(),
        RESUMED,
        &[
            prompt(RESUMED, "fix it", "2026-11-01T10:00:00.000Z"),
            assistant(
                RESUMED,
                "m1",
                "r1",
                "claude-sonnet-4-5",
                100,
                "2026-11-01T10:00:03.000Z",
            ),
            prompt(RESUMED, "and test it", "2026-11-02T09:00:00.000Z"),
            assistant(
                RESUMED,
                "m2",
                "r2",
                "claude-opus-9-9",
                50,
                "2026-11-02T09:00:05.000Z",
            ),
        ],
        1_790_100_000,
    );
    d
}

fn claudio(d: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_claudio"))
        .args(["sessions", "--config-dir"])
        .arg(d)
        .args(args)
        .env("NO_COLOR", "1")
        .env("TZ", "UTC")
        .envs(own_cache(d))
        .output()
        .unwrap()
}

/// The usage index and the archive of the fixture's own, beside it: never
/// the developer's `~/.cache/claudio` or `~/.local/share/claudio`.
fn own_cache(d: &Path) -> [(&'static str, PathBuf); 2] {
    [
        ("CLAUDIO_CACHE_DIR", d.join(".claudio-cache")),
        ("CLAUDIO_ARCHIVE_DIR", d.join(".claudio-archive")),
    ]
}

#[test]
fn each_api_message_counts_once_across_lines_and_files() {
    let d = fixture();
    let o = claudio(d.path(), &["usage", "--all", "--by", "model", "--json"]);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let total = &v["total"];
    assert_eq!(total["input"], 2000, "{v}");
    assert_eq!(total["output"], 150, "{v}");
    assert_eq!(total["cacheWrite"], 400);
    assert_eq!(total["cacheRead"], 6000);
    let sonnet = v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["key"] == "claude-sonnet-4-5")
        .unwrap();
    assert_eq!(sonnet["output"], 100);
    // 1000 in, 100 out, 200 cache write, 3000 cache read at sonnet-4-5 prices
    let want = (1000.0 * 3.0 + 100.0 * 15.0 + 200.0 * 3.75 + 3000.0 * 0.3) / 1e6;
    assert!(
        (sonnet["estimatedCostUsd"].as_f64().unwrap() - want).abs() < 1e-12,
        "{sonnet}"
    );
    // the unknown model: tokens, no price, and it says so
    assert_eq!(v["unpricedModels"], json!(["claude-opus-9-9"]));
    assert_eq!(total["costIsPartial"], true);
}

#[test]
fn by_day_since_and_the_table() {
    let d = fixture();
    let o = claudio(d.path(), &["usage", "--all", "--by", "day", "--json"]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let keys: Vec<&str> = v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["key"].as_str().unwrap())
        .collect();
    assert_eq!(keys, ["2026-11-01", "2026-11-02"]);
    let o = claudio(
        d.path(),
        &["usage", "--all", "--since", "2026-11-02", "--json"],
    );
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["total"]["output"], 50);
    let o = claudio(d.path(), &["usage", "--all"]);
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(out.contains("COST"), "{out}");
    assert!(out.contains("estimates from the list prices"), "{out}");
    assert!(out.contains("no price for claude-opus-9-9"), "{out}");
    let o = claudio(d.path(), &["usage", "--all", "--no-cost"]);
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(!out.contains("COST") && !out.contains('$'), "{out}");
}

#[test]
fn days_are_those_of_the_zone_tz_names() {
    let d = fixture();
    let days = |tz: &str| -> Vec<String> {
        let o = Command::new(env!("CARGO_BIN_EXE_claudio"))
            .args(["sessions", "--config-dir"])
            .arg(d.path())
            .args(["usage", "--all", "--by", "day", "--json"])
            .env("TZ", tz)
            .envs(own_cache(d.path()))
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0), "{o:?}");
        let v: Value = serde_json::from_slice(&o.stdout).unwrap();
        v["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["key"].as_str().unwrap().to_owned())
            .collect()
    };
    // API messages at 2026-11-01 10:00 and 2026-11-02 09:00 UTC
    assert_eq!(days("UTC"), ["2026-11-01", "2026-11-02"]);
    assert_eq!(days("Pacific/Pago_Pago"), ["2026-10-31", "2026-11-01"]);
    assert_eq!(days("Pacific/Kiritimati"), ["2026-11-02"]);
    // a POSIX rule, and a name no database knows (UTC, as the C library does)
    assert_eq!(days("XYZ-14"), ["2026-11-02"]);
    assert_eq!(days("Nowhere/Atlantis"), ["2026-11-01", "2026-11-02"]);
}

/// `TZ` naming a FIFO blocked `sessions usage` for ever (the fourth
/// attack round): now it is not waited on, the days are UTC's, and one
/// line says why.
#[test]
fn a_tz_naming_a_fifo_is_utc_with_a_note() {
    let d = fixture();
    let fifo = d.path().join("tz-fifo");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let mut child = Command::new(env!("CARGO_BIN_EXE_claudio"))
        .args(["sessions", "--config-dir"])
        .arg(d.path())
        .args(["usage", "--all", "--by", "day", "--json"])
        .env("TZ", &fifo)
        .envs(own_cache(d.path()))
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    crate::common::wait_with_deadline(&mut child, 60);
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let days: Vec<&str> = v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["key"].as_str().unwrap())
        .collect();
    assert_eq!(days, ["2026-11-01", "2026-11-02"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("not a regular file; times are shown in UTC"),
        "{err}"
    );
}

#[test]
fn inspect_shows_the_session_s_usage() {
    let d = fixture();
    let o = claudio(d.path(), &["inspect", &RESUMED[..8]]);
    let out = String::from_utf8(o.stdout).unwrap();
    let second = out.lines().nth(1).unwrap();
    assert!(second.contains("2.0k in · 150 out"), "{out}");
    assert!(second.contains("2 prompts · 2 API requests"), "{out}");
    assert!(
        second.contains("sonnet-4-5, opus-9-9") || second.contains("opus-9-9, sonnet-4-5"),
        "{out}"
    );
    assert!(second.contains("est. $"), "{out}");
}

#[test]
fn list_json_with_usage_adds_fields_and_keeps_the_sdk_s() {
    let d = fixture();
    let plain: Value =
        serde_json::from_slice(&claudio(d.path(), &["list", "--all", "--json"]).stdout).unwrap();
    let with: Value =
        serde_json::from_slice(&claudio(d.path(), &["list", "--all", "--json", "--usage"]).stdout)
            .unwrap();
    let (plain, with) = (plain.as_array().unwrap(), with.as_array().unwrap());
    assert_eq!(plain.len(), with.len());
    for (p, w) in plain.iter().zip(with) {
        for (k, v) in p.as_object().unwrap() {
            assert_eq!(&w[k], v, "{k} changed");
        }
    }
    let resumed = with.iter().find(|s| s["sessionId"] == RESUMED).unwrap();
    // per session: its own file's messages (m1 repeated here counts for it)
    assert_eq!(resumed["usage"]["output"], 150);
    assert_eq!(resumed["apiRequests"], 2);
    assert_eq!(resumed["prompts"], 2);
    assert_eq!(resumed["costIsPartial"], true);
    // one flag for "with usage": --long adds the fields to -o json and
    // -o ndjson; the old --json --usage is the same document
    let long = claudio(d.path(), &["list", "--all", "-o", "json", "--long"]);
    assert_eq!(long.status.code(), Some(0), "{long:?}");
    let long: Value = serde_json::from_slice(&long.stdout).unwrap();
    assert_eq!(long.as_array().unwrap(), with);
    let nd = claudio(d.path(), &["list", "--all", "-o", "ndjson", "-l"]);
    let lines: Vec<Value> = String::from_utf8(nd.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(&lines, with);
    // --usage alone, once an error, is the old spelling of --long
    let old = claudio(d.path(), &["list", "--all", "--usage"]);
    assert_eq!(old.status.code(), Some(0), "{old:?}");
    assert_eq!(
        old.stdout,
        claudio(d.path(), &["list", "--all", "--long"]).stdout
    );
}

#[test]
fn list_long_adds_tokens_and_the_estimate() {
    let d = fixture();
    let o = claudio(d.path(), &["list", "--all", "--long"]);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let out = String::from_utf8(o.stdout).unwrap();
    let head = out.lines().next().unwrap();
    // piped: tab-separated
    assert!(head.ends_with("TOKENS\tCOST"), "{out}");
    let first = out.lines().find(|l| l.starts_with("aaaaaaaa")).unwrap();
    // 1000 + 100 + 200 + 3000 tokens, priced as sonnet-4-5
    assert!(first.contains("4.3k"), "{out}");
    assert!(first.trim_end().ends_with("$0.01"), "{out}");
    let resumed = out.lines().find(|l| l.starts_with("bbbbbbbb")).unwrap();
    assert!(resumed.trim_end().ends_with('+'), "partly unpriced: {out}");
}

/// A session whose model ran a sub-agent: 1000 in / 100 out of its own
/// (sonnet), and the agent's 500 in / 50 out (haiku) in its transcript
/// beside it; and a link out of the store there, never read.
fn with_agent() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        FIRST,
        &[
            prompt(FIRST, "count the files", "2026-11-01T10:00:00.000Z"),
            assistant(
                FIRST,
                "m1",
                "r1",
                "claude-sonnet-4-5",
                100,
                "2026-11-01T10:00:01.000Z",
            ),
        ],
        1_790_000_000,
    );
    let agents = d
        .path()
        .join(format!("projects/-work-shop/{FIRST}/subagents"));
    std::fs::create_dir_all(&agents).unwrap();
    let mut line: Value = serde_json::from_str(&assistant(
        FIRST,
        "s1",
        "q1",
        "claude-haiku-4-5",
        50,
        "2026-11-01T10:00:02.000Z",
    ))
    .unwrap();
    line["isSidechain"] = json!(true);
    line["message"]["usage"]["input_tokens"] = json!(500);
    std::fs::write(agents.join("agent-a1b2c3d4e5.jsonl"), format!("{line}\n")).unwrap();
    std::fs::write(
        agents.join("agent-a1b2c3d4e5.meta.json"),
        r#"{"agentType":"general-purpose","description":"count files"}"#,
    )
    .unwrap();
    let outside = d.path().join("outside.jsonl");
    std::fs::write(
        &outside,
        assistant(
            FIRST,
            "x",
            "x",
            "claude-haiku-4-5",
            9999,
            "2026-11-01T10:00:03.000Z",
        ),
    )
    .unwrap();
    std::os::unix::fs::symlink(&outside, agents.join("agent-out.jsonl")).unwrap();
    d
}

#[test]
fn sub_agents_count_in_their_session_and_show_under_it() {
    let d = with_agent();
    let o = claudio(d.path(), &["usage", "--all", "--by", "session", "--json"]);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["total"]["input"], 1500, "{v}");
    assert_eq!(v["total"]["output"], 150, "{v}");
    let row = &v["rows"][0];
    assert_eq!(row["key"], FIRST);
    assert_eq!(row["input"], 1500, "the session's row holds its agent");
    let agent = &row["subagents"][0];
    assert_eq!(agent["agentId"], "a1b2c3d4e5");
    assert_eq!(agent["description"], "count files");
    assert_eq!(agent["agentType"], "general-purpose");
    assert_eq!(
        (agent["input"].as_u64(), agent["output"].as_u64()),
        (Some(500), Some(50))
    );
    assert_eq!(
        row["subagents"].as_array().unwrap().len(),
        1,
        "the link is not read"
    );
    // the link is named, not read
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("agent-out.jsonl"), "{err}");

    // the JSON keeps the whole id, and gives the title
    assert_eq!(row["title"], "count the files", "{v}");
    let o = claudio(d.path(), &["usage", "--all", "--by", "session"]);
    let out = String::from_utf8(o.stdout).unwrap();
    let lines: Vec<&str> = out.lines().collect();
    // the table: the short id and the title
    assert!(
        lines[1].starts_with(&format!("{}  count the files ", &FIRST[..8])),
        "{out}"
    );
    assert!(!out.contains(FIRST), "{out}");
    assert!(lines[2].starts_with("  ↳ count files (a1b2c3d4)"), "{out}");
    assert!(lines[2].contains(" 500 "), "{out}");
    assert!(out.contains("includes its sub-agents"), "{out}");
    // by model: the agent's model is there
    let o = claudio(d.path(), &["usage", "--all", "--by", "model", "--json"]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let haiku = v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["key"] == "claude-haiku-4-5")
        .expect("the agent's model");
    assert_eq!(haiku["output"], 50);

    // list --long, list --json --usage and inspect say the same
    let o = claudio(d.path(), &["list", "--all", "--long"]);
    let out = String::from_utf8(o.stdout).unwrap();
    // 1000 + 100 + 200 + 3000 of its own, 500 + 50 + 200 + 3000 of the agent's
    assert!(out.lines().nth(1).unwrap().contains("8.1k"), "{out}");
    let o = claudio(d.path(), &["list", "--all", "--json", "--usage"]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v[0]["usage"]["input"], 1500, "{v}");
    assert_eq!(v[0]["apiRequests"], 2);
    assert_eq!(v[0]["prompts"], 1);
    let o = claudio(d.path(), &["inspect", &FIRST[..8]]);
    let out = String::from_utf8(o.stdout).unwrap();
    let second = out.lines().nth(1).unwrap();
    assert!(second.contains("1.5k in · 150 out"), "{out}");
    assert!(
        second.contains("1 prompt · 2 API requests · 1 sub-agent (1 of the requests)"),
        "{out}"
    );
}

#[test]
fn by_block_rows_are_five_hour_windows_from_the_hour_of_their_first_message() {
    let d = fixture();
    let o = claudio(d.path(), &["usage", "--all", "--by", "block", "--json"]);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let rows = v["rows"].as_array().unwrap();
    // API messages at 2026-11-01 10:00 and 2026-11-02 09:00 UTC
    let spans: Vec<(&str, &str)> = rows
        .iter()
        .map(|r| (r["start"].as_str().unwrap(), r["end"].as_str().unwrap()))
        .collect();
    assert_eq!(
        spans,
        [
            ("2026-11-01T10:00:00.000Z", "2026-11-01T15:00:00.000Z"),
            ("2026-11-02T09:00:00.000Z", "2026-11-02T14:00:00.000Z")
        ]
    );
    assert_eq!(rows[0]["key"], "2026-11-01 10:00–15:00", "{v}");
    assert_eq!(v["total"]["output"], 150);
}

#[test]
fn usage_limit_counts_the_newest_sessions() {
    let d = fixture();
    let json = |args: &[&str]| -> Value {
        let o = claudio(d.path(), args);
        assert_eq!(o.status.code(), Some(0), "{o:?}");
        serde_json::from_slice(&o.stdout).unwrap()
    };
    let all = json(&["usage", "--all", "--by", "session", "-o", "json"]);
    let keys = |v: &Value| -> Vec<String> {
        v["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["key"].as_str().unwrap().to_owned())
            .collect()
    };
    // oldest first, as the days are
    assert_eq!(keys(&all), [FIRST, RESUMED]);
    assert_eq!(all["rows"][0]["output"], 100);
    // -n 1: the newest session alone; the message it repeats from the
    // first now counts for it
    let one = json(&["usage", "--all", "--by", "session", "-n", "1", "-o", "json"]);
    assert_eq!(keys(&one), [RESUMED]);
    assert_eq!(one["rows"][0]["output"], 150, "{one}");
    assert_eq!(one["total"]["output"], 150);
    let by_day = json(&["usage", "--all", "--limit", "1", "-o", "json"]);
    assert_eq!(by_day["total"]["output"], 150, "{by_day}");
    // -n 0 is no limit, as in list and search
    assert_eq!(
        json(&["usage", "--all", "-n", "0", "-o", "json"])["total"],
        all["total"]
    );
}

#[test]
fn usage_json_is_one_object_and_ndjson_its_rows_then_the_rest() {
    let d = fixture();
    let o = claudio(d.path(), &["usage", "--all", "-o", "json"]);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    // the old spelling gives the same document
    let old = claudio(d.path(), &["usage", "--all", "--json"]);
    assert_eq!(old.stdout, o.stdout);
    let o = claudio(d.path(), &["usage", "--all", "-o", "ndjson"]);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let text = String::from_utf8(o.stdout).unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("one object a line"))
        .collect();
    let rows = doc["rows"].as_array().unwrap();
    assert_eq!(lines.len(), rows.len() + 1, "{text}");
    assert_eq!(&lines[..rows.len()], rows.as_slice());
    let mut rest = doc.clone();
    rest.as_object_mut().unwrap().remove("rows");
    assert_eq!(lines[rows.len()], rest);
    assert_eq!(lines[rows.len()]["total"]["output"], 150);
    // --json and -o together are one request too many
    assert_eq!(
        claudio(d.path(), &["usage", "--json", "-o", "ndjson"])
            .status
            .code(),
        Some(2)
    );
}

/// `--by block --since` chains the windows from the first response, not
/// from `--since` (#44.2): use every 4h40 from 21:10 the day before makes
/// windows at 21:00, 02:00, 07:00 and 12:00; since midnight shows them
/// (21:00's holds 01:50) as they are, not from 01:00, 06:00, 11:00.
/// And a response streamed across midnight is the day it began (#44.1).
#[test]
fn by_block_since_chains_from_the_first_response() {
    let d = tempfile::tempdir().unwrap();
    let times = [
        "2026-10-31T21:10:00.000Z",
        "2026-11-01T01:50:00.000Z",
        "2026-11-01T02:10:00.000Z",
        "2026-11-01T06:50:00.000Z",
        "2026-11-01T07:10:00.000Z",
        "2026-11-01T11:50:00.000Z",
        "2026-11-01T12:10:00.000Z",
    ];
    let mut lines: Vec<String> = times
        .iter()
        .enumerate()
        .map(|(i, t)| {
            assistant(
                FIRST,
                &format!("m{i}"),
                &format!("r{i}"),
                "claude-sonnet-4-5",
                1,
                t,
            )
        })
        .collect();
    // one response, two content-block lines either side of midnight
    lines.push(assistant(
        FIRST,
        "late",
        "rl",
        "claude-sonnet-4-5",
        1,
        "2026-11-01T23:59:59.000Z",
    ));
    lines.push(assistant(
        FIRST,
        "late",
        "rl",
        "claude-sonnet-4-5",
        2,
        "2026-11-02T00:00:01.000Z",
    ));
    write(d.path(), FIRST, &lines, 1_793_600_000);
    let o = claudio(
        d.path(),
        &[
            "usage",
            "--all",
            "--by",
            "block",
            "--since",
            "2026-11-01",
            "--json",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let starts: Vec<&str> = v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["start"].as_str().unwrap())
        .collect();
    assert_eq!(
        starts,
        [
            "2026-10-31T21:00:00.000Z",
            "2026-11-01T02:00:00.000Z",
            "2026-11-01T07:00:00.000Z",
            "2026-11-01T12:00:00.000Z",
            "2026-11-01T23:00:00.000Z",
        ],
        "{v}"
    );
    let o = claudio(d.path(), &["usage", "--all", "--by", "day", "--json"]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let days: Vec<&str> = v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["key"].as_str().unwrap())
        .collect();
    assert_eq!(days, ["2026-10-31", "2026-11-01"], "{v}");
}

/// A session's `cost-state` is its cost, per model, in every view: the
/// responses it covers share their model's figure, and a model no
/// response answered (the CLI's side requests) still counts, at the time
/// it covers up to (#40.8).
#[test]
fn a_cost_state_is_the_session_s_cost_per_model() {
    let d = tempfile::tempdir().unwrap();
    let lines = [
        assistant(FIRST, "m1", "r1", "claude-sonnet-4-5", 10, "2026-11-01T10:00:00.000Z"),
        assistant(FIRST, "m2", "r2", "claude-sonnet-4-5", 90, "2026-11-01T10:05:00.000Z"),
        json!({"type":"cost-state","sessionId":FIRST,"totalCostUSD":1.25,"hasUnknownModelCost":false,
            "modelUsage":{
                "claude-sonnet-4-5":{"inputTokens":2000,"outputTokens":100,"costUSD":1.0},
                "claude-haiku-4-5":{"inputTokens":500,"outputTokens":5,"costUSD":0.25}}})
        .to_string(),
    ];
    write(d.path(), FIRST, &lines, 1_790_000_000);
    let o = claudio(d.path(), &["usage", "--all", "--by", "model", "--json"]);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let cost = |k: &str| {
        v["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["key"] == k)
            .expect(k)["estimatedCostUsd"]
            .as_f64()
            .unwrap()
    };
    assert!((cost("claude-sonnet-4-5") - 1.0).abs() < 1e-12, "{v}");
    assert!((cost("claude-haiku-4-5") - 0.25).abs() < 1e-12, "{v}");
    assert!(
        (v["total"]["estimatedCostUsd"].as_f64().unwrap() - 1.25).abs() < 1e-12,
        "{v}"
    );
    assert_eq!(v["total"]["costIsEstimate"], false, "{v}");
    for by in ["day", "session", "block", "month", "project"] {
        let o = claudio(d.path(), &["usage", "--all", "--by", by, "--json"]);
        let v: Value = serde_json::from_slice(&o.stdout).unwrap();
        let total = v["total"]["estimatedCostUsd"].as_f64().unwrap();
        assert!((total - 1.25).abs() < 1e-12, "--by {by}: {v}");
    }
}

/// `--until`, `--by week`, `--order`, `--timezone` and `--breakdown`
/// from the command line, as ccusage has them (#44.4).
#[test]
fn until_weeks_order_timezone_and_breakdown() {
    let d = fixture();
    let json = |args: &[&str]| -> Value {
        let o = claudio(d.path(), args);
        assert_eq!(o.status.code(), Some(0), "{o:?}");
        serde_json::from_slice(&o.stdout).unwrap()
    };
    let keys = |v: &Value| -> Vec<String> {
        v["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["key"].as_str().unwrap().to_owned())
            .collect()
    };
    // API messages on Sunday 2026-11-01 and Monday 2026-11-02 (UTC)
    let v = json(&["usage", "--all", "--until", "2026-11-01", "-o", "json"]);
    assert_eq!(keys(&v), ["2026-11-01"]);
    assert_eq!(v["total"]["output"], 100);
    assert_eq!(
        json(&["usage", "--all", "--until", "20261101", "-o", "json"]),
        v
    );
    let v = json(&["usage", "--all", "--by", "week", "-o", "json"]);
    assert_eq!(keys(&v), ["2026-10-26", "2026-11-02"]);
    assert_eq!(v["startOfWeek"], "monday");
    let v = json(&[
        "usage",
        "--all",
        "--by",
        "week",
        "--start-of-week",
        "sunday",
        "-o",
        "json",
    ]);
    assert_eq!(keys(&v), ["2026-11-01"]);
    let v = json(&["usage", "--all", "--order", "desc", "-o", "json"]);
    assert_eq!(keys(&v), ["2026-11-02", "2026-11-01"]);
    // the zone named, not TZ's (UTC here)
    let v = json(&[
        "usage",
        "--all",
        "--timezone",
        "Pacific/Kiritimati",
        "-o",
        "json",
    ]);
    assert_eq!(keys(&v), ["2026-11-02"]);
    let bad = claudio(
        d.path(),
        &["usage", "--all", "--timezone", "Nowhere/Atlantis"],
    );
    assert_eq!(bad.status.code(), Some(2), "{bad:?}");
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(err.contains("--timezone Nowhere/Atlantis"), "{err}");
    // a row's models, each with its cost
    let v = json(&["usage", "--all", "-o", "json"]);
    let second = &v["total"]["modelBreakdowns"];
    let models: Vec<&str> = second
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["model"].as_str().unwrap())
        .collect();
    assert_eq!(models, ["claude-opus-9-9", "claude-sonnet-4-5"], "{v}");
    assert_eq!(second[0]["estimatedCostUsd"], Value::Null);
    assert_eq!(second[1]["output"], 100, "{v}");
    assert_eq!(
        second[1]["estimatedCostUsd"],
        v["rows"][0]["estimatedCostUsd"]
    );
    let o = claudio(d.path(), &["usage", "--all", "--breakdown"]);
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(out.contains("  └ claude-opus-9-9"), "{out}");
    assert!(out.contains("  └ claude-sonnet-4-5"), "{out}");
}

/// A model the table lacks is priced at the config file's `[prices]`; a
/// bad price is an error naming the file's line.
#[test]
fn config_prices_price_a_model_the_table_lacks() {
    let d = fixture();
    let config = d.path().join("config.toml");
    std::fs::write(
        &config,
        "[prices.\"claude-opus-9-9\"]\ninput = 10\noutput = 50\ncache-read = 1\n",
    )
    .unwrap();
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_claudio"))
            .args(["sessions", "--config-dir"])
            .arg(d.path())
            .args(args)
            .env("NO_COLOR", "1")
            .env("TZ", "UTC")
            .env("CLAUDIO_CONFIG", &config)
            .envs(own_cache(d.path()))
            .output()
            .unwrap()
    };
    let o = run(&["usage", "--all", "--by", "model", "-o", "json"]);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["unpricedModels"], json!([]), "{v}");
    let opus = v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["key"] == "claude-opus-9-9")
        .unwrap();
    // 1000 in, 50 out, 200 5-minute cache writes (1.25 × input), 3000 read
    let want = (1000.0 * 10.0 + 50.0 * 50.0 + 200.0 * 12.5 + 3000.0 * 1.0) / 1e6;
    let got = opus["estimatedCostUsd"].as_f64().unwrap();
    assert!((got - want).abs() < 1e-12, "{opus}");
    assert_eq!(opus["costIsEstimate"], true);
    assert_eq!(v["total"]["costIsPartial"], false);
    std::fs::write(
        &config,
        "[prices.\"claude-opus-9-9\"]\ninput = 10\noutput = -50\n",
    )
    .unwrap();
    let o = run(&["usage", "--all"]);
    assert_ne!(o.status.code(), Some(0), "{o:?}");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("line 3") && err.contains("USD per million tokens"),
        "{err}"
    );
}

/// An answer a wrong clock dated 2099 just before a `cost-state`, then a
/// later answer and the CLI's running total: the total is the session's
/// cost, the 2099 answer inside it once (it was priced again on top).
#[test]
fn a_2099_answer_before_a_cost_state_counts_once() {
    let d = tempfile::tempdir().unwrap();
    let cost = |usd: f64| {
        json!({"type":"cost-state","sessionId":FIRST,"totalCostUSD":usd,"hasUnknownModelCost":false,
            "modelUsage":{"claude-sonnet-4-5":{"inputTokens":3000,"outputTokens":30,"costUSD":usd}}})
        .to_string()
    };
    let lines = [
        prompt(FIRST, "go on", "2026-11-01T09:59:00.000Z"),
        assistant(
            FIRST,
            "m1",
            "r1",
            "claude-sonnet-4-5",
            10,
            "2026-11-01T10:00:00.000Z",
        ),
        assistant(
            FIRST,
            "m2",
            "r2",
            "claude-sonnet-4-5",
            10,
            "2099-01-01T00:00:00.000Z",
        ),
        cost(0.2),
        assistant(
            FIRST,
            "m3",
            "r3",
            "claude-sonnet-4-5",
            10,
            "2026-11-01T11:00:00.000Z",
        ),
        cost(0.3),
    ];
    write(d.path(), FIRST, &lines, 1_790_000_000);
    for by in ["day", "session", "model"] {
        let o = claudio(d.path(), &["usage", "--all", "--by", by, "-o", "json"]);
        assert_eq!(o.status.code(), Some(0), "{o:?}");
        let v: Value = serde_json::from_slice(&o.stdout).unwrap();
        let total = v["total"]["estimatedCostUsd"].as_f64().unwrap();
        assert!((total - 0.3).abs() < 1e-12, "--by {by}: {v}");
    }
    // list -l says the same
    let o = claudio(d.path(), &["list", "--all", "-o", "json", "-l"]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let total = v[0]["estimatedCostUsd"].as_f64().unwrap();
    assert!((total - 0.3).abs() < 1e-12, "{v}");
}

/// `-n 1` prices the newest session, which has no `cost-state`, at the
/// unit price an older one's teaches: the sessions `-n` leaves out still
/// teach prices (they taught none, and the model had no price at all).
#[test]
fn unit_prices_are_learnt_from_sessions_n_leaves_out() {
    let d = tempfile::tempdir().unwrap();
    let older = [
        prompt(FIRST, "go", "2026-11-01T09:59:00.000Z"),
        assistant(FIRST, "m1", "r1", "claude-opus-9-9", 10, "2026-11-01T10:00:00.000Z"),
        json!({"type":"cost-state","sessionId":FIRST,"totalCostUSD":0.5,"hasUnknownModelCost":false,
            "modelUsage":{"claude-opus-9-9":{"inputTokens":1000,"outputTokens":10,
                "cacheCreationInputTokens":200,"cacheReadInputTokens":3000,"costUSD":0.5}}})
        .to_string(),
    ];
    write(d.path(), FIRST, &older, 1_790_000_000);
    let newer = [
        prompt(RESUMED, "again", "2026-11-02T09:59:00.000Z"),
        assistant(
            RESUMED,
            "m2",
            "r2",
            "claude-opus-9-9",
            10,
            "2026-11-02T10:00:00.000Z",
        ),
    ];
    write(d.path(), RESUMED, &newer, 1_790_100_000);
    let o = claudio(d.path(), &["usage", "--all", "-n", "1", "-o", "json"]);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    // the same tokens as the older session: the same cost
    let cost = v["total"]["estimatedCostUsd"].as_f64().unwrap_or(-1.0);
    assert!((cost - 0.5).abs() < 1e-9, "{v}");
    assert_eq!(v["unpricedModels"], json!([]), "{v}");
}
