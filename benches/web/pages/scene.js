// The stress scene of examples/support/scene.rs, ported: same generator (xorshift32), same
// draws from it in the same order, same f32 arithmetic (Math.fround at every step), same
// textures. Sprite i uses texture i % T; T textures cycle through four sizes (`sizes: 'pow2'`)
// or are all the first (`sizes: 'uniform'`, scene.rs `Sizes::Uniform`).

const f = Math.fround;

/** Texture sizes, one per array class (scene.rs `SIZES`). */
export const SIZES = [
  [16, 16],
  [32, 32],
  [64, 64],
  [32, 16],
];
/** The viewport, as natively. */
export const VIEWPORT = [800, 600];
/** Scene time per frame (the page's `FIXED_DT`): every renderer draws the same frames. */
export const FIXED_DT = f(1 / 60);
const TAU = f(2 * Math.PI);

/** xorshift32, as scene.rs `Rng`. */
export class Rng {
  constructor(seed) {
    this.s = Math.max(seed >>> 0, 1);
  }
  nextU32() {
    let x = this.s;
    x = (x ^ (x << 13)) >>> 0;
    x = (x ^ (x >>> 17)) >>> 0;
    x = (x ^ (x << 5)) >>> 0;
    this.s = x;
    return x;
  }
  /** Uniform in lo..hi: `lo + (hi - lo) * (x >> 8) as f32 / (1 << 24) as f32`, in f32. */
  range(lo, hi) {
    const n = this.nextU32() >>> 8;
    return f(lo + f(f(f(hi - lo) * n) / 16777216));
  }
}

function hsv(h, s, v) {
  const c = f(v * s);
  const x = f(c * f(1 - Math.abs(f(f(f(h / 60) % 2) - 1))));
  let rgb;
  switch (Math.trunc(f(h / 60))) {
    case 0: rgb = [c, x, 0]; break;
    case 1: rgb = [x, c, 0]; break;
    case 2: rgb = [0, c, x]; break;
    case 3: rgb = [0, x, c]; break;
    case 4: rgb = [x, 0, c]; break;
    default: rgb = [c, 0, x];
  }
  const m = f(v - c);
  // f32::round: half away from zero; `as u8` saturates.
  const q = (v) => Math.min(255, Math.max(0, Math.round(f(f(v + m) * 255))));
  return [q(rgb[0]), q(rgb[1]), q(rgb[2]), 255];
}

/** The pixels of texture `index` (RGBA8, premultiplied): solid colour, darker 2-pixel frame. */
export function texturePixels(index, w, h) {
  const hue = Math.imul(index, 97) >>> 0;
  const c = hsv(hue % 360, f(0.75), 1);
  const dark = [c[0] >> 1, c[1] >> 1, c[2] >> 1, 255];
  const px = new Uint8Array(w * h * 4);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const edge = x < 2 || y < 2 || x + 2 >= w || y + 2 >= h;
      px.set(edge ? dark : c, (y * w + x) * 4);
    }
  }
  return px;
}

/**
 * The scene (SceneOptions defaults: rotation, translucency, seed 7, pow2 sizes).
 * `sprites[i]`: { x, y, vx, vy, angle, spin, scale, texture, alpha } with x, y the centre.
 */
export class Scene {
  constructor({ sprites = 20000, textures = 64, seed = 7, sizes = 'pow2' } = {}) {
    if (sizes !== 'pow2' && sizes !== 'uniform') throw new Error(`sizes must be pow2 or uniform, not ${sizes}`);
    this.sizes = [];
    for (let i = 0; i < textures; i++) this.sizes.push(sizes === 'uniform' ? SIZES[0] : SIZES[i % SIZES.length]);
    const rng = new Rng(seed);
    const [vw, vh] = VIEWPORT;
    this.width = vw;
    this.height = vh;
    this.sprites = [];
    for (let i = 0; i < sprites; i++) {
      // Struct-literal order of scene.rs: pos, vel, angle, spin, scale.
      const x = f(rng.range(0, vw) + f(0.37));
      const y = f(rng.range(0, vh) + f(0.61));
      const vx = rng.range(-120, 120);
      const vy = rng.range(-120, 120);
      const angle = rng.range(0, TAU);
      const spin = rng.range(-2, 2);
      const scale = rng.range(f(0.75), 1.5);
      this.sprites.push({ x, y, vx, vy, angle, spin, scale, texture: i % Math.max(textures, 1), alpha: i % 4 === 3 ? 160 : 255 });
    }
  }

  /** Moves every sprite by `dt` seconds, bouncing off the edges (scene.rs `step`). */
  step(dt) {
    const { width, height } = this;
    for (const s of this.sprites) {
      s.x = f(s.x + f(s.vx * dt));
      if (s.x < 0 || s.x > width) {
        s.vx = -s.vx;
        s.x = Math.min(Math.max(s.x, 0), width);
      }
      s.y = f(s.y + f(s.vy * dt));
      if (s.y < 0 || s.y > height) {
        s.vy = -s.vy;
        s.y = Math.min(Math.max(s.y, 0), height);
      }
      s.angle = f(s.angle + f(s.spin * dt));
    }
  }
}

/** The frame barrier every page uses, as layerbatch's: `finish` and a one-pixel read. */
const onePixel = new Uint8Array(4);
export function barrier(gl) {
  gl.finish();
  gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, onePixel);
}

/** Yields to the browser between frames, as layerbatch's page does (`sleep_ms(0)`). */
export const sleep0 = () => new Promise((ok) => setTimeout(ok, 0));

/** The context's renderer string (unmasked when the browser allows). */
export function rendererName(gl) {
  const ext = gl.getExtension('WEBGL_debug_renderer_info');
  return gl.getParameter(ext ? ext.UNMASKED_RENDERER_WEBGL : gl.RENDERER);
}
