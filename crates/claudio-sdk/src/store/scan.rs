//! Reading fields out of transcript text the way the TypeScript SDK does:
//! substring searches over the head and tail of a file, parsing only the
//! lines that can hold the field. Following its rules to the letter is what
//! makes `claudio sessions list --json` agree with `listSessions()`.

use super::chain::{is_js_space, js_trim, truthy};
use serde::de::{DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use std::fmt;

fn find(hay: &str, needle: &str) -> Option<usize> {
    memchr::memmem::find(hay.as_bytes(), needle.as_bytes())
}

/// Every position of `needle`, first to last (a forward search is the fast one).
fn positions(hay: &str, needle: &str) -> Vec<usize> {
    memchr::memmem::find_iter(hay.as_bytes(), needle.as_bytes()).collect()
}

/// Every position of `needle`, last to first, found lazily: windows from
/// the end, each searched forward (memchr's forward search is the SIMD one;
/// its reverse search is not), so finding the last of a key written near
/// the end reads a few KiB, not the whole text. Nothing is read twice.
///
/// The needle must be non-empty and unable to overlap itself (no proper
/// prefix equal to a suffix, as with every `"key":`): windows searched
/// apart would otherwise keep other overlapping matches than one forward
/// search does.
fn last_first<'h>(hay: &'h str, needle: &str) -> impl Iterator<Item = usize> + 'h {
    debug_assert!(
        !needle.is_empty()
            && (1..needle.len())
                .all(|k| needle.as_bytes()[..k] != needle.as_bytes()[needle.len() - k..]),
        "last_first needs a needle that cannot overlap itself: {needle:?}"
    );
    let finder = memchr::memmem::Finder::new(needle.as_bytes()).into_owned();
    let hay = hay.as_bytes();
    let n = needle.len();
    let mut hi = hay.len();
    let mut window = 2048;
    let mut found: Vec<usize> = Vec::new();
    std::iter::from_fn(move || loop {
        if let Some(p) = found.pop() {
            return Some(p);
        }
        if hi == 0 {
            return None;
        }
        // Matches starting in lo..hi lie within lo..hi + n - 1.
        let lo = hi.saturating_sub(window);
        let end = (hi + n - 1).min(hay.len());
        found.extend(finder.find_iter(&hay[lo..end]).map(|p| p + lo));
        hi = lo;
        window = (window * 4).min(64 * 1024);
    })
}

/// Which metadata entries a text holds, as `"type":"X"` or `"type": "X"`,
/// from one search for `"type":`. The fields only those entries carry
/// (titles, tags, `relocatedCwd`, continuation marks) are found by their
/// entry type, so when a type is absent its field's search can be skipped:
/// one pass over the text instead of one per field.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct EntryTypes {
    compact: u8,
    spaced: u8,
}

impl EntryTypes {
    pub(crate) const TAG: u8 = 1;
    pub(crate) const RELOCATED: u8 = 2;
    pub(crate) const CUSTOM_TITLE: u8 = 4;
    pub(crate) const AI_TITLE: u8 = 8;
    pub(crate) const CONTINUED_IN: u8 = 16;
    const NAMES: [(&'static [u8], u8); 5] = [
        (b"\"tag\"", Self::TAG),
        (b"\"relocated\"", Self::RELOCATED),
        (b"\"custom-title\"", Self::CUSTOM_TITLE),
        (b"\"ai-title\"", Self::AI_TITLE),
        (b"\"continued-in\"", Self::CONTINUED_IN),
    ];

    pub(crate) fn of(text: &str) -> EntryTypes {
        let b = text.as_bytes();
        let mut t = EntryTypes::default();
        for at in memchr::memmem::find_iter(b, b"\"type\":") {
            let mut rest = &b[at + 7..];
            let spaced = rest.first() == Some(&b' ');
            if spaced {
                rest = &rest[1..];
            }
            if let Some((_, bit)) = Self::NAMES.iter().find(|(n, _)| rest.starts_with(n)) {
                if spaced {
                    t.spaced |= bit;
                } else {
                    t.compact |= bit;
                }
            }
        }
        t
    }

    /// `"type":"X"` appears.
    pub(crate) fn compact(self, bit: u8) -> bool {
        self.compact & bit != 0
    }

    /// `"type":"X"` or `"type": "X"` appears.
    pub(crate) fn any(self, bit: u8) -> bool {
        (self.compact | self.spaced) & bit != 0
    }
}

/// A fast `str::contains`.
pub(crate) fn has(hay: &str, needle: &str) -> bool {
    find(hay, needle).is_some()
}

/// The bounds of the line holding byte `pos` (without its newline).
fn line_around(text: &str, pos: usize) -> (usize, usize) {
    let b = text.as_bytes();
    let start = memchr::memrchr(b'\n', &b[..pos]).map_or(0, |i| i + 1);
    let end = memchr::memchr(b'\n', &b[pos..]).map_or(b.len(), |i| pos + i);
    (start, end)
}

/// The lines holding `a` or `b`, first to last, each once. `b` is searched
/// only as far as the next `a`: when it is rare (`"type": "user"`, spaced,
/// beside the common `"type":"user"`), the text is not read to its end just
/// to learn that.
fn lines_with<'t>(text: &'t str, a: &'t str, b: &'t str) -> impl Iterator<Item = &'t str> + 't {
    let (fa, fb) = (
        memchr::memmem::Finder::new(a.as_bytes()),
        memchr::memmem::Finder::new(b.as_bytes()),
    );
    let hay = text.as_bytes();
    let mut from = 0;
    // The next `a` at or after `from`, once searched (`Some(None)`: none left).
    let mut next_a: Option<Option<usize>> = None;
    // A `b` at or after `from`, once found; none starts in `from..b_clear`.
    let mut next_b: Option<usize> = None;
    let mut b_clear = 0;
    std::iter::from_fn(move || {
        if from > hay.len() {
            return None;
        }
        if next_a.is_some_and(|p| p.is_some_and(|p| p < from)) {
            next_a = None;
        }
        let pa = *next_a.get_or_insert_with(|| fa.find(&hay[from..]).map(|p| p + from));
        if next_b.is_some_and(|p| p < from) {
            next_b = None;
        }
        if next_b.is_none() {
            let start = b_clear.max(from);
            // Far enough to find a `b` that starts before the `a`.
            let stop = pa.map_or(hay.len(), |p| (p + b.len()).min(hay.len()));
            if start < stop {
                next_b = fb.find(&hay[start..stop]).map(|q| q + start);
            }
            if next_b.is_none() {
                b_clear = b_clear.max((stop + 1).saturating_sub(b.len()));
            }
        }
        let at = match (pa, next_b) {
            (Some(x), Some(y)) => x.min(y),
            (x, y) => x.or(y)?,
        };
        let (start, end) = line_around(text, at);
        from = end + 1;
        Some(&text[start..end])
    })
}

/// Length in UTF-16 code units (JavaScript's `length`).
pub(crate) fn utf16_len(s: &str) -> usize {
    s.chars().map(char::len_utf16).sum()
}

/// The first `max` UTF-16 code units, never splitting a surrogate pair.
pub(crate) fn utf16_prefix(s: &str, max: usize) -> &str {
    let mut units = 0;
    for (i, c) in s.char_indices() {
        units += c.len_utf16();
        if units > max {
            return &s[..i];
        }
    }
    s
}

/// A JSON string body: unescaped when it has a backslash, else as is; a
/// body that does not unescape is returned raw.
fn unescape(raw: &str) -> String {
    if !raw.contains('\\') {
        return raw.to_owned();
    }
    crate::protocol::from_str_lenient::<String>(&format!("\"{raw}\""))
        .unwrap_or_else(|_| raw.to_owned())
}

/// Scan a JSON string body starting at byte `start`; the index of its
/// closing quote.
fn string_end(text: &[u8], start: usize) -> Option<usize> {
    let mut i = start;
    while i < text.len() {
        match text[i] {
            b'\\' => i += 2,
            b'"' => return Some(i),
            _ => i += 1,
        }
    }
    None
}

/// The value of the first `"key":"…"` in the text (then of `"key": "…"`),
/// found by searching, not parsing.
pub(crate) fn first_string_field(text: &str, key: &str) -> Option<String> {
    for pat in [format!("\"{key}\":\""), format!("\"{key}\": \"")] {
        let Some(at) = find(text, &pat) else { continue };
        let start = at + pat.len();
        if let Some(end) = string_end(text.as_bytes(), start) {
            return Some(unescape(&text[start..end]));
        }
    }
    None
}

/// The value of the last `"key":"…"` (or `"key": "…"`) in the text whose
/// string is terminated.
pub(crate) fn last_string_field(text: &str, key: &str) -> Option<String> {
    let pat = format!("\"{key}\":");
    let b = text.as_bytes();
    for at in last_first(text, &pat) {
        let after = at + pat.len();
        let start = match b.get(after..after + 2) {
            Some([b'"', _]) => after + 1,
            Some(b" \"") => after + 2,
            _ if b.get(after) == Some(&b'"') => after + 1,
            _ => continue,
        };
        if let Some(end) = string_end(b, start) {
            return Some(unescape(&text[start..end]));
        }
    }
    None
}

/// Parse a JSON text and pick some top-level fields. `Err` when it is not
/// JSON; `Ok(None)` when it is JSON but not an object.
pub(crate) fn top_fields(line: &str, keys: &[&str]) -> Result<Option<Vec<Option<Value>>>, ()> {
    // a lone surrogate escape is read as U+FFFD, as every parse reads it
    crate::protocol::or_mended(line, |line| {
        let mut de = serde_json::Deserializer::from_str(line);
        let out = Fields { keys }.deserialize(&mut de).map_err(|_| ())?;
        de.end().map_err(|_| ())?;
        Ok(out)
    })
}

struct Fields<'k> {
    keys: &'k [&'k str],
}

impl<'de> DeserializeSeed<'de> for Fields<'_> {
    type Value = Option<Vec<Option<Value>>>;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Fields<'_> {
    type Value = Option<Vec<Option<Value>>>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut out = vec![None; self.keys.len()];
        while let Some(k) = map.next_key::<String>()? {
            match self.keys.iter().position(|x| *x == k) {
                Some(i) => out[i] = Some(map.next_value::<Value>()?),
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(Some(out))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(None)
    }
    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
}

/// A line's `key` when it parses to an object (of type `ty`, if given) with
/// a string there. `Err` when the line is not JSON.
fn field_of_line(line: &str, key: &str, ty: Option<&str>) -> Result<Option<String>, ()> {
    let Some(fields) = top_fields(line, &[key, "type"])? else {
        return Ok(None);
    };
    if let Some(ty) = ty {
        if fields[1].as_ref().and_then(Value::as_str) != Some(ty) {
            return Ok(None);
        }
    }
    Ok(match &fields[0] {
        Some(Value::String(s)) => Some(s.clone()),
        _ => None,
    })
}

/// The newest string `key` of an entry (of type `ty`, if given), searching
/// lines from the end. With `recover`, a line where a write was glued to a
/// half-written one is read from its last `{"type":"ty"`.
pub(crate) fn last_entry_field(
    text: &str,
    key: &str,
    ty: Option<&str>,
    recover: bool,
) -> Option<String> {
    let at = last_first(text, &format!("\"{key}\":"));
    last_entry_field_at(text, at, key, ty, recover)
}

/// The newest custom title and AI title of a text, in one search.
pub(crate) fn last_titles(text: &str) -> (Option<String>, Option<String>) {
    let all = positions(text, "Title\":");
    let before =
        |p: usize, s: &str| p >= s.len() && text.as_bytes()[p - s.len()..p] == *s.as_bytes();
    let custom: Vec<usize> = all
        .iter()
        .filter(|&&p| before(p, "\"custom"))
        .map(|p| p - 7)
        .collect();
    let ai: Vec<usize> = all
        .iter()
        .filter(|&&p| before(p, "\"ai"))
        .map(|p| p - 3)
        .collect();
    (
        last_entry_field_at(
            text,
            custom.into_iter().rev(),
            "customTitle",
            Some("custom-title"),
            true,
        ),
        last_entry_field_at(
            text,
            ai.into_iter().rev(),
            "aiTitle",
            Some("ai-title"),
            true,
        ),
    )
}

/// [`last_entry_field`] given the positions of `"key":` in the text, last
/// to first.
fn last_entry_field_at(
    text: &str,
    key_positions: impl Iterator<Item = usize>,
    key: &str,
    ty: Option<&str>,
    recover: bool,
) -> Option<String> {
    let type_pats: Vec<String> = match ty {
        None => Vec::new(),
        Some(t) if recover => vec![format!("\"type\":\"{t}\""), format!("\"type\": \"{t}\"")],
        Some(t) => vec![format!("\"type\":\"{t}\"")],
    };
    // Lines holding the key, from the last to the first.
    let mut next_start = usize::MAX;
    for at in key_positions {
        if at >= next_start {
            continue; // on a line already seen
        }
        let (start, end) = line_around(text, at);
        let line = &text[start..end];
        next_start = start;
        if type_pats.is_empty() || type_pats.iter().any(|p| has(line, p)) {
            let mut found = field_of_line(line, key, ty);
            if found.is_err() && recover {
                let glued = format!("{{{}", type_pats[0]);
                found = match line.rfind(&glued) {
                    Some(d) if d > 0 && !b":,[".contains(&line.as_bytes()[d - 1]) => {
                        field_of_line(&line[d..], key, ty)
                    }
                    _ => Err(()),
                };
            }
            if let Ok(Some(v)) = found {
                return Some(v);
            }
        }
    }
    None
}

/// The string `key` of the first line that parses to an object holding one.
pub(crate) fn first_entry_field(text: &str, key: &str) -> Option<String> {
    let key_pat = format!("\"{key}\":");
    let found = lines_with(text, &key_pat, &key_pat)
        .find_map(|l| field_of_line(l, key, None).ok().flatten());
    found
}

const USER: &str = "\"type\":\"user\"";
const USER_SPACED: &str = "\"type\": \"user\"";

fn is_meta_line(line: &str) -> bool {
    has(line, "\"isMeta\":true") || has(line, "\"isMeta\": true")
}

/// The first prompt a person typed: the first user line that is not a tool
/// result, meta or compaction summary and has displayable text. When only
/// slash commands are found, the first command's name; when only the CLI's
/// own notes, the first note's text (so the session is still listed); else
/// `""`.
pub(crate) fn first_prompt(head: &str) -> String {
    let mut fallback = String::new();
    let mut first_note = String::new();
    for v in user_entries(head) {
        if let Some(p) = prompt_text(&v, &mut fallback) {
            return p;
        }
        if first_note.is_empty() {
            if let Some(t) = user_texts(&v).into_iter().find_map(shown_text) {
                first_note = t;
            }
        }
    }
    if fallback.is_empty() {
        first_note
    } else {
        fallback
    }
}

/// The user entries of `head` that may hold a prompt, parsed: not a tool
/// result, a meta entry or a compaction summary (told by their bytes,
/// before any is parsed).
fn user_entries(head: &str) -> impl Iterator<Item = Value> + '_ {
    lines_with(head, USER, USER_SPACED)
        .filter(|line| {
            !(is_tool_result_line(line)
                || is_meta_line(line)
                || has(line, "\"isCompactSummary\":true")
                || has(line, "\"isCompactSummary\": true"))
        })
        .filter_map(|line| {
            crate::protocol::from_str_lenient::<Value>(super::lines::entry_str(line)).ok()
        })
}

/// Whether a line is sure to be a tool's result: its bytes hold
/// `"tool_result"` and that is a content block's type (a person may type
/// the word; see `usage_skim::is_tool_result`).
pub(crate) fn is_tool_result_line(line: &str) -> bool {
    has(line, "\"tool_result\"")
        && super::usage_skim::is_tool_result(super::lines::entry_str(line).as_bytes())
}

/// The first prompt a person typed as a prompt, for a title: the first
/// entry the full read calls a prompt ([`Entry::prompt`](super::Entry::prompt)),
/// shown: not a `!` command alone, a slash command, a note of the CLI's,
/// a meta entry, a compaction summary or a side chain's entry; a user
/// entry's text blocks read joined, as the full read reads them; an entry
/// found however its JSON is written (spaces, escapes, keys in any order).
pub(crate) fn first_real_prompt(head: &str) -> Option<String> {
    head.split('\n')
        // any line that may be a user entry: its type, or an escape
        .filter(|line| (has(line, "user") || has(line, "\\u")) && !is_tool_result_line(line))
        .filter_map(|line| {
            crate::protocol::from_str_lenient::<Value>(super::lines::entry_str(line)).ok()
        })
        .filter(|v| v.get("type").and_then(Value::as_str) == Some("user"))
        .find_map(|value| {
            title_of(&super::chain::Entry {
                raw: String::new(),
                value,
            })
        })
}

/// A session's title from `entry`, when the full read calls it a prompt
/// ([`Entry::prompt`](super::Entry::prompt)), shown. A prompt of several
/// text blocks is titled by its first block that is a prompt on its own:
/// what the person typed, before what came with it (`git diff | claudio
/// ask "review this"` sends the prompt, then the diff), as the SDK and the
/// CLI's own `lastPrompt` title it.
pub(crate) fn title_of(entry: &super::chain::Entry) -> Option<String> {
    let whole = entry.prompt()?;
    let blocks = entry
        .value
        .get("message")
        .and_then(|m| m.get("content"))
        .and_then(Value::as_array)
        .map(|b| {
            b.iter()
                .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
                .collect::<Vec<_>>()
        })
        .unwrap_or_default();
    if blocks.len() > 1 {
        let first = blocks.iter().find_map(|block| {
            let mut value = entry.value.clone();
            value["message"]["content"] = Value::Array(vec![(*block).clone()]);
            super::chain::Entry {
                raw: String::new(),
                value,
            }
            .prompt()
            .and_then(|p| shown_text(&p))
        });
        if first.is_some() {
            return first;
        }
    }
    shown_text(&whole)
}

/// The texts of a user entry's message (its string, or its text blocks);
/// none for a tool result.
fn user_texts(entry: &Value) -> Vec<&str> {
    let mut texts = Vec::new();
    match entry.get("message").and_then(|m| m.get("content")) {
        Some(Value::String(s)) => texts.push(s.as_str()),
        Some(Value::Array(blocks)) => {
            for b in blocks {
                let Some(obj) = b.as_object() else { continue };
                match obj.get("type").and_then(Value::as_str) {
                    Some("tool_result") => return Vec::new(),
                    Some("text") => {
                        if let Some(Value::String(t)) = obj.get("text") {
                            texts.push(t);
                        }
                    }
                    _ => {}
                }
            }
        }
        _ => {}
    }
    texts
}

/// A text as a listing shows it: pasted-content wrappers removed, newlines
/// as spaces, trimmed, cut to 200 UTF-16 units plus `…`; `None` when empty.
pub(crate) fn shown_text(t: &str) -> Option<String> {
    let joined = unwrap_pasted(t).replace('\n', " ");
    let c = js_trim(&joined);
    if c.is_empty() {
        return None;
    }
    if utf16_len(c) > 200 {
        return Some(format!("{}…", js_trim(utf16_prefix(c, 200))));
    }
    Some(c.to_owned())
}

/// `"Image"` or `"Document"` when the first user line that carries one
/// carries one, else `""`: a full parse's answer, a content block's `type`
/// as serde_json reads it. A line that is a tool's result (a block of type
/// `tool_result`) or meta is passed over, and only such a line (the bytes
/// `"tool_result"` in any field passed a line over). A line is parsed only
/// when its bytes may name a media type (the word, or an escape).
pub(crate) fn first_media_kind(head: &str) -> &'static str {
    for line in lines_with(head, USER, USER_SPACED) {
        if !(has(line, "image") || has(line, "document") || has(line, "\\u")) {
            continue;
        }
        let entry = super::lines::entry_str(line);
        let Ok(v) = crate::protocol::from_str_lenient::<Value>(entry) else {
            continue;
        };
        if v.get("type").and_then(Value::as_str) != Some("user")
            || v.get("isMeta") == Some(&Value::Bool(true))
        {
            continue;
        }
        let Some(Value::Array(blocks)) = v.get("message").and_then(|m| m.get("content")) else {
            continue;
        };
        let types: Vec<&str> = blocks
            .iter()
            .filter_map(|b| b.get("type").and_then(Value::as_str))
            .collect();
        if types.contains(&"tool_result") {
            continue;
        }
        if types.contains(&"image") {
            return "Image";
        }
        if types.contains(&"document") {
            return "Document";
        }
    }
    ""
}

/// The displayable prompt of a user entry, if it is one a person typed:
/// newlines become spaces, pasted-content wrappers are removed, slash
/// commands are remembered in `command` (the first one), `!` shell input is
/// shown as `! cmd`, text that starts with a tag or an interruption notice
/// is skipped, and long text is cut to 200 UTF-16 units plus `…`.
pub(crate) fn prompt_text(entry: &Value, command: &mut String) -> Option<String> {
    prompt_text_as(entry, Some(command))
}

/// [`prompt_text`]; `command` `None`: a prompt as the store's full read
/// tells one (`Entry::prompt`), for a title: a text is a prompt unless it
/// is a note of the CLI's (`<bash-input>` or `<command-name>` inside a
/// prompt the person typed is text, not a `! cmd` or a slash command).
fn prompt_text_as(entry: &Value, mut command: Option<&mut String>) -> Option<String> {
    if entry.get("type").and_then(Value::as_str) != Some("user")
        || entry.get("isMeta") == Some(&Value::Bool(true))
        || entry.get("isCompactSummary") == Some(&Value::Bool(true))
        || !truthy(entry.get("message"))
    {
        return None;
    }
    let mut texts: Vec<&str> = Vec::new();
    match entry["message"].get("content") {
        Some(Value::String(s)) => texts.push(s),
        Some(Value::Array(blocks)) => {
            for b in blocks {
                let Some(obj) = b.as_object() else { continue };
                match obj.get("type").and_then(Value::as_str) {
                    Some("tool_result") => return None,
                    Some("text") => {
                        if let Some(Value::String(t)) = obj.get("text") {
                            texts.push(t);
                        }
                    }
                    _ => {}
                }
            }
        }
        _ => {}
    }
    for t in texts {
        let joined = unwrap_pasted(t).replace('\n', " ");
        let c = js_trim(&joined);
        if c.is_empty() {
            continue;
        }
        if let Some(command) = command.as_deref_mut() {
            if let Some(name) = command_name(c) {
                if command.is_empty() {
                    *command = name.to_owned();
                }
                continue;
            }
            if let Some(cmd) = between(c, "<bash-input>", "</bash-input>") {
                return Some(format!("! {}", js_trim(cmd)));
            }
        }
        if is_cli_note(c) {
            continue;
        }
        if utf16_len(c) > 200 {
            return Some(format!("{}…", js_trim(utf16_prefix(c, 200))));
        }
        return Some(c.to_owned());
    }
    None
}

/// The text between the first `open` and the next `close`.
fn between<'a>(s: &'a str, open: &str, close: &str) -> Option<&'a str> {
    let start = s.find(open)? + open.len();
    let end = s[start..].find(close)?;
    Some(&s[start..start + end])
}

/// `/<command-name>(.*?)<\/command-name>/`: `.` stops at line terminators.
fn command_name(s: &str) -> Option<&str> {
    const OPEN: &str = "<command-name>";
    const CLOSE: &str = "</command-name>";
    let mut from = 0;
    while let Some(rel) = s[from..].find(OPEN) {
        let start = from + rel + OPEN.len();
        let rest = &s[start..];
        let stop = rest
            .find(['\n', '\r', '\u{2028}', '\u{2029}'])
            .unwrap_or(rest.len());
        if let Some(end) = rest[..stop].find(CLOSE) {
            return Some(&rest[..end]);
        }
        from = from + rel + 1;
    }
    None
}

/// Whether a user entry's text is the CLI's own note (one of the tags the
/// CLI writes, such as `<task-notification>` or `<command-name>`, or an
/// interruption), not something the person typed.
///
/// This is narrower than the official SDKs' rule, which takes any text
/// starting with a tag (`<div>`, a pasted XML error) for a note and so
/// loses such a session from the listing: only the CLI's own tags
/// (`CLI_TAGS`, and the `local-command-`, `bash-` and `command-`
/// families) are skipped here.
pub fn is_cli_note(text: &str) -> bool {
    const INTERRUPTED: &str = "[Request interrupted by user";
    // the note `ask --json-schema` adds when the model answers with text:
    // "[structured-output-enforce] You MUST call the StructuredOutput tool…"
    const ENFORCE: &str = "[structured-output-enforce]";
    if text.trim_start_matches(is_js_space).starts_with(ENFORCE) {
        return true;
    }
    if let Some(rest) = text.strip_prefix(INTERRUPTED) {
        if rest.contains(']') {
            return true;
        }
    }
    leading_tag(text).is_some_and(|tag| {
        CLI_TAGS.contains(&tag)
            || ["local-command-", "bash-", "command-"]
                .iter()
                .any(|p| tag.starts_with(p))
    })
}

/// The tags the CLI 2.1.328 writes at the start of a user entry of its own
/// (found in its binary beside the `local-command-`, `bash-` and
/// `command-` families).
pub(crate) const CLI_TAGS: &[&str] = &[
    "task-notification",
    "system-reminder",
    "user-memory-input",
    "user-prompt-submit-hook",
    "new-diagnostics",
    "teammate-message",
    "cross-session-message",
    "mcp-resource",
    "autonomous-loop",
    "autonomous-loop-dynamic",
    "scheduled-task",
    "remote-review",
    "fork-boilerplate",
    "tick",
];

/// The name of the tag `s` starts with (after blanks), as the SDK's rule
/// reads one: `/^\s*<([a-z][\w-]*)[\s>]/`.
fn leading_tag(s: &str) -> Option<&str> {
    let t = s.trim_start_matches(is_js_space);
    let rest = t.strip_prefix('<')?;
    if !rest.starts_with(|c: char| c.is_ascii_lowercase()) {
        return None;
    }
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
        .unwrap_or(rest.len());
    let after = rest[end..].chars().next()?;
    (after == '>' || is_js_space(after)).then_some(&rest[..end])
}

/// Text with `<pasted_content id="abcd">…</pasted_content id="abcd">`
/// wrappers replaced by their bodies (and up to two newlines around each
/// wrapper dropped), as the CLI shows pasted text.
pub(crate) fn unwrap_pasted(e: &str) -> std::borrow::Cow<'_, str> {
    const OPEN: &str = "<pasted_content id=\"";
    if !e.contains(OPEN) {
        return e.into();
    }
    let b = e.as_bytes();
    let mut parts: Vec<&str> = Vec::new();
    let (mut n, mut r) = (0usize, 0usize);
    let mut blocks = 0;
    while let Some(rel) = e.get(r..).and_then(|t| t.find(OPEN)) {
        let o = r + rel;
        let s = o + OPEN.len();
        let id = b.get(s..s + 4);
        let ok = id.is_some_and(|id| {
            id.iter()
                .all(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(c))
        }) && b.get(s + 4..s + 7) == Some(b"\">\n".as_slice());
        if !ok {
            r = s;
            continue;
        }
        let id = &e[s..s + 4];
        let a = s + 7;
        let close = format!("</pasted_content id=\"{id}\">");
        let Some(nl) = e[a - 1..].find(&format!("\n{close}")).map(|x| x + a - 1) else {
            break;
        };
        let d = nl + 1;
        let mut p = o;
        for _ in 0..2 {
            if p > n && b[p - 1] == b'\n' {
                p -= 1;
            }
        }
        if p > n {
            parts.push(&e[n..p]);
        }
        n = d + close.len();
        for _ in 0..2 {
            if b.get(n) == Some(&b'\n') {
                n += 1;
            }
        }
        parts.push(if d - 1 > a { &e[a..d - 1] } else { "" });
        blocks += 1;
        r = n;
    }
    if blocks == 0 {
        return e.into();
    }
    if n < e.len() {
        parts.push(&e[n..]);
    }
    parts.concat().into()
}

/// Format (`Cf`) characters, per Unicode 16.
fn is_format_char(c: char) -> bool {
    matches!(c as u32,
        0xAD | 0x600..=0x605 | 0x61C | 0x6DD | 0x70F | 0x890..=0x891 | 0x8E2 | 0x180E
        | 0x200B..=0x200F | 0x202A..=0x202E | 0x2060..=0x2064 | 0x2066..=0x206F | 0xFEFF
        | 0xFFF9..=0xFFFB | 0x110BD | 0x110CD | 0x13430..=0x1343F | 0x1BCA0..=0x1BCA3
        | 0x1D173..=0x1D17A | 0xE0001 | 0xE0020..=0xE007F)
}

/// A title from a side file, cleaned as the SDK does: trimmed, runs of
/// control and format characters made one space, at most 200 characters.
pub(crate) fn clean_title(s: &str) -> String {
    let mut out = String::new();
    let mut in_run = false;
    for c in js_trim(s).chars() {
        if c.is_control() || is_format_char(c) || c == '\u{2028}' || c == '\u{2029}' {
            if !in_run {
                out.push(' ');
            }
            in_run = true;
        } else {
            out.push(c);
            in_run = false;
        }
    }
    let cut: String = out.chars().take(200).collect();
    js_trim(&cut).to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn string_fields_by_search() {
        let t = "{\"a\":1,\"cwd\":\"/x\\\"y\"}\n{\"cwd\": \"/z\"}\n{\"cwd\":\"/w\"}";
        assert_eq!(first_string_field(t, "cwd").as_deref(), Some("/x\"y"));
        assert_eq!(last_string_field(t, "cwd").as_deref(), Some("/w"));
        assert_eq!(first_string_field(t, "nope"), None);
        // Unterminated: the spaced form is tried next.
        assert_eq!(
            first_string_field("{\"k\": \"v\"} {\"k\":\"unterminated", "k").as_deref(),
            Some("v")
        );
    }

    #[test]
    fn entry_fields_from_the_end() {
        let t = concat!(
            "{\"type\":\"custom-title\",\"customTitle\":\"old\"}\n",
            "{\"type\":\"custom-title\",\"customTitle\":\"new\"}\n",
            "{\"type\":\"custom-title\",\"customTitle\":5}\n",
            "garbage\n"
        );
        assert_eq!(
            last_entry_field(t, "customTitle", Some("custom-title"), true).as_deref(),
            Some("new")
        );
        // A half-written line with a whole entry glued after it.
        let glued = "{\"type\":\"user\",\"message\":{\"con{\"type\":\"tag\",\"tag\":\"t1\",\"sessionId\":\"s\"}";
        assert_eq!(
            last_entry_field(glued, "tag", Some("tag"), true).as_deref(),
            Some("t1")
        );
        assert_eq!(last_entry_field(glued, "tag", Some("tag"), false), None);
        // Without a type, any entry with the key.
        assert_eq!(
            last_entry_field(
                "{\"lastPrompt\":\"a\"}\n{\"lastPrompt\":\"b\"}\n",
                "lastPrompt",
                None,
                false
            )
            .as_deref(),
            Some("b")
        );
    }

    #[test]
    fn titles_in_one_pass() {
        let t = concat!(
            "{\"type\":\"ai-title\",\"aiTitle\":\"AI\"}\n",
            "{\"type\":\"custom-title\",\"customTitle\":\"Mine\"}\n",
            "{\"type\":\"ai-title\",\"aiTitle\": \"AI 2\"}\n",
        );
        assert_eq!(last_titles(t), (Some("Mine".into()), Some("AI 2".into())));
        assert_eq!(last_titles(""), (None, None));
        assert_eq!(
            last_string_field("\"k\": \"a\" \"k\":\"b\" \"k\": 5", "k").as_deref(),
            Some("b")
        );
    }

    /// The title's first prompt ([`first_real_prompt`]) of a transcript
    /// whose first user entry is `text` (a string, or one text block) and
    /// whose next is `later`, against the full read's: the first entry
    /// [`Entry::prompt`](crate::store::Entry::prompt) calls a prompt, shown.
    fn title_agrees(text: &str) {
        for content in [json!(text), json!([{"type": "text", "text": text}])] {
            let head = [
                json!({"type": "user", "message": {"content": content}}).to_string(),
                json!({"type": "user", "message": {"content": "later"}}).to_string(),
            ]
            .join("\n");
            let full = full_title(&head);
            assert_eq!(first_real_prompt(&head), full, "{content}");
        }
    }

    /// A title is the first prompt the full read finds: a prompt that
    /// holds `<bash-input>` or `<command-name>` a person typed is that
    /// prompt (it was `! x`, a shell command, or passed over for a slash
    /// command), and one that only looks like a prompt to a trim of other
    /// blanks (a BOM before a `!` command) is none.
    #[test]
    fn a_title_is_the_full_read_s_first_prompt() {
        for text in [
            "why does <bash-input>x</bash-input> show?",
            "<bash-input>ls</bash-input>\n<bash-stdout>a</bash-stdout><bash-stderr></bash-stderr>\n\nwhy is <bash-input>y</bash-input> here",
            "why <command-name>/m</command-name>",
            "<bash-stdout>a</bash-stdout>\n\nsee <command-name>/m</command-name>",
            "\u{feff}<bash-input>ls</bash-input>",
            "\u{feff}<bash-input>ls</bash-input>\nhello",
            "\u{85}<bash-input>ls</bash-input>",
            "<bash-stdout>a</bash-stdout>",
            "<bash-stdout></bash-stdout>",
            "<bash-stdout>a</bash-stdout>\n\nwhy?",
            "<bash-stdout>a &amp; b</bash-stdout>\r\n\r\nwhy\r\n",
            "<bash-stderr>x</bash-stderr><bash-stdout>y</bash-stdout>",
            "<bash-stdout>a</bash-stdout>\n\n<bash-input>x</bash-input>",
            "<bash-stdout>a</bash-stdout>\n\n[Request interrupted by user]",
            "<bash-stdout>a</bash-stdout>\n\n<command-name>/m</command-name>",
            "<bash-stdout>a</bash-stdout>\n<bash-stdout>b</bash-stdout>\nwhy",
            "<bash-stdout>a</bash-stdout>\u{feff}",
            "<command-message>m</command-message>\n<command-name>/m</command-name>",
            "fix it",
        ] {
            title_agrees(text);
        }
    }

    /// The full read's title of `head`: the first entry
    /// [`Entry::prompt`](crate::store::Entry::prompt) calls a prompt, shown.
    fn full_title(head: &str) -> Option<String> {
        head.lines()
            .filter_map(|l| crate::store::Entry::parse(l).ok())
            .find_map(|e| title_of(&e))
    }

    /// A user entry the full read calls no prompt is no title either: one
    /// on a side chain (an older CLI wrote a sub-agent's entries in the
    /// session's own file), or flagged meta or a compaction summary with
    /// its flag spaced as JSON allows, whether or not a `!` command's
    /// output leads it.
    #[test]
    fn a_title_skips_what_the_full_read_skips() {
        for flag in [
            r#""isSidechain":true"#,
            r#""isSidechain" : true"#,
            r#""isMeta" : true"#,
            r#""isMeta":true"#,
            r#""isCompactSummary" : true"#,
        ] {
            for text in ["why", "<bash-stdout>a</bash-stdout>\n\nwhy"] {
                let first = format!(
                    r#"{{"type":"user",{flag},"message":{{"content":{}}}}}"#,
                    json!(text)
                );
                let later = json!({"type": "user", "message": {"content": "later"}});
                let head = [first, later.to_string()].join("\n");
                let full = full_title(&head);
                assert_eq!(full.as_deref(), Some("later"), "{head}");
                assert_eq!(first_real_prompt(&head), full, "{head}");
            }
        }
    }

    /// A prompt written as JSON may write it (a space before a colon, a
    /// `\u` escape in its type, keys in another order) is the title, as the
    /// full read finds it.
    #[test]
    fn a_title_written_as_json_allows_is_the_full_read_s() {
        for first in [
            r#"{"type" : "user","message":{"content":"why"}}"#,
            r#"{"type":"\u0075ser","message":{"content":"why"}}"#,
            r#"{"message":{"content":"why"},"type":"user"}"#,
            r#"{"type":"user","isMeta":false,"message":{"content":"why"}}"#,
        ] {
            let later = json!({"type": "user", "message": {"content": "later"}});
            let head = [first.to_owned(), later.to_string()].join("\n");
            let full = full_title(&head);
            assert_eq!(full.as_deref(), Some("why"), "{head}");
            assert_eq!(first_real_prompt(&head), full, "{head}");
        }
    }

    /// A user entry of several text blocks: the title finds the entry as
    /// the full read does (a note's block before a prompt's makes the whole
    /// entry a note), and titles a prompt by its first block that is one on
    /// its own: `git diff | claudio ask "review this"` is titled `review
    /// this`, as the CLI's own `lastPrompt` says, not the prompt and the
    /// diff run together.
    #[test]
    fn a_title_of_several_blocks_is_the_full_read_s() {
        // a prompt of these text blocks, then a later one
        let head = |texts: &[&str]| {
            let blocks: Vec<Value> = texts
                .iter()
                .map(|t| json!({"type": "text", "text": t}))
                .collect();
            [
                json!({"type": "user", "message": {"content": blocks}}).to_string(),
                json!({"type": "user", "message": {"content": "later"}}).to_string(),
            ]
            .join("\n")
        };
        let titled = |texts: &[&str]| first_real_prompt(&head(texts));
        assert_eq!(
            titled(&["review this", "diff --git a/x.rs b/x.rs\n-old\n+new\n"]).as_deref(),
            Some("review this")
        );
        assert_eq!(
            titled(&["why", "<system-reminder>x</system-reminder>"]).as_deref(),
            Some("why")
        );
        assert_eq!(titled(&["", "why"]).as_deref(), Some("why"));
        for texts in [
            ["<system-reminder>x</system-reminder>", "why"],
            ["", "why"],
            ["why", "<system-reminder>x</system-reminder>"],
            ["<bash-stdout>a</bash-stdout>", "why"],
            ["<bash-input>ls</bash-input>", "why"],
            ["[Request interrupted by user]", "why"],
            ["review this", "diff --git a/x.rs b/x.rs"],
        ] {
            let head = head(&texts);
            assert_eq!(first_real_prompt(&head), full_title(&head), "{texts:?}");
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig {
            cases: 2000,
            failure_persistence: None,
            ..proptest::prelude::ProptestConfig::default()
        })]
        /// Any text of the tags a `!` command, a slash command and the
        /// CLI's notes are written with, blanks, escapes and words: the
        /// title's first prompt is the full read's.
        #[test]
        fn any_title_is_the_full_read_s_first_prompt(
            pieces in proptest::collection::vec(
                proptest::sample::select(vec![
                    "<bash-input>", "</bash-input>", "<bash-stdout>", "</bash-stdout>",
                    "<bash-stderr>", "</bash-stderr>", "<\\/bash-stdout>", "<command-name>",
                    "</command-name>", "<command-message>", "</command-message>",
                    "<task-notification>", "</task-notification>",
                    "[Request interrupted by user]", "ls", "/m", "why?", "&lt;", "&amp;",
                    "\n", "\n\n", "\r\n", " ", "\t", "\u{a0}",
                    "\u{2028}",
                ]),
                0..10,
            ),
        ) {
            title_agrees(&pieces.concat());
        }
    }

    /// A first prompt of the word `tool_result` is the listing's first
    /// prompt: the bytes `"tool_result"` passed the line over.
    #[test]
    fn a_first_prompt_of_the_word_tool_result_is_shown() {
        let head = [
            r#"{"type":"user","message":{"content":[{"type":"tool_result","content":"r"}]}}"#,
            r#"{"type":"user","message":{"content":"tool_result"}}"#,
            r#"{"type":"user","message":{"content":"later"}}"#,
        ]
        .join("\n");
        assert_eq!(first_real_prompt(&head).as_deref(), Some("tool_result"));
    }

    /// The listing's "Image" / "Document" label is a content block's type
    /// as a full parse reads it: a line with an image and a field saying
    /// `tool_result` is no tool's result (its bytes passed it over), a
    /// tool's result holding an image is passed over, and a type written
    /// with an escape is read.
    #[test]
    fn a_first_image_beside_the_word_tool_result_is_told() {
        let image = r#"{"type":"user","message":{"content":[{"type":"image","source":{"type":"base64","data":"x","name":"tool_result"}}]}}"#;
        let result = r#"{"type":"user","message":{"content":[{"type":"tool_result","content":[{"type":"image"}]}]}}"#;
        let document = r#"{"type":"user","message":{"content":[{"type":"document"}]}}"#;
        assert_eq!(first_media_kind(&[image, document].join("\n")), "Image");
        assert_eq!(first_media_kind(&[result, document].join("\n")), "Document");
        let escaped = r#"{"type":"user","message":{"content":[{"type":"\u0069mage"}]}}"#;
        assert_eq!(first_media_kind(escaped), "Image");
        let meta = r#"{"type":"user","isMeta":true,"message":{"content":[{"type":"image"}]}}"#;
        assert_eq!(first_media_kind(meta), "");
        let text = r#"{"type":"user","message":{"content":"\"type\":\"image\""}}"#;
        assert_eq!(first_media_kind(text), "");
    }

    #[test]
    fn lines_with_either_pattern() {
        let t = "a1\nb2\nc\na b\n";
        assert_eq!(
            lines_with(t, "a", "b").collect::<Vec<_>>(),
            ["a1", "b2", "a b"]
        );
        assert_eq!(lines_with(t, "z", "z").count(), 0);
    }

    #[test]
    fn prompts_like_the_sdk() {
        let mut cmd = String::new();
        let user =
            |content: Value| json!({"type":"user","message":{"role":"user","content":content}});
        assert_eq!(
            prompt_text(&user(json!("  hi\nthere ")), &mut cmd).as_deref(),
            Some("hi there")
        );
        assert_eq!(
            prompt_text(
                &user(json!("<system-reminder>x</system-reminder>")),
                &mut cmd
            ),
            None
        );
        assert_eq!(
            prompt_text(&user(json!("[Request interrupted by user]")), &mut cmd),
            None
        );
        assert_eq!(
            prompt_text(&user(json!("<bash-input>  ls -l </bash-input>")), &mut cmd).as_deref(),
            Some("! ls -l")
        );
        assert_eq!(
            prompt_text(&user(json!("<command-name>/init</command-name>")), &mut cmd),
            None
        );
        assert_eq!(cmd, "/init");
        assert_eq!(
            prompt_text(
                &user(json!([{"type":"tool_result","content":"x"}])),
                &mut cmd
            ),
            None
        );
        assert_eq!(
            prompt_text(
                &user(json!([{"type":"image"},{"type":"text","text":"look"}])),
                &mut cmd
            )
            .as_deref(),
            Some("look")
        );
        let long = "é".repeat(151) + &"🦀".repeat(100);
        let cut = prompt_text(&user(json!(long)), &mut cmd).unwrap();
        assert_eq!(utf16_len(&cut), 199 + 1);
        assert!(cut.ends_with("🦀…"));
        let mut meta = user(json!("x"));
        meta["isMeta"] = json!(true);
        assert_eq!(prompt_text(&meta, &mut cmd), None);
    }

    #[test]
    fn first_prompt_skips_what_the_sdk_skips() {
        let head = [
            r#"{"type":"queue-operation","content":"x"}"#,
            r#"{"type":"user","isMeta":true,"message":{"content":"meta"}}"#,
            r#"{"type":"user","message":{"content":"<command-name>/clear</command-name>"}}"#,
            r#"{"type":"user","message":{"content":[{"type":"tool_result","content":"r"}]}}"#,
            r#"{"type":"user","message":{"content":"real prompt"}}"#,
        ]
        .join("\n");
        assert_eq!(first_prompt(&head), "real prompt");
        // only the CLI's own notes after the command: its name
        assert_eq!(
            first_prompt(&head.replace("real prompt", "<task-notification>x")),
            "/clear"
        );
        // a prompt that starts with a tag of the person's is a prompt (the SDK
        // would skip it)
        assert_eq!(
            first_prompt(&head.replace("real prompt", "<div>my page</div>")),
            "<div>my page</div>"
        );
        // nothing but the CLI's notes: the first one's text
        let notes = r#"{"type":"user","message":{"content":"<local-command-stdout>done</local-command-stdout>"}}"#;
        assert_eq!(
            first_prompt(notes),
            "<local-command-stdout>done</local-command-stdout>"
        );
        assert_eq!(first_prompt(""), "");
    }

    #[test]
    fn pasted_content_is_unwrapped() {
        let s = "before\n\n<pasted_content id=\"ab12\">\nbody line\n</pasted_content id=\"ab12\">\n\nafter";
        assert_eq!(unwrap_pasted(s), "beforebody lineafter");
        assert_eq!(unwrap_pasted("no wrappers"), "no wrappers");
        let bad = "<pasted_content id=\"XYZW\">\nx\n</pasted_content id=\"XYZW\">";
        assert_eq!(unwrap_pasted(bad), bad);
    }

    #[test]
    fn tags_and_interruptions() {
        assert!(is_cli_note("<local-command-stdout>x"));
        assert!(is_cli_note("  <task-notification>\n<status>"));
        assert!(is_cli_note("<bash-stdout>x</bash-stdout>"));
        assert!(is_cli_note("<command-message>init</command-message>"));
        assert!(is_cli_note("[Request interrupted by user for tool use]"));
        // the person's own tags are prompts
        assert!(!is_cli_note("<div>hello</div>"));
        assert!(!is_cli_note("<error code=\"1\">x</error>"));
        assert!(!is_cli_note("<3 you"));
        assert!(!is_cli_note("<A>"));
        assert!(!is_cli_note("<bash-input"));
        assert!(is_cli_note("[Request interrupted by user for tool use]"));
        assert!(!is_cli_note("[Request interrupted by user"));
        assert!(is_cli_note(
            "[structured-output-enforce] You MUST call the StructuredOutput tool to complete this request. Call this tool now."
        ));
        assert!(is_cli_note(" [structured-output-enforce]"));
        assert!(!is_cli_note("[structured-output] x"));
        assert!(!is_cli_note("see [structured-output-enforce]"));
    }

    #[test]
    fn titles_are_cleaned() {
        assert_eq!(clean_title("  a\u{0}\u{1}b\u{200b}c\u{2028}d "), "a b c d");
        assert_eq!(clean_title(&"x".repeat(300)).len(), 200);
    }

    #[test]
    fn last_first_finds_every_match_last_to_first() {
        // Matches across window borders (2, 8, 32, 64 KiB from the end), at
        // both ends, dense and sparse.
        let needle = "\"tag\":";
        for len in [0usize, 5, 2047, 2048, 2049, 10_000, 70_000, 200_000] {
            for spots in [
                vec![],
                vec![0],
                vec![len.saturating_sub(needle.len())],
                (0..len).step_by(997).collect::<Vec<_>>(),
                (0..len).step_by(13).collect::<Vec<_>>(),
                [2048usize, 8192, 10 * 1024, 42 * 1024, 106 * 1024]
                    .iter()
                    .flat_map(|w| (0..needle.len() + 1).map(move |d| len.saturating_sub(w + d)))
                    .collect(),
            ] {
                let mut b = vec![b'x'; len];
                for &at in &spots {
                    if at + needle.len() <= len {
                        b[at..at + needle.len()].copy_from_slice(needle.as_bytes());
                    }
                }
                let text = String::from_utf8(b).unwrap();
                let mut want = positions(&text, needle);
                want.reverse();
                let got: Vec<usize> = last_first(&text, needle).collect();
                assert_eq!(got, want, "len {len}");
            }
        }
    }

    #[test]
    fn entry_types_are_seen_compact_or_spaced_and_exact() {
        let t = EntryTypes::of(
            r#"{"type":"user"}
{"type":"tag","tag":"x"}
{"type": "ai-title","aiTitle":"t"}
{"type":"relocated-ish"}
{"type":"continued-in","sessionId":"s"}"#,
        );
        assert!(t.compact(EntryTypes::TAG) && t.any(EntryTypes::TAG));
        assert!(!t.compact(EntryTypes::AI_TITLE) && t.any(EntryTypes::AI_TITLE));
        assert!(t.compact(EntryTypes::CONTINUED_IN));
        assert!(
            !t.any(EntryTypes::RELOCATED),
            "a longer name is another type"
        );
        assert!(!t.any(EntryTypes::CUSTOM_TITLE));
        assert_eq!(EntryTypes::of(""), EntryTypes::default());
        // two spaces is neither of the spellings the SDK searches for
        assert!(!EntryTypes::of(r#"{"type":  "tag"}"#).any(EntryTypes::TAG));
    }

    #[test]
    fn lines_with_gives_each_matching_line_once_in_order() {
        let naive = |text: &str, a: &str, b: &str| -> Vec<String> {
            text.split('\n')
                .filter(|l| l.contains(a) || l.contains(b))
                .map(str::to_owned)
                .collect()
        };
        let (a, b) = ("\"type\":\"user\"", "\"type\": \"user\"");
        let lines = [
            r#"{"type":"queue-operation"}"#,
            r#"{"type":"user","x":1}"#,
            r#"{"type": "user","x":2}"#,
            r#"{"type":"assistant"}"#,
            r#"{"type":"user"} and {"type": "user"} on one line"#,
            "",
            r#"{"type": "user","x":3}"#,
            r#"{"type":"user","x":4}"#,
        ];
        // every subset of the lines, in order
        for mask in 0u32..(1 << lines.len()) {
            let text: Vec<&str> = (0..lines.len())
                .filter(|i| mask & (1 << i) != 0)
                .map(|i| lines[i])
                .collect();
            let text = text.join("\n");
            for (x, y) in [(a, b), (b, a), (a, a)] {
                let got: Vec<String> = lines_with(&text, x, y).map(str::to_owned).collect();
                assert_eq!(got, naive(&text, x, y), "{text:?}");
            }
        }
    }
}
