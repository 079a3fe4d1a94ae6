//! Drawing the HUD scene with layerbatch: sprites, nine-slices, shapes and text pushed in the
//! scene's z order into one batcher frame.

use cosmic_text::{fontdb, Attrs, Buffer, Family, FontSystem, Metrics, Shaping};
use layerbatch_core::shapes::{FillStyle, LineCap, LineJoin, Shapes, StrokeStyle};
use layerbatch_core::text::GlyphCache;
use layerbatch_core::{premultiply, Batcher, BlendMode, Mesh, NineSlice, Quad, TextureDesc, TextureId};

use super::{panel_pixels, HudBlend, HudFont, HudItem, HudScene, PANEL_BORDER_PX, PANEL_PX};
use crate::fonts::Font;

/// The family cosmic-text is asked for, per scene font.
fn family(font: HudFont) -> &'static str {
    match font {
        HudFont::Latin => Font::Latin.family(),
        HudFont::Cjk => Font::Cjk.family(),
        HudFont::Emoji => Font::Emoji.family(),
    }
}

/// A font system of exactly these font files' bytes (Latin, CJK, emoji): what the browser
/// page has (natively, [`crate::fonts::system`] reads the same files).
pub fn font_system_from_bytes(files: [Vec<u8>; 3]) -> FontSystem {
    let mut db = fontdb::Database::new();
    for bytes in files {
        db.load_font_data(bytes);
    }
    FontSystem::new_with_locale_and_db("en-US".into(), db)
}

/// What one drawn frame held.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HudDrawn {
    /// Sprite and nine-slice quads.
    pub quads: u64,
    /// Shape triangles.
    pub triangles: u64,
    /// Glyph quads.
    pub glyphs: u64,
}

/// Draws [`HudScene`]s: the scene's textures registered, its texts laid out once, a shape
/// tessellator and a glyph cache kept frame to frame.
#[derive(Debug)]
pub struct HudDrawer {
    textures: Vec<TextureId>,
    panel: TextureId,
    white: TextureId,
    shapes: Shapes,
    mesh: Mesh,
    /// The font system the scene's texts are laid out with.
    pub fonts: FontSystem,
    /// The glyph cache.
    pub glyphs: GlyphCache,
    /// One laid-out buffer per text item, in item order.
    pub buffers: Vec<Buffer>,
}

impl HudDrawer {
    /// Registers the scene's textures with `batcher` and lays out its texts with `fonts`.
    ///
    /// # Errors
    /// A texture the batcher refuses.
    pub fn new(batcher: &mut Batcher, scene: &HudScene, mut fonts: FontSystem) -> Result<Self, String> {
        let mut textures = Vec::with_capacity(scene.textures.len());
        for t in &scene.textures {
            let desc = TextureDesc::new(t.width_px, t.height_px);
            textures.push(batcher.textures().register(&desc, &t.pixels).map_err(|e| e.to_string())?);
        }
        let panel_px: Vec<u8> =
            panel_pixels().chunks_exact(4).flat_map(|p| premultiply([p[0], p[1], p[2], p[3]])).collect();
        let panel =
            batcher.textures().register(&TextureDesc::new(PANEL_PX, PANEL_PX), &panel_px).map_err(|e| e.to_string())?;
        let white = batcher.textures().white().map_err(|e| e.to_string())?;
        let mut buffers = Vec::new();
        for item in &scene.items {
            if let HudItem::Text { text, font, size_px, .. } = item {
                buffers.push(layout(&mut fonts, text, *font, *size_px));
            }
        }
        Ok(Self {
            textures,
            panel,
            white,
            shapes: Shapes::new(),
            mesh: Mesh::default(),
            fonts,
            glyphs: GlyphCache::default(),
            buffers,
        })
    }

    /// The registered id of world texture `index`.
    pub fn texture(&self, index: usize) -> TextureId {
        self.textures[index]
    }

    /// Pushes every item of `scene` in order, between the caller's `begin_frame` and
    /// `finish`. Blending is set per item and left at [`BlendMode::Over`].
    ///
    /// # Errors
    /// An item the batcher, the tessellator or the text path refuses.
    pub fn draw(&mut self, batcher: &mut Batcher, scene: &HudScene) -> Result<HudDrawn, String> {
        let mut drawn = HudDrawn::default();
        let mut text = 0;
        let err = |e: &dyn std::fmt::Display| e.to_string();
        for item in &scene.items {
            match item {
                HudItem::Sprite { texture, center, size, angle_rad, tint, blend } => {
                    batcher.state().set_blend(match blend {
                        HudBlend::Over => BlendMode::Over,
                        HudBlend::Additive => BlendMode::Additive,
                    });
                    let q =
                        Quad::rotated(self.textures[*texture], *center, *size, *angle_rad).with_straight_color(*tint);
                    batcher.push(&q).map_err(|e| err(&e))?;
                    batcher.state().set_blend(BlendMode::Over);
                    drawn.quads += 1;
                }
                HudItem::NineSlice { rect, tint } => {
                    let slice = NineSlice::new(self.panel, *rect, [PANEL_BORDER_PX; 4]).with_color(premultiply(*tint));
                    batcher.push_nine_slice(&slice).map_err(|e| err(&e))?;
                    drawn.quads += 9;
                }
                HudItem::Text { pos, color, .. } => {
                    let buffer = &self.buffers[text];
                    text += 1;
                    let d = self
                        .glyphs
                        .draw_buffer(batcher, &mut self.fonts, buffer, *pos, premultiply(*color))
                        .map_err(|e| err(&e))?;
                    drawn.glyphs += d.quads as u64;
                }
                shape => drawn.triangles += self.draw_shape(batcher, shape)?,
            }
        }
        Ok(drawn)
    }

    /// Tessellates and pushes one shape item; returns its triangles.
    fn draw_shape(&mut self, batcher: &mut Batcher, item: &HudItem) -> Result<u64, String> {
        let (s, m) = (&mut self.shapes, &mut self.mesh);
        m.clear();
        let fill = |c: [u8; 4]| FillStyle::new(premultiply(c));
        let stroke = |w: f32, c: [u8; 4]| StrokeStyle::new(premultiply(c), w);
        let result = match item {
            HudItem::RoundedRect { rect, radius, fill: f, stroke: st } => {
                s.fill_rounded_rect(m, *rect, [*radius; 4], &fill(*f)).and_then(|()| {
                    st.map_or(Ok(()), |(w, c)| s.stroke_rounded_rect(m, *rect, [*radius; 4], &stroke(w, c)))
                })
            }
            HudItem::Line { from, to, width, color } => s.line(m, *from, *to, &stroke(*width, *color)),
            HudItem::Polyline { points, width, color } => {
                let style = stroke(*width, *color).with_cap(LineCap::Round).with_join(LineJoin::Round);
                s.polyline(m, points, false, &style)
            }
            HudItem::Circle { center, radius, fill: f, stroke: st } => f
                .map_or(Ok(()), |c| s.fill_circle(m, *center, *radius, &fill(c)))
                .and_then(|()| st.map_or(Ok(()), |(w, c)| s.stroke_circle(m, *center, *radius, &stroke(w, c)))),
            HudItem::Polygon { points, color } => s.fill_polygon(m, points, &fill(*color)),
            HudItem::Sprite { .. } | HudItem::NineSlice { .. } | HudItem::Text { .. } => Ok(()),
        };
        result.map_err(|e| e.to_string())?;
        batcher.push_mesh(self.white, m).map_err(|e| e.to_string())?;
        Ok(m.triangles() as u64)
    }
}

/// A one-line buffer of `text` in `font` at `size_px` (line height 1.25 times it).
pub fn layout(fonts: &mut FontSystem, text: &str, font: HudFont, size_px: f32) -> Buffer {
    let mut buffer = Buffer::new(fonts, Metrics::new(size_px, (size_px * 1.25).ceil()));
    let attrs = Attrs::new().family(Family::Name(family(font)));
    buffer.set_text(text, &attrs, Shaping::Advanced, None);
    buffer.shape_until_scroll(fonts, false);
    buffer
}
