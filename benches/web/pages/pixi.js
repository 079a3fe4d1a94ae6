// The stress scene on PixiJS 8 (WebGL2): one Sprite per scene sprite, one Texture per scene
// texture (raw RGBA8, premultiplied, linear, clamp to edge, no mipmaps), anchor at the centre,
// alpha as layerbatch's tint. Per frame: step the scene, copy positions and angles, render,
// barrier. Driven by run.mjs through `window.benchPage.runStress`. With `particles`, one
// Particle per sprite in a ParticleContainer (position and rotation dynamic, the rest static):
// PixiJS's fastest path, for one texture only (its particles share one texture source).
import * as PIXI from '/node_modules/pixi.js/dist/pixi.mjs';
import { Scene, VIEWPORT, FIXED_DT, texturePixels, barrier, sleep0, rendererName } from './scene.js';

async function runStress({ sprites = 20000, textures = 64, sizes = 'pow2', frames = 5, particles = false } = {}) {
  if (particles && textures !== 1) throw new Error('a ParticleContainer draws one texture source');
  const [width, height] = VIEWPORT;
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
  const scene = new Scene({ sprites, textures, sizes });
  const texs = scene.sizes.map(
    ([w, h], i) =>
      new PIXI.Texture({
        source: new PIXI.BufferImageSource({
          resource: texturePixels(i, w, h),
          width: w,
          height: h,
          alphaMode: 'premultiplied-alpha',
          scaleMode: 'linear',
          addressMode: 'clamp-to-edge',
          autoGenerateMipmaps: false,
        }),
      }),
  );
  const stage = new PIXI.Container();
  let objs;
  if (particles) {
    const container = new PIXI.ParticleContainer({
      texture: texs[0],
      dynamicProperties: { position: true, rotation: true, vertex: false, uvs: false, color: false },
    });
    objs = scene.sprites.map((s) => {
      const p = new PIXI.Particle({
        texture: texs[s.texture],
        anchorX: 0.5,
        anchorY: 0.5,
        scaleX: s.scale,
        scaleY: s.scale,
        alpha: s.alpha / 255,
      });
      container.addParticle(p);
      return p;
    });
    stage.addChild(container);
  } else {
    objs = scene.sprites.map((s) => {
      const o = new PIXI.Sprite(texs[s.texture]);
      o.anchor.set(0.5);
      o.scale.set(s.scale);
      o.alpha = s.alpha / 255;
      stage.addChild(o);
      return o;
    });
  }
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
      if (particles) {
        o.x = s.x;
        o.y = s.y;
      } else {
        o.position.set(s.x, s.y);
      }
      o.rotation = s.angle;
    }
    renderer.render(stage);
    barrier(gl);
    self.push(performance.now() - t0);
    await sleep0();
  }
  return {
    renderer: `PixiJS ${PIXI.VERSION}${particles ? ' ParticleContainer' : ''}`,
    adapter: rendererName(gl),
    maxBatchableTextures: renderer.limits?.maxBatchableTextures,
    frames,
    self_ms: self,
    draws_between_frames: between,
  };
}

window.benchPage = { runStress };
window.benchReady = true;
