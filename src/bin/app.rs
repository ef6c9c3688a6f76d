//! Web page entry point (wasm32 only).
fn main() {}
