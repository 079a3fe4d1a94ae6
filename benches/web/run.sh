#!/usr/bin/env bash
# layerbatch beside PixiJS and melonJS in ONE headless Chromium (the system's, never a
# download): the stress scene at T textures x S sprites on every renderer, one table (and the
# same as JSON), then the fill-cost page. Details: docs/browser.md, docs/measurements/2026-11-30-browser.md / run.mjs.
#
#   benches/web/run.sh [--site DIR] [run.mjs flags: --textures 1,16,17,64 --sprites 20000
#       --sizes pow2|uniform --warmup 2 --frames 6 --renderers pixi,melonjs,gl,wgpu-webgl,wgpu-webgpu
#       --fill-frames 10 ...]; also gl-instanced, wgpu-webgl-instanced and wgpu-webgpu-instanced
#       (instanced quads forced), pixi-particles (PixiJS's ParticleContainer, one texture)
#       gl-static, wgpu-webgl-static, wgpu-webgpu-static (every sprite in a resident
#       layer) and gl-moving, wgpu-webgl-moving, wgpu-webgpu-moving (every sprite in a
#       moving layer, 16 bytes a sprite a frame), run only when named
#   benches/web/run.sh --scene hud [--seed 7 --warmup 2 --frames 6 --rounds 1
#       --renderers pixi,gl,wgpu-webgl,wgpu-webgpu]
#       the HUD scene of issue 18 instead: PixiJS 8 (pages/hud.js) against layerbatch's three
#       browser paths; needs the layerbatch page (its scene JSON and font files); no fill page
#   benches/web/run.sh --scene looks [same flags]
#       the looks scene of issue 29 (lights, effects, y-sort): PixiJS 8 with a Filter per
#       sprite with an effect (pages/looks.js) against layerbatch's three browser paths
#
# What it does, each step skipped when already done (idempotent):
# 1. chromium (apt, Debian's) if missing; Node.js >= 20 must be there;
# 2. npm ci: pixi.js, melonjs, playwright-core, pinned by package-lock.json;
# 3. the layerbatch page (examples/web): built with scripts/web/build.sh of the checkout that
#    has it: this repository, or LAYERBATCH_WEB_SRC=DIR (another checkout or worktree: its
#    tracked and untracked files are copied to .work/web-src and built there, the checkout
#    itself untouched). --site DIR uses a page built already. No page: layerbatch rows are
#    skipped with a note, the rest runs;
# 4. layerbatch-gl's GLSL (tiers 1 and 4) dumped by shaderdump/ for the fill page (skipped
#    with a note if cargo fails);
# 5. node run.mjs: prints the table and JSON; the JSON also goes to .work/results.json and
#    the last frames to .work/snapshots/ (raw RGBA8, 800x600).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
work="$here/.work"
mkdir -p "$work"
say() { echo "web bench: $*" >&2; }

site=""
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --site) site="$2"; shift 2 ;;
    --site=*) site="${1#*=}"; shift ;;
    -h | --help) sed -n '2,33p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
    *) args+=("$1"); shift ;;
  esac
done

# 1. Browser and Node.
chromium_bin="${CHROMIUM:-/usr/bin/chromium}"
if [ ! -x "$chromium_bin" ]; then
  if [ "$(id -u)" = 0 ]; then
    say "installing chromium (apt)"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    say "no chromium at $chromium_bin: apt-get install chromium (as root) or set CHROMIUM"
    exit 1
  fi
fi
node_major=$(node --version 2>/dev/null | sed -E 's/^v([0-9]+).*/\1/' || true)
if [ -z "$node_major" ] || [ "$node_major" -lt 20 ]; then
  say "Node.js 20 or newer is needed (found: $(node --version 2>/dev/null || echo none))"
  exit 1
fi

# 2. npm packages, pinned.
stamp="$here/node_modules/.layerbatch-web-bench-lock"
if [ ! -f "$stamp" ] || ! cmp -s "$here/package-lock.json" "$stamp"; then
  say "npm ci (pixi.js, melonjs, playwright-core; pinned)"
  (cd "$here" && npm ci --no-audit --no-fund --silent)
  cp "$here/package-lock.json" "$stamp"
fi

# 3. The layerbatch page.
build_page() {
  local src="$1" target_dir="$2" out="$3"
  (
    cd "$src"
    if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown \
      || ! command -v wasm-bindgen >/dev/null 2>&1; then
      say "installing the page's toolchain (scripts/web/setup.sh)"
      scripts/web/setup.sh
    fi
    CARGO_TARGET_DIR="$target_dir" scripts/web/build.sh "$out"
  )
}
if [ -z "$site" ]; then
  src=""
  if [ -n "${LAYERBATCH_WEB_SRC:-}" ]; then
    if [ -d "$LAYERBATCH_WEB_SRC/examples/web" ]; then
      say "snapshot of $LAYERBATCH_WEB_SRC ($(git -C "$LAYERBATCH_WEB_SRC" rev-parse --short HEAD 2>/dev/null || echo '?') + its uncommitted files) in .work/web-src"
      rm -rf "$work/web-src"
      mkdir -p "$work/web-src"
      (cd "$LAYERBATCH_WEB_SRC" && git ls-files -z --cached --others --exclude-standard \
        | tar --null -T - --ignore-failed-read -cf - 2>/dev/null) | tar -xf - -C "$work/web-src"
      src="$work/web-src"
    else
      say "LAYERBATCH_WEB_SRC=$LAYERBATCH_WEB_SRC has no examples/web"
    fi
  elif [ -d "$repo/examples/web" ]; then
    src="$repo"
  fi
  if [ -n "$src" ]; then
    say "building the layerbatch page (examples/web, release wasm; minutes the first time)"
    if build_page "$src" "$work/web-target" "$work/site" >"$work/page-build.log" 2>&1; then
      site="$work/site"
    else
      say "the layerbatch page did not build (log: $work/page-build.log, last lines below): its rows are skipped"
      tail -n 5 "$work/page-build.log" >&2 || true
    fi
  else
    say "no examples/web here (set LAYERBATCH_WEB_SRC=DIR to a checkout that has it): layerbatch rows skipped"
  fi
fi

# 4. layerbatch-gl's GLSL for the fill page (not for the HUD scene).
fill=()
hud=false
for a in "${args[@]}"; do [ "$a" = hud ] && hud=true; done
cp "$repo/Cargo.lock" "$here/shaderdump/Cargo.lock"
mkdir -p "$work/gen"
if [ "$hud" = true ]; then
  :
elif CARGO_TARGET_DIR="$work/target" cargo run --release -q --manifest-path "$here/shaderdump/Cargo.toml" \
  >"$work/gen/layerbatch-glsl.json" 2>"$work/shaderdump.log"; then
  fill=(--fill "$work/gen/layerbatch-glsl.json")
else
  say "shaderdump failed (log: $work/shaderdump.log): the fill page is skipped"
fi

# 5. The run.
site_args=()
[ -n "$site" ] && site_args=(--site "$site")
exec node "$here/run.mjs" "${site_args[@]}" "${fill[@]}" --json "$work/results.json" --snapshots "$work/snapshots" "${args[@]}"
