// Loads the wasm (built by scripts/web-stress.sh or scripts/web-test.sh into pkg/) and
// exposes it to the driver as `window.layerbatch`. Opened by hand, `?run=stress&backend=...`
// runs the stress scene and `?run=tests` the pixel tests, printing the results on the page.
// The stress parameters are web-stress.sh's flags: backend, sprites, textures, sizes, slots,
// arrays, quads, frames, warmup and seconds (`examples/web/src/stress.rs`, `Options`).
import init, * as wasm from './pkg/layerbatch_web.js';

const out = document.getElementById('out');
const print = (line) => {
  out.textContent += line + '\n';
  console.log(line);
};

await init();

window.layerbatch = {
  runStress: async (options) => JSON.parse(await wasm.run_stress(JSON.stringify(options))),
  tests: () => wasm.test_names().map((name) => ({ name, backends: wasm.test_backends(name) })),
  runTest: async (name, backend) => JSON.parse(await wasm.run_test(name, backend)),
};
window.layerbatchReady = true;

const query = new URLSearchParams(location.search);
const run = query.get('run');
// The options that are numbers in `Options`; `arrays` is on|off; the rest (backend, sizes,
// quads, and any unknown name, which the wasm side refuses by name) stay strings.
const NUMBERS = new Set(['sprites', 'textures', 'slots', 'frames', 'warmup', 'seconds']);
const option = (key, value) => {
  if (key === 'arrays') return value !== 'off';
  if (!NUMBERS.has(key)) return value;
  // Not a number: passed on as the string, so the error names it (Number() would send null).
  const n = Number(value);
  return value.trim() !== '' && Number.isFinite(n) ? n : value;
};

if (run === 'stress') {
  const options = {};
  for (const [key, value] of query) {
    if (key === 'run' || key === 'log') continue;
    options[key] = option(key, value);
  }
  print(`stress ${JSON.stringify(options)} ...`);
  try {
    print(JSON.stringify(await window.layerbatch.runStress(options), null, 2));
  } catch (e) {
    print(`error: ${e}`);
  }
} else if (run === 'tests') {
  for (const { name, backends } of window.layerbatch.tests()) {
    for (const backend of backends) {
      const r = await window.layerbatch.runTest(name, backend);
      print(`${r.status.padEnd(7)} ${name} [${backend}] ${r.detail} (${Math.round(r.ms)} ms)`);
    }
  }
}
