//! Streaming SWF reader: plain text or gzip (detected by the magic bytes `1f 8b`, decompressed
//! with flate2's pure-Rust `MultiGzDecoder`, so it also builds for wasm32), read in 64 KiB
//! buffers: plain data lines are parsed in place by the byte scanner ([`super::scan`]), every
//! other line is copied into a reused line buffer and read in general, with the same results,
//! line numbers and errors. Natively, gzip input is inflated in the calling thread while a
//! second thread parses (the same chunks, so the same results and errors); on wasm32 both run
//! in one thread.
//!
//! - `;` lines before the first data line form the header
//!   ([`SwfHeader`](super::SwfHeader), parsed loosely); `;` lines after data lines are
//!   comments and ignored; blank lines are ignored.
//! - A data line has exactly 18 whitespace-separated numbers (integers or decimals; `NaN` and
//!   infinities are rejected).
//! - Job semantics: size = allocated processors (field 5) if > 0 else requested processors
//!   (field 8), truncated to an integer; estimate = requested time (field 9) if > 0 else run
//!   time (field 4). Jobs with a negative run time are dropped first (`negative_runtime`), then
//!   jobs whose size is ≤ 0 or truncates to 0 (`nonpositive_size`). The job id is the job
//!   number (field 1), or the 1-based index of the data line when the number is negative.
//! - Jobs are returned sorted stably by submit time (file order among ties).
//!
//! The reader never panics on any input: binary data gives [`SwfErrorKind::NotText`], broken
//! gzip [`SwfErrorKind::Io`], and so on (see [`SwfErrorKind`]). Its memory and work are bounded
//! ([`crate::limits`]): at most `max_bytes` of (decompressed) text are read, so a gzip bomb stops
//! there with [`SwfErrorKind::TooLarge`]; at most `max_jobs` jobs are kept
//! ([`SwfErrorKind::TooManyJobs`]); at most [`MAX_HEADER_BYTES`] of header lines are kept; an
//! overlong line that is not a comment (`/dev/zero`) is refused at once, without reading on to
//! its end.

use std::io::{self, BufRead, BufReader, Read};

use flate2::read::MultiGzDecoder;

use super::error::{SwfError, SwfErrorKind};
use super::header::HeaderBuilder;
use super::record::SwfRecord;
use super::scan;
use crate::limits::{Limits, MAX_HEADER_BYTES};
use crate::workload::{DropCounts, Job, SharedRecord, Workload};

/// How to read a trace.
#[derive(Clone, Debug, Default)]
pub struct ReadOptions {
    /// Name used in error messages (file name).
    pub source: String,
    /// Skip and count malformed lines instead of failing.
    pub lenient: bool,
    /// Refuse inputs larger than this many (decompressed) bytes.
    pub max_bytes: Option<u64>,
    /// Refuse traces with more than this many jobs (kept or dropped).
    pub max_jobs: Option<usize>,
    /// Leave each job's SWF record out, keeping only the values a run uses (id, submit time,
    /// run time, estimate, size): for runs that write no SWF output. [`Job::swf_record`]
    /// rebuilds a record from those values.
    pub lean: bool,
    /// Room made at once for this many jobs (at most `max_jobs`), when the caller knows about
    /// how many the trace keeps: no doubling of the jobs' vector while it is read, so no old
    /// and new copy of it at once. 0: it grows as jobs are read. The jobs are the same either
    /// way.
    pub jobs_hint: usize,
}

impl ReadOptions {
    /// Options for a production reader: `source` in messages, the byte and job limits of
    /// `limits` (every caller outside the tests reads through this).
    pub fn limited(source: &str, lenient: bool, limits: &Limits) -> ReadOptions {
        ReadOptions {
            source: source.to_string(),
            lenient,
            max_bytes: Some(limits.max_inflated_bytes),
            max_jobs: Some(limits.max_trace_jobs),
            lean: false,
            jobs_hint: 0,
        }
    }
}

/// Longest line accepted; a longer data line is not SWF text (a longer comment is truncated).
const MAX_LINE_BYTES: u64 = 1 << 20;

/// Size of the read buffer.
const BUF_BYTES: usize = 64 * 1024;

/// Reads a whole trace from any reader (plain or gzip-compressed SWF).
pub fn read_swf<R: Read>(mut input: R, opts: &ReadOptions) -> Result<Workload, SwfError> {
    let mut magic = [0u8; 2];
    let n = read_prefix(&mut input, &mut magic).map_err(|e| err(opts, 0, io_kind(&e, false)))?;
    let prefix: &[u8] = magic.get(..n).unwrap_or(&[]);
    let chained = prefix.chain(input);
    // Read at most one byte beyond the limit: enough to know the input is too large while
    // bounding memory and decompression work (gzip bombs).
    let take = opts
        .max_bytes
        .map_or(u64::MAX, |limit| limit.saturating_add(1));
    if prefix == [0x1f, 0x8b] {
        let decoder = MultiGzDecoder::new(chained).take(take);
        parse_gzip(decoder, opts)
    } else {
        parse(
            BufReader::with_capacity(BUF_BYTES, chained.take(take)),
            opts,
            false,
        )
    }
}

/// Parses decompressed gzip input: on wasm32 (one thread) through a `BufReader` like plain text.
#[cfg(target_arch = "wasm32")]
fn parse_gzip<R: Read>(decoder: R, opts: &ReadOptions) -> Result<Workload, SwfError> {
    parse(BufReader::with_capacity(BUF_BYTES, decoder), opts, true)
}

/// Parses decompressed gzip input, natively with inflating and parsing overlapped: this thread
/// inflates (the input need not be `Send`) and hands the text over in the reads a
/// `BufReader::with_capacity(BUF_BYTES, …)` would make — `BUF_BYTES` at a time, the same
/// chunks, an error at the same place — to a parsing thread that reads them through
/// [`Chunks`], so results, line numbers and errors are those of the one-thread reading. At most
/// [`CHUNKS_AHEAD`] chunks wait; when the parser stops early (an error, a limit) the inflating
/// stops too. If no thread can be started, the input is read in this thread.
#[cfg(not(target_arch = "wasm32"))]
fn parse_gzip<R: Read>(mut decoder: R, opts: &ReadOptions) -> Result<Workload, SwfError> {
    use std::sync::mpsc::sync_channel;
    let (tx, rx) = sync_channel::<io::Result<Vec<u8>>>(CHUNKS_AHEAD);
    std::thread::scope(|scope| {
        let parser = std::thread::Builder::new()
            .name("swf-parse".into())
            .spawn_scoped(scope, move || parse(Chunks::new(rx), opts, true));
        let Ok(parser) = parser else {
            return parse(BufReader::with_capacity(BUF_BYTES, decoder), opts, true);
        };
        loop {
            let mut chunk = vec![0u8; BUF_BYTES];
            let read = loop {
                match decoder.read(&mut chunk) {
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    other => break other,
                }
            };
            let sent = match read {
                Ok(0) => break, // end of input: the parser sees the channel close
                Ok(n) => {
                    chunk.truncate(n);
                    tx.send(Ok(chunk))
                }
                Err(e) => {
                    let _ = tx.send(Err(e));
                    break;
                }
            };
            if sent.is_err() {
                break; // the parser has stopped
            }
        }
        drop(tx);
        match parser.join() {
            Ok(result) => result,
            Err(panic) => std::panic::resume_unwind(panic),
        }
    })
}

/// Chunks of inflated text that may wait for the parsing thread.
#[cfg(not(target_arch = "wasm32"))]
const CHUNKS_AHEAD: usize = 4;

/// The parsing thread's reader: the inflating thread's chunks, in order, as a `BufRead`; an
/// inflating error is returned where it occurred; the closed channel is the end of input.
#[cfg(not(target_arch = "wasm32"))]
struct Chunks {
    rx: std::sync::mpsc::Receiver<io::Result<Vec<u8>>>,
    chunk: Vec<u8>,
    pos: usize,
}

#[cfg(not(target_arch = "wasm32"))]
impl Chunks {
    fn new(rx: std::sync::mpsc::Receiver<io::Result<Vec<u8>>>) -> Chunks {
        Chunks {
            rx,
            chunk: Vec::new(),
            pos: 0,
        }
    }
}

#[cfg(not(target_arch = "wasm32"))]
impl Read for Chunks {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let avail = self.fill_buf()?;
        let n = avail.len().min(out.len());
        if let (Some(dst), Some(src)) = (out.get_mut(..n), avail.get(..n)) {
            dst.copy_from_slice(src);
        }
        self.consume(n);
        Ok(n)
    }
}

#[cfg(not(target_arch = "wasm32"))]
impl BufRead for Chunks {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.pos >= self.chunk.len() {
            self.pos = 0;
            match self.rx.recv() {
                Ok(Ok(chunk)) => self.chunk = chunk,
                Ok(Err(e)) => {
                    self.chunk.clear();
                    return Err(e);
                }
                Err(_) => self.chunk.clear(), // every chunk received: end of input
            }
        }
        Ok(self.chunk.get(self.pos..).unwrap_or(&[]))
    }

    fn consume(&mut self, n: usize) {
        self.pos = (self.pos + n).min(self.chunk.len());
    }
}

/// Reads a whole trace from bytes in memory.
pub fn read_swf_bytes(bytes: &[u8], opts: &ReadOptions) -> Result<Workload, SwfError> {
    read_swf(bytes, opts)
}

/// Reads up to `buf.len()` bytes, fewer only at end of input.
fn read_prefix<R: Read>(input: &mut R, buf: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        let Some(rest) = buf.get_mut(n..) else { break };
        match input.read(rest) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n.min(buf.len()))
}

fn err(opts: &ReadOptions, line: usize, kind: SwfErrorKind) -> SwfError {
    SwfError {
        source: opts.source.clone(),
        line,
        kind,
    }
}

fn io_kind(e: &io::Error, gzip: bool) -> SwfErrorKind {
    if gzip {
        SwfErrorKind::Io(format!("truncated or corrupt gzip data ({e})"))
    } else {
        SwfErrorKind::Io(e.to_string())
    }
}

/// Discards the rest of the current line; returns the number of bytes skipped.
fn skip_line<B: BufRead>(r: &mut B) -> io::Result<u64> {
    let mut skipped = 0u64;
    loop {
        let buf = match r.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buf.is_empty() {
            return Ok(skipped);
        }
        let (used, done) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (buf.len(), false),
        };
        r.consume(used);
        skipped += used as u64;
        if done {
            return Ok(skipped);
        }
    }
}

/// Turns a record into a job, or says why it is dropped.
enum Outcome {
    Keep(Job),
    NegativeRuntime,
    NonpositiveSize,
}

fn to_job(record: SwfRecord, data_index: u64, lean: bool) -> Outcome {
    if record.run_time < 0.0 {
        return Outcome::NegativeRuntime;
    }
    let size = if record.allocated_procs > 0.0 {
        record.allocated_procs
    } else {
        record.requested_procs
    };
    // `as` truncates toward zero and saturates at u32::MAX.
    let procs = if size > 0.0 { size as u32 } else { 0 };
    if procs == 0 {
        return Outcome::NonpositiveSize;
    }
    let estimate = if record.requested_time > 0.0 {
        record.requested_time
    } else {
        record.run_time
    };
    let id = if record.job_number >= 0.0 {
        record.job_number as u64
    } else {
        data_index
    };
    Outcome::Keep(Job {
        id,
        submit: record.submit_time,
        run_time: record.run_time,
        estimate,
        procs,
        shape: None,
        record: if lean {
            SharedRecord::none()
        } else {
            SharedRecord::new(record)
        },
    })
}

/// What the reading loop has counted and kept so far.
struct State<'a> {
    opts: &'a ReadOptions,
    header: HeaderBuilder,
    jobs: Vec<Job>,
    dropped: DropCounts,
    /// Lines read (the number of the last line).
    line_no: usize,
    total_bytes: u64,
    data_lines: u64,
    good_lines: u64,
    header_bytes: u64,
    max_jobs: u64,
}

impl State<'_> {
    /// Counts `n` more bytes of text, refusing more than `max_bytes`.
    #[inline]
    fn count_bytes(&mut self, n: u64) -> Result<(), SwfError> {
        self.total_bytes += n;
        match self.opts.max_bytes {
            Some(limit) if self.total_bytes > limit => Err(err(
                self.opts,
                0,
                SwfErrorKind::TooLarge { limit_bytes: limit },
            )),
            _ => Ok(()),
        }
    }

    /// Counts a data line, refusing more than `max_jobs`.
    #[inline]
    fn count_data_line(&mut self) -> Result<(), SwfError> {
        self.data_lines += 1;
        if self.data_lines > self.max_jobs {
            return Err(err(
                self.opts,
                self.line_no,
                SwfErrorKind::TooManyJobs {
                    limit: self.opts.max_jobs.unwrap_or(usize::MAX),
                },
            ));
        }
        Ok(())
    }

    /// Keeps or drops the job of a well-formed data line.
    #[inline]
    fn record(&mut self, fields: [f64; 18]) {
        self.good_lines += 1;
        match to_job(
            SwfRecord::from_fields(fields),
            self.data_lines,
            self.opts.lean,
        ) {
            Outcome::Keep(job) => self.jobs.push(job),
            Outcome::NegativeRuntime => self.dropped.negative_runtime += 1,
            Outcome::NonpositiveSize => self.dropped.nonpositive_size += 1,
        }
    }
}

// A buffer's worth of text is always shorter than the longest line, so a line read whole by
// the fast path is never overlong.
const _: () = assert!((BUF_BYTES as u64) < MAX_LINE_BYTES);

/// The reading loop over decompressed text. Plain data lines are read in place from the
/// buffer by [`scan::fast_line`]; every other line (header, comments, blank lines, errors, a
/// line cut by the end of the buffer) by [`general_line`], line for line as before the fast
/// path: the reads of the input, the line numbers and the errors are the same either way.
fn parse<B: BufRead>(mut r: B, opts: &ReadOptions, gzip: bool) -> Result<Workload, SwfError> {
    let mut buf: Vec<u8> = Vec::with_capacity(256);
    let mut st = State {
        opts,
        header: HeaderBuilder::new(),
        jobs: Vec::with_capacity(opts.jobs_hint.min(opts.max_jobs.unwrap_or(usize::MAX))),
        dropped: DropCounts::default(),
        line_no: 0,
        total_bytes: 0,
        data_lines: 0,
        good_lines: 0,
        header_bytes: 0,
        max_jobs: opts.max_jobs.map_or(u64::MAX, crate::limits::as_u64),
    };
    loop {
        // The fast path over what the buffer holds (a read happens only when it is empty,
        // exactly when `read_until` would read for the next line).
        let avail = loop {
            match r.fill_buf() {
                Ok(b) => break b,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(err(opts, st.line_no + 1, io_kind(&e, gzip))),
            }
        };
        if avail.is_empty() {
            break;
        }
        let mut used = 0usize;
        // Line 1 may start with a byte-order mark: the general path reads it.
        if st.line_no > 0 {
            while let Some((fields, len)) = avail.get(used..).and_then(scan::fast_line) {
                if check_ranges(fields).is_err() {
                    break; // the general path reports it (or skips it, lenient)
                }
                used += len;
                st.line_no += 1;
                st.count_bytes(len as u64)?;
                st.count_data_line()?;
                st.record(fields);
            }
        }
        let rest = avail.len() - used;
        r.consume(used);
        if rest > 0 && !general_line(&mut r, &mut buf, &mut st, gzip)? {
            break;
        }
    }
    if st.header.is_empty() && st.data_lines == 0 {
        return Err(err(opts, 0, SwfErrorKind::Empty));
    }
    if st.good_lines == 0 {
        return Err(err(opts, 0, SwfErrorKind::NoJobs));
    }
    let mut workload = Workload::from_jobs(st.header.finish(), st.jobs);
    workload.dropped = st.dropped;
    Ok(workload)
}

/// Refuses a field the simulation uses when it is out of range: submit, run and requested
/// time (fields 2, 4, 9) beyond ±[`crate::limits::MAX_TIME`] seconds, processor counts
/// (fields 5, 8) beyond 2^32 − 1 — values that would otherwise saturate or overflow the
/// metrics to infinity.
fn check_ranges(fields: [f64; 18]) -> Result<[f64; 18], SwfErrorKind> {
    let max_time = crate::limits::MAX_TIME;
    let max_procs = f64::from(u32::MAX);
    for (field, max) in [
        (2, max_time),
        (4, max_time),
        (9, max_time),
        (5, max_procs),
        (8, max_procs),
    ] {
        let value = fields.get(field - 1).copied().unwrap_or(0.0);
        if value.abs() > max {
            return Err(SwfErrorKind::OutOfRange { field, value, max });
        }
    }
    Ok(fields)
}

/// Reads and handles one line in general (a `String`-free copy of the line into `buf`, then
/// header, comment, blank or data line); `false` at the end of the input.
fn general_line<B: BufRead>(
    r: &mut B,
    buf: &mut Vec<u8>,
    st: &mut State<'_>,
    gzip: bool,
) -> Result<bool, SwfError> {
    let opts = st.opts;
    buf.clear();
    let n = r
        .take(MAX_LINE_BYTES)
        .read_until(b'\n', buf)
        .map_err(|e| err(opts, st.line_no + 1, io_kind(&e, gzip)))?;
    if n == 0 {
        return Ok(false);
    }
    st.line_no += 1;
    let line_no = st.line_no;
    let overlong = n as u64 >= MAX_LINE_BYTES && buf.last() != Some(&b'\n');
    let mut skipped = 0u64;
    if overlong {
        // Only a comment may be that long (and is cut); anything else is not SWF text,
        // refused here rather than read on to a line end that may never come (/dev/zero).
        let comment = buf.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b';');
        if !comment {
            return Err(err(opts, line_no, SwfErrorKind::NotText));
        }
        skipped = skip_line(r).map_err(|e| err(opts, line_no, io_kind(&e, gzip)))?;
    }
    st.count_bytes(n as u64 + skipped)?;
    let mut bytes: &[u8] = buf;
    if line_no == 1 {
        bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    }
    let Some(start) = bytes.iter().position(|b| !b.is_ascii_whitespace()) else {
        return Ok(true); // blank line
    };
    let rest = bytes.get(start..).unwrap_or(&[]);
    if let Some(comment) = rest.strip_prefix(b";") {
        // Comments may carry Latin-1 text (decoded lossily below), but never NUL bytes.
        if comment.contains(&0) {
            return Err(err(opts, line_no, SwfErrorKind::NotText));
        }
        if st.data_lines > 0 {
            return Ok(true); // a comment after data lines: not part of the header
        }
        st.header_bytes += n as u64;
        if st.header_bytes > MAX_HEADER_BYTES {
            return Ok(true); // read, not kept: real headers are a few kB
        }
        let comment = comment.strip_suffix(b"\n").unwrap_or(comment);
        let comment = comment.strip_suffix(b"\r").unwrap_or(comment);
        st.header.push_line(&String::from_utf8_lossy(comment));
        return Ok(true);
    }
    // Binary data: NUL bytes or invalid UTF-8 on a data line.
    let text = match std::str::from_utf8(rest) {
        Ok(t) if !rest.contains(&0) => t,
        _ => return Err(err(opts, line_no, SwfErrorKind::NotText)),
    };
    st.count_data_line()?;
    match scan::parse_fields(text).and_then(check_ranges) {
        Ok(fields) => st.record(fields),
        Err(_) if opts.lenient => st.dropped.malformed_lines += 1,
        Err(kind) => return Err(err(opts, line_no, kind)),
    }
    Ok(true)
}
