#!/usr/bin/env bash
# The stress example's attribution table: where a frame's time goes, by phase, at 20,000,
# 200,000 and 1,000,000 dynamic sprites, GL and wgpu, instanced and indexed quads, on a small
# target with small sprites (so that a software rasterizer's fill does not hide the CPU).
#
#   scripts/attribution.sh [FRAMES] > table.md
#
# Builds the stress example in release first. Prints a Markdown table (medians, ms; CPU ns a
# sprite is push + finish + backend + submit). Run it on a quiet machine.
set -euo pipefail
cd "$(dirname "$0")/.."
frames="${1:-8}"
cargo build --release --example stress >&2
bin=target/release/examples/stress
out=$(mktemp -d)
# One table row from the JSON summary on stdin; argv[1] is the quads mode.
row='
import json, sys
r = json.loads(sys.stdin.read())
p = r["phases"]
m = lambda k: p[k]["median_ms"] if p.get(k) else None
f = lambda v: "-" if v is None else "%.2f" % v
cpu = m("push") + m("finish") + m("backend") + m("submit")
mb = (r["instance_bytes_per_frame"] + r["texture_bytes_per_frame"]) / 1e6
cells = [r["backend"], sys.argv[1], "{:,}".format(r["sprites"])]
cells += [f(m(k)) for k in ("scene", "push", "finish", "backend", "submit", "wait", "gpu")]
cells += ["%.1f" % mb, "%.1f" % (cpu * 1e6 / r["sprites"]), "%.1f" % r["frame_ms_median"]]
print("| " + " | ".join(cells) + " |")
'

echo "| backend | quads | sprites | scene | push | finish | backend | submit | wait | GPU timer | MB sent | CPU ns/sprite | frame |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for sprites in 20000 200000 1000000; do
  for backend in gl wgpu; do
    for quads in instanced indexed; do
      "$bin" --headless --backend "$backend" --quads "$quads" --sprites "$sprites" --target 160x120 \
        --sprite-scale 0.1 --warmup 2 --frames "$frames" --json --out "$out/s.png" >"$out/run.txt" 2>"$out/err.txt" \
        || { cat "$out/err.txt" >&2; exit 1; }
      tail -n 1 "$out/run.txt" | python3 -c "$row" "$quads"
    done
  done
done
rm -rf "$out"
