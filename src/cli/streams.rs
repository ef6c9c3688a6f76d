//! The CLI's files and standard streams, none of which may crash the process: experiment
//! files are read up to [`MAX_DOCUMENT_BYTES`] (so `/dev/zero` or `/dev/urandom` is refused,
//! not read forever), traces are opened with their path in every message, and output to a
//! closed pipe (`| head -c1`) or a full device (`>/dev/full`) becomes [`Error::ClosedPipe`]
//! or an [`Error::Io`] naming the stream instead of a panic. Implements no paper section
//! (ARCHITECTURE.md, invariant 3: bad input never crashes).

use std::fs::File;
use std::io::{BufReader, Read, Write};
use std::path::Path;

use crate::error::Error;
use crate::limits::{self, MAX_DOCUMENT_BYTES};
use crate::modes::flat::run::TraceInput;

/// An I/O error on `path`.
pub fn io_err(path: &Path, e: impl std::fmt::Display) -> Error {
    Error::Io {
        path: path.display().to_string(),
        message: e.to_string(),
    }
}

/// Reads a JSON document (an experiment file) of at most [`MAX_DOCUMENT_BYTES`] bytes.
pub fn read_document(path: &Path) -> Result<String, Error> {
    let f = File::open(path).map_err(|e| io_err(path, e))?;
    let mut bytes = Vec::new();
    f.take(MAX_DOCUMENT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| io_err(path, e))?;
    if limits::as_u64(bytes.len()) > MAX_DOCUMENT_BYTES {
        return Err(io_err(
            path,
            format!(
                "not an experiment file: larger than the limit max_document_bytes = \
                 {MAX_DOCUMENT_BYTES} bytes"
            ),
        ));
    }
    String::from_utf8(bytes).map_err(|e| {
        io_err(
            path,
            format!("not an experiment file: not UTF-8 text ({e})"),
        )
    })
}

/// Opens a trace file for the reader (which bounds what it reads, see
/// [`crate::workload::swf::ReadOptions::limited`]).
pub fn open_trace(path: &Path) -> Result<TraceInput<'static>, Error> {
    let f = File::open(path).map_err(|e| io_err(path, e))?;
    Ok(TraceInput {
        name: path.display().to_string(),
        reader: Box::new(BufReader::new(f)),
        cache: None,
        jobs_hint: 0,
    })
}

/// Writes `text` to stdout and flushes it.
pub fn emit(text: &str) -> Result<(), Error> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(|e| Error::output("stdout", &e))
}

/// Writes each of `rows` as one line of JSON to stdout (the `--json` output of every
/// reproduction).
pub fn emit_json_lines<T: serde::Serialize>(
    rows: impl IntoIterator<Item = T>,
) -> Result<(), Error> {
    let mut text = String::new();
    for r in rows {
        let line = serde_json::to_string(&r).map_err(|e| Error::Io {
            path: "stdout".into(),
            message: e.to_string(),
        })?;
        text.push_str(&line);
        text.push('\n');
    }
    emit(&text)
}

/// Writes `text` and a line break to stdout.
pub fn emit_line(text: &str) -> Result<(), Error> {
    emit(&format!("{text}\n"))
}

/// Writes a line to stderr; a stderr that cannot be written (`2>/dev/full`) is ignored, as
/// there is nowhere left to report it.
pub fn warn(text: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{text}");
}

/// Runs a command so that a `println!` / `eprintln!` failing in it — subcommands that still
/// print directly (`bench*`, `reproduce`) on a closed pipe or a full device — ends it with
/// [`Error::ClosedPipe`] or an [`Error::Io`] naming the stream instead of a panic. Any other
/// panic is a bug and unwinds as before.
pub fn guard_prints(command: impl FnOnce() -> Result<(), Error>) -> Result<(), Error> {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if print_failure(info.payload()).is_none() {
            previous(info);
        }
    }));
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(command)) {
        Ok(r) => r,
        Err(payload) => match print_failure(payload.as_ref()) {
            Some(e) => Err(e),
            None => std::panic::resume_unwind(payload),
        },
    }
}

/// The error of a panic raised by a failed `println!` / `eprintln!`, `None` for any other.
fn print_failure(payload: &(dyn std::any::Any + Send)) -> Option<Error> {
    let message = payload
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| payload.downcast_ref::<&str>().copied())?;
    let rest = message.strip_prefix("failed printing to ")?;
    let (stream, why) = rest.split_once(": ")?;
    if why.starts_with("Broken pipe") {
        return Some(Error::ClosedPipe);
    }
    Some(Error::Io {
        path: stream.to_string(),
        message: format!("cannot write: {why}"),
    })
}
