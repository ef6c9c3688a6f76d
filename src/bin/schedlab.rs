//! The native `schedlab` command-line interface (see `schedlab --help`).

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    std::process::exit(schedlab::cli::main_with_args(std::env::args_os()));
}

#[cfg(target_arch = "wasm32")]
fn main() {}
