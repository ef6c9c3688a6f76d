//! Web worker entry point (wasm32 only).
fn main() {}
