// What the browser test driver (scripts/web/driver.mjs) and the peer benchmark
// (benches/web/run.mjs) share: the static file server on 127.0.0.1, the Chromium flags, and
// a timeout around a promise. Plain Node.js: no npm package.
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';

export const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
  '.css': 'text/css',
  '.png': 'image/png',
};

// Headless Chromium rendering with SwiftShader (no GPU needed), at full speed (no throttled
// timers or rAF in the background), with WebGPU on (its fallback adapter). As root, no sandbox.
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--use-gl=angle',
  '--use-angle=swiftshader',
  '--enable-unsafe-swiftshader',
  '--enable-unsafe-webgpu',
  '--disable-renderer-backgrounding',
  '--disable-background-timer-throttling',
  '--disable-backgrounding-occluded-windows',
];

// Static files on 127.0.0.1, on a free port: `mounts` maps a URL prefix ('/bench/') to a
// directory (a null directory answers 404). Nothing outside a mount's directory is served.
export async function serve(mounts) {
  const server = createServer(async (req, res) => {
    try {
      const path = normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname));
      const mount = Object.keys(mounts).find((m) => path.startsWith(m));
      if (!mount || !mounts[mount]) throw new Error('no such mount');
      const root = mounts[mount];
      let file = join(root, path.slice(mount.length));
      if (!file.startsWith(root)) throw new Error('outside the mount');
      if ((await stat(file)).isDirectory()) file = join(file, 'index.html');
      const body = await readFile(file);
      res.writeHead(200, { 'content-type': MIME[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-store' });
      res.end(body);
    } catch {
      res.writeHead(404);
      res.end('not found');
    }
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  return server;
}

// `promise`, or an error naming `what` after `ms` milliseconds.
export async function withTimeout(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, fail) => {
    timer = setTimeout(() => fail(new Error(`${what}: no answer in ${ms / 1000} s`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
