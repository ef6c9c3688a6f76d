#!/usr/bin/env bash
# Builds the web app (trunk build --release) and serves dist/ on http://127.0.0.1:$PORT/
# (default 8080). Installs missing tools first (see scripts/lib.sh). Stop with Ctrl-C.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/lib.sh
source scripts/lib.sh

PORT="${PORT:-8080}"

section "Tools"
ensure_rust
ensure_wasm_bindgen
ensure_trunk
ensure_wasm_opt
ensure_python3

section "trunk build --release"
trunk build --release

section "Serving dist/"
echo "schedlab is at http://127.0.0.1:$PORT/ (Ctrl-C to stop)"
exec python3 -m http.server "$PORT" --bind 127.0.0.1 --directory dist
