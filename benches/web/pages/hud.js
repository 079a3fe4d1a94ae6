// The HUD scene of issue 18 (tests/kit/src/hud/mod.rs, `hud::scene(seed)`) on PixiJS 8
// (WebGL2), from the scene's JSON (the layerbatch page's `hud_scene_json`): one display
// object per item, in the scene's z order:
//   Sprite      -> Sprite (texture i regenerated here by scene.js `texturePixels`, as the kit's
//                  `scene::texture_pixels`), anchor at the centre, tint and alpha, blend 'add'
//                  for additive items;
//   NineSlice   -> NineSliceSprite of the panel texture (`panelPixels`, a port of the kit's
//                  `hud::panel_pixels`), 12-texel borders;
//   RoundedRect, Line, Polyline, Circle, Polygon -> one Graphics each (fill and stroke as the
//                  item says; lines butt-capped, polylines round-capped and round-joined);
//   Text        -> Text in the same font file (loaded with FontFace from the layerbatch site's
//                  fonts/), size, colour and top-left position.
// Colours are straight RGBA8: tint = RGB, alpha = A / 255. Every frame renders the stage
// (PixiJS keeps its display list; layerbatch records the frame again) and ends with the same
// barrier as every page. Driven by run.mjs through `window.benchPage.runHud`.
import * as PIXI from '/node_modules/pixi.js/dist/pixi.mjs';
import { texturePixels, barrier, sleep0, rendererName } from './scene.js';

/** The kit's panel texture size and border (hud::PANEL_PX, hud::PANEL_BORDER_PX). */
const PANEL_PX = 48;
const PANEL_BORDER_PX = 12;

/** `hud::panel_pixels`: a light panel, a dark frame, rounded transparent corners (RGBA8). */
export function panelPixels() {
  const n = PANEL_PX;
  const px = new Uint8Array(n * n * 4);
  for (let y = 0; y < n; y++) {
    for (let x = 0; x < n; x++) {
      const dx = Math.min(x, n - 1 - x) + 0.5;
      const dy = Math.min(y, n - 1 - y) + 0.5;
      const r = 10;
      const outside = dx < r && dy < r && Math.hypot(r - dx, r - dy) > r;
      const frame = dx < PANEL_BORDER_PX * 0.5 || dy < PANEL_BORDER_PX * 0.5;
      px.set(outside ? [0, 0, 0, 0] : frame ? [40, 50, 90, 255] : [200, 210, 230, 255], (y * n + x) * 4);
    }
  }
  return px;
}

const rgb = (c) => (c[0] << 16) | (c[1] << 8) | c[2];
const style = (c) => ({ color: rgb(c), alpha: c[3] / 255 });

function texture(pixels, width, height) {
  return new PIXI.Texture({
    source: new PIXI.BufferImageSource({
      resource: pixels,
      width,
      height,
      format: 'rgba8unorm',
      // Opaque or fully transparent texels: straight and premultiplied are the same bytes.
      alphaMode: 'premultiplied-alpha',
      scaleMode: 'linear',
      addressMode: 'clamp-to-edge',
      autoGenerateMipmaps: false,
    }),
  });
}

/** The font families, by the scene's `HudFont` names, loaded from `urls` (same order). */
async function loadFonts(urls) {
  const families = {};
  for (const [name, url] of Object.entries(urls)) {
    const family = `Hud${name}`;
    const face = new FontFace(family, `url(${url})`);
    await face.load();
    document.fonts.add(face);
    families[name] = family;
  }
  return families;
}

/** One display object for one item (serde's externally tagged enum: `{ Kind: {...} }`). */
function displayObject(item, textures, panel, families) {
  const [kind, v] = Object.entries(item)[0];
  switch (kind) {
    case 'Sprite': {
      const o = new PIXI.Sprite(textures[v.texture]);
      o.anchor.set(0.5);
      o.position.set(v.center[0], v.center[1]);
      o.width = v.size[0];
      o.height = v.size[1];
      o.rotation = v.angle_rad;
      o.tint = rgb(v.tint);
      o.alpha = v.tint[3] / 255;
      o.blendMode = v.blend === 'Additive' ? 'add' : 'normal';
      return o;
    }
    case 'NineSlice': {
      const [x, y, w, h] = v.rect;
      const o = new PIXI.NineSliceSprite({
        texture: panel,
        leftWidth: PANEL_BORDER_PX,
        topHeight: PANEL_BORDER_PX,
        rightWidth: PANEL_BORDER_PX,
        bottomHeight: PANEL_BORDER_PX,
        width: w,
        height: h,
      });
      o.position.set(x, y);
      o.tint = rgb(v.tint);
      o.alpha = v.tint[3] / 255;
      return o;
    }
    case 'RoundedRect': {
      const [x, y, w, h] = v.rect;
      const g = new PIXI.Graphics().roundRect(x, y, w, h, v.radius).fill(style(v.fill));
      if (v.stroke) g.stroke({ width: v.stroke[0], ...style(v.stroke[1]) });
      return g;
    }
    case 'Line':
      return new PIXI.Graphics()
        .moveTo(v.from[0], v.from[1])
        .lineTo(v.to[0], v.to[1])
        .stroke({ width: v.width, ...style(v.color), cap: 'butt' });
    case 'Polyline': {
      const g = new PIXI.Graphics().moveTo(v.points[0][0], v.points[0][1]);
      for (const p of v.points.slice(1)) g.lineTo(p[0], p[1]);
      return g.stroke({ width: v.width, ...style(v.color), cap: 'round', join: 'round' });
    }
    case 'Circle': {
      const g = new PIXI.Graphics().circle(v.center[0], v.center[1], v.radius);
      if (v.fill) g.fill(style(v.fill));
      if (v.stroke) g.stroke({ width: v.stroke[0], ...style(v.stroke[1]) });
      return g;
    }
    case 'Polygon':
      return new PIXI.Graphics().poly(v.points.flat(), true).fill(style(v.color));
    case 'Text': {
      const o = new PIXI.Text({
        text: v.text,
        style: { fontFamily: families[v.font], fontSize: v.size_px, fill: rgb(v.color) },
        resolution: 1,
      });
      o.position.set(v.pos[0], v.pos[1]);
      o.alpha = v.color[3] / 255;
      return o;
    }
    default:
      throw new Error(`hud: unknown item kind ${kind}`);
  }
}

/**
 * Draws `scene` (the kit's HudScene as JSON) `frames` times; `fonts` maps Latin, Cjk and
 * Emoji to font file URLs. Returns each frame's own time (render + barrier) and the counts the
 * page knows; draws and frame boundaries come from instrument.js.
 */
async function runHud({ scene, fonts, frames = 8 }) {
  const [width, height] = scene.size_px;
  const families = await loadFonts(fonts);
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
  const textures = scene.textures.map((t, i) => texture(texturePixels(i, t.width_px, t.height_px), t.width_px, t.height_px));
  const panel = texture(panelPixels(), PANEL_PX, PANEL_PX);
  const stage = new PIXI.Container();
  const kinds = {};
  for (const item of scene.items) {
    stage.addChild(displayObject(item, textures, panel, families));
    const kind = Object.keys(item)[0];
    kinds[kind] = (kinds[kind] ?? 0) + 1;
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
    items: scene.items.length,
    kinds,
    frames,
    self_ms: self,
    draws_between_frames: between,
  };
}

window.benchPage = { runHud, panelPixels };
window.benchReady = true;
