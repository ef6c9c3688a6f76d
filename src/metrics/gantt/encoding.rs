//! The byte encoding of a [`Schedule`]: a header (magic, processors, jobs, bands, which
//! columns are narrow, the times' base, the first id), the columns as kept (id — absent when
//! the ids are consecutive —, submit, start, end, processors, user), then the layout's bands
//! (job, first row, rows), all little-endian, written and read a piece of at most 64 KiB at a
//! time.

use super::{Band, Column, Ids, Layout, Row, Schedule, Times};

/// Why a byte encoding of a schedule was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DecodeError {
    /// Not a schedule (the first four bytes).
    Magic,
    /// The header's job count does not match the bytes' length: `expected` bytes, `got`.
    Length { expected: usize, got: usize },
    /// A job's field out of order (`end` before `start`, not finite) or larger than the machine.
    Field { job: usize, field: &'static str },
}

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DecodeError::Magic => write!(f, "schedule: not a schedule encoding"),
            DecodeError::Length { expected, got } => {
                write!(f, "schedule: {got} bytes, expected {expected}")
            }
            DecodeError::Field { job, field } => write!(f, "schedule: job {job}: bad {field}"),
        }
    }
}

const MAGIC: &[u8; 4] = b"SLG3";
/// Magic, processors, jobs, bands, flags ([`NARROW_IDS`], [`SECS`], [`CONSECUTIVE_IDS`],
/// [`NARROW_SIZES`], [`NARROW_USERS`]), the times' base (f64), the first id (u64).
const HEADER_BYTES: usize = 4 + 4 + 4 + 4 + 4 + 8 + 8;
/// Flag: ids as u32.
const NARROW_IDS: u32 = 1;
/// Flag: times as u32 seconds after the header's base.
const SECS: u32 = 2;
/// Flag: no id column, job `j`'s id is the header's first id plus `j`.
const CONSECUTIVE_IDS: u32 = 4;
/// Flag: processors as u16.
const NARROW_SIZES: u32 = 8;
/// Flag: users as i16.
const NARROW_USERS: u32 = 16;
/// Bytes written or read at a time.
const CHUNK: usize = 1 << 16;
/// Bytes per band: job u32, first row u16, rows u16.
const BAND_BYTES: usize = 8;

/// Reads a column of values `width` bytes wide, handing each value's bytes on.
type ReadColumn<'a> = dyn FnMut(usize, &mut dyn FnMut(&[u8])) + 'a;

/// Which columns are narrow.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Encoding {
    pub(super) narrow_ids: bool,
    /// The first id, when job `j`'s id is it plus `j` for every job.
    pub(super) first_id: Option<u64>,
    /// The earliest time, when every time is a whole number of seconds after it within u32.
    pub(super) base: Option<f64>,
    /// Processors as u16 (chosen from the column, [`Column::of`]; `false` from [`Encoding::of`]).
    pub(super) narrow_sizes: bool,
    /// Users as i16 (chosen from the column; `false` from [`Encoding::of`]).
    pub(super) narrow_users: bool,
}

impl Encoding {
    /// The narrowest exact encoding of the ids and times of `rows` (one pass), and their
    /// number.
    pub(super) fn of(rows: impl Iterator<Item = Row>) -> (Encoding, usize) {
        const EXACT: f64 = 9_007_199_254_740_992.0; // 2⁵³
        let (mut n, mut narrow_ids, mut whole) = (0, true, true);
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        let mut first_id: Option<u64> = None;
        let mut consecutive = true;
        for r in rows {
            let first = *first_id.get_or_insert(r.id);
            consecutive &= first.checked_add(n as u64) == Some(r.id);
            n += 1;
            narrow_ids &= r.id <= u64::from(u32::MAX);
            for t in [r.submit, r.start, r.end] {
                whole &= t.fract() == 0.0 && t.abs() <= EXACT && t.to_bits() != (-0.0f64).to_bits();
                lo = lo.min(t);
                hi = hi.max(t);
            }
        }
        let base = if n == 0 {
            Some(0.0)
        } else if whole && hi - lo <= f64::from(u32::MAX) {
            Some(lo)
        } else {
            None
        };
        let encoding = Encoding {
            narrow_ids,
            first_id: first_id.filter(|_| consecutive),
            base,
            narrow_sizes: false,
            narrow_users: false,
        };
        (encoding, n)
    }

    /// Bytes per job: id, three times, processors, user.
    fn job_bytes(&self) -> usize {
        let id = match (self.first_id, self.narrow_ids) {
            (Some(_), _) => 0,
            (None, true) => 4,
            (None, false) => 8,
        };
        let time = if self.base.is_some() { 4 } else { 8 };
        let size = if self.narrow_sizes { 2 } else { 4 };
        let user = if self.narrow_users { 2 } else { 4 };
        id + 3 * time + size + user
    }

    /// The header's flags.
    fn flags(&self) -> u32 {
        let flag = |on: bool, f: u32| if on { f } else { 0 };
        flag(self.narrow_ids, NARROW_IDS)
            | flag(self.base.is_some(), SECS)
            | flag(self.first_id.is_some(), CONSECUTIVE_IDS)
            | flag(self.narrow_sizes, NARROW_SIZES)
            | flag(self.narrow_users, NARROW_USERS)
    }
}

/// Hands bytes on in pieces of at most [`CHUNK`].
struct Pieces<'a> {
    buf: Vec<u8>,
    out: &'a mut dyn FnMut(&[u8]),
}

impl Pieces<'_> {
    fn put(&mut self, bytes: &[u8]) {
        if self.buf.len() + bytes.len() > CHUNK {
            (self.out)(&self.buf);
            self.buf.clear();
        }
        self.buf.extend_from_slice(bytes);
    }

    fn flush(&mut self) {
        (self.out)(&self.buf);
        self.buf.clear();
    }
}

impl Schedule {
    /// How the columns are kept.
    fn encoding(&self) -> Encoding {
        let base = match (&self.submit, &self.start, &self.end) {
            (Times::Secs { base, .. }, _, _) => Some(*base),
            _ => None,
        };
        Encoding {
            narrow_ids: matches!(self.id, Ids::Narrow(_)),
            first_id: match self.id {
                Ids::Consecutive { first, .. } => Some(first),
                _ => None,
            },
            base,
            narrow_sizes: self.size.is_narrow(),
            narrow_users: self.user.is_narrow(),
        }
    }

    /// Bytes of [`Schedule::encode`].
    pub fn encoded_len(&self) -> usize {
        HEADER_BYTES
            + self.len() * self.encoding().job_bytes()
            + self.layout.bands.len() * BAND_BYTES
    }

    /// The columns and the layout's bands as bytes ([`Schedule::write`]).
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.encoded_len());
        self.write(&mut |b| out.extend_from_slice(b));
        out
    }

    /// Writes [`Schedule::encoded_len`] bytes to `out` in pieces of at most 64 KiB: the header
    /// (magic, processors, jobs, bands, which columns are narrow, the times' base, the first
    /// id), the columns as kept (id unless consecutive, submit, start, end, processors, user),
    /// then the bands (job, first row, rows), all little-endian. The page reads the layout
    /// instead of computing it.
    pub fn write(&self, out: &mut dyn FnMut(&[u8])) {
        let enc = self.encoding();
        let flags = enc.flags();
        let mut p = Pieces {
            buf: Vec::with_capacity(CHUNK),
            out,
        };
        p.put(MAGIC);
        p.put(&self.procs.to_le_bytes());
        p.put(&(self.len() as u32).to_le_bytes());
        p.put(&(self.layout.bands.len() as u32).to_le_bytes());
        p.put(&flags.to_le_bytes());
        p.put(&enc.base.unwrap_or(0.0).to_le_bytes());
        p.put(&enc.first_id.unwrap_or(0).to_le_bytes());
        match &self.id {
            Ids::Consecutive { .. } => {}
            Ids::Narrow(v) => v.iter().for_each(|x| p.put(&x.to_le_bytes())),
            Ids::Wide(v) => v.iter().for_each(|x| p.put(&x.to_le_bytes())),
        }
        for col in [&self.submit, &self.start, &self.end] {
            match col {
                Times::Secs { secs, .. } => secs.iter().for_each(|x| p.put(&x.to_le_bytes())),
                Times::Exact(v) => v.iter().for_each(|x| p.put(&x.to_le_bytes())),
            }
        }
        match &self.size {
            Column::Narrow(v) => v.iter().for_each(|x| p.put(&x.to_le_bytes())),
            Column::Wide(v) => v.iter().for_each(|x| p.put(&x.to_le_bytes())),
        }
        match &self.user {
            Column::Narrow(v) => v.iter().for_each(|x| p.put(&x.to_le_bytes())),
            Column::Wide(v) => v.iter().for_each(|x| p.put(&x.to_le_bytes())),
        }
        let bands = &self.layout.bands;
        bands.iter().for_each(|b| p.put(&b.job.to_le_bytes()));
        bands.iter().for_each(|b| p.put(&b.row.to_le_bytes()));
        bands.iter().for_each(|b| p.put(&b.rows.to_le_bytes()));
        p.flush();
    }

    /// The schedule of [`Schedule::encode`]'s bytes, with its layout.
    pub fn decode(bytes: &[u8]) -> Result<Schedule, DecodeError> {
        Schedule::decode_with(bytes.len(), |at, dst| {
            dst.copy_from_slice(&bytes[at..at + dst.len()])
        })
    }

    /// The schedule of an encoding of `len` bytes, read a piece at a time: `read(at, dst)`
    /// fills `dst` with the bytes from offset `at` (always within `len`). The page reads
    /// straight from the message's `Uint8Array`, so the bytes are never copied whole into its
    /// memory, and each column is read into a vector of its final size.
    pub fn decode_with(
        len: usize,
        mut read: impl FnMut(usize, &mut [u8]),
    ) -> Result<Schedule, DecodeError> {
        if len < HEADER_BYTES {
            return Err(DecodeError::Magic);
        }
        let mut head = [0u8; HEADER_BYTES];
        read(0, &mut head);
        if &head[..4] != MAGIC {
            return Err(DecodeError::Magic);
        }
        let word =
            |at: usize| u32::from_le_bytes([head[at], head[at + 1], head[at + 2], head[at + 3]]);
        let procs = word(4);
        let n = word(8) as usize;
        let nbands = word(12) as usize;
        let flags = word(16);
        let mut b8 = [0u8; 8];
        b8.copy_from_slice(&head[20..28]);
        let base = f64::from_le_bytes(b8);
        b8.copy_from_slice(&head[28..36]);
        let first_id = u64::from_le_bytes(b8);
        let enc = Encoding {
            narrow_ids: flags & NARROW_IDS != 0,
            first_id: (flags & CONSECUTIVE_IDS != 0).then_some(first_id),
            base: (flags & SECS != 0).then_some(base),
            narrow_sizes: flags & NARROW_SIZES != 0,
            narrow_users: flags & NARROW_USERS != 0,
        };
        let expected = n
            .checked_mul(enc.job_bytes())
            .and_then(|b| b.checked_add(nbands.checked_mul(BAND_BYTES)?))
            .and_then(|b| b.checked_add(HEADER_BYTES))
            .unwrap_or(usize::MAX);
        if len != expected {
            return Err(DecodeError::Length { expected, got: len });
        }
        if !base.is_finite() {
            return Err(DecodeError::Field {
                job: 0,
                field: "time base",
            });
        }
        if enc
            .first_id
            .is_some_and(|f| f.checked_add((n as u64).saturating_sub(1)).is_none())
        {
            return Err(DecodeError::Field {
                job: 0,
                field: "id",
            });
        }
        // Each column straight from its bytes, a chunk at a time.
        let mut chunk = vec![0u8; CHUNK];
        let mut at = HEADER_BYTES;
        let mut column = |count: usize, width: usize, each: &mut dyn FnMut(&[u8])| {
            let mut left = count * width;
            while left > 0 {
                let take = left.min(CHUNK);
                let buf = &mut chunk[..take];
                read(at, buf);
                for v in buf.chunks_exact(width) {
                    each(v);
                }
                at += take;
                left -= take;
            }
        };
        let le2 = |b: &[u8]| [b[0], b[1]];
        let le4 = |b: &[u8]| [b[0], b[1], b[2], b[3]];
        let le8 = |b: &[u8]| [b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]];
        let id = if let Some(first) = enc.first_id {
            Ids::Consecutive { first, n }
        } else if enc.narrow_ids {
            let mut v = Vec::with_capacity(n);
            column(n, 4, &mut |b| v.push(u32::from_le_bytes(le4(b))));
            Ids::Narrow(v)
        } else {
            let mut v = Vec::with_capacity(n);
            column(n, 8, &mut |b| v.push(u64::from_le_bytes(le8(b))));
            Ids::Wide(v)
        };
        let times = |column: &mut ReadColumn| match enc.base {
            Some(base) => {
                let mut secs = Vec::with_capacity(n);
                column(4, &mut |b| secs.push(u32::from_le_bytes(le4(b))));
                Times::Secs { base, secs }
            }
            None => {
                let mut v = Vec::with_capacity(n);
                column(8, &mut |b| v.push(f64::from_le_bytes(le8(b))));
                Times::Exact(v)
            }
        };
        let mut of_n = |width: usize, each: &mut dyn FnMut(&[u8])| column(n, width, each);
        let submit = times(&mut of_n);
        let start = times(&mut of_n);
        let end = times(&mut of_n);
        let size = if enc.narrow_sizes {
            let mut v = Vec::with_capacity(n);
            of_n(2, &mut |b| v.push(u16::from_le_bytes(le2(b))));
            Column::Narrow(v)
        } else {
            let mut v = Vec::with_capacity(n);
            of_n(4, &mut |b| v.push(u32::from_le_bytes(le4(b))));
            Column::Wide(v)
        };
        let user = if enc.narrow_users {
            let mut v = Vec::with_capacity(n);
            of_n(2, &mut |b| v.push(i16::from_le_bytes(le2(b))));
            Column::Narrow(v)
        } else {
            let mut v = Vec::with_capacity(n);
            of_n(4, &mut |b| v.push(i32::from_le_bytes(le4(b))));
            Column::Wide(v)
        };
        let mut bands = vec![
            Band {
                job: 0,
                row: 0,
                rows: 0
            };
            nbands
        ];
        let mut k = 0;
        column(nbands, 4, &mut |b| {
            bands[k].job = u32::from_le_bytes(le4(b));
            k += 1;
        });
        k = 0;
        column(nbands, 2, &mut |b| {
            bands[k].row = u16::from_le_bytes(le2(b));
            k += 1;
        });
        k = 0;
        column(nbands, 2, &mut |b| {
            bands[k].rows = u16::from_le_bytes(le2(b));
            k += 1;
        });
        let mut s = Schedule {
            procs,
            id,
            submit,
            start,
            end,
            size,
            user,
            layout: Layout::default(),
        };
        for j in 0..n {
            let (submit, start, end) = (s.submit(j), s.start(j), s.end(j));
            if !(submit.is_finite() && start.is_finite() && end.is_finite()) {
                return Err(DecodeError::Field {
                    job: j,
                    field: "time",
                });
            }
            if end < start {
                return Err(DecodeError::Field {
                    job: j,
                    field: "end",
                });
            }
            if s.size(j) == 0 || s.size(j) > procs {
                return Err(DecodeError::Field {
                    job: j,
                    field: "processors",
                });
            }
        }
        let (per_row, rows) = Layout::rows(procs);
        let mut last = f64::NEG_INFINITY;
        for b in &bands {
            let j = b.job as usize;
            let bad = j >= n
                || b.rows == 0
                || u32::from(b.row) + u32::from(b.rows) > rows
                || s.start(j) < last;
            if bad {
                return Err(DecodeError::Field {
                    job: j,
                    field: "band",
                });
            }
            last = s.start(j);
        }
        let (longest, t0, t1) = Layout::extent(n, |j| s.start(j), |j| s.end(j));
        s.layout = Layout {
            rows,
            per_row,
            bands,
            longest,
            t0,
            t1,
        };
        Ok(s)
    }
}
