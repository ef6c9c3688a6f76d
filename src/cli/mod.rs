//! STUB: being implemented.
