#!/usr/bin/env bash
# Installs what the browser scripts need, skipping whatever is there already (idempotent):
#
# - chromium and chromium-driver (apt; Debian's, never a downloaded browser);
# - the wasm32-unknown-unknown target (rustup);
# - wasm-bindgen-cli at exactly the lock file's wasm-bindgen version (cargo install, without
#   --locked: a version it pins is missing from the registry);
# - playwright-core, pinned by scripts/web/package-lock.json (npm ci).
#
# Node.js 20 or newer must be installed (playwright-core needs it).
set -euo pipefail
cd "$(dirname "$0")/../.."

if [ "$(id -u)" = 0 ]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1; then
  as_root=(sudo)
else
  as_root=(sh -c 'echo "web setup: run as root, or install sudo" >&2; exit 1' --)
fi

# A browser that cannot be installed fails under CI=true; elsewhere the browser scripts then
# report it (web-test.sh skips).
in_ci=false
case "${CI:-}" in true | TRUE | True | 1) in_ci=true ;; esac
if ! command -v chromium >/dev/null 2>&1 || ! command -v chromedriver >/dev/null 2>&1; then
  echo "web setup: installing chromium and chromium-driver (apt)" >&2
  if ! { "${as_root[@]}" apt-get update -qq &&
    "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null; }; then
    echo "web setup: could not install chromium" >&2
    if [ "$in_ci" = true ]; then
      exit 1
    fi
  fi
fi

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  echo "web setup: adding the wasm32-unknown-unknown target" >&2
  rustup target add wasm32-unknown-unknown
fi

want=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
if [ -z "$want" ]; then
  echo "web setup: no wasm-bindgen in Cargo.lock" >&2
  exit 1
fi
have=$(wasm-bindgen --version 2>/dev/null | awk '{ print $2 }' || true)
if [ "$have" != "$want" ]; then
  echo "web setup: installing wasm-bindgen-cli $want (found: ${have:-none}); a few minutes" >&2
  # Its own target dir, not the workspace's.
  env -u CARGO_TARGET_DIR cargo install wasm-bindgen-cli --version "$want" --force --quiet
fi

node_major=$(node --version 2>/dev/null | sed -E 's/^v([0-9]+).*/\1/' || true)
if [ -z "$node_major" ] || [ "$node_major" -lt 20 ]; then
  echo "web setup: Node.js 20 or newer is needed (found: $(node --version 2>/dev/null || echo none))" >&2
  exit 1
fi
lock=scripts/web/package-lock.json
stamp=scripts/web/node_modules/.layerbatch-lock
if [ ! -f "$stamp" ] || ! cmp -s "$lock" "$stamp"; then
  echo "web setup: npm ci (playwright-core, pinned)" >&2
  (cd scripts/web && npm ci --no-audit --no-fund --silent)
  cp "$lock" "$stamp"
fi
