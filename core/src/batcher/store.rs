//! The texture store: what outlives frames (textures and their pixels, the arrays they live
//! in, normal maps, the ramp, resident layers), reached through [`Batcher::textures`].
//! Everything here is long-lived: a write applies to the plan being built and to every one
//! after, whatever frame is open.

use crate::plan::{ArrayId, ResourceOp};
#[cfg(feature = "ktx2")]
use crate::FileError;
#[cfg(feature = "image")]
use crate::ImageError;
use crate::{
    Batcher, FormatMemory, Motion, Quad, RampError, ResidentError, ResidentId, TextureDesc, TextureError, TextureId,
};

/// The batcher's texture store ([`Batcher::textures`]): registering, updating, resizing and
/// freeing textures, normal maps, the ramp, resident layers, and what they hold. Borrowed
/// from the batcher for as long as it is used.
///
/// ```
/// use layerbatch_core::{Batcher, Config, Limits, TextureDesc};
/// let mut batcher = Batcher::new(Limits::guaranteed_minimum(), Config::default())?;
/// let id = batcher.textures().register(&TextureDesc::new(4, 4), &[255; 4 * 4 * 4])?;
/// assert!(batcher.contains(id));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct TextureStore<'a>(pub(super) &'a mut Batcher);

impl<'a> TextureStore<'a> {
    /// Registers a texture with its pixels and admits it into an array: for RGBA8, level 0
    /// (tightly packed rows, top row first, premultiplied alpha: the backends blend `ONE,
    /// ONE_MINUS_SRC_ALPHA`), whose mips core makes; for a compressed format, every level's
    /// blocks, level after level, rows of blocks top first ([`TextureDesc::byte_len`]). A
    /// [`Usage::RenderTarget`](crate::Usage::RenderTarget) may pass empty `pixels`.
    ///
    /// ```
    /// # use layerbatch_core::{Batcher, Config, Format, FormatFamilies, FormatFamily, Limits, TextureDesc};
    /// let limits = Limits::guaranteed_minimum().with_format_families(FormatFamilies::RGBA8.with(FormatFamily::Bc));
    /// let mut batcher = Batcher::new(limits, Config::default())?;
    /// let desc = TextureDesc::new(30, 20).with_format(Format::Bc1RgbaUnorm); // 8x5 blocks
    /// let id = batcher.textures().register(&desc, &[0; 8 * 5 * 8])?;
    /// assert_eq!(batcher.placement(id)?.rect_px[2..], [30, 20]); // in a 32x20 rectangle of a BC1 page
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`TextureError`] for a zero or oversized texture, bad mip count, wrong pixel length, a
    /// format the device lacks ([`TextureError::FormatUnsupported`]), a compressed render
    /// target, or an exhausted budget (then nothing changes).
    pub fn register(&mut self, desc: &TextureDesc, pixels: &[u8]) -> Result<TextureId, TextureError> {
        self.0.register(desc, pixels)
    }

    /// Replaces a texture's pixels (same size). Takes effect for the whole frame being built:
    /// uploads are applied before any draw.
    ///
    /// # Errors
    /// [`TextureError::Stale`] or [`TextureError::PixelLength`].
    pub fn update(&mut self, id: TextureId, pixels: &[u8]) -> Result<(), TextureError> {
        self.0.update(id, pixels)
    }

    /// Replaces the pixels of a rectangle `[x, y, width, height]` of a texture (texels, top
    /// left origin), e.g. a glyph in a glyph cache or a frame of a dynamic atlas: one layer
    /// write of just that rectangle. `pixels` are tightly packed rows of the rectangle, in the
    /// texture's format, premultiplied. Like [`TextureStore::update`] it applies to the whole frame
    /// being built.
    ///
    /// ```
    /// # use layerbatch_core::{Batcher, Config, Limits, TextureDesc};
    /// let mut batcher = Batcher::new(Limits::guaranteed_minimum(), Config::default())?;
    /// let atlas = batcher.textures().register(&TextureDesc::new(64, 64), &[0; 64 * 64 * 4])?;
    /// batcher.textures().update_region(atlas, [8, 16, 4, 2], &[255; 4 * 2 * 4])?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`TextureError::Stale`]; [`TextureError::Region`] for an empty rectangle, one reaching
    /// past the texture, or a texture with mip levels (its smaller levels could not follow);
    /// [`TextureError::BlockAlign`] for a compressed texture's rectangle not in whole blocks;
    /// [`TextureError::PixelLength`] when `pixels` is not the rectangle's size (in blocks,
    /// compressed).
    pub fn update_region(&mut self, id: TextureId, rect_px: [u32; 4], pixels: &[u8]) -> Result<(), TextureError> {
        self.0.update_region(id, rect_px, pixels)
    }

    /// Changes a [`Usage::Dynamic`](crate::Usage::Dynamic) texture's size and pixels, or a
    /// [`Usage::Host`](crate::Usage::Host) texture's size (no pixels, between frames: hand the
    /// backend the host's texture of the new size before the next plan runs). Its one-texture array is
    /// replaced; the id stays valid. Quads pushed before the resize in the frame being
    /// recorded still draw the old pixels (unlike [`TextureStore::update`], whose pixels apply to
    /// the whole frame): the old array lives until the frame is planned. Its normal map, if
    /// it had one, is dropped (register one of the new size again).
    ///
    /// # Errors
    /// [`TextureError::NotDynamic`], [`TextureError::Stale`], [`TextureError::HostPixels`] and
    /// [`TextureError::HostResizeInFrame`] for a host texture, or any registration error for
    /// the new size (then the texture keeps its old size and pixels).
    pub fn resize(&mut self, id: TextureId, width_px: u32, height_px: u32, pixels: &[u8]) -> Result<(), TextureError> {
        self.0.resize(id, width_px, height_px, pixels)
    }

    /// Tells the batcher the host drew into host texture `id` ([`Usage::Host`](crate::Usage::Host)):
    /// where its array is a copy ([`crate::Limits::host_texture_views`] off: GL, GLES, WebGL2,
    /// wgpu's GL backend) the next plan copies it again on the GPU, when its ops run (so draw
    /// into it before the backend runs that plan: `prepare`, or GL's `paint`); where it is a
    /// view, nothing is planned (a view shows the host's drawing at once) and this returns
    /// `Ok`. Call it after each change on every device, and the same code is right on both.
    ///
    /// ```
    /// use layerbatch_core::plan::{ArrayOp, ResourceOp};
    /// use layerbatch_core::{Batcher, Config, Limits, TextureDesc, Usage};
    /// let mut batcher = Batcher::new(Limits::guaranteed_minimum(), Config::default())?; // copies
    /// let video = batcher.textures().register(&TextureDesc::new(320, 180).with_usage(Usage::Host), &[])?;
    /// let contents = |ops: &[ResourceOp]| ops.iter().filter(|o| matches!(o, ResourceOp::Array(ArrayOp::HostContents { .. }))).count();
    /// assert_eq!(contents(&batcher.finish().ops), 1); // its array made, and the first copy
    /// assert_eq!(contents(&batcher.finish().ops), 0); // nothing changed
    /// batcher.textures().host_changed(video)?;
    /// assert_eq!(contents(&batcher.finish().ops), 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`TextureError::Stale`], or [`TextureError::NotHost`] for a texture that is not a host
    /// texture.
    pub fn host_changed(&mut self, id: TextureId) -> Result<(), TextureError> {
        self.0.host_changed(id)
    }

    /// Frees a texture. Its id is rejected from now on; its layer is reused after the frame
    /// being built (quads already pushed still draw it).
    ///
    /// An index is reused with a new generation until its generation reaches `u32::MAX`; then
    /// it is retired for good (4 bytes of registry per 4 billion frees), so a stale id never
    /// comes back to life.
    ///
    /// # Errors
    /// [`TextureError::Stale`] for a freed (double free) or foreign id;
    /// [`TextureError::InResident`] while a resident layer samples it.
    pub fn free(&mut self, id: TextureId) -> Result<(), TextureError> {
        self.0.free(id)
    }

    /// A 1x1 white texture for untextured quads ([`Quad::solid`](crate::Quad::solid): health bars, debug boxes,
    /// fades), registered on first use. It is a rectangle of the atlas pages of linear RGBA8
    /// images, so solid quads share the draw and the slot of the sprites around them instead
    /// of costing a slot or a draw of their own. The batcher looks after it: [`Batcher::restore`]
    /// re-uploads it itself.
    ///
    /// ```
    /// # use layerbatch_core::{Batcher, Config, Limits, Quad, TextureDesc};
    /// let mut batcher = Batcher::new(Limits::guaranteed_minimum(), Config::default())?;
    /// let sprite = batcher.textures().register(&TextureDesc::new(16, 16), &[200; 16 * 16 * 4])?;
    /// let white = batcher.textures().white()?;
    /// batcher.begin_frame();
    /// batcher.push(&Quad::rect(sprite, [0.0, 0.0], [16.0, 16.0]))?;
    /// batcher.push(&Quad::solid(white, [0.0, 20.0], [16.0, 2.0], [0, 200, 0, 255]))?; // a health bar
    /// let plan = batcher.finish();
    /// assert_eq!((plan.segments.len(), plan.segments[0].tier), (1, 1)); // same draw, same slot
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`TextureError::BudgetExhausted`] on first use if not even a texel fits.
    pub fn white(&mut self) -> Result<TextureId, TextureError> {
        self.0.white()
    }

    /// Registers `normals` as the normal map of texture `id`: RGBA8 of the texture's size,
    /// tightly packed rows, top row first, the normal's x (right), y (up) and z (towards the
    /// viewer) mapped from `-1..1` to `0..=255` in red, green and blue, alpha unused (the
    /// usual "OpenGL" normal map: flat is `[128, 128, 255, 255]`). It lies at the texture's
    /// slot, layer and rectangle in its array's sibling ([`crate::plan::ArrayDesc::normal_map`]), so
    /// lit quads keep one draw; its mip levels are made like an RGBA8 texture's. Registering
    /// again replaces it; it lives as long as the texture, or until the texture is resized
    /// ([`TextureStore::resize`] drops it: it no longer fits). Core keeps a CPU copy of every normal
    /// map (counted in `cpu_copy_bytes`), whatever [`Config::keep_pixels`](crate::Config::keep_pixels)
    /// says, so that [`Batcher::restore`] brings it back by itself: a host re-sends the
    /// textures `restore` lists, and nothing else.
    ///
    /// # Errors
    /// [`TextureError::NormalMapWithoutLights`] without lights; [`TextureError::Stale`];
    /// [`TextureError::NormalMapUnsupported`] for a compressed texture or a render target;
    /// [`TextureError::NormalMapSize`] when `normals` is not width x height x 4 bytes. Then
    /// nothing changes.
    pub fn register_normal_map(&mut self, id: TextureId, normals: &[u8]) -> Result<(), TextureError> {
        self.0.register_normal_map(id, normals)
    }

    /// Writes row `row` of the ramp: palettes for [`crate::Effect::PALETTE`] and other effects
    /// declared [`with_ramp`](crate::Effect::with_ramp). `colors` are straight RGBA8 (as
    /// `lb_ramp` returns them), at most [`RAMP_WIDTH_PX`](crate::RAMP_WIDTH_PX) of them, written from entry 0; the
    /// rest of the row keeps what it held (transparent black until written). The next plan
    /// carries the row ([`crate::FramePlan::ramp_writes`]); writing a row twice before it
    /// sends the last colours once. Rows survive [`Batcher::restore`].
    ///
    /// ```
    /// use layerbatch_core::{Batcher, Config, Effect, EffectId, Limits, Quad, TextureDesc};
    /// const EFFECTS: [Effect; 1] = [Effect::PALETTE];
    /// let mut batcher = Batcher::new(Limits::guaranteed_minimum(), Config::default().with_effects(&EFFECTS))?;
    /// // A 4-colour sprite: palette index k in red as k / 255.
    /// let sprite = batcher.textures().register(&TextureDesc::new(2, 2), &[0, 0, 0, 255, 1, 0, 0, 255, 2, 0, 0, 255, 3, 0, 0, 255])?;
    /// // Team red on row 1, team blue on row 2.
    /// batcher.textures().write_ramp_row(1, &[[60, 0, 0, 255], [120, 0, 0, 255], [180, 0, 0, 255], [240, 0, 0, 255]])?;
    /// batcher.textures().write_ramp_row(2, &[[0, 0, 60, 255], [0, 0, 120, 255], [0, 0, 180, 255], [0, 0, 240, 255]])?;
    /// batcher.begin_frame();
    /// let palette = batcher.budget().effect_id(&Effect::PALETTE).expect("declared");
    /// batcher.state().set_effect(palette, [2.0 / 255.0, 1.0, 0.0, 0.0]); // row 2, fully swapped
    /// batcher.push(&Quad::rect(sprite, [0.0, 0.0], [2.0, 2.0]))?;
    /// let plan = batcher.finish();
    /// assert_eq!(plan.ramp_writes.iter().map(|w| w.row).collect::<Vec<_>>(), [1, 2]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`RampError::NoRamp`] when no declared effect samples the ramp;
    /// [`RampError::Colors`] for no colours or more than [`RAMP_WIDTH_PX`](crate::RAMP_WIDTH_PX). Nothing is written
    /// either way.
    pub fn write_ramp_row(&mut self, row: u8, colors: &[[u8; 4]]) -> Result<(), RampError> {
        self.0.write_ramp_row(row, colors)
    }

    /// Row `row` of the ramp as the batcher holds it (what the device has once the plans
    /// written since reach it), straight RGBA8; `None` without a ramp.
    pub fn ramp_row(self, row: u8) -> Option<&'a [u8]> {
        // By value: the row borrows the batcher, not this handle.
        let b: &'a Batcher = self.0;
        b.ramp_row(row)
    }

    /// Registers every layer of a texture file of any kind core reads ([`read_file`](crate::read_file):
    /// KTX2, `.astc`, DDS) as textures: one id for a 2D file, one per layer for an array file
    /// (`like` gives filter, wrap and usage). The budget's `budget_bytes` and
    /// `max_layers_per_array` are the limits ([`FileLimits`](crate::FileLimits)), checked before
    /// anything is allocated; a format the device lacks is decoded (the `decode` feature) or
    /// refused with its family and the device's families. An RGBA8 file keeps only its level
    /// 0 (core makes the mips of RGBA8 textures); a compressed one keeps every level. A KTX2
    /// file whose format has alpha and whose data format descriptor lacks
    /// `KHR_DF_FLAG_ALPHA_PREMULTIPLIED` is registered [`Alpha::Straight`](crate::Alpha::Straight).
    ///
    /// A Basis Universal KTX2 file (ETC1S or UASTC) is transcoded for this device with the
    /// `basis` feature (`read_basis` with the budget's limits and `format_families`: ASTC 4x4,
    /// BC7, ETC2 or RGBA8, [`BasisTarget::choose`](crate::BasisTarget::choose)), each texture
    /// counted in `Counters::textures_transcoded`, each target logged once at `debug!`; without
    /// the feature it is refused ([`FileError::NotTranscoded`]).
    ///
    /// ```
    /// # use layerbatch_core::{Batcher, Config, FileError, FileKind, Limits, TextureDesc};
    /// let mut batcher = Batcher::new(Limits::guaranteed_minimum(), Config::default())?;
    /// let err = batcher.textures().register_file(b"GIF89a", &TextureDesc::new(1, 1)).unwrap_err();
    /// assert!(matches!(err, FileError::UnknownKind { len: 6, .. }));
    /// let mut cut = b"\xabKTX 20\xbb\r\n\x1a\n".to_vec(); // a KTX2 file's magic, then nothing
    /// cut.resize(40, 0);
    /// let err = batcher.textures().register_file(&cut, &TextureDesc::new(1, 1)).unwrap_err();
    /// assert!(matches!(err, FileError::Container { kind: FileKind::Ktx2, .. }), "{err}");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`FileError`], of every kind; when a layer is refused ([`FileError::Texture`]) the
    /// layers registered before it are freed: nothing stays admitted.
    #[cfg(feature = "ktx2")]
    pub fn register_file(&mut self, bytes: &[u8], like: &TextureDesc) -> Result<Vec<TextureId>, FileError> {
        self.0.register_file(bytes, like)
    }

    /// Registers a straight-alpha image (premultiplied here). The size is the image's; `desc`
    /// gives the rest (format, filter, wrap, mip levels, usage): pass
    /// `TextureDesc::new(0, 0)` for the defaults.
    ///
    /// # Errors
    /// As [`TextureStore::register`].
    ///
    /// ```
    /// # use layerbatch_core::{Batcher, Config, Limits, TextureDesc};
    /// let mut batcher = Batcher::new(Limits::guaranteed_minimum(), Config::default())?;
    /// let img = image::RgbaImage::from_pixel(16, 8, image::Rgba([255, 0, 0, 128]));
    /// let id = batcher.textures().register_image(&img, TextureDesc::new(0, 0))?;
    /// assert_eq!((batcher.desc(id)?.width_px, batcher.desc(id)?.height_px), (16, 8));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[cfg(feature = "image")]
    pub fn register_image(&mut self, image: &::image::RgbaImage, desc: TextureDesc) -> Result<TextureId, TextureError> {
        self.0.register_image(image, desc)
    }

    /// Decodes an encoded image (PNG bytes, e.g. from `include_bytes!`) and registers it
    /// like [`TextureStore::register_image`].
    ///
    /// # Errors
    /// [`ImageError::Decode`] for bytes that do not decode (nothing is registered), or
    /// [`ImageError::Texture`] as [`TextureStore::register`].
    #[cfg(feature = "image")]
    pub fn register_encoded(&mut self, bytes: &[u8], desc: TextureDesc) -> Result<TextureId, ImageError> {
        self.0.register_encoded(bytes, desc)
    }

    /// Records `quads` once into a **resident layer** kept on the device: drawn each frame by
    /// one item in the stream ([`Batcher::draw_resident`]), in painter's order among pushed
    /// quads, with its own transform, tint, visibility and clip; updated by ranges
    /// ([`TextureStore::update_resident`]), so a frame that changes nothing uploads nothing. Its
    /// quads may sample any textures, as pushed quads do: a layer is drawn in one draw call
    /// (with indexed quads, one per `instance_capacity` quads).
    ///
    /// The buffer ([`Instance::quad_bytes`](crate::plan::Instance::quad_bytes) a quad) is held against the byte budget. Core keeps
    /// the quads: a texture the layer samples may move (arrays grow, pages compact) and the
    /// layer stays right, and [`Batcher::restore`] re-creates it after a device loss with the
    /// same id. A texture a layer samples cannot be freed ([`TextureError::InResident`]).
    ///
    /// ```
    /// use layerbatch_core::{Batcher, Config, Limits, MockDevice, Quad, ResidentStyle, TextureDesc};
    /// let mut batcher = Batcher::new(Limits::guaranteed_minimum(), Config::default())?;
    /// let grass = batcher.textures().register(&TextureDesc::new(16, 16), &[90; 16 * 16 * 4])?;
    /// let hero = batcher.textures().register(&TextureDesc::new(16, 16), &[200; 16 * 16 * 4])?;
    /// let ground: Vec<Quad> = (0..1000).map(|i| Quad::rect(grass, [(i % 40) as f32 * 16.0, (i / 40) as f32 * 16.0], [16.0, 16.0])).collect();
    /// let layer = batcher.textures().create_resident(&ground)?;
    /// let mut device = MockDevice::new(batcher.budget());
    /// for frame in 0..2 {
    ///     batcher.begin_frame();
    ///     batcher.draw_resident(layer, &ResidentStyle::default())?;
    ///     batcher.push(&Quad::rect(hero, [frame as f32, 0.0], [16.0, 16.0]))?;
    ///     device.execute(batcher.finish())?;
    ///     let c = device.frame_counters();
    ///     assert_eq!(c.draw_calls, 2);
    ///     // The first frame uploads the layer; the second nothing of it.
    ///     assert_eq!(c.resident_bytes_written, if frame == 0 { 1000 * 64 } else { 0 });
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`ResidentError::Empty`], [`ResidentError::Quad`] for a quad `push` would refuse,
    /// [`ResidentError::TooLarge`] past the device's largest buffer,
    /// [`ResidentError::OverBudget`], [`ResidentError::TooManyArrays`] when the quads' textures
    /// live in more arrays than one draw binds. Nothing changes then.
    pub fn create_resident(&mut self, quads: &[Quad]) -> Result<ResidentId, ResidentError> {
        self.0.create_resident(quads)
    }

    /// Replaces quads `first..first + quads.len()` of a resident layer: only those are
    /// written to the device. Drawn from the next plan on; if a plan of the host's frame
    /// already drew the layer (several plans a frame, [`Batcher::end_frame`]), from the frame
    /// after, so that no pass of the frame shows a mix.
    ///
    /// # Errors
    /// [`ResidentError::Stale`], [`ResidentError::OutOfRange`] past the layer's end (its
    /// length is fixed: [`TextureStore::replace_resident`] changes it), [`ResidentError::Quad`],
    /// [`ResidentError::TooManyArrays`]. Nothing changes then.
    pub fn update_resident(&mut self, id: ResidentId, first: u32, quads: &[Quad]) -> Result<(), ResidentError> {
        self.0.update_resident(id, first, quads)
    }

    /// Replaces every quad of a resident layer, whatever their number: the layer keeps its
    /// id, and its buffer is made anew at the new size (held against the budget in place of
    /// the old).
    ///
    /// # Errors
    /// As [`TextureStore::create_resident`], and [`ResidentError::Stale`]. Nothing changes then.
    pub fn replace_resident(&mut self, id: ResidentId, quads: &[Quad]) -> Result<(), ResidentError> {
        self.0.replace_resident(id, quads)
    }

    /// Destroys a resident layer: its bytes go back to the budget now, its buffer after the
    /// plan that draws it last (the open frame's, if it drew it). The id is refused from now on.
    ///
    /// # Errors
    /// [`ResidentError::Stale`].
    pub fn destroy_resident(&mut self, id: ResidentId) -> Result<(), ResidentError> {
        self.0.destroy_resident(id)
    }

    /// Creates a **moving** resident layer: `quads` stay on the device as with
    /// [`TextureStore::create_resident`], each made in its sprite's own space (its pivot at
    /// `(0, 0)`), and each gets a [`Motion`] (at rest: [`Motion::default`]) that
    /// [`TextureStore::move_sprites`] changes: 16 bytes a moving sprite a frame, pulled by
    /// the vertex shader from the layer's motion texture by the sprite's index.
    ///
    /// ```
    /// use layerbatch_core::{Batcher, Config, Limits, MockDevice, Motion, Quad, ResidentStyle, TextureDesc};
    /// let mut batcher = Batcher::new(Limits::guaranteed_minimum(), Config::default())?;
    /// let bunny = batcher.textures().register(&TextureDesc::new(26, 37), &[255; 26 * 37 * 4])?;
    /// // 1,000 bunnies, each centred on its pivot.
    /// let quads = vec![Quad::rect(bunny, [-13.0, -18.5], [26.0, 37.0]); 1000];
    /// let bunnies = batcher.textures().create_moving(&quads)?;
    /// let mut device = MockDevice::new(batcher.budget());
    /// for frame in 0..3 {
    ///     let motions: Vec<Motion> = (0..1000).map(|i| Motion::at([i as f32, frame as f32 * 2.0])).collect();
    ///     batcher.textures().move_sprites(bunnies, 0, &motions)?;
    ///     batcher.begin_frame();
    ///     batcher.draw_resident(bunnies, &ResidentStyle::default())?;
    ///     device.execute(batcher.finish())?;
    ///     let c = device.frame_counters();
    ///     assert_eq!(c.motion_bytes_written, 1000 * 16); // 16 bytes a moving sprite
    ///     // The quads went up once, with the layer.
    ///     assert_eq!(c.resident_bytes_written, if frame == 0 { 1000 * 64 } else { 0 });
    /// }
    /// assert_eq!(device.motion(bunnies, 999), Some(Motion::at([999.0, 4.0])));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// As [`TextureStore::create_resident`], and [`ResidentError::TooManySprites`] past what
    /// a motion texture of the device's largest size holds (`1024 * max_texture_size_px`).
    pub fn create_moving(&mut self, quads: &[Quad]) -> Result<ResidentId, ResidentError> {
        self.0.create_moving(quads)
    }

    /// Sets the motions of sprites `first..first + motions.len()` of a moving layer: the next
    /// plan writes them (only the range the host changed since the last plan, 16 bytes a
    /// sprite), or, if a plan of the host's frame already drew the layer (several plans a
    /// frame, [`Batcher::end_frame`]), the first plan of the next host frame.
    ///
    /// # Errors
    /// [`ResidentError::Stale`], [`ResidentError::NotMoving`] for a layer made by
    /// `create_resident`, [`ResidentError::OutOfRange`] past the layer's end,
    /// [`ResidentError::BadMotion`] for a NaN or infinite motion. Nothing changes then.
    pub fn move_sprites(&mut self, id: ResidentId, first: u32, motions: &[Motion]) -> Result<(), ResidentError> {
        self.0.move_sprites(id, first, motions)
    }

    /// The motions of sprites `range` of a moving layer, to write in place: the zero-copy form
    /// of [`TextureStore::move_sprites`] (the whole range counts as moved). A motion left NaN
    /// or infinite cannot be refused here: the next plan draws it as nothing (scale 0) and
    /// counts it, in `Counters::motions_rejected`, or, on a budget with
    /// [`staged_motion_writes`](crate::Budget::staged_motion_writes), in
    /// `DeviceCounters::motions_rejected` when the executor copies it.
    ///
    /// ```
    /// use layerbatch_core::{Batcher, Config, Limits, Motion, Quad, TextureDesc};
    /// let mut batcher = Batcher::new(Limits::guaranteed_minimum(), Config::default())?;
    /// let t = batcher.textures().register(&TextureDesc::new(8, 8), &[255; 8 * 8 * 4])?;
    /// let layer = batcher.textures().create_moving(&vec![Quad::rect(t, [-4.0, -4.0], [8.0, 8.0]); 100])?;
    /// for (i, m) in batcher.textures().motions_mut(layer, 0..100)?.iter_mut().enumerate() {
    ///     *m = Motion::at([i as f32 * 10.0, 20.0]);
    /// }
    /// assert_eq!(batcher.finish().counters.motions_written, 100);
    /// assert_eq!(batcher.textures().motions(layer)?[7], Motion::at([70.0, 20.0]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`ResidentError::Stale`], [`ResidentError::NotMoving`], [`ResidentError::OutOfRange`]
    /// for a range past the layer's end or reversed.
    pub fn motions_mut(self, id: ResidentId, range: std::ops::Range<u32>) -> Result<&'a mut [Motion], ResidentError> {
        self.0.motions_mut(id, range)
    }

    /// A moving layer's motions, as last set.
    ///
    /// # Errors
    /// [`ResidentError::Stale`], [`ResidentError::NotMoving`].
    pub fn motions(self, id: ResidentId) -> Result<&'a [Motion], ResidentError> {
        let b: &'a Batcher = self.0;
        b.motions(id)
    }

    /// Bytes of device buffers the resident layers hold against the budget.
    pub fn resident_bytes(&self) -> u64 {
        self.0.resident_bytes()
    }

    /// Quads a resident layer holds.
    ///
    /// # Errors
    /// [`ResidentError::Stale`].
    pub fn resident_len(&self, id: ResidentId) -> Result<u32, ResidentError> {
        self.0.resident_len(id)
    }

    /// The array held by each slot now.
    pub fn slot_arrays(self) -> &'a [Option<ArrayId>] {
        let b: &'a Batcher = self.0;
        b.slot_arrays()
    }

    /// Resource ops queued for the next plan (registrations, updates and frees since the
    /// last [`Batcher::finish`]).
    pub fn pending_ops(self) -> &'a [ResourceOp] {
        let b: &'a Batcher = self.0;
        b.pending_ops()
    }

    /// Bytes of pixels queued for the next plan (live writes only: a whole write supersedes
    /// a texture's earlier pending writes, and their bytes are reclaimed).
    pub fn pending_upload_bytes(&self) -> usize {
        self.0.pending_upload_bytes()
    }

    /// Bytes of the CPU copies kept for [`Batcher::restore`] ([`Config::keep_pixels`](crate::Config::keep_pixels)); 0 when
    /// off. Counted apart from GPU memory, also as [`Counters::cpu_copy_bytes`](crate::Counters::cpu_copy_bytes).
    pub fn cpu_copy_bytes(&self) -> u64 {
        self.0.cpu_copy_bytes()
    }

    /// Texel bytes and allocated bytes of each format that has textures or arrays, in
    /// [`Format`](crate::Format) order: how much of what is allocated holds texels (page and padding waste
    /// is the difference), and what each format costs.
    ///
    /// ```
    /// # use layerbatch_core::{Batcher, Config, Format, FormatFamilies, Limits, TextureDesc};
    /// let limits = Limits::guaranteed_minimum().with_format_families(FormatFamilies::ALL);
    /// let mut batcher = Batcher::new(limits, Config::default())?;
    /// batcher.textures().register(&TextureDesc::new(32, 32), &[9; 32 * 32 * 4])?;
    /// let bc7 = TextureDesc::new(32, 32).with_format(Format::Bc7RgbaUnorm);
    /// batcher.textures().register(&bc7, &[1; 8 * 8 * 16])?;
    /// let memory = batcher.textures().memory_by_format();
    /// assert_eq!(memory.iter().map(|m| (m.format, m.texel_bytes)).collect::<Vec<_>>(),
    ///            [(Format::Rgba8Unorm, 4096), (Format::Bc7RgbaUnorm, 1024)]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn memory_by_format(&self) -> Vec<FormatMemory> {
        self.0.memory_by_format()
    }

    /// Repacks fragmented atlas pages now: rectangles move down from the top layers of each
    /// page array (GPU copies in the next plan, counted as `rect_copies`) and the emptied
    /// layers are given back. Every [`TextureId`] stays valid. Returns how many textures
    /// moved.
    ///
    /// Call it between frames: with a frame open (its quads point at the old places) it does
    /// nothing and returns 0. `Config::auto_compact` (on by default) does the same by itself
    /// for page arrays less than half full.
    pub fn compact(&mut self) -> usize {
        self.0.compact()
    }
}
