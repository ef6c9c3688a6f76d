//! The native `schedlab` command-line interface.
fn main() {}
