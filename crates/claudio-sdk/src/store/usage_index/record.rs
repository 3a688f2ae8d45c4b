//! The usage index's records and file format: what identifies a version
//! of a transcript, a record's bytes (its head, then the usage), and the
//! index file whole (magic, version, records, count and checksum). Pure:
//! bytes in, bytes out; reading and writing the file is the index's.

use crate::store::usage_types::{CliCost, FileUsage, MessageUsage, ModelCost, Tokens};
use std::collections::HashMap;
use std::fs::Metadata;
use std::os::unix::fs::MetadataExt;

pub(super) const MAGIC: &[u8; 16] = b"claudio usage\n\0\0";
/// The format, and what its records were counted by: 3 since a line with
/// `\u`-escaped keys counts (an index of version 2 holds counts made
/// without them, and is rebuilt); 4 since records hold 1-hour cache
/// writes, a response's first line's time and the CLI's `cost-state`; 5
/// since a `cost-state` holds how many responses came before it; 6 since
/// the `cost-state` comes first in a record (read alone, to learn prices
/// from every record); 8 since a message records fast mode, US-only
/// inference and web searches; 9 since a prompt whose bytes hold
/// `"tool_result"` (the word typed, not a content block's type) counts;
/// 10 since a line led by NUL or control bytes counts; 11 since a
/// `cost-state` holds the first response it covers.
pub(super) const VERSION: u32 = 11;
/// `boundary` of a record that cannot be read on from (and `mid_at` of
/// one without a middle sample).
pub(super) const NOT_RESUMABLE: u64 = u64::MAX;

/// Path bytes to record bytes.
pub(super) type Map = HashMap<Box<[u8]>, Box<[u8]>>;

/// What identifies one version of a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Key {
    pub(super) dev: u64,
    pub(super) ino: u64,
    pub(super) size: u64,
    pub(super) mtime: i64,
    pub(super) mtime_ns: i64,
    pub(super) ctime: i64,
    pub(super) ctime_ns: i64,
}

impl Key {
    pub(super) fn of(m: &Metadata) -> Key {
        Key {
            dev: m.dev(),
            ino: m.ino(),
            size: m.size(),
            mtime: m.mtime(),
            mtime_ns: m.mtime_nsec(),
            ctime: m.ctime(),
            ctime_ns: m.ctime_nsec(),
        }
    }

    pub(super) fn ctime_total_ns(&self) -> i128 {
        self.ctime as i128 * 1_000_000_000 + self.ctime_ns as i128
    }
}

/// A record's fixed part: how to tell whether it still holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Head {
    pub(super) key: Key,
    /// When the file was read (ns since the epoch).
    pub(super) read_at: i64,
    /// The end of the last whole line read ([`NOT_RESUMABLE`]: not
    /// to be read on from).
    pub(super) boundary: u64,
    /// The checksums of the first and the last `EDGE` bytes before
    /// `boundary`.
    pub(super) head_sum: u64,
    pub(super) tail_sum: u64,
    /// Where a sample of `EDGE` bytes from the middle of what was read
    /// starts ([`NOT_RESUMABLE`]: none, the ends cover it all), and its
    /// checksum.
    pub(super) mid_at: u64,
    pub(super) mid_sum: u64,
    /// Whether prompts were counted.
    pub(super) prompts: bool,
}

/// A 64-bit checksum (not a defence against anyone: against a torn write
/// or a changed file).
pub(in crate::store) fn checksum(b: &[u8]) -> u64 {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ (b.len() as u64).wrapping_mul(K);
    let mut words = b.chunks_exact(8);
    for w in &mut words {
        let mut x = [0u8; 8];
        x.copy_from_slice(w);
        h = (h ^ u64::from_le_bytes(x)).wrapping_mul(K).rotate_left(31);
    }
    for &x in words.remainder() {
        h = (h ^ x as u64).wrapping_mul(K).rotate_left(31);
    }
    h ^ (h >> 29)
}

/// The checksum of a transcript's samples (its first, middle and last
/// [`EDGE`](super::EDGE) bytes, taken at every read): as [`checksum`],
/// on four lanes of 8 bytes at a time (four multiplications in flight,
/// not one after another), the lanes then folded in order. Any one byte
/// changed changes it: each step is one-to-one in its lane and its input.
pub(super) fn edge_sum(b: &[u8]) -> u64 {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let step = |h: u64, x: u64| (h ^ x).wrapping_mul(K).rotate_left(31);
    let seed = 0xcbf2_9ce4_8422_2325 ^ (b.len() as u64).wrapping_mul(K);
    let mut lanes = [seed, seed ^ 1, seed ^ 2, seed ^ 3];
    let mut blocks = b.chunks_exact(32);
    for w in &mut blocks {
        for (lane, x) in lanes.iter_mut().zip(w.chunks_exact(8)) {
            let mut v = [0u8; 8];
            v.copy_from_slice(x);
            *lane = step(*lane, u64::from_le_bytes(v));
        }
    }
    let mut h = lanes.iter().fold(seed, |h, &l| step(h, l));
    for &x in blocks.remainder() {
        h = step(h, x as u64);
    }
    h ^ (h >> 29)
}

// ---- encoding

pub(super) struct Out(pub(super) Vec<u8>);

impl Out {
    pub(super) fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    pub(super) fn var(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.0.push(v as u8 | 0x80);
            v >>= 7;
        }
        self.0.push(v as u8);
    }
    pub(super) fn ivar(&mut self, v: i64) {
        self.var(((v << 1) ^ (v >> 63)) as u64);
    }
    pub(super) fn bytes(&mut self, b: &[u8]) {
        self.var(b.len() as u64);
        self.0.extend_from_slice(b);
    }
    pub(super) fn opt_i64(&mut self, v: Option<i64>) {
        match v {
            Some(v) => {
                self.0.push(1);
                self.ivar(v);
            }
            None => self.0.push(0),
        }
    }
}

pub(super) struct In<'a>(pub(super) &'a [u8]);

impl<'a> In<'a> {
    pub(super) fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.0.len() < n {
            return None;
        }
        let (a, b) = self.0.split_at(n);
        self.0 = b;
        Some(a)
    }
    pub(super) fn u64(&mut self) -> Option<u64> {
        let mut x = [0u8; 8];
        x.copy_from_slice(self.take(8)?);
        Some(u64::from_le_bytes(x))
    }
    pub(super) fn u32(&mut self) -> Option<u32> {
        let mut x = [0u8; 4];
        x.copy_from_slice(self.take(4)?);
        Some(u32::from_le_bytes(x))
    }
    pub(super) fn u8(&mut self) -> Option<u8> {
        Some(self.take(1)?[0])
    }
    pub(super) fn var(&mut self) -> Option<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.u8()?;
            v |= ((b & 0x7f) as u64).checked_shl(shift)?;
            if b & 0x80 == 0 {
                return Some(v);
            }
        }
        None
    }
    pub(super) fn ivar(&mut self) -> Option<i64> {
        let v = self.var()?;
        Some((v >> 1) as i64 ^ -((v & 1) as i64))
    }
    pub(super) fn bytes(&mut self) -> Option<&'a [u8]> {
        let n = usize::try_from(self.var()?).ok()?;
        self.take(n)
    }
    pub(super) fn string(&mut self) -> Option<String> {
        std::str::from_utf8(self.bytes()?).ok().map(str::to_owned)
    }
    pub(super) fn opt_i64(&mut self) -> Option<Option<i64>> {
        match self.u8()? {
            0 => Some(None),
            1 => Some(Some(self.ivar()?)),
            _ => None,
        }
    }
}

pub(super) fn encode(h: &Head, u: &FileUsage) -> Box<[u8]> {
    let mut o = Out(Vec::with_capacity(96 + u.messages.len() * 96));
    let k = &h.key;
    for v in [k.dev, k.ino, k.size] {
        o.u64(v);
    }
    for v in [k.mtime, k.mtime_ns, k.ctime, k.ctime_ns, h.read_at] {
        o.u64(v as u64);
    }
    for v in [h.boundary, h.head_sum, h.tail_sum, h.mid_at, h.mid_sum] {
        o.u64(v);
    }
    o.0.push(h.prompts as u8);
    // the CLI's own figures first: read alone, without the messages, by
    // what learns prices from every record (`decode_cli_cost`)
    match &u.cli_cost {
        None => o.0.push(0),
        Some(c) => {
            o.0.push(1 + c.has_unknown_model_cost as u8);
            o.u64(c.total_usd.to_bits());
            o.opt_i64(c.until);
            o.var(c.responses as u64);
            o.var(c.first as u64);
            o.var(c.models.len() as u64);
            for m in &c.models {
                o.bytes(m.model.as_bytes());
                let t = &m.tokens;
                for v in [
                    t.input,
                    t.output,
                    t.cache_write,
                    t.cache_read,
                    t.cache_write_1h,
                ] {
                    o.var(v);
                }
                o.var(m.web_search_requests);
                o.u64(m.cost_usd.to_bits());
            }
        }
    }
    o.var(u.prompts);
    match &u.cwd {
        Some(c) => {
            o.0.push(1);
            o.bytes(c.as_bytes());
        }
        None => o.0.push(0),
    }
    o.opt_i64(u.first);
    o.opt_i64(u.last);
    // the models once each, then each message's model by its number
    let mut models: Vec<&str> = Vec::new();
    for m in &u.messages {
        if !models.contains(&m.model.as_str()) {
            models.push(&m.model);
        }
    }
    o.var(models.len() as u64);
    for m in &models {
        o.bytes(m.as_bytes());
    }
    o.var(u.messages.len() as u64);
    for m in &u.messages {
        o.bytes(m.key.as_bytes());
        o.var(models.iter().position(|x| *x == m.model).unwrap_or(0) as u64);
        let t = &m.tokens;
        for v in [
            t.input,
            t.output,
            t.cache_write,
            t.cache_read,
            t.cache_write_1h,
        ] {
            o.var(v);
        }
        o.opt_i64(m.at);
        o.0.push(m.fast as u8 | (m.us_only as u8) << 1);
        o.var(m.web_searches);
    }
    o.0.into_boxed_slice()
}

/// The fixed part of a record; the rest (the usage) is after it.
pub(super) const HEAD_LEN: usize = 13 * 8 + 1;

pub(super) fn decode_head(b: &[u8]) -> Option<Head> {
    let mut i = In(b);
    let (dev, ino, size) = (i.u64()?, i.u64()?, i.u64()?);
    let mut s = [0i64; 5];
    for v in &mut s {
        *v = i.u64()? as i64;
    }
    let (boundary, head_sum, tail_sum) = (i.u64()?, i.u64()?, i.u64()?);
    let (mid_at, mid_sum) = (i.u64()?, i.u64()?);
    let prompts = match i.u8()? {
        0 => false,
        1 => true,
        _ => return None,
    };
    Some(Head {
        key: Key {
            dev,
            ino,
            size,
            mtime: s[0],
            mtime_ns: s[1],
            ctime: s[2],
            ctime_ns: s[3],
        },
        read_at: s[4],
        boundary,
        head_sum,
        tail_sum,
        mid_at,
        mid_sum,
        prompts,
    })
}

/// The CLI's `cost-state` figures a record holds (`Some(None)`: none),
/// read alone; `None` for a damaged record.
pub(super) fn decode_cli_cost(b: &[u8]) -> Option<Option<CliCost>> {
    let mut i = In(b.get(HEAD_LEN..)?);
    cli_cost(&mut i)
}

fn cli_cost(i: &mut In<'_>) -> Option<Option<CliCost>> {
    let usd = |b: u64| Some(f64::from_bits(b)).filter(|c| c.is_finite() && *c >= 0.0);
    let cli_cost = match i.u8()? {
        0 => None,
        k @ (1 | 2) => {
            let total_usd = usd(i.u64()?)?;
            let until = i.opt_i64()?;
            let responses = usize::try_from(i.var()?).ok()?;
            let first = usize::try_from(i.var()?).ok().filter(|f| *f <= responses)?;
            let n = usize::try_from(i.var()?).ok()?;
            if n > i.0.len() / 8 {
                return None;
            }
            let mut models = Vec::with_capacity(n);
            for _ in 0..n {
                let model = i.string()?;
                let tokens = Tokens {
                    input: i.var()?,
                    output: i.var()?,
                    cache_write: i.var()?,
                    cache_read: i.var()?,
                    cache_write_1h: i.var()?,
                };
                let web_search_requests = i.var()?;
                let cost_usd = usd(i.u64()?)?;
                models.push(ModelCost {
                    model,
                    tokens,
                    web_search_requests,
                    cost_usd,
                });
            }
            Some(CliCost {
                total_usd,
                models,
                has_unknown_model_cost: k == 2,
                until,
                responses,
                first,
            })
        }
        _ => return None,
    };
    Some(cli_cost)
}

pub(super) fn decode_usage(b: &[u8]) -> Option<FileUsage> {
    let mut i = In(b.get(HEAD_LEN..)?);
    let cli_cost = cli_cost(&mut i)?;
    let mut u = FileUsage {
        prompts: i.var()?,
        cli_cost,
        ..FileUsage::default()
    };
    u.cwd = match i.u8()? {
        0 => None,
        1 => Some(i.string()?),
        _ => return None,
    };
    u.first = i.opt_i64()?;
    u.last = i.opt_i64()?;
    let n = usize::try_from(i.var()?).ok()?;
    // the record's names of models, borrowed: each message's is its own
    // copy, made once
    let mut models: Vec<&str> = Vec::with_capacity(n.min(1024));
    for _ in 0..n {
        models.push(std::str::from_utf8(i.bytes()?).ok()?);
    }
    let n = usize::try_from(i.var()?).ok()?;
    // each message takes at least 8 bytes: a count past that is damage
    if n > i.0.len() / 8 {
        return None;
    }
    u.messages.reserve(n);
    // each message holds a copy of its model's name, named here by a
    // number: copies past a bound of the record's size are not what a
    // transcript records (its lines hold each name in full), and a few
    // bytes could otherwise ask for gigabytes of them
    let mut copies = 4 * b.len() as u64 + 4096;
    for _ in 0..n {
        let key = i.string()?;
        let model = *models.get(usize::try_from(i.var()?).ok()?)?;
        copies = copies.checked_sub(model.len() as u64)?;
        let model = model.to_owned();
        let tokens = Tokens {
            input: i.var()?,
            output: i.var()?,
            cache_write: i.var()?,
            cache_read: i.var()?,
            cache_write_1h: i.var()?,
        };
        let at = i.opt_i64()?;
        let flags = i.u8()?;
        if flags > 3 {
            return None;
        }
        let web_searches = i.var()?;
        u.messages.push(MessageUsage {
            key,
            model,
            tokens,
            at,
            fast: flags & 1 != 0,
            us_only: flags & 2 != 0,
            web_searches,
        });
    }
    i.0.is_empty().then_some(u)
}

// ---- the file

/// The records of an index file's bytes; `None` if it is not one whole.
pub(super) fn parse(data: &[u8]) -> Option<Map> {
    let body = data.strip_prefix(MAGIC.as_slice())?;
    let mut i = In(body);
    if i.u32()? != VERSION {
        return None;
    }
    let records_at = data.len() - i.0.len();
    let trailer_at = data.len().checked_sub(16)?;
    if trailer_at < records_at {
        return None;
    }
    let mut t = In(&data[trailer_at..]);
    let (count, sum) = (t.u64()?, t.u64()?);
    if checksum(&data[..trailer_at]) != sum {
        return None;
    }
    let mut i = In(&data[records_at..trailer_at]);
    let mut map = Map::with_capacity(usize::try_from(count).ok()?.min(1 << 20));
    while !i.0.is_empty() {
        let path = i.bytes()?;
        let rec = i.bytes()?;
        decode_head(rec)?;
        map.insert(path.into(), rec.into());
    }
    (map.len() as u64 == count).then_some(map)
}

pub(super) fn serialize(map: &Map) -> Vec<u8> {
    let size: usize = map.iter().map(|(p, r)| p.len() + r.len() + 8).sum();
    let mut o = Out(Vec::with_capacity(size + 64));
    o.0.extend_from_slice(MAGIC);
    o.0.extend_from_slice(&VERSION.to_le_bytes());
    for (p, r) in map {
        o.bytes(p);
        o.bytes(r);
    }
    let sum = checksum(&o.0);
    o.u64(map.len() as u64);
    o.u64(sum);
    o.0
}

/// The version of [`usage_bytes`]' format (the index's): bytes of another
/// version are not read.
#[cfg(feature = "archive")]
pub(crate) const USAGE_VERSION: u32 = VERSION;

/// What a transcript records about usage as bytes, in the index's record
/// format without a record's head: what the archive keeps at the end of
/// an archived transcript (`packed.rs`), read instead of decompressing it.
#[cfg(feature = "archive")]
pub(crate) fn usage_bytes(u: &FileUsage) -> Vec<u8> {
    let zero = Key {
        dev: 0,
        ino: 0,
        size: 0,
        mtime: 0,
        mtime_ns: 0,
        ctime: 0,
        ctime_ns: 0,
    };
    let head = Head {
        key: zero,
        read_at: 0,
        boundary: NOT_RESUMABLE,
        head_sum: 0,
        tail_sum: 0,
        mid_at: NOT_RESUMABLE,
        mid_sum: 0,
        prompts: true,
    };
    encode(&head, u)[HEAD_LEN..].to_vec()
}

/// [`usage_bytes`] read back; `None` for bytes that are not one whole.
#[cfg(feature = "archive")]
pub(crate) fn usage_from_bytes(b: &[u8]) -> Option<FileUsage> {
    let mut rec = vec![0u8; HEAD_LEN + b.len()];
    rec[HEAD_LEN..].copy_from_slice(b);
    decode_usage(&rec)
}
