//! The regex prefilter checked against a search without one, on fixture
//! stores (moved here from tests/it/search.rs, which included this file).

use super::*;
use claudio::store::{SearchOptions, Store};
use proptest::prelude::*;
use regex_automata::{meta, util::syntax};
use serde_json::{json, Value};
use std::ops::ControlFlow;
use std::sync::Arc;
use std::time::{Duration, UNIX_EPOCH};

/// A store in a temporary folder, its sessions in one project.
struct Fixture {
    dir: tempfile::TempDir,
}

impl Fixture {
    fn new() -> Fixture {
        let f = Fixture {
            dir: tempfile::tempdir().unwrap(),
        };
        std::fs::create_dir_all(f.folder()).unwrap();
        f
    }

    fn folder(&self) -> std::path::PathBuf {
        self.dir.path().join("projects/-work-shop")
    }

    fn store(&self) -> Store {
        Store::new(self.dir.path())
    }
}

/// A regex as the program builds it, its matcher and its syntax tree.
fn regex_of(pattern: &str, ignore_case: bool) -> Option<(MatchFn, regex_syntax::hir::Hir)> {
    let config = syntax::Config::new()
        .case_insensitive(ignore_case)
        .multi_line(true);
    let re = meta::Builder::new().syntax(config).build(pattern).ok()?;
    let hir = syntax::parse_with(pattern, &config).ok()?;
    let find: MatchFn = Arc::new(move |t: &str| re.find_iter(t).map(|m| m.range()).collect());
    Some((find, hir))
}

/// Every session's hits, as JSON, newest first.
fn all_hits(store: &Store, pattern: Pattern, tools: bool) -> Vec<Value> {
    let opts = SearchOptions::new(pattern)
        .tools(tools)
        .hits_per_session(1000);
    let mut found = Vec::new();
    store
        .search(&opts, |s| {
            found.push(s);
            ControlFlow::Continue(())
        })
        .unwrap();
    found
        .into_iter()
        .map(|s| json!({"id": s.info.session_id, "hits": s.hits, "more": s.more}))
        .collect()
}

/// How a transcript line is written on disk.
#[derive(Debug, Clone, Copy)]
enum Form {
    /// As the CLI writes it.
    Compact,
    /// Non-ASCII as `\uXXXX` (surrogate pairs beyond the BMP).
    Ascii,
    /// `/` as `\/`.
    Solidus,
    /// A space after each `:` and `,` between items.
    Spaced,
    /// `¤` written as the byte 0xFF (invalid UTF-8, read as U+FFFD).
    Invalid,
}

const FORMS: [Form; 5] = [
    Form::Compact,
    Form::Ascii,
    Form::Solidus,
    Form::Spaced,
    Form::Invalid,
];

/// A compact JSON line in another form.
fn rewrite(line: &str, form: Form) -> Vec<u8> {
    let mut out = String::new();
    let (mut in_str, mut esc) = (false, false);
    for c in line.chars() {
        match form {
            Form::Ascii if !c.is_ascii() => {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{u:04x}"));
                }
                continue;
            }
            Form::Solidus if c == '/' => {
                out.push_str("\\/");
                continue;
            }
            _ => {}
        }
        out.push(c);
        if in_str {
            if esc {
                esc = false;
            } else if c == '\\' {
                esc = true;
            } else if c == '"' {
                in_str = false;
            }
        } else if c == '"' {
            in_str = true;
        } else if matches!(form, Form::Spaced) && (c == ':' || c == ',') {
            out.push(' ');
        }
    }
    match form {
        Form::Invalid => {
            let mut bytes = Vec::new();
            for c in out.chars() {
                match c {
                    '¤' => bytes.push(0xFF),
                    c => bytes.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
                }
            }
            bytes
        }
        _ => out.into_bytes(),
    }
}

/// The lines of one session: a prompt, an answer with a tool call (its
/// input's keys out of the order a parse gives), a tool's output.
fn session_lines(id: &str, texts: &[String]) -> Vec<String> {
    let s = |i: usize| serde_json::to_string(&texts[i % texts.len()]).unwrap();
    let head = |n: usize| {
        format!(
            r#""uuid":"{id}-{n}","sessionId":"{id}","cwd":"/work/shop","timestamp":"2026-11-01T10:00:0{n}.000Z","isSidechain":false"#
        )
    };
    vec![
        format!(
            r#"{{"type":"user","message":{{"role":"user","content":{}}},{}}}"#,
            s(0),
            head(0)
        ),
        format!(
            r#"{{"type":"assistant","message":{{"role":"assistant","content":[{{"type":"text","text":{}}},{{"type":"tool_use","id":"t1","name":{},"input":{{"zeta":{},"alpha":[{}]}}}}]}},{}}}"#,
            s(1),
            s(2),
            s(3),
            s(4),
            head(1)
        ),
        format!(
            r#"{{"type":"user","message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"t1","content":[{{"type":"text","text":{}}},{{"type":"text","text":{}}}]}},{{"type":"text","text":{}}}]}},{}}}"#,
            s(5),
            s(6),
            s(7),
            head(2)
        ),
    ]
}

/// Pieces of transcript text: case pairs (the Kelvin sign and the long s
/// fold with `k` and `s`), escapes, a newline, `/`, non-ASCII.
const TEXT: &[&str] = &[
    "a",
    "b",
    "k",
    "K",
    "\u{212A}",
    "s",
    "S",
    "\u{17F}",
    "é",
    "É",
    "\"",
    "\\",
    "/",
    "\n",
    "\t",
    "1",
    "7",
    " ",
    "{",
    ":",
    ",",
    "-",
    "quokka",
    "QUOKKA-rare-77",
    "¤",
    "\u{FFFD}",
    "😀",
    "ab",
];

/// Pieces of regexes (literals, classes, anchors), each with a text it
/// matches.
const ATOMS: &[(&str, &str)] = &[
    ("a", "a"),
    ("b", "b"),
    ("k", "k"),
    ("K", "K"),
    ("s", "s"),
    ("é", "é"),
    ("\"", "\""),
    (r#"say "hi""#, r#"say "hi""#),
    (r"\\", "\\"),
    (r"a\\b", "a\\b"),
    ("/", "/"),
    ("a/b", "a/b"),
    (r"\n", "\n"),
    (r"\t", "\t"),
    ("1", "1"),
    ("-", "-"),
    ("[ab]", "b"),
    ("[^a]", "\n"),
    (r"\d", "7"),
    (r"\w", "k"),
    (r"\s", "\n"),
    (".", "é"),
    ("quokka", "quokka"),
    ("rare", "rare"),
    (r"\x{FFFD}", "\u{FFFD}"),
    ("¤", "¤"),
    (r"\x{212A}", "\u{212A}"),
    ("ſ", "ſ"),
    ("😀", "😀"),
    ("^", ""),
    ("$", ""),
    (r"\b", ""),
    (":", ":"),
    (",", ","),
];

/// A regex drawn from a small grammar, with a text it may match (anchors
/// aside).
fn regex_strategy() -> impl Strategy<Value = (String, String)> {
    let leaf = prop::sample::select(ATOMS).prop_map(|(r, t)| (r.to_owned(), t.to_owned()));
    leaf.prop_recursive(4, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 1..5).prop_map(|v| {
                let (r, t): (Vec<String>, Vec<String>) = v.into_iter().unzip();
                (r.concat(), t.concat())
            }),
            (inner.clone(), inner.clone(), any::<bool>()).prop_map(|((a, ta), (b, tb), first)| {
                (format!("(?:{a}|{b})"), if first { ta } else { tb })
            }),
            (
                inner,
                prop::sample::select(&["*", "+", "?", "{1,3}", "{2}"][..])
            )
                .prop_map(|((a, t), op)| {
                    let times = if op == "{2}" { 2 } else { 1 };
                    (format!("(?:{a}){op}"), t.repeat(times))
                }),
        ]
    })
}

fn text_strategy() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(TEXT), 0..10).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// The prefiltered search (raw bytes first, then the lines it lets
    /// through) finds exactly what parsing every line finds, whatever form
    /// the lines take.
    #[test]
    fn the_regex_prefilter_never_changes_the_hits(
        (pattern, example) in regex_strategy(),
        ignore_case in any::<bool>(),
        upper in any::<bool>(),
        tools in any::<bool>(),
        mut texts in prop::collection::vec(text_strategy(), 8),
        at in 0..8usize,
    ) {
        // the text a match may come from, in one of the strings
        let example = if upper { example.to_uppercase() } else { example };
        texts[at].push_str(&example);
        let Some((find, hir)) = regex_of(&pattern, ignore_case) else {
            return Err(TestCaseError::reject("not a regex"));
        };
        let f = Fixture::new();
        for (i, form) in FORMS.iter().enumerate() {
            let id = format!("{i:08}-1111-4111-8111-111111111111");
            let mut bytes = Vec::new();
            for line in session_lines(&id, &texts) {
                bytes.extend(rewrite(&line, *form));
                bytes.push(b'\n');
            }
            let p = f.folder().join(format!("{id}.jsonl"));
            std::fs::write(&p, bytes).unwrap();
            let file = std::fs::File::options().write(true).open(&p).unwrap();
            file.set_modified(UNIX_EPOCH + Duration::from_secs(1_800_000_000 + i as u64)).unwrap();
        }
        let store = f.store();
        let want = all_hits(&store, Pattern::Custom(find.clone()), tools);
        let fast = regex_pattern(find, Some(&hir), tools);
        let got = all_hits(&store, fast.clone(), tools);
        prop_assert_eq!(got, want, "{:?} with {:?}", pattern, fast);
    }
}

/// Characters whose case folds in ways beyond ASCII: the long s, the
/// Kelvin sign, the sigmas (final too), Greek with a tonos, sharp s, the
/// Turkish i's; and ASCII around them.
const CASED: &[&str] = &[
    "s", "S", "\u{17F}", "k", "K", "\u{212A}", "σ", "ς", "Σ", "ί", "Ί", "ΐ", "é", "É", "ß", "ẞ",
    "i", "I", "İ", "ı", "e", "c", "E", "\"", " ", "/",
];

/// `text` with each character replaced by one of its case folding class
/// (as regex-syntax folds it), the `pick`s choosing which.
fn fold_variant(text: &str, picks: &[usize]) -> String {
    text.chars()
        .enumerate()
        .map(|(i, c)| {
            let mut class =
                regex_syntax::hir::ClassUnicode::new([regex_syntax::hir::ClassUnicodeRange::new(
                    c, c,
                )]);
            class.case_fold_simple();
            let all: Vec<char> = class
                .ranges()
                .iter()
                .flat_map(|r| r.start()..=r.end())
                .collect();
            all[picks[i % picks.len()] % all.len()]
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// A literal and the regex of the same text find the same hits, and
    /// both what a matcher run on every line finds, with case folded or
    /// not: one folding rule, ripgrep's (`sessions search secret` found
    /// nothing in `ſecret`, which `search -e secret` found: the fourth
    /// attack round). The lines are written in every form (`\u`-escaped,
    /// spaced ...), so the literal's raw-bytes prefilter is checked too.
    #[test]
    fn a_literal_and_its_regex_fold_case_alike(
        needle in prop::collection::vec(prop::sample::select(CASED), 1..5),
        picks in prop::collection::vec(0usize..4, 1..6),
        ignore_case in any::<bool>(),
        tools in any::<bool>(),
        mut texts in prop::collection::vec(
            prop::collection::vec(prop::sample::select(CASED), 0..8).prop_map(|v| v.concat()),
            8,
        ),
        at in 0..8usize,
    ) {
        let needle = needle.concat();
        texts[at].push_str(&fold_variant(&needle, &picks));
        let escaped = regex_syntax::escape(&needle);
        let (find, hir) = regex_of(&escaped, ignore_case).expect("an escaped literal is a regex");
        let f = Fixture::new();
        for (i, form) in FORMS.iter().enumerate() {
            let id = format!("{i:08}-1111-4111-8111-111111111111");
            let mut bytes = Vec::new();
            for line in session_lines(&id, &texts) {
                bytes.extend(rewrite(&line, *form));
                bytes.push(b'\n');
            }
            let p = f.folder().join(format!("{id}.jsonl"));
            std::fs::write(&p, bytes).unwrap();
            let file = std::fs::File::options().write(true).open(&p).unwrap();
            file.set_modified(UNIX_EPOCH + Duration::from_secs(1_800_000_000 + i as u64)).unwrap();
        }
        let store = f.store();
        let full = all_hits(&store, Pattern::Custom(find.clone()), tools);
        let literal = all_hits(
            &store,
            Pattern::Literal { text: needle.clone(), ignore_case },
            tools,
        );
        prop_assert_eq!(&literal, &full, "literal {:?}", needle);
        let regex = all_hits(&store, regex_pattern(find, Some(&hir), tools), tools);
        prop_assert_eq!(&regex, &full, "regex {:?}", escaped);
    }
}

/// The repros of the fourth attack round: a literal finds what `-e` finds.
#[test]
fn a_literal_finds_what_its_regex_finds_in_unicode_case() {
    let f = Fixture::new();
    let id = "00000000-1111-4111-8111-111111111111";
    let texts: Vec<String> = ["the ſecret is out", "ΣΊΣΥΦΟΣ rolls"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let lines = session_lines(id, &texts).join("\n") + "\n";
    std::fs::write(f.folder().join(format!("{id}.jsonl")), lines).unwrap();
    let store = f.store();
    for (needle, ic) in [("secret", true), ("SECRET", true), ("σίσυφος", true)] {
        let hits = all_hits(
            &store,
            Pattern::Literal {
                text: needle.into(),
                ignore_case: ic,
            },
            false,
        );
        assert_eq!(hits.len(), 1, "{needle}: {hits:?}");
        let (find, hir) = regex_of(&regex_syntax::escape(needle), ic).unwrap();
        assert_eq!(
            all_hits(&store, regex_pattern(find, Some(&hir), false), false),
            hits,
            "{needle}"
        );
    }
}

#[test]
fn a_regex_s_literals_are_looked_for_in_the_raw_bytes() {
    let lits = |p: &str, ic: bool| {
        let (_, hir) = regex_of(p, ic).unwrap();
        required_literals(&hir).map(|mut l| {
            l.sort();
            l.into_iter()
                .map(|l| String::from_utf8_lossy(&l).into_owned())
                .collect::<Vec<_>>()
        })
    };
    // a prefix; an inner literal; a suffix; nothing to look for
    assert_eq!(lits(r"quokka-rare-\d+", false).unwrap(), ["quokka-rare-"]);
    assert_eq!(lits(r"\w+-rare-\d+", false).unwrap(), ["-rare-"]);
    assert_eq!(lits(r"\w+@example\.com", false).unwrap(), ["@example.com"]);
    assert_eq!(lits(r"\w+", false), None);
    // the rarest set: not a common word of the text
    assert_eq!(lits(r"^the\s+quokka\b", false).unwrap(), ["quokka"]);
    // case folded: every variant, the Kelvin sign with `k`
    let folded = lits(r"quokka-rare-\d+", true).unwrap();
    assert!(folded.len() > 1 && folded.len() <= 64, "{folded:?}");
    assert!(
        folded
            .iter()
            .all(|l| l.eq_ignore_ascii_case(&folded[0]) || l.contains('\u{212A}')),
        "{folded:?}"
    );
    // anchored: the prefilter, without the line scan; with tools a match
    // across a newline is not looked for in a line
    let pat = |p: &str, tools: bool| {
        let (find, hir) = regex_of(p, false).unwrap();
        format!("{:?}", regex_pattern(find, Some(&hir), tools))
    };
    assert!(pat(r"^quokka\d", false).starts_with("Prefiltered { any_of: [\"quokka\"], scan: false"));
    assert!(pat(r"quokka\s+rare", false).contains("scan: true"));
    assert!(pat(r"quokka\s+rare", true).contains("scan: false"));
    assert!(pat(r"quokka[^x]rare", true).contains("scan: false"));
    assert!(pat(r"quokka rare", true).contains("scan: true"));
    assert_eq!(pat(r"\w+\s", false), "Scan(..)");
    assert_eq!(pat(r"^\w+", false), "Custom(..)");
}

/// The score the sets were chosen by before (floating point, the maths
/// library's `exp2` and `log2`), higher is better: the reference the exact
/// [`Chance`] is checked against.
fn float_score(seq: &Seq) -> Option<f64> {
    let lits = seq.literals()?;
    if lits.is_empty() {
        return Some(f64::INFINITY);
    }
    if lits.len() > MAX_LITERALS || lits.iter().any(|l| l.as_bytes().is_empty()) {
        return None;
    }
    let chance: f64 = lits
        .iter()
        .map(|l| {
            let bits: f64 = l
                .as_bytes()
                .iter()
                .map(|b| f64::from(rarity(*b)) / 2.0)
                .sum();
            (-bits.min(48.0)).exp2()
        })
        .sum();
    Some(-chance.log2())
}

/// The exact chance as a float, to compare with the old one's.
fn as_float(c: Chance) -> f64 {
    (c.whole as f64 + c.root as f64 * std::f64::consts::SQRT_2) / 2f64.powi(49)
}

fn seq_of(lits: &[Vec<u8>]) -> Seq {
    Seq::new(lits.iter().map(|l| l.as_slice()))
}

/// Whether two old scores are so close that floating point's rounding, not
/// the bytes' rarity, ordered them.
fn near_tie(a: f64, b: f64) -> bool {
    a == b
        || (a.is_finite()
            && b.is_finite()
            && (a - b).abs() <= 1e-12 * a.abs().max(b.abs()).max(1.0))
}

#[test]
fn one_literal_s_chance_is_the_old_exp2() {
    // every literal of up to six bytes of each rarity (4, 5.5, 7, 9, 10
    // and 11 bits), past the cap of 48 bits: its chance is 2^-(bits), as
    // the maths library's exp2 gave it, to the bit
    let classes = [b'e', b'h', b'f', b'k', 0x80, b'j'];
    let mut seen = std::collections::BTreeSet::new();
    for len in 1..=6u32 {
        for n in 0..6usize.pow(len) {
            let lit: Vec<u8> = (0..len).map(|i| classes[n / 6usize.pow(i) % 6]).collect();
            let exact = as_float(chance(&seq_of(std::slice::from_ref(&lit))).unwrap());
            let bits: f64 = lit.iter().map(|b| f64::from(rarity(*b)) / 2.0).sum();
            let old = (-bits.min(48.0)).exp2();
            assert_eq!(exact.to_bits(), old.to_bits(), "{lit:?}");
            seen.insert(rarity_sum(&lit));
        }
    }
    // whole and half bits, under and over the cap
    assert!(seen.contains(&8) && seen.contains(&11) && seen.contains(&95));
    assert!(seen.contains(&96) && seen.contains(&97) && seen.contains(&132));
}

fn rarity_sum(lit: &[u8]) -> u32 {
    lit.iter().map(|b| rarity(*b)).sum()
}

#[test]
fn chances_compare_exactly() {
    let c = |whole, root| Chance { whole, root };
    // 1 + √2 against 2 + √2 / 2-ish: √2 ≈ 1.41421356
    assert!(c(1, 1).less(&c(3, 0))); // 2.414 < 3
    assert!(!c(3, 0).less(&c(1, 1)));
    assert!(c(0, 7).less(&c(10, 0))); // 9.899 < 10
    assert!(!c(0, 8).less(&c(11, 0))); // 11.31 > 11
    assert!(c(11, 0).less(&c(0, 8)));
    assert!(!c(5, 5).less(&c(5, 5)));
    assert!(c(0, 0).less(&c(1, 0)));
    // the largest: 64 literals of 2^49 each, either way
    let big = 64u64 << 49;
    assert!(c(big - 1, big).less(&c(big, big)));
    assert!(c(0, big - 1).less(&c(0, big)));
    assert!(c(big, 0).less(&c(0, big)));
}

fn literal_strategy() -> impl Strategy<Value = Vec<u8>> {
    let bytes = prop::sample::select(&b"etahd.-_{kxQjqz\x01\xc3\xa9 "[..]);
    prop::collection::vec(bytes, 0..9)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// The exact chance orders two sets of literals as the old score did,
    /// but where the old scores tied to within floating point's rounding.
    #[test]
    fn the_exact_chance_orders_sets_as_the_old_score(
        a in prop::collection::vec(literal_strategy(), 0..70),
        b in prop::collection::vec(literal_strategy(), 0..70),
    ) {
        let (a, b) = (seq_of(&a), seq_of(&b));
        let (old_a, old_b) = (float_score(&a), float_score(&b));
        let (new_a, new_b) = (chance(&a), chance(&b));
        prop_assert_eq!(old_a.is_some(), new_a.is_some());
        prop_assert_eq!(old_b.is_some(), new_b.is_some());
        if let (Some(oa), Some(ob), Some(na), Some(nb)) = (old_a, old_b, new_a, new_b) {
            if !near_tie(oa, ob) {
                prop_assert_eq!(oa > ob, na.less(&nb), "{} {} {:?} {:?}", oa, ob, na, nb);
                prop_assert_eq!(ob > oa, nb.less(&na));
            }
        }
    }

    /// A regex's literals are the set the old score chose, but where two
    /// sets' old scores tied to within floating point's rounding.
    #[test]
    fn a_regex_s_literals_are_the_old_score_s_choice(
        (pattern, _) in regex_strategy(),
        ignore_case in any::<bool>(),
    ) {
        let Some((_, hir)) = regex_of(&pattern, ignore_case) else {
            return Ok(());
        };
        let seqs = candidate_sets(&hir);
        let mut old: Option<(f64, &Seq)> = None;
        for seq in &seqs {
            if let Some(score) = float_score(seq) {
                if old.is_none_or(|(b, _)| score > b) {
                    old = Some((score, seq));
                }
            }
        }
        let lits = |s: &Seq| s.literals().map(|l| l.iter().map(|l| l.as_bytes().to_vec()).collect::<Vec<_>>());
        let old_lits = old.and_then(|(_, s)| lits(s));
        let new = required_literals(&hir);
        if new != old_lits {
            // another set only where the old scores were a tie
            let score_of = |l: &Option<Vec<Vec<u8>>>| {
                seqs.iter().find(|s| &lits(s) == l).and_then(float_score)
            };
            let (o, n) = (score_of(&old_lits), score_of(&new));
            prop_assert!(
                matches!((o, n), (Some(o), Some(n)) if near_tie(o, n)),
                "{}: {:?} chose {:?}, the old score {:?}", pattern, o, n, old_lits
            );
        }
    }
}
