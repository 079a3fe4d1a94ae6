#!/usr/bin/env node
// The stress scene in ONE headless Chromium, beside PixiJS and melonJS: serves the pages on
// 127.0.0.1, injects the same WebGL/WebGPU instrumentation into every page (pages/instrument.js),
// runs every renderer at every texture count and prints one table (and the same as JSON).
// Normally started by run.sh, which installs and builds what this needs.
//
//   node run.mjs [--site DIR] [--textures 1,16,17,64] [--sprites 20000] [--warmup 2]
//       [--frames 6] [--renderers pixi,melonjs,gl,wgpu-webgl,wgpu-webgpu] [--fill FILE]
//       [--fill-frames 10] [--json FILE] [--snapshots DIR] [--timeout S] [--no-stress]
//
// The layerbatch renderers draw with Config::quad_vertices Auto (indexed quads on
// SwiftShader); gl-instanced, wgpu-webgl-instanced and wgpu-webgpu-instanced (not run unless
// named) force instanced quads, for the comparison in one run.
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
const INSTANCED = ['gl-instanced', 'wgpu-webgl-instanced', 'wgpu-webgpu-instanced'];
// A layerbatch renderer's browser path (`backend`) and quad mode.
const lbBackend = (renderer) => renderer.replace(/-instanced$/, '');
const lbQuads = (renderer) => (renderer.endsWith('-instanced') ? 'instanced' : 'auto');
const LABEL = {
  pixi: 'PixiJS',
  melonjs: 'melonJS',
  gl: 'layerbatch-gl (WebGL2)',
  'wgpu-webgl': 'layerbatch-wgpu (WebGL2)',
  'wgpu-webgpu': 'layerbatch-wgpu (WebGPU)',
  'gl-instanced': 'layerbatch-gl (WebGL2), instanced quads',
  'wgpu-webgl-instanced': 'layerbatch-wgpu (WebGL2), instanced quads',
  'wgpu-webgpu-instanced': 'layerbatch-wgpu (WebGPU), instanced quads',
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
  };
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
    else if (k === '--warmup') a.warmup = num();
    else if (k === '--frames') a.frames = num();
    else if (k === '--renderers') a.renderers = v().split(',');
    else if (k === '--fill') a.fill = v();
    else if (k === '--fill-frames') a.fillFrames = num();
    else if (k === '--json') a.json = v();
    else if (k === '--snapshots') a.snapshots = v();
    else if (k === '--timeout') a.timeoutS = num();
    else if (k === '--no-stress') a.stress = false;
    else die(`unknown argument ${k}`);
  }
  for (const r of a.renderers) {
    if (!ALL.includes(r) && !INSTANCED.includes(r)) die(`unknown renderer ${r} (one of ${[...ALL, ...INSTANCED].join(', ')})`);
  }
  if (a.textures.some((t) => !Number.isInteger(t) || t < 1)) die('--textures: whole numbers from 1');
  if (a.warmup < 1) die('--warmup must be at least 1 (the first frame has no start boundary)');
  if (a.frames < 1) die('--frames must be at least 1');
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
  const isLb = !['pixi', 'melonjs'].includes(renderer);
  const url = isLb ? `${base}/lb/index.html` : `${base}/bench/${renderer === 'pixi' ? 'pixi' : 'melon'}.html`;
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
            ? { backend: lbBackend(renderer), quads: lbQuads(renderer), sprites: a.sprites, textures, frames: total }
            : { sprites: a.sprites, textures, frames: total },
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
    console.error(`web bench: Chromium ${ua}; ${a.sprites} sprites, T in {${a.textures}}, ${a.warmup} warm-up + ${a.frames} timed frames per run`);
    for (const n of skipNote) console.error(`web bench: ${n}`);
    for (const textures of a.stress ? a.textures : []) {
      const snaps = {};
      for (const renderer of a.renderers) {
        const isLb = !['pixi', 'melonjs'].includes(renderer);
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
    for (const r of rows) {
      const pixi = rows.find((p) => p.renderer === 'pixi' && p.textures === r.textures && !p.skipped);
      r.ratio_to_pixi = !r.skipped && pixi ? r.median_ms / pixi.median_ms : null;
    }
    if (a.fill) {
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
    sprites: a.sprites,
    warmup_frames: a.warmup,
    timed_frames: a.frames,
    viewport: [800, 600],
    wall_s: (Date.now() - started) / 1000,
    rows,
    fill,
  };
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
