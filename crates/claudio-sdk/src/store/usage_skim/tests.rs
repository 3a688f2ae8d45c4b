//! The byte-level reading against serde_json's, line by line and file by
//! file, on generated transcript lines of every shape it may meet.

use super::*;
use crate::store::usage::{cwd_serde, time_serde, usage_of, usage_of_every_line, usage_serde};

/// A generator of transcript lines from a seed (xorshift); `broken`:
/// the line it is making may be damaged (what serde refuses).
struct G(u64, bool);

impl G {
    fn new(seed: u64) -> G {
        G(seed, false)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A damage, `pct` times in a hundred, in a line that may be damaged.
    fn damage(&mut self, pct: u64) -> bool {
        self.1 && self.chance(pct)
    }

    /// One of `0..n`.
    fn pick(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// True `pct` times in a hundred.
    fn chance(&mut self, pct: u64) -> bool {
        self.next() % 100 < pct
    }

    fn of<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.pick(xs.len())]
    }

    /// Blanks between tokens: mostly none.
    fn ws(&mut self) -> &'static str {
        match self.pick(12) {
            0 => " ",
            1 => "\t ",
            2 => "\r",
            _ => "",
        }
    }

    /// `k` as a key: plain, or with its letters `\u`-escaped.
    fn key(&mut self, k: &str) -> String {
        if !self.chance(1) {
            return format!("\"{k}\"");
        }
        let mut out = String::from("\"");
        for c in k.chars() {
            if self.chance(40) {
                out.push_str(&format!("\\u{:04x}", c as u32));
            } else {
                out.push(c);
            }
        }
        out + "\""
    }

    /// A string of text: plain, or with escapes, other scripts, the
    /// keys' names, and now and then what serde refuses.
    fn text(&mut self, plain: &str) -> String {
        let body = match self.pick(16) {
            0 => format!("{plain}\\n\\\"quoted\\\" \\/ \\t"),
            1 => format!("{plain} \\u00e9\\ud83d\\ude00"),
            2 => format!("{plain} é 😀 漢字"),
            3 => "\"usage\":{\"input_tokens\":5} \\\"usage\\\"".replace('"', "\\\""),
            4 => format!("{plain}\\ud800"), // a lone surrogate
            5 if self.damage(50) => format!("{plain}\u{1}"), // a control byte
            6 if self.damage(50) => format!("{plain}\\x"), // a bad escape
            7 => "\\u0066ast".into(),
            8 => String::new(),
            _ => plain.to_owned(),
        };
        format!("\"{body}\"")
    }

    fn number(&mut self) -> String {
        if self.damage(20) {
            return self
                .of(&["007", "1.", "1e", "-", "0x10", "+1", ".5"])
                .to_owned();
        }
        self.of(&[
            "0",
            "7",
            "123456",
            "18446744073709551615",
            "18446744073709551616",
            "99999999999999999999999",
            "-3",
            "-0",
            "1.5",
            "2.0",
            "1e3",
            "1E-2",
            "-12.5e+3",
        ])
        .to_owned()
    }

    /// A count: mostly a plain integer.
    fn count(&mut self) -> String {
        match self.pick(40) {
            0 => self.number(),
            1 | 2 => "null".into(),
            3 => self.value(1),
            _ => (self.next() % 100_000).to_string(),
        }
    }

    /// Any JSON value (and now and then one that is not).
    fn value(&mut self, depth: u32) -> String {
        let n = if depth > 3 { 5 } else { 8 };
        match self.pick(n) {
            0 => "null".into(),
            1 if self.damage(30) => self.of(&["tru", "nul", "True"]).into(),
            1 => self.of(&["true", "false"]).into(),
            2 => self.number(),
            3 | 4 => {
                let w = self.of(&["usage", "fast", "us", "assistant", "x"]);
                self.text(w)
            }
            5 => {
                let items: Vec<String> = (0..self.pick(4)).map(|_| self.value(depth + 1)).collect();
                self.array(items)
            }
            _ => {
                let ks = [
                    "usage",
                    "input_tokens",
                    "timestamp",
                    "type",
                    "a",
                    "web_search_requests",
                ];
                let members: Vec<(String, String)> = (0..self.pick(4))
                    .map(|_| {
                        let k = self.of(&ks);
                        (k.to_owned(), self.value(depth + 1))
                    })
                    .collect();
                self.object(members)
            }
        }
    }

    fn array(&mut self, items: Vec<String>) -> String {
        let (a, b) = (self.ws(), self.ws());
        let mut body = items.join(&format!("{a},{b}"));
        if !items.is_empty() && self.damage(5) {
            body.push(','); // a trailing comma
        }
        format!("[{}{body}{}]", self.ws(), self.ws())
    }

    /// An object of `members` (keys unquoted): maybe reordered, one
    /// given twice, a trailing comma.
    fn object(&mut self, mut members: Vec<(String, String)>) -> String {
        if members.len() > 1 && self.chance(30) {
            let i = self.pick(members.len());
            let j = self.pick(members.len());
            members.swap(i, j);
        }
        if !members.is_empty() && self.chance(4) {
            let i = self.pick(members.len());
            let again = members[i].clone();
            members.push(again);
        }
        let parts: Vec<String> = members
            .iter()
            .map(|(k, v)| {
                let (a, b) = (self.ws(), self.ws());
                format!("{}{a}:{b}{v}", self.key(k))
            })
            .collect();
        let mut body = parts.join(&format!("{},{}", self.ws(), self.ws()));
        if !parts.is_empty() && self.damage(5) {
            body.push(',');
        }
        format!("{{{}{body}{}}}", self.ws(), self.ws())
    }

    /// A field read as any JSON (`speed`, `inference_geo`).
    fn any_text(&mut self, hit: &str) -> String {
        match self.pick(16) {
            0 => self.text(hit),
            1 => self.value(2),
            2 => "null".into(),
            3 => "\"standard\"".into(),
            4 => (self.next() % 9).to_string(),
            _ => format!("\"{hit}\""),
        }
    }

    fn usage(&mut self) -> String {
        match self.pick(20) {
            0 => return "null".into(),
            1 => return self.value(2),
            _ => {}
        }
        let mut m = Vec::new();
        for k in [
            "input_tokens",
            "output_tokens",
            "cache_creation_input_tokens",
            "cache_read_input_tokens",
        ] {
            if self.chance(85) {
                m.push((k.to_owned(), self.count()));
            }
        }
        if self.chance(70) {
            let c = match self.pick(16) {
                0 => "null".into(),
                1 => self.value(2),
                _ => {
                    let mut c = vec![("ephemeral_5m_input_tokens".to_owned(), self.count())];
                    if self.chance(80) {
                        c.push(("ephemeral_1h_input_tokens".into(), self.count()));
                    }
                    self.object(c)
                }
            };
            m.push(("cache_creation".into(), c));
        }
        if self.chance(60) {
            let v = self.any_text("fast");
            m.push(("speed".into(), v));
        }
        if self.chance(60) {
            let v = self.any_text("us");
            m.push(("inference_geo".into(), v));
        }
        if self.chance(60) {
            let v = match self.pick(16) {
                0 => self.value(2),
                _ => {
                    let mut s = vec![("web_fetch_requests".to_owned(), self.count())];
                    if self.chance(85) {
                        let n = match self.pick(16) {
                            0 => self.value(3),
                            _ => (self.next() % 9).to_string(),
                        };
                        s.push(("web_search_requests".into(), n));
                    }
                    self.object(s)
                }
            };
            m.push(("server_tool_use".into(), v));
        }
        if self.chance(30) {
            let v = self.value(2);
            m.push(("service_tier".into(), v));
        }
        self.object(m)
    }

    fn message(&mut self) -> String {
        match self.pick(16) {
            0 => return "null".into(),
            1 => return self.value(1),
            _ => {}
        }
        let mut m = Vec::new();
        if self.chance(90) {
            let id = match self.pick(20) {
                0 => self.value(2),
                1 => "\"\"".into(),
                n => format!("\"msg_{}\"", n % 3),
            };
            m.push(("id".to_owned(), id));
        }
        if self.chance(90) {
            let model = match self.pick(20) {
                0 => "\"<synthetic>\"".into(),
                1 => self.text("claude-opus-5-5"),
                2 => self.value(2),
                _ => "\"claude-sonnet-4-5\"".into(),
            };
            m.push(("model".into(), model));
        }
        m.push(("role".into(), "\"assistant\"".into()));
        if self.chance(60) {
            // content that speaks of usage
            let t = self.text("the usage was high");
            let text = self.object(vec![("type".into(), "\"text\"".into()), ("text".into(), t)]);
            let input = self.usage();
            let input = self.object(vec![("usage".into(), input)]);
            let tool = self.object(vec![
                ("type".into(), "\"tool_use\"".into()),
                ("input".into(), input),
            ]);
            let content = self.array(vec![text, tool]);
            m.push(("content".into(), content));
        } else if self.chance(50) {
            // a user's content: the word typed, or blocks one of which may
            // be a tool's result (its type given twice, or escaped)
            let content = match self.pick(4) {
                0 => self.text("tool_result"),
                _ => {
                    let mut blocks = Vec::new();
                    for _ in 0..1 + self.pick(3) {
                        let kind = match self.pick(4) {
                            0 => self.text("tool_result"),
                            1 => "\"text\"".into(),
                            2 => self.value(1),
                            _ => "\"tool_result\"".into(),
                        };
                        let mut b = vec![("type".to_owned(), kind)];
                        if self.chance(20) {
                            let w = if self.chance(50) {
                                "text"
                            } else {
                                "tool_result"
                            };
                            let again = self.text(w);
                            b.push(("type".into(), again));
                        }
                        let t = self.text("tool_result");
                        b.push(("text".into(), t));
                        blocks.push(self.object(b));
                    }
                    self.array(blocks)
                }
            };
            m.push(("content".into(), content));
        }
        if self.chance(92) {
            let u = self.usage();
            m.push(("usage".into(), u));
        }
        self.object(m)
    }

    /// A timestamp: mostly a real one, within a few days.
    fn timestamp(&mut self) -> String {
        match self.pick(24) {
            0 => self.value(1),
            1 => "\"yesterday\"".into(),
            2 => "\"2026-11-0\\u0031T10:00:00.000Z\"".into(),
            _ => format!(
                "\"2026-11-0{}T{:02}:{:02}:{:02}.{:03}Z\"",
                1 + self.pick(3),
                self.pick(24),
                self.pick(60),
                self.pick(60),
                self.pick(1000)
            ),
        }
    }

    /// A transcript line of any kind, now and then damaged.
    fn line(&mut self) -> Vec<u8> {
        self.1 = self.chance(30);
        let kind = match self.pick(16) {
            0 | 5 | 6 => "\"user\"".to_owned(),
            1 => "\"cost-state\"".into(),
            2 => self.value(1),
            3 => "\"assist\\u0061nt\"".into(),
            4 => "null".into(),
            _ => "\"assistant\"".into(),
        };
        let mut m = Vec::new();
        if self.chance(95) {
            m.push(("type".to_owned(), kind));
        }
        if self.chance(85) {
            let msg = self.message();
            m.push(("message".into(), msg));
        }
        if self.chance(85) {
            let r = match self.pick(20) {
                0 => self.value(1),
                1 => "\"\"".into(),
                n => format!("\"req_{}\"", n % 3),
            };
            m.push(("requestId".into(), r));
        }
        if self.chance(90) {
            let t = self.timestamp();
            m.push(("timestamp".into(), t));
        }
        if self.chance(40) {
            let c = match self.pick(6) {
                0 => self.value(1),
                1 => self.text("/w/é"),
                _ => "\"/work/repo\"".into(),
            };
            m.push(("cwd".into(), c));
        }
        if self.chance(40) {
            // a tool's result, where "usage" is anything at all
            let inner = self.usage();
            let out = self.text("usage: foo [--bar]");
            let v = self.object(vec![("usage".into(), inner), ("stdout".into(), out)]);
            m.push(("toolUseResult".into(), v));
        }
        if self.chance(20) {
            let v = self.value(1);
            m.push(("usage".into(), v));
        }
        if self.chance(20) {
            let v = self.value(0);
            m.push(("isSidechain".into(), v));
        }
        if self.chance(10) {
            // the word in a field of any other name
            let v = self.text("tool_result");
            m.push(("note".into(), v));
        }
        let mut line = if self.chance(3) {
            // an array: serde reads a struct from one too
            let items = m.into_iter().map(|(_, v)| v).collect();
            self.array(items)
        } else {
            self.object(m)
        };
        if self.chance(10) {
            line = format!("{}{line}{}", self.ws(), self.ws());
        }
        if self.chance(4) {
            // led by NULs and control bytes (a block a crash zero-filled)
            line = format!("\0\0\u{1}\u{b}{line}");
        }
        if self.damage(10) {
            line.push_str(self.of(&["x", "}", ",", "{}"]));
        }
        let mut bytes = line.into_bytes();
        if self.damage(25) {
            // cut short (the file's last line, written as the CLI died)
            let at = self.pick(bytes.len().max(1));
            bytes.truncate(at);
        }
        if self.damage(10) && !bytes.is_empty() {
            // a byte that is not UTF-8
            let at = self.pick(bytes.len());
            bytes.insert(at, 0xff);
        }
        bytes
    }
}

/// What the byte-level reading says of `line`, checked against serde's:
/// whenever it answers, serde takes the line and gives the same. The
/// fields it answered.
fn check(line: &[u8]) -> Result<[bool; 3], String> {
    let show = || String::from_utf8_lossy(line).into_owned();
    if is_tool_result(line) {
        // sure of a tool's result: no prompt, as the full parse reads it
        if let Ok(v) = crate::protocol::from_slice_lenient::<serde_json::Value>(line) {
            if crate::store::scan::prompt_text(&v, &mut String::new()).is_some() {
                return Err(format!("a tool result is a prompt: {}", show()));
            }
        }
    }
    let Some(s) = skim(line) else {
        return Ok([false; 3]);
    };
    let mut answered = [false; 3];
    if let Some(t) = s.timestamp() {
        answered[0] = true;
        let want = time_serde(line).ok_or_else(|| format!("serde refuses: {}", show()))?;
        if want.as_deref() != t {
            return Err(format!("timestamp {t:?} != {want:?}: {}", show()));
        }
    }
    if let Some(c) = s.cwd() {
        answered[1] = true;
        let want = cwd_serde(line).ok_or_else(|| format!("serde refuses: {}", show()))?;
        if want.as_deref() != c {
            return Err(format!("cwd {c:?} != {want:?}: {}", show()));
        }
    }
    if let Some(u) = s.usage() {
        answered[2] = true;
        let want = usage_serde(line);
        if want != u {
            return Err(format!("usage {u:?} != {want:?}: {}", show()));
        }
    }
    Ok(answered)
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]

    /// Line by line: the byte-level reading, when it answers, answers as
    /// serde_json's typed parse does (field orders, escapes, spacing,
    /// `"usage"` inside strings and tool results, fields given twice or
    /// of other types, numbers of every form, damaged and cut lines).
    #[test]
    fn a_line_read_at_the_byte_level_is_read_as_serde_reads_it(seed in 1u64..u64::MAX, n in 1usize..24) {
        let mut g = G::new(seed);
        for _ in 0..n {
            let line = g.line();
            if let Err(e) = check(&line) {
                proptest::prop_assert!(false, "{}", e);
            }
        }
    }

    /// File by file: a transcript's usage read with the byte-level
    /// reading equals serde's full parse of every line (streamed repeats
    /// of one message, a cut last line, lines split across nothing but
    /// their newline).
    #[test]
    fn a_transcript_read_at_the_byte_level_equals_the_full_parse(seed in 1u64..u64::MAX, n in 0usize..24, cut in proptest::bool::ANY) {
        let mut g = G::new(seed);
        let mut data = Vec::new();
        for _ in 0..n {
            let line = g.line();
            data.extend_from_slice(&line);
            data.push(b'\n');
            if g.chance(20) {
                // a streamed repeat of the line before
                data.extend_from_slice(&line);
                data.push(b'\n');
            }
        }
        if cut && data.len() > 1 {
            data.pop(); // the last line without its newline
            let at = g.pick(data.len());
            data.truncate(at.max(data.len() / 2));
        }
        let fast = usage_of(&data);
        let full = usage_of_every_line(&data);
        proptest::prop_assert_eq!(fast, full, "{}", String::from_utf8_lossy(&data));
    }
}

/// The generated lines reach every answer: the byte-level reading
/// answers many of them (the properties above would hold of a reading
/// that declined everything), usage among them, and declines some.
#[test]
fn the_generated_lines_are_mostly_answered_at_the_byte_level() {
    let mut g = G::new(0x9e37_79b9_7f4a_7c15);
    let (mut lines, mut usage, mut declined, mut with_usage) = (0, 0, 0, 0);
    let mut tool_results = 0;
    for _ in 0..4000 {
        let line = g.line();
        lines += 1;
        tool_results += usize::from(is_tool_result(&line));
        match check(&line) {
            Ok(a) => {
                usage += usize::from(a[2]);
                declined += usize::from(!a[2]);
            }
            Err(e) => panic!("{e}"),
        }
        if skim(&line).and_then(|s| s.usage()).flatten().is_some() {
            with_usage += 1;
        }
    }
    let counts = format!(
        "of {lines}: {usage} answered, {declined} declined, {with_usage} with usage, \
         {tool_results} sure tool results"
    );
    assert!(usage * 4 > lines, "{counts}");
    assert!(tool_results * 100 > lines, "{counts}");
    assert!(declined * 20 > lines, "{counts}");
    assert!(with_usage * 20 > lines, "{counts}");
    eprintln!("{counts}");
}

/// The lines the CLI writes are all read at the byte level: the real
/// transcripts of the test fixtures, every line of them.
#[test]
fn the_clis_own_lines_are_all_read_at_the_byte_level() {
    let root = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/sessions/real/projects"
    );
    let mut files = 0;
    let mut usage_lines = 0;
    for project in std::fs::read_dir(root).expect("the fixtures") {
        let Ok(project) = project else { continue };
        for f in std::fs::read_dir(project.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            if f.path().extension().is_none_or(|e| e != "jsonl") {
                continue;
            }
            files += 1;
            let data = std::fs::read(f.path()).expect("a fixture");
            for line in data.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
                let s = skim(line)
                    .unwrap_or_else(|| panic!("declined: {}", String::from_utf8_lossy(line)));
                assert_eq!(check(line), Ok([true; 3]));
                if s.usage().flatten().is_some() {
                    usage_lines += 1;
                }
            }
        }
    }
    assert!(
        files > 0 && usage_lines > 0,
        "{files} files, {usage_lines} usage lines"
    );
}

/// serde's derived structs take an array field by field: the full parse
/// read `["2026-11-02T21:23:16.371Z"]` as a line dated and placed by that
/// text, and a `message` given as an array as one with usage, where the
/// byte-level reading (rightly) took neither. Found by
/// `a_transcript_read_at_the_byte_level_equals_the_full_parse` (seed
/// 17799502338132987288, n = 2).
#[test]
fn an_array_is_never_read_as_a_line_nor_as_a_message() {
    let stamp = br#"["2026-11-02T21:23:16.371Z"]"#;
    assert!(time_serde(stamp).is_none());
    assert!(cwd_serde(stamp).is_none());
    let data = b"{\"type\":\"assistant\",\"message\":null}\n[\"2026-11-02T21:23:16.371Z\"]";
    assert_eq!(usage_of(data), usage_of_every_line(data));
    assert_eq!(
        usage_of_every_line(data),
        crate::store::FileUsage::default()
    );
    for line in [
        r#"{"type":"assistant","requestId":"r","timestamp":"2026-11-01T10:00:00.000Z","message":["m","claude",{"input_tokens":5}]}"#,
        r#"{"type":"assistant","requestId":"r","timestamp":"2026-11-01T10:00:00.000Z","message":{"id":"m","model":"claude","usage":[5,2]}}"#,
        r#"["assistant",{"id":"m","model":"claude","usage":{"input_tokens":5}},"r","2026-11-01T10:00:00.000Z"]"#,
    ] {
        assert!(usage_serde(line.as_bytes()).is_none(), "{line}");
        assert_eq!(
            usage_of(line.as_bytes()),
            usage_of_every_line(line.as_bytes()),
            "{line}"
        );
    }
    let one_hour = r#"{"type":"assistant","message":{"id":"m","model":"c","usage":{"input_tokens":5,"cache_creation":[3]}}}"#;
    assert!(usage_serde(one_hour.as_bytes()).is_none());
}

#[test]
fn what_it_declines_and_what_it_reads() {
    fn u(l: &str) -> Option<Option<UsageFields<'_>>> {
        skim(l.as_bytes()).and_then(|s| s.usage())
    }
    let line = r#"{"type":"assistant","requestId":"r","timestamp":"2026-11-01T10:00:00.000Z","message":{"id":"m","model":"claude","usage":{"input_tokens":5,"output_tokens":2,"cache_creation":{"ephemeral_1h_input_tokens":3},"speed":"fast","inference_geo":"us","server_tool_use":{"web_search_requests":4}}}}"#;
    let got = u(line).flatten().expect("read");
    assert_eq!(got, usage_serde(line.as_bytes()).expect("serde reads it"));
    assert_eq!(got.tokens.cache_write_1h, 3);
    assert!(got.fast && got.us_only);
    assert_eq!(got.web_searches, 4);
    // an escaped key, a count that is a float, a field twice, cut short
    for bad in [
        line.replace("\"usage\"", "\"\\u0075sage\""),
        line.replace(":5,", ":5.0,"),
        line.replace(
            "\"input_tokens\":5,",
            "\"input_tokens\":5,\"input_tokens\":5,",
        ),
        line[..line.len() - 1].to_owned(),
        format!("[{line}]"),
    ] {
        assert_eq!(u(&bad), None, "{bad}");
    }
    // another kind: no usage, whatever its other fields
    let user = line.replace("\"assistant\"", "\"user\"");
    assert_eq!(u(&user), Some(None));
}

proptest::proptest! {
    /// A string's plain run, read 8 bytes at a time when short and by
    /// `memchr` and a vector pass when long, ends at the first quote,
    /// backslash or control byte, as the byte-by-byte rule says; runs of
    /// every length, the stop anywhere (in the first word, past the
    /// short part, in the last bytes), or none.
    #[test]
    fn a_plain_run_ends_where_the_byte_by_byte_rule_ends_it(
        bytes in proptest::collection::vec(
            proptest::prop_oneof![
                300 => 0x20u8..=0xff,
                1 => proptest::strategy::Just(b'"'),
                1 => proptest::strategy::Just(b'\\'),
                1 => 0u8..0x20,
            ],
            0..400,
        ),
        from in 0usize..400,
    ) {
        let s = &bytes[from.min(bytes.len())..];
        let rule = s
            .iter()
            .take_while(|&&c| c != b'"' && c != b'\\' && c >= 0x20)
            .count();
        proptest::prop_assert_eq!(super::plain_run(s), rule);
    }
}

proptest::proptest! {
    /// In a line with no control byte, a string's plain run read two
    /// words at a time and by `memchr` past 64 bytes ends at the first
    /// quote or backslash, as the byte-by-byte rule (and so
    /// [`plain_run`](super::plain_run)) ends it; runs of every length,
    /// the stop in either word of a pair, past the pairs, or none.
    #[test]
    fn a_clean_plain_run_ends_where_the_byte_by_byte_rule_ends_it(
        bytes in proptest::collection::vec(
            proptest::prop_oneof![
                200 => 0x20u8..=0xff,
                1 => proptest::strategy::Just(b'"'),
                1 => proptest::strategy::Just(b'\\'),
            ],
            0..300,
        ),
        from in 0usize..300,
    ) {
        let s = &bytes[from.min(bytes.len())..];
        let rule = s.iter().take_while(|&&c| c != b'"' && c != b'\\').count();
        proptest::prop_assert_eq!(super::plain_run_clean(s), rule);
        proptest::prop_assert_eq!(super::plain_run(s), rule);
    }
}

/// A line is read as clean only when none of its bytes is a control
/// byte: one anywhere (a string's, or a blank between members) and its
/// strings are read by the rule that stops at control bytes, so a string
/// holding one is declined as serde declines it, however long the line.
#[test]
fn a_control_byte_anywhere_makes_the_line_read_by_the_full_rule() {
    let long = "x".repeat(300);
    let ok = format!("{{\"timestamp\":\"t\",\"a\":\"{long}\"}}");
    assert!(P::new(ok.as_bytes()).clean);
    assert_eq!(
        skim(ok.as_bytes()).and_then(|s| s.timestamp()),
        Some(Some("t"))
    );
    for at in [0, 1, 70, 299] {
        let mut bad = long.clone().into_bytes();
        bad[at] = 0x1f;
        let bad = String::from_utf8(bad).unwrap();
        let line = format!("{{\"timestamp\":\"t\",\"a\":\"{bad}\"}}");
        assert!(!P::new(line.as_bytes()).clean);
        assert!(skim(line.as_bytes()).is_none(), "{at}");
        assert!(time_serde(line.as_bytes()).is_none());
    }
    // a tab between members: not clean, and still read
    let tabbed = format!("{{\"timestamp\":\"t\",\t\"a\":\"{long}\"}}");
    assert!(!P::new(tabbed.as_bytes()).clean);
    assert_eq!(
        skim(tabbed.as_bytes()).and_then(|s| s.timestamp()),
        Some(Some("t"))
    );
}
