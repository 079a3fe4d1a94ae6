#!/usr/bin/env bash
# The hello examples are copyable: both files build in a new crate outside the workspace whose
# only dependencies besides the layerbatch crates come from crates.io (no test kit, no
# workspace settings). The layerbatch crates are path dependencies until they are published.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/src" "$dir/examples"
: > "$dir/src/lib.rs"
cp "$root/examples/hello_gl.rs" "$root/examples/hello_wgpu.rs" "$dir/examples/"
cat > "$dir/Cargo.toml" <<TOML
[package]
name = "copied-hello"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
layerbatch = { path = "$root" }
layerbatch-gl = { path = "$root/backend-gl" }
layerbatch-wgpu = { path = "$root/backend-wgpu" }
glutin = "0.32"
glutin-winit = "0.5"
winit = "0.30"
wgpu = "30"
pollster = "1"
env_logger = "0.11"

[workspace]
TOML
for f in "$root"/examples/hello_gl.rs "$root"/examples/hello_wgpu.rs; do
  lines=$(wc -l < "$f")
  if [ "$lines" -ge 100 ]; then
    echo "check-copyable: $f has $lines lines (the README promises under 100)" >&2
    exit 1
  fi
done
# The workspace's target directory: the dependencies are already built there.
CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}" cargo check --manifest-path "$dir/Cargo.toml" --examples --quiet
echo "check-copyable: hello_gl.rs and hello_wgpu.rs build outside the workspace"
