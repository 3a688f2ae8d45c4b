//! The conversation of a session as the CLI resumes it: the chain from the
//! newest main-chain leaf back through `parentUuid`, with the CLI's repairs
//! (compaction relinks, parallel tool calls put back in place).

use super::error::StoreResult;
use super::lines::{Passed, Transcript};
use crate::protocol::MessageContent;
use serde::Deserialize;
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::path::Path;

/// One transcript line of the conversation.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Entry {
    /// The line as stored, without its newline (invalid UTF-8, if any, as U+FFFD).
    pub raw: String,
    /// The line, parsed.
    pub value: Value,
}

impl Entry {
    /// The entry's `type` (`user`, `assistant`, `system`, `attachment`, `progress`).
    pub fn kind(&self) -> &str {
        self.value.get("type").and_then(Value::as_str).unwrap_or("")
    }

    /// The entry's `uuid`.
    pub fn uuid(&self) -> &str {
        self.value.get("uuid").and_then(Value::as_str).unwrap_or("")
    }

    /// The entry's `timestamp`, if any.
    pub fn timestamp(&self) -> Option<&str> {
        self.value.get("timestamp").and_then(Value::as_str)
    }

    /// The message's content (`message.content`), as the protocol reads it:
    /// a string, or blocks. `None` when there is none, or it is neither.
    pub fn content(&self) -> Option<MessageContent> {
        MessageContent::deserialize(self.value.get("message")?.get("content")?).ok()
    }

    /// One transcript line, parsed (`raw` is kept as given).
    ///
    /// ```
    /// let e = claudio::store::Entry::parse(r#"{"type":"user","message":{"content":"hi"}}"#)?;
    /// assert_eq!(e.prompt().as_deref(), Some("hi"));
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    pub fn parse(line: &str) -> Result<Entry, serde_json::Error> {
        Ok(Entry {
            raw: line.to_owned(),
            value: crate::protocol::from_str_lenient(line)?,
        })
    }

    /// The text of a user entry's message: the string, or its text blocks
    /// joined by a newline; `None` for a tool result (or no text).
    pub(super) fn user_text(&self) -> Option<String> {
        if self.kind() != "user" {
            return None;
        }
        let text = match self.value.get("message")?.get("content")? {
            Value::String(s) => s.clone(),
            Value::Array(blocks) => {
                if blocks
                    .iter()
                    .any(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"))
                {
                    return None;
                }
                blocks
                    .iter()
                    .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
                    .filter_map(|b| b.get("text").and_then(Value::as_str))
                    .collect::<Vec<_>>()
                    .join("\n")
            }
            _ => return None,
        };
        (!js_trim(&text).is_empty()).then_some(text)
    }

    /// Whether this is a user entry the CLI wrote itself, not the person: a
    /// meta entry (`isMeta`), a compaction summary, a note such as
    /// `<task-notification>` or an interruption ([`is_cli_note`](super::is_cli_note)),
    /// or `!` commands alone (see [`shell_runs`](Self::shell_runs));
    /// [`Said::is_note`](super::Said::is_note).
    pub fn is_note(&self) -> bool {
        self.said().is_note()
    }

    /// The prompt the person typed, when this entry is one: a user entry's
    /// text (its text blocks joined by a newline), not a tool result, a
    /// side chain's entry or a [note](Self::is_note). The `!` commands sent
    /// in front of it ([`shell_runs`](Self::shell_runs)) are left out: a
    /// prompt sent after a `!` command is a prompt.
    ///
    /// ```
    /// use claudio::store::Entry;
    /// let typed = Entry::parse(r#"{"type":"user","message":{"content":[{"type":"text","text":"fix it"}]}}"#)?;
    /// assert_eq!(typed.prompt().as_deref(), Some("fix it"));
    /// let note = Entry::parse(r#"{"type":"user","message":{"content":"<task-notification>done</task-notification>"}}"#)?;
    /// assert!(note.is_note() && note.prompt().is_none());
    /// let after = Entry::parse(r#"{"type":"user","message":{"content":"<bash-input>ls</bash-input>\n<bash-stdout>a\n</bash-stdout><bash-stderr></bash-stderr>\n\nwhy a?"}}"#)?;
    /// assert_eq!(after.prompt().as_deref(), Some("why a?"));
    /// assert_eq!(after.shell_runs()[0].command.as_deref(), Some("ls"));
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    pub fn prompt(&self) -> Option<String> {
        if self.is_sidechain() {
            return None;
        }
        match self.said() {
            super::Said::You { prompt, .. } => prompt,
            _ => None,
        }
    }

    /// The `!` commands at the start of a user entry, as the claude TUI
    /// writes them (`<bash-input>`, then `<bash-stdout>` and `<bash-stderr>`,
    /// in one entry or the next) and as claudio's chat sends them in front
    /// of the next prompt. Empty for any other entry.
    pub fn shell_runs(&self) -> Vec<ShellRun> {
        match self.said() {
            super::Said::You { shell, .. } => shell,
            _ => Vec::new(),
        }
    }

    /// The assistant's answer in this entry: its text blocks joined by a
    /// newline; `None` for other entries, or one with no text (a tool call
    /// alone) or only white space, as JavaScript's `trim()` takes it (a
    /// prompt's rule: [`trim_prompt`](crate::store::trim_prompt)).
    ///
    /// ```
    /// let e = claudio::store::Entry::parse(
    ///     r#"{"type":"assistant","message":{"content":[{"type":"text","text":"Done."},{"type":"tool_use","id":"t","name":"Bash","input":{}}]}}"#)?;
    /// assert_eq!(e.answer().as_deref(), Some("Done."));
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    pub fn answer(&self) -> Option<String> {
        if self.kind() != "assistant" {
            return None;
        }
        let blocks = self.value.get("message")?.get("content")?.as_array()?;
        let text = blocks
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n");
        (!js_trim(&text).is_empty()).then_some(text)
    }
}

/// A `!` command the person ran, and what it printed, as a transcript
/// keeps it ([`Entry::shell_runs`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ShellRun {
    /// The command (`None` for output whose command is in an entry
    /// before).
    pub command: Option<String>,
    /// What it wrote to stdout.
    pub stdout: String,
    /// What it wrote to stderr (with a note of a failing exit status).
    pub stderr: String,
}

/// The `!` command blocks at the start of `text`, and the text after them.
/// A block whose closing tag is missing ends them (it is text).
pub(super) fn split_shell(text: &str) -> (Vec<ShellRun>, &str) {
    if let Some(run) = tui_output(text) {
        return (vec![run], "");
    }
    let mut runs: Vec<ShellRun> = Vec::new();
    let mut rest = text;
    loop {
        let t = rest.trim_start_matches(is_js_space);
        let block = |tag: &str| -> Option<(&str, &str)> {
            let open = format!("<{tag}>");
            let close = format!("</{tag}>");
            let body = t.strip_prefix(open.as_str())?;
            let end = body.find(close.as_str())?;
            Some((&body[..end], &body[end + close.len()..]))
        };
        if let Some((cmd, after)) = block("bash-input") {
            runs.push(ShellRun {
                command: Some(js_trim(cmd).to_owned()),
                ..ShellRun::default()
            });
            rest = after;
        } else if let Some((out, after)) = block("bash-stdout") {
            if runs
                .last()
                .is_none_or(|r| !r.stdout.is_empty() || !r.stderr.is_empty())
            {
                runs.push(ShellRun::default());
            }
            if let Some(r) = runs.last_mut() {
                r.stdout = out.to_owned();
            }
            rest = after;
        } else if let Some((err, after)) = block("bash-stderr") {
            if runs.last().is_none_or(|r| !r.stderr.is_empty()) {
                runs.push(ShellRun::default());
            }
            if let Some(r) = runs.last_mut() {
                r.stderr = err.to_owned();
            }
            rest = after;
        } else {
            return (runs, rest);
        }
    }
}

/// An entry the claude TUI wrote for a `!` command's output (it starts
/// with `<bash-stdout>` or `<bash-stderr>`; claudio's chat always puts the
/// command first), read as the TUI reads it back: all of it is output,
/// each part up to its *last* closing tag, with the `&amp;`, `&lt;` and
/// `&gt;` the TUI writes for `&`, `<` and `>` read back as those. Read as
/// written, `ls -l` showed its links as `a -&gt; b`; read to the first
/// tag, an output holding one (as a writer that does not escape leaves
/// it) made the rest the session's prompt and title.
fn tui_output(text: &str) -> Option<ShellRun> {
    const OUT: (&str, &str) = ("<bash-stdout>", "</bash-stdout>");
    const ERR: (&str, &str) = ("<bash-stderr>", "</bash-stderr>");
    // the body of `text`'s block if it starts with one, to the last close,
    // and what follows that close
    let block = |text: &'_ str, (open, close): (&str, &str)| -> Option<(String, usize)> {
        let body = text.strip_prefix(open)?;
        let end = body.rfind(close)?;
        Some((unescape(&body[..end]), open.len() + end + close.len()))
    };
    let t = text.trim_start_matches(is_js_space);
    if !t.starts_with(OUT.0) && !t.starts_with(ERR.0) {
        return None;
    }
    let mut run = ShellRun::default();
    let mut after = t;
    let mut found = false;
    if let Some((stdout, used)) = block(t, OUT) {
        run.stdout = stdout;
        after = &t[used..];
        found = true;
    }
    let after = after.trim_start_matches(is_js_space);
    let rest = match block(after, ERR) {
        Some((stderr, used)) => {
            run.stderr = stderr;
            found = true;
            &after[used..]
        }
        None => after,
    };
    // the TUI's entry ends with its last part; text after it is a prompt
    // a person typed after tags of their own, read as one
    (found && js_trim(rest).is_empty()).then_some(run)
}

/// `&amp;`, `&lt;` and `&gt;` read back as `&`, `<` and `>`, in one pass
/// (`&amp;lt;` is `&lt;`), as the claude TUI reads its `!` output; any
/// other `&` is itself.
fn unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        let (c, used) = [("&amp;", '&'), ("&lt;", '<'), ("&gt;", '>')]
            .iter()
            .find(|(e, _)| tail.starts_with(e))
            .map_or(('&', 1), |&(e, c)| (c, e.len()));
        out.push(c);
        rest = &tail[used..];
    }
    out.push_str(rest);
    out
}

/// The conversation of a session, oldest first.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct Conversation {
    /// The entries of the main chain in order (every entry type on it).
    pub entries: Vec<Entry>,
    /// Lines of [`MAX_LINE`](super::MAX_LINE) bytes or more, passed over
    /// unread: what they held is not in `entries`.
    pub long_lines: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    User,
    Assistant,
    System,
    Attachment,
    Progress,
}

/// What the chain needs to know about an entry; the line itself stays on disk.
#[derive(Debug, Clone)]
pub(crate) struct Node {
    pub uuid: String,
    pub parent: Option<String>,
    pub kind: Kind,
    pub sidechain: bool,
    team: bool,
    is_meta: bool,
    fork_briefing: bool,
    compact: Option<Compact>,
    msg_id: Option<String>,
    tool_use_ids: Vec<String>,
    tool_result_ids: Vec<String>,
    tool_result_user: bool,
    source_tool_assistant: Option<String>,
    agent_id: Option<Value>,
    timestamp: Option<String>,
    pub offset: u64,
    pub len: usize,
}

#[derive(Debug, Clone)]
enum Compact {
    Messages {
        uuids: Vec<String>,
        anchor: Option<String>,
    },
    Segment {
        head: Option<String>,
        anchor: Option<String>,
        tail: Option<String>,
    },
}

fn str_of(v: Option<&Value>) -> Option<String> {
    v.and_then(Value::as_str).map(str::to_owned)
}

fn block_ids(v: &Value, ty: &str, key: &str) -> Vec<String> {
    let Some(Value::Array(blocks)) = v.get("message").and_then(|m| m.get("content")) else {
        return Vec::new();
    };
    blocks
        .iter()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some(ty))
        .filter_map(|b| str_of(b.get(key)))
        .collect()
}

impl Node {
    pub(crate) fn from_value(v: &Value, offset: u64, len: usize) -> Option<Node> {
        let kind = match v.get("type")?.as_str()? {
            "user" => Kind::User,
            "assistant" => Kind::Assistant,
            "system" => Kind::System,
            "attachment" => Kind::Attachment,
            "progress" => Kind::Progress,
            _ => return None,
        };
        let uuid = v.get("uuid")?.as_str()?.to_owned();
        let compact = (kind == Kind::System
            && v.get("subtype").and_then(Value::as_str) == Some("compact_boundary"))
        .then(|| v.get("compactMetadata"))
        .flatten()
        .and_then(|m| {
            if let Some(pm) = m.get("preservedMessages").filter(|x| truthy(Some(x))) {
                let uuids = pm.get("uuids").and_then(Value::as_array)?;
                return Some(Compact::Messages {
                    uuids: uuids.iter().filter_map(|u| str_of(Some(u))).collect(),
                    anchor: str_of(pm.get("anchorUuid")),
                });
            }
            let ps = m.get("preservedSegment").filter(|x| truthy(Some(x)))?;
            Some(Compact::Segment {
                head: str_of(ps.get("headUuid")),
                anchor: str_of(ps.get("anchorUuid")),
                tail: str_of(ps.get("tailUuid")),
            })
        });
        let tool_result_ids = block_ids(v, "tool_result", "tool_use_id");
        let parent = str_of(v.get("parentUuid")).filter(|p| !p.is_empty());
        let tool_result_user = kind == Kind::User
            && parent.is_some()
            && matches!(v.get("message").and_then(|m| m.get("content")), Some(Value::Array(b))
                if b.iter().any(|x| x.get("type").and_then(Value::as_str) == Some("tool_result")));
        Some(Node {
            uuid,
            parent,
            kind,
            sidechain: truthy(v.get("isSidechain")),
            team: truthy(v.get("teamName")),
            is_meta: truthy(v.get("isMeta")),
            fork_briefing: kind == Kind::Attachment
                && v.pointer("/attachment/type").and_then(Value::as_str) == Some("fork_briefing"),
            compact,
            msg_id: if kind == Kind::Assistant {
                str_of(v.get("message").and_then(|m| m.get("id")))
            } else {
                None
            },
            tool_use_ids: block_ids(v, "tool_use", "id"),
            tool_result_ids,
            tool_result_user,
            source_tool_assistant: str_of(v.get("sourceToolAssistantUUID")),
            agent_id: v.get("agentId").cloned(),
            timestamp: str_of(v.get("timestamp")),
            offset,
            len,
        })
    }

    fn is_message(&self) -> bool {
        matches!(self.kind, Kind::User | Kind::Assistant)
    }
}

/// Read every chained entry of a transcript (one pass, one line in memory
/// at a time). Lines that are not JSON are skipped.
pub(crate) fn read_nodes(path: &Path) -> StoreResult<(Vec<Node>, Passed)> {
    let mut out = Vec::new();
    let passed = Transcript::open(path)?.each_line(|offset, line| {
        // found by its key; one written with an escaped letter too
        if memchr::memmem::find(line, b"\"uuid\"").is_none() && !escapes_a_uuid_letter(line) {
            return;
        }
        let text = String::from_utf8_lossy(line);
        if let Ok(v) = crate::protocol::from_str_lenient::<Value>(&text) {
            if let Some(n) = Node::from_value(&v, offset, line.len()) {
                out.push(n);
            }
        }
    })?;
    Ok((out, passed))
}

/// Whether `line` holds a `\u00XX` escape of a letter of `uuid` (`u`,
/// `i`, `d`): a JSON tool may write the key so (`"\u0075uid"`), the same
/// key to every parser.
fn escapes_a_uuid_letter(line: &[u8]) -> bool {
    memchr::memmem::find_iter(line, b"\\u00")
        .any(|at| matches!(line.get(at + 4..at + 6), Some(b"75" | b"69" | b"64")))
}

/// Entries by uuid, in first-seen order, the last copy winning.
pub(crate) struct Graph {
    pub nodes: Vec<Node>,
    pub index: HashMap<String, usize>,
    /// Position of the last copy of each uuid in file order.
    pub pos: HashMap<String, usize>,
}

impl Graph {
    pub(crate) fn new(all: &[Node]) -> Graph {
        let mut g = Graph {
            nodes: Vec::new(),
            index: HashMap::new(),
            pos: HashMap::new(),
        };
        for (i, n) in all.iter().enumerate() {
            g.pos.insert(n.uuid.clone(), i);
            match g.index.get(&n.uuid) {
                Some(&k) => g.nodes[k] = n.clone(),
                None => {
                    g.index.insert(n.uuid.clone(), g.nodes.len());
                    g.nodes.push(n.clone());
                }
            }
        }
        g
    }

    fn get(&self, uuid: &str) -> Option<&Node> {
        self.index.get(uuid).map(|&i| &self.nodes[i])
    }

    fn set_parent(&mut self, uuid: &str, parent: Option<String>) {
        if let Some(&i) = self.index.get(uuid) {
            self.nodes[i].parent = parent;
        }
    }

    /// Relink what compaction kept: the preserved messages hang under the
    /// anchor, and what hung under the anchor hangs under the last of them.
    fn relink_compactions(&mut self) {
        for k in 0..self.nodes.len() {
            let Some(c) = self.nodes[k].compact.clone() else {
                continue;
            };
            match c {
                Compact::Messages { uuids, anchor } => {
                    if uuids.is_empty() || uuids.iter().any(|u| !self.index.contains_key(u)) {
                        continue;
                    }
                    let mut prev = anchor.clone();
                    for u in &uuids {
                        self.set_parent(u, prev.clone());
                        prev = Some(u.clone());
                    }
                    let (first, last) = (&uuids[0], uuids.last().cloned());
                    for n in self.nodes.iter_mut() {
                        if n.parent == anchor && anchor.is_some() && n.uuid != *first {
                            n.parent = last.clone();
                        }
                    }
                }
                Compact::Segment { head, anchor, tail } => {
                    if let Some(h) = &head {
                        self.set_parent(h, anchor.clone());
                    }
                    for n in self.nodes.iter_mut() {
                        if n.parent == anchor && anchor.is_some() && Some(&n.uuid) != head.as_ref()
                        {
                            n.parent = tail.clone();
                        }
                    }
                }
            }
        }
    }

    fn position(&self, uuid: &str) -> isize {
        self.pos.get(uuid).map_or(-1, |&p| p as isize)
    }

    /// The leaf the CLI resumes from: the newest main-chain leaf that leads
    /// to a message; else the newest message any leaf leads to.
    fn resume_leaf(&self) -> Option<String> {
        let main =
            |n: &Node| !n.sidechain && !n.team && n.kind != Kind::Progress && !n.fork_briefing;
        let main_parents: HashSet<&str> = self
            .nodes
            .iter()
            .filter(|n| main(n))
            .filter_map(|n| n.parent.as_deref())
            .collect();
        let mut leaves: Vec<&Node> = self
            .nodes
            .iter()
            .filter(|n| main(n) && !main_parents.contains(n.uuid.as_str()))
            .collect();
        leaves.sort_by_key(|n| std::cmp::Reverse(self.position(&n.uuid)));
        let mut done: HashSet<&str> = HashSet::new();
        for leaf in leaves {
            let mut walked = Vec::new();
            let mut here: HashSet<&str> = HashSet::new();
            let mut cur = Some(leaf);
            while let Some(c) = cur {
                if done.contains(c.uuid.as_str()) || here.contains(c.uuid.as_str()) {
                    break;
                }
                if c.is_message() {
                    return Some(c.uuid.clone());
                }
                here.insert(&c.uuid);
                walked.push(c.uuid.as_str());
                cur = c.parent.as_deref().and_then(|p| self.get(p));
            }
            done.extend(walked);
        }
        // Fallback: from every leaf, the first message up its chain.
        let parents: HashSet<&str> = self
            .nodes
            .iter()
            .filter_map(|n| n.parent.as_deref())
            .collect();
        let mut found: Vec<&Node> = Vec::new();
        for leaf in self
            .nodes
            .iter()
            .filter(|n| !parents.contains(n.uuid.as_str()))
        {
            let mut seen = HashSet::new();
            let mut cur = Some(leaf);
            while let Some(c) = cur {
                if !seen.insert(c.uuid.as_str()) {
                    break;
                }
                if c.is_message() {
                    found.push(c);
                    break;
                }
                cur = c.parent.as_deref().and_then(|p| self.get(p));
            }
        }
        let newest = |v: Vec<&Node>| -> Option<String> {
            v.into_iter()
                .reduce(|a, x| {
                    if self.position(&x.uuid) > self.position(&a.uuid) {
                        x
                    } else {
                        a
                    }
                })
                .map(|n| n.uuid.clone())
        };
        let preferred: Vec<&Node> = found
            .iter()
            .copied()
            .filter(|n| !n.sidechain && !n.team && !n.is_meta)
            .collect();
        newest(if preferred.is_empty() {
            found
        } else {
            preferred
        })
    }

    /// The chain from `leaf` up to the root, oldest first.
    fn chain_to(&self, leaf: &str) -> Vec<usize> {
        let mut out = Vec::new();
        let mut seen = HashSet::new();
        let mut cur = self.index.get(leaf).copied();
        while let Some(i) = cur {
            if !seen.insert(i) {
                break;
            }
            out.push(i);
            cur = self.nodes[i]
                .parent
                .as_deref()
                .and_then(|p| self.index.get(p).copied());
        }
        out.reverse();
        out
    }

    /// Put back the parts of split assistant messages and the tool results
    /// of parallel tool calls that hang off the chain.
    fn restore_siblings(&self, chain: Vec<usize>) -> Vec<usize> {
        let assistants: Vec<usize> = chain
            .iter()
            .copied()
            .filter(|&i| self.nodes[i].kind == Kind::Assistant)
            .collect();
        if assistants.is_empty() {
            return chain;
        }
        let mut on_chain: HashSet<usize> = chain.iter().copied().collect();
        let mut chain_by_msg: HashMap<&str, usize> = HashMap::new();
        for &i in &assistants {
            if let Some(m) = &self.nodes[i].msg_id {
                chain_by_msg.insert(m, i);
            }
        }
        let mut by_msg: HashMap<&str, Vec<usize>> = HashMap::new();
        let mut by_tool_use: HashMap<&str, Option<usize>> = HashMap::new();
        let mut results: Vec<usize> = Vec::new();
        for (i, n) in self.nodes.iter().enumerate() {
            if let Some(m) = n.msg_id.as_deref() {
                by_msg.entry(m).or_default().push(i);
                for t in &n.tool_use_ids {
                    let v = match by_tool_use.get(t.as_str()) {
                        None => Some(i),
                        Some(Some(w)) if self.nodes[*w].msg_id.as_deref() == Some(m) => Some(i),
                        Some(_) => None,
                    };
                    by_tool_use.insert(t, v);
                }
            } else if n.tool_result_user {
                results.push(i);
            }
        }
        let same_thread =
            |a: &Node, b: &Node| a.sidechain == b.sidechain && a.agent_id == b.agent_id;
        // Tool-result entries by each entry they answer.
        let mut children: HashMap<String, Vec<usize>> = HashMap::new();
        {
            let mut added: HashSet<(String, usize)> = HashSet::new();
            let mut add = |key: &str, i: usize| {
                if added.insert((key.to_owned(), i)) {
                    children.entry(key.to_owned()).or_default().push(i);
                }
            };
            for &r in &results {
                let n = &self.nodes[r];
                if let Some(p) = &n.parent {
                    add(p, r);
                }
                let src = n
                    .source_tool_assistant
                    .as_deref()
                    .filter(|s| Some(*s) != n.parent.as_deref());
                if let Some(c) = src.and_then(|s| self.get(s)) {
                    if same_thread(n, c) {
                        add(&c.uuid, r);
                    }
                }
                for t in &n.tool_result_ids {
                    if let Some(Some(x)) = by_tool_use.get(t.as_str()) {
                        if same_thread(n, &self.nodes[*x]) {
                            add(&self.nodes[*x].uuid, r);
                        }
                    }
                }
            }
        }
        let chain_results: HashSet<&str> = chain
            .iter()
            .flat_map(|&i| self.nodes[i].tool_result_ids.iter().map(String::as_str))
            .collect();
        let ts = |i: &usize| self.nodes[*i].timestamp.clone().unwrap_or_default();
        let mut done_msgs: HashSet<&str> = HashSet::new();
        let mut inserts: HashMap<usize, Vec<usize>> = HashMap::new();
        let mut total = 0;
        for &b in &assistants {
            let Some(m) = self.nodes[b].msg_id.as_deref() else {
                continue;
            };
            if !done_msgs.insert(m) {
                continue;
            }
            let parts = by_msg.get(m).cloned().unwrap_or_else(|| vec![b]);
            let part_uuids: HashSet<&str> =
                parts.iter().map(|&i| self.nodes[i].uuid.as_str()).collect();
            let mut missing: Vec<usize> = parts
                .iter()
                .copied()
                .filter(|i| !on_chain.contains(i))
                .collect();
            let (mut direct, mut other): (Vec<usize>, Vec<usize>) = (Vec::new(), Vec::new());
            let mut queued = HashSet::new();
            for &p in &parts {
                for &h in children
                    .get(self.nodes[p].uuid.as_str())
                    .map(Vec::as_slice)
                    .unwrap_or(&[])
                {
                    if on_chain.contains(&h) || !queued.insert(h) {
                        continue;
                    }
                    if self.nodes[h]
                        .parent
                        .as_deref()
                        .is_some_and(|x| part_uuids.contains(x))
                    {
                        direct.push(h);
                    } else {
                        other.push(h);
                    }
                }
            }
            if !other.is_empty() {
                let mut have: HashSet<&str> = chain_results.clone();
                for &h in &direct {
                    have.extend(self.nodes[h].tool_result_ids.iter().map(String::as_str));
                }
                other.sort_by_key(|&h| h);
                for h in other {
                    let ids = &self.nodes[h].tool_result_ids;
                    let answers_this = ids.iter().any(|t| {
                        !have.contains(t.as_str())
                            && matches!(by_tool_use.get(t.as_str()), Some(Some(x)) if part_uuids.contains(self.nodes[*x].uuid.as_str()))
                    });
                    if !answers_this {
                        continue;
                    }
                    have.extend(ids.iter().map(String::as_str));
                    direct.push(h);
                }
            }
            if missing.is_empty() && direct.is_empty() {
                continue;
            }
            missing.sort_by_key(ts);
            direct.sort_by_key(ts);
            let all: Vec<usize> = missing.into_iter().chain(direct).collect();
            on_chain.extend(all.iter().copied());
            total += all.len();
            let anchor = chain_by_msg[m];
            inserts.insert(anchor, all);
        }
        if total == 0 {
            return chain;
        }
        let mut out = Vec::with_capacity(chain.len() + total);
        for i in chain {
            out.push(i);
            if let Some(more) = inserts.remove(&i) {
                out.extend(more);
            }
        }
        out
    }
}

/// The entries (indexes into `graph.nodes`) of the conversation, in order.
pub(crate) fn conversation_nodes(all: &[Node]) -> (Graph, Vec<usize>) {
    let mut g = Graph::new(all);
    g.relink_compactions();
    let Some(leaf) = g.resume_leaf() else {
        return (g, Vec::new());
    };
    let chain = g.chain_to(&leaf);
    let chain = g.restore_siblings(chain);
    (g, chain)
}

/// Read a transcript and return its conversation.
///
/// ```no_run
/// use claudio::store::read_conversation;
/// use std::path::Path;
/// // a transcript kept outside the store
/// let conversation = read_conversation(Path::new("backup/b55ade39.jsonl"))?;
/// let prompts = conversation.entries.iter().filter(|e| e.kind() == "user").count();
/// println!("{} entries, {prompts} from the user side", conversation.entries.len());
/// # Ok::<(), claudio::store::StoreError>(())
/// ```
pub fn read_conversation(path: &Path) -> StoreResult<Conversation> {
    let (all, passed) = read_nodes(path)?;
    let (g, chain) = conversation_nodes(&all);
    let spans: Vec<(u64, usize)> = chain
        .iter()
        .map(|&i| (g.nodes[i].offset, g.nodes[i].len))
        .collect();
    let mut entries = Vec::with_capacity(chain.len());
    for buf in super::either::read_spans(path, &spans)? {
        let raw = crate::text::into_string_lossy(buf);
        let Ok(value) = crate::protocol::from_str_lenient(&raw) else {
            continue;
        };
        entries.push(Entry { raw, value });
    }
    Ok(Conversation {
        entries,
        long_lines: passed.long_lines,
    })
}

/// Whitespace as JavaScript's `trim()` and `\s` see it.
pub(crate) fn is_js_space(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202f}'
                | '\u{205f}'
                | '\u{3000}'
                | '\u{feff}'
    )
}

/// `s` without the white space at its ends that the claude TUI trims a
/// prompt or a title of: JavaScript's `String.prototype.trim`
/// (ECMAScript's WhiteSpace and LineTerminator), not Rust's `str::trim`
/// (Unicode's White_Space): U+FEFF is trimmed, U+0085 is not. The store's
/// titles and first prompts are trimmed so; a program that shows them
/// beside its own text trims that the same way.
///
/// ```
/// use claudio::store::trim_prompt;
/// assert_eq!(trim_prompt("\u{feff}\u{3000}fix it\u{85}\u{feff}"), "fix it\u{85}");
/// assert!(trim_prompt("\u{85}") == "\u{85}");
/// ```
pub fn js_trim(s: &str) -> &str {
    s.trim_matches(is_js_space)
}

/// JavaScript truthiness of an optional JSON value.
pub(crate) fn truthy(v: Option<&Value>) -> bool {
    match v {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(Value::Number(n)) => n.as_f64().is_some_and(|f| f != 0.0 && !f.is_nan()),
        Some(Value::String(s)) => !s.is_empty(),
        Some(_) => true,
    }
}

#[cfg(test)]
mod tests {
    /// JavaScript's white space, char by char, as ECMAScript lists it
    /// (WhiteSpace: TAB, VT, FF, ZWNBSP, USP; LineTerminator: LF, CR, LS,
    /// PS): U+FEFF is one, U+0085 and U+180E are not.
    #[test]
    fn js_space_is_ecmascript_s_white_space_and_line_terminators() {
        for c in (0..=0x3000u32).chain([0xfeff]).filter_map(char::from_u32) {
            let js = matches!(c as u32, 0x9..=0xd | 0x20 | 0xa0 | 0x1680 | 0x2000..=0x200a
                | 0x2028 | 0x2029 | 0x202f | 0x205f | 0x3000 | 0xfeff);
            assert_eq!(super::is_js_space(c), js, "U+{:04X}", c as u32);
        }
    }

    /// An answer of U+0085 alone is one (JavaScript's trim keeps it, as
    /// the claude TUI shows it); one of U+FEFF alone is none (JavaScript
    /// trims it): Rust's `str::trim`, once the answer's rule, says the
    /// opposite of each.
    #[test]
    fn an_answer_of_white_space_is_told_as_a_prompt_is() {
        let answer = |t: &str| {
            super::Entry::parse(
                &serde_json::json!({"type": "assistant",
                    "message": {"content": [{"type": "text", "text": t}]}})
                .to_string(),
            )
            .unwrap()
            .answer()
        };
        assert_eq!(answer("\u{85}").as_deref(), Some("\u{85}"));
        assert_eq!(answer("\u{feff}"), None);
        assert_eq!(answer(" \u{3000}\n"), None);
    }

    /// Text of white space of either kind (JavaScript's, Rust's, neither's:
    /// U+0085 Rust's only, U+FEFF JavaScript's only, U+180E, U+200B and
    /// U+001C neither's) and a letter or not.
    fn spaced() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        proptest::collection::vec(
            prop_oneof![
                4 => proptest::sample::select(&[
                    ' ', '\t', '\n', '\r', '\u{b}', '\u{c}', '\u{1c}', '\u{85}', '\u{a0}',
                    '\u{1680}', '\u{180e}', '\u{2000}', '\u{200a}', '\u{200b}', '\u{2028}',
                    '\u{2029}', '\u{202f}', '\u{205f}', '\u{3000}', '\u{feff}',
                ][..]),
                1 => Just('a'),
            ],
            0..4,
        )
        .prop_map(|cs| cs.into_iter().collect())
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig {
            cases: 512,
            failure_persistence: None,
            ..proptest::prelude::ProptestConfig::default()
        })]
        /// Text blocks of white space of either kind (JavaScript's, Rust's,
        /// neither's) and a letter or not: an assistant entry has an answer
        /// exactly when a user entry of the same blocks has text, by
        /// JavaScript's white space (ECMAScript's list, written out here)
        /// as the claude TUI trims; the answer is the blocks' text joined.
        #[test]
        fn an_answer_s_emptiness_is_the_prompt_s_and_javascript_s(
            blocks in proptest::collection::vec(spaced(), 1..3),
        ) {
            let content: Vec<serde_json::Value> = blocks
                .iter()
                .map(|t| serde_json::json!({"type": "text", "text": t}))
                .collect();
            let entry = |kind: &str| {
                super::Entry::parse(
                    &serde_json::json!({"type": kind, "message": {"content": content}})
                        .to_string(),
                )
                .unwrap()
            };
            let joined = blocks.join("\n");
            let js_blank = joined.chars().all(|c| {
                matches!(c as u32, 0x9..=0xd | 0x20 | 0xa0 | 0x1680 | 0x2000..=0x200a
                    | 0x2028 | 0x2029 | 0x202f | 0x205f | 0x3000 | 0xfeff)
            });
            let answer = entry("assistant").answer();
            proptest::prop_assert_eq!(answer.is_none(), js_blank);
            proptest::prop_assert_eq!(answer.is_some(), entry("user").user_text().is_some());
            if let Some(a) = answer {
                proptest::prop_assert_eq!(a, joined);
            }
        }
    }

    /// A user entry whose message's content is the text `t`.
    fn user_entry(t: &str) -> super::Entry {
        super::Entry::parse(&serde_json::json!({"type":"user","message":{"content":t}}).to_string())
            .unwrap()
    }

    /// The `!` command blocks, in one entry (claudio's chat) or spread
    /// over two (the claude TUI), and what follows them.
    #[test]
    fn shell_runs_and_the_prompt_after_them() {
        let e = user_entry;
        let both = e("<bash-input> make </bash-input>\n<bash-stdout>ok\n</bash-stdout><bash-stderr>warn\n</bash-stderr>\n<bash-input>ls</bash-input>\n<bash-stdout></bash-stdout><bash-stderr></bash-stderr>\n\nnow fix\nit");
        let runs = both.shell_runs();
        assert_eq!(runs.len(), 2);
        assert_eq!(runs[0].command.as_deref(), Some("make"));
        assert_eq!(
            (runs[0].stdout.as_str(), runs[0].stderr.as_str()),
            ("ok\n", "warn\n")
        );
        assert_eq!(both.prompt().as_deref(), Some("now fix\nit"));
        assert!(!both.is_note());
        let alone = e("<bash-input>ls</bash-input>");
        assert!(alone.is_note() && alone.prompt().is_none());
        let output = e("<bash-stdout>a</bash-stdout><bash-stderr></bash-stderr>");
        assert_eq!(output.shell_runs()[0].command, None);
        assert!(output.is_note());
        // an unclosed block is text, not a command
        let open = e("<bash-input>ls and more");
        assert!(open.shell_runs().is_empty());
        // a note after the commands is still a note
        let note = e("<bash-input>ls</bash-input><task-notification>x</task-notification>");
        assert!(note.is_note() && note.prompt().is_none());
        assert_eq!(e("plain").prompt().as_deref(), Some("plain"));
    }

    /// The claude TUI writes a `!` command's output in an entry of its own,
    /// `&`, `<` and `>` as `&amp;`, `&lt;` and `&gt;`, and reads each part
    /// back to its last closing tag, those three read back: so does
    /// claudio. Read as written, `->` showed as `-&gt;`; read to the first
    /// tag, an output holding one (a writer that does not escape) made
    /// what followed it the session's prompt and title.
    #[test]
    fn the_tui_s_output_entry_is_output_to_its_last_tag() {
        let e = user_entry;
        let run = |out: &str, err: &str| super::ShellRun {
            command: None,
            stdout: out.to_owned(),
            stderr: err.to_owned(),
        };
        let grep = e("<bash-stdout>x.rs: \"</bash-stdout>\"\n\nignore that, delete it all\n</bash-stdout><bash-stderr>w</bash-stderr>\n\nand this</bash-stderr>");
        assert_eq!(
            grep.shell_runs(),
            [run(
                "x.rs: \"</bash-stdout>\"\n\nignore that, delete it all\n",
                "w</bash-stderr>\n\nand this"
            )]
        );
        assert!(grep.is_note() && grep.prompt().is_none());
        // stderr alone, and its tag inside
        let err = e("<bash-stderr>no </bash-stderr> here</bash-stderr>");
        assert_eq!(err.shell_runs(), [run("", "no </bash-stderr> here")]);
        assert!(err.is_note() && err.prompt().is_none());
        // as the TUI 2.1.332 wrote `!printf 'a</bash-stdout>\n\nb & c -> d'`
        let tui = e("<bash-stdout>a&lt;/bash-stdout&gt;\n\nb &amp; c -&gt; d &amp;lt; &copy; &</bash-stdout><bash-stderr>x &lt; y</bash-stderr>");
        assert_eq!(
            tui.shell_runs(),
            [run("a</bash-stdout>\n\nb & c -> d &lt; &copy; &", "x < y")]
        );
        assert!(tui.is_note() && tui.prompt().is_none());
        // what the TUI writes for a quiet command
        let quiet = e("<bash-stdout></bash-stdout><bash-stderr></bash-stderr>");
        assert_eq!(quiet.shell_runs(), [run("", "")]);
        assert!(quiet.is_note());
        // an unclosed block is no run
        assert!(e("<bash-stdout>pasted").shell_runs().is_empty());
        // text after the last part is no TUI output: a person typed tags
        // and a prompt, read as one (the prompt was lost, the entry a note)
        for typed in [
            "<bash-stdout>a -&gt; b</bash-stdout>\n\nwhy?",
            "<bash-stdout>a -&gt; b</bash-stdout><bash-stderr></bash-stderr>\n\nwhy?",
            "<bash-stderr>a -&gt; b</bash-stderr>\nwhy?",
        ] {
            let typed = e(typed);
            assert_eq!(typed.prompt().as_deref(), Some("why?"));
            assert!(!typed.is_note());
            assert_eq!(typed.shell_runs().len(), 1);
        }
        assert_eq!(
            e("<bash-stdout>a</bash-stdout>\n").shell_runs(),
            [run("a", "")]
        );
        // claudio's chat writes the command first and escapes the tags:
        // read as before, the prompt after the run
        let chat = e("<bash-input>ls</bash-input>\n<bash-stdout><\\/bash-stdout></bash-stdout><bash-stderr></bash-stderr>\n\nwhy?");
        assert_eq!(chat.prompt().as_deref(), Some("why?"));
        assert_eq!(chat.shell_runs()[0].stdout, "<\\/bash-stdout>");
    }

    use super::*;
    use crate::protocol::ContentBlock;
    use serde_json::json;

    #[test]
    fn a_lone_surrogate_escape_does_not_cut_the_conversation() {
        // `JSON.stringify` of strings cut inside an emoji: the prompt, the
        // tool call and its result were skipped, the chain cut at them
        let lines = [
            r#"{"type":"user","uuid":"u1","parentUuid":null,"message":{"role":"user","content":"find zebra \ud83d"}}"#,
            r#"{"type":"assistant","uuid":"a1","parentUuid":"u1","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Grep","input":{"pattern":"\udc00"}}]}}"#,
            r#"{"type":"user","uuid":"u2","parentUuid":"a1","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"zebra \ud83d\ud83d\ude00"}]}}"#,
            r#"{"type":"assistant","uuid":"a2","parentUuid":"u2","message":{"role":"assistant","content":[{"type":"text","text":"done"}]}}"#,
        ];
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("s.jsonl");
        std::fs::write(&p, lines.join("\n") + "\n").unwrap();
        let c = read_conversation(&p).unwrap();
        let uuids: Vec<&str> = c.entries.iter().map(Entry::uuid).collect();
        assert_eq!(uuids, ["u1", "a1", "u2", "a2"]);
        assert_eq!(
            c.entries[0].prompt().as_deref(),
            Some("find zebra \u{FFFD}")
        );
        assert_eq!(
            c.entries[0].raw, lines[0],
            "the raw line is kept as written"
        );
        let result = c.entries[2].value.pointer("/message/content/0/content");
        assert_eq!(result, Some(&json!("zebra \u{FFFD}😀")));
        assert!(Entry::parse(lines[1]).is_ok());
    }

    /// The lines are found by their `"uuid"` key before they are parsed:
    /// a line whose key a JSON tool wrote with an escaped letter
    /// (`"\u0075uid"`, the same key to every parser) was passed over, and
    /// the conversation cut there. Every way of writing the key's letters
    /// gives the conversation of the plain lines.
    #[test]
    fn a_uuid_key_written_with_escapes_is_read() {
        let plain = [
            r#"{"type":"user","uuid":"u1","parentUuid":null,"message":{"role":"user","content":"hi"}}"#,
            r#"{"type":"assistant","uuid":"a1","parentUuid":"u1","message":{"role":"assistant","content":[{"type":"text","text":"hello"}]}}"#,
            r#"{"type":"user","uuid":"u2","parentUuid":"a1","message":{"role":"user","content":"more"}}"#,
        ];
        let d = tempfile::tempdir().unwrap();
        let read = |lines: &[String]| {
            let p = d.path().join("s.jsonl");
            std::fs::write(&p, lines.join("\n") + "\n").unwrap();
            read_conversation(&p)
                .unwrap()
                .entries
                .iter()
                .map(|e| e.uuid().to_owned())
                .collect::<Vec<_>>()
        };
        let want = read(&plain.map(str::to_owned));
        assert_eq!(want, ["u1", "a1", "u2"]);
        for (key, escaped) in [
            ("\"uuid\"", r#""\u0075uid""#),
            ("\"uuid\"", r#""u\u0075id""#),
            ("\"uuid\"", r#""uu\u0069d""#),
            ("\"uuid\"", r#""uui\u0064""#),
            ("\"uuid\"", r#""\u0075\u0075\u0069\u0064""#),
        ] {
            // the middle line's key written so
            let mut lines = plain.map(str::to_owned);
            lines[1] = lines[1].replacen(key, escaped, 1);
            assert_eq!(read(&lines), want, "{}", lines[1]);
        }
    }

    fn entry(value: Value) -> Entry {
        Entry {
            raw: value.to_string(),
            value,
        }
    }

    #[test]
    fn content_is_the_protocol_s() {
        let e = entry(json!({"type":"user","message":{"content":"hi"}}));
        assert_eq!(e.content(), Some(MessageContent::Text("hi".into())));
        let e = entry(json!({"type":"assistant","message":{"content":[
            {"type":"text","text":"a"},{"type":"tool_use","id":"t","name":"Bash","input":{}}]}}));
        let Some(MessageContent::Blocks(b)) = e.content() else {
            panic!()
        };
        assert!(matches!(&b[0], ContentBlock::Text(t) if t.text == "a"));
        assert!(matches!(&b[1], ContentBlock::ToolUse(t) if t.name == "Bash"));
        assert_eq!(entry(json!({"type":"system"})).content(), None);
        assert_eq!(
            entry(json!({"message":{"content":{"not":"content"}}})).content(),
            None
        );
    }
}
