//! `sessions usage` against a recount of its own (#44, "done when"): a
//! generated store with every shape the CLI writes (a response streamed as
//! one line per content block, across midnight and across a 5-hour
//! window's edge; a resumed session's file repeating what it continues;
//! sub-agents; lines without a `requestId`; 1-hour cache writes; the CLI's
//! made-up `<synthetic>` messages; `cost-state` lines; a sidechain's
//! summary), counted here from serde_json's reading of every line by the
//! rules as they are stated, not by claudio's code:
//!
//! - an API message is its `message.id` and `requestId`; within a file its
//!   last line's counts win and its first line's time dates it;
//! - across files, sessions oldest first (by when each was last written),
//!   a session's own transcript before its sub-agents': each message counts
//!   once, a later copy only for what it adds;
//! - days and months are UTC's (TZ=UTC); a 5-hour window starts at the
//!   hour of the first message after the last window, and takes every
//!   message within 5 hours of its start and of the message before.
//!
//! Every `--by` (day, month, model, session, block) and the total are
//! compared, token kind by token kind, and the API requests of each window.
//! And the status line says of today and of the open 5-hour window what the
//! report says of them, on a store of the last 30 hours.

use serde_json::{json, Value};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::time::{Duration, UNIX_EPOCH};

const H: i64 = 3_600_000;
const WINDOW: i64 = 5 * H;

/// The models the stores' responses name: three with prices, one without.
const MODELS: [&str; 4] = [
    "claude-sonnet-4-5-20250929",
    "claude-opus-4-5-20251101",
    "claude-haiku-4-5-20251001",
    "claude-fable-9-9",
];

/// Counts of one kind each: input, output, cache writes, cache reads.
type Counts = [u64; 4];

struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

fn iso(ms: i64) -> String {
    claudio::store::format_iso_millis(ms)
}

/// One transcript line of an API response's content block.
#[allow(clippy::too_many_arguments)]
fn response_line(
    session: &str,
    id: &str,
    req: Option<&str>,
    model: &str,
    c: Counts,
    one_hour: Option<u64>,
    at: i64,
    sidechain: bool,
) -> String {
    let mut usage = json!({"input_tokens": c[0], "output_tokens": c[1],
        "cache_creation_input_tokens": c[2], "cache_read_input_tokens": c[3],
        "service_tier": "standard"});
    if let Some(h) = one_hour {
        usage["cache_creation"] = json!({"ephemeral_5m_input_tokens": c[2] - h,
            "ephemeral_1h_input_tokens": h});
    }
    let mut line = json!({"parentUuid": null, "isSidechain": sidechain, "type": "assistant",
        "sessionId": session, "timestamp": iso(at), "uuid": format!("{id}-{at}"),
        "cwd": "/work/shop", "version": "2.1.332",
        "message": {"id": id, "type": "message", "role": "assistant", "model": model,
            "content": [{"type": "text", "text": "ok"}], "stop_reason": null, "usage": usage}});
    if let Some(req) = req {
        line["requestId"] = json!(req);
    }
    line.to_string()
}

/// A generated store: its folder, and the lines of each file in the order
/// the recount takes them (sessions oldest first, each session's own
/// transcript then its sub-agents').
struct Generated {
    dir: tempfile::TempDir,
    /// (session id, the file's lines)
    files: Vec<(String, Vec<String>)>,
}

fn generate(seed: u64) -> Generated {
    let dir = tempfile::tempdir().unwrap();
    let mut r = Rng(seed | 1);
    let models = MODELS;
    // 2026-11-01T00:00:00Z
    let day0 = 1_761_955_200_000i64;
    // each session: its id, and its files with their lines
    let mut sessions: Vec<(String, Files)> = Vec::new();
    for s in 0..14u64 {
        let id = format!("{:08x}-0000-4000-8000-{:012x}", seed as u32, s);
        let project = format!("-work-p{}", s % 3);
        let mut lines = Vec::new();
        // most sessions start near a day's or a window's edge
        let mut at = day0 + (r.below(20) as i64) * 24 * H - 2 * 60_000 + r.below(8) as i64 * H;
        lines.push(
            json!({"type": "user", "sessionId": id, "timestamp": iso(at), "cwd": "/work/shop",
                "uuid": format!("u-{id}"), "message": {"role": "user", "content": "go"}})
            .to_string(),
        );
        for m in 0..(2 + r.below(9)) {
            at += match r.below(8) {
                0 => 5 * H + r.below(2) as i64 * 1000, // past a window (or at its edge)
                1 => 2 * H + r.below(H as u64) as i64,
                // a second before midnight, or before an hour (where a
                // window may end): its blocks' lines span it
                2 => (at / (24 * H) + 1) * 24 * H - 1000 - at,
                3 => (at / H + 1) * H - 1000 - at,
                _ => r.below(90_000) as i64 + 500,
            };
            let msg = format!("msg_{s}_{m}");
            let req = (r.below(5) != 0).then(|| format!("req_{s}_{m}"));
            let model = models[r.below(models.len() as u64) as usize];
            let mut c = [
                r.below(4000),
                1 + r.below(50),
                r.below(3000),
                r.below(60_000),
            ];
            let one_hour = (r.below(3) == 0).then(|| r.below(c[2] + 1));
            // streamed: a line per content block, the output growing and
            // the last line's counts the message's (sometimes the blocks
            // span midnight or a window's edge: 1.5 s apart)
            let blocks = 1 + r.below(3);
            for b in 0..blocks {
                if b > 0 {
                    c[1] += 1 + r.below(400);
                }
                let t = at + b as i64 * 1500;
                lines.push(response_line(
                    &id,
                    &msg,
                    req.as_deref(),
                    model,
                    c,
                    one_hour,
                    t,
                    false,
                ));
            }
            at += (blocks as i64 - 1) * 1500;
            // the CLI's own made-up message, and a summary line
            if r.below(8) == 0 {
                lines.push(response_line(
                    &id,
                    &format!("syn_{s}_{m}"),
                    Some("syn"),
                    "<synthetic>",
                    [7, 7, 7, 7],
                    None,
                    at + 1,
                    false,
                ));
                lines.push(
                    json!({"type": "summary", "summary": "a summary", "leafUuid": "x"}).to_string(),
                );
            }
        }
        if r.below(3) == 0 {
            lines.push(
                json!({"type": "cost-state", "sessionId": id, "totalCostUSD": 0.5,
                    "hasUnknownModelCost": false, "modelUsage": {models[0]:
                        {"inputTokens": 1, "outputTokens": 1, "costUSD": 0.5}}})
                .to_string(),
            );
        }
        let mut files = Vec::new();
        // sub-agents, with messages of their own
        if r.below(3) == 0 {
            for a in 0..(1 + r.below(2)) {
                let mut agent = Vec::new();
                let mut t = at - r.below(H as u64) as i64;
                for m in 0..(1 + r.below(4)) {
                    t += 1000 + r.below(60_000) as i64;
                    let c = [r.below(3000), 1 + r.below(900), r.below(500), r.below(9000)];
                    agent.push(response_line(
                        &id,
                        &format!("agent_{s}_{a}_{m}"),
                        Some(&format!("areq_{s}_{a}_{m}")),
                        models[2],
                        c,
                        None,
                        t,
                        true,
                    ));
                }
                let path = dir.path().join(format!(
                    "projects/{project}/{id}/subagents/agent-a{a}.jsonl"
                ));
                files.push((path, agent));
            }
        }
        let path = dir.path().join(format!("projects/{project}/{id}.jsonl"));
        files.insert(0, (path, lines.clone()));
        sessions.push((id.clone(), files));
        // resumed: a new session's file repeating this one's lines (its
        // first K), then going on
        if r.below(3) == 0 {
            let again = format!("{:08x}-0000-4000-8000-{:012x}", seed as u32, 100 + s);
            let k = 1 + r.below(lines.len() as u64) as usize;
            let mut more: Vec<String> = lines[..k].to_vec();
            for m in 0..(1 + r.below(3)) {
                at += r.below(3 * H as u64) as i64 + 1000;
                more.push(response_line(
                    &again,
                    &format!("msg_r{s}_{m}"),
                    Some(&format!("req_r{s}_{m}")),
                    models[0],
                    [
                        r.below(4000),
                        1 + r.below(500),
                        r.below(3000),
                        r.below(60_000),
                    ],
                    None,
                    at,
                    false,
                ));
            }
            let path = dir.path().join(format!("projects/{project}/{again}.jsonl"));
            sessions.push((again, vec![(path, more)]));
        }
    }
    // last written in an order of their own, not the order made
    let order: Vec<usize> = {
        let mut o: Vec<(u64, usize)> = (0..sessions.len()).map(|i| (r.below(1 << 40), i)).collect();
        o.sort();
        o.into_iter().map(|(_, i)| i).collect()
    };
    let mut out = Vec::new();
    let mut by_time: Vec<(i64, usize)> = Vec::new();
    for (rank, &i) in order.iter().enumerate() {
        let files = &sessions[i].1;
        let secs = 1_790_000_000 + rank as u64 * 97;
        for (path, lines) in files {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, lines.join("\n") + "\n").unwrap();
            let f = std::fs::File::options().write(true).open(path).unwrap();
            f.set_modified(UNIX_EPOCH + Duration::from_secs(secs))
                .unwrap();
        }
        by_time.push((secs as i64, i));
    }
    by_time.sort();
    for (_, i) in by_time {
        let (id, files) = &sessions[i];
        for (_, lines) in files {
            out.push((id.clone(), lines.clone()));
        }
    }
    Generated { dir, files: out }
}

/// A session's files (its transcript first, then its sub-agents'), each
/// with its lines.
type Files = Vec<(PathBuf, Vec<String>)>;

/// One counted addition: when, model, session, the counts it adds.
struct Added {
    at: i64,
    model: String,
    session: String,
    counts: Counts,
}

/// The recount: what each file's messages add, in the order the rules say.
fn recount(g: &Generated) -> Vec<Added> {
    let mut seen: HashMap<(String, String), Counts> = HashMap::new();
    let mut out = Vec::new();
    for (session, lines) in &g.files {
        // within the file: each message once, its first line's time, its
        // last line's counts and model
        let mut order: Vec<(String, String)> = Vec::new();
        let mut msgs: HashMap<(String, String), (i64, String, Counts)> = HashMap::new();
        for line in lines {
            let v: Value = serde_json::from_str(line).unwrap();
            if v["type"] != "assistant" {
                continue;
            }
            let m = &v["message"];
            let model = m["model"].as_str().unwrap().to_owned();
            if model == "<synthetic>" {
                continue;
            }
            let key = (
                m["id"].as_str().unwrap_or("").to_owned(),
                v["requestId"].as_str().unwrap_or("").to_owned(),
            );
            let u = &m["usage"];
            let n = |k: &str| u[k].as_u64().unwrap_or(0);
            let c = [
                n("input_tokens"),
                n("output_tokens"),
                n("cache_creation_input_tokens"),
                n("cache_read_input_tokens"),
            ];
            let at = claudio::store::parse_iso_millis(v["timestamp"].as_str().unwrap()).unwrap();
            match msgs.get_mut(&key) {
                Some(e) => {
                    e.1 = model;
                    e.2 = c;
                }
                None => {
                    order.push(key.clone());
                    msgs.insert(key, (at, model, c));
                }
            }
        }
        for key in order {
            let (at, model, c) = msgs.remove(&key).unwrap();
            let old = seen.insert(key, c).unwrap_or_default();
            let add: Counts = std::array::from_fn(|i| c[i].saturating_sub(old[i]));
            if add.iter().sum::<u64>() == 0 {
                continue;
            }
            out.push(Added {
                at,
                model,
                session: session.clone(),
                counts: add,
            });
        }
    }
    out
}

fn sum(into: &mut Counts, c: &Counts) {
    for i in 0..4 {
        into[i] += c[i];
    }
}

/// The recount's rows for `by`: key → (counts, requests).
fn rows(added: &[Added], by: &str) -> BTreeMap<String, (Counts, u64)> {
    let mut out: BTreeMap<String, (Counts, u64)> = BTreeMap::new();
    if by == "block" {
        let mut all: Vec<&Added> = added.iter().collect();
        all.sort_by_key(|a| a.at);
        let (mut start, mut last) = (i64::MIN, i64::MIN);
        for a in all {
            if start == i64::MIN || a.at - start > WINDOW || a.at - last > WINDOW {
                start = a.at.div_euclid(H) * H;
            }
            last = a.at;
            let e = out.entry(iso(start)).or_default();
            sum(&mut e.0, &a.counts);
            e.1 += 1;
        }
        return out;
    }
    for a in added {
        let day = iso(a.at)[..10].to_owned();
        let key = match by {
            "day" => day,
            "month" => day[..7].to_owned(),
            "model" => a.model.clone(),
            "session" => a.session.clone(),
            _ => unreachable!(),
        };
        let e = out.entry(key).or_default();
        sum(&mut e.0, &a.counts);
        e.1 += 1;
    }
    out
}

fn usage(d: &Path, by: &str) -> Value {
    let out = crate::common::sessions_in(d, &["usage", "--all", "--by", by, "--json"]);
    serde_json::from_slice(&out).unwrap()
}

fn counts(row: &Value) -> Counts {
    ["input", "output", "cacheWrite", "cacheRead"].map(|k| row[k].as_u64().unwrap())
}

#[test]
fn usage_by_every_view_equals_a_recount_of_every_line() {
    for seed in [0x5eed_0001u64, 0x5eed_0002, 0x5eed_0003, 0x00c0_ffee] {
        let g = generate(seed);
        let added = recount(&g);
        assert!(added.len() > 30, "seed {seed:#x}: a store too small");
        let mut total = [0; 4];
        for a in &added {
            sum(&mut total, &a.counts);
        }
        // twice: the first run builds the usage index, the second reads it
        for run in ["first", "indexed"] {
            for by in ["day", "month", "model", "session", "block"] {
                let v = usage(g.dir.path(), by);
                let what = format!("seed {seed:#x}, --by {by}, {run} run");
                assert_eq!(counts(&v["total"]), total, "{what}: the total");
                let want = rows(&added, by);
                let mut got: BTreeMap<String, (Counts, u64)> = BTreeMap::new();
                for row in v["rows"].as_array().unwrap() {
                    let c = counts(row);
                    // a model only a cost-state names: a cost, no tokens
                    if c == [0; 4] {
                        continue;
                    }
                    let key = if by == "block" {
                        row["start"].as_str().unwrap().to_owned()
                    } else {
                        row["key"].as_str().unwrap().to_owned()
                    };
                    let requests = row["apiRequests"].as_u64().unwrap_or(0);
                    assert!(
                        got.insert(key, (c, requests)).is_none(),
                        "{what}: a row twice"
                    );
                }
                if by != "block" {
                    // only windows say how many requests they hold
                    for r in got.values_mut() {
                        r.1 = 0;
                    }
                    let want: BTreeMap<_, _> =
                        want.into_iter().map(|(k, (c, _))| (k, (c, 0))).collect();
                    assert_eq!(got, want, "{what}");
                } else {
                    let got: BTreeMap<String, (Counts, u64)> = got
                        .into_iter()
                        .map(|(k, v)| {
                            let ms = claudio::store::parse_iso_millis(&k).unwrap();
                            (iso(ms), v)
                        })
                        .collect();
                    assert_eq!(got, want, "{what}");
                }
            }
        }
    }
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

/// A store of sessions over the last 30 hours, to `now`: streamed
/// responses, a resumed file, an unpriced model in some; each file last
/// written at its last line. Its folder and one transcript.
fn recent_store(seed: u64, now: i64) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let mut r = Rng(seed | 1);
    let models = MODELS;
    let mut last_path = None;
    for s in 0..10u64 {
        let id = format!("{:08x}-0000-4000-8000-{:012x}", seed as u32, s);
        let mut at = now - 30 * H + (r.below(28 * H as u64) as i64);
        let mut lines = Vec::new();
        let mut m = 0;
        // the last of them unpriced now and then
        let priced = if r.below(4) == 0 { 4 } else { 3 };
        while at < now - 120_000 && m < 40 {
            // none within a minute of 5 hours ago: a window whose last
            // message is 5 hours old closes then, between the two runs
            if (at - (now - WINDOW)).abs() < 60_000 {
                at += 120_000;
                continue;
            }
            let msg = format!("msg_{s}_{m}");
            let req = format!("req_{s}_{m}");
            let model = models[r.below(priced) as usize];
            let mut c = [
                r.below(40_000),
                1 + r.below(3000),
                r.below(30_000),
                r.below(200_000),
            ];
            for b in 0..(1 + r.below(3)) {
                if b > 0 {
                    c[1] += 1 + r.below(400);
                }
                lines.push(response_line(
                    &id,
                    &msg,
                    Some(&req),
                    model,
                    c,
                    None,
                    at,
                    false,
                ));
                at += 1500;
            }
            at += 30_000 + r.below(50 * 60_000) as i64;
            m += 1;
        }
        // the CLI's own figures, now and then: its costs per model,
        // and a side request no response carries
        if s % 3 == 0 && !lines.is_empty() {
            let mut per: serde_json::Map<String, Value> = serde_json::Map::new();
            let mut total = 0.0;
            for l in &lines {
                let v: Value = serde_json::from_str(l).unwrap();
                let model = v["message"]["model"].as_str().unwrap().to_owned();
                let u = &v["message"]["usage"];
                let e = per.entry(model).or_insert_with(|| {
                    json!({"inputTokens": 0, "outputTokens": 0, "cacheReadInputTokens": 0,
                        "cacheCreationInputTokens": 0, "costUSD": 0.0})
                });
                let add = |e: &mut Value, k: &str, n: u64| {
                    e[k] = json!(e[k].as_u64().unwrap() + n);
                };
                add(e, "inputTokens", u["input_tokens"].as_u64().unwrap());
                add(e, "outputTokens", u["output_tokens"].as_u64().unwrap());
                let usd = e["costUSD"].as_f64().unwrap() + 0.01;
                e["costUSD"] = json!(usd);
                total += 0.01;
            }
            per.insert(
                "claude-haiku-4-5-20251001".into(),
                json!({"inputTokens": 900, "outputTokens": 20, "cacheReadInputTokens": 0,
                    "cacheCreationInputTokens": 0, "costUSD": 0.25}),
            );
            total += 0.25;
            lines.push(
                json!({"type": "cost-state", "sessionId": id, "totalCostUSD": total,
                    "hasUnknownModelCost": false, "modelUsage": per})
                .to_string(),
            );
        }
        let last = lines
            .iter()
            .rev()
            .find(|l| l.contains("\"assistant\""))
            .map(|l| {
                let v: Value = serde_json::from_str(l).unwrap();
                claudio::store::parse_iso_millis(v["timestamp"].as_str().unwrap()).unwrap()
            })
            .unwrap_or(now - 31 * H);
        let write = |name: &str, lines: &[String]| {
            let p = dir.path().join(format!("projects/-work-shop/{name}.jsonl"));
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, lines.join("\n") + "\n").unwrap();
            let f = std::fs::File::options().write(true).open(&p).unwrap();
            f.set_modified(UNIX_EPOCH + Duration::from_millis(last as u64))
                .unwrap();
            p
        };
        last_path = Some(write(&id, &lines));
        // resumed: a second file repeating the first half
        if s % 4 == 1 && lines.len() > 1 {
            let again = format!("{:08x}-0000-4000-8000-{:012x}", seed as u32, 100 + s);
            write(&again, &lines[..lines.len() / 2]);
        }
    }
    (dir, last_path.unwrap())
}

/// What `$1.23` or `$1.23+` says: the dollars, and whether it is a lower
/// bound.
fn dollars(s: &str) -> (f64, bool) {
    let s = s
        .strip_prefix('$')
        .unwrap_or_else(|| panic!("not a cost: {s:?}"));
    match s.strip_suffix('+') {
        Some(s) => (s.parse().unwrap(), true),
        None => (s.parse().unwrap(), false),
    }
}

/// The status line's cost today and its open 5-hour window's cost are
/// what `sessions usage` says of today's row and of the open window, on
/// the same store at the same time (an hour that changes under the test,
/// so today or a window's end may have, runs it again).
#[test]
fn the_status_line_s_today_and_window_are_the_usage_report_s() {
    let (mut costed, mut open_seen) = (0, 0);
    for seed in [0x51a7_0001u64, 0x51a7_0011, 0x51a7_0101, 0x51a7_1001] {
        loop {
            let now = now_ms();
            let hour = now.div_euclid(H);
            let (d, transcript) = recent_store(seed, now);
            let input = json!({"hook_event_name": "Status", "session_id": "x",
                "transcript_path": transcript, "cwd": d.path(),
                "model": {"id": "claude-sonnet-4-5-20250929", "display_name": "Sonnet 4.5"},
                "workspace": {"current_dir": d.path(), "project_dir": d.path()},
                "cost": {"total_cost_usd": 1.0}});
            let mut line = crate::common::over_store(env!("CARGO_BIN_EXE_claudio"), d.path());
            line.args(["statusline", "--format", "{today_cost}|{block_cost}|"]);
            let o = crate::common::run(line, Some(input.to_string().as_bytes()));
            assert!(o.status.success(), "{o:?}");
            let by_day = usage(d.path(), "day");
            let by_block = usage(d.path(), "block");
            if now_ms().div_euclid(H) != hour {
                // today, or a window's end, may have moved under the test
                continue;
            }
            let out = String::from_utf8(o.stdout).unwrap();
            let parts: Vec<&str> = out.trim_end().split('|').collect();
            let what = format!("seed {seed:#x}: {out:?}");
            let today = iso(now)[..10].to_owned();
            let row = by_day["rows"]
                .as_array()
                .unwrap()
                .iter()
                .find(|r| r["key"] == today.as_str());
            let want = row.map_or((0.0, false), |r| {
                (
                    r["estimatedCostUsd"].as_f64().unwrap_or(0.0),
                    r["costIsPartial"].as_bool().unwrap(),
                )
            });
            let got = dollars(parts[0]);
            costed += usize::from(got.0 > 0.0);
            assert!(
                (got.0 - want.0).abs() <= 0.005 + 1e-9 && got.1 == want.1,
                "{what}: today {got:?}, the report's {want:?}"
            );
            let open = by_block["rows"]
                .as_array()
                .unwrap()
                .iter()
                .find(|r| r["active"] == true);
            match open {
                None => assert_eq!(parts[1], "", "{what}: no window is open"),
                Some(r) => {
                    open_seen += 1;
                    let want = (
                        r["estimatedCostUsd"].as_f64().unwrap_or(0.0),
                        r["costIsPartial"].as_bool().unwrap(),
                    );
                    let got = dollars(parts[1]);
                    assert!(
                        (got.0 - want.0).abs() <= 0.005 + 1e-9 && got.1 == want.1,
                        "{what}: the window {got:?}, the report's {want:?}"
                    );
                }
            }
            break;
        }
    }
    // the stores are what the test is about: costs today, open windows
    assert!(costed >= 3 && open_seen >= 2, "{costed} {open_seen}");
}
