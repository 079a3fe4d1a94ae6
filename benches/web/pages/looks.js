// The looks scene of issue 29 (tests/kit/src/looks.rs) on PixiJS 8 (WebGL2), the PixiJS way,
// from the scene's JSON (the layerbatch page's `looks_scene_json`): one Sprite per sprite of
// the scene, added in the scene's y-sorted order (by the bottom edge, stable), turned a
// quarter (rotation) or flipped (scale.x = -1) as the scene says, tinted; a solid shape is
// Texture.WHITE tinted; a sprite with an effect gets a Filter of its own (PixiJS filters carry
// their uniforms, so one instance per sprite) whose fragment shader is that effect's GLSL function
// from the scene (naga's translation of its WGSL, as layerbatch-gl runs it), unchanged: `color` the filter's input texel, `texel` its position in input
// pixels, `params` and `time_s` uniforms, `lb_texel` / `lb_alpha` the input elsewhere, `lb_ramp`
// the scene's ramp (a texture resource of the filter, for the palette). PixiJS 8 has
// no 2D lights or normal maps: the lit sprites are drawn unlit here (layerbatch lights them).
// Driven by run.mjs through `window.benchPage.runLooks`.
import * as PIXI from '/node_modules/pixi.js/dist/pixi.mjs';
import { barrier, sleep0, rendererName } from './scene.js';

function texture(pixels, side, height = side) {
  return new PIXI.Texture({
    source: new PIXI.BufferImageSource({
      resource: new Uint8Array(pixels),
      width: side,
      height,
      format: 'rgba8unorm',
      alphaMode: 'premultiplied-alpha',
      scaleMode: 'nearest',
      addressMode: 'clamp-to-edge',
      autoGenerateMipmaps: false,
    }),
  });
}

/** The fragment shader of one effect (the scene's GLSL: the `lb_effect` function naga makes of its WGSL). */
function fragment(body) {
  // GLSL ES 3.00 as layerbatch compiles the bodies (uvec2, bit operations): PixiJS compiles a
  // filter without the version line as GLSL ES 1.00.
  return `#version 300 es
in vec2 vTextureCoord;
out vec4 finalColor;
uniform sampler2D uTexture;
uniform highp vec4 uInputSize; // as the vertex stage declares it: uniforms shared by both stages match in precision
uniform vec4 uParams;
uniform float uTime;
uniform sampler2D uRamp;

vec4 lb_texel(vec2 texel) {
    vec2 uv = texel * uInputSize.zw;
    if (any(lessThan(uv, vec2(0.0))) || any(greaterThan(uv, vec2(1.0)))) { return vec4(0.0); }
    return texture(uTexture, uv);
}

float lb_alpha(vec2 texel) {
    return lb_texel(texel).a;
}

vec4 lb_ramp(float index, float row) {
    ivec2 at = ivec2(floor(clamp(vec2(index, row), 0.0, 1.0) * 255.0 + 0.5));
    return texelFetch(uRamp, at, 0);
}

${body}

void main() {
    finalColor = lb_effect(texture(uTexture, vTextureCoord), vTextureCoord * uInputSize.xy, uParams, uTime);
}
`;
}

function filterFor(effect, params, timeS, ramp) {
  return PIXI.Filter.from({
    gl: { vertex: PIXI.defaultFilterVert, fragment: fragment(effect.glsl), name: `looks-${effect.name}` },
    resources: {
      uRamp: ramp.source,
      looks: new PIXI.UniformGroup({
        uParams: { value: new Float32Array(params), type: 'vec4<f32>' },
        uTime: { value: timeS, type: 'f32' },
      }),
    },
  });
}

/**
 * Draws `scene` (the kit's looks scene as JSON) `frames` times. Returns each frame's own time
 * (render + barrier) and the counts the page knows; draws and frame boundaries come from
 * instrument.js.
 */
async function runLooks({ scene, frames = 8 }) {
  const [width, height] = scene.size_px;
  const renderer = new PIXI.WebGLRenderer();
  await renderer.init({
    width,
    height,
    background: 0x000000,
    backgroundAlpha: 1,
    antialias: false,
    resolution: 1,
    autoDensity: false,
    preserveDrawingBuffer: true,
    preferWebGLVersion: 2,
    hello: false,
  });
  document.getElementById('host').appendChild(renderer.canvas);
  const gl = renderer.gl;
  const side = scene.tex_px;
  const textures = scene.textures.map((px) => texture(px, side));
  // The ramp: 256 x 256 straight RGBA8, the scene's rows written, the rest transparent.
  const rampPx = new Uint8Array(256 * 256 * 4);
  for (const { row, colors } of scene.ramp) {
    colors.forEach((c, k) => rampPx.set(c, (row * 256 + k) * 4));
  }
  const ramp = texture(rampPx, 256, 256);
  const stage = new PIXI.Container();
  const order = scene.sprites.map((s, i) => [s.at[1] + side, i]).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let filters = 0;
  for (const [, i] of order) {
    const s = scene.sprites[i];
    const o = new PIXI.Sprite(s.texture === null ? PIXI.Texture.WHITE : textures[s.texture]);
    o.width = side;
    o.height = side;
    if (s.turn === 1) {
      o.position.set(s.at[0] + side, s.at[1]);
      o.rotation = Math.PI / 2;
    } else if (s.turn === 2) {
      o.position.set(s.at[0] + side, s.at[1]);
      o.scale.x = -o.scale.x;
    } else {
      o.position.set(s.at[0], s.at[1]);
    }
    o.tint = (s.tint[0] << 16) | (s.tint[1] << 8) | s.tint[2];
    if (s.effect > 0) {
      o.filters = [filterFor(scene.effects[s.effect - 1], s.params, scene.time_s, ramp)];
      filters++;
    }
    stage.addChild(o);
  }
  const self = [];
  let between = 0;
  window.__lbBench.reset();
  for (let n = 0; n < frames; n++) {
    between += window.__lbBench.cur.draws;
    const t0 = performance.now();
    renderer.render(stage);
    barrier(gl);
    self.push(performance.now() - t0);
    await sleep0();
  }
  return {
    renderer: `PixiJS ${PIXI.VERSION}`,
    adapter: rendererName(gl),
    maxBatchableTextures: renderer.limits?.maxBatchableTextures,
    sprites: scene.sprites.length,
    filters,
    frames,
    self_ms: self,
    draws_between_frames: between,
  };
}

window.benchPage = { runLooks };
window.benchReady = true;
