//! Unit tests of `sessions usage`.

use super::super::testing::{cfg, run_args, A};
use super::*;

/// A store with API messages at these times (the tests' `now` is
/// 2027-01-15T08:00:00Z), 600 input tokens each, priced as sonnet.
fn timed_store(times: &[&str]) -> tempfile::TempDir {
    crate::cli::commands::sessions::testing::own_cache();
    let d = tempfile::tempdir().unwrap();
    let folder = d.path().join("projects/-work-proj");
    std::fs::create_dir_all(&folder).unwrap();
    let lines: Vec<String> = times
        .iter()
        .enumerate()
        .map(|(i, ts)| {
            serde_json::json!({"type":"assistant","requestId":format!("r{i}"),"timestamp":ts,
                "cwd":"/work/proj","message":{"id":format!("m{i}"),"model":"claude-sonnet-4-5",
                "usage":{"input_tokens":600,"output_tokens":0}}})
            .to_string()
        })
        .collect();
    std::fs::write(folder.join(format!("{A}.jsonl")), lines.join("\n")).unwrap();
    d
}

#[test]
fn by_block_windows_and_the_open_one_s_rate_and_projection() {
    let d = timed_store(&[
        // a closed window: 22:00-03:00 UTC
        "2027-01-14T22:10:00.000Z",
        "2027-01-14T23:00:00.000Z",
        // the open one: 06:00-11:00, 1,200 tokens in the hour from
        // 06:30 to 07:30, three hours left at 08:00
        "2027-01-15T06:30:00.000Z",
        "2027-01-15T07:30:00.000Z",
    ]);
    let args = ["--config-dir", &cfg(&d), "usage", "--all", "--by", "block"];
    let r = run_args(
        &[&args[..], &["--json"]].concat(),
        "/nonexistent".as_ref(),
        "/".as_ref(),
    );
    r.outcome.unwrap();
    let v: serde_json::Value = serde_json::from_str(&r.out.text()).unwrap();
    assert_eq!(v["by"], "block");
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2, "{v}");
    assert_eq!(rows[0]["start"], "2027-01-14T22:00:00.000Z");
    assert_eq!(rows[0]["end"], "2027-01-15T03:00:00.000Z");
    assert_eq!(rows[0]["active"], false);
    assert!(rows[0].get("projected").is_none());
    let open = &rows[1];
    assert_eq!(open["start"], "2027-01-15T06:00:00.000Z");
    assert_eq!(open["firstMessage"], "2027-01-15T06:30:00.000Z");
    assert_eq!(
        (open["active"].as_bool(), open["apiRequests"].as_u64()),
        (Some(true), Some(2))
    );
    assert_eq!(open["input"], 1200);
    assert_eq!(open["burnRate"]["tokensPerMinute"], 20.0);
    // 1,200 tokens an hour at $3 per million
    let per_hour = open["burnRate"]["costPerHour"].as_f64().unwrap();
    assert!((per_hour - 0.0036).abs() < 1e-12, "{open}");
    // at that rate for the three hours left: four times as much
    assert_eq!(open["projected"]["tokens"], 4800);
    assert_eq!(open["projected"]["remainingMinutes"], 180);
    let cost = open["projected"]["estimatedCostUsd"].as_f64().unwrap();
    assert!((cost - 0.0144).abs() < 1e-12, "{open}");
    assert_eq!(v["total"]["input"], 2400);

    let r = run_args(&args, "/nonexistent".as_ref(), "/".as_ref());
    r.outcome.unwrap();
    let out = r.out.text();
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines[2].contains("(open)") && !lines[1].contains("(open)"),
        "{out}"
    );
    let note = lines
        .iter()
        .find(|l| l.starts_with("open window"))
        .expect(&out);
    assert!(note.contains("3h00 left"), "{out}");
    assert!(note.contains("burning 20 tokens/min ($0.00/h)"), "{out}");
    assert!(note.contains(": 4.8k tokens, $0.01"), "{out}");
    // with no rate yet: said so
    let d = timed_store(&["2027-01-15T07:30:00.000Z"]);
    let r = run_args(
        &["--config-dir", &cfg(&d), "usage", "--all", "--by", "block"],
        "/nonexistent".as_ref(),
        "/".as_ref(),
    );
    r.outcome.unwrap();
    assert!(
        r.out.text().contains("no burn rate yet"),
        "{}",
        r.out.text()
    );
}

/// A message dated 2099 is listed in a window and a day of its own, and
/// that window is never the open one (it was, found by the fourth attack
/// round).
#[test]
fn a_window_dated_in_the_future_is_listed_but_never_open() {
    let d = timed_store(&["2027-01-15T07:30:00.000Z", "2099-01-01T00:10:00.000Z"]);
    let args = ["--config-dir", &cfg(&d), "usage", "--all", "--by", "block"];
    let r = run_args(
        &[&args[..], &["--json"]].concat(),
        "/nonexistent".as_ref(),
        "/".as_ref(),
    );
    r.outcome.unwrap();
    let v: serde_json::Value = serde_json::from_str(&r.out.text()).unwrap();
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2, "{v}");
    assert_eq!(rows[0]["active"], true, "{v}");
    assert_eq!(rows[1]["start"], "2099-01-01T00:00:00.000Z");
    assert_eq!(rows[1]["active"], false, "{v}");
    assert!(rows[1].get("projected").is_none(), "{v}");
    let r = run_args(&args, "/nonexistent".as_ref(), "/".as_ref());
    r.outcome.unwrap();
    let out = r.out.text();
    let open: Vec<&str> = out.lines().filter(|l| l.contains("(open)")).collect();
    assert_eq!(open.len(), 1, "{out}");
    assert!(!open[0].contains("2099"), "{out}");
    assert!(!out.contains("631"), "no window of decades: {out}");
    // by day: in a day of its own
    let r = run_args(
        &["--config-dir", &cfg(&d), "usage", "--all", "--json"],
        "/nonexistent".as_ref(),
        "/".as_ref(),
    );
    r.outcome.unwrap();
    assert!(r.out.text().contains("2099-01-01"), "{}", r.out.text());
}

#[test]
fn short_counts() {
    assert_eq!(short(950), "950");
    assert_eq!(short(1234), "1.2k");
    assert_eq!(short(41_000), "41k");
    assert_eq!(short(4_100_000), "4.1M");
    assert_eq!(cost_text(1.234, false, true), "$1.23");
    assert_eq!(cost_text(1.234, true, true), "$1.23+");
    assert_eq!(cost_text(0.0, true, false), "—");
}

/// A week is keyed by its first day: Monday unless asked otherwise.
#[test]
fn weeks_start_on_monday_or_the_day_asked() {
    let c = Clock::new(Some("UTC")).unwrap();
    let wed = claudio::store::parse_iso_millis("2026-11-04T10:00:00Z").unwrap();
    assert_eq!(c.week(wed, WeekStart::Monday), "2026-11-02");
    assert_eq!(c.week(wed, WeekStart::Sunday), "2026-11-01");
    assert_eq!(c.week(wed, WeekStart::Wednesday), "2026-11-04");
    assert_eq!(c.week(wed, WeekStart::Thursday), "2026-10-29");
    // a Sunday late in the evening in New York is Monday in UTC
    let late = claudio::store::parse_iso_millis("2026-11-09T02:00:00Z").unwrap();
    let ny = Clock::new(Some("America/New_York")).unwrap();
    assert_eq!(ny.week(late, WeekStart::Monday), "2026-11-02");
    assert_eq!(c.week(late, WeekStart::Monday), "2026-11-09");
}

/// `--since` and `--until` dates are midnights of the `--timezone` zone
/// (UTC without one); `--until` a date takes in that whole day; a
/// zone no one knows is a usage error, not UTC.
#[test]
fn since_and_until_dates_are_the_zone_s_midnights() {
    let ms = |s: &str| claudio::store::parse_iso_millis(s).unwrap();
    let now = ms("2027-01-15T08:00:00Z");
    let tokyo = Clock::new(Some("Asia/Tokyo")).unwrap();
    assert_eq!(
        tokyo.bound("--since", "2026-11-01", now, false).unwrap(),
        ms("2026-10-31T15:00:00Z")
    );
    assert_eq!(
        tokyo.bound("--until", "20261101", now, true).unwrap(),
        ms("2026-11-01T15:00:00Z")
    );
    let local = Clock::new(None).unwrap();
    assert_eq!(
        local.bound("--until", "2026-11-01", now, true).unwrap(),
        ms("2026-11-02T00:00:00Z")
    );
    assert_eq!(
        local.bound("--until", "2d", now, true).unwrap(),
        ms("2027-01-13T08:00:00Z") + 1
    );
    let e = local.bound("--until", "soon", now, true).unwrap_err();
    assert!(e.to_string().contains("--until soon"), "{e}");
    assert!(local.bound("--until", "2026-02-30", now, true).is_err());
    for bad in ["Nowhere/Atlantis", "", "../../etc/passwd"] {
        let e = Clock::new(Some(bad)).err().expect(bad).to_string();
        assert!(
            e.contains("--timezone") && e.contains("no such time zone"),
            "{e}"
        );
    }
}

/// `--by week`, `--until`, `--order desc` and `--breakdown` in one store:
/// the rows, their order, and each row's models.
#[test]
fn weeks_until_order_and_the_breakdown() {
    let d = timed_store(&[
        "2026-11-01T10:00:00.000Z",
        "2026-11-04T10:00:00.000Z",
        "2026-11-10T10:00:00.000Z",
        "2026-11-20T10:00:00.000Z",
    ]);
    let dir = cfg(&d);
    let json = |extra: &[&str]| -> serde_json::Value {
        let mut args = vec!["--config-dir", &dir, "usage", "--all", "-o", "json"];
        args.extend_from_slice(extra);
        let r = run_args(&args, "/nonexistent".as_ref(), "/".as_ref());
        r.outcome.unwrap();
        serde_json::from_str(&r.out.text()).unwrap()
    };
    let keys = |v: &serde_json::Value| -> Vec<String> {
        v["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["key"].as_str().unwrap().to_owned())
            .collect()
    };
    let v = json(&["--by", "week", "--timezone", "UTC"]);
    assert_eq!(
        keys(&v),
        ["2026-10-26", "2026-11-02", "2026-11-09", "2026-11-16"]
    );
    assert_eq!(v["startOfWeek"], "monday");
    assert_eq!(v["timezone"], "UTC");
    let v = json(&[
        "--by",
        "week",
        "--timezone",
        "UTC",
        "--start-of-week",
        "sunday",
    ]);
    assert_eq!(keys(&v), ["2026-11-01", "2026-11-08", "2026-11-15"]);
    assert_eq!(v["rows"][0]["input"], 1200);
    // --until a date: through that day
    let v = json(&["--timezone", "UTC", "--until", "2026-11-10"]);
    assert_eq!(keys(&v), ["2026-11-01", "2026-11-04", "2026-11-10"]);
    let v = json(&[
        "--timezone",
        "UTC",
        "--since",
        "2026-11-02",
        "--until",
        "2026-11-09",
    ]);
    assert_eq!(keys(&v), ["2026-11-04"]);
    assert_eq!(v["total"]["input"], 600);
    // newest first
    let v = json(&["--timezone", "UTC", "--order", "desc"]);
    assert_eq!(
        keys(&v),
        ["2026-11-20", "2026-11-10", "2026-11-04", "2026-11-01"]
    );
    // each row, and the total, by model
    let b = &v["rows"][0]["modelBreakdowns"];
    assert_eq!(b.as_array().unwrap().len(), 1, "{v}");
    assert_eq!(b[0]["model"], "claude-sonnet-4-5");
    assert_eq!(b[0]["input"], 600);
    assert_eq!(b[0]["estimatedCostUsd"], v["rows"][0]["estimatedCostUsd"]);
    assert_eq!(v["total"]["modelBreakdowns"][0]["input"], 2400);
    // the table: a line under each row with --breakdown, none without
    let text = |extra: &[&str]| -> String {
        let mut args = vec!["--config-dir", &dir, "usage", "--all", "--by", "week"];
        args.extend_from_slice(extra);
        let r = run_args(&args, "/nonexistent".as_ref(), "/".as_ref());
        r.outcome.unwrap();
        r.out.text()
    };
    let plain = text(&["--timezone", "UTC"]);
    assert!(!plain.contains('└'), "{plain}");
    assert!(plain.contains("Weeks start on monday"), "{plain}");
    let broken = text(&["--timezone", "UTC", "--breakdown"]);
    assert_eq!(
        broken.matches("  └ claude-sonnet-4-5").count(),
        4,
        "{broken}"
    );
}

/// The document as releases before the serde types built it, with `json!`
/// and field mutation (kept here only as the oracle of
/// [`the_typed_document_is_the_old_one_byte_for_byte`]): the pretty
/// document, and the ndjson lines.
fn old_document(c: &Counted, a: &UsageArgs, now: i64) -> (String, Vec<String>) {
    let figures = |r: &Row| {
        let t = r.tokens();
        let (cost, some_unpriced) = r.cost();
        let priced = r.any_priced();
        serde_json::json!({
            "input": t.input, "output": t.output,
            "cacheWrite": t.cache_write, "cacheRead": t.cache_read,
            "estimatedCostUsd": (!a.no_cost && priced).then_some(cost),
            "costIsPartial": !a.no_cost && some_unpriced && priced,
            "costIsEstimate": !a.no_cost && priced && r.estimated(),
        })
    };
    let row_json = |key: &str, r: &Row| {
        let mut v = figures(r);
        v["key"] = serde_json::json!(key);
        v["models"] = serde_json::json!(r.models.keys().collect::<Vec<_>>());
        let by_model: Vec<serde_json::Value> = r
            .by_model()
            .map(|(m, r)| {
                let mut v = figures(&r);
                v["model"] = serde_json::json!(m);
                v
            })
            .collect();
        v["modelBreakdowns"] = serde_json::json!(by_model);
        v
    };
    let session_row = |k: &String, r: &Row| {
        let mut v = row_json(k, r);
        if let Some(t) = c.titles.get(k.as_str()) {
            v["title"] = serde_json::json!(t);
        }
        if a.by == By::Session && c.archived.contains(k.as_str()) {
            v["fromArchive"] = serde_json::json!(true);
        }
        if let Some(w) = c.window(k) {
            let iso = claudio::store::format_iso_millis;
            v["start"] = serde_json::json!(iso(w.start));
            v["end"] = serde_json::json!(iso(w.end));
            v["firstMessage"] = serde_json::json!(iso(w.first));
            v["lastMessage"] = serde_json::json!(iso(w.last));
            v["apiRequests"] = serde_json::json!(w.messages);
            v["active"] = serde_json::json!(w.active);
            if let Some(p) = Projection::of(w, r, now) {
                let priced = !a.no_cost && r.any_priced();
                v["burnRate"] = serde_json::json!({
                    "tokensPerMinute": p.tokens_per_minute,
                    "costPerHour": priced.then_some(p.cost_per_hour),
                });
                v["projected"] = serde_json::json!({
                    "tokens": p.tokens,
                    "estimatedCostUsd": priced.then_some(p.cost),
                    "remainingMinutes": p.minutes_left,
                });
            }
        }
        if let Some(agents) = c.agents.get(k.as_str()) {
            let list: Vec<serde_json::Value> = agents
                .iter()
                .map(|(agent, r)| {
                    let mut v = row_json(&agent.agent.agent_id, r);
                    v["agentId"] = serde_json::json!(agent.agent.agent_id);
                    v["description"] = serde_json::json!(agent.agent.description);
                    v["agentType"] = serde_json::json!(agent.agent.agent_type);
                    v
                })
                .collect();
            v["subagents"] = serde_json::json!(list);
        }
        v
    };
    let mut v = serde_json::json!({
        "by": format!("{:?}", a.by).to_lowercase(),
        "total": row_json("total", &c.total),
        "pricesDate": PRICES_DATE,
        "unpricedModels": c.unpriced,
    });
    if !c.archived.is_empty() {
        v["archivedSessions"] = serde_json::json!(c.archived.len());
    }
    if a.by == By::Week {
        v["startOfWeek"] = serde_json::json!(a.start_of_week.name());
    }
    if let Some(z) = &a.timezone {
        v["timezone"] = serde_json::json!(z);
    }
    let mut lines: Vec<String> = c
        .ordered()
        .map(|(k, r)| session_row(k, r).to_string())
        .collect();
    lines.push(v.to_string());
    v["rows"] = serde_json::json!(c
        .ordered()
        .map(|(k, r)| session_row(k, r))
        .collect::<Vec<_>>());
    (serde_json::to_string_pretty(&v).unwrap(), lines)
}

/// A store of many sessions over two folders: several models (one with no
/// price), cache tokens, sub-agents with and without a description, a
/// resumed file that repeats its parent's messages, a cost-state, and
/// messages spread over months and 5-hour windows up to `now`.
fn generated_store() -> tempfile::TempDir {
    crate::cli::commands::sessions::testing::own_cache();
    let d = tempfile::tempdir().unwrap();
    let models = [
        "claude-sonnet-4-5",
        "claude-opus-4-5",
        "claude-haiku-4-5",
        "no-such-model-x",
    ];
    // the tests' now: 2027-01-15T08:00:00Z
    let now = 1_800_000_000_000i64;
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = |n: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n
    };
    for (p, folder) in ["-work-one", "-work-two"].iter().enumerate() {
        let dir = d.path().join("projects").join(folder);
        std::fs::create_dir_all(&dir).unwrap();
        for s in 0..4 {
            let id = format!("{p:08}-{s:04}-4000-8000-000000000000");
            let mut lines = Vec::new();
            let mut at = now - (next(90 * 24) as i64) * 3_600_000;
            for i in 0..(3 + next(6)) {
                at = (at + next(4 * 3_600_000) as i64).min(now - 60_000);
                let ts = claudio::store::format_iso_millis(at);
                let model = models[next(models.len() as u64) as usize];
                lines.push(serde_json::json!({"type":"assistant","sessionId":id,
                    "cwd":format!("/work/{p}"),"requestId":format!("r{p}{s}{i}"),"timestamp":ts,
                    "message":{"id":format!("m{p}{s}{i}"),"model":model,"role":"assistant","content":[],
                    "usage":{"input_tokens":next(5000),"output_tokens":next(3000),
                        "cache_creation_input_tokens":next(900),"cache_read_input_tokens":next(20_000)}}})
                .to_string());
            }
            // the last session: two responses in the open window
            if s == 3 {
                for (i, back) in [(8, 3_000_000), (9, 1_200_000)] {
                    let ts = claudio::store::format_iso_millis(now - back);
                    lines.push(serde_json::json!({"type":"assistant","sessionId":id,
                        "requestId":format!("r{p}{s}{i}"),"timestamp":ts,
                        "message":{"id":format!("m{p}{s}{i}"),"model":models[0],"role":"assistant",
                        "content":[],"usage":{"input_tokens":next(5000),"output_tokens":next(3000)}}})
                    .to_string());
                }
            }
            let ts = claudio::store::format_iso_millis(at);
            lines.insert(
                0,
                serde_json::json!({"type":"user","sessionId":id,"cwd":format!("/work/{p}"),
                "timestamp":ts,"uuid":format!("10000000-0000-4000-8000-0000000{p}{s}000"),
                "parentUuid":null,"message":{"role":"user","content":format!("prompt {p} {s}")}})
                .to_string(),
            );
            std::fs::write(dir.join(format!("{id}.jsonl")), lines.join("\n") + "\n").unwrap();
            // each last written at a time of its own, not in the order written
            let touch = |path: &std::path::Path, k: u64| {
                let f = std::fs::File::options().write(true).open(path).unwrap();
                let at = std::time::Duration::from_secs(1_799_000_000 + (k * 7919) % 100_000);
                f.set_modified(std::time::UNIX_EPOCH + at).unwrap();
            };
            touch(&dir.join(format!("{id}.jsonl")), (p * 8 + s * 2) as u64);
            // a resumed session: its file repeats the first one's messages
            if s == 1 {
                let again = format!("{p:08}-{s:04}-4000-8000-00000000000f");
                let mut more = lines.clone();
                more.push(lines[0].replace("\"r", "\"q").replace("\"m", "\"n"));
                std::fs::write(dir.join(format!("{again}.jsonl")), more.join("\n") + "\n").unwrap();
                touch(
                    &dir.join(format!("{again}.jsonl")),
                    (p * 8 + s * 2 + 1) as u64,
                );
            }
            // sub-agents, one described and one not
            if s == 2 {
                let agents = dir.join(&id).join("subagents");
                std::fs::create_dir_all(&agents).unwrap();
                for (k, desc) in [("a1", Some("look around")), ("a2", None)] {
                    let ts = claudio::store::format_iso_millis(now - 7_200_000);
                    let first = serde_json::json!({"type":"user","isSidechain":true,
                        "agentId":k,"sessionId":id,"timestamp":ts,
                        "message":{"role":"user","content":"go"}});
                    if let Some(desc) = desc {
                        let meta = serde_json::json!({"description": desc, "agentType": "Explore"});
                        std::fs::write(
                            agents.join(format!("agent-{k}.meta.json")),
                            meta.to_string(),
                        )
                        .unwrap();
                    }
                    let reply = serde_json::json!({"type":"assistant","isSidechain":true,
                        "agentId":k,"sessionId":id,"requestId":format!("ra{k}"),"timestamp":ts,
                        "message":{"id":format!("ma{k}"),"model":models[next(3) as usize],
                        "role":"assistant","content":[],
                        "usage":{"input_tokens":next(5000),"output_tokens":next(3000)}}});
                    std::fs::write(
                        agents.join(format!("agent-{k}.jsonl")),
                        format!("{first}\n{reply}\n"),
                    )
                    .unwrap();
                }
            }
        }
    }
    d
}

/// The serde types print what the `json!` builder printed, byte for byte:
/// every `--by`, with and without the cost, in both orders, pretty and
/// ndjson, on a generated store.
#[test]
fn the_typed_document_is_the_old_one_byte_for_byte() {
    let d = generated_store();
    let store = Store::open(Some(d.path())).unwrap();
    let cfg = cfg(&d);
    let mut compared = 0;
    for by in [
        "day", "week", "month", "model", "project", "session", "block",
    ] {
        for extra in [
            &[][..],
            &["--no-cost"],
            &["--order", "desc", "--timezone", "UTC"],
            &["--since", "30d", "-n", "5"],
            &["--until", "2027-01-10", "--start-of-week", "sunday"],
        ] {
            let mut argv = vec![
                "claudio",
                "sessions",
                "--config-dir",
                &cfg,
                "usage",
                "--all",
            ];
            argv.extend(["--by", by]);
            argv.extend_from_slice(extra);
            let cli =
                <super::super::testing::TestCli as clap::Parser>::try_parse_from(&argv).unwrap();
            let super::super::testing::TestCommand::Sessions(s) = cli.command;
            let crate::cli::commands::sessions::SessionsAction::Usage(a) = s.action else {
                panic!("not usage")
            };
            let now = 1_800_000_000_000;
            let q = Query::resolve(&a, None, now).unwrap();
            let mut sessions = store.usage(None).unwrap().sessions;
            let pricer = store_pricer(&store, &sessions);
            select(&mut sessions, a.limit);
            let titles = if a.by == By::Session {
                session_titles(&store, None)
            } else {
                HashMap::new()
            };
            let mut tally = aggregate(&sessions, &pricer, &a, &q);
            let windows = bill(&mut tally, &q, now);
            let c = Counted::new(&sessions, tally, windows, titles, &a);
            let (old, old_lines) = old_document(&c, &a, now);
            let mut report = c.report(&a, now);
            assert_eq!(
                serde_json::to_string_pretty(&report).unwrap(),
                old,
                "{argv:?}"
            );
            let mut lines: Vec<String> = report
                .rows
                .take()
                .unwrap()
                .iter()
                .map(|r| serde_json::to_string(r).unwrap())
                .collect();
            lines.push(serde_json::to_string(&report).unwrap());
            assert_eq!(lines, old_lines, "{argv:?}");
            compared += 1;
            // the store is no empty one: rows, and by session sub-agents
            assert!(
                old_lines.len() > 1 || extra.contains(&"--until"),
                "{argv:?}: {old}"
            );
            if by == "session" && extra.is_empty() {
                assert!(old.contains("\"subagents\""), "{old}");
                assert!(old.contains("\"title\""), "{old}");
            }
            if by == "block" && extra.is_empty() {
                assert!(old.contains("\"burnRate\""), "{old}");
            }
        }
    }
    assert_eq!(compared, 35);
}

/// `list --json --usage`'s fields as the `json!` builder gave them, before
/// [`json::ListUsage`] (the oracle of the test below).
fn old_list_fields(s: &SessionUsage, pricer: &Pricer) -> serde_json::Value {
    let u = &s.total();
    let t = u.tokens();
    let row = Row::of(s, pricer);
    let (cost, partial) = row.cost();
    let priced = row.any_priced();
    serde_json::json!({
        "usage": {
            "input": t.input, "output": t.output,
            "cacheWrite": t.cache_write, "cacheRead": t.cache_read,
        },
        "models": row.models.keys().collect::<Vec<_>>(),
        "prompts": u.prompts,
        "apiRequests": u.messages.len(),
        "firstActivity": u.first,
        "lastActivity": u.last,
        "estimatedCostUsd": priced.then_some(cost),
        "costIsPartial": priced && partial,
        "costIsEstimate": priced && row.estimated(),
    })
}

#[test]
fn list_s_typed_usage_fields_are_the_old_ones() {
    let d = generated_store();
    let store = Store::open(Some(d.path())).unwrap();
    let sessions = store.usage(None).unwrap().sessions;
    let pricer = store_pricer(&store, &sessions);
    assert!(sessions.len() >= 8);
    for s in &sessions {
        let new = serde_json::to_string(&list_fields(s, &pricer)).unwrap();
        assert_eq!(new, old_list_fields(s, &pricer).to_string());
    }
}

/// `-n`: the newest sessions by when each was last written, kept in the
/// listing's order; `-n 0` and none keep every one.
#[test]
fn select_keeps_the_newest_in_their_order() {
    let d = generated_store();
    let store = Store::open(Some(d.path())).unwrap();
    let all = store.usage(None).unwrap().sessions;
    let ids =
        |v: &[SessionUsage]| -> Vec<String> { v.iter().map(|s| s.session_id.clone()).collect() };
    for none in [None, Some(0)] {
        let mut s = store.usage(None).unwrap().sessions;
        select(&mut s, none);
        assert_eq!(ids(&s), ids(&all));
    }
    let mut s = store.usage(None).unwrap().sessions;
    select(&mut s, Some(3));
    let mut times: Vec<i64> = all.iter().map(|s| s.last_modified).collect();
    times.sort_unstable();
    let third = times[times.len() - 3];
    let want: Vec<String> = all
        .iter()
        .filter(|s| s.last_modified >= third)
        .map(|s| s.session_id.clone())
        .collect();
    assert_eq!(ids(&s), want);
}

/// The flags resolved: a folder or none, the bounds in ms, and a window
/// with no time in it refused as a usage error.
#[test]
fn the_query_resolves_the_flags() {
    let parse = |extra: &[&str]| {
        let mut argv = vec!["claudio", "sessions", "usage"];
        argv.extend_from_slice(extra);
        let cli = <super::super::testing::TestCli as clap::Parser>::try_parse_from(&argv).unwrap();
        let super::super::testing::TestCommand::Sessions(s) = cli.command;
        let crate::cli::commands::sessions::SessionsAction::Usage(a) = s.action else {
            panic!("not usage")
        };
        a
    };
    let now = 1_800_000_000_000;
    let here = PathBuf::from("/work/here");
    let q = Query::resolve(&parse(&["--since", "2h"]), Some(&here), now).unwrap();
    assert_eq!(q.dir.as_deref(), Some(here.as_path()));
    assert_eq!((q.since, q.until), (Some(now - 7_200_000), None));
    let q = Query::resolve(
        &parse(&[
            "--all",
            "--since",
            "2026-11-01",
            "--until",
            "2026-11-01",
            "--timezone",
            "UTC",
        ]),
        None,
        now,
    )
    .unwrap();
    assert_eq!(q.dir, None);
    // a date through that day: the next midnight, exclusive
    assert_eq!(q.until.zip(q.since).map(|(u, s)| u - s), Some(86_400_000));
    assert!(q.after_until(q.until) && !q.after_until(q.since) && q.after_until(None));
    let e = Query::resolve(
        &parse(&["--all", "--since", "1h", "--until", "2h"]),
        None,
        now,
    )
    .err()
    .unwrap();
    assert!(e.to_string().contains("is not after --since"), "{e}");
    assert!(
        Query::resolve(&parse(&[]), None, now).is_err(),
        "no folder to count"
    );
}

/// A report of the whole store prices what it counted with the unit prices
/// its own reading teaches (the `cost-state`s of the transcripts it read):
/// it neither lists the store again nor reads any transcript a second time
/// (which, with no usage index, read every transcript twice), so a store
/// that changes after the reading does not change the prices.
#[test]
fn a_whole_store_report_learns_its_prices_from_what_it_read() {
    crate::cli::commands::sessions::testing::own_cache();
    let d = tempfile::tempdir().unwrap();
    // a model without a list price: its unit price is what the store teaches
    let line = |id: &str| {
        serde_json::json!({"type":"assistant","requestId":id,"timestamp":"2026-11-01T10:00:00.000Z",
            "message":{"id":id,"model":"m-local-7","usage":{"input_tokens":1000,"output_tokens":10}}})
        .to_string()
    };
    let cost = |usd: f64| {
        serde_json::json!({"type":"cost-state","totalCostUSD":usd,"hasUnknownModelCost":false,
            "modelUsage":{"m-local-7":{"inputTokens":1000,"outputTokens":10,"costUSD":usd}}})
        .to_string()
    };
    let mut second = PathBuf::new();
    for (folder, id, usd) in [
        ("-work-one", "00000000-0000-4000-8000-000000000001", 0.01),
        ("-work-two", "00000000-0000-4000-8000-000000000002", 0.03),
    ] {
        let dir = d.path().join("projects").join(folder);
        std::fs::create_dir_all(&dir).unwrap();
        second = dir.join(format!("{id}.jsonl"));
        std::fs::write(&second, format!("{}\n{}\n", line(id), cost(usd))).unwrap();
    }
    let store = Store::open(Some(d.path())).unwrap();
    let sessions = store.usage(None).unwrap().sessions;
    assert_eq!(sessions.len(), 2);
    let learnt = Pricer::learn(sessions.iter().map(|s| &s.without_subagents)).units();
    assert_eq!(learnt.len(), 1, "{learnt:?}");
    // a transcript that teaches a price is gone before the prices are had
    std::fs::remove_file(&second).unwrap();
    let whole_now = store_pricer(&store, &sessions).units();
    assert_ne!(whole_now, learnt, "the store now teaches another price");
    assert_eq!(view_pricer(&store, None, &sessions).units(), learnt);
    // one folder's report learns from the whole store, as it is now
    let one = d.path().join("projects").join("-work-one");
    assert_eq!(
        view_pricer(&store, Some(&one), &sessions).units(),
        whole_now
    );
}

/// A store of 48 sessions in two folders whose files repeat one another:
/// each session streams some responses over several lines (the output
/// growing, the last line's counts winning), and every third file is a
/// resumed one that repeats messages of the files before it, some with
/// more output than those had, some with less, some priced by a
/// cost-state; with sub-agents and models without a price.
fn resumed_store() -> tempfile::TempDir {
    crate::cli::commands::sessions::testing::own_cache();
    let d = tempfile::tempdir().unwrap();
    let models = ["claude-sonnet-4-5", "claude-opus-4-5", "no-such-model-x"];
    let now = 1_800_000_000_000i64;
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = |n: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n
    };
    // every response written so far: (id, request, model, time)
    let mut written: Vec<(String, String, &str, i64)> = Vec::new();
    for s in 0..48u64 {
        let folder = ["-work-one", "-work-two"][(s % 2) as usize];
        let dir = d.path().join("projects").join(folder);
        std::fs::create_dir_all(&dir).unwrap();
        let id = format!("{s:08}-0000-4000-8000-000000000000");
        let mut lines = Vec::new();
        let line = |id: &str, req: &str, model: &str, at: i64, out: u64, input: u64| {
            serde_json::json!({"type":"assistant","sessionId":"x","requestId":req,
                "timestamp":claudio::store::format_iso_millis(at),"cwd":"/work/p",
                "message":{"id":id,"model":model,"role":"assistant","content":[],
                "usage":{"input_tokens":input,"output_tokens":out,
                    "cache_read_input_tokens":next_fixed(id)}}})
            .to_string()
        };
        // a resumed file: what came before, again (some grown, some not)
        if s % 3 == 2 && !written.is_empty() {
            for _ in 0..(2 + next(4)) {
                let (mid, req, model, at) = written[next(written.len() as u64) as usize].clone();
                lines.push(line(&mid, &req, model, at, next(4000), next(3000)));
            }
        }
        let mut at = now - (s as i64) * 3_000_000 - next(90 * 24) as i64 * 60_000;
        for i in 0..(2 + next(4)) {
            at += next(3 * 3_600_000) as i64;
            let (mid, req) = (format!("m{s}-{i}"), format!("r{s}-{i}"));
            let model = models[next(models.len() as u64) as usize];
            let input = next(5000);
            // streamed: one line a content block, the output growing
            let mut out = 0;
            for _ in 0..(1 + next(3)) {
                out += next(700);
                lines.push(line(&mid, &req, model, at + out as i64, out, input));
            }
            written.push((mid, req, model, at));
        }
        if s % 5 == 0 {
            let cost = serde_json::json!({"type":"cost-state","sessionId":id,
                "timestamp":claudio::store::format_iso_millis(at + 1000),
                "costUSD":0.75,"modelUsage":{"claude-sonnet-4-5":{"inputTokens":1000,
                "outputTokens":1000,"cacheReadInputTokens":0,"cacheCreationInputTokens":0,
                "costUSD":0.5}}});
            lines.push(cost.to_string());
        }
        std::fs::write(dir.join(format!("{id}.jsonl")), lines.join("\n") + "\n").unwrap();
        if s % 7 == 3 {
            let agents = dir.join(&id).join("subagents");
            std::fs::create_dir_all(&agents).unwrap();
            let reply = line(&format!("ma{s}"), &format!("ra{s}"), models[0], at, 90, 10);
            std::fs::write(agents.join("agent-a1.jsonl"), format!("{reply}\n")).unwrap();
        }
    }
    d
}

/// A deterministic cache count for a message id (the closure above
/// cannot borrow the generator twice).
fn next_fixed(id: &str) -> u64 {
    id.bytes()
        .fold(7u64, |h, b| h.wrapping_mul(31).wrapping_add(u64::from(b)))
        % 9000
}

/// The sessions priced on any number of threads give the report of one
/// thread, byte for byte, for every `--by`: the resumed files' repeats
/// and the streamed lines are counted once each, in the sessions' order.
#[test]
fn the_report_on_many_threads_is_the_one_thread_report() {
    let d = resumed_store();
    let store = Store::open(Some(d.path())).unwrap();
    let cfg = cfg(&d);
    let sessions = store.usage(None).unwrap().sessions;
    assert!(sessions.len() >= 40, "{}", sessions.len());
    // the store repeats messages across files: counted once, not twice
    let all: usize = sessions.iter().map(|s| s.messages().count()).sum();
    let mut seen = UsageSet::default();
    let distinct = sessions
        .iter()
        .flat_map(|s| s.messages())
        .filter(|m| seen.add_message(m) == m.tokens)
        .count();
    assert!(distinct < all, "{distinct} of {all}: no repeats");
    let pricer = store_pricer(&store, &sessions);
    let now = 1_800_000_000_000;
    for by in [
        "day", "week", "month", "model", "project", "session", "block",
    ] {
        for extra in [&[][..], &["--no-cost"], &["--since", "20d"]] {
            let mut argv = vec![
                "claudio",
                "sessions",
                "--config-dir",
                &cfg,
                "usage",
                "--all",
            ];
            argv.extend(["--by", by]);
            argv.extend_from_slice(extra);
            let cli =
                <super::super::testing::TestCli as clap::Parser>::try_parse_from(&argv).unwrap();
            let super::super::testing::TestCommand::Sessions(s) = cli.command;
            let crate::cli::commands::sessions::SessionsAction::Usage(a) = s.action else {
                panic!("not usage")
            };
            let q = Query::resolve(&a, None, now).unwrap();
            let report = |threads: usize| {
                let mut tally = aggregate_on(&sessions, &pricer, &a, &q, threads);
                let windows = bill(&mut tally, &q, now);
                let c = Counted::new(&sessions, tally, windows, HashMap::new(), &a);
                serde_json::to_string_pretty(&c.report(&a, now)).unwrap()
            };
            let one = report(1);
            assert!(one.contains("\"rows\""), "{argv:?}: {one}");
            for threads in [2, 3, 5, 8] {
                assert_eq!(report(threads), one, "{argv:?} on {threads} threads");
            }
        }
    }
}

/// `--by session` on a terminal: titles holding what terminals count
/// otherwise than claudio (threats.md class 11) leave the figures after
/// them in line: every row ends in the header's last column (vt100), and
/// no character the terminals dispute is written.
#[test]
fn by_session_on_a_terminal_the_figures_line_up_whatever_the_titles_hold() {
    let titles = super::super::testing::HARD_TITLES;
    let d = super::super::testing::titled_store(&titles, "2027-01-15T06:00:00.000Z");
    let cols = 120u16;
    let r = super::super::testing::run_args_sized(
        &[
            "--config-dir",
            &cfg(&d),
            "usage",
            "--all",
            "--by",
            "session",
        ],
        "/nonexistent".as_ref(),
        "/".as_ref(),
        Some((usize::from(cols), 40)),
    );
    r.outcome.unwrap();
    let out = r.out.text();
    let screen = super::super::testing::drawn_undisputed(&out, cols);
    let screen = screen.screen();
    let end = |r: u16| {
        (0..cols).rev().find(|&c| {
            screen
                .cell(r, c)
                .is_some_and(|x| !x.contents().trim().is_empty())
        })
    };
    let rows: Vec<String> = screen.rows(0, cols).collect();
    let head = rows
        .iter()
        .position(|r| r.contains("COST"))
        .expect("the header");
    let total = rows
        .iter()
        .position(|r| r.starts_with("total"))
        .expect("the total");
    assert_eq!(total - head - 1, titles.len(), "{out}");
    for (r, row) in rows.iter().enumerate().take(total + 1).skip(head + 1) {
        assert_eq!(end(r as u16), end(head as u16), "{row:?}\n{out}");
    }
}
