#!/usr/bin/env bash
# bevy_layerbatch as crates.io would get it: `cargo package`, its file list printed, then the
# package alone (unpacked elsewhere, with its packaged Cargo.lock) built in release.
# layerbatch-core and layerbatch-wgpu are not on crates.io yet, so path patches stand in for
# them (the workspace's own `cargo package` checks those two). Run after scripts/bevy-test.sh:
# it shares that build's target directory, so Bevy is not built again.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root/examples/bevy"
toolchain="$(sed -n 's/^channel = "\(.*\)"/\1/p' rust-toolchain.toml)"
patches=(
  --config "patch.crates-io.layerbatch-core.path=\"$root/core\""
  --config "patch.crates-io.layerbatch-wgpu.path=\"$root/backend-wgpu\""
)
export CARGO_INCREMENTAL=0
# scripts/bevy-test.sh's build folder.
bevy_target="${CARGO_TARGET_DIR:+$CARGO_TARGET_DIR/bevy}"
export CARGO_TARGET_DIR="${bevy_target:-$root/examples/bevy/target}"
cargo +"$toolchain" package --allow-dirty --no-verify "${patches[@]}" --quiet
echo "bevy_layerbatch package files:"
cargo +"$toolchain" package --allow-dirty --list "${patches[@]}" 2>/dev/null | sed 's/^/  /'
unpacked="$(mktemp -d)"
trap 'rm -rf "$unpacked" "$CARGO_TARGET_DIR/package"' EXIT
tar xzf "$CARGO_TARGET_DIR"/package/bevy_layerbatch-*.crate -C "$unpacked"
cd "$unpacked"/bevy_layerbatch-*
cp "$root/examples/bevy/rust-toolchain.toml" .
# The features bevy-test.sh builds with: the same Bevy build serves both.
cargo +"$toolchain" build --release --locked --features bevymark \
  "${patches[@]}" --quiet
echo "package-bevy: bevy_layerbatch builds from its package"
