//! Unit tests of `sessions export`.

use super::*;
use serde_json::json;

fn sample() -> Vec<Value> {
    vec![
        json!({"type":"user","message":{"content":"fix the <b>bug</b> & ship"},"timestamp":"t0"}),
        json!({"type":"assistant","message":{"content":[{"type":"thinking","thinking":"hmm"},{"type":"text","text":"Sure:\n\n```rust\nlet x = 1;\n```\n- a *b*  \n"}]}}),
        json!({"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"cargo `test`"}}]}}),
        json!({"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"ok ```\n<script>alert(1)</script>","is_error":true}]}}),
        json!({"type":"assistant","message":{"content":[{"type":"tool_use","id":"t2","name":"Agent","input":{"description":"check"}}]}}),
        json!({"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t2","content":"launched"}]},"toolUseResult":{"agentId":"a1"}}),
        json!({"type":"user","message":{"content":"[Request interrupted by user]"}}),
        json!({"type":"user","message":{"content":"<task-notification>\n<status>completed</status>"}}),
    ]
}

fn agent(id: &str) -> Option<Vec<Value>> {
    (id == "a1").then(|| {
        vec![
            json!({"type":"user","message":{"content":"Check it."}}),
            json!({"type":"assistant","message":{"content":[{"type":"text","text":"All good."}]}}),
        ]
    })
}

#[test]
fn markdown_keeps_the_model_s_text_byte_for_byte() {
    let it = items(&sample(), false, &agent);
    let md = markdown("T", "m", &it, false);
    assert!(md.contains("## You\n\nfix the <b>bug</b> & ship\n"), "{md}");
    assert!(
        md.contains("## Claude\n\nSure:\n\n```rust\nlet x = 1;\n```\n- a *b*  \n"),
        "{md}"
    );
    assert!(!md.contains("hmm"), "thinking only on request");
    assert!(md.contains("**Bash** `` cargo `test` `` (error)"), "{md}");
    // output with a fence inside gets a longer fence
    assert!(
        md.contains("````text\nok ```\n<script>alert(1)</script>\n````"),
        "{md}"
    );
    // the sub-agent's run under its call
    assert!(md.contains("> ## You\n> \n> Check it.\n"), "{md}");
    assert!(md.contains("> All good."), "{md}");
    assert!(!md.contains("interrupted"), "{md}");
    assert!(!md.contains("task-notification"), "{md}");
    assert!(
        !md.contains("launched"),
        "an agent's launch note is left out: {md}"
    );
    let with = markdown("T", "m", &items(&sample(), true, &agent), false);
    assert!(with.contains("> hmm"), "{with}");
}

#[test]
fn html_is_inert_and_self_contained() {
    let it = items(&sample(), false, &agent);
    let page = html("<img src=x onerror=alert(1)>", "m\u{1b}[2J", &it, false);
    assert!(!page.contains("<script"), "{page}");
    assert!(!page.contains("<img"), "{page}");
    assert!(
        page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
        "{page}"
    );
    assert!(
        page.contains("fix the &lt;b&gt;bug&lt;/b&gt; &amp; ship"),
        "{page}"
    );
    assert!(!page.contains('\u{1b}'));
    assert!(
        !page.contains("http://") && !page.contains("https://"),
        "no network"
    );
    assert!(page.contains("<details><summary><b>Bash</b>"), "{page}");
    assert!(page.contains("name=\"viewport\""));
    assert!(page.contains("<div class=\"agent\">"), "{page}");
}

#[test]
fn long_output_is_cut_unless_full() {
    let long: String = (0..100).map(|i| format!("line {i}\n")).collect();
    assert!(cut_output(&long, false).ends_with("… 60 more lines"));
    assert_eq!(cut_output(&long, true), long.trim_end());
    let it = items(&sample(), false, &agent);
    let json = serde_json::to_value(&it).unwrap();
    assert_eq!(json[0]["kind"], "prompt");
    assert_eq!(json[0]["text"], "fix the <b>bug</b> & ship");
    assert_eq!(json[2]["kind"], "tool");
    // field names are camelCase, as in every other JSON output
    assert_eq!(json[2]["isError"], true);
    assert!(json[2].get("is_error").is_none());
    assert_eq!(json[3]["agent"][1]["text"], "All good.");
}

#[test]
fn an_image_is_a_marker_and_inlined_only_when_checked() {
    use base64::Engine as _;
    let png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00";
    let data = base64::engine::general_purpose::STANDARD.encode(png);
    let image = |media: &str, data: &str| {
        json!({"type":"user","message":{"content":[
            {"type":"image","source":{"type":"base64","media_type":media,"data":data}},
            {"type":"text","text":"what is wrong?"}]}})
    };
    let entries = vec![
        image("image/png", &data),
        // the media type lies about the bytes; an svg; base64 that is not
        image("image/gif", &data),
        image("image/svg+xml", &data),
        image("image/png\"><script>x</script>", &data),
        image("image/png", "iVBOR\"onerror=\"alert(1)"),
    ];
    let it = items(&entries, false, &|_| None);
    let md = markdown("T", "m", &it, false);
    assert!(
        md.contains("## You\n\n[image: image/png, 1 KB]\n\n## You\n\nwhat is wrong?"),
        "{md}"
    );
    assert_eq!(md.matches("[image]").count(), 4, "{md}");
    let page = html("T", "m", &it, false);
    assert_eq!(page.matches("<img ").count(), 1, "{page}");
    assert!(
        page.contains(&format!(
            "<img alt=\"[image: image/png, 1 KB]\" src=\"data:image/png;base64,{data}\">"
        )),
        "{page}"
    );
    assert!(!page.contains("<script"), "{page}");
    assert!(!page.contains("onerror"), "{page}");
    assert!(page.contains("img-src data:"), "only data: images may load");
    // JSON names the image, without its data
    let v = serde_json::to_value(&it[0]).unwrap();
    assert_eq!(
        v,
        json!({"kind":"image","marker":"[image: image/png, 1 KB]"})
    );
}

/// An interrupted turn, as the CLI writes it (the tool's refusal, then its
/// note `[Request interrupted by user for tool use]` in a text block, or
/// `[Request interrupted by user]` as a string): no format shows the note
/// as the person's words, and the prompt after it is the person's again.
#[test]
fn an_interruption_is_not_the_persons_words() {
    let e = vec![
        json!({"type":"user","message":{"content":"fix it"}}),
        json!({"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"make"}}]}}),
        json!({"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":"The user doesn't want to proceed with this tool use."}]}}),
        json!({"type":"user","message":{"content":[{"type":"text","text":"[Request interrupted by user for tool use]"}]}}),
        json!({"type":"user","message":{"content":"now just read it"}}),
        json!({"type":"assistant","message":{"content":[{"type":"text","text":"Reading."}]}}),
        json!({"type":"user","message":{"content":"[Request interrupted by user]"}}),
        json!({"type":"user","message":{"content":"stop"}}),
    ];
    let it = items(&e, false, &|_| None);
    let prompts: Vec<&str> = it
        .iter()
        .filter_map(|i| match i {
            Item::Prompt { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(prompts, ["fix it", "now just read it", "stop"]);
    let md = markdown("T", "m", &it, false);
    let html = html("T", "m", &it, false);
    for out in [&md, &html] {
        assert!(!out.contains("Request interrupted"), "{out}");
    }
    assert_eq!(md.matches("## You\n").count(), 3, "{md}");
    assert!(md.contains("## You\n\nstop\n"), "{md}");
    assert_eq!(html.matches("<h2>You</h2>").count(), 3, "{html}");
}

/// A `!` command and the prompt typed after it: claudio's chat sends them
/// in one entry, which was passed over whole as a note of the CLI's, the
/// prompt with it; the claude TUI writes the command and its output apart
/// (`&lt;` for `<`), which join. Every format shows the command, its
/// output and the prompt; JSON keeps them apart.
#[test]
fn a_shell_command_and_the_prompt_after_it_are_kept() {
    let e = vec![
        json!({"type":"user","message":{"content":"<bash-input>ls</bash-input>\n<bash-stdout>a.txt\n</bash-stdout><bash-stderr>warn\n</bash-stderr>\n\nwhy is a.txt here?"},"timestamp":"t1"}),
        json!({"type":"assistant","message":{"content":[{"type":"text","text":"It was made."}]}}),
        json!({"type":"user","message":{"content":"<bash-input>ls -l</bash-input>"}}),
        json!({"type":"user","message":{"content":"<bash-stdout>b -&gt; c</bash-stdout><bash-stderr></bash-stderr>"}}),
        json!({"type":"user","message":{"content":[{"type":"text","text":"<bash-input>true</bash-input>\n<bash-stdout></bash-stdout><bash-stderr></bash-stderr>\n\nand now?"}]}}),
    ];
    let it = items(&e, false, &|_| None);
    let shell = |c: &str, o: &str, er: &str, t: Option<&str>| Item::Shell {
        command: Some(c.to_owned()),
        stdout: o.to_owned(),
        stderr: er.to_owned(),
        timestamp: t.map(str::to_owned),
    };
    let prompt = |p: &str, t: Option<&str>| Item::Prompt {
        text: p.to_owned(),
        timestamp: t.map(str::to_owned),
    };
    assert_eq!(
        it,
        [
            shell("ls", "a.txt\n", "warn\n", Some("t1")),
            prompt("why is a.txt here?", Some("t1")),
            Item::Answer {
                text: "It was made.".into(),
                timestamp: None
            },
            shell("ls -l", "b -> c", "", None),
            shell("true", "", "", None),
            prompt("and now?", None),
        ]
    );
    let md = markdown("T", "m", &it, false);
    assert!(
        md.contains("## You\n\n`! ls`\n\n```text\na.txt\nwarn\n```\n\nwhy is a.txt here?\n"),
        "{md}"
    );
    assert!(md.contains("`! ls -l`\n\n```text\nb -> c\n```\n"), "{md}");
    assert!(md.contains("`! true`\n\nand now?\n"), "{md}");
    let html = html("T", "m", &it, false);
    assert!(
        html.contains("<code>! ls -l</code><pre>b -&gt; c</pre>"),
        "{html}"
    );
    assert!(html.contains("why is a.txt here?"), "{html}");
    let json = serde_json::to_value(&it).unwrap();
    assert_eq!(
        json[0],
        json!({"kind":"shell","command":"ls","stdout":"a.txt\n","stderr":"warn\n","timestamp":"t1"})
    );
}

/// White space of either kind (JavaScript's, which the claude TUI trims a
/// prompt of, Rust's, neither's) and a letter or not.
fn spaced() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    proptest::collection::vec(
        prop_oneof![
            4 => proptest::sample::select(&[
                ' ', '\t', '\n', '\r', '\u{b}', '\u{c}', '\u{1c}', '\u{85}', '\u{a0}', '\u{1680}',
                '\u{180e}', '\u{2000}', '\u{200b}', '\u{2028}', '\u{3000}', '\u{feff}',
            ][..]),
            1 => Just('a'),
        ],
        0..4,
    )
    .prop_map(|cs| cs.into_iter().collect())
}

/// A prompt of white space alone (as the listing and the title take it:
/// JavaScript's) is no prompt: no "## You" heading with nothing under it,
/// no empty section, no JSON item; an answer of it no "## Claude" either.
#[test]
fn a_prompt_or_an_answer_of_white_space_alone_is_not_exported() {
    let e = vec![
        json!({"type":"user","message":{"content":" \n\u{feff}"}}),
        json!({"type":"user","message":{"content":[{"type":"text","text":"\u{3000}"}]}}),
        json!({"type":"assistant","message":{"content":[{"type":"text","text":"\n\n"}]}}),
        json!({"type":"user","message":{"content":"\u{85}"}}),
    ];
    let it = items(&e, false, &|_| None);
    assert_eq!(
        it,
        [Item::Prompt {
            text: "\u{85}".into(),
            timestamp: None
        }]
    );
    let md = markdown("T", "m", &it, false);
    assert_eq!(md.matches("## You").count(), 1, "{md}");
    assert!(!md.contains("## Claude"), "{md}");
    assert_eq!(
        html("T", "m", &it, false).matches("<h2>You</h2>").count(),
        1
    );
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig {
        cases: 256,
        failure_persistence: None,
        ..proptest::prelude::ProptestConfig::default()
    })]
    /// Prompts and answers of white space of either kind and letters, as a
    /// string or text blocks: the export's prompts are the texts the store
    /// calls a prompt on their own (`Entry::prompt`, the listing's and the
    /// title's rule), each byte for byte in JSON; its answers those
    /// `Entry::answer` calls one; Markdown and HTML have a heading for each
    /// speaker's turn and none more.
    #[test]
    fn the_export_s_prompts_and_answers_are_the_store_s(
        turns in proptest::collection::vec(
            (proptest::collection::vec(spaced(), 1..3), proptest::bool::ANY, proptest::bool::ANY),
            1..5,
        ),
    ) {
        let mut lines = Vec::new();
        let mut prompts = Vec::new();
        let mut answers = Vec::new();
        for (texts, blocks, user) in &turns {
            let kind = if *user { "user" } else { "assistant" };
            let entry = |t: &str, block: bool| {
                let content = if block || !*user {
                    json!([{"type": "text", "text": t}])
                } else {
                    json!(t)
                };
                json!({"type": kind, "message": {"content": content}})
            };
            let one = |t: &str| claudio::store::Entry::parse(&entry(t, *blocks).to_string()).unwrap();
            for t in texts {
                if *user {
                    prompts.extend(one(t).prompt());
                } else {
                    answers.extend(one(t).answer());
                }
            }
            if *blocks || !*user {
                let content: Vec<Value> =
                    texts.iter().map(|t| json!({"type": "text", "text": t})).collect();
                lines.push(json!({"type": kind, "message": {"content": content}}));
            } else {
                lines.extend(texts.iter().map(|t| entry(t, false)));
            }
        }
        let it = items(&lines, false, &|_| None);
        let got_prompts: Vec<String> = it
            .iter()
            .filter_map(|i| match i {
                Item::Prompt { text, .. } => Some(text.clone()),
                _ => None,
            })
            .collect();
        let got_answers: Vec<String> = it
            .iter()
            .filter_map(|i| match i {
                Item::Answer { text, .. } => Some(text.clone()),
                _ => None,
            })
            .collect();
        proptest::prop_assert_eq!(&got_prompts, &prompts);
        proptest::prop_assert_eq!(&got_answers, &answers);
        let json = serde_json::to_value(&it).unwrap();
        let json_prompts: Vec<&str> = json
            .as_array()
            .unwrap()
            .iter()
            .filter(|i| i["kind"] == "prompt")
            .map(|i| i["text"].as_str().unwrap())
            .collect();
        proptest::prop_assert_eq!(json_prompts, prompts.iter().map(String::as_str).collect::<Vec<_>>());
        let md = markdown("T", "m", &it, false);
        let html = html("T", "m", &it, false);
        proptest::prop_assert_eq!(md.matches("## You").count(), prompts.len());
        proptest::prop_assert_eq!(html.matches("<h2>You</h2>").count(), prompts.len());
        let claude_turns = it
            .iter()
            .zip(std::iter::once(None).chain(it.iter().map(Some)))
            .filter(|(i, before)| {
                matches!(i, Item::Answer { .. }) && !matches!(before, Some(Item::Answer { .. }))
            })
            .count();
        proptest::prop_assert_eq!(md.matches("## Claude").count(), claude_turns);
    }
}
