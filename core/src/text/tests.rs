//! Text on the CPU: glyph texels against swash's own images, placement, the LRU and its cap,
//! and bad input. Real fonts from Debian's packages (scripts/install-fonts.sh); a missing font
//! skips a test with a message, or fails it under `CI=true`.

use cosmic_text::{fontdb, Attrs, Buffer, CacheKey, Color, FontSystem, Metrics, Shaping, SwashCache, SwashContent};

use super::*;
use crate::{Batcher, Config, Limits, MockDevice, Quad, QuadError, TextureDesc, TextureError, TextureId};

const LATIN: &str = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
const CJK: &str = "/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf";
const EMOJI: &str = "/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf";

/// A font system of exactly `files` (no system fonts), or `None` after skipping `test`
/// (a failure under CI) when one is not installed.
fn fonts(test: &str, files: &[&str]) -> Option<FontSystem> {
    let mut db = fontdb::Database::new();
    for f in files {
        if let Err(e) = db.load_font_file(f) {
            layerbatch_testkit::ci::skip(test, &format!("font {f}: {e} (run scripts/install-fonts.sh)"));
            return None;
        }
    }
    Some(FontSystem::new_with_locale_and_db("en-US".into(), db))
}

fn buffer(fonts: &mut FontSystem, text: &str, size_px: f32) -> Buffer {
    let mut b = Buffer::new(fonts, Metrics::new(size_px, size_px * 1.25));
    b.set_text(text, &Attrs::new(), Shaping::Advanced, None);
    b.shape_until_scroll(fonts, false);
    b
}

fn batcher() -> Batcher {
    Batcher::new(Limits::guaranteed_minimum(), Config::default()).unwrap()
}

/// The physical glyphs of a buffer drawn at `pos`, in drawing order.
fn physical(buffer: &Buffer, pos: [f32; 2]) -> Vec<(cosmic_text::PhysicalGlyph, Option<Color>)> {
    let mut out = Vec::new();
    for run in buffer.layout_runs() {
        for g in run.glyphs {
            out.push((g.physical((pos[0], pos[1] + run.line_y), 1.0), g.color_opt));
        }
    }
    out
}

/// Texels a glyph texture must hold, from swash's image, written out independently of
/// `raster`: coverage as premultiplied white, colour premultiplied.
fn expected_texels(fonts: &mut FontSystem, key: CacheKey) -> (Vec<u8>, SwashContent, [i32; 2], [u32; 2]) {
    let image = SwashCache::new().get_image_uncached(fonts, key).expect("swash renders the glyph");
    let mul = |c: u8, a: u8| ((u32::from(c) * u32::from(a) + 127) / 255) as u8;
    let texels = match image.content {
        SwashContent::Mask => image.data.iter().flat_map(|&c| [c, c, c, c]).collect(),
        SwashContent::Color => {
            image.data.chunks(4).flat_map(|p| [mul(p[0], p[3]), mul(p[1], p[3]), mul(p[2], p[3]), p[3]]).collect()
        }
        SwashContent::SubpixelMask => unreachable!("cosmic-text renders alpha masks"),
    };
    let p = image.placement;
    (texels, image.content, [p.left, p.top], [p.width, p.height])
}

/// An axis-aligned instance's `[x0, y0, x1, y1]`.
fn rect(inst: &crate::plan::Instance) -> [f32; 4] {
    let [x, y] = inst.origin;
    [x, y, x + inst.axis_x[0], y + inst.axis_y[1]]
}

/// One frame: `draw` between `begin_frame` and `finish`, executed on `dev`.
fn frame<T>(b: &mut Batcher, dev: &mut MockDevice, draw: impl FnOnce(&mut Batcher) -> T) -> T {
    b.begin_frame();
    let out = draw(b);
    dev.execute(b.finish()).unwrap();
    out
}

#[test]
fn mask_glyphs_hold_swash_coverage_as_white_and_sit_where_swash_places_them() {
    let Some(mut fs) = fonts("mask_glyphs", &[LATIN]) else { return };
    let text = buffer(&mut fs, "Ag, Wy", 21.0);
    let mut b = batcher();
    let mut dev = MockDevice::new(b.budget());
    let mut cache = GlyphCache::default();
    let pos = [10.3, 20.6];
    let drawn = frame(&mut b, &mut dev, |b| cache.draw_buffer(b, &mut fs, &text, pos, [255, 0, 0, 255]).unwrap());
    assert_eq!((drawn.quads, drawn.blank, drawn.unrendered, drawn.refused), (5, 1, 0, 0));
    let plan = b.plan();
    assert_eq!((plan.segments.len(), plan.segments[0].tier), (1, 1));
    let mut i = 0;
    for (g, _) in physical(&text, pos) {
        let (texels, content, [left, top], [w, h]) = expected_texels(&mut fs, g.cache_key);
        if w == 0 || h == 0 {
            continue; // the space
        }
        assert_eq!(content, SwashContent::Mask);
        let tex = cache
            .texture(&g.cache_key)
            .unwrap_or_else(|| panic!("glyph {i}: {g:?} {w}x{h} not cached: {:?}", cache.stats()));
        assert_eq!(dev.sampled()[i], Some((tex, MockDevice::hash(&texels))), "glyph {i}'s texels");
        let inst = &plan.instances[i];
        let want =
            [(g.x + left) as f32, (g.y - top) as f32, (g.x + left) as f32 + w as f32, (g.y - top + h as i32) as f32];
        assert_eq!(rect(inst), want, "glyph {i} placed as swash places it: pen + left, pen - top");
        assert_eq!(inst.color, [255, 0, 0, 255], "mask glyphs are tinted with the text colour");
        i += 1;
    }
    assert_eq!(i, 5);
    let desc = b.desc(cache.texture(&physical(&text, pos)[0].0.cache_key).unwrap()).unwrap();
    assert_eq!(desc, TextureDesc::new(desc.width_px, desc.height_px), "RGBA8, linear, static: the sprites' pages");
}

#[test]
fn colour_glyphs_are_premultiplied_rgba_tinted_by_the_text_alpha() {
    let Some(mut fs) = fonts("colour_glyphs", &[LATIN, EMOJI]) else { return };
    // 🦀 by fallback (DejaVu Sans has none), 😀 by family (DejaVu Sans has one, in outline).
    let mut text = Buffer::new(&mut fs, Metrics::new(32.0, 40.0));
    let noto = Attrs::new().family(cosmic_text::Family::Name("Noto Color Emoji"));
    text.set_rich_text([("a🦀", Attrs::new()), ("😀", noto)], &Attrs::new(), Shaping::Advanced, None);
    text.shape_until_scroll(&mut fs, false);
    let mut b = batcher();
    let mut dev = MockDevice::new(b.budget());
    let mut cache = GlyphCache::default();
    let color = [100, 50, 0, 128];
    let drawn = frame(&mut b, &mut dev, |b| cache.draw_buffer(b, &mut fs, &text, [0.0, 0.0], color).unwrap());
    assert_eq!(drawn.quads, 3);
    let glyphs = physical(&text, [0.0, 0.0]);
    let (mask, content, ..) = expected_texels(&mut fs, glyphs[0].0.cache_key);
    assert_eq!(content, SwashContent::Mask);
    assert_eq!(dev.sampled()[0].map(|s| s.1), Some(MockDevice::hash(&mask)));
    assert_eq!(b.plan().instances[0].color, color);
    for i in [1, 2] {
        let (emoji, content, ..) = expected_texels(&mut fs, glyphs[i].0.cache_key);
        assert_eq!(content, SwashContent::Color, "Noto Color Emoji's CBDT bitmap comes out as colour");
        assert!(emoji.chunks(4).any(|p| p[0] != p[1] || p[1] != p[2]), "a coloured image");
        assert!(emoji.chunks(4).all(|p| p[0] <= p[3] && p[1] <= p[3] && p[2] <= p[3]), "premultiplied");
        assert_eq!(dev.sampled()[i].map(|s| s.1), Some(MockDevice::hash(&emoji)));
        assert_eq!(b.plan().instances[i].color, [128; 4], "colour glyphs keep their colours, at the text's opacity");
    }
}

#[test]
fn cjk_text_draws_in_one_draw_with_latin() {
    let Some(mut fs) = fonts("cjk_text", &[LATIN, CJK]) else { return };
    let text = buffer(&mut fs, "HP 生命值", 24.0);
    let mut b = batcher();
    let mut dev = MockDevice::new(b.budget());
    let mut cache = GlyphCache::default();
    let drawn = frame(&mut b, &mut dev, |b| cache.draw_buffer(b, &mut fs, &text, [0.0, 0.0], [255; 4]).unwrap());
    assert_eq!((drawn.quads, drawn.notdef), (5, 0), "fallback found every character");
    assert_eq!(b.plan().segments.len(), 1);
    for (i, (g, _)) in
        physical(&text, [0.0, 0.0]).iter().filter(|(g, _)| cache.texture(&g.cache_key).is_some()).enumerate()
    {
        let (texels, ..) = expected_texels(&mut fs, g.cache_key);
        assert_eq!(dev.sampled()[i].map(|s| s.1), Some(MockDevice::hash(&texels)));
    }
}

#[test]
fn a_second_frame_of_the_same_text_rasterises_nothing_and_uploads_nothing() {
    let Some(mut fs) = fonts("second_frame", &[LATIN]) else { return };
    let text = buffer(&mut fs, "Hello, world", 18.0);
    let mut b = batcher();
    let mut dev = MockDevice::new(b.budget());
    let mut cache = GlyphCache::default();
    frame(&mut b, &mut dev, |b| cache.draw_buffer(b, &mut fs, &text, [0.0, 0.0], [255; 4]).unwrap());
    let first = cache.stats();
    // One miss per distinct key: glyph and sub-pixel bin (the two l of "Hello" may differ).
    let keys: std::collections::HashSet<CacheKey> =
        physical(&text, [0.0, 0.0]).iter().map(|(g, _)| g.cache_key).collect();
    assert_eq!((first.misses, first.hits), (keys.len() as u64, 12 - keys.len() as u64));
    let instances = b.plan().instances.clone();
    frame(&mut b, &mut dev, |b| cache.draw_buffer(b, &mut fs, &text, [0.0, 0.0], [255; 4]).unwrap());
    let second = cache.stats();
    assert_eq!(second.misses, first.misses, "zero misses");
    assert_eq!(second.hits, first.hits + 12);
    assert_eq!(b.plan().counters.layer_uploads, 0);
    assert_eq!(b.plan().instances, instances);
}

#[test]
fn lru_evicts_the_least_recently_drawn_glyphs_of_earlier_frames() {
    let Some(mut fs) = fonts("lru", &[LATIN]) else { return };
    let glyphs: Vec<Buffer> = ["A", "B", "C", "D"].iter().map(|t| buffer(&mut fs, t, 40.0)).collect();
    let key = |i: usize| physical(&glyphs[i], [0.0, 0.0])[0].0.cache_key;
    let bytes: Vec<u64> = (0..4)
        .map(|i| {
            let (t, ..) = expected_texels(&mut fs, key(i));
            t.len() as u64
        })
        .collect();
    // Room for any three of A, B, C, D, not four.
    let cap = bytes.iter().sum::<u64>() - bytes.iter().min().unwrap() + 1;
    assert!(bytes.iter().sum::<u64>() > cap);
    let mut b = batcher();
    let mut dev = MockDevice::new(b.budget());
    let mut cache = GlyphCache::new(GlyphCacheOptions::default().with_cap_bytes(cap));
    let mut draw = |cache: &mut GlyphCache, b: &mut Batcher, which: &[usize]| {
        frame(b, &mut dev, |b| {
            for &i in which {
                cache.draw_buffer(b, &mut fs, &glyphs[i], [0.0, 0.0], [255; 4]).unwrap();
            }
        })
    };
    draw(&mut cache, &mut b, &[0]); // A
    draw(&mut cache, &mut b, &[1]); // B
    draw(&mut cache, &mut b, &[2, 0]); // C, A again: B is now the least recent
    assert_eq!(cache.lru_order(), [key(1), key(2), key(0)]);
    let b_texture = cache.texture(&key(1)).unwrap();
    draw(&mut cache, &mut b, &[3]); // D evicts B, only B
    assert!(!cache.contains(&key(1)));
    assert!(!b.contains(b_texture), "the evicted glyph's texture is freed");
    assert!(cache.contains(&key(0)) && cache.contains(&key(2)) && cache.contains(&key(3)));
    assert_eq!(cache.lru_order(), [key(2), key(0), key(3)]);
    let s = cache.stats();
    assert_eq!((s.evictions, s.glyphs, s.over_cap_frames), (1, 3, 0));
    assert!(s.bytes <= cap);
}

#[test]
fn glyphs_of_the_current_frame_are_never_evicted_a_frame_may_go_over_the_cap() {
    let Some(mut fs) = fonts("over_cap", &[LATIN]) else { return };
    let big = buffer(&mut fs, "ABCDEFGHIJ", 48.0);
    let mut b = batcher();
    let mut dev = MockDevice::new(b.budget());
    // Room for about two of them.
    let mut cache = GlyphCache::new(GlyphCacheOptions::default().with_cap_bytes(2 * 48 * 48 * 4));
    let drawn = frame(&mut b, &mut dev, |b| cache.draw_buffer(b, &mut fs, &big, [0.0, 0.0], [255; 4]).unwrap());
    assert_eq!(drawn.quads, 10, "no frame refuses text");
    let s = cache.stats();
    assert_eq!((s.glyphs, s.evictions, s.over_cap_frames), (10, 0, 1));
    assert!(s.bytes > s.cap_bytes);
    // Every quad samples its own glyph: nothing was freed under it.
    for (i, (g, _)) in physical(&big, [0.0, 0.0]).iter().enumerate() {
        assert_eq!(dev.sampled()[i].map(|s| s.0), cache.texture(&g.cache_key));
    }
    // The next frame needs none of them: it trims back under the cap before drawing.
    let small = buffer(&mut fs, ".", 8.0);
    frame(&mut b, &mut dev, |b| cache.draw_buffer(b, &mut fs, &small, [0.0, 0.0], [255; 4]).unwrap());
    let s = cache.stats();
    assert!(s.bytes <= s.cap_bytes, "{s:?}");
    assert_eq!(s.over_cap_frames, 1);
}

#[test]
fn bytes_stay_under_the_cap_over_many_frames_of_changing_text() {
    let Some(mut fs) = fonts("bytes_under_cap", &[LATIN, CJK]) else { return };
    let lines: Vec<Buffer> = (0..60)
        .map(|i| {
            let chars: String = (0..6).map(|k| char::from_u32(0x4E00 + i * 6 + k).unwrap()).collect();
            buffer(&mut fs, &format!("{i}{chars}"), 10.0 + (i % 7) as f32 * 6.0)
        })
        .collect();
    let cap = 256 << 10;
    let mut b = batcher();
    let mut dev = MockDevice::new(b.budget());
    let mut cache = GlyphCache::new(GlyphCacheOptions::default().with_cap_bytes(cap));
    for f in 0..120usize {
        let before = cache.stats().over_cap_frames;
        let shown = [f % 60, (f * 7 + 3) % 60];
        let drawn = frame(&mut b, &mut dev, |b| {
            shown
                .iter()
                .map(|&l| cache.draw_buffer(b, &mut fs, &lines[l], [0.0, 0.0], [255; 4]).unwrap().quads)
                .sum::<u32>()
        });
        assert!(drawn >= 8, "frame {f} drew its text");
        let s = cache.stats();
        assert!(s.bytes <= cap || s.over_cap_frames > before, "frame {f}: {} bytes over a cap of {cap}", s.bytes);
        // Every quad sampled a live glyph texture.
        assert!(dev.sampled().iter().all(|s| s.is_some()), "frame {f}");
    }
    let s = cache.stats();
    assert!(s.evictions > 100, "{s:?}");
    assert_eq!(s.over_cap_frames, 0, "two lines fit the cap");
    assert!(s.peak_bytes <= cap);
}

#[test]
fn an_evicted_glyph_comes_back_identical() {
    let Some(mut fs) = fonts("evicted_back", &[LATIN]) else { return };
    let a = buffer(&mut fs, "Q", 30.0);
    let others = buffer(&mut fs, "RSTUVWXYZ", 30.0);
    let mut b = batcher();
    let mut dev = MockDevice::new(b.budget());
    let mut cache = GlyphCache::new(GlyphCacheOptions::default().with_cap_bytes(30 * 30 * 4 * 3));
    let key = physical(&a, [0.0, 0.0])[0].0.cache_key;
    frame(&mut b, &mut dev, |b| cache.draw_buffer(b, &mut fs, &a, [5.0, 5.0], [255; 4]).unwrap());
    let (first, inst) = (dev.sampled()[0].unwrap().1, b.plan().instances[0]);
    frame(&mut b, &mut dev, |b| cache.draw_buffer(b, &mut fs, &others, [0.0, 0.0], [255; 4]).unwrap());
    assert!(!cache.contains(&key), "evicted");
    let misses = cache.stats().misses;
    frame(&mut b, &mut dev, |b| cache.draw_buffer(b, &mut fs, &a, [5.0, 5.0], [255; 4]).unwrap());
    assert_eq!(cache.stats().misses, misses + 1, "rasterised again");
    assert_eq!(dev.sampled()[0].unwrap().1, first, "same texels");
    assert_eq!(rect(&b.plan().instances[0]), rect(&inst), "same place");
}

#[test]
fn empty_text_draws_nothing() {
    let Some(mut fs) = fonts("empty_text", &[LATIN]) else { return };
    let mut b = batcher();
    let mut dev = MockDevice::new(b.budget());
    let mut cache = GlyphCache::default();
    for text in ["", "   ", "\n\n"] {
        let t = buffer(&mut fs, text, 16.0);
        let drawn = frame(&mut b, &mut dev, |b| cache.draw_buffer(b, &mut fs, &t, [0.0, 0.0], [255; 4]).unwrap());
        assert_eq!(drawn.quads, 0, "{text:?}");
        assert!(b.plan().instances.is_empty());
    }
    assert_eq!(cache.stats().glyphs, 0);
}

#[test]
fn a_missing_font_draws_nothing_and_says_so() {
    // Text laid out with a font the font system drawing it lacks (here: one with no fonts;
    // a FontSystem without fonts cannot shape, cosmic-text panics in `shape_until_scroll`, so
    // it can only come to the cache this way): no image, nothing drawn, counted.
    let Some(mut laid_out) = fonts("missing_font", &[LATIN]) else { return };
    let t = buffer(&mut laid_out, "Hi", 16.0);
    let mut fs = FontSystem::new_with_locale_and_db("en-US".into(), fontdb::Database::new());
    let mut b = batcher();
    let mut dev = MockDevice::new(b.budget());
    let mut cache = GlyphCache::default();
    let drawn = frame(&mut b, &mut dev, |b| cache.draw_buffer(b, &mut fs, &t, [0.0, 0.0], [255; 4]).unwrap());
    assert_eq!((drawn.quads, drawn.unrendered), (0, 2));
}

#[test]
fn characters_no_font_has_are_drawn_as_notdef_and_counted() {
    let Some(mut fs) = fonts("notdef", &[LATIN]) else { return };
    let t = buffer(&mut fs, "a生", 16.0);
    let mut b = batcher();
    let mut dev = MockDevice::new(b.budget());
    let mut cache = GlyphCache::default();
    let drawn = frame(&mut b, &mut dev, |b| cache.draw_buffer(b, &mut fs, &t, [0.0, 0.0], [255; 4]).unwrap());
    assert_eq!((drawn.quads, drawn.notdef), (2, 1), "DejaVu's .notdef box stands in for the CJK character");
}

#[test]
fn a_glyph_too_large_for_the_device_is_refused_by_name_and_the_rest_drawn() {
    let Some(mut fs) = fonts("too_large", &[LATIN]) else { return };
    let mut t = Buffer::new(&mut fs, Metrics::new(16.0, 20.0));
    let huge = Attrs::new().metrics(Metrics::new(300.0, 320.0));
    t.set_rich_text([("a", Attrs::new()), ("W", huge), ("b", Attrs::new())], &Attrs::new(), Shaping::Advanced, None);
    t.shape_until_scroll(&mut fs, false);
    let limits = Limits { max_texture_size_px: 256, ..Limits::guaranteed_minimum() };
    let mut b = Batcher::new(limits, Config::default()).unwrap();
    let mut dev = MockDevice::new(b.budget());
    let mut cache = GlyphCache::default();
    for _ in 0..2 {
        let drawn = frame(&mut b, &mut dev, |b| cache.draw_buffer(b, &mut fs, &t, [0.0, 0.0], [255; 4]).unwrap());
        assert_eq!((drawn.quads, drawn.refused), (2, 1), "a and b drawn, W refused");
        match drawn.refusal {
            Some(TextError::Glyph {
                font_size_px,
                width_px,
                source: TextureError::TooLarge { max_px: 256, .. },
                ..
            }) => {
                assert_eq!(font_size_px, 300.0);
                assert!(width_px > 256);
            }
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(cache.stats().misses, 3, "the refusal is cached: the huge glyph is rasterised once");
    let msg = cache.glyph_quad(&mut b, &mut fs, &physical(&t, [0.0, 0.0])[1].0, [255; 4]).unwrap_err().to_string();
    assert!(msg.contains("300 px") && msg.contains("256 px"), "{msg}");
}

#[test]
fn a_glyph_larger_than_an_atlas_page_is_drawn_from_its_own_array() {
    let Some(mut fs) = fonts("larger_than_page", &[LATIN]) else { return };
    let t = buffer(&mut fs, "M", 200.0);
    let config = Config::default().with_max_packed_size_px(64).with_page_size_px(64);
    let mut b = Batcher::new(Limits::guaranteed_minimum(), config).unwrap();
    let mut dev = MockDevice::new(b.budget());
    let mut cache = GlyphCache::default();
    let drawn = frame(&mut b, &mut dev, |b| cache.draw_buffer(b, &mut fs, &t, [0.0, 0.0], [255; 4]).unwrap());
    assert_eq!(drawn.quads, 1);
    let g = &physical(&t, [0.0, 0.0])[0].0;
    let (texels, _, _, [w, _]) = expected_texels(&mut fs, g.cache_key);
    assert!(w > 64);
    assert_eq!(dev.sampled()[0].map(|s| s.1), Some(MockDevice::hash(&texels)));
}

#[test]
fn a_sprite_pushed_between_two_glyphs_lands_between_them() {
    let Some(mut fs) = fonts("painters_order", &[LATIN]) else { return };
    let t = buffer(&mut fs, "ab", 20.0);
    let mut b = batcher();
    let mut dev = MockDevice::new(b.budget());
    let sprite = b.textures().register(&TextureDesc::new(8, 8), &[7; 8 * 8 * 4]).unwrap();
    let mut cache = GlyphCache::default();
    let order: Vec<TextureId> = frame(&mut b, &mut dev, |b| {
        let mut order = Vec::new();
        for (i, (g, _)) in physical(&t, [0.0, 0.0]).iter().enumerate() {
            let q = cache.glyph_quad(b, &mut fs, g, [255; 4]).unwrap().unwrap();
            b.push(&q).unwrap();
            order.push(q.texture);
            if i == 0 {
                b.push(&Quad::rect(sprite, [0.0, 0.0], [8.0, 8.0])).unwrap();
                order.push(sprite);
            }
        }
        order
    });
    let sampled: Vec<TextureId> = dev.sampled().iter().map(|s| s.unwrap().0).collect();
    assert_eq!(sampled, order);
    assert_eq!((order[1], b.plan().segments.len()), (sprite, 1));
    // draw_buffer pushes the same quads glyph_quad gives.
    let glyph_quads = [b.plan().instances[0], b.plan().instances[2]];
    frame(&mut b, &mut dev, |b| cache.draw_buffer(b, &mut fs, &t, [0.0, 0.0], [255; 4]).unwrap());
    assert_eq!(b.plan().instances.to_vec(), glyph_quads);
}

#[test]
fn a_glyph_with_a_colour_of_its_own_uses_it() {
    let Some(mut fs) = fonts("glyph_colour", &[LATIN]) else { return };
    let mut t = Buffer::new(&mut fs, Metrics::new(16.0, 20.0));
    let green = Attrs::new().color(Color::rgba(0, 255, 0, 128));
    t.set_rich_text([("a", Attrs::new()), ("b", green)], &Attrs::new(), Shaping::Advanced, None);
    t.shape_until_scroll(&mut fs, false);
    let mut b = batcher();
    let mut dev = MockDevice::new(b.budget());
    let mut cache = GlyphCache::default();
    frame(&mut b, &mut dev, |b| cache.draw_buffer(b, &mut fs, &t, [0.0, 0.0], [200, 0, 0, 200]).unwrap());
    let colors: Vec<[u8; 4]> = b.plan().instances.iter().map(|i| i.color).collect();
    assert_eq!(colors, [[200, 0, 0, 200], [0, 128, 0, 128]]);
}

#[test]
fn bad_positions_and_closed_frames_are_errors_not_panics() {
    let Some(mut fs) = fonts("bad_input", &[LATIN]) else { return };
    let t = buffer(&mut fs, "x", 16.0);
    let mut b = batcher();
    let mut cache = GlyphCache::default();
    assert_eq!(cache.draw_buffer(&mut b, &mut fs, &t, [0.0, 0.0], [255; 4]), Err(TextError::Quad(QuadError::NoFrame)));
    b.begin_frame();
    let nan = cache.draw_buffer(&mut b, &mut fs, &t, [f32::NAN, 0.0], [255; 4]);
    assert!(matches!(nan, Err(TextError::Position(_))));
    for far in [[3e9, 0.0], [0.0, -3e9], [f32::INFINITY, 0.0]] {
        assert_eq!(cache.draw_buffer(&mut b, &mut fs, &t, far, [255; 4]), Err(TextError::Position(far)));
    }
    // Inside the range, but a glyph beyond it.
    let long = buffer(&mut fs, "xx", 200.0);
    let e = cache.draw_buffer(&mut b, &mut fs, &long, [Quad::MAX_POSITION, 0.0], [255; 4]);
    assert_eq!(e, Err(TextError::Quad(QuadError::OutOfRange)));
    assert_eq!(b.finish().instances.len(), 0);
}

#[test]
fn a_glyph_texture_freed_by_the_host_is_rasterised_again() {
    let Some(mut fs) = fonts("host_freed", &[LATIN]) else { return };
    let t = buffer(&mut fs, "k", 16.0);
    let mut b = batcher();
    let mut dev = MockDevice::new(b.budget());
    let mut cache = GlyphCache::default();
    frame(&mut b, &mut dev, |b| cache.draw_buffer(b, &mut fs, &t, [0.0, 0.0], [255; 4]).unwrap());
    let key = physical(&t, [0.0, 0.0])[0].0.cache_key;
    b.textures().free(cache.texture(&key).unwrap()).unwrap();
    let drawn = frame(&mut b, &mut dev, |b| cache.draw_buffer(b, &mut fs, &t, [0.0, 0.0], [255; 4]).unwrap());
    assert_eq!(drawn.quads, 1);
    assert_eq!(cache.stats().misses, 2);
    assert_eq!(cache.stats().glyphs, 1);
    assert!(dev.sampled()[0].is_some());
}

#[test]
fn restore_reuploads_glyphs_and_returns_the_hosts_own_textures() {
    let Some(mut fs) = fonts("restore", &[LATIN]) else { return };
    let t = buffer(&mut fs, "ok", 16.0);
    let mut b = batcher();
    let mut dev = MockDevice::new(b.budget());
    let sprite = b.textures().register(&TextureDesc::new(4, 4), &[9; 64]).unwrap();
    let mut cache = GlyphCache::default();
    frame(&mut b, &mut dev, |b| cache.draw_buffer(b, &mut fs, &t, [0.0, 0.0], [255; 4]).unwrap());
    let hashes: Vec<_> = dev.sampled().to_vec();
    let missing = b.restore();
    assert_eq!(missing.len(), 3);
    assert_eq!(cache.reupload(&mut b, &mut fs, &missing), [sprite]);
    let mut fresh = MockDevice::new(b.budget());
    b.textures().update(sprite, &[9; 64]).unwrap();
    frame(&mut b, &mut fresh, |b| cache.draw_buffer(b, &mut fs, &t, [0.0, 0.0], [255; 4]).unwrap());
    assert_eq!(fresh.sampled(), &hashes[..], "the rebuilt device samples the same glyphs");
    assert_eq!(cache.stats().misses, 2, "the cache keeps its keys");
}

#[test]
fn clear_frees_every_glyph_texture() {
    let Some(mut fs) = fonts("clear", &[LATIN]) else { return };
    let t = buffer(&mut fs, "abc", 16.0);
    let mut b = batcher();
    let mut dev = MockDevice::new(b.budget());
    let mut cache = GlyphCache::default();
    frame(&mut b, &mut dev, |b| cache.draw_buffer(b, &mut fs, &t, [0.0, 0.0], [255; 4]).unwrap());
    let ids: Vec<_> = physical(&t, [0.0, 0.0]).iter().map(|(g, _)| cache.texture(&g.cache_key).unwrap()).collect();
    cache.clear(&mut b);
    assert!(ids.iter().all(|&id| !b.contains(id)));
    assert_eq!((cache.stats().glyphs, cache.stats().bytes, cache.stats().entries), (0, 0, 0));
}

/// Several plans in one host frame (one per egui callback, one per Bevy camera, prepared
/// before one submit): a glyph drawn by an earlier plan of the frame is not evicted by a later
/// one, and no glyph rectangle is rewritten within the frame, however small the cap. Only
/// when the host ends the frame ([`Batcher::end_frame`]) are they given back.
#[test]
fn glyphs_of_earlier_plans_of_the_host_frame_are_never_evicted() {
    let Some(mut fs) = fonts("plans_in_a_frame", &[LATIN]) else { return };
    let texts: Vec<Buffer> = ["W", "M", "A", "B"].iter().map(|t| buffer(&mut fs, t, 40.0)).collect();
    let key = |i: usize| physical(&texts[i], [0.0, 0.0])[0].0.cache_key;
    let mut b = batcher();
    let mut dev = MockDevice::new(b.budget());
    // Room for one glyph at most.
    let mut cache = GlyphCache::new(GlyphCacheOptions::default().with_cap_bytes(40 * 40 * 4));
    frame(&mut b, &mut dev, |_| {});
    b.end_frame();
    for text in &texts[..3] {
        frame(&mut b, &mut dev, |b| cache.draw_buffer(b, &mut fs, text, [0.0, 0.0], [255; 4]).unwrap());
    }
    for i in 0..3 {
        let t = cache.texture(&key(i)).expect("a glyph of this frame stays cached");
        assert!(b.contains(t), "its texture stays alive");
    }
    // Rectangles may follow a page's growth, but no two glyphs of the frame share one.
    let now: Vec<_> = (0..3)
        .map(|i| {
            let p = b.placement(cache.texture(&key(i)).unwrap()).unwrap();
            (p.array, p.layer, p.rect_px)
        })
        .collect();
    for i in 0..3 {
        for j in 0..i {
            assert_ne!(now[i], now[j], "glyphs {i} and {j} share a rectangle within the frame");
        }
    }
    assert_eq!(cache.stats().evictions, 0);
    b.end_frame();
    // The next frame trims the cache back: the earlier glyphs go now.
    frame(&mut b, &mut dev, |b| cache.draw_buffer(b, &mut fs, &texts[3], [0.0, 0.0], [255; 4]).unwrap());
    let s = cache.stats();
    assert!(s.evictions >= 2, "{s:?}");
    assert!(cache.contains(&key(3)));
}

#[test]
fn text_keeps_linear_tints_under_an_srgb_drawing_state_and_leaves_it_as_it_was() {
    let Some(mut fs) = fonts("text_linear_tints", &[LATIN]) else { return };
    let text = buffer(&mut fs, "Ag", 21.0);
    let mut b = batcher();
    let mut dev = MockDevice::new(b.budget());
    let mut cache = GlyphCache::default();
    let white = b.textures().white().unwrap();
    frame(&mut b, &mut dev, |b| {
        b.state().set_tint_encoding(crate::TintEncoding::Srgb);
        cache.draw_buffer(b, &mut fs, &text, [0.0, 0.0], [255, 0, 0, 255]).unwrap();
        assert_eq!(b.state().tint_encoding(), crate::TintEncoding::Srgb, "the host's state is back");
        b.push(&crate::Quad::rect(white, [0.0, 0.0], [4.0, 4.0])).unwrap();
    });
    let srgb: Vec<bool> =
        b.plan().instances.iter().map(|i| i.flags() & crate::plan::Instance::FLAG_SRGB_TINT != 0).collect();
    assert_eq!(srgb, [false, false, true], "two glyphs linear, the quad after them sRGB");
}
