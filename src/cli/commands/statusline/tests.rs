use super::*;
use serde_json::json;

fn ms(s: &str) -> i64 {
    claudio::store::parse_iso_millis(s).expect("a time")
}

fn facts() -> Facts {
    Facts {
        model: Some("Opus 4.5".into()),
        model_id: Some("claude-opus-4-5".into()),
        context: Some(42.4),
        context_tokens: Some((84_000, 200_000)),
        session_cost: Some(Cost {
            usd: 1.234,
            partial: false,
        }),
        today_cost: Some(Cost {
            usd: 4.5,
            partial: true,
        }),
        block: Some(OpenWindow {
            minutes_left: 192,
            cost: 3.4,
            cost_per_hour: Some(2.1),
            projected: Some(9.8),
            partial: false,
            unpriced: false,
        }),
        branch: Some("main".into()),
        dir: Some("work".into()),
    }
}

fn render(t: &str, f: &Facts) -> String {
    Template::parse(t)
        .unwrap()
        .render(f, Style::decide(ColorChoice::Never, true))
}

#[test]
fn the_default_line_and_every_placeholder() {
    assert_eq!(
        render(DEFAULT_FORMAT, &facts()),
        "Opus 4.5 · 42% ctx · $1.23 session · $4.50+ today · 5h: 3h12m left, $2.10/h → $9.80 · main"
    );
    assert_eq!(
        render(
            "{model_id}|{context_tokens}|{block_left}|{block_cost}|{burn_rate}|{projected}|{dir}",
            &facts()
        ),
        "claude-opus-4-5|84k/200k|3h12m|$3.40|$2.10/h|$9.80|work"
    );
    // braces doubled are braces; a newline in the template is a space
    assert_eq!(render("{{{model}}}\nx", &facts()), "{Opus 4.5} x");
}

#[test]
fn a_segment_with_nothing_to_show_is_left_out_with_its_separator() {
    let f = Facts {
        model_id: Some("claude-sonnet-4-5".into()),
        session_cost: Some(Cost::default()),
        ..Facts::default()
    };
    // {model} falls back to the id; no context, no today, no block, no branch
    assert_eq!(
        render(DEFAULT_FORMAT, &f),
        "claude-sonnet-4-5 · $0.00 session"
    );
    // text without a placeholder stays; a segment with one known stays
    assert_eq!(
        render("a · {branch} b · {model}", &f),
        "a · claude-sonnet-4-5"
    );
    // a block with no rate yet, and one of models with no price
    let mut f = facts();
    f.block.as_mut().unwrap().cost_per_hour = None;
    f.block.as_mut().unwrap().projected = None;
    assert_eq!(render("{block}|{burn_rate}", &f), "5h: 3h12m left|");
    let mut f = facts();
    f.block.as_mut().unwrap().unpriced = true;
    assert_eq!(render("{block}|{block_cost}", &f), "5h: 3h12m left|");
    f.block.as_mut().unwrap().minutes_left = 5;
    assert_eq!(render("{block_left}", &f), "5m");
}

#[test]
fn a_bad_template_is_refused() {
    let nope = Template::parse("{nope}").unwrap_err();
    assert_eq!(nope, TemplateError::Unknown("nope".into()));
    assert!(
        nope.to_string()
            .starts_with("no placeholder {nope}; there are {model}, "),
        "{nope}"
    );
    let open = Template::parse("{model").unwrap_err();
    assert_eq!(open, TemplateError::Unclosed("model".into()));
    assert_eq!(open.to_string(), "`{model` is not closed with `}`");
    assert!(Template::parse("}").is_ok(), "a lone brace is text");
}

#[test]
fn colors_only_when_wanted_and_nothing_else_gets_through() {
    let on = Template::parse("{model} {context}")
        .unwrap()
        .render(&facts(), Style::decide(ColorChoice::Always, false));
    assert_eq!(on, "\x1b[36mOpus 4.5\x1b[0m \x1b[32m42%\x1b[0m");
    let mut f = facts();
    f.context = Some(85.0);
    let off = Template::parse("{model} {context}")
        .unwrap()
        .render(&f, Style::decide(ColorChoice::Never, true));
    assert_eq!(off, "Opus 4.5 85%");
    // the JSON's text: no escape, no newline, no bidi override
    f.model = Some("evil\x1b]52;c;aGk=\x07\n\u{202e}x\x1b[2J".into());
    f.branch = Some("b\rr".into());
    let line = render("{model} {branch}", &f);
    assert_eq!(line, "evil x br");
    // the template's own colors are kept, other controls are not
    assert_eq!(
        render("\x1b[1m{dir}\x1b[0m\x1b]0;t\x07", &f),
        "\x1b[1mwork\x1b[0m"
    );
}

#[test]
fn bad_or_missing_json_says_why() {
    let mut notes = Vec::new();
    let mut err = |b: &[u8]| parse_input(b, &mut notes).unwrap_err();
    assert!(matches!(err(b""), InputError::Empty));
    assert!(err(b" \n\t").to_string().contains("no input"));
    let bad = err(b"{bad");
    assert!(
        matches!(&bad, InputError::NotJson(e) if e.is_syntax()),
        "{bad:?}"
    );
    assert!(bad.to_string().starts_with("stdin is not JSON: "), "{bad}");
    assert!(matches!(err(b"[1,2]"), InputError::NotObject));
    assert!(err(b"\"x\"").to_string().contains("not a JSON object"));
    // reordered, spaced, escaped: the same
    let i = parse_input(
        br#" { "model" : { "display_name" : "S\u0032", "id":"claude-sonnet-4-5" },
              "cwd":"rel/dir", "transcript_path": "/t.jsonl",
              "cost": {"total_cost_usd": -1},
              "context_window": {"used_percentage": null, "context_window_size": 1000,
                "current_usage": {"input_tokens": 100, "cache_read_input_tokens": 150,
                  "cache_creation_input_tokens": 50, "output_tokens": 20}} } "#,
        &mut notes,
    )
    .unwrap();
    assert_eq!(i.model_name.as_deref(), Some("S2"));
    assert_eq!(i.dir, None, "a relative path is not read");
    assert!(notes.iter().any(|n| n.contains("/cwd is a relative path")));
    assert_eq!(i.transcript.as_deref(), Some(Path::new("/t.jsonl")));
    assert_eq!(i.cost_usd, None, "a negative cost is no cost");
    assert_eq!((i.context_percent, i.context_size), (None, Some(1000)));
    assert_eq!(i.context_usage, Some(320));
    let f = gather(&i, None, false, 0, 0, &mut notes);
    assert_eq!(f.context_tokens, Some((320, 1000)));
    assert_eq!(f.context, Some(32.0));
}

fn usage_line(id: &str, model: &str, input: u64, output: u64, ts: &str) -> String {
    json!({"type":"assistant","requestId":format!("r-{id}"),"timestamp":ts,"sessionId":"s",
        "message":{"id":id,"model":model,"role":"assistant","content":[],
        "usage":{"input_tokens":input,"output_tokens":output,
            "cache_creation_input_tokens":0,"cache_read_input_tokens":0}}})
    .to_string()
}

/// A transcript in `store`, last written at `mtime`.
fn transcript(store: &Path, id: &str, lines: &[String], mtime: &str) -> PathBuf {
    crate::cli::commands::sessions::testing::own_cache();
    let dir = store.join("projects/-work");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{id}.jsonl"));
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let at = std::time::UNIX_EPOCH + Duration::from_millis(ms(mtime) as u64);
    std::fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_modified(at)
        .unwrap();
    path
}

#[test]
fn today_and_the_open_window_from_the_recent_transcripts_only() {
    let d = tempfile::tempdir().unwrap();
    // $3 / $15 a million, with no long-context tier (a request of a
    // million input tokens is priced as one)
    let s = "claude-3-7-sonnet";
    // yesterday's session: never read (written before the day began)
    transcript(
        d.path(),
        "aaaaaaaa-0000-4000-8000-000000000001",
        &[usage_line(
            "y1",
            s,
            10_000_000,
            0,
            "2026-10-31T19:00:00.000Z",
        )],
        "2026-10-31T20:00:00.000Z",
    );
    // today's: a message of yesterday it resumes (not today's), $3 at
    // 09:10 and $15 at 11:10
    transcript(
        d.path(),
        "aaaaaaaa-0000-4000-8000-000000000002",
        &[
            usage_line("old", s, 1_000_000, 0, "2026-10-31T23:00:00.000Z"),
            usage_line("m1", s, 1_000_000, 0, "2026-11-01T09:10:00.000Z"),
            usage_line("m2", s, 0, 1_000_000, "2026-11-01T11:10:00.000Z"),
        ],
        "2026-11-01T11:10:00.000Z",
    );
    // another that repeats m2 (counted once)
    transcript(
        d.path(),
        "aaaaaaaa-0000-4000-8000-000000000003",
        &[usage_line(
            "m2",
            s,
            0,
            1_000_000,
            "2026-11-01T11:10:00.000Z",
        )],
        "2026-11-01T12:00:00.000Z",
    );
    let store = Store::new(d.path());
    let now = ms("2026-11-01T12:30:00.000Z");
    let today = ms("2026-11-01T00:00:00.000Z");
    let listing = store.usage_since(None, today).unwrap();
    assert_eq!(listing.sessions.len(), 2, "yesterday's file is not read");
    let (cost, block) = today_and_block(&listing.sessions, today, now, i64::MAX);
    assert_eq!(
        cost,
        Cost {
            usd: 18.0,
            partial: false
        }
    );
    // the window 09:00–14:00: 90 minutes left, $18 in 2 hours, and
    // 1 + 90/120 times that at its end
    let b = block.unwrap();
    assert_eq!(b.minutes_left, 90);
    assert_eq!(b.cost, 18.0);
    assert_eq!(b.cost_per_hour, Some(9.0));
    assert_eq!(b.projected, Some(18.0 * 1.75));
    assert!(!b.partial && !b.unpriced);
    // at 14:00 it has ended: no open window, today's cost the same
    let (_, closed) = today_and_block(
        &listing.sessions,
        today,
        ms("2026-11-01T14:00:00.000Z"),
        i64::MAX,
    );
    assert_eq!(closed, None);

    // a model with no price: a lower bound
    transcript(
        d.path(),
        "aaaaaaaa-0000-4000-8000-000000000004",
        &[usage_line(
            "u1",
            "some-model",
            5,
            5,
            "2026-11-01T12:00:00.000Z",
        )],
        "2026-11-01T12:00:00.000Z",
    );
    let listing = store.usage_since(None, today).unwrap();
    let (cost, block) = today_and_block(&listing.sessions, today, now, i64::MAX);
    assert!(cost.partial && cost.usd == 18.0);
    assert!(block.unwrap().partial);

    // the whole line from the JSON and the store, at those times
    let input = Input {
        session_id: Some("aaaaaaaa-0000-4000-8000-000000000002".into()),
        model_id: Some(s.into()),
        ..Input::default()
    };
    let mut notes = Vec::new();
    let f = gather(&input, Some(&store), true, now, today, &mut notes);
    assert!(notes.is_empty(), "{notes:?}");
    // no cost and no context in the JSON: from the session's transcript
    // (m2's million tokens of a 200k window)
    assert_eq!(
        render(DEFAULT_FORMAT, &f),
        "claude-3-7-sonnet · 500% ctx · $21.00 session · $18.00+ today · 5h: 1h30m left, $6.35/h+ → $27.53+"
    );
}

#[test]
fn the_context_share_from_a_transcript_outside_the_recent_ones() {
    let d = tempfile::tempdir().unwrap();
    let path = transcript(
        d.path(),
        "aaaaaaaa-0000-4000-8000-000000000005",
        &[
            usage_line(
                "a",
                "claude-opus-4-5",
                1_000,
                10,
                "2026-10-01T10:00:00.000Z",
            ),
            usage_line(
                "b",
                "claude-opus-4-5",
                100_000,
                0,
                "2026-10-01T10:01:00.000Z",
            ),
        ],
        "2026-10-01T10:01:00.000Z",
    );
    let input = Input {
        transcript: Some(path),
        model_id: Some("claude-opus-4-5[1m]".into()),
        ..Input::default()
    };
    let mut notes = Vec::new();
    let f = gather(&input, None, false, 0, 0, &mut notes);
    assert_eq!(f.context, Some(10.0), "100k of a 1M window");
    assert_eq!(f.context_tokens, Some((100_000, 1_000_000)));
    assert_eq!(render("{session_cost}", &f), "$0.51");
    // a transcript that is not a file: said, and the rest still shown
    let folder = d.path().join("folder.jsonl");
    std::fs::create_dir(&folder).unwrap();
    let input = Input {
        transcript: Some(folder),
        model_name: Some("Opus".into()),
        ..Input::default()
    };
    let f = gather(&input, None, false, 0, 0, &mut notes);
    assert_eq!(render(DEFAULT_FORMAT, &f), "Opus");
    assert!(notes
        .iter()
        .any(|n| n.contains("transcript could not be read")));
}

#[test]
fn the_branch_and_directory_come_from_the_workspace() {
    let d = tempfile::tempdir().unwrap();
    let repo = d.path().join("proj");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    std::fs::create_dir_all(repo.join("src")).unwrap();
    std::fs::write(repo.join(".git/HEAD"), "ref: refs/heads/feat/x\n").unwrap();
    let input = Input {
        dir: Some(repo.join("src")),
        ..Input::default()
    };
    let f = gather(&input, None, false, 0, 0, &mut Vec::new());
    assert_eq!(render("{branch} {dir}", &f), "feat/x src");
}

/// A message dated 2099 neither opens the 5-hour window (it said
/// `5h: 631815h20m left`) nor counts toward today's cost (found by the
/// fourth attack round).
#[test]
fn a_message_dated_in_the_future_is_not_today_nor_the_open_window() {
    let d = tempfile::tempdir().unwrap();
    let s = "claude-3-7-sonnet";
    transcript(
        d.path(),
        "aaaaaaaa-0000-4000-8000-000000000005",
        &[
            usage_line("m1", s, 1_000_000, 0, "2026-11-01T09:10:00.000Z"),
            usage_line("f1", s, 0, 1_000_000, "2099-01-01T00:00:00.000Z"),
        ],
        "2026-11-01T11:10:00.000Z",
    );
    let store = Store::new(d.path());
    let now = ms("2026-11-01T12:30:00.000Z");
    let today = ms("2026-11-01T00:00:00.000Z");
    let listing = store.usage_since(None, today).unwrap();
    let (cost, block) = today_and_block(&listing.sessions, today, now, i64::MAX);
    assert_eq!(
        cost,
        Cost {
            usd: 3.0,
            partial: false
        },
        "the 2099 message is not today's"
    );
    let b = block.unwrap();
    assert_eq!((b.minutes_left, b.cost), (90, 3.0), "the window of 09:00");
    // past that window's end, no window is open: not the one of 2099
    let (_, none) = today_and_block(
        &listing.sessions,
        today,
        ms("2026-11-01T14:00:00.000Z"),
        i64::MAX,
    );
    assert_eq!(none, None);
}

#[test]
fn the_day_starts_at_local_midnight() {
    let now = now_ms();
    let t = start_of_day(now).unwrap();
    assert!(t <= now && now - t < 25 * 3_600_000);
}

/// One session id in two projects: the transcript the JSON names is the
/// one read, not the first of that id (found by the attack round).
#[test]
fn the_named_transcript_wins_over_another_with_the_same_id() {
    let d = tempfile::tempdir().unwrap();
    let id = "aaaaaaaa-0000-4000-8000-000000000009";
    let s = "claude-sonnet-4-5";
    let at = "2026-11-01T11:00:00.000Z";
    let big = transcript(d.path(), id, &[usage_line("x", s, 1_000_000, 0, at)], at);
    // the same id in another project, 10 tokens
    let other = d.path().join("projects/-other");
    std::fs::create_dir_all(&other).unwrap();
    let small = other.join(format!("{id}.jsonl"));
    std::fs::write(&small, usage_line("y", s, 10, 0, at) + "\n").unwrap();
    let store = Store::new(d.path());
    let (now, today) = (
        ms("2026-11-01T12:00:00.000Z"),
        ms("2026-11-01T00:00:00.000Z"),
    );
    for (named, tokens) in [(&small, 10), (&big, 1_000_000)] {
        let input = Input {
            session_id: Some(id.into()),
            transcript: Some(named.clone()),
            model_id: Some(s.into()),
            ..Input::default()
        };
        let mut notes = Vec::new();
        let f = gather(&input, Some(&store), true, now, today, &mut notes);
        assert_eq!(f.context_tokens, Some((tokens, 200_000)), "{named:?}");
    }
}

/// Token counts on stdin at the top of u64 add up without overflow.
#[test]
fn huge_token_counts_on_stdin_do_not_overflow() {
    let json = json!({"context_window": {"current_usage": {
        "input_tokens": u64::MAX, "output_tokens": u64::MAX,
        "cache_creation_input_tokens": 1, "cache_read_input_tokens": 1}}});
    let mut notes = Vec::new();
    let input = parse_input(json.to_string().as_bytes(), &mut notes).unwrap();
    assert_eq!(input.context_usage, Some(u64::MAX));
}

/// `gather` for a transcript path from the JSON, on another thread: one
/// that blocks or never ends fails the test instead of freezing it.
fn gather_within(transcript: PathBuf) -> (Facts, Vec<String>) {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let input = Input {
            transcript: Some(transcript),
            model_name: Some("Opus".into()),
            ..Input::default()
        };
        let mut notes = Vec::new();
        let f = gather(&input, None, false, 0, 0, &mut notes);
        let _ = tx.send((f, notes));
    });
    rx.recv_timeout(Duration::from_secs(20))
        .expect("the status line read the transcript path for over 20 s")
}

/// A zstd frame of `n` blocks of 128 KiB of `byte` each (RLE blocks:
/// four bytes each), after a claudio archive header that says `size`.
fn packed_bomb(size: u64, n: usize, byte: u8) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(&0x184D_2A5Cu32.to_le_bytes());
    out.extend_from_slice(&48u32.to_le_bytes());
    out.extend_from_slice(b"claudio1");
    for v in [size, 1_700_000_000, 0, 0, 0] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out.extend_from_slice(&0xFD2F_B528u32.to_le_bytes());
    out.push(0x00); // no content size, no checksum, a window descriptor
    out.push(7 << 3); // a 128 KiB window
    for i in 0..n {
        let last = u32::from(i + 1 == n);
        let h = last | (1 << 1) | ((128 * 1024) << 3);
        out.extend_from_slice(&h.to_le_bytes()[..3]);
        out.push(byte);
    }
    out
}

/// The JSON names the transcript: a FIFO, `/dev/zero` or a link to it, a
/// folder, or a file that decompresses without end is never read (what
/// Claude Code names is a `.jsonl` of the store), and the line is still
/// shown with what the JSON holds.
#[test]
fn a_transcript_path_that_is_no_transcript_is_not_read() {
    let d = tempfile::tempdir().unwrap();
    let fifo = d.path().join("fifo.jsonl");
    assert!(std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let zero = d.path().join("zero.jsonl");
    std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
    // 8 GiB of one byte in 256 KiB, said to be 1 TiB
    let bomb = d
        .path()
        .join("aaaaaaaa-0000-4000-8000-000000000009.jsonl.zst");
    std::fs::write(&bomb, packed_bomb(1 << 40, 64 * 1024, b'a')).unwrap();
    for path in [
        fifo,
        zero,
        PathBuf::from("/dev/zero"),
        d.path().to_path_buf(),
        bomb,
    ] {
        let (f, notes) = gather_within(path.clone());
        assert_eq!(render(DEFAULT_FORMAT, &f), "Opus", "{path:?}");
        assert!(f.session_cost.is_none(), "{path:?}");
        assert!(!notes.is_empty(), "{path:?}: said");
    }
}

/// A transcript of a size a session has, with a sub-agent's past the
/// bound beside it: the bound is the whole session's, so neither is read.
#[test]
fn a_session_whose_sub_agents_are_past_the_bound_is_not_read() {
    let d = tempfile::tempdir().unwrap();
    let id = "aaaaaaaa-0000-4000-8000-000000000008";
    let path = d.path().join(format!("{id}.jsonl"));
    std::fs::write(
        &path,
        usage_line(
            "a",
            "claude-opus-4-5",
            1_000,
            10,
            "2026-10-01T10:00:00.000Z",
        ) + "\n",
    )
    .unwrap();
    let agents = d.path().join(id).join("subagents");
    std::fs::create_dir_all(&agents).unwrap();
    let agent = std::fs::File::create(agents.join("agent-a1.jsonl")).unwrap();
    agent.set_len(MAX_TRANSCRIPT + 1).unwrap();
    let (f, notes) = gather_within(path.clone());
    assert_eq!(render(DEFAULT_FORMAT, &f), "Opus", "{notes:?}");
    assert!(notes.iter().any(|n| n.contains("over 64 MiB")), "{notes:?}");
    // a sub-agent of a size one has: read with it
    agent.set_len(0).unwrap();
    let (f, notes) = gather_within(path);
    assert_eq!(render("{session_cost}", &f), "$0.01", "{notes:?}");
}

/// The open 5-hour window is found from the first response that chains
/// into it, however far before the look-back (min(midnight, now − 10 h))
/// that is (#44.2): use every 4h40 since 21:10 the day before chains
/// windows 21:00, 02:00, 07:00 and 12:00, so at 13:00 four hours are
/// left (read from midnight it was 11:00, three hours).
#[test]
fn the_open_window_chains_from_before_the_look_back() {
    let d = tempfile::tempdir().unwrap();
    let s = "claude-3-7-sonnet";
    let times = [
        "2026-10-31T21:10:00.000Z",
        "2026-11-01T01:50:00.000Z",
        "2026-11-01T02:10:00.000Z",
        "2026-11-01T06:50:00.000Z",
        "2026-11-01T07:10:00.000Z",
        "2026-11-01T11:50:00.000Z",
        "2026-11-01T12:10:00.000Z",
    ];
    // the day before's in a file of its own, last written then
    transcript(
        d.path(),
        "aaaaaaaa-0000-4000-8000-000000000007",
        &[usage_line("c0", s, 10, 0, times[0])],
        times[0],
    );
    let lines: Vec<String> = times[1..]
        .iter()
        .enumerate()
        .map(|(i, t)| usage_line(&format!("c{}", i + 1), s, 10, 0, t))
        .collect();
    transcript(
        d.path(),
        "aaaaaaaa-0000-4000-8000-000000000008",
        &lines,
        times[6],
    );
    let store = Store::new(d.path());
    let now = ms("2026-11-01T13:00:00.000Z");
    let today = ms("2026-11-01T00:00:00.000Z");
    let mut notes = Vec::new();
    let f = gather(
        &Input::default(),
        Some(&store),
        true,
        now,
        today,
        &mut notes,
    );
    assert!(notes.is_empty(), "{notes:?}");
    assert_eq!(f.block.expect("an open window").minutes_left, 240);
    // today's cost is still today's: six responses of 10 input tokens
    assert_eq!(f.today_cost.unwrap().usd, 60.0 * 3.0 / 1e6);
}

/// Today's cost prices the CLI's default model (it read `$0.00+`, #40.8):
/// a session with the CLI's own `cost-state` at its figure (its side
/// requests too), the open one after it at the unit price that teaches.
#[test]
fn today_prices_the_cli_default_model_from_its_cost_state() {
    let d = tempfile::tempdir().unwrap();
    let m = "claude-opus-5-5";
    let cost_state = json!({"type":"cost-state","totalCostUSD":0.7,"hasUnknownModelCost":false,
        "modelUsage":{m:{"inputTokens":100_000,"outputTokens":0,"costUSD":0.7},
            // a side request no response carries
            "claude-haiku-4-5":{"inputTokens":1000,"outputTokens":0,"costUSD":0.1}}})
    .to_string();
    transcript(
        d.path(),
        "aaaaaaaa-0000-4000-8000-000000000009",
        &[
            usage_line("o1", m, 100_000, 0, "2026-11-01T09:00:00.000Z"),
            cost_state,
            // resumed and still open: $7 a million, as the line above says
            usage_line("o2", m, 10_000, 0, "2026-11-01T10:00:00.000Z"),
        ],
        "2026-11-01T10:00:00.000Z",
    );
    let store = Store::new(d.path());
    let now = ms("2026-11-01T10:30:00.000Z");
    let today = ms("2026-11-01T00:00:00.000Z");
    let listing = store.usage_since(None, today).unwrap();
    let (cost, _) = today_and_block(&listing.sessions, today, now, i64::MAX);
    assert!(!cost.partial, "{cost:?}");
    assert!((cost.usd - 0.87).abs() < 1e-9, "{cost:?}");
}

/// The status line reads only the transcripts written lately (one look at
/// the folders, then as far back as the 5-hour chain goes); its today's
/// cost and open window equal those of every transcript read whole, also
/// after a transcript is appended to (#44: fast, and always fresh).
#[test]
fn the_recent_reading_equals_reading_every_transcript() {
    let d = tempfile::tempdir().unwrap();
    let s = "claude-3-7-sonnet";
    let now = ms("2026-11-01T13:00:00.000Z");
    let today = ms("2026-11-01T00:00:00.000Z");
    // old work; a 5-hour chain that begins the afternoon before (a
    // response every 4h40: its windows begin at 16:00, 21:00, 02:00, 07:00
    // and 12:00, where read from midnight they would begin at 01:00, 06:00
    // and 11:00), its first response in a file last written before the
    // look-back; and today's
    transcript(
        d.path(),
        "bbbbbbbb-0000-4000-8000-000000000001",
        &[usage_line("b0", s, 1000, 10, "2026-10-20T10:00:00.000Z")],
        "2026-10-20T10:00:00.000Z",
    );
    transcript(
        d.path(),
        "bbbbbbbb-0000-4000-8000-000000000002",
        &[usage_line("b1", s, 100, 1, "2026-10-31T16:10:00.000Z")],
        "2026-10-31T16:10:00.000Z",
    );
    let times = [
        "2026-10-31T20:50:00.000Z",
        "2026-10-31T21:10:00.000Z",
        "2026-11-01T01:50:00.000Z",
        "2026-11-01T02:10:00.000Z",
        "2026-11-01T06:50:00.000Z",
        "2026-11-01T07:10:00.000Z",
        "2026-11-01T11:50:00.000Z",
        "2026-11-01T12:10:00.000Z",
    ];
    let lines: Vec<String> = times
        .iter()
        .enumerate()
        .map(|(i, t)| usage_line(&format!("c{i}"), s, 100, 1, t))
        .collect();
    let open = transcript(
        d.path(),
        "bbbbbbbb-0000-4000-8000-000000000003",
        &lines,
        times[7],
    );
    let store = Store::new(d.path());
    let check = |what: &str| {
        let mut notes = Vec::new();
        let f = gather(
            &Input::default(),
            Some(&store),
            true,
            now,
            today,
            &mut notes,
        );
        assert!(notes.is_empty(), "{what}: {notes:?}");
        let all = store.usage(None).unwrap();
        let (cost, block) = today_and_block(&all.sessions, today, now, i64::MIN);
        assert_eq!(f.today_cost, Some(cost), "{what}");
        assert_eq!(f.block, block, "{what}");
        f
    };
    let before = check("as written");
    assert_eq!(
        before.block.as_ref().expect("an open window").minutes_left,
        240
    );
    // the CLI appends a response to today's transcript: counted at once
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&open)
        .unwrap();
    std::io::Write::write_all(
        &mut f,
        (usage_line("b6", s, 5000, 5, "2026-11-01T12:30:00.000Z") + "\n").as_bytes(),
    )
    .unwrap();
    drop(f);
    let after = check("after an append");
    assert!(after.today_cost.unwrap().usd > before.today_cost.unwrap().usd);
}

/// Any JSON of a few levels, its members named from a small set (so that
/// paths meet them), arrays and scalars among them.
fn json_tree() -> impl proptest::strategy::Strategy<Value = Value> {
    use proptest::prelude::*;
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        "[a-z]{0,3}".prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 32, 4, |inner| {
        let name = prop::sample::select(vec!["a", "b", "model", "id", "0", "", "cost"]);
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            prop::collection::vec((name, inner), 0..5).prop_map(|kv| {
                Value::Object(kv.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
            }),
        ]
    })
}

proptest::proptest! {
    /// `member` finds what `Value::pointer` finds, for any JSON and any
    /// path of names with no `~` that are not array indices (arrays met on
    /// the way among them: neither takes a member of one by a name).
    #[test]
    fn a_member_is_what_the_pointer_finds(
        v in json_tree(),
        names in proptest::collection::vec(
            proptest::sample::select(vec!["a", "b", "model", "id", "", "cost"]),
            1..4,
        ),
    ) {
        let path: String = names.iter().map(|n| format!("/{n}")).collect();
        proptest::prop_assert_eq!(member(&v, &path), v.pointer(&path), "{}", path);
    }
}

/// Claude Code's JSON as text, as an attacker would write it: names in
/// `\u` escapes, a member given twice (serde_json keeps the last), members
/// of other kinds than the line reads (null, a number for a name, an
/// array for an object, a name holding `/`). `member` finds what
/// `Value::pointer` finds for every path the line reads, and the line
/// reads the escaped name and the last of a repeated member.
#[test]
fn a_member_of_json_text_is_what_the_pointer_finds() {
    let paths = [
        "/session_id",
        "/transcript_path",
        "/workspace/current_dir",
        "/cwd",
        "/model/id",
        "/model/display_name",
        "/cost/total_cost_usd",
        "/context_window/current_usage",
        "/context_window/used_percentage",
        "/context_window/context_window_size",
    ];
    let texts = [
        r#"{"\u006dodel":{"\u0069d":"esc","display_n\u0061me":"E"}}"#,
        r#"{"model":{"id":"first"},"model":{"id":"last"}}"#,
        r#"{"model":{"id":"first","id":"last"}}"#,
        r#"{"model":null,"cwd":null,"cost":null}"#,
        r#"{"model":{"id":5,"display_name":["x"]},"session_id":{"id":"s"}}"#,
        r#"{"model":"id","workspace":["current_dir"],"cost":[1]}"#,
        r#"{"model/id":"slash","":{"model":{"id":"empty name"}}}"#,
        r#"{"context_window":{"current_usage":[1,2],"used_percentage":"50"}}"#,
        r#"{"model":{"id":{"id":"deep"}},"cost":{"total_cost_usd":{"":1}}}"#,
    ];
    for text in texts {
        let v: Value = serde_json::from_str(text).unwrap();
        for p in paths {
            assert_eq!(member(&v, p), v.pointer(p), "{p} of {text}");
        }
    }
    let mut notes = Vec::new();
    let read = |t: &str, notes: &mut Vec<String>| parse_input(t.as_bytes(), notes).unwrap();
    let escaped = read(texts[0], &mut notes);
    assert_eq!(escaped.model_id.as_deref(), Some("esc"));
    assert_eq!(escaped.model_name.as_deref(), Some("E"));
    assert_eq!(read(texts[1], &mut notes).model_id.as_deref(), Some("last"));
    assert_eq!(read(texts[2], &mut notes).model_id.as_deref(), Some("last"));
    let other = read(texts[4], &mut notes);
    assert_eq!(
        (other.model_id, other.model_name, other.session_id),
        (None, None, None)
    );
    assert_eq!(read(texts[6], &mut notes).model_id, None);
    // a lone surrogate escape (`JSON.stringify` of a string cut inside an
    // emoji) is U+FFFD, not the whole line lost
    let cut = read(
        r#"{"model":{"id":"m","display_name":"Opus \ud83d"},"session_id":"s"}"#,
        &mut notes,
    );
    assert_eq!(cut.model_name.as_deref(), Some("Opus \u{FFFD}"));
    assert_eq!(cut.session_id.as_deref(), Some("s"));
}

/// A number too large for a double (`1e400`: serde_json refuses it,
/// `JSON.parse` reads Infinity, `JSON.stringify` writes `null` for one)
/// is a member the line does not have, not the whole line lost; one in a
/// string is text; anything else serde_json refuses is still refused.
#[test]
fn a_number_too_large_is_a_member_not_given() {
    let mut notes = Vec::new();
    let i = parse_input(
        br#"{"model":{"id":"m","display_name":"1e400"},"session_id":"s",
             "cost":{"total_cost_usd":1e400},"x":[-1e400,1E+999,-0.5e-400,
             100000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000],
             "context_window":{"context_window_size":2e400,"used_percentage":12.5,
               "current_usage":{"input_tokens":1e999,"output_tokens":7}},
             "cut":"\ud83d"}"#,
        &mut notes,
    )
    .unwrap();
    assert_eq!(i.model_name.as_deref(), Some("1e400"), "a string is text");
    assert_eq!(i.session_id.as_deref(), Some("s"));
    assert_eq!(i.cost_usd, None);
    assert_eq!(i.context_size, None);
    assert_eq!(i.context_percent, Some(12.5));
    assert_eq!(i.context_usage, Some(7));
    for bad in [
        r#"{"a":1e400"#,
        r#"{"a":1e400x}"#,
        r#"{"a":01e400}"#,
        r#"{"a":1e400 1}"#,
        r#"{"a":1e400,}"#,
        r#"{"a":+1e400}"#,
        r#"{"a":1.e400}"#,
        r#"{"a":.1e400}"#,
        r#"{"a":1e400e1}"#,
        r#"{"a" 1e400}"#,
        r#"{1e400:1}"#,
        r#"{"a":-}"#,
        r#"{"a":"\x"}"#,
    ] {
        let e = parse_input(bad.as_bytes(), &mut notes);
        assert!(matches!(e, Err(InputError::NotJson(_))), "{bad}: {e:?}");
    }
}

proptest::proptest! {
    /// Text made of pieces apart (numbers too large among them, strings
    /// holding one or a lone surrogate, broken numbers, structure in any
    /// order, most of it not JSON) is read as serde_json reads the same
    /// text with each number too large written `null` and each lone
    /// surrogate `\ufffd`: the same value, or refused.
    #[test]
    fn a_number_too_large_reads_as_null_and_nothing_else_changes(
        pieces in proptest::collection::vec(
            proptest::sample::select(vec![
                "1e400", "-1e400", "1E+400", "1e-400", "1", "-0.5", "2e3",
                "01", "1.", "-", "1e", "e400", "+1", "\"1e400\"", "\"\\ud83d\"",
                "\"a\"", "\"\\\\\"", "null", "true", "{", "}", "[", "]", ":", ",",
            ]),
            0..12,
        ),
        sep in proptest::sample::select(vec![" ", "\n", "\t"]),
    ) {
        let text = pieces.join(sep);
        let fair: Vec<&str> = pieces
            .iter()
            .map(|p| match *p {
                "1e400" | "-1e400" | "1E+400" => "null",
                "\"\\ud83d\"" => "\"\\ufffd\"",
                p => p,
            })
            .collect();
        let want = serde_json::from_str::<Value>(&fair.join(sep)).ok();
        proptest::prop_assert_eq!(decode_json(text.as_bytes()).ok(), want, "{}", text);
    }
}

/// Numbers at the edges, as `JSON.parse` and then `JSON.stringify` leave
/// them: an exponent past any integer is Infinity (`null`) or 0, a key or
/// a string that looks like a number too large is text, and many numbers
/// too large are each `null` (read in one pass).
#[test]
fn a_number_past_every_exponent_is_null_or_zero_and_text_is_text() {
    let read = |t: &str| decode_json(t.as_bytes()).map(|v| v.to_string()).ok();
    for (text, want) in [
        (r#"{"a":1e4294967296}"#, r#"{"a":null}"#),
        (r#"{"a":-1E+99999999999999999999}"#, r#"{"a":null}"#),
        (r#"{"a":1e-99999999999999999999}"#, r#"{"a":0.0}"#),
        (r#"{"a":0e99999999999999999999}"#, r#"{"a":0.0}"#),
        (
            r#"{"1e400":1e400,"b":"1e400"}"#,
            r#"{"1e400":null,"b":"1e400"}"#,
        ),
        (
            r#"{"a\"1e400":[1e400,"\"1e400\\",1]}"#,
            r#"{"a\"1e400":[null,"\"1e400\\",1]}"#,
        ),
        (r#"{"a":"\ud800","b":1e400}"#, r#"{"a":"�","b":null}"#),
        (r#"{"a":1e400,"b":"\ud800"}"#, r#"{"a":null,"b":"�"}"#),
    ] {
        assert_eq!(read(text).as_deref(), Some(want), "{text}");
    }
    let many = format!("[{}]", vec!["1e400"; 100_000].join(","));
    let want = format!("[{}]", vec!["null"; 100_000].join(","));
    assert_eq!(read(&many), Some(want));
}
