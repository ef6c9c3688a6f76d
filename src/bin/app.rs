//! The web page (wasm32 only; built by Trunk from `index.html`). See `schedlab::web::page`.

#[cfg(target_arch = "wasm32")]
fn main() {
    schedlab::web::page::start();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {}
