//! A session's sub-agent transcripts: the folder beside its `.jsonl`
//! (`<session>/subagents/agent-<id>.jsonl`, with `agent-<id>.meta.json`),
//! as the official SDKs' `listSubagents` / `getSubagentMessages` read them.

use super::chain::Entry;
use super::error::{StoreError, StoreResult};
use super::lines::Transcript;
use super::open::read_small;
use super::{SessionFile, Store};
use serde::Serialize;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

/// One sub-agent run of a session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SubagentInfo {
    /// The agent's id (also the `agentId` in the session's transcript).
    pub agent_id: String,
    /// What it was asked to do (the Task call's description).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The agent type (`general-purpose`, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent_type: Option<String>,
    /// The Task call that started it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_use_id: Option<String>,
    /// Its transcript.
    #[serde(skip)]
    pub path: PathBuf,
    /// When its transcript was last written (ms since the epoch).
    pub last_modified: i64,
}

/// The sub-agent runs beside the transcript at `session`, oldest first:
/// the `agent-<id>.jsonl` files of `<session>/subagents`. With
/// `regular_only`, only regular files; else every such name, so that one
/// that is a link, a FIFO or a device can be named when the store's safe
/// opener refuses it. A `<session>` or `subagents` folder that is a link is
/// not followed: the session has no sub-agents.
pub(crate) fn subagents_of(session: &Path, regular_only: bool) -> StoreResult<Vec<SubagentInfo>> {
    let side = side_dir(session);
    let dir = side.join("subagents");
    let ext = if super::open::is_packed(session) {
        super::open::PACKED_EXT
    } else {
        ".jsonl"
    };
    // most sessions have no folder: one lstat each, and no link followed
    for d in [&side, &dir] {
        match std::fs::symlink_metadata(d) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => return Ok(Vec::new()),
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
                ) =>
            {
                return Ok(Vec::new())
            }
            Err(e) => return Err(super::error::io_err(d)(e)),
        }
    }
    let rd = match std::fs::read_dir(&dir) {
        Ok(rd) => rd,
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
            ) =>
        {
            return Ok(Vec::new())
        }
        Err(e) => return Err(super::error::io_err(&dir)(e)),
    };
    let mut out = Vec::new();
    for e in rd.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(agent) = name
            .strip_prefix("agent-")
            .and_then(|n| n.strip_suffix(ext))
        else {
            continue;
        };
        if !valid_agent_id(agent) || (regular_only && !e.file_type().is_ok_and(|t| t.is_file())) {
            continue;
        }
        let meta: Value = read_small(&dir.join(format!("agent-{agent}.meta.json")), 1 << 20)
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or(Value::Null);
        let field = |k: &str| meta.get(k).and_then(Value::as_str).map(str::to_owned);
        // the entry's own time (a link's, not its target's)
        let last_modified = e
            .metadata()
            .ok()
            .and_then(|m| m.modified().ok())
            .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_millis() as i64);
        out.push(SubagentInfo {
            agent_id: agent.to_owned(),
            description: field("description"),
            agent_type: field("agentType"),
            tool_use_id: field("toolUseId"),
            path: e.path(),
            last_modified,
        });
    }
    out.sort_by(|a, b| {
        a.last_modified
            .cmp(&b.last_modified)
            .then(a.agent_id.cmp(&b.agent_id))
    });
    Ok(out)
}

/// The folder beside a transcript (`<session>.jsonl` or, archived,
/// `<session>.jsonl.zst`): `<session>`.
pub(crate) fn side_dir(session: &Path) -> PathBuf {
    let name = session
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let stem = name
        .strip_suffix(super::open::PACKED_EXT)
        .or_else(|| name.strip_suffix(".jsonl"))
        .unwrap_or(&name);
    session.with_file_name(stem)
}

pub(super) fn valid_agent_id(id: &str) -> bool {
    !id.is_empty()
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

impl Store {
    /// The sub-agent runs of session `id` (full id or unique prefix),
    /// oldest first. None when it started none.
    ///
    /// ```no_run
    /// let store = claudio::store::Store::from_env()?;
    /// for agent in store.subagents("b55ade39")? {
    ///     let messages = store.subagent_messages("b55ade39", &agent.agent_id)?;
    ///     let what = agent.description.as_deref().unwrap_or("");
    ///     println!("{} ({what}): {} messages", agent.agent_id, messages.len());
    /// }
    /// # Ok::<(), claudio::store::StoreError>(())
    /// ```
    pub fn subagents(&self, id: &str) -> StoreResult<Vec<SubagentInfo>> {
        subagents_of(&self.find(id)?.path, true)
    }

    /// A sub-agent's messages (user and assistant entries), in the order
    /// written. Damaged lines are skipped.
    ///
    /// ```no_run
    /// let store = claudio::store::Store::from_env()?;
    /// for entry in store.subagent_messages("b55ade39", "a1b2c3d4")? {
    ///     let text = entry.content().map(|c| c.text()).unwrap_or_default();
    ///     println!("{} {}: {text}", entry.timestamp().unwrap_or(""), entry.kind());
    /// }
    /// # Ok::<(), claudio::store::StoreError>(())
    /// ```
    pub fn subagent_messages(&self, id: &str, agent_id: &str) -> StoreResult<Vec<Entry>> {
        self.find(id)?.subagent_messages(agent_id)
    }
}

impl SessionFile {
    /// [`Store::subagent_messages`] of this transcript. Only a regular file
    /// is read: a sub-agent transcript that is a link (to a file outside
    /// the store, say), a FIFO or a device is no sub-agent of the session.
    pub fn subagent_messages(&self, agent_id: &str) -> StoreResult<Vec<Entry>> {
        let missing = || StoreError::SubagentNotFound {
            session: self.id.clone(),
            agent: agent_id.to_owned(),
        };
        if !valid_agent_id(agent_id) {
            return Err(missing()); // never a path
        }
        let ext = if super::open::is_packed(&self.path) {
            super::open::PACKED_EXT
        } else {
            ".jsonl"
        };
        let path = side_dir(&self.path)
            .join("subagents")
            .join(format!("agent-{agent_id}{ext}"));
        if !std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file()) {
            return Err(missing());
        }
        let mut out = Vec::new();
        // a line too long to be read is passed over (see `MAX_LINE`)
        Transcript::open(&path)?.each_line(|_, line| {
            let raw = String::from_utf8_lossy(line).into_owned();
            if let Ok(value) = crate::protocol::from_str_lenient::<Value>(&raw) {
                if matches!(
                    value.get("type").and_then(Value::as_str),
                    Some("user" | "assistant")
                ) {
                    out.push(Entry { raw, value });
                }
            }
        })?;
        Ok(out)
    }
}
