#!/usr/bin/env bash
# Trunk post-build hook (Trunk.toml [[hooks]]): writes the service worker, www/sw.js, into the
# build's staging folder with the list of files it caches (every file of the build: the page,
# the stylesheet, both JS loaders and .wasm files, the worker loader, the manifest, the icon,
# the shipped exercises) and the build's version, the first 16 hex digits of a SHA-256 over
# those files' names and SHA-256s. Same files → same version; any changed file (Trunk hashes
# the names of the others) → a new version, whose cache replaces the old one (docs/offline.md).
# Needs only bash and coreutils. By hand: TRUNK_STAGING_DIR=dist bash scripts/sw-build.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
dir="${TRUNK_STAGING_DIR:?set by trunk: the staging folder of the build}"
template=www/sw.js
[ -f "$template" ] || { echo "sw-build: $template not found" >&2; exit 1; }
[ -f "$dir/index.html" ] || { echo "sw-build: $dir/index.html not found" >&2; exit 1; }

mapfile -t files < <(cd "$dir" && find . -type f ! -name sw.js ! -name '.*' -printf '%P\n' | LC_ALL=C sort)
version=$(cd "$dir" && sha256sum -- "${files[@]}" | sha256sum | cut -c1-16)
list="["
for f in "${files[@]}"; do
  if [[ "$f" == *'"'* || "$f" == *'\'* ]]; then
    echo "sw-build: unexpected file name: $f" >&2
    exit 1
  fi
  list+="\"${f}\", "
done
list="${list%, }]"
out="$dir/sw.js"
while IFS= read -r line || [ -n "$line" ]; do
  line="${line//__SCHEDLAB_VERSION__/$version}"
  line="${line//__SCHEDLAB_FILES__/$list}"
  printf '%s\n' "$line"
done <"$template" >"$out.tmp"
mv "$out.tmp" "$out"
echo "sw-build: sw.js version $version, ${#files[@]} files cached"
