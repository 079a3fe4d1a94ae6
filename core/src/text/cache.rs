//! The glyph cache: one static texture per rasterised glyph, in the batcher's atlas pages,
//! kept under a byte cap by evicting the least recently used glyphs of earlier frames.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use cosmic_text::{CacheKey, FontSystem, SwashCache};

use super::raster::{self, GlyphPixels};
use super::TextError;
use crate::{Batcher, Filter, TextureDesc, TextureError, TextureId};

/// How a [`GlyphCache`] is bounded.
///
/// ```
/// use layerbatch_core::text::GlyphCacheOptions;
/// let options = GlyphCacheOptions::default().with_cap_bytes(4 << 20);
/// assert_eq!(options.cap_bytes, 4 << 20);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct GlyphCacheOptions {
    /// Bytes of glyph texels (`width * height * 4` per glyph) the cache keeps. Default
    /// 8 MiB (about 2,000 glyphs of 32 px text, 500 of 64 px). Before a new glyph is
    /// admitted, glyphs not drawn in the current frame are evicted, least recently used
    /// first, until it fits; a frame whose own glyphs need more goes over the cap for that
    /// frame ([`GlyphCacheStats::over_cap_frames`]) rather than refuse text.
    pub cap_bytes: u64,
    /// Entries the cache keeps, glyphs without texels (spaces, glyphs no font can render)
    /// included, bounded the same way. Default 65,536.
    pub max_entries: usize,
}

impl Default for GlyphCacheOptions {
    fn default() -> Self {
        Self { cap_bytes: 8 << 20, max_entries: 1 << 16 }
    }
}

impl GlyphCacheOptions {
    /// Sets `cap_bytes`.
    #[must_use]
    pub const fn with_cap_bytes(mut self, cap_bytes: u64) -> Self {
        self.cap_bytes = cap_bytes;
        self
    }
    /// Sets `max_entries`.
    #[must_use]
    pub const fn with_max_entries(mut self, max_entries: usize) -> Self {
        self.max_entries = max_entries;
        self
    }
}

/// What a [`GlyphCache`] holds and has done.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct GlyphCacheStats {
    /// Glyph textures held.
    pub glyphs: usize,
    /// Entries held: glyph textures plus glyphs without texels (blank or unrendered).
    pub entries: usize,
    /// Bytes of the glyph textures held (`width * height * 4` each).
    pub bytes: u64,
    /// The most `bytes` has been.
    pub peak_bytes: u64,
    /// [`GlyphCacheOptions::cap_bytes`].
    pub cap_bytes: u64,
    /// Glyph lookups found in the cache.
    pub hits: u64,
    /// Glyph lookups that rasterised (first use, or back after an eviction).
    pub misses: u64,
    /// Entries evicted to stay under the cap (their textures freed).
    pub evictions: u64,
    /// Frames whose own glyphs needed more than the cap: the cache went over it for them.
    pub over_cap_frames: u64,
}

/// What a cached glyph is drawn from.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Kind {
    /// A texture of `width * height` texels.
    Texture(TextureId),
    /// An empty image (a space): nothing to draw.
    Blank,
    /// No image: the font is not in the [`FontSystem`] or has no outline or bitmap for the
    /// glyph.
    Unrendered,
    /// An image the device cannot hold ([`TextureError::TooLarge`]): it never will.
    TooLarge(TextureError),
}

/// A cached glyph: its image's placement and what it is drawn from.
#[derive(Clone, Debug)]
pub(crate) struct Glyph {
    pub(crate) kind: Kind,
    pub(crate) left: i32,
    pub(crate) top: i32,
    pub(crate) width: u32,
    pub(crate) height: u32,
    pub(crate) color: bool,
}

const NIL: u32 = u32::MAX;

#[derive(Debug)]
struct Slot {
    key: CacheKey,
    glyph: Glyph,
    /// The frame generation it was last drawn in.
    used: u64,
    /// Neighbours in the recency list: `prev` towards the most recent.
    prev: u32,
    next: u32,
}

/// A glyph cache: rasterises glyphs with swash on first use and keeps each as a small static
/// texture in the batcher's atlas pages, so text is drawn with ordinary quads: no extra slot,
/// tier or format.
///
/// Keys are cosmic-text's [`CacheKey`]: font, glyph, size, sub-pixel bin (x and y, quarters
/// of a pixel) and flags. Textures are RGBA8 with [`Filter::Linear`], the default of
/// sprites, so glyphs share their page arrays (a page class is format and filter) and their
/// slot. Glyphs are drawn at integer pixels with their own size, texel centres on pixel
/// centres, where linear and nearest filtering both give swash's pixels exactly; under a
/// scaling or rotating [`DrawingState::set_transform`](crate::DrawingState::set_transform), linear keeps them smooth.
///
/// Frames: a glyph drawn in the host's frame being recorded is never evicted from it, however
/// many plans the frame has. The frame is the batcher's ([`Batcher::frame_number`]): each
/// plan until the host first calls [`Batcher::end_frame`], then each `end_frame`; a host that
/// prepares several plans before one submit (wgpu) calls it after the submit. One cache serves one batcher: a glyph whose texture the batcher no
/// longer knows (freed by the host, or another batcher's) is rasterised again.
#[derive(Debug)]
pub struct GlyphCache {
    options: GlyphCacheOptions,
    swash: SwashCache,
    map: HashMap<CacheKey, u32, BuildHasherDefault<KeyHasher>>,
    slots: Vec<Slot>,
    free_slots: Vec<u32>,
    /// Most and least recently drawn entries. The list is ordered by `used`, newest first:
    /// an entry moves to the front when first drawn in a frame.
    head: u32,
    tail: u32,
    generation: u64,
    /// The last generation that went over the cap.
    over_cap_generation: Option<u64>,
    warned_over_cap: bool,
    stats: GlyphCacheStats,
}

impl Default for GlyphCache {
    fn default() -> Self {
        Self::new(GlyphCacheOptions::default())
    }
}

impl GlyphCache {
    /// An empty cache bounded by `options`.
    pub fn new(options: GlyphCacheOptions) -> Self {
        Self {
            options,
            swash: SwashCache::new(),
            map: HashMap::default(),
            slots: Vec::new(),
            free_slots: Vec::new(),
            head: NIL,
            tail: NIL,
            generation: 0,
            over_cap_generation: None,
            warned_over_cap: false,
            stats: GlyphCacheStats { cap_bytes: options.cap_bytes, ..GlyphCacheStats::default() },
        }
    }

    /// The options given at creation.
    pub fn options(&self) -> &GlyphCacheOptions {
        &self.options
    }

    /// What the cache holds and has done.
    pub fn stats(&self) -> GlyphCacheStats {
        GlyphCacheStats { entries: self.map.len(), ..self.stats }
    }

    /// Whether `key` is cached (as a texture or as a glyph without texels).
    pub fn contains(&self, key: &CacheKey) -> bool {
        self.map.contains_key(key)
    }

    /// The texture `key` is drawn from, if it is cached with one.
    pub fn texture(&self, key: &CacheKey) -> Option<TextureId> {
        let slot = &self.slots[*self.map.get(key)? as usize];
        match slot.glyph.kind {
            Kind::Texture(id) => Some(id),
            _ => None,
        }
    }

    /// Frees every glyph texture and forgets every entry; glyphs drawn later are rasterised
    /// again (so also after changing which fonts a [`FontSystem`] holds). Textures freed
    /// while a frame is open still draw in it.
    pub fn clear(&mut self, batcher: &mut Batcher) {
        for slot in &self.slots {
            if let Kind::Texture(id) = slot.glyph.kind {
                // Stale: the host freed it already; nothing to give back.
                let _ = batcher.textures().free(id);
            }
        }
        self.map.clear();
        self.slots.clear();
        self.free_slots.clear();
        self.head = NIL;
        self.tail = NIL;
        self.stats.glyphs = 0;
        self.stats.bytes = 0;
    }

    /// Re-rasterises and re-uploads the glyphs among `missing`, the list
    /// [`Batcher::restore`] returns (textures whose pixels the rebuilt device lacks), and
    /// returns the rest: the host's own textures, for it to re-send.
    ///
    /// ```no_run
    /// # use layerbatch_core::{Batcher, text::{GlyphCache, cosmic_text::FontSystem}};
    /// # fn f(batcher: &mut Batcher, cache: &mut GlyphCache, fonts: &mut FontSystem) {
    /// let missing = batcher.restore();
    /// for id in cache.reupload(batcher, fonts, &missing) {
    ///     // batcher.textures().update(id, &pixels_of(id))
    /// }
    /// # }
    /// ```
    pub fn reupload(&mut self, batcher: &mut Batcher, fonts: &mut FontSystem, missing: &[TextureId]) -> Vec<TextureId> {
        let mut rest: std::collections::HashSet<TextureId> = missing.iter().copied().collect();
        for i in 0..self.slots.len() {
            let Kind::Texture(id) = self.slots[i].glyph.kind else { continue };
            if !rest.remove(&id) {
                continue;
            }
            let key = self.slots[i].key;
            let pixels = raster::rasterise(&mut self.swash, fonts, key);
            match pixels {
                // Same key, same image: the texture's size still fits it.
                Some(px) if batcher.textures().update(id, &px.rgba).is_ok() => {}
                // The font left the FontSystem: drop the glyph; the next draw finds out.
                _ => self.remove(i as u32, batcher),
            }
        }
        missing.iter().copied().filter(|id| rest.contains(id)).collect()
    }

    /// The batcher's host frame ([`Batcher::frame_number`]). A new one trims the cache back
    /// under its cap.
    pub(crate) fn begin(&mut self, batcher: &mut Batcher) {
        let generation = batcher.frame_number();
        if generation != self.generation {
            self.generation = generation;
            self.make_room(0, 0, batcher);
        }
    }

    /// The cached glyph of `key`, rasterised and registered on a miss. Call
    /// [`GlyphCache::begin`] first.
    ///
    /// # Errors
    /// [`TextError::Glyph`] when the batcher refuses the glyph's texture (the budget is
    /// spent); a glyph too large for the device is cached as [`Kind::TooLarge`] instead.
    pub(crate) fn glyph(
        &mut self,
        batcher: &mut Batcher,
        fonts: &mut FontSystem,
        key: CacheKey,
    ) -> Result<&Glyph, TextError> {
        if let Some(&i) = self.map.get(&key) {
            let live = match self.slots[i as usize].glyph.kind {
                Kind::Texture(id) => batcher.contains(id),
                _ => true,
            };
            if live {
                self.stats.hits += 1;
                self.touch(i);
                return Ok(&self.slots[i as usize].glyph);
            }
            // The host freed the texture, or it is another batcher's: rasterise anew.
            self.remove(i, batcher);
        }
        self.stats.misses += 1;
        let glyph = match raster::rasterise(&mut self.swash, fonts, key) {
            Some(px) if px.width > 0 && px.height > 0 => self.register(batcher, key, px)?,
            other => {
                self.make_room(0, 1, batcher);
                match other {
                    Some(px) => Glyph { kind: Kind::Blank, ..placed(&px) },
                    None => Glyph { kind: Kind::Unrendered, left: 0, top: 0, width: 0, height: 0, color: false },
                }
            }
        };
        let bytes = match glyph.kind {
            Kind::Texture(_) => texel_bytes(glyph.width, glyph.height),
            _ => 0,
        };
        let i = self.insert(key, glyph, bytes);
        Ok(&self.slots[i as usize].glyph)
    }

    /// Registers a glyph image after making room for it.
    fn register(&mut self, batcher: &mut Batcher, key: CacheKey, px: GlyphPixels) -> Result<Glyph, TextError> {
        let bytes = texel_bytes(px.width, px.height);
        self.make_room(bytes, 1, batcher);
        let desc = TextureDesc::new(px.width, px.height).with_filter(Filter::Linear);
        match batcher.textures().register(&desc, &px.rgba) {
            Ok(id) => Ok(Glyph { kind: Kind::Texture(id), ..placed(&px) }),
            Err(e @ TextureError::TooLarge { .. }) => Ok(Glyph { kind: Kind::TooLarge(e), ..placed(&px) }),
            Err(source) => Err(TextError::Glyph {
                glyph_id: key.glyph_id,
                font_id: key.font_id,
                font_size_px: f32::from_bits(key.font_size_bits),
                width_px: px.width,
                height_px: px.height,
                source,
            }),
        }
    }

    /// Evicts entries of earlier frames, least recently drawn first, until `bytes` more
    /// texels and `entries` more entries fit; notes an over-cap frame when they still do not.
    fn make_room(&mut self, bytes: u64, entries: usize, batcher: &mut Batcher) {
        let fits =
            |s: &Self| s.stats.bytes + bytes <= s.options.cap_bytes && s.map.len() + entries <= s.options.max_entries;
        while !fits(self) && self.tail != NIL && self.slots[self.tail as usize].used < self.generation {
            self.remove(self.tail, batcher);
            self.stats.evictions += 1;
        }
        if !fits(self) && (bytes > 0 || entries > 0) && self.over_cap_generation != Some(self.generation) {
            self.over_cap_generation = Some(self.generation);
            self.stats.over_cap_frames += 1;
            if !self.warned_over_cap {
                self.warned_over_cap = true;
                log::warn!(
                    "glyph cache: one frame's glyphs need more than its cap of {} bytes ({} entries); going over it \
                     for such frames (counted in GlyphCacheStats::over_cap_frames)",
                    self.options.cap_bytes,
                    self.options.max_entries
                );
            }
        }
    }

    fn insert(&mut self, key: CacheKey, glyph: Glyph, bytes: u64) -> u32 {
        if let Kind::Texture(_) = glyph.kind {
            self.stats.glyphs += 1;
            self.stats.bytes += bytes;
            self.stats.peak_bytes = self.stats.peak_bytes.max(self.stats.bytes);
        }
        let slot = Slot { key, glyph, used: self.generation, prev: NIL, next: NIL };
        let i = match self.free_slots.pop() {
            Some(i) => {
                self.slots[i as usize] = slot;
                i
            }
            None => {
                self.slots.push(slot);
                (self.slots.len() - 1) as u32
            }
        };
        self.link_front(i);
        self.map.insert(key, i);
        i
    }

    /// Drops entry `i`, freeing its texture.
    fn remove(&mut self, i: u32, batcher: &mut Batcher) {
        self.unlink(i);
        let slot = &mut self.slots[i as usize];
        self.map.remove(&slot.key);
        if let Kind::Texture(id) = slot.glyph.kind {
            // Stale: the host freed it already.
            let _ = batcher.textures().free(id);
            self.stats.glyphs -= 1;
            self.stats.bytes -= texel_bytes(slot.glyph.width, slot.glyph.height);
        }
        slot.glyph.kind = Kind::Unrendered;
        self.free_slots.push(i);
    }

    /// Marks entry `i` drawn in this frame: the first time in a frame, it moves to the front.
    fn touch(&mut self, i: u32) {
        if self.slots[i as usize].used != self.generation {
            self.slots[i as usize].used = self.generation;
            self.unlink(i);
            self.link_front(i);
        }
    }

    fn link_front(&mut self, i: u32) {
        let old = self.head;
        {
            let s = &mut self.slots[i as usize];
            s.prev = NIL;
            s.next = old;
        }
        if old != NIL {
            self.slots[old as usize].prev = i;
        } else {
            self.tail = i;
        }
        self.head = i;
    }

    fn unlink(&mut self, i: u32) {
        let (prev, next) = {
            let s = &self.slots[i as usize];
            (s.prev, s.next)
        };
        match prev {
            NIL => self.head = next,
            p => self.slots[p as usize].next = next,
        }
        match next {
            NIL => self.tail = prev,
            n => self.slots[n as usize].prev = prev,
        }
    }

    /// Keys from least to most recently drawn (for tests).
    #[cfg(test)]
    pub(crate) fn lru_order(&self) -> Vec<CacheKey> {
        let mut out = Vec::new();
        let mut i = self.tail;
        while i != NIL {
            out.push(self.slots[i as usize].key);
            i = self.slots[i as usize].prev;
        }
        out
    }
}

fn placed(px: &GlyphPixels) -> Glyph {
    Glyph { kind: Kind::Blank, left: px.left, top: px.top, width: px.width, height: px.height, color: px.color }
}

fn texel_bytes(width: u32, height: u32) -> u64 {
    u64::from(width) * u64::from(height) * 4
}

/// A multiplicative hash (FxHash's): cache keys are not attacker-chosen, and every glyph
/// drawn looks one up.
#[derive(Clone, Copy, Debug, Default)]
struct KeyHasher(u64);

impl KeyHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl Hasher for KeyHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
    }
    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }
    #[inline]
    fn write_u16(&mut self, i: u16) {
        self.add(u64::from(i));
    }
    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }
    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}
