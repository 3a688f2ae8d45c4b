//! `claudio sessions export ID`: a conversation as Markdown, HTML or JSON.
//!
//! The conversation is the chain the CLI resumes. Prompts and answers are
//! written as they were (the model's markdown untouched), each tool call as
//! one summary line with its output (cut, unless `--full`), a sub-agent's
//! run under the call that started it, thinking only with `--thinking`.

use super::io::{Io, SessionsOutcome};
use crate::cli::common::exit::{usage_error, Exit};
use crate::cli::sanitize::Sanitizer;
use crate::cli::turn::summary::tool_summary;
use anyhow::Context;
use clap::{Args, ValueEnum};
use claudio::store::{SessionFile, Store};
use serde::Serialize;
use serde_json::Value;
use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;

/// Output formats of `export`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Markdown, to paste into an issue or a doc.
    Md,
    /// One self-contained HTML page (no scripts, no network).
    Html,
    /// The visible conversation as one JSON array.
    Json,
}

/// What `export -o` names: a format, or (the old spelling of `-O`) a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    Format(Format),
    File(PathBuf),
}

/// `-o`'s parser: md, html or json is the format; any other value was
/// the file to write when `-o` meant that, and still is (with a warning).
/// Help and completions offer the formats only.
#[derive(Debug, Clone, Copy)]
struct TargetParser;

impl clap::builder::TypedValueParser for TargetParser {
    type Value = Target;

    fn parse_ref(
        &self,
        _cmd: &clap::Command,
        _arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<Target, clap::Error> {
        Ok(
            match value.to_str().and_then(|v| Format::from_str(v, false).ok()) {
                Some(f) => Target::Format(f),
                None => Target::File(PathBuf::from(value)),
            },
        )
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new(
            Format::value_variants()
                .iter()
                .filter_map(ValueEnum::to_possible_value),
        ))
    }
}

/// `export --help`'s notes.
pub(super) const HELP: &str = "\
-o json prints the visible conversation as one array of items, each with a
kind: prompt {text, timestamp}, shell {command, stdout, stderr, timestamp}
(a ! command the person ran), image {marker}, answer {text, timestamp},
thinking {text}, tool {id, name, input (as recorded), output, isError, agent
(a sub-agent's run: items again)}.

-o was the file to write before it was the format: a value other than md,
html or json is still taken as the file (with a warning); -O FILE says it.

Examples:
  claudio sessions export 3f2a9c1e -O notes.md
  claudio sessions export 3f2a9c1e -o html -O session.html
  claudio sessions export 3f2a9c1e -o json | jq '.[] | select(.kind == \"tool\") | .name'";

/// Arguments of `sessions export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// Session id or unique prefix.
    pub id: String,
    /// md, html or json [default: md].
    #[arg(short = 'o', long, value_name = "FORMAT", value_parser = TargetParser)]
    pub output: Option<Target>,
    /// Write to this file (else stdout).
    #[arg(short = 'O', long, value_name = "FILE")]
    pub output_file: Option<PathBuf>,
    /// The old spelling of `-o FORMAT`.
    #[arg(short = 'f', long, value_enum, hide = true)]
    pub format: Option<Format>,
    /// Keep every line of tool output (else the first 40 of each).
    #[arg(long)]
    pub full: bool,
    /// Include the model's thinking.
    #[arg(long)]
    pub thinking: bool,
}

/// Lines of tool output kept without `--full`.
const OUTPUT_LINES: usize = 40;

/// One visible piece of a conversation.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(
    tag = "kind",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
pub enum Item {
    /// What the person typed.
    Prompt {
        text: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        timestamp: Option<String>,
    },
    /// An image the person attached (`[image: image/png, 12 KB]`).
    Image(super::images::Shown),
    /// A `!` command the person ran and what it printed (`command` is
    /// `None` for output whose command is not in the transcript).
    Shell {
        #[serde(skip_serializing_if = "Option::is_none")]
        command: Option<String>,
        stdout: String,
        stderr: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        timestamp: Option<String>,
    },
    /// The model's answer text (markdown).
    Answer {
        text: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        timestamp: Option<String>,
    },
    /// The model's thinking (only with `--thinking`).
    Thinking { text: String },
    /// A tool call, its output, and a sub-agent's run when it started one.
    Tool {
        id: String,
        name: String,
        input: Value,
        #[serde(skip_serializing_if = "Option::is_none")]
        output: Option<String>,
        is_error: bool,
        #[serde(skip_serializing_if = "Option::is_none")]
        agent: Option<Vec<Item>>,
    },
}

/// The visible items of transcript entries, in order. `agents` finds a
/// sub-agent's transcript by its agent id.
pub fn items(
    entries: &[Value],
    thinking: bool,
    agents: &dyn Fn(&str) -> Option<Vec<Value>>,
) -> Vec<Item> {
    let mut out: Vec<Item> = Vec::new();
    let mut tools: HashMap<String, usize> = HashMap::new();
    for v in entries {
        if v.get("isMeta").and_then(Value::as_bool) == Some(true) {
            continue;
        }
        let ts = v
            .get("timestamp")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let content = v.get("message").and_then(|m| m.get("content"));
        match (v.get("type").and_then(Value::as_str), content) {
            (Some("user"), Some(Value::String(s))) if is_prompt(s) => {
                out.push(Item::Prompt {
                    text: s.clone(),
                    timestamp: ts,
                });
            }
            (Some("user"), Some(Value::String(s))) => shell_items(s, &ts, &mut out),
            (Some("user"), Some(Value::Array(blocks))) => {
                for b in blocks {
                    match b.get("type").and_then(Value::as_str) {
                        Some("text") => {
                            let t = b.get("text").and_then(Value::as_str).unwrap_or("");
                            if is_prompt(t) {
                                out.push(Item::Prompt {
                                    text: t.to_owned(),
                                    timestamp: ts.clone(),
                                });
                            } else {
                                shell_items(t, &ts, &mut out);
                            }
                        }
                        Some("image") => out.push(Item::Image(super::images::Shown::of(b))),
                        Some("tool_result") => {
                            let id = b.get("tool_use_id").and_then(Value::as_str).unwrap_or("");
                            let Some(&i) = tools.get(id) else { continue };
                            let agent_run = v
                                .get("toolUseResult")
                                .and_then(|r| r.get("agentId"))
                                .and_then(Value::as_str)
                                .and_then(agents)
                                .map(|e| items(&e, thinking, &|_| None));
                            if let Item::Tool {
                                output,
                                is_error,
                                agent,
                                ..
                            } = &mut out[i]
                            {
                                *output = Some(result_text(b.get("content")));
                                *is_error =
                                    b.get("is_error").and_then(Value::as_bool) == Some(true);
                                if agent_run.is_some() {
                                    *agent = agent_run;
                                }
                            }
                        }
                        _ => {}
                    }
                }
            }
            (Some("assistant"), Some(Value::Array(blocks))) => {
                for b in blocks {
                    match b.get("type").and_then(Value::as_str) {
                        // white space alone is no answer (`Entry::answer`)
                        Some("text") => {
                            let t = b.get("text").and_then(Value::as_str).unwrap_or("");
                            if claudio::store::trim_prompt(t).is_empty() {
                                continue;
                            }
                            out.push(Item::Answer {
                                text: t.to_owned(),
                                timestamp: ts.clone(),
                            });
                        }
                        Some("thinking") if thinking => {
                            let t = b.get("thinking").and_then(Value::as_str).unwrap_or("");
                            if !t.is_empty() {
                                out.push(Item::Thinking { text: t.to_owned() });
                            }
                        }
                        Some("tool_use") => {
                            let id = b.get("id").and_then(Value::as_str).unwrap_or("").to_owned();
                            tools.insert(id.clone(), out.len());
                            out.push(Item::Tool {
                                id,
                                name: b
                                    .get("name")
                                    .and_then(Value::as_str)
                                    .unwrap_or("?")
                                    .to_owned(),
                                input: b.get("input").cloned().unwrap_or(Value::Null),
                                output: None,
                                is_error: false,
                                agent: None,
                            });
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// Whether a user entry's text (or one of its text blocks) is a prompt
/// as written: not a note of the CLI's, and not white space alone as the
/// listing and the title take it (JavaScript's, as the claude TUI trims),
/// which has no words to show under a heading. A note goes to
/// [`shell_items`]; white space alone to nothing (it holds no command).
fn is_prompt(text: &str) -> bool {
    !claudio::store::is_cli_note(text) && !claudio::store::trim_prompt(text).is_empty()
}

/// The `!` commands at the start of a user entry's text, and the prompt
/// typed after them, as the store reads them (claudio's chat sends a run
/// and the next prompt in one entry; the claude TUI writes a command and
/// its output apart: the output joins its command). Other notes of the
/// CLI's add nothing.
fn shell_items(text: &str, ts: &Option<String>, out: &mut Vec<Item>) {
    let line = serde_json::json!({"type": "user", "message": {"content": text}}).to_string();
    let Ok(entry) = claudio::store::Entry::parse(&line) else {
        return;
    };
    for run in entry.shell_runs() {
        if run.command.is_none() {
            if let Some(Item::Shell {
                command: Some(_),
                stdout,
                stderr,
                ..
            }) = out.last_mut()
            {
                if stdout.is_empty() && stderr.is_empty() {
                    (*stdout, *stderr) = (run.stdout, run.stderr);
                    continue;
                }
            }
        }
        out.push(Item::Shell {
            command: run.command,
            stdout: run.stdout,
            stderr: run.stderr,
            timestamp: ts.clone(),
        });
    }
    if let Some(text) = entry.prompt() {
        out.push(Item::Prompt {
            text,
            timestamp: ts.clone(),
        });
    }
}

/// A tool result's text, as the protocol reads it (the string, or its text
/// blocks joined by newlines).
fn result_text(content: Option<&Value>) -> String {
    content
        .and_then(|c| serde_json::from_value::<claudio::protocol::MessageContent>(c.clone()).ok())
        .map(|c| c.text())
        .unwrap_or_default()
}

/// Output cut to `OUTPUT_LINES` lines (unless `full`), with a note of the rest.
fn cut_output(text: &str, full: bool) -> String {
    let lines: Vec<&str> = text.lines().collect();
    if full || lines.len() <= OUTPUT_LINES {
        return text.trim_end_matches('\n').to_owned();
    }
    let mut s = lines[..OUTPUT_LINES].join("\n");
    s.push_str(&format!(
        "\n{}",
        crate::cli::term::text::more_lines(lines.len() - OUTPUT_LINES)
    ));
    s
}

/// The longest run of backticks in `text`.
fn longest_backticks(text: &str) -> usize {
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        if c == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    longest
}

/// A code fence longer than any run of backticks in `text`.
fn fence_for(text: &str) -> String {
    "`".repeat((longest_backticks(text) + 1).max(3))
}

/// The one-line summary of a tool call.
fn summary(name: &str, input: &Value) -> String {
    tool_summary(name, input).replace('\n', " ")
}

/// Markdown: headings for who speaks, answers as written.
pub fn markdown(title: &str, meta: &str, items: &[Item], full: bool) -> String {
    let mut out = format!("# {}\n\n*{}*\n", one_line(title), one_line(meta));
    md_items(items, full, &mut out, "");
    out
}

fn one_line(s: &str) -> String {
    s.replace(['\n', '\r'], " ")
}

/// Whether `text`, as Markdown, leaves nothing open that would take in what
/// follows it: an unclosed code fence, or an HTML block that runs until a
/// closing tag (`<pre>`, `<script>`, `<!--`, ...). Checked by parsing it with
/// a heading after it, as a CommonMark reader would: the heading must come
/// out as the document's last block.
fn closes_itself(text: &str) -> bool {
    use pulldown_cmark::{Event, HeadingLevel, Parser, Tag, TagEnd};
    const PROBE: &str = "claudio-export-structure-probe";
    let doc = format!("{text}\n\n# {PROBE}\n");
    let mut depth = 0usize;
    // the last top-level block: a level-1 heading, and its text
    let mut last_heading: Option<String> = None;
    for ev in Parser::new(&doc) {
        match ev {
            Event::Start(tag) => {
                if depth == 0 {
                    last_heading = matches!(
                        tag,
                        Tag::Heading {
                            level: HeadingLevel::H1,
                            ..
                        }
                    )
                    .then(String::new);
                }
                depth += 1;
            }
            Event::End(end) => {
                depth = depth.saturating_sub(1);
                if depth == 0 && !matches!(end, TagEnd::Heading(_)) {
                    last_heading = None;
                }
            }
            Event::Text(t) if depth == 1 => {
                if let Some(h) = last_heading.as_mut() {
                    h.push_str(&t);
                }
            }
            _ if depth == 0 => last_heading = None,
            _ => {}
        }
    }
    last_heading.as_deref() == Some(PROBE)
}

/// A prompt's or an answer's text as Markdown: as written, unless it would
/// change the document's structure; then as a fenced block of plain text
/// (longer than any run of backticks in it), so no byte of it is lost.
fn contained(text: &str) -> String {
    if closes_itself(text) {
        return text.to_owned();
    }
    let f = fence_for(text);
    format!("{f}text\n{text}\n{f}")
}

fn md_items(items: &[Item], full: bool, out: &mut String, quote: &str) {
    let mut speaker = "";
    let push = |out: &mut String, text: &str| {
        for line in text.split('\n') {
            out.push_str(quote);
            out.push_str(line);
            out.push('\n');
        }
    };
    for item in items {
        match item {
            Item::Prompt { text, .. } => {
                push(out, "");
                // a prompt sent after `!` commands goes on under their heading
                if speaker != "shell" {
                    push(out, "## You");
                    push(out, "");
                }
                push(out, &contained(text));
                speaker = "you";
            }
            Item::Image(i) => {
                push(out, &i.markdown(&contained(&i.marker), speaker == "you"));
                speaker = "you";
            }
            Item::Shell {
                command,
                stdout,
                stderr,
                ..
            } => {
                if speaker != "you" && speaker != "shell" {
                    push(out, "");
                    push(out, "## You");
                }
                speaker = "shell";
                push(out, "");
                let c = format!("! {}", command.as_deref().unwrap_or("…"));
                let f = "`".repeat(longest_backticks(&c) + 1);
                push(
                    out,
                    &format!("{f}{}{}{}{f}", pad(&c), one_line(&c), pad(&c)),
                );
                let o = cut_output(&shell_output(stdout, stderr), full);
                if !o.trim().is_empty() {
                    let f = fence_for(&o);
                    push(out, "");
                    push(out, &format!("{f}text\n{o}\n{f}"));
                }
            }
            Item::Answer { text, .. } => {
                push(out, "");
                if speaker != "claude" {
                    push(out, "## Claude");
                    push(out, "");
                }
                push(out, &contained(text));
                speaker = "claude";
            }
            Item::Thinking { text } => {
                push(out, "");
                let text = contained(text);
                let quoted: Vec<String> = text.split('\n').map(|l| format!("> {l}")).collect();
                push(out, "> *Thinking*");
                push(out, ">");
                push(out, &quoted.join("\n"));
            }
            Item::Tool {
                name,
                input,
                output,
                is_error,
                agent,
                ..
            } => {
                if speaker != "claude" {
                    push(out, "");
                    push(out, "## Claude");
                    speaker = "claude";
                }
                push(out, "");
                let s = summary(name, input);
                let code = if s.is_empty() {
                    String::new()
                } else {
                    let f = "`".repeat(longest_backticks(&s) + 1);
                    format!(" {f}{}{s}{}{f}", pad(&s), pad(&s))
                };
                let err = if *is_error { " (error)" } else { "" };
                push(out, &format!("**{}**{code}{err}", one_line(name)));
                if let Some(run) = agent {
                    let inner = format!("{quote}> ");
                    md_items(run, full, out, &inner);
                    out.push_str(quote);
                    out.push('\n');
                }
                // an agent's launch note is no output worth keeping
                let output = output.as_deref().filter(|_| agent.is_none());
                if let Some(o) = output.filter(|o| !o.trim().is_empty()) {
                    let o = cut_output(o, full);
                    let f = fence_for(&o);
                    push(out, "");
                    push(out, &format!("{f}text\n{o}\n{f}"));
                }
            }
        }
    }
}

/// A `!` command's output as one text: stdout, then stderr.
fn shell_output(stdout: &str, stderr: &str) -> String {
    match (stdout.trim_end().is_empty(), stderr.trim_end().is_empty()) {
        (_, true) => stdout.trim_end().to_owned(),
        (true, false) => stderr.trim_end().to_owned(),
        (false, false) => format!("{}\n{}", stdout.trim_end(), stderr.trim_end()),
    }
}

/// Inline code starting or ending with a backtick needs a space inside.
fn pad(s: &str) -> &'static str {
    if s.starts_with('`') || s.ends_with('`') {
        " "
    } else {
        ""
    }
}

/// Text safe inside HTML (and without control characters, which HTML does
/// not allow). Bidi overrides and isolates, which would reorder what the
/// reader sees (a file name shown backwards, say), are shown as their code
/// point instead, in brackets.
fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\n' | '\t' => out.push(c),
            c if c.is_control() => {}
            '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' => {
                out.push_str(&format!("[U+{:04X}]", c as u32));
            }
            c => out.push(c),
        }
    }
    out
}

const CSS: &str = "\
:root{color-scheme:light dark;--fg:#1f2328;--bg:#fff;--muted:#656d76;--line:#d0d7de;--you:#f3f6fa;--code:#f6f8fa}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--bg:#0d1117;--muted:#8d96a0;--line:#30363d;--you:#161b22;--code:#161b22}}
*{box-sizing:border-box}body{margin:0;background:var(--bg);color:var(--fg);font:16px/1.55 system-ui,-apple-system,'Segoe UI',sans-serif}
main{max-width:52rem;margin:0 auto;padding:1rem}h1{font-size:1.4rem;margin:.5rem 0}.meta{color:var(--muted);font-size:.85rem;margin:0 0 1.5rem}
section{margin:1rem 0;padding:.75rem 1rem;border-radius:8px}section.you{background:var(--you)}section.claude{border-left:3px solid var(--line)}
h2{font-size:.8rem;text-transform:uppercase;letter-spacing:.05em;color:var(--muted);margin:0 0 .4rem}
.text{white-space:pre-wrap;overflow-wrap:anywhere}.text img{max-width:100%;height:auto}
details{margin:.5rem 0;border:1px solid var(--line);border-radius:6px;padding:.3rem .6rem}summary{cursor:pointer;overflow-wrap:anywhere}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:var(--code);padding:.5rem;border-radius:4px;font:13px/1.45 ui-monospace,SFMono-Regular,Menlo,monospace;margin:.4rem 0}
code{font:13px ui-monospace,SFMono-Regular,Menlo,monospace}.err{color:#cf222e}.thinking{color:var(--muted);font-style:italic}
.agent{margin:.5rem 0 .5rem .5rem;padding-left:.75rem;border-left:2px dashed var(--line)}
";

/// One self-contained page: inline CSS, no scripts, every text escaped,
/// tool output folded.
pub fn html(title: &str, meta: &str, items: &[Item], full: bool) -> String {
    let mut out = String::from("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">\n");
    out.push_str(&format!(
        "<title>{}</title>\n<style>\n{CSS}</style>\n</head>\n<body>\n<main>\n",
        esc(title)
    ));
    out.push_str(&format!(
        "<h1>{}</h1>\n<p class=\"meta\">{}</p>\n",
        esc(title),
        esc(meta)
    ));
    html_items(items, full, &mut out);
    out.push_str("</main>\n</body>\n</html>\n");
    out
}

fn html_items(items: &[Item], full: bool, out: &mut String) {
    let mut open = "";
    let close = |out: &mut String, open: &mut &str| {
        if !open.is_empty() {
            out.push_str("</section>\n");
            *open = "";
        }
    };
    for item in items {
        match item {
            Item::Prompt { text, .. } => {
                close(out, &mut open);
                out.push_str(&format!(
                    "<section class=\"you\"><h2>You</h2><div class=\"text\">{}</div></section>\n",
                    esc(text)
                ));
            }
            Item::Image(i) => {
                close(out, &mut open);
                out.push_str(&i.html(&esc(&i.marker)));
            }
            Item::Shell {
                command,
                stdout,
                stderr,
                ..
            } => {
                close(out, &mut open);
                let o = cut_output(&shell_output(stdout, stderr), full);
                let o = if o.trim().is_empty() {
                    String::new()
                } else {
                    format!("<pre>{}</pre>", esc(&o))
                };
                out.push_str(&format!(
                    "<section class=\"you\"><h2>You</h2><code>! {}</code>{o}</section>\n",
                    esc(command.as_deref().unwrap_or("…"))
                ));
            }
            Item::Answer { text, .. } => {
                if open != "claude" {
                    close(out, &mut open);
                    out.push_str("<section class=\"claude\"><h2>Claude</h2>\n");
                    open = "claude";
                }
                out.push_str(&format!("<div class=\"text\">{}</div>\n", esc(text)));
            }
            Item::Thinking { text } => {
                if open != "claude" {
                    close(out, &mut open);
                    out.push_str("<section class=\"claude\"><h2>Claude</h2>\n");
                    open = "claude";
                }
                out.push_str(&format!(
                    "<div class=\"text thinking\">{}</div>\n",
                    esc(text)
                ));
            }
            Item::Tool {
                name,
                input,
                output,
                is_error,
                agent,
                ..
            } => {
                if open != "claude" {
                    close(out, &mut open);
                    out.push_str("<section class=\"claude\"><h2>Claude</h2>\n");
                    open = "claude";
                }
                let err = if *is_error {
                    " <span class=\"err\">(error)</span>"
                } else {
                    ""
                };
                out.push_str(&format!(
                    "<details><summary><b>{}</b> <code>{}</code>{err}</summary>\n",
                    esc(name),
                    esc(&summary(name, input))
                ));
                if let Some(run) = agent {
                    out.push_str("<div class=\"agent\">\n");
                    html_items(run, full, out);
                    out.push_str("</div>\n");
                }
                let output = output.as_deref().filter(|_| agent.is_none());
                if let Some(o) = output.filter(|o| !o.trim().is_empty()) {
                    out.push_str(&format!("<pre>{}</pre>\n", esc(&cut_output(o, full))));
                }
                out.push_str("</details>\n");
            }
        }
    }
    close(out, &mut open);
}

/// A sub-agent's transcript beside the session's
/// (`<id>/subagents/<agent>.jsonl`), read as the store reads it: a link, a
/// FIFO or a device there is no transcript.
fn agent_entries(file: &SessionFile, agent_id: &str) -> Option<Vec<Value>> {
    let entries = file.subagent_messages(agent_id).ok()?;
    Some(entries.into_iter().map(|e| e.value).collect())
}

/// The format and the file (`None`: stdout) that `-o`, `-O` and the old
/// `-f` and `-o FILE` ask for; two formats or two files are a usage error.
fn target(a: &ExportArgs, io: &mut Io) -> anyhow::Result<(Format, Option<PathBuf>)> {
    let (format, old_file) = match &a.output {
        Some(Target::Format(f)) => (Some(*f), None),
        Some(Target::File(p)) => (None, Some(p.clone())),
        None => (None, None),
    };
    let format = match (format, a.format) {
        (Some(o), Some(f)) if o != f => {
            return Err(usage_error!(
                "-o and -f name two formats: give one, with -o"
            ))
        }
        (o, f) => o.or(f).unwrap_or(Format::Md),
    };
    let file = match (old_file, &a.output_file) {
        (Some(p), Some(_)) => {
            return Err(usage_error!(
                "-o {} is not a format (md, html or json)",
                crate::cli::common::folder::shown(&p)
            ))
        }
        (Some(p), None) => {
            io.warn(&format!(
                "-o is the format now (md, html or json): writing {0}, but say it with -O {0}",
                crate::cli::common::folder::shown(&p)
            ));
            Some(p)
        }
        (None, f) => f.clone(),
    };
    Ok((format, file))
}

/// Write `bytes` as the file `path`, whole or not at all: into a new file
/// beside it, synced, then renamed over it (a link at `path` is replaced,
/// never written through). What is there must be a regular file or a
/// link: a FIFO would hang the export, a device or folder is no file to
/// replace. A failed write leaves the old file as it was, and no
/// temporary file behind.
fn write_whole(path: &std::path::Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::{Error, ErrorKind};
    use std::os::unix::fs::OpenOptionsExt;
    match std::fs::symlink_metadata(path) {
        Ok(m) if !m.file_type().is_file() && !m.file_type().is_symlink() => {
            return Err(Error::new(
                ErrorKind::InvalidInput,
                "it is not a regular file (use -O - for stdout)",
            ))
        }
        _ => {}
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    let name = path
        .file_name()
        .map_or("export".into(), |n| n.to_string_lossy());
    for n in 0..100u32 {
        let tmp = dir.join(format!(".{name}.claudio-{}-{n}.tmp", std::process::id()));
        let mut f = match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32)
            .mode(0o666)
            .open(&tmp)
        {
            Ok(f) => f,
            Err(e) if e.kind() == ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        };
        let done = f
            .write_all(bytes)
            .and_then(|()| f.sync_all())
            .and_then(|()| std::fs::rename(&tmp, path));
        if done.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        return done;
    }
    Err(Error::new(
        ErrorKind::AlreadyExists,
        "no free temporary name beside it",
    ))
}

pub(super) fn export(store: &Store, a: ExportArgs, io: &mut Io) -> anyhow::Result<SessionsOutcome> {
    let (format, out_file) = target(&a, io)?;
    let (file, conv) = store.conversation(&a.id)?;
    let entries: Vec<Value> = conv.entries.iter().map(|e| e.value.clone()).collect();
    let list = items(&entries, a.thinking, &|agent| agent_entries(&file, agent));
    let info = store.info_file(&file).ok();
    let title = info
        .as_ref()
        .map(|i| i.title.clone())
        .filter(|t| !claudio::store::trim_prompt(t).is_empty())
        .unwrap_or_else(|| format!("Session {}", file.id));
    let mut meta = format!("Claude Code session {}", file.id);
    if let Some(i) = &info {
        if let Some(cwd) = &i.cwd {
            meta.push_str(&format!(" · {cwd}"));
        }
        let branch = crate::cli::common::git::RecordedBranches::default()
            .shown(i.git_branch.as_deref(), i.cwd.as_deref());
        if let Some(b) = &branch {
            meta.push_str(&format!(" · {b}"));
        }
        meta.push_str(&format!(
            " · {}",
            claudio::store::format_iso_millis(i.last_modified)
        ));
        if i.from_archive {
            meta.push_str(" · from claudio's archive");
        }
    }
    let text = match format {
        Format::Md => markdown(&title, &meta, &list, a.full),
        Format::Html => html(&title, &meta, &list, a.full),
        Format::Json => {
            let mut s = serde_json::to_string_pretty(&list)?;
            s.push('\n');
            s
        }
    };
    // `-O -` is stdout
    match &out_file.filter(|p| p.as_os_str() != "-") {
        Some(p) => write_whole(p, text.as_bytes())
            .with_context(|| format!("could not write {}", crate::cli::common::folder::shown(p)))?,
        // on a terminal, nothing in it may act on the terminal; to a file
        // or a pipe, every byte as recorded
        None if io.out_tty => {
            io.out.write_all(Sanitizer::clean(&text).as_bytes())?;
            io.out.flush()?;
        }
        None => {
            io.out.write_all(text.as_bytes())?;
            io.out.flush()?;
        }
    }
    Ok(SessionsOutcome::Done(Exit::Success))
}

#[cfg(test)]
mod tests;
