#!/usr/bin/env bash
# The stress scene (examples/stress/main.rs) in headless Chromium: builds the page (examples/web)
# for wasm32, serves it on 127.0.0.1, runs the scene on one browser path and prints the
# summary table; with --json the summary is also the last line of stdout, one JSON object with
# the native stress's fields (draw_calls_per_frame, cache_resets, frame_ms_median, ...).
#
#   scripts/web-stress.sh [--backend gl|wgpu-webgl|wgpu-webgpu] [--sprites N] [--textures N]
#       [--sizes pow2|mixed] [--slots N] [--arrays on|off] [--quads auto|instanced|indexed]
#       [--frames N] [--warmup N] [--seconds S] [--json]
#
# Defaults as natively: gl, 20000 sprites, 64 textures, pow2, 16 slots, arrays on, quads auto,
# 3 seconds. --warmup N: N frames drawn before the timed ones.
# First run: installs what is missing (scripts/web/setup.sh: chromium, the wasm32 target,
# wasm-bindgen-cli, playwright-core). On a software rasterizer (SwiftShader) a 20,000-sprite
# 800x600 frame takes about half a second.
# The page opened by hand takes the same options as a query: ?run=stress&backend=gl&quads=indexed
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
  sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2
  exit 2
}
die() {
  echo "web-stress: $*" >&2
  exit 2
}
number() { [[ "$2" =~ ^[0-9]+$ ]] || die "$1 needs a whole number, not '$2'"; }

options=()
json=false
while [ $# -gt 0 ]; do
  flag="$1"
  value=""
  case "$flag" in
    --*=*) value="${flag#*=}"; flag="${flag%%=*}" ;;
  esac
  shift_value=0
  case "$flag" in
    --json) json=true ;;
    -h | --help) usage ;;
    --backend | --sizes | --arrays | --quads | --sprites | --textures | --slots | --frames | --warmup | --seconds)
      if [ -z "$value" ]; then
        [ $# -ge 2 ] || die "$flag needs a value"
        value="$2"
        shift_value=1
      fi
      case "$flag" in
        --backend)
          case "$value" in gl | wgpu-webgl | wgpu-webgpu) ;; *) die "--backend must be gl, wgpu-webgl or wgpu-webgpu, not '$value'" ;; esac
          options+=("\"backend\":\"$value\"") ;;
        --sizes)
          case "$value" in pow2 | mixed) ;; *) die "--sizes must be pow2 or mixed, not '$value'" ;; esac
          options+=("\"sizes\":\"$value\"") ;;
        --arrays)
          case "$value" in on) options+=('"arrays":true') ;; off) options+=('"arrays":false') ;; *) die "--arrays must be on or off, not '$value'" ;; esac ;;
        --quads)
          case "$value" in auto | instanced | indexed) ;; *) die "--quads must be auto, instanced or indexed, not '$value'" ;; esac
          options+=("\"quads\":\"$value\"") ;;
        --seconds)
          [[ "$value" =~ ^[0-9]+([.][0-9]+)?$ ]] || die "--seconds needs a number, not '$value'"
          options+=("\"seconds\":$value") ;;
        *)
          number "$flag" "$value"
          options+=("\"${flag#--}\":$value") ;;
      esac ;;
    *) die "unknown flag '$flag' (try --help)" ;;
  esac
  shift $((1 + shift_value))
done

scripts/web/setup.sh
target_dir="${CARGO_TARGET_DIR:-target}"
site="$target_dir/web/site"
scripts/web/build.sh "$site" >&2
IFS=,
opts="{${options[*]:-}}"
unset IFS
driver_args=(--site "$site" stress)
if [ "$json" = true ]; then
  driver_args+=(--json)
fi
node scripts/web/driver.mjs "${driver_args[@]}" "$opts"
