//! Every wasm-bindgen test in one binary, run in headless Chromium by scripts/test.sh: the
//! worker, the pages' pure parts and the golden run, as the browser executes them.
#![cfg(target_arch = "wasm32")]

wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

mod web_determinism;
mod web_exercise;
mod web_golden;
mod web_grid;
mod web_mesh;
mod web_moldable;
