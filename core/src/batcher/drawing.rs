//! The drawing state: what each item pushed gets from the batcher rather than from itself
//! (blend, clip, transform, effect, lit, colour offset, tint encoding, sort key), reached through
//! [`Batcher::state`], with `save` and `restore` as a 2D canvas's. It resets at every
//! `begin_frame`.

use crate::plan::DrawState;
use crate::{Batcher, BlendMode, EffectId, SortKey, TintEncoding};

/// The batcher's drawing state ([`Batcher::state`]), borrowed from it while it is set.
///
/// ```
/// use layerbatch_core::{Batcher, BlendMode, Config, Limits, Quad, TextureDesc};
/// let mut batcher = Batcher::new(Limits::guaranteed_minimum(), Config::default())?;
/// let id = batcher.textures().register(&TextureDesc::new(4, 4), &[255; 4 * 4 * 4])?;
/// batcher.begin_frame();
/// batcher.state().save();
/// batcher.state().set_blend(BlendMode::Additive);
/// batcher.push(&Quad::rect(id, [0.0, 0.0], [4.0, 4.0]))?;
/// batcher.state().restore();
/// assert_eq!(batcher.state().draw_state().blend, BlendMode::Over);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct DrawingState<'a>(pub(super) &'a mut Batcher);

impl DrawingState<'_> {
    /// Sets how quads pushed from now on blend ([`BlendMode::Over`] at first). Lasts until
    /// changed or the frame ends: [`Batcher::begin_frame`] starts every frame from
    /// [`DrawState::default`], so a frame the host left early (`?` after a `set_clip`) cannot
    /// clip the next one. A change between two quads of a frame ends the segment there
    /// (counted as `flushes_state_change`); a change with no quad since the last one costs
    /// nothing.
    ///
    /// ```
    /// # use layerbatch_core::{Batcher, BlendMode, Config, Limits, Quad, TextureDesc};
    /// let mut batcher = Batcher::new(Limits::guaranteed_minimum(), Config::default())?;
    /// let spark = batcher.textures().register(&TextureDesc::new(4, 4), &[255; 64])?;
    /// batcher.begin_frame();
    /// batcher.push(&Quad::rect(spark, [0.0, 0.0], [4.0, 4.0]))?;
    /// batcher.state().set_blend(BlendMode::Additive); // particles
    /// batcher.push(&Quad::rect(spark, [8.0, 0.0], [4.0, 4.0]))?;
    /// batcher.state().set_blend(BlendMode::Multiply); // a shadow
    /// batcher.push(&Quad::rect(spark, [16.0, 0.0], [4.0, 4.0]))?;
    /// let plan = batcher.finish();
    /// // Additive shares the draw of "over" quads; multiply needs a draw of its own.
    /// assert_eq!(plan.segments.len(), 2);
    /// assert_eq!(plan.state(&plan.segments[1]).blend, BlendMode::Multiply);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn set_blend(&mut self, blend: BlendMode) {
        self.0.set_blend(blend)
    }

    /// Clips quads pushed from now on to `[x, y, width, height]` of the target (pixels, y
    /// down), or not at all with `None` (the default). Lasts until changed or the frame ends;
    /// see [`DrawingState::set_blend`] for what a change costs.
    pub fn set_clip(&mut self, clip_px: Option<[u32; 4]>) {
        self.0.set_clip(clip_px)
    }

    /// Transforms the corners of quads pushed from now on by the affine `[a, b, c, d, tx,
    /// ty]`: `(x, y)` is drawn at `(a x + c y + tx, b x + d y + ty)`. A camera: pan, zoom and
    /// rotation without touching the quads. Identity at first; lasts until changed or the
    /// frame ends; see [`DrawingState::set_blend`] for what a change costs. A non-finite transform
    /// is ignored. Takes an [`Affine2`](crate::Affine2), the `[f32; 6]` above, or with the
    /// `mint` feature a `mint::ColumnMatrix2x3<f32>` or `mint::ColumnMatrix3<f32>`.
    pub fn set_transform(&mut self, transform: impl Into<crate::Affine2>) {
        self.0.set_transform(transform)
    }

    /// Quads pushed from now on (and meshes, nine-slices, shapes and text) draw with `effect`,
    /// one of [`Config::effects`](crate::Config::effects) by its id (made by the budget:
    /// [`crate::Budget::effect_id`]), and its 4 `params` (each clamped to `0.0..=1.0`, NaN to
    /// 0, carried in 8 bits). [`EffectId::NONE`] turns effects off. Cannot fail: an id is
    /// checked when the budget makes it (one of another budget's this one lacks draws no
    /// effect, said once at `warn!`).
    /// Lasts until set again; [`Batcher::begin_frame`] starts every frame without an effect.
    ///
    /// The effect is per quad: changing it never ends a draw (every tier program has every
    /// declared effect, compiled when the renderer was made). A resident layer drawn now
    /// ([`crate::Batcher::draw_resident`]) is drawn under it too, its quads not rewritten.
    ///
    /// ```
    /// use layerbatch_core::{Batcher, Config, Effect, EffectId, Limits, Quad, TextureDesc};
    /// const EFFECTS: [Effect; 5] = Effect::BUILT_IN; // flash, greyscale, dissolve, outline, palette
    /// let mut batcher = Batcher::new(Limits::guaranteed_minimum(), Config::default().with_effects(&EFFECTS))?;
    /// let enemy = batcher.textures().register(&TextureDesc::new(16, 16), &[255; 16 * 16 * 4])?;
    /// batcher.begin_frame();
    /// let flash = batcher.budget().effect_id(&Effect::FLASH).expect("declared");
    /// batcher.state().set_effect(flash, [1.0, 1.0, 1.0, 0.8]); // flash white, 80%
    /// batcher.push(&Quad::rect(enemy, [0.0, 0.0], [16.0, 16.0]))?;
    /// batcher.state().set_effect(EffectId::NONE, [0.0; 4]);
    /// batcher.push(&Quad::rect(enemy, [20.0, 0.0], [16.0, 16.0]))?;
    /// let plan = batcher.finish();
    /// assert_eq!(plan.segments.len(), 1); // one draw
    /// assert_eq!((plan.instances[0].effect, plan.instances[0].effect_params), (1, [255, 255, 255, 204]));
    /// assert_eq!(plan.instances[1].effect, 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn set_effect(&mut self, effect: EffectId, params: [f32; 4]) {
        self.0.set_effect(effect, params)
    }

    /// Quads pushed from now on (and meshes, nine-slices, shapes and text) are lit (`true`) by
    /// the frame's ambient colour and point lights, or drawn as they are (`false`, the state
    /// every frame begins in). Lit and unlit quads share draws: being lit is a bit of the
    /// instance. A lit quad's texture with a normal map ([`TextureStore::register_normal_map`](crate::TextureStore::register_normal_map))
    /// is shaded by it, rotated with the quad; without one the quad faces the viewer.
    ///
    /// ```
    /// use layerbatch_core::{Batcher, Config, Limits, PointLight, Quad, TextureDesc};
    /// use layerbatch_core::plan::Instance;
    /// let mut batcher = Batcher::new(Limits::guaranteed_minimum(), Config::default().with_lights(8))?;
    /// let wall = batcher.textures().register(&TextureDesc::new(16, 16), &[255; 16 * 16 * 4])?;
    /// batcher.textures().register_normal_map(wall, &[128, 128, 255, 255].repeat(16 * 16))?;
    /// batcher.begin_frame();
    /// batcher.set_ambient([0.1, 0.1, 0.2])?;
    /// batcher.add_light(PointLight::new([8.0, 8.0], 64.0, [1.0, 0.9, 0.7]))?;
    /// batcher.state().set_lit(true);
    /// batcher.push(&Quad::rect(wall, [0.0, 0.0], [16.0, 16.0]))?;
    /// batcher.state().set_lit(false);
    /// batcher.push(&Quad::rect(wall, [16.0, 0.0], [16.0, 16.0]))?; // the HUD: unlit
    /// let plan = batcher.finish();
    /// assert_eq!((plan.segments.len(), plan.lights.len()), (1, 1));
    /// assert_ne!(plan.instances[0].effect & Instance::EFFECT_LIT, 0);
    /// assert_ne!(plan.instances[0].flags() & Instance::FLAG_NORMAL_MAP, 0);
    /// assert_eq!(plan.instances[1].effect & Instance::EFFECT_LIT, 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// Cannot fail: a batcher made without lights has nothing to light by, and draws every
    /// quad as it is.
    pub fn set_lit(&mut self, lit: bool) {
        self.0.set_lit(lit)
    }

    /// Adds `rgb` (`0..=255` for `0.0..=1.0`), times its coverage, to the colour each item
    /// pushed from now on draws, after its tint, lights and effect: a "second tint" that
    /// brightens towards white where the tint can only darken (a hit flash, a selection
    /// glow) with no effect declared. Drawing state: `[0, 0, 0]` (none) at `begin_frame`,
    /// saved and restored with the rest; a resident layer drawn now gets it too. Premultiplied, the
    /// colour drawn is `rgb + offset * a`, so a sprite's transparent texels stay transparent.
    ///
    /// ```
    /// use layerbatch_core::{plan::Instance, Batcher, Config, Limits, Quad, TextureDesc};
    /// let mut batcher = Batcher::new(Limits::guaranteed_minimum(), Config::default())?;
    /// let hero = batcher.textures().register(&TextureDesc::new(8, 8), &[128; 8 * 8 * 4])?;
    /// batcher.begin_frame();
    /// batcher.state().set_color_offset([255, 64, 0]); // hit: flare orange
    /// batcher.push(&Quad::rect(hero, [0.0, 0.0], [8.0, 8.0]))?;
    /// let plan = batcher.finish();
    /// assert_eq!(plan.instances[0].effect >> Instance::COLOR_OFFSET_SHIFT, 0x00_40_ff);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn set_color_offset(&mut self, rgb: [u8; 3]) {
        self.0.set_color_offset(rgb)
    }

    /// How the `color` of quads, nine-slices and mesh vertices pushed from now on is read:
    /// premultiplied on the linear scale ([`TintEncoding::Linear`], at first) or on the sRGB
    /// curve ([`TintEncoding::Srgb`], decoded in the vertex shader: dark tints as fine as an
    /// sRGB image's). Rides on each instance ([`Instance::FLAG_SRGB_TINT`](crate::plan::Instance::FLAG_SRGB_TINT)):
    /// no draw breaks. Drawing state: linear at `begin_frame`, saved and restored with the
    /// rest. Text is drawn with linear tints whatever it is (its colours are premultiplied
    /// linear: `Batcher::draw_text`), and a resident layer's quads keep the linear scale (the
    /// encoding is not stored with them).
    ///
    /// ```
    /// use layerbatch_core::{plan::Instance, srgb_tint, Batcher, Config, Limits, Quad, TintEncoding};
    /// let mut batcher = Batcher::new(Limits::guaranteed_minimum(), Config::default())?;
    /// let white = batcher.textures().white()?;
    /// batcher.begin_frame();
    /// batcher.state().set_tint_encoding(TintEncoding::Srgb);
    /// // A dark navy box, sRGB (17, 24, 39): stored as those bytes, not as linear (1, 2, 5).
    /// let navy = srgb_tint([17.0 / 255.0, 24.0 / 255.0, 39.0 / 255.0, 1.0]);
    /// batcher.push(&Quad::solid(white, [0.0, 0.0], [8.0, 8.0], navy))?;
    /// let plan = batcher.finish();
    /// assert_eq!(plan.instances[0].color, [17, 24, 39, 255]);
    /// assert_ne!(plan.instances[0].flags() & Instance::FLAG_SRGB_TINT, 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn set_tint_encoding(&mut self, encoding: TintEncoding) {
        self.0.set_tint_encoding(encoding)
    }

    /// Sorts the frame: items pushed from now on (quads, meshes, text, nine-slices, shapes,
    /// resident layer draws) get `key`, and [`Batcher::finish`] orders the frame's items by
    /// key, then by submission order (a stable sort), before planning it: the plan is the
    /// one the items would give pushed in that order. A frame in which no key is set keeps
    /// painter's order and pays nothing; [`Batcher::begin_frame`] starts every frame so.
    ///
    /// Items pushed before the first key of a frame have [`SortKey::default`] (`z` 0, `y` 0),
    /// as does everything after `begin_frame` until a key is set. The key lasts until it is
    /// set again, so give the layers above a y-sorted world their own `z` (a HUD pushed last
    /// without a key of its own would sort among the world's last key). An explicit
    /// [`Batcher::flush`] is placed like an item with the key of its time.
    ///
    /// Textures never break a draw, so a sorted frame of one draw state (blend, clip,
    /// transform) is one draw; a frame mixing states draws one segment per run of a state in
    /// key order. The sort is a radix sort over the bits in which the frame's keys differ,
    /// packed with each item's index into 8 bytes: see `docs/sorting.md` for its cost per quad.
    ///
    /// ```
    /// use layerbatch_core::{Batcher, Config, Limits, Quad, SortKey, TextureDesc};
    /// let mut batcher = Batcher::new(Limits::guaranteed_minimum(), Config::default())?;
    /// let hero = batcher.textures().register(&TextureDesc::new(16, 32), &[255; 16 * 32 * 4])?;
    /// let tree = batcher.textures().register(&TextureDesc::new(32, 64), &[128; 32 * 64 * 4])?;
    /// batcher.begin_frame();
    /// let sprites = [Quad::rect(hero, [40.0, 30.0], [16.0, 32.0]), Quad::rect(tree, [32.0, 0.0], [32.0, 64.0])];
    /// for quad in &sprites {
    ///     batcher.state().set_sort_key(SortKey::by_feet(0, quad)); // feet at y 62 and 64
    ///     batcher.push(quad)?;
    /// }
    /// batcher.state().set_sort_key(SortKey::z(1)); // the HUD, over the world
    /// batcher.push(&Quad::rect(hero, [0.0, 0.0], [8.0, 16.0]))?;
    /// let plan = batcher.finish();
    /// assert_eq!(plan.segments.len(), 1); // two textures, sorted, one draw
    /// assert_eq!(plan.instances[0].origin, [40.0, 30.0]); // the hero stands behind the tree
    /// assert_eq!(plan.counters.sorted_items, 3);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn set_sort_key(&mut self, key: SortKey) {
        self.0.set_sort_key(key)
    }

    /// Saves the drawing state quads get now: the draw state ([`DrawingState::draw_state`]: blend,
    /// clip, transform), the effect and its parameters ([`DrawingState::effect`]), being lit
    /// ([`DrawingState::lit`]) and the sort key ([`DrawingState::sort_key`]), on a stack.
    /// [`DrawingState::restore`] puts the last saved back. The stack is the frame's:
    /// it empties when a frame begins (which resets the state) and when it ends. Frame-wide values (ambient light,
    /// time, lights) are not drawing state and are not saved.
    ///
    /// ```
    /// # use layerbatch_core::{Batcher, BlendMode, Config, Limits, Quad, SortKey, TextureDesc};
    /// let mut batcher = Batcher::new(Limits::guaranteed_minimum(), Config::default())?;
    /// let tex = batcher.textures().register(&TextureDesc::new(4, 4), &[255; 64])?;
    /// batcher.begin_frame();
    /// batcher.state().save();
    /// batcher.state().set_blend(BlendMode::Multiply);
    /// batcher.state().set_sort_key(SortKey::z(2));
    /// batcher.push(&Quad::rect(tex, [0.0, 0.0], [4.0, 4.0]))?;
    /// assert!(batcher.state().restore());
    /// assert_eq!((batcher.state().draw_state().blend, batcher.state().sort_key()), (BlendMode::Over, SortKey::default()));
    /// assert!(!batcher.state().restore()); // nothing saved: nothing changes
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn save(&mut self) {
        self.0.save_state()
    }

    /// Puts back the drawing state of the last [`DrawingState::save`] of this frame, as if
    /// each part had been set again (a changed draw state ends the segment at the next quad;
    /// the effect, lit and the sort key ride on each quad and cost no draw). Returns `false`,
    /// changing nothing, when nothing is saved.
    pub fn restore(&mut self) -> bool {
        self.0.restore_state()
    }

    /// The draw state quads pushed from now on get.
    pub fn draw_state(&self) -> DrawState {
        self.0.draw_state()
    }

    /// The effect quads pushed now draw with, and its parameters as carried (`0..=255`).
    pub fn effect(&self) -> (EffectId, [u8; 4]) {
        self.0.effect()
    }

    /// Whether quads pushed now are lit.
    pub fn lit(&self) -> bool {
        self.0.lit()
    }

    /// The key items pushed now get ([`SortKey::default`] when none was set this frame).
    pub fn sort_key(&self) -> SortKey {
        self.0.sort_key()
    }

    /// The colour offset items pushed now draw with ([`DrawingState::set_color_offset`]).
    pub fn color_offset(&self) -> [u8; 3] {
        self.0.color_offset()
    }

    /// How the colours of items pushed now are read ([`DrawingState::set_tint_encoding`]).
    pub fn tint_encoding(&self) -> TintEncoding {
        self.0.tint_encoding()
    }
}
