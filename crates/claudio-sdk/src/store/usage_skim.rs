//! The usage scan's byte-level reading of a transcript line (`usage.rs`):
//! its top-level `type`, `timestamp`, `requestId` and `cwd`, and its
//! `message`'s `id`, `model` and `usage`, read where they stand in the
//! line's bytes, without serde building anything.
//!
//! It answers only for a line it is sure of, and then its answer is what
//! serde_json's typed parse of the same line gives (the differential
//! tests below hold it to that). Anything else it declines, and the caller
//! parses the line with serde_json: a line that is not JSON as serde_json
//! reads it (truncated, a control byte in a string, a bad escape, a
//! trailing comma, bytes after the object) or not an object; a key of a
//! typed object, or a string that is read, holding an escape (its bytes
//! are not its text) or bytes that are not UTF-8; a count that is not a
//! plain integer of u64; a field given twice; a field of another type than
//! the one read; nesting deeper than [`MAX_DEPTH`]. Values that are not
//! read are passed over as serde_json passes them over (checked, not
//! built).

use super::usage_types::Tokens;
use std::borrow::Cow;

/// Nesting (objects and arrays) deeper than this is declined.
const MAX_DEPTH: u32 = 64;

/// Nesting inside a field read as any JSON (`usage.server_tool_use`)
/// deeper than this is declined (serde_json builds those, and stops at 128
/// levels counted from the line's start).
const MAX_VALUE_DEPTH: u32 = 32;

/// A string or count field, as read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Slot<'a> {
    /// Not in its object.
    Absent,
    /// `null`.
    Null,
    /// A string without escapes, valid UTF-8.
    Str(&'a str),
    /// A plain integer (digits only) that fits in u64.
    Num(u64),
    /// Something else, or twice: not sure what serde makes of it.
    Unsure,
}

/// An object field (`message`, `usage`, `cache_creation`), as read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Obj<T> {
    Absent,
    Null,
    Is(T),
    /// Another type (an array serde would read as a struct too), or twice.
    Unsure,
}

/// The usage fields of `message.usage`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct UsageSkim {
    input: Slot<'static>,
    output: Slot<'static>,
    cache_write: Slot<'static>,
    cache_read: Slot<'static>,
    /// `cache_creation.ephemeral_1h_input_tokens`.
    cache_1h: Obj<Slot<'static>>,
    /// `speed` is `"fast"`; `None`: not sure.
    fast: Option<bool>,
    /// `inference_geo` is `"us"`; `None`: not sure.
    us_only: Option<bool>,
    /// `server_tool_use.web_search_requests` as a u64 (0 when it is none);
    /// `None`: not sure.
    web_searches: Option<u64>,
}

/// The fields of `message`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct MessageSkim<'a> {
    id: Slot<'a>,
    model: Slot<'a>,
    usage: Obj<UsageSkim>,
}

/// What a line holds, read at the byte level: a JSON object, checked whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Skim<'a> {
    kind: Slot<'a>,
    timestamp: Slot<'a>,
    request_id: Slot<'a>,
    cwd: Slot<'a>,
    message: Obj<MessageSkim<'a>>,
}

/// A usage line's fields, as `usage.rs` takes them (serde's reading or
/// this one's): only when the line is an `assistant` entry with a
/// `message.usage`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct UsageFields<'a> {
    pub(super) id: Option<Cow<'a, str>>,
    pub(super) model: Option<Cow<'a, str>>,
    pub(super) request_id: Option<Cow<'a, str>>,
    pub(super) timestamp: Option<Cow<'a, str>>,
    pub(super) tokens: Tokens,
    pub(super) fast: bool,
    pub(super) us_only: bool,
    pub(super) web_searches: u64,
}

/// A string field's value: `Some(None)` absent or null, `None` not sure.
fn text(s: Slot<'_>) -> Option<Option<&str>> {
    match s {
        Slot::Absent | Slot::Null => Some(None),
        Slot::Str(s) => Some(Some(s)),
        Slot::Num(_) | Slot::Unsure => None,
    }
}

/// A count field's value, as [`text`].
fn count(s: Slot<'_>) -> Option<Option<u64>> {
    match s {
        Slot::Absent | Slot::Null => Some(None),
        Slot::Num(n) => Some(Some(n)),
        Slot::Str(_) | Slot::Unsure => None,
    }
}

impl<'a> Skim<'a> {
    /// The line's `timestamp`, as `{"timestamp": Option<Cow<str>>}` reads
    /// it: `Some(None)` when it has none; `None` when not sure.
    pub(super) fn timestamp(&self) -> Option<Option<&'a str>> {
        text(self.timestamp)
    }

    /// The line's `cwd`, as [`timestamp`](Self::timestamp).
    pub(super) fn cwd(&self) -> Option<Option<&'a str>> {
        text(self.cwd)
    }

    /// The line's usage: `Some(None)` when it records none (not an
    /// `assistant` entry, no `message.usage`, or a line serde would not
    /// take); `None` when not sure.
    pub(super) fn usage(&self) -> Option<Option<UsageFields<'a>>> {
        let kind = text(self.kind);
        // another kind: no usage, whatever else the line holds (serde
        // takes it with its kind, or fails on another field)
        if let Some(k) = kind {
            if k != Some("assistant") {
                return Some(None);
            }
        }
        // no message, or no usage in it: none either way
        let message = match self.message {
            Obj::Absent | Obj::Null => return Some(None),
            Obj::Is(m) => m,
            Obj::Unsure => return None,
        };
        let u = match message.usage {
            Obj::Absent | Obj::Null => return Some(None),
            Obj::Is(u) => u,
            Obj::Unsure => return None,
        };
        kind?;
        let (timestamp, request_id) = (text(self.timestamp)?, text(self.request_id)?);
        let (id, model) = (text(message.id)?, text(message.model)?);
        let cache_1h = match u.cache_1h {
            Obj::Absent | Obj::Null => None,
            Obj::Is(s) => count(s)?,
            Obj::Unsure => return None,
        };
        let tokens = Tokens {
            input: count(u.input)?.unwrap_or(0),
            output: count(u.output)?.unwrap_or(0),
            cache_write: count(u.cache_write)?.unwrap_or(0),
            cache_read: count(u.cache_read)?.unwrap_or(0),
            cache_write_1h: cache_1h.unwrap_or(0),
        };
        Some(Some(UsageFields {
            id: id.map(Cow::Borrowed),
            model: model.map(Cow::Borrowed),
            request_id: request_id.map(Cow::Borrowed),
            timestamp: timestamp.map(Cow::Borrowed),
            tokens,
            fast: u.fast?,
            us_only: u.us_only?,
            web_searches: u.web_searches?,
        }))
    }
}

/// Read `line` (a transcript line, its newline removed); `None` when it
/// is not a line this reading is sure of.
pub(super) fn skim(line: &[u8]) -> Option<Skim<'_>> {
    let mut p = P::new(line);
    if p.ws()? != b'{' {
        return None; // not an object: left to serde, which reads none
    }
    p.i += 1;
    let mut s = Skim {
        kind: Slot::Absent,
        timestamp: Slot::Absent,
        request_id: Slot::Absent,
        cwd: Slot::Absent,
        message: Obj::Absent,
    };
    p.members(|p, key| {
        match key {
            b"type" => set(&mut s.kind, p.text()?),
            b"timestamp" => set(&mut s.timestamp, p.text()?),
            b"requestId" => set(&mut s.request_id, p.text()?),
            b"cwd" => set(&mut s.cwd, p.text()?),
            b"message" => {
                let m = p.object(|p| p.message())?;
                set_obj(&mut s.message, m);
            }
            _ => p.skip(false)?,
        }
        Some(())
    })?;
    // nothing but blanks after the object
    match p.ws() {
        None => Some(s),
        Some(_) => None,
    }
}

/// Whether `line` is sure to hold a tool's result, and so is not a
/// person's prompt (`scan::prompt_text`'s rule: a content block of type
/// `tool_result`): a JSON object whose `message` (the last one, when given
/// twice, as serde_json's map keeps it) is an object whose `content` (the
/// last one) is an array holding an object whose `type` (its last one) is
/// the string `tool_result`, written without an escape. `false` when it is
/// not so or not sure (a key with an escape, the type written with one):
/// the caller then parses the line. A line serde_json would not take is
/// no prompt either, so its bytes are walked, not checked whole.
pub(super) fn is_tool_result(line: &[u8]) -> bool {
    let mut p = P::new(line);
    if p.ws() != Some(b'{') {
        return false;
    }
    p.i += 1;
    let mut found = false;
    let read = p.members(|p, key| {
        if key == b"message" {
            found = p.message_tool_result()?;
        } else {
            p.skip(false)?;
        }
        Some(())
    });
    read.is_some() && p.ws().is_none() && found
}

/// Record a field read, or [`Slot::Unsure`] when it came before.
fn set<'a>(slot: &mut Slot<'a>, v: Slot<'a>) {
    *slot = if *slot == Slot::Absent {
        v
    } else {
        Slot::Unsure
    };
}

/// [`set`] for an object field.
fn set_obj<T>(slot: &mut Obj<T>, v: Obj<T>) {
    *slot = if matches!(slot, Obj::Absent) {
        v
    } else {
        Obj::Unsure
    };
}

/// A reader over a line's bytes.
struct P<'a> {
    b: &'a [u8],
    i: usize,
    /// The line holds no control byte (the rule for most lines, their
    /// newline removed): a string's plain run then ends only at a quote
    /// or a backslash, found by [`plain_run_clean`].
    clean: bool,
}

impl<'a> P<'a> {
    /// A reader at the start of `line`, which is looked at whole once for
    /// a control byte (by its least byte: a loop the compiler makes
    /// vector code of).
    fn new(line: &'a [u8]) -> P<'a> {
        P {
            b: line,
            i: 0,
            clean: line.iter().fold(u8::MAX, |m, &c| m.min(c)) >= 0x20,
        }
    }

    /// Pass over JSON's blanks; the next byte, `None` at the end.
    fn ws(&mut self) -> Option<u8> {
        loop {
            let c = *self.b.get(self.i)?;
            if matches!(c, b' ' | b'\t' | b'\r' | b'\n') {
                self.i += 1;
            } else {
                return Some(c);
            }
        }
    }

    /// The literal `word` (`true`, `false`, `null`) where the reader is.
    fn lit(&mut self, word: &[u8]) -> Option<()> {
        if self.b.get(self.i..self.i + word.len())? == word {
            self.i += word.len();
            Some(())
        } else {
            None
        }
    }

    /// A string's bytes, the reader just past its opening quote: up to
    /// its closing quote (passed over), and whether it holds an escape.
    /// `None` for a string serde_json would not take (a control byte, a
    /// bad escape, no end).
    fn string(&mut self) -> Option<(&'a [u8], bool)> {
        let start = self.i;
        let mut escaped = false;
        loop {
            let rest = self.b.get(self.i..)?;
            self.i += if self.clean {
                plain_run_clean(rest)
            } else {
                plain_run(rest)
            };
            match *self.b.get(self.i)? {
                b'"' => {
                    let s = &self.b[start..self.i];
                    self.i += 1;
                    return Some((s, escaped));
                }
                b'\\' => {
                    escaped = true;
                    match *self.b.get(self.i + 1)? {
                        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => self.i += 2,
                        b'u' => {
                            let hex = self.b.get(self.i + 2..self.i + 6)?;
                            if !hex.iter().all(u8::is_ascii_hexdigit) {
                                return None;
                            }
                            self.i += 6;
                        }
                        _ => return None,
                    }
                }
                _ => return None, // a control byte
            }
        }
    }

    /// A number in JSON's grammar (serde_json's): `Some(Some(n))` for a
    /// plain integer that fits in u64, `Some(None)` for another number.
    fn number(&mut self) -> Option<Option<u64>> {
        let b = self.b;
        let mut plain = true;
        if b.get(self.i) == Some(&b'-') {
            plain = false;
            self.i += 1;
        }
        let mut n: Option<u64> = Some(0);
        match b.get(self.i) {
            Some(b'0') => {
                self.i += 1;
                if b.get(self.i).is_some_and(u8::is_ascii_digit) {
                    return None; // one leading zero only
                }
            }
            Some(b'1'..=b'9') => {
                while let Some(&d) = b.get(self.i).filter(|d| d.is_ascii_digit()) {
                    n = n
                        .and_then(|n| n.checked_mul(10))
                        .and_then(|n| n.checked_add(u64::from(d - b'0')));
                    self.i += 1;
                }
            }
            _ => return None,
        }
        if b.get(self.i) == Some(&b'.') {
            plain = false;
            self.i += 1;
            if !b.get(self.i).is_some_and(u8::is_ascii_digit) {
                return None;
            }
            while b.get(self.i).is_some_and(u8::is_ascii_digit) {
                self.i += 1;
            }
        }
        if matches!(b.get(self.i), Some(b'e' | b'E')) {
            plain = false;
            self.i += 1;
            if matches!(b.get(self.i), Some(b'+' | b'-')) {
                self.i += 1;
            }
            if !b.get(self.i).is_some_and(u8::is_ascii_digit) {
                return None;
            }
            while b.get(self.i).is_some_and(u8::is_ascii_digit) {
                self.i += 1;
            }
        }
        Some(if plain { n } else { None })
    }

    /// Pass over one value, as serde_json checks a value it ignores.
    /// `strict`: a value serde_json builds (any JSON in a field): a string
    /// with an escape or a byte past ASCII, or a number other than a
    /// plain integer of u64, is declined, and nesting past
    /// [`MAX_VALUE_DEPTH`].
    fn skip(&mut self, strict: bool) -> Option<()> {
        let max = if strict { MAX_VALUE_DEPTH } else { MAX_DEPTH };
        // one bit a level: 1 an object, 0 an array
        let mut stack: u64 = 0;
        let mut depth: u32 = 0;
        loop {
            // a value
            match self.ws()? {
                b'"' => {
                    self.i += 1;
                    self.skipped_string(strict)?;
                }
                b'-' | b'0'..=b'9' => {
                    let n = self.number()?;
                    if strict && n.is_none() {
                        return None;
                    }
                }
                b't' => self.lit(b"true")?,
                b'f' => self.lit(b"false")?,
                b'n' => self.lit(b"null")?,
                open @ (b'[' | b'{') => {
                    if depth >= max {
                        return None;
                    }
                    self.i += 1;
                    let obj = open == b'{';
                    let close = if obj { b'}' } else { b']' };
                    if self.ws()? == close {
                        self.i += 1; // empty: a value, done
                    } else {
                        stack = stack << 1 | u64::from(obj);
                        depth += 1;
                        if obj {
                            self.key(strict)?;
                        }
                        continue;
                    }
                }
                _ => return None,
            }
            // after a value: the ends of the levels it closes, then a comma
            loop {
                if depth == 0 {
                    return Some(());
                }
                let obj = stack & 1 == 1;
                match self.ws()? {
                    b',' => {
                        self.i += 1;
                        if obj {
                            self.key(strict)?;
                        }
                        break;
                    }
                    b'}' if obj => {}
                    b']' if !obj => {}
                    _ => return None,
                }
                self.i += 1;
                stack >>= 1;
                depth -= 1;
            }
        }
    }

    /// A string passed over (the reader past its opening quote).
    fn skipped_string(&mut self, strict: bool) -> Option<()> {
        let (s, escaped) = self.string()?;
        if strict && (escaped || !s.is_ascii()) {
            return None;
        }
        Some(())
    }

    /// A key of an object passed over, and its colon.
    fn key(&mut self, strict: bool) -> Option<()> {
        if self.ws()? != b'"' {
            return None;
        }
        self.i += 1;
        self.skipped_string(strict)?;
        self.colon()
    }

    fn colon(&mut self) -> Option<()> {
        if self.ws()? != b':' {
            return None;
        }
        self.i += 1;
        Some(())
    }

    /// The members of an object read as a struct, the reader just past
    /// its `{`: `member` reads each one's value, given its key (a key with
    /// an escape, or not UTF-8, is declined).
    fn members(&mut self, mut member: impl FnMut(&mut Self, &'a [u8]) -> Option<()>) -> Option<()> {
        if self.ws()? == b'}' {
            self.i += 1;
            return Some(());
        }
        loop {
            if self.ws()? != b'"' {
                return None;
            }
            self.i += 1;
            let (key, escaped) = self.string()?;
            if escaped || std::str::from_utf8(key).is_err() {
                return None;
            }
            self.colon()?;
            member(self, key)?;
            match self.ws()? {
                b',' => self.i += 1,
                b'}' => {
                    self.i += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// A string field (`Option<Cow<str>>`).
    fn text(&mut self) -> Option<Slot<'a>> {
        match self.ws()? {
            b'"' => {
                self.i += 1;
                let (s, escaped) = self.string()?;
                if escaped {
                    return Some(Slot::Unsure);
                }
                // not UTF-8: serde fails the line
                std::str::from_utf8(s).ok().map(Slot::Str)
            }
            b'n' => {
                self.lit(b"null")?;
                Some(Slot::Null)
            }
            _ => {
                self.skip(false)?;
                Some(Slot::Unsure)
            }
        }
    }

    /// A count field (`Option<u64>`).
    fn count(&mut self) -> Option<Slot<'static>> {
        match self.ws()? {
            b'-' | b'0'..=b'9' => Some(self.number()?.map_or(Slot::Unsure, Slot::Num)),
            b'n' => {
                self.lit(b"null")?;
                Some(Slot::Null)
            }
            _ => {
                self.skip(false)?;
                Some(Slot::Unsure)
            }
        }
    }

    /// An object field (`Option<Struct>`): `read` reads its members, the
    /// reader past its `{`.
    fn object<T>(&mut self, read: impl FnOnce(&mut Self) -> Option<T>) -> Option<Obj<T>> {
        match self.ws()? {
            b'{' => {
                self.i += 1;
                Some(Obj::Is(read(self)?))
            }
            b'n' => {
                self.lit(b"null")?;
                Some(Obj::Null)
            }
            _ => {
                self.skip(false)?;
                Some(Obj::Unsure)
            }
        }
    }

    /// The members of `message`.
    fn message(&mut self) -> Option<MessageSkim<'a>> {
        let mut m = MessageSkim {
            id: Slot::Absent,
            model: Slot::Absent,
            usage: Obj::Absent,
        };
        self.members(|p, key| {
            match key {
                b"id" => set(&mut m.id, p.text()?),
                b"model" => set(&mut m.model, p.text()?),
                b"usage" => {
                    let u = p.object(|p| p.usage())?;
                    set_obj(&mut m.usage, u);
                }
                _ => p.skip(false)?,
            }
            Some(())
        })?;
        Some(m)
    }

    /// A `message` value: whether it is an object whose last `content`
    /// holds a `tool_result` block (see [`is_tool_result`]).
    fn message_tool_result(&mut self) -> Option<bool> {
        if self.ws()? != b'{' {
            self.skip(false)?;
            return Some(false);
        }
        self.i += 1;
        let mut found = false;
        self.members(|p, key| {
            if key == b"content" {
                found = p.content_tool_result()?;
            } else {
                p.skip(false)?;
            }
            Some(())
        })?;
        Some(found)
    }

    /// A `content` value: whether it is an array holding an object whose
    /// last `type` is the plain string `tool_result`.
    fn content_tool_result(&mut self) -> Option<bool> {
        if self.ws()? != b'[' {
            self.skip(false)?;
            return Some(false);
        }
        self.i += 1;
        if self.ws()? == b']' {
            self.i += 1;
            return Some(false);
        }
        let mut any = false;
        loop {
            if self.ws()? == b'{' {
                self.i += 1;
                let mut last = false;
                self.members(|p, key| {
                    if key == b"type" {
                        last = p.text()? == Slot::Str("tool_result");
                    } else {
                        p.skip(false)?;
                    }
                    Some(())
                })?;
                any |= last;
            } else {
                self.skip(false)?;
            }
            match self.ws()? {
                b',' => self.i += 1,
                b']' => {
                    self.i += 1;
                    return Some(any);
                }
                _ => return None,
            }
        }
    }

    /// The members of `message.usage`.
    fn usage(&mut self) -> Option<UsageSkim> {
        let mut u = UsageSkim {
            input: Slot::Absent,
            output: Slot::Absent,
            cache_write: Slot::Absent,
            cache_read: Slot::Absent,
            cache_1h: Obj::Absent,
            fast: Some(false),
            us_only: Some(false),
            web_searches: Some(0),
        };
        // the fields read as any JSON: each once, or not sure
        let mut seen = [false; 3];
        let mut once = |i: usize| {
            let first = !seen[i];
            seen[i] = true;
            first
        };
        self.members(|p, key| {
            match key {
                b"input_tokens" => set(&mut u.input, p.count()?),
                b"output_tokens" => set(&mut u.output, p.count()?),
                b"cache_creation_input_tokens" => set(&mut u.cache_write, p.count()?),
                b"cache_read_input_tokens" => set(&mut u.cache_read, p.count()?),
                b"cache_creation" => {
                    let c = p.object(|p| p.cache_creation())?;
                    set_obj(&mut u.cache_1h, c);
                }
                b"speed" => {
                    let v = p.is_text(b"fast")?;
                    u.fast = if once(0) { v } else { None };
                }
                b"inference_geo" => {
                    let v = p.is_text(b"us")?;
                    u.us_only = if once(1) { v } else { None };
                }
                b"server_tool_use" => {
                    let v = p.web_searches()?;
                    u.web_searches = if once(2) { v } else { None };
                }
                _ => p.skip(false)?,
            }
            Some(())
        })?;
        Some(u)
    }

    /// The members of `usage.cache_creation`: its 1-hour writes.
    fn cache_creation(&mut self) -> Option<Slot<'static>> {
        let mut h = Slot::Absent;
        self.members(|p, key| {
            match key {
                b"ephemeral_1h_input_tokens" => set(&mut h, p.count()?),
                _ => p.skip(false)?,
            }
            Some(())
        })?;
        Some(h)
    }

    /// A field read as any JSON: whether it is the string `want`
    /// (`Some(None)`: not sure).
    fn is_text(&mut self, want: &[u8]) -> Option<Option<bool>> {
        if self.ws()? == b'"' {
            self.i += 1;
            let (s, escaped) = self.string()?;
            if escaped {
                return Some(None);
            }
            // not UTF-8: serde fails the line
            std::str::from_utf8(s).ok()?;
            return Some(Some(s == want));
        }
        // `null` is none; anything else is built whole, and is not `want`
        self.skip(true)?;
        Some(Some(false))
    }

    /// `server_tool_use`, read as any JSON: its `web_search_requests` as a
    /// u64, 0 when it is none (the last one, when given twice: serde's map
    /// keeps it).
    fn web_searches(&mut self) -> Option<Option<u64>> {
        if self.ws()? != b'{' {
            // null, or not an object: none
            self.skip(true)?;
            return Some(Some(0));
        }
        self.i += 1;
        let mut found = None;
        self.members(|p, key| {
            if !key.is_ascii() {
                return None;
            }
            if key == b"web_search_requests" {
                found = match p.ws()? {
                    // another number than a plain u64 (negative, a
                    // fraction, past u64) is built as another kind, or
                    // fails: declined
                    b'-' | b'0'..=b'9' => Some(p.number()??),
                    _ => {
                        p.skip(true)?;
                        None
                    }
                };
            } else {
                p.skip(true)?;
            }
            Some(())
        })?;
        Some(Some(found.unwrap_or(0)))
    }
}

/// How many bytes at the start of `s` are in a string's plain run: not a
/// quote, a backslash or a control byte. Eight at a time (serde_json's
/// own way) for a short run; a long one by `memchr` and a vector pass.
fn plain_run(s: &[u8]) -> usize {
    const ONES: u64 = u64::from_ne_bytes([1; 8]);
    const HIGH: u64 = u64::from_ne_bytes([0x80; 8]);
    // a short run (a key, most values): 8 bytes at a time, up to SHORT
    const SHORT: usize = 32;
    let mut n = 0;
    for w in s[..s.len().min(SHORT)].chunks_exact(8) {
        let Ok(w) = <[u8; 8]>::try_from(w) else {
            break;
        };
        let x = u64::from_le_bytes(w);
        let q = x ^ (ONES * u64::from(b'"'));
        let bs = x ^ (ONES * u64::from(b'\\'));
        let hit = (q.wrapping_sub(ONES) & !q)
            | (bs.wrapping_sub(ONES) & !bs)
            | (x.wrapping_sub(ONES * 0x20) & !x);
        let hit = hit & HIGH;
        if hit != 0 {
            // the lowest byte flagged is exact (a borrow only flags above it)
            return n + (hit.trailing_zeros() / 8) as usize;
        }
        n += 8;
    }
    if n < SHORT {
        // fewer than 8 bytes left
        return n + s[n..]
            .iter()
            .take_while(|&&c| c != b'"' && c != b'\\' && c >= 0x20)
            .count();
    }
    // a long run (a prompt, a tool's output): the next quote or backslash
    // found by memchr, then the bytes before it checked for a control
    // byte by their least (a loop the compiler makes vector code of)
    let rest = &s[n..];
    let end = memchr::memchr2(b'"', b'\\', rest).unwrap_or(rest.len());
    let run = &rest[..end];
    if run.iter().fold(u8::MAX, |m, &b| m.min(b)) >= 0x20 {
        return n + end;
    }
    n + run.iter().position(|&b| b < 0x20).unwrap_or(end)
}

/// [`plain_run`] of bytes that hold no control byte (a suffix of a line
/// [`P`] found clean): the bytes before the first quote or backslash.
/// Two words at a time for a run of up to 64 bytes (most of a long
/// string's runs end at an escape within that), then by `memchr`.
fn plain_run_clean(s: &[u8]) -> usize {
    const ONES: u64 = u64::from_ne_bytes([1; 8]);
    const HIGH: u64 = u64::from_ne_bytes([0x80; 8]);
    // the high bit of each byte that is a quote or a backslash (a borrow
    // only flags bytes above the lowest one flagged, which is exact)
    let flags = |w: &[u8]| {
        let x = u64::from_le_bytes(<[u8; 8]>::try_from(w).unwrap_or([0; 8]));
        let q = x ^ (ONES * u64::from(b'"'));
        let bs = x ^ (ONES * u64::from(b'\\'));
        ((q.wrapping_sub(ONES) & !q) | (bs.wrapping_sub(ONES) & !bs)) & HIGH
    };
    let mut n = 0;
    for pair in s.chunks_exact(16).take(4) {
        let (a, b) = (flags(&pair[..8]), flags(&pair[8..]));
        if a != 0 {
            return n + (a.trailing_zeros() / 8) as usize;
        }
        if b != 0 {
            return n + 8 + (b.trailing_zeros() / 8) as usize;
        }
        n += 16;
    }
    let rest = &s[n..];
    n + if n == 64 {
        memchr::memchr2(b'"', b'\\', rest).unwrap_or(rest.len())
    } else {
        // fewer than 16 bytes left
        rest.iter()
            .take_while(|&&c| c != b'"' && c != b'\\')
            .count()
    }
}

#[cfg(test)]
mod tests;
