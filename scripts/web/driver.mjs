#!/usr/bin/env node
// Serves the built page (examples/web, with its wasm) on 127.0.0.1 and drives the system's
// headless Chromium through playwright-core (a CDP client: no browser is downloaded).
//
//   node driver.mjs --site DIR stress [--json] '{"backend":"gl","sprites":20000,...}'
//       runs the stress scene and prints its summary table; with --json the summary is also
//       the last line of stdout, as one JSON object (the fields of `stress --json`).
//   node driver.mjs --site DIR test [--only NAME[,NAME...]] [--backend B[,B...]]
//       runs the pixel tests (those of the backends named: gl, wgpu-webgl, wgpu-webgpu, and
//       all for the cross-path ones); one line per test and backend, then a summary. Exit
//       code 1 if any failed, or (under CI=true) was skipped for want of a context or adapter.
//
// Environment: CHROMIUM (default /usr/bin/chromium), CI, LAYERBATCH_WEB_TIMEOUT_S (per
// stress run or test, default 600).
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import process from 'node:process';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, serve, withTimeout } from './common.mjs';


const inCi = ['true', '1'].includes((process.env.CI ?? '').toLowerCase());

function usage(message) {
  console.error(`driver: ${message}`);
  console.error('usage: driver.mjs --site DIR stress [--json] OPTIONS_JSON | test [--only NAMES] [--backend BACKENDS]');
  process.exit(2);
}

function parseArgs(argv) {
  const args = { site: null, command: null, options: null, only: null, backends: null, json: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--site') args.site = argv[++i];
    else if (a === '--only') args.only = argv[++i].split(',');
    else if (a === '--backend') args.backends = argv[++i].split(',');
    else if (a === '--json') args.json = true;
    else if (!args.command) args.command = a;
    else if (args.command === 'stress' && args.options === null) args.options = a;
    else usage(`unexpected argument ${a}`);
  }
  if (!args.site) usage('--site DIR is required');
  if (args.command !== 'stress' && args.command !== 'test') usage('command must be stress or test');
  return args;
}

async function serveSite(root) {
  return serve({ '/': root });
}


async function main() {
  const args = parseArgs(process.argv.slice(2));
  const root = resolve(args.site);
  const executablePath = process.env.CHROMIUM ?? '/usr/bin/chromium';
  try {
    await stat(executablePath);
  } catch {
    console.error(`driver: no browser at ${executablePath} (install chromium, or set CHROMIUM)`);
    process.exit(3);
  }
  const timeoutMs = Number(process.env.LAYERBATCH_WEB_TIMEOUT_S ?? 600) * 1000;
  const server = await serveSite(root);
  const url = `http://127.0.0.1:${server.address().port}/index.html`;
  const browser = await chromium.launch({ executablePath, headless: true, args: CHROMIUM_ARGS });
  let code = 0;
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(timeoutMs);
    page.on('console', (m) => {
      // ANGLE's note on every readback (the tests read back on purpose) is noise.
      if (m.text().includes('GPU stall due to ReadPixels')) return;
      if (m.type() === 'error' || m.type() === 'warning') console.error(`[page ${m.type()}] ${m.text()}`);
    });
    page.on('pageerror', (e) => console.error(`[page error] ${e}`));
    await page.goto(url);
    await page.waitForFunction(() => window.layerbatchReady === true, null, { timeout: 60_000 });
    const ua = await page.evaluate(() => navigator.userAgent);
    console.error(`driver: ${ua}`);
    if (args.command === 'stress') code = await stress(page, args.options ?? '{}', args.json, timeoutMs);
    else code = await tests(page, args, timeoutMs);
  } finally {
    await browser.close();
    server.close();
  }
  process.exit(code);
}


async function stress(page, optionsJson, json, timeoutMs) {
  const options = JSON.parse(optionsJson);
  try {
    const report = await withTimeout(
      page.evaluate((o) => window.layerbatch.runStress(o), options),
      timeoutMs,
      'stress',
    );
    printTable(report);
    if (json) console.log(JSON.stringify(report));
    return 0;
  } catch (e) {
    console.error(`driver: stress failed: ${e.message ?? e}`);
    return 1;
  }
}

// The summary table of `stress` (tests/kit/src/report.rs, `Report::print_table`).
function printTable(r) {
  const mib = (b) => b / (1024 * 1024);
  const slots = r.budget_slots === r.slots ? `${r.slots}` : `${r.slots} (device allows ${r.budget_slots})`;
  console.log(`layerbatch stress: ${r.backend} on ${r.adapter}, in headless Chromium`);
  console.log(
    `  ${r.sprites} sprites, ${r.textures} textures (${r.sizes} sizes), slots ${slots}, ` +
      `arrays ${r.arrays ? 'on' : 'off'}, ${r.indexed_quads ? 'indexed' : 'instanced'} quads, ${r.frames} frames`,
  );
  console.log(r.frames > 1 ? '  per frame, after the first:' : '  per frame:');
  const row = (name, v) => console.log(`    ${name.padEnd(30)} ${String(v).padStart(20)}`);
  row('draw calls', r.draw_calls_per_frame.toFixed(2));
  row('  issued by the device', r.device_draw_calls_per_frame.toFixed(2));
  row('flushes', r.flushes_per_frame.toFixed(2));
  row('  because the slots ran out', r.flushes_slots_exhausted_per_frame.toFixed(2));
  row('slot binds', r.slot_binds_per_frame.toFixed(2));
  row('slot evictions', r.slot_evictions_per_frame.toFixed(2));
  console.log('  whole run:');
  row('cache resets', r.cache_resets);
  row('largest slot tier drawn', r.max_slot_tier);
  row('layer uploads', r.layer_uploads);
  row('pipelines compiled', r.pipeline_compiles);
  row('  after the first frame', r.pipeline_compiles_after_warmup);
  const texels = r.texel_bytes > 0 ? `, texels ${mib(r.texel_bytes).toFixed(1)} MiB` : '';
  row('texture memory', `${mib(r.bytes_allocated).toFixed(1)} of ${mib(r.budget_bytes).toFixed(0)} MiB${texels}`);
  row('frame time, median', `${r.frame_ms_median.toFixed(2)} ms`);
  row('frame time, p99', `${r.frame_ms_p99.toFixed(2)} ms`);
}

async function tests(page, args, timeoutMs) {
  const list = await page.evaluate(() => window.layerbatch.tests());
  const counts = { ok: 0, failed: 0, skipped: 0 };
  const failures = [];
  const t0 = Date.now();
  for (const { name, backends } of list) {
    if (args.only && !args.only.includes(name)) continue;
    for (const backend of backends) {
      if (args.backends && !args.backends.includes(backend)) continue;
      let r;
      try {
        r = await withTimeout(
          page.evaluate(([n, b]) => window.layerbatch.runTest(n, b), [name, backend]),
          timeoutMs,
          `${name} [${backend}]`,
        );
      } catch (e) {
        r = { status: 'failed', detail: String(e.message ?? e), ms: timeoutMs };
      }
      let status = r.status;
      if (status === 'skipped' && inCi) {
        status = 'failed';
        r.detail = `CI=true and the browser offers no such path: ${r.detail}`;
      }
      counts[status] += 1;
      if (status === 'failed') failures.push(`${name} [${backend}]`);
      console.log(`test ${name} [${backend}] ... ${status} (${Math.round(r.ms)} ms): ${r.detail}`);
    }
  }
  const secs = ((Date.now() - t0) / 1000).toFixed(1);
  console.log(
    `browser tests: ${counts.failed ? 'FAILED' : 'ok'}. ${counts.ok} passed; ${counts.failed} failed; ` +
      `${counts.skipped} skipped; finished in ${secs} s`,
  );
  if (failures.length) console.log(`failures: ${failures.join(', ')}`);
  return counts.failed || counts.ok === 0 ? 1 : 0;
}

main().catch((e) => {
  console.error(`driver: ${e.stack ?? e}`);
  process.exit(1);
});
