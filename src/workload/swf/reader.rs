//! Streaming SWF reader: plain text or gzip (detected by the magic bytes `1f 8b`, decompressed
//! with flate2's pure-Rust `MultiGzDecoder`, so it also builds for wasm32), read line by line
//! into a reused buffer.
//!
//! - `;` lines before the first data line form the header
//!   ([`SwfHeader`](super::SwfHeader), parsed loosely); `;` lines after data lines are
//!   comments and ignored; blank lines are ignored.
//! - A data line has exactly 18 whitespace-separated numbers (integers or decimals; `NaN` and
//!   infinities are rejected). The fields the simulation uses must be in range: submit, run
//!   and requested time (fields 2, 4, 9) within ±[`crate::limits::MAX_TIME`] seconds,
//!   processor counts (fields 5, 8) at most 2^32 − 1 ([`SwfErrorKind::OutOfRange`]; skipped as
//!   malformed when lenient), so that no time overflows and no count saturates.
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
use crate::limits::{Limits, MAX_HEADER_BYTES};
use crate::workload::{DropCounts, Job, Workload};

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
        parse(BufReader::with_capacity(BUF_BYTES, decoder), opts, true)
    } else {
        parse(
            BufReader::with_capacity(BUF_BYTES, chained.take(take)),
            opts,
            false,
        )
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

/// Parses the 18 fields of a data line.
fn parse_fields(line: &str) -> Result<[f64; 18], SwfErrorKind> {
    let mut fields = [0.0f64; 18];
    let mut found = 0usize;
    let mut bad: Option<(usize, &str)> = None;
    for token in line.split_ascii_whitespace() {
        if let Some(slot) = fields.get_mut(found) {
            match parse_number(token) {
                Some(v) => *slot = v,
                None => {
                    if bad.is_none() {
                        bad = Some((found + 1, token));
                    }
                }
            }
        }
        found += 1;
    }
    if found != 18 {
        return Err(SwfErrorKind::FieldCount { found });
    }
    match bad {
        Some((field, text)) => Err(SwfErrorKind::NotANumber {
            field,
            text: text.to_string(),
        }),
        None => Ok(fields),
    }
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

/// A finite number: fast path for plain integers, `str::parse::<f64>` otherwise; `NaN`,
/// infinities and values overflowing to infinity are rejected.
fn parse_number(token: &str) -> Option<f64> {
    let bytes = token.as_bytes();
    let (negative, digits) = match bytes.first() {
        Some(b'-') => (true, bytes.get(1..).unwrap_or(&[])),
        _ => (false, bytes),
    };
    // Up to 15 digits are exact in both i64 and f64.
    if !digits.is_empty() && digits.len() <= 15 && digits.iter().all(u8::is_ascii_digit) {
        let mut n: i64 = 0;
        for &d in digits {
            n = n * 10 + i64::from(d - b'0');
        }
        let v = n as f64;
        return Some(if negative { -v } else { v });
    }
    match token.parse::<f64>() {
        Ok(v) if v.is_finite() => Some(v),
        _ => None,
    }
}

/// Turns a record into a job, or says why it is dropped.
enum Outcome {
    Keep(Job),
    NegativeRuntime,
    NonpositiveSize,
}

fn to_job(record: SwfRecord, data_index: u64) -> Outcome {
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
        record: std::sync::Arc::new(record),
    })
}

/// The reading loop over decompressed text.
fn parse<B: BufRead>(mut r: B, opts: &ReadOptions, gzip: bool) -> Result<Workload, SwfError> {
    let mut buf: Vec<u8> = Vec::with_capacity(256);
    let mut header = HeaderBuilder::new();
    let mut jobs: Vec<Job> = Vec::new();
    let mut dropped = DropCounts::default();
    let mut line_no = 0usize;
    let mut total_bytes = 0u64;
    let mut data_lines = 0u64;
    let mut good_lines = 0u64;
    let mut header_bytes = 0u64;
    let max_jobs = opts.max_jobs.map_or(u64::MAX, crate::limits::as_u64);
    loop {
        buf.clear();
        let n = (&mut r)
            .take(MAX_LINE_BYTES)
            .read_until(b'\n', &mut buf)
            .map_err(|e| err(opts, line_no + 1, io_kind(&e, gzip)))?;
        if n == 0 {
            break;
        }
        line_no += 1;
        total_bytes += n as u64;
        let overlong = n as u64 >= MAX_LINE_BYTES && buf.last() != Some(&b'\n');
        if overlong {
            // Only a comment may be that long (and is cut); anything else is not SWF text,
            // refused here rather than read on to a line end that may never come (/dev/zero).
            let comment = buf.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b';');
            if !comment {
                return Err(err(opts, line_no, SwfErrorKind::NotText));
            }
            total_bytes += skip_line(&mut r).map_err(|e| err(opts, line_no, io_kind(&e, gzip)))?;
        }
        if let Some(limit) = opts.max_bytes {
            if total_bytes > limit {
                return Err(err(opts, 0, SwfErrorKind::TooLarge { limit_bytes: limit }));
            }
        }
        let mut bytes: &[u8] = &buf;
        if line_no == 1 {
            bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        }
        let Some(start) = bytes.iter().position(|b| !b.is_ascii_whitespace()) else {
            continue; // blank line
        };
        let rest = bytes.get(start..).unwrap_or(&[]);
        if let Some(comment) = rest.strip_prefix(b";") {
            // Comments may carry Latin-1 text (decoded lossily below), but never NUL bytes.
            if comment.contains(&0) {
                return Err(err(opts, line_no, SwfErrorKind::NotText));
            }
            if data_lines > 0 {
                continue; // a comment after data lines: not part of the header
            }
            header_bytes += n as u64;
            if header_bytes > MAX_HEADER_BYTES {
                continue; // read, not kept: real headers are a few kB
            }
            let comment = comment.strip_suffix(b"\n").unwrap_or(comment);
            let comment = comment.strip_suffix(b"\r").unwrap_or(comment);
            header.push_line(&String::from_utf8_lossy(comment));
            continue;
        }
        // Binary data: NUL bytes or invalid UTF-8 on a data line.
        let text = match std::str::from_utf8(rest) {
            Ok(t) if !rest.contains(&0) => t,
            _ => return Err(err(opts, line_no, SwfErrorKind::NotText)),
        };
        data_lines += 1;
        if data_lines > max_jobs {
            return Err(err(
                opts,
                line_no,
                SwfErrorKind::TooManyJobs {
                    limit: opts.max_jobs.unwrap_or(usize::MAX),
                },
            ));
        }
        let fields = match parse_fields(text).and_then(check_ranges) {
            Ok(f) => f,
            Err(_) if opts.lenient => {
                dropped.malformed_lines += 1;
                continue;
            }
            Err(kind) => return Err(err(opts, line_no, kind)),
        };
        good_lines += 1;
        match to_job(SwfRecord::from_fields(fields), data_lines) {
            Outcome::Keep(job) => jobs.push(job),
            Outcome::NegativeRuntime => dropped.negative_runtime += 1,
            Outcome::NonpositiveSize => dropped.nonpositive_size += 1,
        }
    }
    if header.is_empty() && data_lines == 0 {
        return Err(err(opts, 0, SwfErrorKind::Empty));
    }
    if good_lines == 0 {
        return Err(err(opts, 0, SwfErrorKind::NoJobs));
    }
    let mut workload = Workload::from_jobs(header.finish(), jobs);
    workload.dropped = dropped;
    Ok(workload)
}
