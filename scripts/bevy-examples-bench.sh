#!/usr/bin/env bash
# Bevy 0.20.1's own bevymark (its source, copied at build time by examples/bevy/truth) under
# Bevy's renderer and under layerbatch's drop-in mode, headless on whatever adapter there is:
# frame time (`App::update`, median of the measured frames) and draws, same run. Build first:
#   (cd examples/bevy && cargo +1.97.1 build --release --workspace)
# BIRDS (default "10000 100000"), MODES (default "bevy:sprite layerbatch:sprite bevy:mesh2d"),
# FRAMES (default 3) and SETTLE (default 3 frames before them, for the icon to load) set the
# runs. Run it alone: a build beside it changes the figures.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
target="${CARGO_TARGET_DIR:+$CARGO_TARGET_DIR/bevy}"
target="${target:-$root/examples/bevy/target}"
bin="$target/release/bevy-example"
assets="$target/tmp/bevy-example-assets"
[ -x "$bin" ] || { echo "bevy-examples-bench: build $bin first" >&2; exit 1; }
[ -d "$assets/assets" ] || { echo "bevy-examples-bench: run the truth tests once for $assets" >&2; exit 1; }
if [ -z "${XDG_RUNTIME_DIR:-}" ] || [ ! -d "$XDG_RUNTIME_DIR" ]; then
  XDG_RUNTIME_DIR="$(mktemp -d)"; chmod 700 "$XDG_RUNTIME_DIR"; export XDG_RUNTIME_DIR
fi
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
echo "| birds | renderer | bevymark mode | frames | median ms | min ms | draws | layerbatch sprites | peak RSS MB |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
for birds in ${BIRDS:-10000 100000}; do
  for run in ${MODES:-bevy:sprite layerbatch:sprite bevy:mesh2d}; do
    renderer="${run%%:*}"; mode="${run#*:}"
    dir="$out/$birds-$renderer-$mode"
    if ! /usr/bin/time -f "%M" -o "$dir.rss" env LBT_EXAMPLE=bevymark LBT_RENDERER="$renderer" LBT_OUT="$dir" \
        LBT_FRAMES="${FRAMES:-3}" LBT_CAPTURE=0 LBT_SETTLE="${SETTLE:-3}" BEVY_ASSET_ROOT="$assets" \
        "$bin" --benchmark --waves 1 --per-wave "$birds" --material-texture-count 64 --mode "$mode" \
        > "$dir.log" 2>&1; then
      # /usr/bin/time writes the signal (9: the kernel's out-of-memory killer) and the peak.
      why="$(grep -o 'terminated by signal [0-9]*' "$dir.rss" || tail -n 1 "$dir.log")"
      echo "| $birds | $renderer | $mode | failed: $why, peak RSS $(( $(tail -n 1 "$dir.rss") / 1024 )) MB | | | | | |"
      continue
    fi
    python3 - "$dir/frames.txt" "$birds" "$renderer" "$mode" "$(tail -n 1 "$dir.rss")" <<'PY'
import sys
path, birds, renderer, mode, rss = sys.argv[1:]
rows = [l.split() for l in open(path) if not l.startswith("#")]
ms = sorted(float(r[1]) for r in rows)
last = rows[-1]
print(f"| {int(birds):,} | {renderer} | {mode} | {len(rows)} | {ms[len(ms)//2]:,.0f} | {ms[0]:,.0f} | {last[2]} | {last[4]} | {int(rss)//1024:,} |")
PY
  done
done
echo "adapter: $(grep -h -m 1 '^#' "$out"/*/frames.txt 2>/dev/null | head -n 1 | sed 's/^# frame [a-z_ ]*(//; s/)$//')"
