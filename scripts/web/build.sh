#!/usr/bin/env bash
# Builds the browser page into a site directory: examples/web for wasm32-unknown-unknown
# (release), bound with wasm-bindgen (--target web), beside index.html and main.js.
#
#   scripts/web/build.sh [SITE_DIR] [CARGO_BUILD_ARGS...]
#
# SITE_DIR defaults to $CARGO_TARGET_DIR/web/site (target/web/site); extra arguments go to
# `cargo build` (e.g. --features glow-0-17). Needs the wasm32 target and wasm-bindgen-cli at
# the lock file's wasm-bindgen version: scripts/web/setup.sh installs both.
#
# The HUD scene's font files (Debian's fonts-dejavu-core, fonts-droid-fallback and
# fonts-noto-color-emoji; scripts/install-fonts.sh installs them) are copied from
# /usr/share/fonts into SITE_DIR/fonts/, where the page fetches them; never committed. A
# missing one is reported, and the HUD test and bench then fail saying which. The Basis
# Universal files of the `basis_files` test are made into SITE_DIR/basis/ by
# scripts/web/basis-files.sh, likewise never committed.
set -euo pipefail
cd "$(dirname "$0")/../.."
target_dir="${CARGO_TARGET_DIR:-target}"
site="${1:-$target_dir/web/site}"
shift || true
cargo build -p layerbatch-web --target wasm32-unknown-unknown --release "$@"
rm -rf "$site"
mkdir -p "$site"
wasm-bindgen --target web --no-typescript --out-dir "$site/pkg" \
  "$target_dir/wasm32-unknown-unknown/release/layerbatch_web.wasm"
cp examples/web/index.html examples/web/main.js "$site/"
mkdir -p "$site/fonts"
for font in dejavu/DejaVuSans.ttf droid/DroidSansFallbackFull.ttf noto/NotoColorEmoji.ttf; do
  if [ -f "/usr/share/fonts/truetype/$font" ]; then
    cp "/usr/share/fonts/truetype/$font" "$site/fonts/"
  else
    echo "web: no /usr/share/fonts/truetype/$font (scripts/install-fonts.sh installs it): the HUD test and bench will fail" >&2
  fi
done
# The Basis Universal files of the `basis_files` test and their reference transcodes.
scripts/web/basis-files.sh "$site/basis"
echo "web: page built in $site ($(du -h "$site/pkg/layerbatch_web_bg.wasm" | cut -f1) of wasm)" >&2
