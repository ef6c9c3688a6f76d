# Helpers shared by scripts/test.sh and scripts/serve.sh (source it; do not run it).
# Every `ensure_*` function installs a missing tool and does nothing when it is present, so
# the scripts can run on a fresh machine (Debian, as root, in CI) and again and again.
# Nothing here downloads a prebuilt binary: Rust tools come from crates.io, Chromium from
# Debian, playwright-core and binaryen (wasm-opt) from npm (without browsers).

# Versions pinned by the project (Cargo.toml pins wasm-bindgen to the same version).
WASM_BINDGEN_VERSION=0.2.130
TRUNK_VERSION=0.21.14
# wasm-opt for `trunk build --release` (Trunk.toml [tools] wasm_opt = "version_132").
BINARYEN_VERSION=132
CHROMIUM_BIN=/usr/bin/chromium
CHROMEDRIVER_BIN=/usr/bin/chromedriver

export PATH="$HOME/.cargo/bin:$PATH"
export CARGO_TERM_PROGRESS_WHEN=never
export DEBIAN_FRONTEND=noninteractive

_LIB_T0=$SECONDS
_SECTION_NAME=""
_SECTION_T0=0
_TIMINGS=()

# Prints a section header and records the previous section's duration.
section() {
  _section_close
  _SECTION_NAME="$1"
  _SECTION_T0=$SECONDS
  printf '\n==== %s ====\n' "$1"
}

_section_close() {
  if [ -n "$_SECTION_NAME" ]; then
    _TIMINGS+=("$(printf '%5ss  %s' "$((SECONDS - _SECTION_T0))" "$_SECTION_NAME")")
    _SECTION_NAME=""
  fi
}

# Prints the duration of every section so far and the total.
print_timings() {
  _section_close
  printf '\n==== Timings ====\n'
  local t
  for t in "${_TIMINGS[@]}"; do
    printf '%s\n' "$t"
  done
  printf '%5ss  total\n' "$((SECONDS - _LIB_T0))"
}

die() {
  printf 'error: %s\n' "$*" >&2
  exit 1
}

# Runs a command as root (directly, or through sudo when available).
as_root() {
  if [ "$(id -u)" = 0 ]; then
    "$@"
  elif command -v sudo >/dev/null 2>&1; then
    sudo -E "$@"
  else
    die "need root to run: $*"
  fi
}

ensure_rust() {
  command -v cargo >/dev/null 2>&1 || die "cargo not found: install Rust with rustup (https://rustup.rs)"
  command -v rustup >/dev/null 2>&1 || die "rustup not found: the wasm32 target is installed with rustup"
  if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
    echo "installing the Rust target wasm32-unknown-unknown"
    rustup target add wasm32-unknown-unknown
  fi
  local c
  for c in rustfmt clippy; do
    if ! rustup component list --installed 2>/dev/null | grep -q "^$c"; then
      echo "installing the Rust component $c"
      rustup component add "$c"
    fi
  done
}

# The one install command of each Rust tool, used by the ensure_* functions below and by
# scripts/check-fresh.sh (which runs them with a temporary CARGO_HOME / CARGO_INSTALL_ROOT).
install_wasm_bindgen() {
  # Not --locked: the crate's lock file pins a webpki-roots release the registry reachable
  # here does not serve. The version of the CLI itself is still exact (checked after).
  cargo install wasm-bindgen-cli --version "=$WASM_BINDGEN_VERSION" --force
}

install_trunk() {
  cargo install trunk --version "$TRUNK_VERSION" --locked --force
}

# What `wasm-bindgen --version` and `trunk --version` must print.
WASM_BINDGEN_WANT="wasm-bindgen $WASM_BINDGEN_VERSION"
TRUNK_WANT="trunk $TRUNK_VERSION"

ensure_wasm_bindgen() {
  local have="" runner=""
  have=$(wasm-bindgen --version 2>/dev/null || true)
  runner=$(command -v wasm-bindgen-test-runner 2>/dev/null || true)
  if [ "$have" != "$WASM_BINDGEN_WANT" ] || [ -z "$runner" ]; then
    echo "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION (found: ${have:-none})"
    install_wasm_bindgen
    have=$(wasm-bindgen --version 2>/dev/null || true)
    [ "$have" = "$WASM_BINDGEN_WANT" ] ||
      die "wasm-bindgen-cli installed but reports '${have:-nothing}', want $WASM_BINDGEN_VERSION"
  fi
}

ensure_trunk() {
  local have=""
  have=$(trunk --version 2>/dev/null || true)
  if [ "$have" != "$TRUNK_WANT" ]; then
    echo "installing trunk $TRUNK_VERSION (found: ${have:-none})"
    install_trunk
  fi
}

# wasm-opt from npm's binaryen package (its wasm-opt ships inside the package), installed in
# .tools/binaryen (gitignored) and put first on PATH, where Trunk (offline) looks for it.
# Debian's binaryen (version 108) writes a broken module: it must never be the one found.
ensure_wasm_opt() {
  ensure_node
  local dir have
  dir="$(pwd)/.tools/binaryen"
  export PATH="$dir/node_modules/.bin:$PATH"
  have=$(wasm-opt --version 2>/dev/null || true)
  if [ "$have" != "wasm-opt version $BINARYEN_VERSION (version_$BINARYEN_VERSION)" ]; then
    echo "installing binaryen@$BINARYEN_VERSION (npm) in .tools/binaryen (found: ${have:-none})"
    mkdir -p "$dir"
    (cd "$dir" && npm install --no-audit --no-fund --loglevel=error --no-save "binaryen@$BINARYEN_VERSION")
    hash -r
    have=$(wasm-opt --version 2>/dev/null || true)
    [ "$have" = "wasm-opt version $BINARYEN_VERSION (version_$BINARYEN_VERSION)" ] ||
      die "wasm-opt on PATH is \"${have:-none}\", expected version $BINARYEN_VERSION"
  fi
}

ensure_chromium() {
  if [ ! -x "$CHROMIUM_BIN" ] || [ ! -x "$CHROMEDRIVER_BIN" ]; then
    echo "installing chromium and chromium-driver (Debian packages)"
    as_root apt-get update
    as_root apt-get install -y --no-install-recommends chromium chromium-driver
  fi
}

# GNU parallel (Debian package `parallel`): tests/it/sweep.rs runs a sweep plan's run-parallel.sh.
ensure_parallel() {
  if ! command -v parallel >/dev/null 2>&1; then
    echo "installing GNU parallel (Debian package)"
    as_root apt-get update
    as_root apt-get install -y --no-install-recommends parallel
  fi
}

# Slurm and munge (Debian packages `slurm-wlm`, `munge`): tests/it/sweep.rs starts a throw-away
# single-node cluster with scripts/slurm-local.sh and submits a sweep plan's run-slurm.sh.
# The packages' own services are not used (the test runs its daemons with their own config).
ensure_slurm() {
  if [ ! -x /usr/sbin/slurmctld ] || [ ! -x /usr/sbin/slurmd ] || [ ! -x /usr/sbin/munged ] ||
    ! command -v sbatch >/dev/null 2>&1; then
    echo "installing slurm-wlm and munge (Debian packages)"
    as_root apt-get update
    as_root apt-get install -y --no-install-recommends slurm-wlm munge
  fi
}

ensure_python3() {
  if ! command -v python3 >/dev/null 2>&1; then
    echo "installing python3 (Debian package)"
    as_root apt-get update
    as_root apt-get install -y --no-install-recommends python3
  fi
}

ensure_node() {
  command -v node >/dev/null 2>&1 || die "node not found: the end-to-end test needs Node.js >= 20 and npm"
  command -v npm >/dev/null 2>&1 || die "npm not found: the end-to-end test needs Node.js >= 20 and npm"
  local major
  major=$(node -p 'process.versions.node.split(".")[0]')
  [ "$major" -ge 20 ] || die "node $(node --version) is too old: the end-to-end test needs Node.js >= 20"
}

# The e2e suites' npm packages, every one pinned in tests/e2e/package.json and
# package-lock.json: playwright-core (drives the Debian Chromium and never downloads a browser)
# and axe-core (the accessibility checks of tests/e2e/a11y.mjs). `npm ci` runs only when one
# of them is missing or at another version, so a second call does nothing.
ensure_e2e_deps() {
  ensure_node
  local dir pkg want have missing=""
  dir="$(pwd)/tests/e2e"
  for pkg in $(node -p "Object.keys(require('$dir/package.json').dependencies).join(' ')"); do
    want=$(node -p "require('$dir/package.json').dependencies['$pkg']")
    have=$(node -p "try { require('$dir/node_modules/$pkg/package.json').version } catch { '' }")
    [ "$have" = "$want" ] || missing="$missing $pkg@$want"
  done
  if [ -n "$missing" ]; then
    echo "installing$missing in tests/e2e (npm ci)"
    (cd "$dir" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error)
  fi
}
