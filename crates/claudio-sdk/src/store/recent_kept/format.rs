//! The kept file's bytes: a header (magic, format, the build that wrote
//! it), the fields in order, and a checksum of all that. A status line
//! reads it at every call: decoding it is a walk over the bytes, with no
//! text to parse (as JSON it was a sixth of a warm line's instructions).
//!
//! A file that is cut, changed, of another format or written by another
//! build is `None`, as if nothing were kept: the caller then looks at
//! every transcript again and writes a new one. So is one with a byte of
//! any field out of its range, or bytes left over.
//!
//! Integers are little-endian, lengths and counts `u64`; a text is its
//! length and its UTF-8 bytes, a path its length and its bytes; an
//! optional value a byte (0: none, 1: some) and the value. A count larger
//! than the bytes left can hold is read as a file not whole: decoding
//! makes no more than a few times the file's size.

use super::{Ids, Kept, KeptFile, KeptFolder, Stamp};
use crate::store::usage_index::record::checksum;
use std::borrow::Cow;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

const MAGIC: &[u8; 16] = b"claudio recent\n\0";
/// The format: 2 since it is this one (1 was JSON, never read now).
const FORMAT: u32 = 2;
/// The build that writes it: a file of another is not read (what a field
/// means may have changed with it).
const BUILD: &str = env!("CARGO_PKG_VERSION");

/// The fewest bytes of a text (its length), of a link passed over (a
/// path and a text), of a transcript (its id, two tags and its cost) and
/// of a folder (its path, two tags and two counts).
const TEXT_BYTES: usize = 8;
const PASSED_BYTES: usize = 8 + 8;
const FILE_BYTES: usize = 8 + 1 + 1 + 8;
const FOLDER_BYTES: usize = 8 + 1 + 1 + 8 + 8;

/// The kept answer's bytes.
pub(super) fn encode(k: &Kept<'_>) -> Vec<u8> {
    let mut w = Writer(Vec::with_capacity(4096));
    w.0.extend_from_slice(MAGIC);
    w.0.extend_from_slice(&FORMAT.to_le_bytes());
    w.text(BUILD);
    w.path(&k.projects);
    w.i64(k.full_at);
    w.stamp(k.root);
    w.stamp(k.registry);
    w.optional(k.named.as_deref(), Writer::texts);
    w.len(k.folders.len());
    for f in &k.folders {
        w.path(&f.path);
        w.stamp(f.stamp);
        w.optional(f.unreadable.as_deref(), Writer::text);
        w.len(f.files.len());
        for file in &f.files {
            w.text(&file.id);
            w.u8(u8::from(file.side));
            w.optional(file.at, Writer::i64);
            w.0.extend_from_slice(&file.cost.to_le_bytes());
        }
        w.len(f.looked_for.len());
        for id in f.looked_for.iter() {
            w.text(id);
        }
    }
    w.len(k.passed.len());
    for (path, why) in &k.passed {
        w.path(path);
        w.text(why);
    }
    let sum = checksum(&w.0);
    w.0.extend_from_slice(&sum.to_le_bytes());
    w.0
}

/// The kept answer of `bytes`, when they are a whole file of this format
/// and build: its names and paths are `bytes` (borrowed, not copied), but
/// for the rare texts of what could not be read.
pub(super) fn decode(bytes: &[u8]) -> Option<Kept<'_>> {
    let (body, sum) = bytes.split_last_chunk::<8>()?;
    if u64::from_le_bytes(*sum) != checksum(body) {
        return None;
    }
    let mut r = Reader(body);
    if r.take(MAGIC.len())? != MAGIC || r.u32()? != FORMAT || r.text()? != BUILD {
        return None;
    }
    let projects = r.path()?;
    let full_at = r.i64()?;
    let root = r.stamp()?;
    let registry = r.stamp()?;
    let named = r.optional(Reader::texts)?;
    let n = r.count(FOLDER_BYTES)?;
    let mut folders = Vec::with_capacity(n);
    for _ in 0..n {
        let path = r.path()?;
        let stamp = r.stamp()?;
        let unreadable = r.optional(|r| Some(r.text()?.to_owned()))?;
        let n = r.count(FILE_BYTES)?;
        let mut files = Vec::with_capacity(n);
        for _ in 0..n {
            let id = Cow::Borrowed(r.text()?);
            let side = match r.u8()? {
                0 => false,
                1 => true,
                _ => return None,
            };
            let at = r.optional(Reader::i64)?;
            let cost = r.u64()?;
            files.push(KeptFile { id, side, at, cost });
        }
        let looked_for = r.ids()?;
        folders.push(KeptFolder {
            path,
            stamp,
            unreadable,
            files,
            looked_for,
        });
    }
    let n = r.count(PASSED_BYTES)?;
    let mut passed = Vec::with_capacity(n);
    for _ in 0..n {
        passed.push((r.path()?.into_owned(), r.text()?.to_owned()));
    }
    // every byte is of a field
    if !r.0.is_empty() {
        return None;
    }
    Some(Kept {
        projects,
        full_at,
        root,
        registry,
        named,
        folders,
        passed,
    })
}

struct Writer(Vec<u8>);

impl Writer {
    fn u8(&mut self, v: u8) {
        self.0.push(v);
    }

    fn i64(&mut self, v: i64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }

    fn len(&mut self, n: usize) {
        self.0.extend_from_slice(&(n as u64).to_le_bytes());
    }

    fn bytes(&mut self, b: &[u8]) {
        self.len(b.len());
        self.0.extend_from_slice(b);
    }

    fn text(&mut self, s: &str) {
        self.bytes(s.as_bytes());
    }

    fn texts(&mut self, all: &[Cow<'_, str>]) {
        self.len(all.len());
        for s in all {
            self.text(s);
        }
    }

    fn path(&mut self, p: &Path) {
        self.bytes(p.as_os_str().as_bytes());
    }

    fn stamp(&mut self, s: Option<Stamp>) {
        self.optional(s, |w, (secs, ns)| {
            w.i64(secs);
            w.i64(ns);
        });
    }

    /// A value that may be absent: a tag byte, 0 for none, 1 followed by
    /// the value as `write` writes it.
    fn optional<T>(&mut self, v: Option<T>, write: impl FnOnce(&mut Self, T)) {
        match v {
            None => self.u8(0),
            Some(v) => {
                self.u8(1);
                write(self, v);
            }
        }
    }
}

/// The bytes not read yet.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if n > self.0.len() {
            return None;
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Some(head)
    }

    fn array<const N: usize>(&mut self) -> Option<[u8; N]> {
        let (head, rest) = self.0.split_first_chunk::<N>()?;
        self.0 = rest;
        Some(*head)
    }

    fn u8(&mut self) -> Option<u8> {
        Some(self.array::<1>()?[0])
    }

    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.array()?))
    }

    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.array()?))
    }

    fn i64(&mut self) -> Option<i64> {
        Some(i64::from_le_bytes(self.array()?))
    }

    fn len(&mut self) -> Option<usize> {
        usize::try_from(self.u64()?).ok()
    }

    /// A count of things each at least `least` bytes long: one that the
    /// bytes left cannot hold is a file that is not whole (so what is
    /// made for them is at most a few times the file's size, whatever
    /// count it says).
    fn count(&mut self, least: usize) -> Option<usize> {
        let n = self.len()?;
        (n <= self.0.len() / least).then_some(n)
    }

    fn bytes(&mut self) -> Option<&'a [u8]> {
        let n = self.len()?;
        self.take(n)
    }

    fn text(&mut self) -> Option<&'a str> {
        std::str::from_utf8(self.bytes()?).ok()
    }

    fn texts(&mut self) -> Option<Vec<Cow<'a, str>>> {
        let n = self.count(TEXT_BYTES)?;
        let mut all = Vec::with_capacity(n);
        for _ in 0..n {
            all.push(Cow::Borrowed(self.text()?));
        }
        Some(all)
    }

    /// Texts as [`Reader::texts`] reads them, left as their bytes (each
    /// checked): read again when asked ([`Ids`]).
    fn ids(&mut self) -> Option<Ids<'a>> {
        let n = self.count(TEXT_BYTES)?;
        let all = self.0;
        for _ in 0..n {
            self.text()?;
        }
        let bytes = &all[..all.len() - self.0.len()];
        Some(Ids::Kept { bytes, n })
    }

    fn path(&mut self) -> Option<Cow<'a, Path>> {
        Some(Cow::Borrowed(Path::new(OsStr::from_bytes(self.bytes()?))))
    }

    fn stamp(&mut self) -> Option<Option<Stamp>> {
        self.optional(|r| Some((r.i64()?, r.i64()?)))
    }

    /// A value written by [`Writer::optional`]: `Some(None)` for its
    /// absence, `None` for bytes that are not one (a tag other than 0 or
    /// 1, or a value `read` cannot read).
    fn optional<T>(&mut self, read: impl FnOnce(&mut Self) -> Option<T>) -> Option<Option<T>> {
        match self.u8()? {
            0 => Some(None),
            1 => Some(Some(read(self)?)),
            _ => None,
        }
    }
}
