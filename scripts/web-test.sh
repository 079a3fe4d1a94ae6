#!/usr/bin/env bash
# The browser tests: layerbatch in headless Chromium on its three browser paths, layerbatch-gl
# on WebGL2 through stock glow (0.18, then 0.17), layerbatch-wgpu on wgpu's WebGL2 backend and
# on WebGPU.
#
# 1. Installs what is missing (scripts/web/setup.sh: chromium and chromium-driver from apt,
#    the wasm32-unknown-unknown target, wasm-bindgen-cli at the lock file's wasm-bindgen
#    version, playwright-core pinned by scripts/web/package-lock.json). Idempotent.
# 2. Lints for wasm32: clippy -D warnings on layerbatch-core, layerbatch-gl (on both glows),
#    layerbatch-wgpu and the page (examples/web).
# 3. Builds the page (examples/web) twice, on glow 0.18 and on glow 0.17, serves each on
#    127.0.0.1 and runs the pixel tests in it (scripts/web/driver.mjs, a CDP client):
#    gl_fresh_context, gl_host_bindings and gl_wrapped_context (GL: nothing bound; the host's
#    own objects bound, made through glow and through WebGL; the fallback when the raw context
#    cannot be reached), one_draw_64_textures, instanced_quads (the grid with instanced quads
#    forced, against indexed), resident_layer (the grid in a resident layer: one draw, the
#    pushed grid's pixels exactly, uploaded once), padding_poison and array_growth (each
#    path), device_error_is_err (wgpu: Err on WebGL2 and WebGPU), and
#    parity_gl_wgpu (the three paths read back the same pixels away from sprite edges),
#    hud_one_draw (the HUD scene of issue 18: 1 draw at slot tier 1, pixels against the CPU's
#    compositing, text where the texts are), hud_glyphs (its texts alone: every glyph against
#    swash's image composited on the CPU, within 2), hud_parity (the HUD on the three
#    paths, the same pixels within 2), compressed_families (the format families each path
#    reports, listed, and a solid BC1, ETC2 and ASTC texture (ASTC at each of its 14 block
#    sizes) of each family it has), basis_files (an ETC1S and a UASTC file by basisu,
#    transcoded in wasm to each target the path has, as Binomial's transcoder gives them,
#    drawn against core's decode),
#    looks_one_draw (the looks scene of issue 29: lights over normal maps, 8 effects, y-sorted,
#    1 draw, no compile after creation, against the CPU reference) and looks_parity (the
#    looks scene on the three paths within 2 of one another), color_offset (the colour
#    offset scene: one draw, against the CPU reference), and moving_sprites,
#    moving_keys_clips_plans and moving_layers_whole (moving layers against the same quads
#    pushed, exactly: under looks; under a sort key, a clip and two plans a host frame; 256
#    layers whose neighbours differ, each sprite only its own), and
#    thousand_textures_at_256_layers (WebGPU at its default limits: 1,000 textures over 4
#    arrays of 256 layers, one draw, each quad its own texture), and tile_grid (a 512 x 512
#    tile grid, culled on the GPU on WebGPU, pushed on WebGL2, against its tiles pushed).
#
# Under CI=true a browser, WebGL2 context or WebGPU adapter that cannot be had fails the run;
# elsewhere the test says "skipped". About 10 minutes on a fresh 2-core machine, most of it
# installing wasm-bindgen-cli and the first wasm build; a minute once built.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
in_ci=false
case "${CI:-}" in true | TRUE | True | 1) in_ci=true ;; esac

scripts/web/setup.sh
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$in_ci" = true ]; then
    echo "web-test: CI=true and no chromium" >&2
    exit 1
  fi
  echo "skipped: web-test: no chromium (apt-get install chromium chromium-driver)"
  exit 0
fi

echo "== wasm32 clippy" >&2
cargo clippy --target wasm32-unknown-unknown -p layerbatch-core -p layerbatch-gl -p layerbatch-wgpu -p layerbatch-web \
  -- -D warnings
cargo clippy --target wasm32-unknown-unknown -p layerbatch-gl -p layerbatch-web --features layerbatch-web/glow-0-17 \
  -- -D warnings

target_dir="${CARGO_TARGET_DIR:-target}"
echo "== the page on glow 0.18: every test" >&2
scripts/web/build.sh "$target_dir/web/site" >&2
node scripts/web/driver.mjs --site "$target_dir/web/site" test
echo "== the page on glow 0.17: the GL path" >&2
scripts/web/build.sh "$target_dir/web/site-glow017" --features glow-0-17 >&2
node scripts/web/driver.mjs --site "$target_dir/web/site-glow017" test --backend gl
echo "web-test: passed in $((SECONDS - start)) s"
