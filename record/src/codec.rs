//! The binary form of a [`GameRecord`].
//!
//! ```text
//! record   := magic "DJGR" | version u8 (= 1) | body_len u32 | body | crc32 u32
//! body     := flags u8 | game_id [16] | model_version varint | created_unix_ms varint
//!             | spec_len varint | spec UTF-8 (GameSpec text)
//!             | outcome_tag u8 (0 first wins, 1 second wins, 2 draw, 3 score) [score varint]
//!             | move_count varint | move*
//! move     := move_flags u8 | action varint | [root_value f32] | policy_len varint
//!             | (action_delta zigzag-varint | probability f32)*
//! ```
//!
//! Integers are little-endian; varints are unsigned LEB128. The checksum is CRC-32 (IEEE)
//! over version, length and body, so a reader knows a record's extent from its 9-byte header
//! and checks it before parsing. Record flags: bit 0 resigned, bit 1 no-resign, bit 2
//! would-have-resigned present, bit 3 that player is the second. Move flags: bit 0 chance,
//! bit 1 train, bit 2 root value stored (omitted when its bits are all zero, e.g. for chance
//! events). Unknown flag bits are errors: new fields come with a new version.
//!
//! Probabilities are stored as f32, not quantised: a record round-trips bit for bit, so
//! the learner validates exactly what the worker produced (a quantiser that renormalised
//! would hide a worker's broken policy). Policy actions are delta-coded from the previous
//! entry, so a policy listed in action order costs one byte per action.

use super::{FieldProblem, GameRecord, MoveRecord, RecordError, RecordOutcome};
use dojo_game::{GameSpec, Player};

pub const RECORD_MAGIC: [u8; 4] = *b"DJGR";
pub const RECORD_VERSION: u8 = 1;
/// Most moves a record may hold (decode refuses more; validate too).
pub const MAX_MOVES: usize = 100_000;
/// Most policy entries one move may hold.
pub const MAX_POLICY: usize = 10_000;
/// Most policy entries in a whole record (validate refuses more, so a valid record always
/// encodes within [`MAX_BODY_LEN`]).
pub const MAX_TOTAL_POLICY: usize = 4_000_000;
/// Longest spec text.
pub const MAX_SPEC_LEN: usize = 256;
/// Largest record body: a reader streaming from a socket or log can refuse a header
/// claiming more before allocating.
pub const MAX_BODY_LEN: usize = 64 << 20;

const HEADER_LEN: usize = 9;
const CRC_LEN: usize = 4;

const F_RESIGNED: u8 = 1;
const F_NO_RESIGN: u8 = 2;
const F_WOULD_RESIGN: u8 = 4;
const F_WOULD_RESIGN_SECOND: u8 = 8;
const F_ALL: u8 = 15;

const M_CHANCE: u8 = 1;
const M_TRAIN: u8 = 2;
const M_ROOT_VALUE: u8 = 4;
const M_ALL: u8 = 7;

/// Smallest encoding of a move (flags, action, policy length), to bound a claimed count.
const MIN_MOVE_LEN: usize = 3;
/// Smallest encoding of a policy entry (delta, probability).
const MIN_ENTRY_LEN: usize = 5;

#[inline]
fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

#[inline]
fn zigzag(v: i32) -> u32 {
    ((v << 1) ^ (v >> 31)) as u32
}

#[inline]
fn unzigzag(v: u32) -> i32 {
    (v >> 1) as i32 ^ -((v & 1) as i32)
}

impl GameRecord {
    /// The record's bytes (see the module docs for the layout).
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.encode_into(&mut out);
        out
    }

    /// Appends the record's bytes to `out` (a log writer reuses one buffer).
    ///
    /// Infallible: a record over the limits that [`GameRecord::validate`] enforces encodes,
    /// but [`GameRecord::decode`] refuses it.
    pub fn encode_into(&self, out: &mut Vec<u8>) {
        let start = out.len();
        let estimate: usize = 64 + self.moves.iter().map(|m| 8 + 6 * m.policy.len()).sum::<usize>();
        out.reserve(estimate);
        out.extend_from_slice(&RECORD_MAGIC);
        out.push(RECORD_VERSION);
        out.extend_from_slice(&[0; 4]);
        let body_start = out.len();

        out.push(self.flags());
        out.extend_from_slice(&self.game_id);
        put_varint(out, self.model_version);
        put_varint(out, self.created_unix_ms);
        let spec = self.spec.to_string();
        put_varint(out, spec.len() as u64);
        out.extend_from_slice(spec.as_bytes());
        match self.outcome {
            RecordOutcome::Win(Player::First) => out.push(0),
            RecordOutcome::Win(Player::Second) => out.push(1),
            RecordOutcome::Draw => out.push(2),
            RecordOutcome::Score(s) => {
                out.push(3);
                put_varint(out, s);
            }
        }
        put_varint(out, self.moves.len() as u64);
        for m in &self.moves {
            encode_move(m, out);
        }

        let body_len = (out.len() - body_start) as u32;
        out[body_start - 4..body_start].copy_from_slice(&body_len.to_le_bytes());
        let crc = crc32fast::hash(&out[start + RECORD_MAGIC.len()..]);
        out.extend_from_slice(&crc.to_le_bytes());
    }

    /// The record's flags byte: how it ended by resignation, and who would have resigned.
    fn flags(&self) -> u8 {
        let mut flags = 0u8;
        if self.resigned {
            flags |= F_RESIGNED;
        }
        if self.no_resign {
            flags |= F_NO_RESIGN;
        }
        match self.would_have_resigned {
            Some(Player::First) => flags |= F_WOULD_RESIGN,
            Some(Player::Second) => flags |= F_WOULD_RESIGN | F_WOULD_RESIGN_SECOND,
            None => {}
        }
        flags
    }

    /// Decodes exactly one record; bytes after it are an error.
    pub fn decode(bytes: &[u8]) -> Result<GameRecord, RecordError> {
        let (record, used) = GameRecord::decode_prefix(bytes)?;
        if used != bytes.len() {
            return Err(RecordError::TrailingData { count: bytes.len() - used });
        }
        Ok(record)
    }

    /// Decodes the record at the start of `bytes` (a log holds them back to back) and
    /// returns it with the number of bytes it took. Never panics, whatever the bytes.
    pub fn decode_prefix(bytes: &[u8]) -> Result<(GameRecord, usize), RecordError> {
        let magic_len = RECORD_MAGIC.len();
        let seen = bytes.len().min(magic_len);
        if bytes[..seen] != RECORD_MAGIC[..seen] {
            return Err(RecordError::BadMagic { found: bytes[..seen].to_vec(), expected: &RECORD_MAGIC });
        }
        if bytes.len() < magic_len {
            return Err(RecordError::Truncated { field: "magic", offset: bytes.len() });
        }
        let Some(&version) = bytes.get(magic_len) else {
            return Err(RecordError::Truncated { field: "version", offset: magic_len });
        };
        if version != RECORD_VERSION {
            return Err(RecordError::UnsupportedVersion { what: "record", found: version, supported: RECORD_VERSION });
        }
        let Some(len_bytes) = bytes.get(magic_len + 1..HEADER_LEN) else {
            return Err(RecordError::Truncated { field: "body length", offset: magic_len + 1 });
        };
        let body_len = u32::from_le_bytes([len_bytes[0], len_bytes[1], len_bytes[2], len_bytes[3]]);
        let body_len = RecordError::at_most("record body length", body_len.into(), MAX_BODY_LEN)?;
        let body_end = HEADER_LEN + body_len;
        if bytes.len() < body_end {
            return Err(RecordError::Truncated { field: "body", offset: bytes.len() });
        }
        let Some(crc_bytes) = bytes.get(body_end..body_end + CRC_LEN) else {
            return Err(RecordError::Truncated { field: "checksum", offset: bytes.len() });
        };
        let stored = u32::from_le_bytes([crc_bytes[0], crc_bytes[1], crc_bytes[2], crc_bytes[3]]);
        let computed = crc32fast::hash(&bytes[magic_len..body_end]);
        if stored != computed {
            return Err(RecordError::ChecksumMismatch { stored, computed });
        }
        let mut r = Reader { buf: &bytes[HEADER_LEN..body_end], pos: 0, base: HEADER_LEN };
        let record = decode_body(&mut r)?;
        if r.pos != r.buf.len() {
            return Err(RecordError::UnusedBody { count: r.buf.len() - r.pos });
        }
        Ok((record, body_end + CRC_LEN))
    }
}

/// A move's bytes: its flags, action, root value (when not 0) and policy (actions as
/// zigzag deltas), the layout [`decode_move`] reads.
#[inline]
fn encode_move(m: &MoveRecord, out: &mut Vec<u8>) {
    let mut mf = 0u8;
    if m.chance {
        mf |= M_CHANCE;
    }
    if m.train {
        mf |= M_TRAIN;
    }
    let root = m.root_value.to_bits();
    if root != 0 {
        mf |= M_ROOT_VALUE;
    }
    out.push(mf);
    put_varint(out, u64::from(m.action));
    if root != 0 {
        out.extend_from_slice(&root.to_le_bytes());
    }
    put_varint(out, m.policy.len() as u64);
    let mut prev = 0i32;
    for &(a, p) in &m.policy {
        put_varint(out, u64::from(zigzag(i32::from(a) - prev)));
        prev = i32::from(a);
        out.extend_from_slice(&p.to_le_bytes());
    }
}

fn decode_body(r: &mut Reader<'_>) -> Result<GameRecord, RecordError> {
    let at = r.offset();
    let flags = r.u8("flags")?;
    if flags & !F_ALL != 0 {
        return Err(r.bad("flags", at, FieldProblem::UnknownFlags(flags & !F_ALL)));
    }
    if flags & F_WOULD_RESIGN == 0 && flags & F_WOULD_RESIGN_SECOND != 0 {
        return Err(r.bad("flags", at, FieldProblem::ResignerWithoutFlag));
    }
    let mut game_id = [0u8; 16];
    game_id.copy_from_slice(r.bytes(16, "game id")?);
    let model_version = r.varint("model version")?;
    let created_unix_ms = r.varint("creation time")?;

    let spec_len = RecordError::at_most("spec length", r.varint("spec length")?, MAX_SPEC_LEN)?;
    let spec_at = r.offset();
    let spec_text = std::str::from_utf8(r.bytes(spec_len, "spec")?)
        .map_err(|_| RecordError::InvalidUtf8 { field: "spec", offset: spec_at })?;
    let spec: GameSpec = spec_text.parse().map_err(RecordError::BadSpec)?;

    let at = r.offset();
    let outcome = match r.u8("outcome")? {
        0 => RecordOutcome::Win(Player::First),
        1 => RecordOutcome::Win(Player::Second),
        2 => RecordOutcome::Draw,
        3 => RecordOutcome::Score(r.varint("score")?),
        tag => return Err(r.bad("outcome", at, FieldProblem::UnknownOutcome(tag))),
    };

    let count = r.count(("move count", MAX_MOVES), ("moves", MIN_MOVE_LEN))?;
    let mut moves = Vec::with_capacity(count);
    for _ in 0..count {
        moves.push(decode_move(r)?);
    }

    Ok(GameRecord {
        game_id,
        spec,
        model_version,
        created_unix_ms,
        moves,
        outcome,
        resigned: flags & F_RESIGNED != 0,
        no_resign: flags & F_NO_RESIGN != 0,
        would_have_resigned: (flags & F_WOULD_RESIGN != 0).then_some(if flags & F_WOULD_RESIGN_SECOND != 0 {
            Player::Second
        } else {
            Player::First
        }),
    })
}

fn decode_move(r: &mut Reader<'_>) -> Result<MoveRecord, RecordError> {
    let at = r.offset();
    let mf = r.u8("move flags")?;
    if mf & !M_ALL != 0 {
        return Err(r.bad("move flags", at, FieldProblem::UnknownFlags(mf & !M_ALL)));
    }
    let action = r.action("move action")?;
    let root_value = if mf & M_ROOT_VALUE != 0 { r.f32("root value")? } else { 0.0 };
    let n = r.count(("policy length", MAX_POLICY), ("policy", MIN_ENTRY_LEN))?;
    let mut policy = Vec::with_capacity(n);
    let mut prev = 0i64;
    for _ in 0..n {
        let at = r.offset();
        let delta = r.varint("policy action")?;
        let delta = u32::try_from(delta).map_err(|_| r.bad("policy action", at, FieldProblem::DeltaTooLarge(delta)))?;
        let a = prev + i64::from(unzigzag(delta));
        let a = u16::try_from(a).map_err(|_| r.bad("policy action", at, FieldProblem::ActionOutOfRange(a)))?;
        prev = i64::from(a);
        policy.push((a, r.f32("policy probability")?));
    }
    Ok(MoveRecord { action, policy, root_value, train: mf & M_TRAIN != 0, chance: mf & M_CHANCE != 0 })
}

/// A cursor over the body; every read checks the remaining length first.
struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
    /// Offset of `buf[0]` in the record, so errors name the byte in the whole record.
    base: usize,
}

impl<'a> Reader<'a> {
    fn offset(&self) -> usize {
        self.base + self.pos
    }

    fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    fn truncated(&self, field: &'static str) -> RecordError {
        RecordError::Truncated { field, offset: self.offset() }
    }

    /// A count (`field`, at most `max`) of the items that follow (`items`, each `item_len`
    /// bytes at least). Nothing is allocated from a count the remaining bytes cannot back.
    fn count(
        &mut self,
        (field, max): (&'static str, usize),
        (items, item_len): (&'static str, usize),
    ) -> Result<usize, RecordError> {
        let n = RecordError::at_most(field, self.varint(field)?, max)?;
        if n > self.remaining() / item_len {
            return Err(RecordError::Truncated { field: items, offset: self.base + self.buf.len() });
        }
        Ok(n)
    }

    fn bad(&self, field: &'static str, offset: usize, reason: FieldProblem) -> RecordError {
        RecordError::BadField { field, offset, reason }
    }

    #[inline]
    fn u8(&mut self, field: &'static str) -> Result<u8, RecordError> {
        let b = *self.buf.get(self.pos).ok_or_else(|| self.truncated(field))?;
        self.pos += 1;
        Ok(b)
    }

    fn bytes(&mut self, n: usize, field: &'static str) -> Result<&'a [u8], RecordError> {
        if n > self.remaining() {
            return Err(self.truncated(field));
        }
        let s = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    #[inline]
    fn f32(&mut self, field: &'static str) -> Result<f32, RecordError> {
        let b = self.bytes(4, field)?;
        Ok(f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    #[inline]
    fn varint(&mut self, field: &'static str) -> Result<u64, RecordError> {
        let at = self.offset();
        let mut v = 0u64;
        for i in 0..10 {
            let b = self.u8(field)?;
            if i == 9 && b > 1 {
                return Err(self.bad(field, at, FieldProblem::VarintOverflow));
            }
            v |= u64::from(b & 0x7f) << (7 * i);
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        // The tenth byte either ends the varint or was rejected above.
        Err(self.bad(field, at, FieldProblem::VarintOverflow))
    }

    fn action(&mut self, field: &'static str) -> Result<u16, RecordError> {
        let at = self.offset();
        let v = self.varint(field)?;
        u16::try_from(v).map_err(|_| self.bad(field, at, FieldProblem::NotU16(v)))
    }
}
