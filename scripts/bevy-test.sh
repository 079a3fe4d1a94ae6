#!/usr/bin/env bash
# The Bevy integration (examples/bevy, its own crate, lock file and toolchain): installs the
# toolchain if missing, builds in release (Bevy in debug is too slow to draw), checks format
# and lints, runs the pixel tests headless on whatever adapter there is (lavapipe here) and
# Bevy's own 2D examples under both renderers (truth/), then a short headless bevymark
# comparison of Bevy's modes and layerbatch's, checks the crate for wasm32 (WebGL2), and
# prints a summary.
#
# BEVYMARK_ARGS replaces the comparison's scene (default: 2,000 birds over 64 textures,
# 800x600, 2 frames of warm-up and 3 measured; Bevy's sprite path takes seconds a frame on
# lavapipe there).
set -euo pipefail
cd "$(dirname "$0")/../examples/bevy"
toolchain="$(sed -n 's/^channel = "\(.*\)"/\1/p' rust-toolchain.toml)"
if ! rustup run "$toolchain" rustc --version >/dev/null 2>&1; then
  rustup toolchain install "$toolchain" --profile minimal --component clippy,rustfmt
fi
rustup component add --toolchain "$toolchain" clippy rustfmt >/dev/null 2>&1 || true
export CARGO_INCREMENTAL=0
# The build's folder: "$CARGO_TARGET_DIR/bevy" when CI's shared target directory is set (so a
# re-run on the same machine does not build Bevy again), else the crate's own target/.
# scripts/package-bevy.sh builds in the same one.
bevy_target="${CARGO_TARGET_DIR:+$CARGO_TARGET_DIR/bevy}"
export CARGO_TARGET_DIR="${bevy_target:-$PWD/target}"
# wgpu's Vulkan loader wants a private runtime dir; without one it only prints a warning.
if [ -z "${XDG_RUNTIME_DIR:-}" ] || [ ! -d "$XDG_RUNTIME_DIR" ]; then
  XDG_RUNTIME_DIR="$(mktemp -d)"
  chmod 700 "$XDG_RUNTIME_DIR"
  export XDG_RUNTIME_DIR
fi
cargo +"$toolchain" fmt --check
# Every step selects the whole workspace (the crate and truth/, Bevy's own examples as the
# reference): cargo unifies Bevy's features over the packages a command selects, so one set
# (truth/'s, with bevymark's) serves every step and no step compiles Bevy again for another.
features=(--workspace)
# Clippy lints the crate while it compiles (clippy-driver as the workspace's rustc wrapper,
# as `cargo clippy` runs it, warnings denied): one release build serves the lints, the tests,
# the examples and the package, and Bevy is compiled once. `cargo clippy` would compile Bevy
# a second time, as metadata only.
export RUSTC_WORKSPACE_WRAPPER="$(rustup which --toolchain "$toolchain" clippy-driver)"
export CLIPPY_ARGS="-Dwarnings"
cargo +"$toolchain" build --locked --release "${features[@]}" --all-targets
# No `cargo doc` here: rustdoc reads its dependencies' metadata from check builds, which would
# compile Bevy a second time (about 3 minutes of a cold run). The crate's doc examples still
# compile and run as doc-tests in `cargo test` below, from this build.
started=$(date +%s)
# With the workspace: truth/'s tests run Bevy's own examples under both renderers.
cargo +"$toolchain" test --locked --release "${features[@]}"
tested=$(( $(date +%s) - started ))
# The README's headless first frame: one red sprite, one draw call.
first="$("$CARGO_TARGET_DIR"/release/examples/first_frame 2>/dev/null | tail -n 1)"
echo "first_frame: $first"
[ "$first" = "1 sprite, 1 draw call, centre pixel [220, 40, 40, 255]" ]
read -r -a scene <<< "${BEVYMARK_ARGS:---waves 2 --per-wave 1000 --material-texture-count 64 --width 800 --height 600 --warmup 2 --frames 3}"
summary=()
for mode in sprite mesh2d layerbatch drop-in; do
  line="$("$CARGO_TARGET_DIR"/release/bevymark --benchmark --json --mode "$mode" "${scene[@]}" | tail -n 1)"
  echo "$line"
  summary+=("$(python3 -c "import json,sys; r=json.loads(sys.argv[1]); print('%s %.0f ms / %d draws' % (r['mode'], r['median_ms'], r['phase_draws']))" "$line")")
done
adapter="$(python3 -c "import json,sys; print(json.loads(sys.argv[1])['adapter'])" "$line")"
# The browser's target: the crate (Basis loader included) type-checks for wasm32 with Bevy's
# WebGL2 renderer, clippy's lints denied (a check build of its own, about 5 minutes cold).
rustup target add --toolchain "$toolchain" wasm32-unknown-unknown >/dev/null 2>&1 || true
CARGO_TARGET_DIR="$CARGO_TARGET_DIR-wasm" cargo +"$toolchain" check --locked --target wasm32-unknown-unknown \
  -p bevy_layerbatch --features basis,bevy/webgl2
echo "bevy: tests passed in ${tested} s; bevymark on ${adapter}, ${scene[*]}: $(IFS=';'; echo "${summary[*]}"); wasm32 (WebGL2) check passed"
