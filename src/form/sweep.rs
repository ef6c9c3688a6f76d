//! The flat mode's load-factor sweep: `from`, `from + step`, …, up to `to` (inclusive). Share
//! links carry it ([`crate::share::Sweep`], defined with the `#x=` envelope); the flat form
//! ([`super::flat`]) expands it into its load factors, an error naming the input at fault.

pub use crate::share::{Sweep, SweepError, MAX_SWEEP_POINTS};

use super::FieldError;

impl From<SweepError> for FieldError {
    fn from(e: SweepError) -> FieldError {
        FieldError::new(e.field, e.message)
    }
}
