//! The pure step of each web-app mode: the plain field values read from a form (text as
//! typed, boxes ticked) → the mode's experiment(s), or a [`FieldError`] naming the field (the
//! id of its element in `index.html`) and the message the page shows. No web dependency, so
//! it is tested natively (`tests/it/form.rs`); the pages in [`crate::web`] (wasm32 only) read
//! their inputs, call these functions and show the result or the error.
//!
//! * [`flat`] — the flat-machine form: one experiment per (load factor, policy).
//! * [`mesh`] — the 2D-mesh form: one experiment per allocator.
//! * [`grid`] — the grid site editor: one grid experiment.
//! * [`moldable`] — the moldable form: one experiment, the strategies it compares.
//! * [`sweep`] — the flat mode's load-factor sweep.
//! * [`format`] — locale-free number formatting shared by messages and the pages.

pub mod flat;
pub mod format;
pub mod grid;
pub mod mesh;
pub mod moldable;
pub mod sweep;

use std::fmt;
use std::str::FromStr;

/// Largest synthetic workload a form accepts.
pub const MAX_JOBS: usize = crate::limits::MAX_JOBS;
/// Largest machine a form accepts.
pub const MAX_PROCS: u32 = 1 << 20;

/// What a page knows of an uploaded trace, as the forms need it.
#[derive(Clone, Debug, Default)]
pub struct TraceFacts {
    /// File name, as uploaded.
    pub name: String,
    /// Lower-case hex SHA-256 of the file.
    pub sha256: String,
    /// Largest job, in processors.
    pub max_job_procs: u32,
    /// Machine size of the header, if any.
    pub header_procs: Option<u64>,
}

impl TraceFacts {
    /// The workload that reads this upload, by name and SHA-256 (`lenient`: skip malformed
    /// lines).
    pub fn workload(&self, lenient: bool) -> crate::modes::flat::spec::WorkloadSpec {
        crate::modes::flat::spec::WorkloadSpec::Swf(crate::modes::flat::spec::SwfSource {
            path: None,
            name: Some(self.name.clone()),
            sha256: Some(self.sha256.clone()),
            lenient,
        })
    }
}

/// A form value the page refuses: the id of the field's element (to mark it) and the message
/// shown to the user (which names the field).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldError {
    /// Id of the offending input in `index.html` (or of the form, when no single input is at
    /// fault).
    pub field: String,
    /// What is wrong, as shown.
    pub message: String,
}

impl FieldError {
    /// An error of field `field`.
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> FieldError {
        FieldError {
            field: field.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for FieldError {}

/// `text` read as a number after dropping digit separators (`10,000`, `10_000`, `10 000`);
/// the error names the field as `what` and quotes the text as typed.
pub fn lenient_number<T: FromStr>(field: &str, text: &str, what: &str) -> Result<T, FieldError> {
    text.trim()
        .replace([',', '_', ' '], "")
        .parse::<T>()
        .map_err(|_| {
            FieldError::new(
                field,
                format!(
                    "{what}: {} is not a valid value.",
                    crate::limits::echo_quoted(text)
                ),
            )
        })
}

/// `text` (trimmed) read as a number; the error reads `{label}: enter {what} (got "…").`.
pub fn number<T: FromStr>(
    field: &str,
    text: &str,
    label: &str,
    what: &str,
) -> Result<T, FieldError> {
    let v = text.trim();
    v.parse::<T>()
        .map_err(|_| FieldError::new(field, format!("{label}: enter {what} (got {v:?}).")))
}
