// Injected by run.mjs before any page script (playwright `addInitScript`), identically into
// every page: PixiJS's, melonJS's, layerbatch's (examples/web) and the fill page.
//
// - Context attributes: every WebGL context is created with the same attributes (FORCED),
//   whatever the renderer asks for; what each asked for is kept in `requested`.
// - Counters: draw calls (drawArrays, drawElements, drawArraysInstanced,
//   drawElementsInstanced, drawRangeElements) and texture binds (bindTexture), on the
//   WebGL/WebGL2 prototypes, so every context and every caller (JS or wasm glue) counts the
//   same way. On WebGPU: draws (draw, drawIndexed, drawIndirect, drawIndexedIndirect on
//   render passes and bundles) and setBindGroup; WebGPU has no texture binds.
// - Frame boundaries: a frame ends when its barrier returns: a 1x1 readPixels into client
//   memory (after finish: layerbatch-gl, PixiJS, melonJS, fill), a getBufferSubData of at most
//   256 bytes (wgpu's WebGL2 readback of its one-texel barrier) or the resolution of a
//   mapAsync of a buffer of at most 256 bytes (wgpu's WebGPU barrier). Each boundary records
//   the time and the counts since the previous one; frame time = time between consecutive
//   boundaries, the same clock and rule for every renderer.
(() => {
  if (window.__lbBench) return;
  const now = () => performance.now();
  const zero = () => ({ draws: 0, binds: 0, bindGroups: 0, uploads: 0 });
  const B = {
    forced: {
      alpha: true,
      depth: true,
      stencil: true,
      antialias: false,
      premultipliedAlpha: true,
      preserveDrawingBuffer: true,
      powerPreference: 'default',
      failIfMajorPerformanceCaveat: false,
      desynchronized: false,
    },
    requested: [],
    contexts: [],
    cur: zero(),
    frames: [],
    webgpu: typeof GPURenderPassEncoder !== 'undefined',
    boundary(kind) {
      this.frames.push({ t: now(), kind, ...this.cur });
      this.cur = zero();
    },
    /** Forgets frames and counts so far (a page calls it before its first frame). */
    reset() {
      this.frames = [];
      this.cur = zero();
    },
    /** The last frame, RGBA8 top row first, base64 (outside any timing). */
    snapshot() {
      // wgpu draws offscreen and shows its last frame in a 2D canvas titled '...last frame'.
      const shown = [...document.querySelectorAll('canvas')].find((c) => /last frame/.test(c.title));
      let w;
      let h;
      let px;
      if (shown) {
        ({ width: w, height: h } = shown);
        px = new Uint8Array(shown.getContext('2d').getImageData(0, 0, w, h).data.buffer);
      } else {
        const gl = [...this.contexts].reverse().find((c) => c.canvas && c.canvas.width === 800 && !c.isContextLost());
        if (!gl) return null;
        ({ drawingBufferWidth: w, drawingBufferHeight: h } = gl);
        const raw = new Uint8Array(w * h * 4);
        gl.bindFramebuffer(gl.FRAMEBUFFER, null);
        origReadPixels.call(gl, 0, 0, w, h, gl.RGBA, gl.UNSIGNED_BYTE, raw);
        px = new Uint8Array(w * h * 4);
        for (let y = 0; y < h; y++) px.set(raw.subarray((h - 1 - y) * w * 4, (h - y) * w * 4), y * w * 4);
      }
      let s = '';
      for (let i = 0; i < px.length; i += 0x8000) s += String.fromCharCode.apply(null, px.subarray(i, i + 0x8000));
      return { width: w, height: h, base64: btoa(s) };
    },
  };
  window.__lbBench = B;

  const GL_TYPES = new Set(['webgl', 'webgl2', 'experimental-webgl']);
  const origGetContext = HTMLCanvasElement.prototype.getContext;
  HTMLCanvasElement.prototype.getContext = function (type, attrs, ...rest) {
    if (GL_TYPES.has(type)) {
      B.requested.push({ type, attrs: attrs ? { ...attrs } : null });
      const ctx = origGetContext.call(this, type, { ...(attrs || {}), ...B.forced }, ...rest);
      if (ctx && !B.contexts.includes(ctx)) B.contexts.push(ctx);
      return ctx;
    }
    return origGetContext.call(this, type, attrs, ...rest);
  };

  const wrap = (proto, name, before, after) => {
    const orig = proto && proto[name];
    if (typeof orig !== 'function') return orig;
    proto[name] = function (...args) {
      if (before) before(args);
      const r = orig.apply(this, args);
      if (after) after(args, r, this);
      return r;
    };
    return orig;
  };
  const countDraw = () => {
    B.cur.draws++;
  };
  let origReadPixels;
  for (const C of [window.WebGL2RenderingContext, window.WebGLRenderingContext]) {
    if (!C) continue;
    const p = C.prototype;
    for (const n of ['drawArrays', 'drawElements', 'drawArraysInstanced', 'drawElementsInstanced', 'drawRangeElements']) {
      wrap(p, n, countDraw);
    }
    wrap(p, 'bindTexture', () => {
      B.cur.binds++;
    });
    for (const n of ['texImage2D', 'texSubImage2D', 'texImage3D', 'texSubImage3D']) {
      wrap(p, n, () => {
        B.cur.uploads++;
      });
    }
    const rp = wrap(p, 'readPixels', null, (a) => {
      // (x, y, w, h, format, type, dst ArrayBufferView[, offset]); a number is a PBO offset.
      if (a[2] * a[3] === 1 && a[6] !== null && typeof a[6] === 'object') B.boundary('readPixels');
    });
    if (C === window.WebGL2RenderingContext) origReadPixels = rp;
    wrap(p, 'getBufferSubData', null, (a) => {
      if (a[2] && a[2].byteLength <= 256) B.boundary('getBufferSubData');
    });
  }

  if (B.webgpu) {
    for (const C of [window.GPURenderPassEncoder, window.GPURenderBundleEncoder]) {
      for (const n of ['draw', 'drawIndexed', 'drawIndirect', 'drawIndexedIndirect']) wrap(C.prototype, n, countDraw);
      wrap(C.prototype, 'setBindGroup', () => {
        B.cur.bindGroups++;
      });
    }
    for (const n of ['writeTexture', 'copyExternalImageToTexture']) {
      wrap(window.GPUQueue.prototype, n, () => {
        B.cur.uploads++;
      });
    }
    const mapAsync = window.GPUBuffer.prototype.mapAsync;
    window.GPUBuffer.prototype.mapAsync = function (...args) {
      const small = this.size <= 256;
      return mapAsync.apply(this, args).then((v) => {
        if (small) B.boundary('mapAsync');
        return v;
      });
    };
  }
})();
