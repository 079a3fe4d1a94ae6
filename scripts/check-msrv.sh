#!/usr/bin/env bash
# Checks that each library crate builds on the oldest Rust it declares (`rust-version`):
# layerbatch-core on 1.85; layerbatch-gl, layerbatch-wgpu and the facade (both backends) on
# 1.87 (naga 30, which both backends use). The tests, examples and benches need more (egui 0.37 needs 1.95). Installs the two
# toolchains with rustup (minimal profile) if they are missing.
set -euo pipefail
cd "$(dirname "$0")/.."
# MSRV_CLEANUP=1 (CI sets it): afterwards, uninstall the toolchains this run installed and
# remove the target dir, to give the disk back (~1.5 GiB).
target="${MSRV_TARGET_DIR:-target/msrv}"
installed=()
cleanup() {
  if [ "${MSRV_CLEANUP:-}" = 1 ]; then
    rm -rf "$target"
    for v in "${installed[@]}"; do rustup toolchain uninstall "$v" >/dev/null 2>&1 || true; done
  fi
}
trap cleanup EXIT
for v in 1.85.0 1.87.0; do
  if ! rustup toolchain list | grep -q "^$v"; then
    rustup toolchain install "$v" --profile minimal
    installed+=("$v")
  fi
done
cargo +1.85.0 check --locked -p layerbatch-core --target-dir "$target"
cargo +1.87.0 check --locked -p layerbatch-gl -p layerbatch-wgpu -p layerbatch --features gl,wgpu --target-dir "$target"
echo "MSRV: core builds on 1.85, gl, wgpu and the facade on 1.87."
