//! The web page (wasm32 only; built by Trunk from `index.html`). See `schedlab::web::app`.

#[cfg(target_arch = "wasm32")]
fn main() {
    schedlab::web::app::start();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {}
