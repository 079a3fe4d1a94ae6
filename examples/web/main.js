// Loads the wasm (built by scripts/web-stress.sh or scripts/web-test.sh into pkg/) and
// exposes it to the driver as `window.layerbatch`. Opened by hand, `?run=stress&backend=...`
// runs the stress scene and `?run=tests` the pixel tests, printing the results on the page.
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
if (run === 'stress') {
  const options = {};
  for (const [key, value] of query) {
    if (key === 'run' || key === 'log') continue;
    if (key === 'backend' || key === 'sizes') options[key] = value;
    else if (key === 'arrays') options[key] = value !== 'off';
    else options[key] = Number(value);
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
