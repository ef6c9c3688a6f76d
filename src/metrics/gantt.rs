//! A run's schedule for a Gantt chart of any size: the started jobs as compact columns (id,
//! submit, start, end, processors, user), a processor layout (each job a few bands of
//! consecutive rows, given greedily in order of start), a little-endian byte encoding (how the
//! worker hands a run of hundreds of thousands of jobs to the page), and what a view needs:
//! the bands of a time window (culled with a binary search), an RGBA raster of a window in
//! which sub-pixel jobs share their pixel, the job under a point, and axis ticks.
//!
//! Machines of more than [`MAX_LAYOUT_ROWS`] processors are laid out on rows of several
//! processors (a job takes its processors rounded up to whole rows; where rounding leaves too
//! few free rows the job is drawn on the rows it got): the picture, not the numbers, is then
//! approximate.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::metrics::JobRecord;

/// Most rows of the layout: a larger machine puts several processors on a row.
pub const MAX_LAYOUT_ROWS: u32 = 8192;

/// The started jobs of a run, in arrival order, and their layout.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Schedule {
    /// Machine size, processors.
    pub procs: u32,
    pub id: Vec<u64>,
    pub submit: Vec<f64>,
    pub start: Vec<f64>,
    pub end: Vec<f64>,
    pub size: Vec<u32>,
    /// The SWF user id (−1: unknown).
    pub user: Vec<i32>,
    /// The layout: rows of processors and the bands, in order of start.
    pub layout: Layout,
}

/// One band of a job: rows `row .. row + rows`, from the job's start to its end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Band {
    pub job: u32,
    pub row: u32,
    pub rows: u32,
}

/// Where each job is drawn.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Layout {
    /// Rows drawn (the machine size up to [`MAX_LAYOUT_ROWS`]).
    pub rows: u32,
    /// Processors per row (1 up to [`MAX_LAYOUT_ROWS`] processors).
    pub per_row: u32,
    /// The bands in order of their job's start (then arrival).
    pub bands: Vec<Band>,
    /// The bands' start times (a copy, for the window's binary search).
    starts: Vec<f64>,
    /// The longest job, seconds.
    pub longest: f64,
    /// First start and last end, seconds.
    pub t0: f64,
    pub t1: f64,
}

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

const MAGIC: &[u8; 4] = b"SLG1";
/// Bytes per job: id u64, submit, start, end f64, size u32, user i32.
const JOB_BYTES: usize = 8 * 4 + 4 + 4;
const HEADER_BYTES: usize = 4 + 4 + 4;

impl Schedule {
    /// The columns of per-job records (each with its user) on `procs` processors, without a
    /// layout (what [`Schedule::encode`] needs; [`Schedule::decode`] lays the jobs out).
    pub fn from_records(
        procs: u32,
        records: impl IntoIterator<Item = (JobRecord, i32)>,
    ) -> Schedule {
        let mut s = Schedule {
            procs,
            ..Schedule::default()
        };
        for (r, user) in records {
            s.id.push(r.id);
            s.submit.push(r.submit);
            s.start.push(r.start);
            s.end.push(r.end);
            s.size.push(r.procs);
            s.user.push(user);
        }
        s
    }

    /// This schedule with its layout computed.
    pub fn laid_out(mut self) -> Schedule {
        self.layout = Layout::of(self.procs, &self.start, &self.end, &self.size);
        self
    }

    /// Jobs.
    pub fn len(&self) -> usize {
        self.id.len()
    }

    pub fn is_empty(&self) -> bool {
        self.id.is_empty()
    }

    /// The bytes [`Schedule::encode`] writes for `n` jobs on `procs` processors, written one
    /// column at a time from `rows()` (called once per column, each call giving the same `n`
    /// records and users): no column is held in between.
    pub fn encode_rows<I>(procs: u32, n: usize, rows: impl Fn() -> I) -> Vec<u8>
    where
        I: Iterator<Item = (JobRecord, i32)>,
    {
        let mut out = Vec::with_capacity(HEADER_BYTES + n * JOB_BYTES);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&procs.to_le_bytes());
        out.extend_from_slice(&(n as u32).to_le_bytes());
        for (r, _) in rows() {
            out.extend_from_slice(&r.id.to_le_bytes());
        }
        let picks: [fn(&JobRecord) -> f64; 3] = [|r| r.submit, |r| r.start, |r| r.end];
        for pick in picks {
            for (r, _) in rows() {
                out.extend_from_slice(&pick(&r).to_le_bytes());
            }
        }
        for (r, _) in rows() {
            out.extend_from_slice(&r.procs.to_le_bytes());
        }
        for (_, user) in rows() {
            out.extend_from_slice(&user.to_le_bytes());
        }
        out
    }

    /// The columns as bytes (the layout is computed again by [`Schedule::decode`]).
    pub fn encode(&self) -> Vec<u8> {
        let n = self.len();
        let mut out = Vec::with_capacity(HEADER_BYTES + n * JOB_BYTES);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&self.procs.to_le_bytes());
        out.extend_from_slice(&(n as u32).to_le_bytes());
        for v in &self.id {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for col in [&self.submit, &self.start, &self.end] {
            for v in col {
                out.extend_from_slice(&v.to_le_bytes());
            }
        }
        for v in &self.size {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for v in &self.user {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out
    }

    /// The schedule of [`Schedule::encode`]'s bytes, with its layout.
    pub fn decode(bytes: &[u8]) -> Result<Schedule, DecodeError> {
        Schedule::decode_columns(bytes).map(Schedule::laid_out)
    }

    /// The schedule of [`Schedule::encode`]'s bytes without its layout (see
    /// [`Schedule::laid_out`]): the page decodes and lays out in separate main-thread tasks.
    pub fn decode_columns(bytes: &[u8]) -> Result<Schedule, DecodeError> {
        if bytes.len() < HEADER_BYTES || &bytes[..4] != MAGIC {
            return Err(DecodeError::Magic);
        }
        let word = |at: usize| {
            let mut b = [0u8; 4];
            b.copy_from_slice(&bytes[at..at + 4]);
            b
        };
        let procs = u32::from_le_bytes(word(4));
        let n = u32::from_le_bytes(word(8)) as usize;
        let expected = n
            .checked_mul(JOB_BYTES)
            .and_then(|b| b.checked_add(HEADER_BYTES))
            .unwrap_or(usize::MAX);
        if bytes.len() != expected {
            return Err(DecodeError::Length {
                expected,
                got: bytes.len(),
            });
        }
        let body = &bytes[HEADER_BYTES..];
        // Each column straight from its bytes (no copy of the bytes in between).
        let eights = |k: usize| {
            body[k * 8 * n..(k + 1) * 8 * n].chunks_exact(8).map(|c| {
                let mut b = [0u8; 8];
                b.copy_from_slice(c);
                b
            })
        };
        let id: Vec<u64> = eights(0).map(u64::from_le_bytes).collect();
        let submit: Vec<f64> = eights(1).map(f64::from_le_bytes).collect();
        let start: Vec<f64> = eights(2).map(f64::from_le_bytes).collect();
        let end: Vec<f64> = eights(3).map(f64::from_le_bytes).collect();
        let words = |from: usize| {
            body[from..from + 4 * n].chunks_exact(4).map(|c| {
                let mut b = [0u8; 4];
                b.copy_from_slice(c);
                b
            })
        };
        let size: Vec<u32> = words(32 * n).map(u32::from_le_bytes).collect();
        let user: Vec<i32> = words(36 * n).map(i32::from_le_bytes).collect();
        for j in 0..n {
            if !(submit[j].is_finite() && start[j].is_finite() && end[j].is_finite()) {
                return Err(DecodeError::Field {
                    job: j,
                    field: "time",
                });
            }
            if end[j] < start[j] {
                return Err(DecodeError::Field {
                    job: j,
                    field: "end",
                });
            }
            if size[j] == 0 || size[j] > procs {
                return Err(DecodeError::Field {
                    job: j,
                    field: "processors",
                });
            }
        }
        Ok(Schedule {
            procs,
            id,
            submit,
            start,
            end,
            size,
            user,
            layout: Layout::default(),
        })
    }

    /// The job drawn at time `t` (seconds) and processor `p`, or, when none is exactly there,
    /// one whose box is within `slack` seconds of `t` on that row (a job narrower than a
    /// pixel).
    pub fn job_at(&self, t: f64, p: f64, slack: f64) -> Option<usize> {
        let row = (p / f64::from(self.layout.per_row.max(1))).floor();
        if row < 0.0 || row >= f64::from(self.layout.rows) {
            return None;
        }
        let row = row as u32;
        let mut near: Option<(f64, usize)> = None;
        for b in self.layout.window(t - slack, t + slack) {
            if row < b.row || row >= b.row + b.rows {
                continue;
            }
            let j = b.job as usize;
            let (s, e) = (self.start[j], self.end[j]);
            if t >= s && t < e {
                return Some(j);
            }
            let d = if t < s { s - t } else { t - e };
            if d <= slack && near.is_none_or(|(best, _)| d < best) {
                near = Some((d, j));
            }
        }
        near.map(|(_, j)| j)
    }

    /// Draws the window `[t0, t1)` × all rows into `rgba` (`w` × `h` pixels, 4 bytes each,
    /// row 0 at the top, background left as it is), job `j` in `colour(j)`. A job narrower or
    /// lower than a pixel still colours one; a box at least 4 pixels wide and high gets a darker
    /// edge. Returns the jobs drawn.
    pub fn raster(
        &self,
        t0: f64,
        t1: f64,
        w: usize,
        h: usize,
        colour: &dyn Fn(usize) -> [u8; 3],
        rgba: &mut [u8],
    ) -> usize {
        if w == 0 || h == 0 || t1 <= t0 || rgba.len() < w * h * 4 {
            return 0;
        }
        let xs = w as f64 / (t1 - t0);
        let ys = h as f64 / f64::from(self.layout.rows.max(1));
        let mut drawn = 0;
        let mut last = u32::MAX;
        for b in self.layout.window(t0, t1) {
            let j = b.job as usize;
            if self.end[j] < t0 {
                continue;
            }
            let x0 = ((self.start[j] - t0) * xs).max(0.0);
            let x1 = ((self.end[j] - t0) * xs).min(w as f64);
            let px0 = (x0.floor() as usize).min(w - 1);
            let px1 = (x1.ceil() as usize).clamp(px0 + 1, w);
            let y_top = h as f64 - f64::from(b.row + b.rows) * ys;
            let y_bot = h as f64 - f64::from(b.row) * ys;
            let py0 = (y_top.max(0.0).floor() as usize).min(h - 1);
            let py1 = (y_bot.round() as usize).clamp(py0 + 1, h);
            let [r, g, bl] = colour(j);
            let edged = px1 - px0 >= 4 && py1 - py0 >= 4;
            let dark = [r / 4 * 3, g / 4 * 3, bl / 4 * 3];
            for y in py0..py1 {
                let line = &mut rgba[(y * w + px0) * 4..(y * w + px1) * 4];
                for (k, px) in line.chunks_exact_mut(4).enumerate() {
                    let c = if edged && (k == 0 || y == py1 - 1) {
                        dark
                    } else {
                        [r, g, bl]
                    };
                    px[0] = c[0];
                    px[1] = c[1];
                    px[2] = c[2];
                    px[3] = 255;
                }
            }
            if b.job != last {
                drawn += 1;
                last = b.job;
            }
        }
        drawn
    }
}

/// An end time ordered by `total_cmp`, for the heap of running jobs.
#[derive(Clone, Copy, Debug, PartialEq)]
struct OrderedEnd(f64);

impl Eq for OrderedEnd {}

impl PartialOrd for OrderedEnd {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for OrderedEnd {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// The layout's free rows, one bit each.
struct FreeRows {
    words: Vec<u64>,
}

impl FreeRows {
    /// `rows` rows, all free.
    fn all(rows: u32) -> FreeRows {
        let mut f = FreeRows {
            words: vec![0; rows.div_ceil(64) as usize],
        };
        f.give_back(0, rows);
        f
    }

    /// Rows `row .. row + n` free again.
    fn give_back(&mut self, row: u32, n: u32) {
        for r in row..row + n {
            self.words[(r / 64) as usize] |= 1 << (r % 64);
        }
    }

    /// Takes the `need` lowest free rows (fewer if fewer are free), reported as runs of
    /// consecutive rows `(first, count)` in order.
    fn take_lowest(&mut self, mut need: u32, mut run: impl FnMut(u32, u32)) {
        let mut open: Option<(u32, u32)> = None;
        for (w, word) in self.words.iter_mut().enumerate() {
            while need > 0 && *word != 0 {
                let r = w as u32 * 64 + word.trailing_zeros();
                *word &= *word - 1;
                need -= 1;
                open = match open {
                    Some((first, n)) if first + n == r => Some((first, n + 1)),
                    Some((first, n)) => {
                        run(first, n);
                        Some((r, 1))
                    }
                    None => Some((r, 1)),
                };
            }
            if need == 0 {
                break;
            }
        }
        if let Some((first, n)) = open {
            run(first, n);
        }
    }
}

impl Layout {
    /// Processors given greedily (lowest free row first) in order of start time, as bands of
    /// consecutive rows.
    pub fn of(procs: u32, start: &[f64], end: &[f64], size: &[u32]) -> Layout {
        let per_row = procs.div_ceil(MAX_LAYOUT_ROWS).max(1);
        let rows = procs.div_ceil(per_row);
        let mut order: Vec<u32> = (0..start.len() as u32).collect();
        order.sort_by(|&a, &b| {
            start[a as usize]
                .total_cmp(&start[b as usize])
                .then(a.cmp(&b))
        });
        // The free rows as bits, and the running jobs by end (a job's rows are free again
        // from its end): O(rows / 64 + rows taken) per job, not a scan of every row's end.
        let mut free = FreeRows::all(rows);
        let mut running: BinaryHeap<Reverse<(OrderedEnd, u32, usize)>> = BinaryHeap::new();
        let mut bands: Vec<Band> = Vec::with_capacity(start.len());
        let mut longest: f64 = 0.0;
        for &i in &order {
            let j = i as usize;
            let (s, e) = (start[j], end[j]);
            longest = longest.max(e - s);
            while let Some(Reverse((OrderedEnd(end), _, first))) = running.peek().copied() {
                if end > s {
                    break;
                }
                running.pop();
                let job = bands[first].job;
                for b in bands[first..].iter().take_while(|b: &&Band| b.job == job) {
                    free.give_back(b.row, b.rows);
                }
            }
            let need = size[j].div_ceil(per_row).min(rows);
            let first = bands.len();
            free.take_lowest(need, |row, rows| bands.push(Band { job: i, row, rows }));
            if bands.len() > first {
                running.push(Reverse((OrderedEnd(e), i, first)));
            }
        }
        let starts = bands.iter().map(|b| start[b.job as usize]).collect();
        let t0 = start.iter().copied().fold(f64::INFINITY, f64::min);
        let t1 = end.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let (t0, t1) = if t0.is_finite() { (t0, t1) } else { (0.0, 1.0) };
        Layout {
            rows,
            per_row,
            bands,
            starts,
            longest,
            t0,
            t1: if t1 > t0 { t1 } else { t0 + 1.0 },
        }
    }

    /// The bands that may meet the window `[t0, t1)`: those starting in
    /// `[t0 − longest, t1)` (a binary search on the starts; the caller checks the ends).
    pub fn window(&self, t0: f64, t1: f64) -> impl Iterator<Item = &Band> {
        let lo = self.starts.partition_point(|&s| s < t0 - self.longest);
        let hi = self.starts.partition_point(|&s| s < t1);
        self.bands[lo..hi.max(lo)].iter()
    }
}

/// About `max` round tick values covering `[lo, hi]` (steps of 1, 2 or 5 × 10^k).
pub fn ticks(lo: f64, hi: f64, max: usize) -> Vec<f64> {
    if hi <= lo || !lo.is_finite() || !hi.is_finite() || max == 0 {
        return Vec::new();
    }
    let raw = (hi - lo) / max as f64;
    let mag = libm::pow(10.0, libm::floor(libm::log10(raw)));
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * mag);
    let first = libm::ceil(lo / step);
    let last = libm::floor(hi / step);
    if last - first > 1000.0 {
        return Vec::new();
    }
    (0..=(last - first) as i64)
        .map(|k| (first + k as f64) * step)
        .collect()
}
