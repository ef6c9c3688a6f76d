//! The simulation Web Worker (wasm32 only; built by Trunk from `index.html`). See
//! `schedlab::web::worker`.

#[cfg(target_arch = "wasm32")]
fn main() {
    schedlab::web::worker::start();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {}
