//! SWF writer: the header (each line as `;` + line, or canonical lines rendered from the parsed
//! fields when `lines` is empty), then one line per record with its 18 fields separated by
//! single spaces.
//!
//! Numbers are written so that the reader gets the same `f64` back bit for bit: integral values
//! as integers (`-1`, `3600`, `-0` for negative zero), others with Rust's shortest round-trip
//! formatting (`{}`, or `{:e}` for very large or very small magnitudes). Non-finite values,
//! which SWF cannot express, are written as `-1` (unknown).

use std::borrow::Borrow;
use std::fmt::Write as _;
use std::io::Write;

use super::{SwfHeader, SwfRecord};

/// Appends one field value to `out`.
fn push_number(out: &mut String, v: f64) {
    if !v.is_finite() {
        out.push_str("-1");
    } else if v == 0.0 {
        out.push_str(if v.is_sign_negative() { "-0" } else { "0" });
    } else if v.fract() == 0.0 && v.abs() < 1e15 {
        // Exact: |v| < 2^53.
        let _ = write!(out, "{}", v as i64);
    } else if v.abs() >= 1e15 || v.abs() < 1e-5 {
        let _ = write!(out, "{v:e}");
    } else {
        let _ = write!(out, "{v}");
    }
}

/// Writes header and records as SWF. Writes one line at a time: wrap files in a
/// `std::io::BufWriter`.
pub fn write_swf<W: Write, R: Borrow<SwfRecord>>(
    out: &mut W,
    header: &SwfHeader,
    records: impl IntoIterator<Item = R>,
) -> std::io::Result<()> {
    let mut text = String::with_capacity(256);
    let generated;
    let lines: &[String] = if header.lines.is_empty() {
        generated = header.to_lines();
        &generated
    } else {
        &header.lines
    };
    for line in lines {
        // A line holding line breaks (built in code) becomes several comment lines.
        for part in line.split('\n') {
            text.clear();
            text.push(';');
            text.push_str(part.strip_suffix('\r').unwrap_or(part));
            text.push('\n');
            out.write_all(text.as_bytes())?;
        }
    }
    for r in records {
        text.clear();
        for (i, v) in r.borrow().fields().into_iter().enumerate() {
            if i > 0 {
                text.push(' ');
            }
            push_number(&mut text, v);
        }
        text.push('\n');
        out.write_all(text.as_bytes())?;
    }
    out.flush()
}

/// Writes header and records (a slice, or records made one at a time) as an SWF string.
pub fn write_swf_string<R: Borrow<SwfRecord>>(
    header: &SwfHeader,
    records: impl IntoIterator<Item = R>,
) -> String {
    let mut v = Vec::new();
    let _ = write_swf(&mut v, header, records);
    // Numbers and the header's lines: valid UTF-8, kept without a copy.
    String::from_utf8(v).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}
