// The stress scene on melonJS (WebGL2 renderer): one Sprite per scene sprite in the world
// container, one canvas image per scene texture, linear filtering, sub-pixel positions,
// centre anchor, alpha as layerbatch's tint, z = sprite index (drawn in index order). The
// engine's own loop is stopped; per frame: step the scene, copy positions and transforms,
// draw (`app.draw()`), barrier. Culling is not run (every sprite is marked in the viewport,
// as the scene keeps them): no engine work per frame beyond drawing.
import * as me from '/node_modules/melonjs/build/index.js';
import { Scene, VIEWPORT, FIXED_DT, texturePixels, barrier, sleep0, rendererName } from './scene.js';

const nextFrame = () => new Promise((ok) => requestAnimationFrame(() => ok()));

function canvasOf(i, w, h) {
  const c = document.createElement('canvas');
  c.width = w;
  c.height = h;
  c.getContext('2d').putImageData(new ImageData(new Uint8ClampedArray(texturePixels(i, w, h).buffer), w, h), 0, 0);
  return c;
}

async function runStress({ sprites = 20000, textures = 64, sizes = 'pow2', frames = 5 } = {}) {
  const [width, height] = VIEWPORT;
  const app = new me.Application(width, height, {
    parent: 'host',
    renderer: me.video.WEBGL,
    scale: 1,
    antiAlias: false,
    textureFilter: 'linear',
    subPixel: true,
    physic: 'none',
    consoleHeader: false,
    failIfMajorPerformanceCaveat: false,
    backgroundColor: '#000000',
  });
  await app.init();
  // Let the default stage start, then stop the engine's rAF loop: run.mjs drives the frames.
  await nextFrame();
  await nextFrame();
  me.state.stop();
  const gl = app.renderer.gl ?? app.renderer.getContext();
  const scene = new Scene({ sprites, textures, sizes });
  const images = scene.sizes.map(([w, h], i) => canvasOf(i, w, h));
  app.world.autoSort = false;
  const objs = scene.sprites.map((s, i) => {
    const o = new me.Sprite(s.x, s.y, { image: images[s.texture] });
    o.alpha = s.alpha / 255;
    app.world.addChild(o, i);
    return o;
  });
  app.world.sortNow();
  const self = [];
  let between = 0;
  window.__lbBench.reset();
  for (let n = 0; n < frames; n++) {
    between += window.__lbBench.cur.draws;
    const t0 = performance.now();
    scene.step(FIXED_DT);
    for (let i = 0; i < objs.length; i++) {
      const s = scene.sprites[i];
      const o = objs[i];
      o.pos.x = s.x;
      o.pos.y = s.y;
      o.currentTransform.identity().rotate(s.angle).scale(s.scale, s.scale);
      o.inViewport = true;
    }
    app.isDirty = true;
    app.draw();
    barrier(gl);
    self.push(performance.now() - t0);
    await sleep0();
  }
  return {
    renderer: `melonJS ${me.version}`,
    adapter: rendererName(gl),
    frames,
    self_ms: self,
    draws_between_frames: between,
  };
}

window.benchPage = { runStress };
window.benchReady = true;
