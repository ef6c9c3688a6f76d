//! Errors of the SWF reader: every one names the source, the line and, where it applies, the field.

use std::fmt;

/// What went wrong.
#[derive(Clone, Debug, PartialEq)]
pub enum SwfErrorKind {
    /// The input could not be read (I/O error, truncated or corrupt gzip).
    Io(String),
    /// The input is empty (no header, no job).
    Empty,
    /// The input has a header but no job line.
    NoJobs,
    /// A data line does not have 18 fields.
    FieldCount { found: usize },
    /// A field is not a number.
    NotANumber { field: usize, text: String },
    /// The input is not text (binary data that is not gzip).
    NotText,
    /// The input is larger than the configured limit.
    TooLarge { limit_bytes: u64 },
    /// The input has more job lines than the configured limit.
    TooManyJobs { limit: usize },
    /// A field the simulation uses is a number outside its range (a time beyond
    /// [`crate::limits::MAX_TIME`] seconds, a processor count beyond 2^32 − 1).
    OutOfRange { field: usize, value: f64, max: f64 },
}

/// An SWF reading error.
#[derive(Clone, Debug, PartialEq)]
pub struct SwfError {
    /// File name or other source label.
    pub source: String,
    /// 1-based line number, 0 when the error is not tied to a line.
    pub line: usize,
    pub kind: SwfErrorKind,
}

impl fmt::Display for SwfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use super::record::FIELD_NAMES;
        let at = if self.line > 0 {
            format!("{}:{}", self.source, self.line)
        } else {
            self.source.clone()
        };
        match &self.kind {
            SwfErrorKind::Io(m) => write!(f, "{at}: cannot read input: {m}"),
            SwfErrorKind::Empty => write!(f, "{at}: empty file (no header and no job lines)"),
            SwfErrorKind::NoJobs => write!(f, "{at}: no job lines (header only)"),
            SwfErrorKind::FieldCount { found } => {
                write!(f, "{at}: expected 18 fields, found {found}")
            }
            SwfErrorKind::NotANumber { field, text } => {
                let name = FIELD_NAMES
                    .get(field.wrapping_sub(1))
                    .copied()
                    .unwrap_or("?");
                write!(
                    f,
                    "{at}: field {field} ({name}) is not a number: {}",
                    crate::limits::echo_quoted(text)
                )
            }
            SwfErrorKind::OutOfRange { field, value, max } => {
                let name = FIELD_NAMES
                    .get(field.wrapping_sub(1))
                    .copied()
                    .unwrap_or("?");
                let echo = crate::limits::echo_number;
                write!(
                    f,
                    "{at}: field {field} ({name}) is out of range: {} (the largest accepted \
                     is {}{})",
                    echo(*value),
                    echo(*max),
                    if *field == 5 || *field == 8 {
                        " processors"
                    } else {
                        " seconds, in magnitude"
                    }
                )
            }
            SwfErrorKind::NotText => write!(f, "{at}: not an SWF file (binary data)"),
            SwfErrorKind::TooLarge { limit_bytes } => write!(
                f,
                "{at}: input larger than the limit max_inflated_bytes = {limit_bytes} bytes \
                 (after gzip decompression; the command line can raise it with \
                 --max-inflated-bytes)"
            ),
            SwfErrorKind::TooManyJobs { limit } => write!(
                f,
                "{at}: more job lines than the limit max_trace_jobs = {limit} (the command \
                 line can raise it with --max-trace-jobs)"
            ),
        }
    }
}

impl std::error::Error for SwfError {}
