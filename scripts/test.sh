#!/usr/bin/env bash
# THE test command: formatting, lints (native and wasm32), native tests, wasm tests in
# headless Chromium, the release web build, and the end-to-end test of the web app.
# Installs missing tools first (see scripts/lib.sh). Usage: bash scripts/test.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/lib.sh
source scripts/lib.sh

section "Tools"
ensure_rust
ensure_wasm_bindgen
ensure_trunk
ensure_wasm_opt
ensure_chromium
ensure_python3
ensure_parallel
ensure_slurm
ensure_e2e_deps
echo "$(cargo --version); $(wasm-bindgen --version); $(trunk --version); node $(node --version)"
echo "$(parallel --version | head -1); $(/usr/sbin/slurmd -V)"
"$CHROMIUM_BIN" --version 2>/dev/null || true

section "cargo fmt --check"
cargo fmt --check

section "cargo clippy --all-targets (native)"
cargo clippy --all-targets -- -D warnings

section "cargo clippy (wasm32: the library, the app's binaries, tests/web)"
# The unit tests and tests/it run natively only (tests/it is cfg'd out on wasm32), so the
# native pass above lints them; checking them again for wasm32 took about 18 s.
cargo clippy --target wasm32-unknown-unknown --lib --bins --test web -- -D warnings

section "cargo test (native)"
cargo test
# The end-to-end test compares the web app with this binary.
cargo build --bin schedlab

section "wasm tests in headless Chromium"
# Every wasm-bindgen test is one binary, tests/web/ (ARCHITECTURE.md).
[ -f tests/web/main.rs ] || die "tests/web/main.rs not found"
CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner \
  CHROMEDRIVER="$CHROMEDRIVER_BIN" \
  WASM_BINDGEN_USE_BROWSER=1 \
  WASM_BINDGEN_TEST_WEBDRIVER_JSON=tests/webdriver.json \
  WASM_BINDGEN_TEST_TIMEOUT=300 \
  cargo test --target wasm32-unknown-unknown --test web

section "trunk build --release"
trunk build --release
ls -l dist/*.wasm

section "end-to-end tests (headless Chromium)"
# Every suite in tests/e2e/, two at a time (each has its own browser, server and temporary
# files; their checks on task lengths read CPU time, which another suite's load leaves
# alone): run.mjs (flat machine, uploads, share links) first, then the others by name.
# Each suite's output is printed whole, in that order, as it ends.
e2e_log=$(mktemp)
trap 'rm -f "$e2e_log"' EXIT
status=0
{ echo tests/e2e/run.mjs; ls tests/e2e/*.mjs | grep -v -e '/run.mjs$' -e '/harness.mjs$' | sort; } \
  | SCHEDLAB_BIN="${CARGO_TARGET_DIR:-target}/debug/schedlab" \
    parallel --will-cite --jobs 2 --keep-order --group --halt never node {} 2>&1 | tee "$e2e_log" || status=$?

print_timings
# The tallies of every suite, then every failed check: the end of the log is what a CI
# summary shows.
grep -E '^[a-z0-9-]+: [0-9]+ passed, [0-9]+ failed' "$e2e_log" || true
grep -E '^\[[a-z0-9-]+ +[0-9.]+s\] FAIL ' "$e2e_log" || true
exit "$status"
