#!/usr/bin/env bash
# bevymark, headless, release: Bevy's `sprite` and `mesh2d` modes against `layerbatch`, for
# 1, 16 and 64 textures at random z, one JSON line per run (to stdout, and to $OUT if set).
# Run it on a quiet machine (nothing building beside it).
#
#   scripts/bevy-bench.sh                       # 20,000 birds at 1920x1080
#   BIRDS_WAVES=2 SIZE="800 600" scripts/bevy-bench.sh
#
# Bevy's modes take seconds a frame on a software rasterizer, so they are measured over
# fewer frames: FRAMES_LAYERBATCH (30), FRAMES_MESH2D (10), FRAMES_SPRITE (5), after
# WARMUP (2) frames each.
set -euo pipefail
cd "$(dirname "$0")/../examples/bevy"
toolchain="$(sed -n 's/^channel = "\(.*\)"/\1/p' rust-toolchain.toml)"
cargo +"$toolchain" build --locked --release --features bevymark --bin bevymark >&2
read -r width height <<< "${SIZE:-1920 1080}"
waves="${BIRDS_WAVES:-20}"
for textures in ${TEXTURES:-1 16 64}; do
  for mode in ${MODES:-layerbatch mesh2d sprite}; do
    case "$mode" in
      layerbatch) frames="${FRAMES_LAYERBATCH:-30}" ;;
      mesh2d) frames="${FRAMES_MESH2D:-10}" ;;
      *) frames="${FRAMES_SPRITE:-5}" ;;
    esac
    line="$(target/release/bevymark --benchmark --json --mode "$mode" --waves "$waves" --per-wave 1000 \
      --material-texture-count "$textures" --width "$width" --height "$height" \
      --warmup "${WARMUP:-2}" --frames "$frames" 2>/dev/null | tail -n 1)"
    echo "$line"
    if [ -n "${OUT:-}" ]; then echo "$line" >> "$OUT"; fi
  done
done
