//! Uploads: a trace file is checked against [`MAX_TRACE_BYTES`] ([`check_upload`]) and posted
//! to the worker as the browser's `File` (a handle: the page never reads a trace's bytes, the
//! worker does); other files (a sweep's results) are read into memory asynchronously
//! ([`read_upload`]), the page told the bytes or why they could not be read.

use js_sys::Uint8Array;
use wasm_bindgen_futures::JsFuture;
use web_sys::{Blob, File, HtmlInputElement};

use super::super::protocol::TraceInfo;
use super::super::worker_link::js_message;

/// A trace the worker accepted, its file kept by the tab (a handle on the browser's copy, not
/// its bytes) to send again to a replacement worker.
pub struct LoadedTrace {
    pub info: TraceInfo,
    pub file: Blob,
}

impl LoadedTrace {
    /// Its name and file, to post again.
    pub fn resend(&self) -> (String, Blob) {
        (self.info.name.clone(), self.file.clone())
    }
}

/// `file` as a trace upload: `Err(`[`UploadError::TooLarge`]`)` above [`MAX_TRACE_BYTES`],
/// else the file to post to the worker, which reads it.
pub fn check_upload(file: File) -> Result<Blob, UploadError> {
    let size = file.size();
    if size > MAX_TRACE_BYTES {
        return Err(UploadError::TooLarge(size));
    }
    Ok(file.into())
}

/// Largest trace file the page reads into memory.
pub const MAX_TRACE_BYTES: f64 = crate::limits::MAX_UPLOAD_BYTES as f64;

/// Why an upload was not read.
pub enum UploadError {
    /// Larger than [`MAX_TRACE_BYTES`] (its size in bytes).
    TooLarge(f64),
    /// The browser could not read it (the exception's message).
    Unreadable(String),
}

impl UploadError {
    /// What the page says of the file `name`: too large for the browser (with the limit and
    /// `cli`, the command that reads it instead), or unreadable (the browser's reason).
    pub fn message(&self, name: &str, cli: &str) -> String {
        use crate::form::format;
        match self {
            UploadError::TooLarge(size) => format!(
                "{name}: the file is too large for the browser ({}, limit {}); use `{cli}` on \
                 the command line.",
                format::bytes(*size as usize),
                format::bytes(MAX_TRACE_BYTES as usize)
            ),
            UploadError::Unreadable(m) => unreadable_message(name, m),
        }
    }
}

/// What is said of the file `name` the browser could not read (`why`: its reason); the worker
/// says it of a trace upload it cannot read.
pub fn unreadable_message(name: &str, why: &str) -> String {
    format!("{name}: cannot read the file: {why}")
}

/// Reads `file` and calls `done` with its bytes or the reason they could not be read. Returns
/// whether reading started (`false`: `done` was already called with [`UploadError::TooLarge`]).
pub fn read_upload(
    file: File,
    done: impl FnOnce(Result<Uint8Array, UploadError>) + 'static,
) -> bool {
    let size = file.size();
    if size > MAX_TRACE_BYTES {
        done(Err(UploadError::TooLarge(size)));
        return false;
    }
    wasm_bindgen_futures::spawn_local(async move {
        match JsFuture::from(file.array_buffer()).await {
            Ok(buf) => done(Ok(Uint8Array::new(&buf))),
            Err(e) => done(Err(UploadError::Unreadable(js_message(&e)))),
        }
    });
    true
}

/// Calls `chosen` with each file picked in the file input `input`; the input is emptied after,
/// so that choosing the same file again fires `change` again.
pub fn on_file_chosen(input: &HtmlInputElement, chosen: impl Fn(File) + 'static) {
    let el = input.clone();
    super::super::dom::listen(input.as_ref(), "change", move |_: web_sys::Event| {
        if let Some(file) = el.files().and_then(|f| f.get(0)) {
            chosen(file);
        }
        el.set_value("");
    });
}
