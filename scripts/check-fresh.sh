#!/usr/bin/env bash
# Proves that scripts/lib.sh installs every cargo tool on a fresh machine: each tool is
# installed by the same function scripts/test.sh uses (install_wasm_bindgen, install_trunk),
# into its own temporary CARGO_HOME and CARGO_INSTALL_ROOT — no registry cache, no binary
# already on PATH — and the installed binary must report the pinned version. Prints one line
# per tool (ok / FAILED, seconds) and exits non-zero if any failed; a failed tool's log is
# kept and its path printed.
#
# Not part of CI: it compiles both tools from source (about 10 minutes on 2 cores).
# Usage: bash scripts/check-fresh.sh [wasm-bindgen-cli] [trunk]   (default: both)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/lib.sh
source scripts/lib.sh

command -v cargo >/dev/null 2>&1 || die "cargo not found: install Rust with rustup (https://rustup.rs)"
[ "$#" -gt 0 ] || set -- wasm-bindgen-cli trunk

status=0
results=()
for tool in "$@"; do
  case "$tool" in
    wasm-bindgen-cli) install=install_wasm_bindgen bin=wasm-bindgen want=$WASM_BINDGEN_WANT ;;
    trunk) install=install_trunk bin=trunk want=$TRUNK_WANT ;;
    *) die "unknown tool $tool (expected wasm-bindgen-cli or trunk)" ;;
  esac
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/check-fresh-$tool.XXXXXX")
  log="$tmp/install.log"
  echo "installing $tool into $tmp (log: $log)"
  t0=$SECONDS
  outcome=FAILED
  if (
    export CARGO_HOME="$tmp/cargo-home" CARGO_INSTALL_ROOT="$tmp/root"
    unset CARGO_TARGET_DIR
    "$install"
  ) >"$log" 2>&1; then
    have=$("$tmp/root/bin/$bin" --version 2>/dev/null || true)
    if [ "$have" = "$want" ]; then
      outcome=ok
    else
      echo "$tool: installed, but reports '${have:-nothing}', want '$want'" | tee -a "$log"
    fi
  fi
  seconds=$((SECONDS - t0))
  results+=("$(printf '%-18s %-7s %5ss' "$tool" "$outcome" "$seconds")")
  if [ "$outcome" = ok ]; then
    rm -rf "$tmp"
  else
    status=1
    echo "$tool failed; last lines of $log:"
    tail -n 20 "$log" || true
  fi
done

printf '\n==== fresh installs ====\n'
printf '%s\n' "${results[@]}"
exit "$status"
