//! Changing the store: appending a title or a tag, forking, deleting.
//!
//! Appends never rewrite or truncate: the file is opened for appending
//! without following a symbolic link, the line is written whole (after a
//! newline if the file ends in a half-written line) and flushed to disk.

use super::chain::{is_js_space, js_trim, Kind, Node};
use super::either::read_head_tail;
use super::error::{io_err, StoreError, StoreResult};
use super::ids::{new_uuid, IdQuery};
use super::lines::{Transcript, MAX_LINE};
use super::scan::{first_prompt, last_entry_field};
use super::time::{format_iso_millis, now_millis};
use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::fs::OpenOptions;
use std::io::{self, BufWriter, Write};
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// A session's transcript on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SessionFile {
    /// The session id (the file name without `.jsonl`).
    pub id: String,
    /// The `.jsonl` file.
    pub path: PathBuf,
}

impl SessionFile {
    /// Whether the transcript is read from an archive (the CLI deleted
    /// its own): it is not changed there, and
    /// `Store::restore` (feature `archive`) brings it back.
    pub fn is_archived(&self) -> bool {
        super::open::is_packed(&self.path)
    }

    /// The project folder holding the transcript.
    pub fn project_dir(&self) -> &Path {
        self.path.parent().unwrap_or(Path::new(""))
    }

    /// The folder beside the transcript (`<id>/`: sub-agent transcripts, side files).
    pub fn side_dir(&self) -> PathBuf {
        self.path.with_file_name(&self.id)
    }
}

fn loop_to_not_a_file(path: &Path) -> impl FnOnce(io::Error) -> StoreError + '_ {
    move |e| {
        if rustix::io::Errno::from_io_error(&e) == Some(rustix::io::Errno::LOOP) {
            StoreError::NotAFile(path.to_path_buf())
        } else {
            io_err(path)(e)
        }
    }
}

/// Append one line to a transcript, flushed to disk.
pub(crate) fn append_line(path: &Path, line: &str) -> StoreResult<()> {
    let f = OpenOptions::new()
        .read(true)
        .append(true)
        .custom_flags(
            (rustix::fs::OFlags::NOFOLLOW
                | rustix::fs::OFlags::NONBLOCK
                | rustix::fs::OFlags::CLOEXEC)
                .bits() as i32,
        )
        .open(path)
        .map_err(loop_to_not_a_file(path))?;
    let meta = f.metadata().map_err(io_err(path))?;
    if !meta.is_file() {
        return Err(StoreError::NotAFile(path.to_path_buf()));
    }
    if meta.len() == 0 {
        return Err(StoreError::EmptyFile(path.to_path_buf()));
    }
    let mut last = [0u8; 1];
    f.read_exact_at(&mut last, meta.len() - 1)
        .map_err(io_err(path))?;
    let mut data = String::with_capacity(line.len() + 2);
    if last[0] != b'\n' {
        data.push('\n');
    }
    data.push_str(line);
    data.push('\n');
    (&f).write_all(data.as_bytes()).map_err(io_err(path))?;
    f.sync_all().map_err(io_err(path))
}

/// A title or tag as stored: trimmed, control characters made spaces.
pub(crate) fn clean_label(s: &str, what: &'static str) -> StoreResult<String> {
    let mut out = String::with_capacity(s.len());
    for c in js_trim(s).chars() {
        out.push(if c.is_control() { ' ' } else { c });
    }
    let out = js_trim(&out).to_owned();
    if out.is_empty() {
        return Err(StoreError::Empty(what));
    }
    if out.len() > MAX_LABEL {
        return Err(StoreError::TooLong {
            what,
            max: MAX_LABEL,
        });
    }
    Ok(out)
}

/// The longest title or tag, in bytes of UTF-8. Its line must be found in
/// the last 64 KiB of the transcript, where a listing reads titles (JSON
/// escapes at most double it); a longer one would be written and then never
/// shown, so it is refused.
pub(crate) const MAX_LABEL: usize = 4096;

/// `{"type":"custom-title","customTitle":…,"sessionId":…}`
pub(crate) fn title_line(title: &str, session_id: &str) -> String {
    format!(
        "{{\"type\":\"custom-title\",\"customTitle\":{},\"sessionId\":{}}}",
        Value::from(title),
        Value::from(session_id)
    )
}

/// `{"type":"tag","tag":…,"sessionId":…}` (an empty tag clears it).
pub(crate) fn tag_line(tag: &str, session_id: &str) -> String {
    format!(
        "{{\"type\":\"tag\",\"tag\":{},\"sessionId\":{}}}",
        Value::from(tag),
        Value::from(session_id)
    )
}

/// Delete a transcript and the folder beside it (sub-agents, side files).
/// Symbolic links are removed, never followed. A running CLI may still be
/// writing a sub-agent's transcript into that folder: its removal is tried
/// again ([`remove_tree`]).
pub(crate) fn delete(file: &SessionFile) -> StoreResult<()> {
    std::fs::remove_file(&file.path).map_err(io_err(&file.path))?;
    let side = file.side_dir();
    match std::fs::symlink_metadata(&side) {
        Ok(m) if m.is_dir() => {
            remove_tree(&side, |d: &Path| std::fs::remove_dir_all(d), REMOVE_PAUSE)
        }
        Ok(_) => std::fs::remove_file(&side).map_err(io_err(&side)),
        Err(_) => Ok(()),
    }
}

/// How many times [`remove_tree`] tries.
const REMOVE_TRIES: u32 = 3;

/// The pause after the first failed try; the pause after try `n` is `n`
/// times this (50 ms, then 100 ms), as the TypeScript SDK's
/// `deleteSession` waits.
const REMOVE_PAUSE: std::time::Duration = std::time::Duration::from_millis(50);

/// Remove the folder `dir` and everything in it with `remove`, trying
/// again up to [`REMOVE_TRIES`] times in all when it fails because the
/// folder is not empty or busy (`ENOTEMPTY`, `EBUSY`): a file written into
/// it meanwhile, by a CLI still running the session. A folder already gone
/// is fine. Any other failure is not retried. After the last try the
/// error says that a program may still be writing there.
fn remove_tree(
    dir: &Path,
    mut remove: impl FnMut(&Path) -> io::Result<()>,
    pause: std::time::Duration,
) -> StoreResult<()> {
    let mut tried = 0;
    loop {
        tried += 1;
        let e = match remove(dir) {
            Ok(()) => return Ok(()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
            Err(e) => e,
        };
        let busy = matches!(
            rustix::io::Errno::from_io_error(&e),
            Some(rustix::io::Errno::NOTEMPTY | rustix::io::Errno::BUSY)
        );
        if !busy {
            return Err(io_err(dir)(e));
        }
        if tried >= REMOVE_TRIES {
            let why = format!(
                "still there after {REMOVE_TRIES} tries to delete it ({e}): a program may be \
                 writing to it, such as a running Claude Code session; stop it and try again"
            );
            return Err(io_err(dir)(io::Error::new(e.kind(), why)));
        }
        std::thread::sleep(pause * tried);
    }
}

/// A JSON object that keeps its keys in order (the top level of an entry).
struct Ordered(Vec<(String, Value)>);

impl<'de> Deserialize<'de> for Ordered {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Ordered;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Ordered, A::Error> {
                let mut out: Vec<(String, Value)> = Vec::new();
                while let Some((k, v)) = m.next_entry::<String, Value>()? {
                    match out.iter_mut().find(|(x, _)| *x == k) {
                        Some(slot) => slot.1 = v,
                        None => out.push((k, v)),
                    }
                }
                Ok(Ordered(out))
            }
        }
        d.deserialize_map(V)
    }
}

impl Ordered {
    fn get(&self, k: &str) -> Option<&Value> {
        self.0.iter().find(|(x, _)| x == k).map(|(_, v)| v)
    }
    fn set(&mut self, k: &str, v: Value) {
        match self.0.iter_mut().find(|(x, _)| x == k) {
            Some(slot) => slot.1 = v,
            None => self.0.push((k.to_owned(), v)),
        }
    }
    fn remove(&mut self, k: &str) {
        self.0.retain(|(x, _)| x != k);
    }
    fn to_json(&self) -> String {
        let mut s = String::from("{");
        for (i, (k, v)) in self.0.iter().enumerate() {
            if i > 0 {
                s.push(',');
            }
            s.push_str(&Value::from(k.as_str()).to_string());
            s.push(':');
            s.push_str(&v.to_string());
        }
        s.push('}');
        s
    }
}

/// Fields a fork clears: the copy is a main-chain session of its own.
const CLEARED: [&str; 10] = [
    "teamName",
    "agentName",
    "sessionKind",
    "slug",
    "sourceToolAssistantUUID",
    "summarizedTurnPromptUuids",
    "droppedPromptUuids",
    "sentAsUuid",
    "rowsAheadOfPutBack",
    "turnAttributionKey",
];

#[derive(Default)]
struct Extras {
    atis: Option<String>,
    tools_used: Option<Vec<Value>>,
    replacements: Vec<Value>,
    relocated: Option<String>,
}

/// Copy a session into a new one with fresh ids: a new session id, a new
/// uuid for every message (parents remapped), cut after `at` if given.
/// Sub-agent transcripts and undo history are not copied. Titled `title`
/// (already cleaned) if given, else after the original. Returns the new id.
pub(crate) fn fork(
    src: &SessionFile,
    at: Option<&str>,
    title: Option<&str>,
) -> StoreResult<String> {
    let at = at.map(IdQuery::parse).transpose()?;
    let mut nodes: Vec<Node> = Vec::new();
    let mut extras = Extras::default();
    let passed = Transcript::open(&src.path)?.each_line(|offset, line| {
        let text = String::from_utf8_lossy(line);
        let Ok(v) = crate::protocol::from_str_lenient::<Value>(&text) else {
            return;
        };
        if let Some(n) = Node::from_value(&v, offset, line.len()) {
            if !n.sidechain {
                nodes.push(n);
            }
            return;
        }
        if v.get("sessionId").and_then(Value::as_str) != Some(src.id.as_str()) {
            return;
        }
        match v.get("type").and_then(Value::as_str) {
            Some("atis-latch") => {
                if let Some(a) = v.get("atis").and_then(Value::as_str) {
                    if a.bytes().all(|b| (0x21..=0x7e).contains(&b)) {
                        extras.atis = Some(a.to_owned());
                    }
                }
            }
            Some("tools-used") => {
                if let Some(t) = v.get("tools").and_then(Value::as_array) {
                    extras.tools_used = Some(
                        t.iter()
                            .filter(|x| x.as_str().is_some_and(|s| !s.is_empty()))
                            .cloned()
                            .collect(),
                    );
                }
            }
            Some("content-replacement") => {
                if let Some(r) = v.get("replacements").and_then(Value::as_array) {
                    extras
                        .replacements
                        .extend(r.iter().filter(|x| x.is_object()).cloned());
                }
            }
            Some("relocated") => {
                if let Some(c) = v
                    .get("relocatedCwd")
                    .and_then(Value::as_str)
                    .filter(|c| !c.is_empty())
                {
                    extras.relocated = Some(c.to_owned());
                }
            }
            _ => {}
        }
    })?;
    if passed.long_lines > 0 {
        // a copy without that line would break the chain
        return Err(StoreError::LineTooLong {
            path: src.path.clone(),
            max: MAX_LINE,
        });
    }
    if nodes.is_empty() {
        return Err(StoreError::NothingToFork(src.id.clone()));
    }
    if let Some(q) = &at {
        let mut matches: Vec<&str> = nodes
            .iter()
            .map(|n| n.uuid.as_str())
            .filter(|u| q.matches(u))
            .collect();
        matches.sort_unstable();
        matches.dedup();
        let target = match matches.as_slice() {
            [] => {
                return Err(StoreError::MessageNotFound {
                    session: src.id.clone(),
                    message: q.as_str().to_owned(),
                })
            }
            [one] => one.to_string(),
            many => {
                return Err(StoreError::AmbiguousMessage {
                    prefix: q.as_str().to_owned(),
                    candidates: many.iter().map(|s| s.to_string()).collect(),
                })
            }
        };
        let cut = nodes
            .iter()
            .position(|n| n.uuid == target)
            .expect("found above");
        nodes.truncate(cut + 1);
    }
    let new_ids: HashMap<&str, String> = nodes
        .iter()
        .map(|n| (n.uuid.as_str(), new_uuid()))
        .collect();
    let by_uuid: HashMap<&str, &Node> = nodes.iter().map(|n| (n.uuid.as_str(), n)).collect();
    let kept: Vec<&Node> = nodes.iter().filter(|n| n.kind != Kind::Progress).collect();
    if kept.is_empty() {
        return Err(StoreError::NothingToFork(src.id.clone()));
    }
    // The new parent: the nearest ancestor that is not a progress entry.
    let parent_of = |n: &Node| -> Option<String> {
        let mut seen = std::collections::HashSet::new();
        let mut cur = n.parent.as_deref();
        while let Some(p) = cur {
            let o = by_uuid.get(p)?;
            if o.kind != Kind::Progress || !seen.insert(p) {
                return new_ids.get(o.uuid.as_str()).cloned();
            }
            cur = o.parent.as_deref();
        }
        None
    };
    let plan: HashMap<u64, (usize, Option<String>)> = kept
        .iter()
        .enumerate()
        .map(|(i, n)| (n.offset, (i, parent_of(n))))
        .collect();
    let non_progress: HashMap<&str, &String> = kept
        .iter()
        .map(|n| (n.uuid.as_str(), &new_ids[n.uuid.as_str()]))
        .collect();

    let title = match title {
        Some(t) => t.to_owned(),
        None => format!("{} (fork)", fork_title(src)),
    };
    let fork_id = new_uuid();
    let now = format_iso_millis(now_millis());
    let dest = src.path.with_file_name(format!("{fork_id}.jsonl"));
    let file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags((rustix::fs::OFlags::NOFOLLOW | rustix::fs::OFlags::CLOEXEC).bits() as i32)
        .open(&dest)
        .map_err(io_err(&dest))?;
    let result = (|| -> StoreResult<()> {
        let mut w = BufWriter::new(&file);
        let mut werr: Option<io::Error> = None;
        let last = kept.len() - 1;
        Transcript::open(&src.path)?.each_line(|offset, line| {
            if werr.is_some() {
                return;
            }
            let Some((i, parent)) = plan.get(&offset) else {
                return;
            };
            let text = String::from_utf8_lossy(line);
            let Ok(mut e) = crate::protocol::from_str_lenient::<Ordered>(&text) else {
                return;
            };
            let old = kept[*i].uuid.as_str();
            let ids = Ids {
                old,
                src: &src.id,
                fork: &fork_id,
                parent: parent.clone(),
                new: &new_ids,
                non_progress: &non_progress,
            };
            rewrite(&mut e, &ids, (*i == last).then_some(now.as_str()));
            let mut out = e.to_json();
            out.push('\n');
            if let Err(x) = w.write_all(out.as_bytes()) {
                werr = Some(x);
            }
        })?;
        if let Some(e) = werr {
            return Err(io_err(&dest)(e));
        }
        let mut tail = Vec::new();
        if !extras.replacements.is_empty() {
            tail.push(json!({"type":"content-replacement","sessionId":fork_id,"replacements":extras.replacements,"uuid":new_uuid(),"timestamp":now}));
        }
        if let Some(a) = &extras.atis {
            tail.push(json!({"type":"atis-latch","sessionId":fork_id,"atis":a}));
        }
        if let Some(t) = &extras.tools_used {
            tail.push(json!({"type":"tools-used","sessionId":fork_id,"tools":t}));
        }
        if let Some(c) = &extras.relocated {
            tail.push(json!({"type":"relocated","sessionId":fork_id,"relocatedCwd":c}));
        }
        for v in tail {
            writeln!(w, "{v}").map_err(io_err(&dest))?;
        }
        writeln!(
            w,
            "{{\"type\":\"custom-title\",\"sessionId\":{},\"customTitle\":{},\"uuid\":{},\"timestamp\":{}}}",
            Value::from(fork_id.as_str()),
            Value::from(title.as_str()),
            Value::from(new_uuid()),
            Value::from(now.as_str())
        )
        .map_err(io_err(&dest))?;
        w.flush().map_err(io_err(&dest))?;
        drop(w);
        file.sync_all().map_err(io_err(&dest))
    })();
    if let Err(e) = result {
        let _ = std::fs::remove_file(&dest);
        return Err(e);
    }
    Ok(fork_id)
}

struct Ids<'a> {
    old: &'a str,
    src: &'a str,
    fork: &'a str,
    parent: Option<String>,
    new: &'a HashMap<&'a str, String>,
    non_progress: &'a HashMap<&'a str, &'a String>,
}

/// Rewrite one entry for the fork, as the TypeScript SDK's `forkSession`
/// does: fresh ids, parents remapped, side-chain fields cleared, and a
/// `forkedFrom` pointing at the original message.
fn rewrite(e: &mut Ordered, ids: &Ids<'_>, timestamp: Option<&str>) {
    let (old, src_id, fork_id, new_ids, non_progress) =
        (ids.old, ids.src, ids.fork, ids.new, ids.non_progress);
    let kind = e
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    // The session the request was made in, from the original entry.
    let request_session = if kind == "assistant" {
        let forked_from = e
            .get("forkedFrom")
            .and_then(|f| f.get("sessionId"))
            .cloned();
        [
            e.get("requestSessionId").cloned(),
            forked_from,
            e.get("sessionId").cloned(),
        ]
        .into_iter()
        .flatten()
        .find(Value::is_string)
    } else {
        None
    };
    if kind == "system"
        && e.get("subtype").and_then(Value::as_str) == Some("model_refusal_fallback")
    {
        e.set("neutralizedByFork", Value::Bool(true));
    }
    if kind == "attachment" {
        if let Some(Value::Object(att)) = e.get("attachment").cloned() {
            if att.get("type").and_then(Value::as_str) == Some("deferred_tools_record") {
                if let Some(Value::Array(names)) = att.get("nameOnlyAnnouncements") {
                    let mapped: Vec<Value> = names
                        .iter()
                        .filter_map(|n| {
                            n.as_str()
                                .and_then(|s| new_ids.get(s))
                                .map(|s| Value::from(s.as_str()))
                        })
                        .collect();
                    let mut att = att.clone();
                    att.insert("nameOnlyAnnouncements".into(), Value::Array(mapped));
                    e.set("attachment", Value::Object(att));
                }
            }
        }
    }
    if kind == "system" {
        if let Some(Value::Object(cm)) = e.get("compactMetadata").cloned() {
            if ["preservedMessages", "preservedSegment", "runningTurnSends"]
                .iter()
                .any(|k| cm.contains_key(*k))
            {
                let map_one = |v: &Value| match v.as_str().and_then(|s| non_progress.get(s)) {
                    Some(n) => Value::from(n.as_str()),
                    None => v.clone(),
                };
                let remap = |obj: &Value, keys: &[&str]| -> Value {
                    let Value::Object(o) = obj else {
                        return obj.clone();
                    };
                    let mut o: Map<String, Value> = o.clone();
                    for k in keys {
                        if let Some(v) = o.get(*k).cloned() {
                            o.insert(
                                (*k).into(),
                                match v {
                                    Value::Array(a) => {
                                        Value::Array(a.iter().map(map_one).collect())
                                    }
                                    other => map_one(&other),
                                },
                            );
                        }
                    }
                    Value::Object(o)
                };
                let mut cm = cm.clone();
                if let Some(pm) = cm.get("preservedMessages").cloned() {
                    cm.insert(
                        "preservedMessages".into(),
                        remap(&pm, &["anchorUuid", "uuids", "allUuids"]),
                    );
                }
                if let Some(ps) = cm.get("preservedSegment").cloned() {
                    cm.insert(
                        "preservedSegment".into(),
                        remap(&ps, &["headUuid", "anchorUuid", "tailUuid"]),
                    );
                }
                e.set("compactMetadata", Value::Object(cm));
            }
        }
    }
    e.set("uuid", Value::from(new_ids[old].as_str()));
    e.set(
        "parentUuid",
        ids.parent.clone().map_or(Value::Null, Value::from),
    );
    match e.get("logicalParentUuid").cloned() {
        None | Some(Value::Null) => {}
        Some(v) => {
            let mapped = v
                .as_str()
                .and_then(|s| new_ids.get(s))
                .map_or(Value::Null, |s| Value::from(s.as_str()));
            e.set("logicalParentUuid", mapped);
        }
    }
    e.set("sessionId", Value::from(fork_id));
    if let Some(t) = timestamp {
        e.set("timestamp", Value::from(t));
    }
    e.set("isSidechain", Value::Bool(false));
    for k in CLEARED {
        e.remove(k);
    }
    match request_session {
        Some(v) => e.set("requestSessionId", v),
        None => e.remove("requestSessionId"),
    }
    e.set(
        "forkedFrom",
        json!({"sessionId": src_id, "messageUuid": old}),
    );
}

/// The title a fork is named after: the session's title or first prompt.
fn fork_title(src: &SessionFile) -> String {
    let Ok(Some(ht)) = read_head_tail(&src.path) else {
        return "Forked session".into();
    };
    let custom = |t: &str| last_entry_field(t, "customTitle", Some("custom-title"), true);
    let ai = |t: &str| last_entry_field(t, "aiTitle", Some("ai-title"), true);
    let title = custom(&ht.tail)
        .or_else(|| custom(&ht.head))
        .filter(|t| !t.is_empty())
        .or_else(|| ai(&ht.tail).filter(|t| !t.is_empty()))
        .or_else(|| ai(&ht.head).filter(|t| !t.is_empty()))
        .unwrap_or_else(|| first_prompt(&ht.head));
    if title.trim_matches(is_js_space).is_empty() {
        "Forked session".into()
    } else {
        title
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::error::chain;
    use std::time::Duration;

    fn os_error(code: rustix::io::Errno) -> io::Error {
        code.into()
    }

    #[test]
    fn a_folder_written_to_while_it_is_removed_is_removed_on_a_later_try() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("5517114d").join("subagents");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("agent-a.jsonl"), "{}\n").unwrap();
        let side = tmp.path().join("5517114d");
        let mut calls = 0;
        // the first try meets a file the CLI wrote meanwhile (rmdir says
        // ENOTEMPTY), the second one removes everything
        let r = remove_tree(
            &side,
            |d: &Path| {
                calls += 1;
                if calls == 1 {
                    std::fs::write(d.join("subagents").join("agent-b.jsonl"), "{}\n")?;
                    return Err(os_error(rustix::io::Errno::NOTEMPTY));
                }
                std::fs::remove_dir_all(d)
            },
            Duration::from_millis(1),
        );
        r.unwrap();
        assert_eq!(calls, 2);
        assert!(!side.exists());
    }

    #[test]
    fn busy_is_tried_three_times_then_says_who_may_be_writing() {
        let tmp = tempfile::tempdir().unwrap();
        for code in [rustix::io::Errno::NOTEMPTY, rustix::io::Errno::BUSY] {
            let mut calls = 0;
            let e = remove_tree(
                tmp.path(),
                |_: &Path| {
                    calls += 1;
                    Err(os_error(code))
                },
                Duration::from_millis(1),
            )
            .unwrap_err();
            assert_eq!(calls, 3);
            let text = chain(&e);
            assert!(text.contains(&tmp.path().display().to_string()), "{text}");
            assert!(text.contains("still there after 3 tries"), "{text}");
            assert!(text.contains("running Claude Code session"), "{text}");
            match e {
                StoreError::Io { source, .. } => assert_eq!(
                    source.kind(),
                    os_error(code).kind(),
                    "the system's kind is kept"
                ),
                other => panic!("{other:?}"),
            }
        }
    }

    #[test]
    fn other_failures_are_not_retried_and_a_folder_gone_is_fine() {
        let tmp = tempfile::tempdir().unwrap();
        let mut calls = 0;
        let e = remove_tree(
            tmp.path(),
            |_: &Path| {
                calls += 1;
                Err(os_error(rustix::io::Errno::ACCESS))
            },
            Duration::from_millis(1),
        )
        .unwrap_err();
        assert_eq!(calls, 1);
        assert!(!chain(&e).contains("tries"), "{}", chain(&e));
        let mut calls = 0;
        remove_tree(
            tmp.path(),
            |_: &Path| {
                calls += 1;
                Err(os_error(rustix::io::Errno::NOENT))
            },
            Duration::from_millis(1),
        )
        .unwrap();
        assert_eq!(calls, 1);
    }

    #[test]
    fn delete_removes_the_transcript_and_its_sub_agents() {
        let tmp = tempfile::tempdir().unwrap();
        let id = "5517114d-58c8-4364-87d8-fb14df5b85be";
        let file = SessionFile {
            id: id.into(),
            path: tmp.path().join(format!("{id}.jsonl")),
        };
        std::fs::write(&file.path, "{}\n").unwrap();
        let agents = file.side_dir().join("subagents");
        std::fs::create_dir_all(&agents).unwrap();
        std::fs::write(agents.join("agent-a.jsonl"), "{}\n").unwrap();
        delete(&file).unwrap();
        assert!(!file.path.exists());
        assert!(!file.side_dir().exists());
        assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
    }
}
