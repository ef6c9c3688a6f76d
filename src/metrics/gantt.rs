//! A run's schedule for a Gantt chart of any size: the started jobs as compact columns (id,
//! submit, start, end, processors, user), a processor layout (each job a few bands of
//! consecutive rows, given greedily in order of start), a little-endian byte encoding of both
//! (`encoding`: how the worker hands a run of hundreds of thousands of jobs, laid out, to the
//! page), and what a view needs:
//! the bands of a time window (culled with a binary search), an RGBA raster of a window in
//! which sub-pixel jobs share their pixel, the job under a point, and axis ticks.
//!
//! The columns are as narrow as is exact: ids as nothing when they are consecutive (job `j`'s
//! id is the first one plus `j`), else in 4 bytes when every id fits; processors and users in
//! 2 bytes when every value fits; and the times as whole seconds (4 bytes) after the run's
//! earliest time when every time is a whole second within 2³² s of it (SWF times are), else as
//! `f64`. Either way a value reads back as the very one it was (the tooltip shows the per-job
//! CSV's numbers). The byte encoding is the
//! columns and bands as they are kept, so the page decodes each straight into its vector, a
//! piece of the bytes at a time ([`Schedule::decode_with`]).
//!
//! Machines of more than [`MAX_LAYOUT_ROWS`] processors are laid out on rows of several
//! processors (a job takes its processors rounded up to whole rows; where rounding leaves too
//! few free rows the job is drawn on the rows it got): the picture, not the numbers, is then
//! approximate.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::base::nice_step::nice_step;
use crate::metrics::JobRecord;

mod encoding;

pub use encoding::DecodeError;
use encoding::Encoding;

/// Most rows of the layout: a larger machine puts several processors on a row.
pub const MAX_LAYOUT_ROWS: u32 = 8192;

/// The started jobs of a run, in arrival order, and their layout.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Schedule {
    /// Machine size, processors.
    pub procs: u32,
    id: Ids,
    submit: Times,
    start: Times,
    end: Times,
    /// Each job's processors ([`Schedule::size`]).
    size: Column<u16, u32>,
    /// Each job's SWF user id, −1 unknown ([`Schedule::user`]).
    user: Column<i16, i32>,
    /// The layout: rows of processors and the bands, in order of start.
    pub layout: Layout,
}

/// One started job's numbers, as a schedule is built from them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Row {
    pub id: u64,
    pub submit: f64,
    pub start: f64,
    pub end: f64,
    pub size: u32,
}

impl From<&JobRecord> for Row {
    fn from(r: &JobRecord) -> Row {
        Row {
            id: r.id,
            submit: r.submit,
            start: r.start,
            end: r.end,
            size: r.procs,
        }
    }
}

/// Job ids: none kept when they are consecutive (`first + j`), else 4 bytes each when every
/// id fits.
#[derive(Clone, Debug, PartialEq)]
enum Ids {
    Consecutive { first: u64, n: usize },
    Narrow(Vec<u32>),
    Wide(Vec<u64>),
}

impl Default for Ids {
    fn default() -> Ids {
        Ids::Narrow(Vec::new())
    }
}

impl Ids {
    #[inline]
    fn get(&self, j: usize) -> u64 {
        match self {
            Ids::Consecutive { first, .. } => first + j as u64,
            Ids::Narrow(v) => u64::from(v[j]),
            Ids::Wide(v) => v[j],
        }
    }

    fn len(&self) -> usize {
        match self {
            Ids::Consecutive { n, .. } => *n,
            Ids::Narrow(v) => v.len(),
            Ids::Wide(v) => v.len(),
        }
    }
}

/// A column of whole numbers as kept: each value in 2 bytes (`N`) or as it is (`W`).
#[derive(Clone, Copy, Debug)]
pub enum Values<'a, N, W> {
    Narrow(&'a [N]),
    Wide(&'a [W]),
}

/// A column of whole numbers: `N` (2 bytes) when every value fits, else `W` itself.
#[derive(Clone, Debug, PartialEq)]
enum Column<N, W> {
    Narrow(Vec<N>),
    Wide(Vec<W>),
}

impl<N, W> Default for Column<N, W> {
    fn default() -> Self {
        Column::Narrow(Vec::new())
    }
}

impl<N: Copy + TryFrom<W>, W: Copy + From<N>> Column<N, W> {
    /// `values` narrow when every one fits (their order and values kept), else as they are.
    fn of(values: Vec<W>) -> Self {
        if values.iter().all(|&v| N::try_from(v).is_ok()) {
            Column::Narrow(values.iter().filter_map(|&v| N::try_from(v).ok()).collect())
        } else {
            Column::Wide(values)
        }
    }

    #[inline]
    fn get(&self, j: usize) -> W {
        match self {
            Column::Narrow(v) => W::from(v[j]),
            Column::Wide(v) => v[j],
        }
    }

    fn values(&self) -> Values<'_, N, W> {
        match self {
            Column::Narrow(v) => Values::Narrow(v),
            Column::Wide(v) => Values::Wide(v),
        }
    }

    fn is_narrow(&self) -> bool {
        matches!(self, Column::Narrow(_))
    }

    fn iter(&self) -> impl Iterator<Item = W> + '_ {
        let (narrow, wide) = match self {
            Column::Narrow(v) => (Some(v), None),
            Column::Wide(v) => (None, Some(v)),
        };
        let narrow = narrow.into_iter().flatten().map(|&v| W::from(v));
        narrow.chain(wide.into_iter().flatten().copied())
    }
}

/// A column of times: whole seconds after `base` (exact, see the module documentation), or
/// the `f64`s themselves.
#[derive(Clone, Debug, PartialEq)]
enum Times {
    Secs { base: f64, secs: Vec<u32> },
    Exact(Vec<f64>),
}

impl Default for Times {
    fn default() -> Times {
        Times::Exact(Vec::new())
    }
}

impl Times {
    #[inline]
    fn get(&self, j: usize) -> f64 {
        match self {
            Times::Secs { base, secs } => base + f64::from(secs[j]),
            Times::Exact(v) => v[j],
        }
    }

    /// An empty column of the encoding's kind, for `n` times.
    fn with_capacity(enc: &Encoding, n: usize) -> Times {
        match enc.base {
            Some(base) => Times::Secs {
                base,
                secs: Vec::with_capacity(n),
            },
            None => Times::Exact(Vec::with_capacity(n)),
        }
    }

    fn push(&mut self, t: f64) {
        match self {
            Times::Secs { base, secs } => secs.push((t - *base) as u32),
            Times::Exact(v) => v.push(t),
        }
    }
}

/// One band of a job: rows `row .. row + rows` (at most [`MAX_LAYOUT_ROWS`]), from the job's
/// start to its end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Band {
    pub job: u32,
    pub row: u16,
    pub rows: u16,
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
    /// The longest job, seconds.
    pub longest: f64,
    /// First start and last end, seconds.
    pub t0: f64,
    pub t1: f64,
}

impl Schedule {
    /// The schedule of per-job records (each with its user) on `procs` processors, laid out.
    pub fn from_records(
        procs: u32,
        records: impl IntoIterator<Item = (JobRecord, i32)>,
    ) -> Schedule {
        let records: Vec<(JobRecord, i32)> = records.into_iter().collect();
        let rows = || records.iter().map(|(r, _)| Row::from(r));
        Schedule::columns(procs, rows, records.iter().map(|&(_, u)| u)).laid_out()
    }

    /// The columns of `rows()` (called twice, giving the same jobs) and their `users` on
    /// `procs` processors, as narrow as is exact, without a layout (see
    /// [`Schedule::laid_out`]).
    pub fn columns<I>(
        procs: u32,
        rows: impl Fn() -> I,
        users: impl Iterator<Item = i32>,
    ) -> Schedule
    where
        I: Iterator<Item = Row>,
    {
        let (enc, n) = Encoding::of(rows());
        let mut id = match enc.first_id {
            Some(first) => Ids::Consecutive { first, n },
            None if enc.narrow_ids => Ids::Narrow(Vec::with_capacity(n)),
            None => Ids::Wide(Vec::with_capacity(n)),
        };
        let mut submit = Times::with_capacity(&enc, n);
        let mut start = Times::with_capacity(&enc, n);
        let mut end = Times::with_capacity(&enc, n);
        let mut size = Vec::with_capacity(n);
        for r in rows() {
            match &mut id {
                Ids::Consecutive { .. } => {}
                Ids::Narrow(v) => v.push(r.id as u32),
                Ids::Wide(v) => v.push(r.id),
            }
            submit.push(r.submit);
            start.push(r.start);
            end.push(r.end);
            size.push(r.size);
        }
        let mut user = Vec::with_capacity(n);
        user.extend(users.take(n));
        user.resize(n, -1);
        Schedule {
            procs,
            id,
            submit,
            start,
            end,
            size: Column::of(size),
            user: Column::of(user),
            layout: Layout::default(),
        }
    }

    /// This schedule with its layout computed.
    pub fn laid_out(mut self) -> Schedule {
        let (start, end, size) = (&self.start, &self.end, &self.size);
        let layout = Layout::of(
            self.procs,
            self.len(),
            |j| size.get(j),
            |j| start.get(j),
            |j| end.get(j),
        );
        self.layout = layout;
        self
    }

    /// Jobs.
    pub fn len(&self) -> usize {
        self.id.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Job `j`'s number.
    pub fn id(&self, j: usize) -> u64 {
        self.id.get(j)
    }

    /// Job `j`'s processors.
    #[inline]
    pub fn size(&self, j: usize) -> u32 {
        self.size.get(j)
    }

    /// Job `j`'s SWF user id (−1: unknown).
    #[inline]
    pub fn user(&self, j: usize) -> i32 {
        self.user.get(j)
    }

    /// Every job's processors as kept (for a loop that reads many: the kind chosen once).
    pub fn sizes(&self) -> Values<'_, u16, u32> {
        self.size.values()
    }

    /// Every job's SWF user id as kept (see [`Schedule::sizes`]).
    pub fn user_ids(&self) -> Values<'_, i16, i32> {
        self.user.values()
    }

    /// Every job's SWF user id, in order.
    pub fn users(&self) -> impl Iterator<Item = i32> + '_ {
        self.user.iter()
    }

    /// Job `j`'s submit time, seconds.
    pub fn submit(&self, j: usize) -> f64 {
        self.submit.get(j)
    }

    /// Job `j`'s start, seconds.
    pub fn start(&self, j: usize) -> f64 {
        self.start.get(j)
    }

    /// Job `j`'s end, seconds.
    pub fn end(&self, j: usize) -> f64 {
        self.end.get(j)
    }

    /// Job `j`'s numbers.
    pub fn row(&self, j: usize) -> Row {
        Row {
            id: self.id(j),
            submit: self.submit(j),
            start: self.start(j),
            end: self.end(j),
            size: self.size(j),
        }
    }

    /// The bands that may meet the window `[t0, t1)` (see [`Layout::window`]).
    pub fn window(&self, t0: f64, t1: f64) -> impl Iterator<Item = &Band> {
        self.layout.window(|j| self.start.get(j), t0, t1)
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
        for b in self.window(t - slack, t + slack) {
            if row < u32::from(b.row) || row >= u32::from(b.row) + u32::from(b.rows) {
                continue;
            }
            let j = b.job as usize;
            let (s, e) = (self.start(j), self.end(j));
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
        // The columns' kind chosen once, not per job: each loop reads its times directly.
        let window = (t0, t1, w, h);
        match (&self.start, &self.end) {
            (Times::Secs { base, secs: st }, Times::Secs { secs: en, .. }) => self.raster_with(
                |j| base + f64::from(st[j]),
                |j| base + f64::from(en[j]),
                window,
                colour,
                rgba,
            ),
            (Times::Exact(st), Times::Exact(en)) => {
                self.raster_with(|j| st[j], |j| en[j], window, colour, rgba)
            }
            (st, en) => self.raster_with(|j| st.get(j), |j| en.get(j), window, colour, rgba),
        }
    }

    /// [`Schedule::raster`] with the times read by `start` and `end`.
    fn raster_with(
        &self,
        start: impl Fn(usize) -> f64 + Copy,
        end: impl Fn(usize) -> f64,
        (t0, t1, w, h): (f64, f64, usize, usize),
        colour: &dyn Fn(usize) -> [u8; 3],
        rgba: &mut [u8],
    ) -> usize {
        let xs = w as f64 / (t1 - t0);
        let ys = h as f64 / f64::from(self.layout.rows.max(1));
        let mut drawn = 0;
        let mut last = u32::MAX;
        for b in self.layout.window(start, t0, t1) {
            let j = b.job as usize;
            let end = end(j);
            if end < t0 {
                continue;
            }
            let x0 = ((start(j) - t0) * xs).max(0.0);
            let x1 = ((end - t0) * xs).min(w as f64);
            let px0 = (x0.floor() as usize).min(w - 1);
            let px1 = (x1.ceil() as usize).clamp(px0 + 1, w);
            let y_top = h as f64 - (f64::from(b.row) + f64::from(b.rows)) * ys;
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
    /// consecutive rows: `size(j)` processors for job `j` (of `n`) from `start(j)` to `end(j)`.
    pub fn of(
        procs: u32,
        n: usize,
        size: impl Fn(usize) -> u32,
        start: impl Fn(usize) -> f64,
        end: impl Fn(usize) -> f64,
    ) -> Layout {
        let (per_row, rows) = Layout::rows(procs);
        // Start, then arrival: a total order, so the unstable sort (no buffer) is exact.
        let mut order: Vec<u32> = (0..n as u32).collect();
        order.sort_unstable_by(|&a, &b| {
            start(a as usize)
                .total_cmp(&start(b as usize))
                .then(a.cmp(&b))
        });
        // The free rows as bits, and the running jobs by end (a job's rows are free again
        // from its end): O(rows / 64 + rows taken) per job, not a scan of every row's end.
        let mut free = FreeRows::all(rows);
        let mut running: BinaryHeap<Reverse<(OrderedEnd, u32, usize)>> = BinaryHeap::new();
        let mut bands: Vec<Band> = Vec::with_capacity(n);
        for &i in &order {
            let j = i as usize;
            let (s, e) = (start(j), end(j));
            while let Some(Reverse((OrderedEnd(end), _, first))) = running.peek().copied() {
                if end > s {
                    break;
                }
                running.pop();
                let job = bands[first].job;
                for b in bands[first..].iter().take_while(|b: &&Band| b.job == job) {
                    free.give_back(u32::from(b.row), u32::from(b.rows));
                }
            }
            let need = size(j).div_ceil(per_row).min(rows);
            let first = bands.len();
            // Rows and counts are below MAX_LAYOUT_ROWS (8,192): exact in u16.
            free.take_lowest(need, |row, rows| {
                bands.push(Band {
                    job: i,
                    row: row as u16,
                    rows: rows as u16,
                })
            });
            if bands.len() > first {
                running.push(Reverse((OrderedEnd(e), i, first)));
            }
        }
        drop(order);
        drop(running);
        let (longest, t0, t1) = Layout::extent(n, start, end);
        Layout {
            rows,
            per_row,
            bands,
            longest,
            t0,
            t1,
        }
    }

    /// Processors per row and rows for a machine of `procs` processors.
    fn rows(procs: u32) -> (u32, u32) {
        let per_row = procs.div_ceil(MAX_LAYOUT_ROWS).max(1);
        (per_row, procs.div_ceil(per_row))
    }

    /// The longest of `n` jobs, the first start and the last end (0 and 1 without jobs; the
    /// end after the start).
    fn extent(
        n: usize,
        start: impl Fn(usize) -> f64,
        end: impl Fn(usize) -> f64,
    ) -> (f64, f64, f64) {
        let (mut longest, mut t0, mut t1) = (0.0f64, f64::INFINITY, f64::NEG_INFINITY);
        for j in 0..n {
            let (s, e) = (start(j), end(j));
            longest = longest.max(e - s);
            t0 = t0.min(s);
            t1 = t1.max(e);
        }
        let (t0, t1) = if t0.is_finite() { (t0, t1) } else { (0.0, 1.0) };
        (longest, t0, if t1 > t0 { t1 } else { t0 + 1.0 })
    }

    /// The bands that may meet the window `[t0, t1)`: those starting in
    /// `[t0 − longest, t1)` (a binary search on the bands, which are in order of their job's
    /// `start`; the caller checks the ends).
    pub fn window(
        &self,
        start: impl Fn(usize) -> f64,
        t0: f64,
        t1: f64,
    ) -> impl Iterator<Item = &Band> {
        let at = |b: &Band| start(b.job as usize);
        let lo = self.bands.partition_point(|b| at(b) < t0 - self.longest);
        let hi = self.bands.partition_point(|b| at(b) < t1);
        self.bands[lo..hi.max(lo)].iter()
    }
}

/// Upper bounds of the job-size classes a chart colours jobs by (processors: 1, 2–4, 5–16,
/// 17–64, 65–256, above 256): powers of four, so each class spans a similar share of a log axis.
pub const SIZE_CLASS_BOUNDS: [u32; 6] = [1, 4, 16, 64, 256, u32::MAX];

/// One job-size class as a machine of a given size can hold it: processors `lo..=hi`, and
/// `class`, its index in [`SIZE_CLASS_BOUNDS`] (its colour).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SizeClass {
    pub class: usize,
    pub lo: u32,
    pub hi: u32,
}

/// The job-size classes a machine of `procs` processors can hold, each cut at the machine's
/// size: on 128 processors the last is 65–128, and no class above it is listed.
pub fn size_classes(procs: u32) -> Vec<SizeClass> {
    let procs = procs.max(1);
    let mut lo = 1;
    let mut out = Vec::new();
    for (class, &bound) in SIZE_CLASS_BOUNDS.iter().enumerate() {
        if lo > procs {
            break;
        }
        out.push(SizeClass {
            class,
            lo,
            hi: bound.min(procs),
        });
        lo = bound.saturating_add(1);
    }
    out
}

/// The index in [`SIZE_CLASS_BOUNDS`] of the class of a job on `size` processors.
pub fn size_class(size: u32) -> usize {
    SIZE_CLASS_BOUNDS
        .iter()
        .position(|&bound| size <= bound)
        .unwrap_or(SIZE_CLASS_BOUNDS.len() - 1)
}

/// About `max` round tick values covering `[lo, hi]` (a step of [`nice_step`]: 1, 2 or 5 ×
/// 10^k, the step every chart's axis format, `form::format::AxisFormat`, labels).
pub fn ticks(lo: f64, hi: f64, max: usize) -> Vec<f64> {
    if hi <= lo || !lo.is_finite() || !hi.is_finite() || max == 0 {
        return Vec::new();
    }
    let step = nice_step((hi - lo) / max as f64);
    let first = libm::ceil(lo / step);
    let last = libm::floor(hi / step);
    if last - first > 1000.0 {
        return Vec::new();
    }
    (0..=(last - first) as i64)
        .map(|k| (first + k as f64) * step)
        .collect()
}
