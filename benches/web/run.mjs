#!/usr/bin/env node
// The stress scene in ONE headless Chromium, beside PixiJS and melonJS: serves the pages on
// 127.0.0.1, injects the same WebGL/WebGPU instrumentation into every page (pages/instrument.js),
// runs every renderer at every texture count and prints one table (and the same as JSON).
// Normally started by run.sh, which installs and builds what this needs.
//
//   node run.mjs [--site DIR] [--textures 1,16,17,64] [--sprites 20000] [--sizes pow2] [--warmup 2]
//       [--frames 6] [--renderers pixi,melonjs,gl,wgpu-webgl,wgpu-webgpu] [--fill FILE]
//       [--fill-frames 10] [--json FILE] [--snapshots DIR] [--timeout S] [--no-stress]
//   node run.mjs --scene hud --site DIR [--seed 7] [--warmup 2] [--frames 6] [--rounds 1]
//       [--renderers pixi,gl,wgpu-webgl,wgpu-webgpu] [--json FILE] [--snapshots DIR]
//   node run.mjs --scene looks --site DIR [same flags as hud]
//
// --scene looks: the looks scene of issue 29 (tests/kit/src/looks.rs: 96 y-sorted sprites,
// 64 textures, 8 effects, 8 lights over normal maps), layerbatch's `run_looks` against
// PixiJS 8 doing the effects its way (pages/looks.js: a Filter per sprite with an effect,
// the same GLSL bodies; PixiJS has no 2D lights, so its sprites are drawn unlit).
//
// --scene hud: the HUD scene of issue 18 (tests/kit/src/hud/mod.rs) instead of the stress
// scene, in PixiJS 8 (pages/hud.js: Sprite, Text, Graphics, NineSliceSprite) and layerbatch's
// three browser paths (`run_hud` of the layerbatch page), counted and timed by the same
// instrumentation; the scene's JSON comes from the layerbatch page (`hud_scene_json`) and the
// font files from its fonts/, so it needs --site. --rounds N runs every renderer N times,
// interleaved (pixi, gl, ..., pixi, gl, ...), and pools the timed frames of its rounds: on a
// shared machine, load that comes and goes then weighs on every row alike.
//
// The layerbatch renderers draw with Config::quad_vertices Auto (indexed quads on
// SwiftShader); gl-instanced, wgpu-webgl-instanced and wgpu-webgpu-instanced (not run unless
// named) force instanced quads, for the comparison in one run.
//
// --sizes pow2 (the default) cycles the T textures through four sizes, so a frame over 64
// textures has about 5.75 times the pixels of one over 1; --sizes uniform makes every texture
// 16x16, so frames over 1, 64 and 256 textures differ only in their textures.
//
// --site: the built layerbatch page (examples/web: index.html, main.js, pkg/); without it
// the layerbatch rows are skipped. --fill: layerbatch-gl's tier-1 GLSL as JSON
// ({"vs": ..., "fs": ...}); with it the fill-cost page runs after the table.
// Environment: CHROMIUM (default /usr/bin/chromium).
import { stat, writeFile, mkdir } from 'node:fs/promises';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import process from 'node:process';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, serve, withTimeout } from '../../scripts/web/common.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const ALL = ['pixi', 'melonjs', 'gl', 'wgpu-webgl', 'wgpu-webgpu'];
// The HUD scene has no melonJS page.
const HUD_ALL = ['pixi', 'gl', 'wgpu-webgl', 'wgpu-webgpu'];
// The HUD's fonts in the layerbatch site (scripts/web/build.sh copies them; examples/web/src/hud.rs).
const HUD_FONTS = { Latin: 'fonts/DejaVuSans.ttf', Cjk: 'fonts/DroidSansFallbackFull.ttf', Emoji: 'fonts/NotoColorEmoji.ttf' };
const INSTANCED = ['gl-instanced', 'wgpu-webgl-instanced', 'wgpu-webgpu-instanced'];
// Run only when named: PixiJS's ParticleContainer (one texture), and layerbatch with every
// sprite standing still in a resident layer (`static` = all the sprites; quads as `auto` says:
// indexed on SwiftShader, 256 bytes a quad, so the byte budget is raised to hold the layer).
// And layerbatch with every sprite in a moving layer (`moving`: the quads stay on the device,
// each frame writes 16 bytes a sprite; the byte budget raised as for `static`).
const EXTRA = [
  'pixi-particles',
  'gl-static',
  'wgpu-webgl-static',
  'wgpu-webgpu-static',
  'gl-moving',
  'wgpu-webgl-moving',
  'wgpu-webgpu-moving',
];
const PIXI_PAGES = ['pixi', 'pixi-particles'];
// A layerbatch renderer's browser path (`backend`), quad mode and static sprites.
const lbBackend = (renderer) => renderer.replace(/-(instanced|static|moving)$/, '');
const lbQuads = (renderer) => (renderer.endsWith('-instanced') ? 'instanced' : 'auto');
const lbBudgetMib = (renderer, sprites) =>
  /-(static|moving)$/.test(renderer) ? Math.max(256, Math.ceil((sprites * 256) / 2 ** 20) + 64) : undefined;
const lbStatic = (renderer, sprites) => (renderer.endsWith('-static') ? sprites : 0);
const lbMoving = (renderer) => renderer.endsWith('-moving');
const LABEL = {
  pixi: 'PixiJS',
  melonjs: 'melonJS',
  gl: 'layerbatch-gl (WebGL2)',
  'wgpu-webgl': 'layerbatch-wgpu (WebGL2)',
  'wgpu-webgpu': 'layerbatch-wgpu (WebGPU)',
  'gl-instanced': 'layerbatch-gl (WebGL2), instanced quads',
  'wgpu-webgl-instanced': 'layerbatch-wgpu (WebGL2), instanced quads',
  'wgpu-webgpu-instanced': 'layerbatch-wgpu (WebGPU), instanced quads',
  'pixi-particles': 'PixiJS ParticleContainer',
  'gl-static': 'layerbatch-gl (WebGL2), static in a resident layer',
  'wgpu-webgl-static': 'layerbatch-wgpu (WebGL2), static in a resident layer',
  'wgpu-webgpu-static': 'layerbatch-wgpu (WebGPU), static in a resident layer',
  'gl-moving': 'layerbatch-gl (WebGL2), a moving layer',
  'wgpu-webgl-moving': 'layerbatch-wgpu (WebGL2), a moving layer',
  'wgpu-webgpu-moving': 'layerbatch-wgpu (WebGPU), a moving layer',
};

function parseArgs(argv) {
  const a = {
    site: null,
    textures: [1, 16, 17, 64],
    sprites: 20000,
    warmup: 2,
    frames: 6,
    renderers: ALL,
    fill: null,
    fillFrames: 10,
    json: null,
    snapshots: null,
    timeoutS: 600,
    stress: true,
    scene: 'stress',
    sizes: 'pow2',
    seed: 7,
    rounds: 1,
  };
  let renderersGiven = false;
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i];
    const v = () => {
      if (i + 1 >= argv.length) die(`${k} needs a value`);
      return argv[++i];
    };
    const num = () => {
      const s = v();
      if (!/^\d+$/.test(s)) die(`${k} needs a whole number, not '${s}'`);
      return Number(s);
    };
    if (k === '--site') a.site = v();
    else if (k === '--textures') a.textures = v().split(',').map(Number);
    else if (k === '--sprites') a.sprites = num();
    else if (k === '--sizes') a.sizes = v();
    else if (k === '--warmup') a.warmup = num();
    else if (k === '--frames') a.frames = num();
    else if (k === '--renderers') {
      a.renderers = v().split(',');
      renderersGiven = true;
    } else if (k === '--scene') a.scene = v();
    else if (k === '--seed') a.seed = num();
    else if (k === '--rounds') a.rounds = num();
    else if (k === '--fill') a.fill = v();
    else if (k === '--fill-frames') a.fillFrames = num();
    else if (k === '--json') a.json = v();
    else if (k === '--snapshots') a.snapshots = v();
    else if (k === '--timeout') a.timeoutS = num();
    else if (k === '--no-stress') a.stress = false;
    else die(`unknown argument ${k}`);
  }
  if (!['stress', 'hud', 'looks'].includes(a.scene)) die(`--scene must be stress, hud or looks, not '${a.scene}'`);
  if (a.scene !== 'stress') {
    if (!renderersGiven) a.renderers = HUD_ALL;
    for (const r of a.renderers) if (!HUD_ALL.includes(r)) die(`--scene ${a.scene}: unknown renderer ${r} (one of ${HUD_ALL.join(', ')})`);
  }
  for (const r of a.renderers) {
    const known = [...ALL, ...INSTANCED, ...EXTRA];
    if (!known.includes(r)) die(`unknown renderer ${r} (one of ${known.join(', ')})`);
  }
  if (a.textures.some((t) => !Number.isInteger(t) || t < 1)) die('--textures: whole numbers from 1');
  if (a.warmup < 1) die('--warmup must be at least 1 (the first frame has no start boundary)');
  if (a.frames < 1) die('--frames must be at least 1');
  if (!['pow2', 'uniform'].includes(a.sizes)) die(`--sizes must be pow2 or uniform, not '${a.sizes}'`);
  if (a.rounds < 1) die('--rounds must be at least 1');
  return a;
}

function die(msg) {
  console.error(`web bench: ${msg}`);
  process.exit(2);
}

const median = (xs) => {
  const s = [...xs].sort((p, q) => p - q);
  const n = s.length;
  return n === 0 ? NaN : n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
};
// Nearest rank.
const percentile = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
};
const mean = (xs) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN);

// Summarizes the instrumentation's frames: the first `warmup` are dropped; frame k's time is
// boundary k minus boundary k-1.
function summarize(frames, warmup, n) {
  const notes = [];
  if (frames.length !== warmup + n) notes.push(`${frames.length} frame boundaries for ${warmup + n} frames`);
  const timed = [];
  for (let k = warmup; k < Math.min(frames.length, warmup + n); k++) timed.push({ ...frames[k], ms: frames[k].t - frames[k - 1].t });
  const draws = timed.map((f) => f.draws);
  const binds = timed.map((f) => f.binds);
  const groups = timed.map((f) => f.bindGroups);
  const spread = (xs) => (Math.min(...xs) === Math.max(...xs) ? null : [Math.min(...xs), Math.max(...xs)]);
  if (timed.length && spread(draws)) notes.push(`draws vary ${spread(draws).join('..')}`);
  return {
    timed_frames: timed.length,
    draws_per_frame: mean(draws),
    binds_per_frame: mean(binds),
    bind_groups_per_frame: mean(groups),
    frame_ms: timed.map((f) => f.ms),
    median_ms: median(timed.map((f) => f.ms)),
    p95_ms: percentile(timed.map((f) => f.ms), 95),
    boundary: [...new Set(frames.map((f) => f.kind))].join(','),
    warmup_frames: frames.slice(0, warmup).map((f) => ({ draws: f.draws, binds: f.binds, uploads: f.uploads })),
    notes,
  };
}

async function openPage(context, url, ready, timeoutMs) {
  const page = await context.newPage();
  page.setDefaultTimeout(timeoutMs);
  const errors = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(url);
  await page.waitForFunction(ready, null, { timeout: 120_000 });
  return { page, errors };
}

async function runOne(context, base, a, renderer, textures) {
  const total = a.warmup + a.frames;
  const timeoutMs = a.timeoutS * 1000;
  const t0 = Date.now();
  const isLb = ![...PIXI_PAGES, 'melonjs'].includes(renderer);
  const url = isLb ? `${base}/lb/index.html` : `${base}/bench/${PIXI_PAGES.includes(renderer) ? 'pixi' : 'melon'}.html`;
  const ready = isLb ? () => window.layerbatchReady === true : () => window.benchReady === true;
  const { page, errors } = await openPage(context, url, ready, timeoutMs);
  try {
    const out = await withTimeout(
      page.evaluate(
        async ([isLb, opts]) => {
          window.__lbBench.reset();
          const r = isLb ? await window.layerbatch.runStress(opts) : await window.benchPage.runStress(opts);
          return { r, frames: window.__lbBench.frames, requested: window.__lbBench.requested, webgpu: window.__lbBench.webgpu };
        },
        [
          isLb,
          isLb
            ? {
                backend: lbBackend(renderer),
                quads: lbQuads(renderer),
                sprites: a.sprites,
                static: lbStatic(renderer, a.sprites),
                moving: lbMoving(renderer),
                budget_mib: lbBudgetMib(renderer, a.sprites),
                textures,
                sizes: a.sizes,
                // Exactly the frames the other pages draw (the page's own warm-up would step
                // the scene further, and its last frame would not be theirs): the warm-up is
                // dropped here, from the boundaries.
                warmup: 0,
                frames: total,
              }
            : { sprites: a.sprites, textures, sizes: a.sizes, frames: total, particles: renderer === 'pixi-particles' },
        ],
      ),
      timeoutMs,
      `${renderer} T=${textures}`,
    );
    const snap = await page.evaluate(() => window.__lbBench.snapshot());
    const s = summarize(out.frames, a.warmup, a.frames);
    const r = out.r;
    const row = {
      renderer,
      label: isLb ? LABEL[renderer] : r.renderer,
      textures,
      sprites: a.sprites,
      ...s,
      self_median_ms: isLb ? r.frame_ms_median : median(r.self_ms.slice(a.warmup)),
      adapter: isLb ? r.adapter : r.adapter,
      webgpu: lbBackend(renderer) === 'wgpu-webgpu',
      requested_attributes: out.requested.filter((q) => q.type === 'webgl2').map((q) => q.attrs),
      wall_s: (Date.now() - t0) / 1000,
      page_errors: errors.slice(0, 5),
    };
    if (isLb) {
      row.layerbatch = {
        draw_calls_per_frame: r.draw_calls_per_frame,
        device_draw_calls_per_frame: r.device_draw_calls_per_frame,
        slot_binds_per_frame: r.slot_binds_per_frame,
        max_slot_tier: r.max_slot_tier,
        indexed_quads: r.indexed_quads,
        frames: r.frames,
        frame_ms_p99: r.frame_ms_p99,
      };
    } else if (r.draws_between_frames) {
      row.notes.push(`${r.draws_between_frames} draws between frames (engine loop not stopped?)`);
    }
    return { row, snap };
  } finally {
    await page.close();
  }
}

// Share of pixels whose largest channel difference is over `tol`.
function diffShare(a, b, tol = 48) {
  if (!a || !b || a.length !== b.length) return null;
  let bad = 0;
  for (let i = 0; i < a.length; i += 4) {
    const d = Math.max(Math.abs(a[i] - b[i]), Math.abs(a[i + 1] - b[i + 1]), Math.abs(a[i + 2] - b[i + 2]));
    if (d > tol) bad++;
  }
  return bad / (a.length / 4);
}

// The HUD (or looks) scene's JSON, from the layerbatch page (its wasm module, as main.js
// loaded it).
async function hudScene(context, base, a) {
  const { page } = await openPage(context, `${base}/lb/index.html`, () => window.layerbatchReady === true, a.timeoutS * 1000);
  try {
    const fn = a.scene === 'looks' ? 'looks_scene_json' : 'hud_scene_json';
    return JSON.parse(await page.evaluate(async ([fn, seed]) => (await import('./pkg/layerbatch_web.js'))[fn](seed), [fn, a.seed]));
  } finally {
    await page.close();
  }
}

// One renderer on the HUD scene: warm-up + timed frames, summarized from the instrumentation's
// frame boundaries like the stress rows.
async function runHudOne(context, base, a, renderer, scene) {
  const total = a.warmup + a.frames;
  const timeoutMs = a.timeoutS * 1000;
  const t0 = Date.now();
  const isLb = renderer !== 'pixi';
  // The HUD's pages and functions, or the looks scene's (`--scene looks`).
  const looks = a.scene === 'looks';
  const url = isLb ? `${base}/lb/index.html` : `${base}/bench/${looks ? 'looks' : 'hud'}.html`;
  const [lbRun, pixiRun] = looks ? ['run_looks', 'runLooks'] : ['run_hud', 'runHud'];
  const ready = isLb ? () => window.layerbatchReady === true : () => window.benchReady === true;
  const { page, errors } = await openPage(context, url, ready, timeoutMs);
  try {
    const fonts = Object.fromEntries(Object.entries(HUD_FONTS).map(([k, f]) => [k, `/lb/${f}`]));
    const out = await withTimeout(
      page.evaluate(
        async ([isLb, lbRun, pixiRun, opts]) => {
          window.__lbBench.reset();
          let r;
          if (isLb) {
            const wasm = await import('./pkg/layerbatch_web.js');
            r = JSON.parse(await wasm[lbRun](JSON.stringify(opts.lb)));
          } else {
            r = await window.benchPage[pixiRun](opts.pixi);
          }
          return { r, frames: window.__lbBench.frames, requested: window.__lbBench.requested };
        },
        [
          isLb,
          lbRun,
          pixiRun,
          looks
            ? isLb
              ? { lb: { backend: renderer, warmup: 0, frames: total, lights: 8 } }
              : { pixi: { scene, frames: total } }
            : isLb
              ? { lb: { backend: renderer, seed: a.seed, warmup: 0, frames: total } }
              : { pixi: { scene, fonts, frames: total } },
        ],
      ),
      timeoutMs,
      `${renderer} ${a.scene}`,
    );
    const snap = await page.evaluate(() => window.__lbBench.snapshot());
    const s = summarize(out.frames, a.warmup, a.frames);
    const r = out.r;
    const row = {
      renderer,
      label: isLb ? LABEL[renderer] : r.renderer,
      scene: a.scene,
      items: looks ? scene.sprites.length : scene.items.length,
      ...s,
      self_median_ms: isLb ? median(r.frame_ms.slice(a.warmup)) : median(r.self_ms.slice(a.warmup)),
      adapter: r.adapter,
      webgpu: renderer === 'wgpu-webgpu',
      requested_attributes: out.requested.filter((q) => q.type === 'webgl2').map((q) => q.attrs),
      wall_s: (Date.now() - t0) / 1000,
      page_errors: errors.slice(0, 5),
    };
    if (isLb) {
      row.layerbatch = {
        draw_calls_per_frame: r.draw_calls_per_frame,
        device_draw_calls_per_frame: r.device_draw_calls_per_frame,
        max_slot_tier: r.max_slot_tier,
        quads: r.quads,
        triangles: r.triangles,
        glyphs: r.glyphs,
        indexed: r.indexed,
        compiles_after_creation: r.compiles_after_creation,
        lights: r.lights,
        lights_dropped: r.lights_dropped,
      };
    } else {
      row.pixi = { kinds: r.kinds, filters: r.filters, maxBatchableTextures: r.maxBatchableTextures };
      if (r.draws_between_frames) row.notes.push(`${r.draws_between_frames} draws between frames`);
    }
    return { row, snap };
  } finally {
    await page.close();
  }
}

async function runHud(context, base, a, site, rows) {
  if (!site) {
    for (const renderer of a.renderers) rows.push({ renderer, label: LABEL[renderer], scene: a.scene, skipped: `no layerbatch page (--site): the ${a.scene} scene's JSON comes from it` });
    return;
  }
  const scene = await hudScene(context, base, a);
  const items = a.scene === 'looks' ? scene.sprites.length : scene.items.length;
  console.error(`web bench: ${a.scene} scene: ${items} items, ${scene.textures.length} textures`);
  const snaps = {};
  const byRenderer = Object.fromEntries(a.renderers.map((r) => [r, []]));
  const failed = {};
  for (let round = 1; round <= a.rounds; round++) {
    for (const renderer of a.renderers) {
      if (failed[renderer]) continue;
      try {
        const { row, snap } = await runHudOne(context, base, a, renderer, scene);
        byRenderer[renderer].push(row);
        snaps[renderer] = snap ? Buffer.from(snap.base64, 'base64') : null;
        if (a.snapshots && snap) {
          await mkdir(a.snapshots, { recursive: true });
          await writeFile(join(a.snapshots, `${a.scene}-${renderer}-${snap.width}x${snap.height}.rgba`), snaps[renderer]);
        }
        console.error(
          `web bench: round ${round}: ${row.label} ${a.scene}: ${fmt(row.draws_per_frame, 0)} draws, median ${fmt(row.median_ms, 1)} ms, ` +
            `p95 ${fmt(row.p95_ms, 1)} ms (${fmt(row.wall_s, 0)} s wall)` + (row.notes.length ? `; ${row.notes.join('; ')}` : ''),
        );
      } catch (e) {
        console.error(`web bench: round ${round}: ${LABEL[renderer]} ${a.scene} failed: ${e.message ?? e}`);
        failed[renderer] = `failed: ${String(e.message ?? e).slice(0, 300)}`;
      }
    }
  }
  for (const renderer of a.renderers) {
    const runs = byRenderer[renderer];
    if (failed[renderer] || runs.length === 0) {
      rows.push({ renderer, label: LABEL[renderer], scene: a.scene, skipped: failed[renderer] ?? 'not run' });
      continue;
    }
    // The rounds pooled: every timed frame of every round.
    const frameMs = runs.flatMap((r) => r.frame_ms);
    rows.push({
      ...runs[0],
      rounds: runs.length,
      timed_frames: frameMs.length,
      draws_per_frame: mean(runs.map((r) => r.draws_per_frame)),
      binds_per_frame: mean(runs.map((r) => r.binds_per_frame)),
      bind_groups_per_frame: mean(runs.map((r) => r.bind_groups_per_frame)),
      frame_ms: frameMs,
      median_ms: median(frameMs),
      p95_ms: percentile(frameMs, 95),
      round_medians_ms: runs.map((r) => r.median_ms),
      self_median_ms: median(runs.map((r) => r.self_median_ms)),
      notes: [...new Set(runs.flatMap((r) => r.notes))],
      wall_s: runs.reduce((t, r) => t + r.wall_s, 0),
    });
  }
  const refName = snaps.gl ? 'gl' : 'pixi';
  for (const r of rows.filter((r) => !r.skipped)) {
    r.pixels_differing_from = refName;
    r.pixels_differing = diffShare(snaps[r.renderer], snaps[refName]);
  }
  const pixi = rows.find((p) => p.renderer === 'pixi' && !p.skipped);
  for (const r of rows) r.ratio_to_pixi = !r.skipped && pixi ? r.median_ms / pixi.median_ms : null;
}

function printHudTable(rows) {
  const head = ['renderer', 'draws/frame', 'tex binds/frame', 'slot tier', 'median ms', 'p95 ms', 'vs PixiJS'];
  console.log(`| ${head.join(' | ')} |`);
  console.log(`|---|${head.slice(1).map(() => '---:').join('|')}|`);
  for (const r of rows) {
    const line = r.skipped
      ? [r.label, 'skipped', '', '', '', '', '']
      : [
          r.label,
          fmt(r.draws_per_frame, Number.isInteger(r.draws_per_frame) ? 0 : 1),
          r.webgpu ? `n/a (${fmt(r.bind_groups_per_frame, 0)} bind groups)` : fmt(r.binds_per_frame, Number.isInteger(r.binds_per_frame) ? 0 : 1),
          r.layerbatch ? String(r.layerbatch.max_slot_tier) : '',
          fmt(r.median_ms, 1),
          fmt(r.p95_ms, 1),
          r.ratio_to_pixi === null ? 'n/a' : r.ratio_to_pixi.toFixed(2),
        ];
    console.log(`| ${line.join(' | ')} |`);
  }
}

async function runFill(context, base, a) {
  const { page, errors } = await openPage(context, `${base}/bench/fill.html`, () => window.benchReady === true, a.timeoutS * 1000);
  try {
    const r = await withTimeout(
      page.evaluate(([shaderUrl, frames, warmup]) => window.benchPage.run({ shaderUrl, frames, warmup }), [
        '/gen/' + a.fill.split('/').pop(),
        a.fillFrames,
        a.warmup,
      ]),
      a.timeoutS * 1000,
      'fill',
    );
    // Frame times from the instrumentation's boundaries (a barrier before and after each frame).
    for (const c of r.cases) {
      Object.assign(c, { median_ms: median(c.frame_ms), p95_ms: percentile(c.frame_ms, 95), draws_per_frame: mean(c.draws) });
      delete c.draws;
    }
    r.page_errors = errors.slice(0, 5);
    return r;
  } finally {
    await page.close();
  }
}

const fmt = (v, d = 1) => (v === null || v === undefined || Number.isNaN(v) ? 'n/a' : v.toFixed(d));

function printTable(rows) {
  const head = ['renderer', 'T', 'draws/frame', 'tex binds/frame', 'median ms', 'p95 ms', 'vs PixiJS'];
  const lines = rows.map((r) =>
    r.skipped
      ? [r.label, String(r.textures), 'skipped', '', '', '', '']
      : [
          r.label,
          String(r.textures),
          fmt(r.draws_per_frame, Number.isInteger(r.draws_per_frame) ? 0 : 1),
          r.webgpu ? `n/a (${fmt(r.bind_groups_per_frame, 0)} bind groups)` : fmt(r.binds_per_frame, Number.isInteger(r.binds_per_frame) ? 0 : 1),
          fmt(r.median_ms, 0),
          fmt(r.p95_ms, 0),
          r.ratio_to_pixi === null ? 'n/a' : r.ratio_to_pixi.toFixed(2),
        ],
  );
  console.log(`| ${head.join(' | ')} |`);
  console.log(`|${head.map((_, i) => (i < 2 ? '---' : '---:')).join('|')}|`);
  for (const l of lines) console.log(`| ${l.join(' | ')} |`);
}

async function main() {
  const a = parseArgs(process.argv.slice(2));
  const executablePath = process.env.CHROMIUM ?? '/usr/bin/chromium';
  try {
    await stat(executablePath);
  } catch {
    die(`no browser at ${executablePath} (apt-get install chromium, or set CHROMIUM)`);
  }
  let site = null;
  const skipNote = [];
  if (a.site) {
    try {
      await stat(join(a.site, 'pkg'));
      site = resolve(a.site);
    } catch {
      skipNote.push(`no layerbatch page at ${a.site} (no pkg/): layerbatch rows skipped`);
    }
  } else {
    skipNote.push('no --site: layerbatch rows skipped (run.sh builds the page from examples/web)');
  }
  // Static files on 127.0.0.1: /bench/ = pages/, /node_modules/ = the pinned npm packages,
  // /lb/ = the layerbatch page, /gen/ = the --fill shader file's directory.
  const server = await serve({
    '/bench/': join(HERE, 'pages'),
    '/node_modules/': join(HERE, 'node_modules'),
    '/lb/': site,
    '/gen/': a.fill ? dirname(resolve(a.fill)) : null,
  });
  const base = `http://127.0.0.1:${server.address().port}`;
  const started = Date.now();
  const browser = await chromium.launch({ executablePath, headless: true, args: CHROMIUM_ARGS });
  const rows = [];
  let fill = null;
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: 1 });
    await context.addInitScript({ path: join(HERE, 'pages', 'instrument.js') });
    const ua = browser.version();
    console.error(
      a.scene !== 'stress'
        ? `web bench: Chromium ${ua}; the ${a.scene} scene, ${a.warmup} warm-up + ${a.frames} timed frames per run`
        : `web bench: Chromium ${ua}; ${a.sprites} sprites, T in {${a.textures}} (${a.sizes} sizes), ${a.warmup} warm-up + ${a.frames} timed frames per run`,
    );
    for (const n of skipNote) console.error(`web bench: ${n}`);
    if (a.scene !== 'stress') await runHud(context, base, a, site, rows);
    for (const textures of a.stress && a.scene === 'stress' ? a.textures : []) {
      const snaps = {};
      for (const renderer of a.renderers) {
        const isLb = ![...PIXI_PAGES, 'melonjs'].includes(renderer);
        if (renderer === 'pixi-particles' && textures !== 1) {
          rows.push({ renderer, label: LABEL[renderer], textures, skipped: 'a ParticleContainer draws one texture source' });
          continue;
        }
        if (isLb && !site) {
          rows.push({ renderer, label: LABEL[renderer], textures, skipped: skipNote[0] });
          continue;
        }
        try {
          const { row, snap } = await runOne(context, base, a, renderer, textures);
          rows.push(row);
          snaps[renderer] = snap ? Buffer.from(snap.base64, 'base64') : null;
          if (a.snapshots && snap) {
            await mkdir(a.snapshots, { recursive: true });
            await writeFile(join(a.snapshots, `${renderer}-T${textures}-${snap.width}x${snap.height}.rgba`), snaps[renderer]);
          }
          console.error(
            `web bench: ${row.label} T=${textures}: ${fmt(row.draws_per_frame, 0)} draws, ${fmt(row.binds_per_frame, 0)} binds, ` +
              `median ${fmt(row.median_ms, 0)} ms, p95 ${fmt(row.p95_ms, 0)} ms (${fmt(row.wall_s, 0)} s wall)` +
              (row.notes.length ? `; ${row.notes.join('; ')}` : ''),
          );
        } catch (e) {
          console.error(`web bench: ${LABEL[renderer]} T=${textures} failed: ${e.message ?? e}`);
          rows.push({ renderer, label: LABEL[renderer], textures, skipped: `failed: ${String(e.message ?? e).slice(0, 300)}` });
        }
      }
      // Same scene? The last frame of each against layerbatch-gl's (or PixiJS's).
      const refName = snaps.gl ? 'gl' : 'pixi';
      for (const r of rows.filter((r) => r.textures === textures && !r.skipped)) {
        r.pixels_differing_from = refName;
        r.pixels_differing = diffShare(snaps[r.renderer], snaps[refName]);
      }
    }
    for (const r of a.scene === 'stress' ? rows : []) {
      const pixi = rows.find((p) => p.renderer === 'pixi' && p.textures === r.textures && !p.skipped);
      r.ratio_to_pixi = !r.skipped && pixi ? r.median_ms / pixi.median_ms : null;
    }
    if (a.fill && a.scene === 'stress') {
      try {
        fill = await runFill(context, base, a);
      } catch (e) {
        fill = { skipped: `failed: ${e.message ?? e}` };
      }
    }
    await context.close();
  } finally {
    await browser.close();
    server.close();
  }
  const summary = {
    chromium: browser.version(),
    scene: a.scene,
    ...(a.scene !== 'stress' ? { seed: a.seed, rounds: a.rounds } : { sprites: a.sprites }),
    warmup_frames: a.warmup,
    timed_frames: a.frames,
    viewport: [800, 600],
    wall_s: (Date.now() - started) / 1000,
    rows,
    fill,
  };
  if (a.scene !== 'stress') {
    const title = a.scene === 'looks' ? 'The looks scene (issue 29: 8 lights, 8 effects, y-sorted)' : `The HUD scene (seed ${a.seed})`;
    const size = a.scene === 'looks' ? '192x128' : '800x600';
    console.log(
      `\n${title} in headless Chromium ${summary.chromium} (SwiftShader), ${size}, ` +
        `${a.warmup} warm-up + ${a.frames} timed frames per row and round, ${a.rounds} round(s) interleaved, timed frames pooled; ` +
        `frame = boundary to boundary (see instrument.js)\n`,
    );
    printHudTable(rows);
    for (const r of rows.filter((r) => r.skipped)) console.log(`  ${r.label}: ${r.skipped}`);
    const diffs = rows.filter((r) => !r.skipped && r.pixels_differing !== null && r.pixels_differing !== undefined);
    if (diffs.length) {
      console.log(
        `\nLast frame against ${diffs[0].pixels_differing_from === 'gl' ? 'layerbatch-gl' : 'PixiJS'}'s, pixels off by more than 48/255: ` +
          diffs.map((r) => `${r.label} ${(100 * r.pixels_differing).toFixed(2)}%`).join(', '),
      );
    }
    console.log('\nJSON:');
    console.log(JSON.stringify(summary));
    if (a.json) await writeFile(a.json, JSON.stringify(summary, null, 2));
    return;
  }
  console.log(
    `\nThe stress scene in headless Chromium ${summary.chromium} (SwiftShader), 800x600, ${a.sprites} sprites, ` +
      `${a.warmup} warm-up + ${a.frames} timed frames per row; frame = boundary to boundary (see instrument.js)\n`,
  );
  printTable(rows);
  for (const r of rows.filter((r) => r.skipped)) console.log(`  ${r.label} T=${r.textures}: ${r.skipped}`);
  const diffs = rows.filter((r) => !r.skipped && r.pixels_differing !== null && r.pixels_differing !== undefined);
  if (diffs.length) {
    console.log(
      `\nLast frame against ${diffs[0].pixels_differing_from === 'gl' ? 'layerbatch-gl' : 'PixiJS'}'s, pixels off by more than 48/255: ` +
        diffs.map((r) => `${r.label} T=${r.textures} ${(100 * r.pixels_differing).toFixed(2)}%`).join(', '),
    );
  }
  if (fill && !fill.skipped) {
    console.log(`\nFill cost: ${fill.quads} full-canvas quads of one 64x64 texture per frame (one draw), ${fill.width}x${fill.height}, ${a.warmup} warm-up + ${a.fillFrames} timed frames per shader, interleaved\n`);
    console.log('| shader | median ms | p95 ms | ns/pixel | vs plain | centre pixel |');
    console.log('|---|---:|---:|---:|---:|---|');
    const plain = fill.cases.find((c) => c.name === 'plain');
    for (const c of fill.cases) {
      const ns = (c.median_ms * 1e6) / (fill.quads * fill.width * fill.height);
      console.log(`| ${c.label} | ${fmt(c.median_ms, 1)} | ${fmt(c.p95_ms, 1)} | ${fmt(ns, 2)} | ${(c.median_ms / plain.median_ms).toFixed(2)} | ${c.centre.join(',')} |`);
    }
  } else if (fill) {
    console.log(`\nFill cost: ${fill.skipped}`);
  }
  console.log('\nJSON:');
  console.log(JSON.stringify(summary));
  if (a.json) await writeFile(a.json, JSON.stringify(summary, null, 2));
}

main().catch((e) => {
  console.error(`web bench: ${e.stack ?? e}`);
  process.exit(1);
});
