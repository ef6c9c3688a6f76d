//! STUB
pub struct EventQueue;
