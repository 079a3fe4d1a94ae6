//! The glyph cache under churn: 20,000 distinct glyphs (sizes 8..96 px; Latin, CJK and colour
//! emoji) shown over 2,000 frames with an 8 MiB cap, on the mock device. Printed: the cache's
//! bytes (peak against the cap), evictions, over-cap frames, and `finish` per frame early
//! against late (it must stay flat); evicted glyphs are drawn again at the end and their
//! texels checked against swash's own images. Then criterion times one warm frame of that
//! text (draw 220 glyphs, finish, execute).
//!
//! `cargo bench --bench text_cache`. Needs the fonts of `scripts/install-fonts.sh`.

use std::collections::HashSet;
use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::Criterion;
use layerbatch_core::text::cosmic_text::{
    Attrs, Buffer, CacheKey, Family, FontSystem, Metrics, Shaping, SwashCache, SwashContent, Weight,
};
use layerbatch_core::text::{GlyphCache, GlyphCacheOptions};
use layerbatch_core::{Batcher, Config, Limits, MockDevice};
use layerbatch_testkit::fonts::{self, Font};

const FRAMES: usize = 2_000;
const GLYPHS_PER_CHUNK: usize = 11;
/// Chunks of text on screen at once: each chunk shows for this many frames.
const WINDOW: usize = 20;
const CAP: u64 = 8 << 20;

/// One line of text per frame: 11 glyphs of one script at one size (some keys repeat: a
/// Latin character comes back at a size it had).
fn chunks(fonts: &mut FontSystem) -> Vec<Buffer> {
    let latin: Vec<char> = (0x21u32..=0x7E).chain(0xC0..=0xFF).filter_map(char::from_u32).collect();
    let cjk: Vec<char> = (0x4E00u32..0x9FA5).filter_map(char::from_u32).collect();
    // Emoji Noto draws in colour (DejaVu's outline emoticons left out by asking for Noto),
    // those Noto has.
    let noto = fonts.db().faces().find(|f| f.families.iter().any(|(n, _)| n == Font::Emoji.family())).map(|f| f.id);
    let noto = noto.and_then(|id| fonts.get_font(id, Weight::NORMAL)).expect("Noto Color Emoji loaded");
    let emoji: Vec<char> = (0x1F300u32..=0x1F5FF)
        .chain(0x1F900..=0x1F9FF)
        .filter_map(char::from_u32)
        .filter(|&c| noto.as_swash().charmap().map(c) != 0)
        .collect();
    let mut next = [0usize; 3];
    (0..FRAMES)
        .map(|c| {
            let script = c % 3;
            // Sizes cycle through 8..=96 px, a different one for each chunk of a script.
            let size = 8.0 + ((c / 3 * 37 + script * 11) % 89) as f32;
            let set = [&latin, &cjk, &emoji][script];
            let text: String = (0..GLYPHS_PER_CHUNK).map(|k| set[(next[script] + k) % set.len()]).collect();
            next[script] += GLYPHS_PER_CHUNK;
            let attrs =
                if script == 2 { Attrs::new().family(Family::Name(Font::Emoji.family())) } else { Attrs::new() };
            let mut b = Buffer::new(fonts, Metrics::new(size, size * 1.25));
            b.set_text(&text, &attrs, Shaping::Advanced, None);
            b.shape_until_scroll(fonts, false);
            b
        })
        .collect()
}

fn keys(buffer: &Buffer, pos: [f32; 2]) -> Vec<(CacheKey, [i32; 2])> {
    let mut out = Vec::new();
    for run in buffer.layout_runs() {
        for g in run.glyphs {
            let p = g.physical((pos[0], pos[1] + run.line_y), 1.0);
            out.push((p.cache_key, [p.x, p.y]));
        }
    }
    out
}

fn median(v: &[Duration]) -> Duration {
    let mut v = v.to_vec();
    v.sort();
    v[v.len() / 2]
}

/// Where each chunk is drawn: its own row of a tall virtual screen.
fn place(chunk: usize) -> [f32; 2] {
    [4.0, 4.0 + (chunk % WINDOW) as f32 * 100.0]
}

struct Churn {
    batcher: Batcher,
    device: MockDevice,
    cache: GlyphCache,
    fonts: FontSystem,
    chunks: Vec<Buffer>,
}

impl Churn {
    /// Draws the chunks `shown`; returns the glyph quads pushed, the glyphs not drawn for
    /// want of a texture, the time to draw the text and the time of `finish`.
    fn frame(&mut self, shown: impl Iterator<Item = usize>) -> (u32, u32, Duration, Duration) {
        let t = Instant::now();
        self.batcher.begin_frame();
        let (mut quads, mut refused) = (0, 0);
        for c in shown {
            let d = self.cache.draw_buffer(&mut self.batcher, &mut self.fonts, &self.chunks[c], place(c), [255; 4]);
            let d = d.expect("a frame is open");
            quads += d.quads;
            refused += d.refused + d.unrendered;
        }
        let draw = t.elapsed();
        let t = Instant::now();
        let plan = self.batcher.finish();
        let finish = t.elapsed();
        self.device.execute(plan).expect("a valid plan");
        (quads, refused, draw, finish)
    }
}

fn churn() -> Option<Churn> {
    let mut fonts = fonts::require(fonts::system(&Font::ALL), "text_cache bench")?;
    let t = Instant::now();
    let chunks = chunks(&mut fonts);
    let distinct: HashSet<CacheKey> =
        chunks.iter().enumerate().flat_map(|(c, b)| keys(b, place(c))).map(|k| k.0).collect();
    println!(
        "text_cache: {} chunks laid out in {:.1?}: {} distinct glyph keys",
        chunks.len(),
        t.elapsed(),
        distinct.len()
    );
    let batcher = Batcher::new(Limits::guaranteed_minimum(), Config::default()).expect("default config");
    let device = MockDevice::new(batcher.budget());
    let cache = GlyphCache::new(GlyphCacheOptions::default().with_cap_bytes(CAP));
    let mut s = Churn { batcher, device, cache, fonts, chunks };

    let t = Instant::now();
    let (mut finish, mut draw) = (Vec::with_capacity(FRAMES), Vec::with_capacity(FRAMES));
    let mut bytes_over_cap_outside_over_cap_frames = 0;
    let (mut min_quads, mut refused, mut first_eviction) = (u32::MAX, 0, None);
    let mut allocated = Vec::new();
    let (mut bucket, mut copies, mut resizes) = (Vec::new(), 0, 0);
    for f in 0..FRAMES {
        let over = s.cache.stats().over_cap_frames;
        let (quads, not_drawn, d, dt) = s.frame(f.saturating_sub(WINDOW - 1)..=f);
        finish.push(dt);
        draw.push(d);
        if f >= WINDOW {
            min_quads = min_quads.min(quads);
        }
        refused += not_drawn;
        if first_eviction.is_none() && s.cache.stats().evictions > 0 {
            first_eviction = Some(f);
        }
        let st = s.cache.stats();
        if st.bytes > CAP && st.over_cap_frames == over {
            bytes_over_cap_outside_over_cap_frames += 1;
        }
        let c = s.batcher.plan().counters;
        bucket.push(dt);
        copies += c.rect_copies;
        resizes += c.array_growths + c.array_shrinks;
        if f % 250 == 249 {
            allocated.push((
                f + 1,
                s.batcher.allocator().allocated_bytes(),
                st.bytes,
                median(&bucket),
                copies,
                resizes,
            ));
            bucket.clear();
            (copies, resizes) = (0, 0);
        }
    }
    let churn_time = t.elapsed();
    let st = s.cache.stats();
    // Early: the first 200 frames after the cache filled up to its cap and began evicting.
    let full = first_eviction.expect("the churn fills the cache");
    let early = median(&finish[full..full + 200]);
    let late = median(&finish[FRAMES - 200..]);
    println!(
        "text_cache: {FRAMES} frames of {WINDOW} chunks ({min_quads}+ glyph quads each once full) in {churn_time:.1?}; \
         glyphs refused or unrendered: {refused}"
    );
    println!(
        "text_cache: cap {} B, peak {} B ({:.1}% of cap), now {} B in {} glyphs",
        CAP,
        st.peak_bytes,
        100.0 * st.peak_bytes as f64 / CAP as f64,
        st.bytes,
        st.glyphs
    );
    println!(
        "text_cache: misses {} (rasterised), hits {}, evictions {}, over-cap frames {}, frames over cap without being counted {}",
        st.misses, st.hits, st.evictions, st.over_cap_frames, bytes_over_cap_outside_over_cap_frames
    );
    for (f, atlas, glyphs, med, copies, resizes) in &allocated {
        println!(
            "text_cache: frames ..{f}: finish median {med:.1?}, {resizes} array resizes, {copies} rect copies; then \
             atlas arrays {atlas} B, glyph texels {glyphs} B"
        );
    }
    println!(
        "text_cache: cap first reached at frame {full}; finish median frames {}..{}: {early:.1?}, frames {}..{}: \
         {late:.1?} (late/early {:.2})",
        full,
        full + 200,
        FRAMES - 200,
        FRAMES,
        late.as_secs_f64() / early.as_secs_f64()
    );
    assert!(st.peak_bytes <= CAP && bytes_over_cap_outside_over_cap_frames == 0, "bytes stay under the cap");
    println!(
        "text_cache: draw (text of the frame, misses included) median frames {}..{}: {:.1?}, frames {}..{}: {:.1?}",
        full,
        full + 200,
        median(&draw[full..full + 200]),
        FRAMES - 200,
        FRAMES,
        median(&draw[FRAMES - 200..])
    );
    assert_eq!(refused, 0, "no frame refuses text");

    // Evicted glyphs come back right: the first chunks of each script, long evicted, drawn again.
    let back: Vec<usize> = vec![0, 1, 2];
    let misses = st.misses;
    s.frame(back.iter().copied());
    let mut swash = SwashCache::new();
    let mut checked = 0;
    let mut colour = 0;
    let mut i = 0;
    for &c in &back {
        for (key, _) in keys(&s.chunks[c], place(c)) {
            let Some(image) = swash.get_image_uncached(&mut s.fonts, key) else { continue };
            if image.placement.width == 0 || image.placement.height == 0 {
                continue;
            }
            let mul = |v: u8, a: u8| ((u32::from(v) * u32::from(a) + 127) / 255) as u8;
            let texels: Vec<u8> = match image.content {
                SwashContent::Color => {
                    colour += 1;
                    image
                        .data
                        .chunks(4)
                        .flat_map(|p| [mul(p[0], p[3]), mul(p[1], p[3]), mul(p[2], p[3]), p[3]])
                        .collect()
                }
                _ => image.data.iter().flat_map(|&v| [v; 4]).collect(),
            };
            assert_eq!(
                s.device.sampled()[i].map(|x| x.1),
                Some(MockDevice::hash(&texels)),
                "glyph {i} came back right"
            );
            i += 1;
            checked += 1;
        }
    }
    println!(
        "text_cache: {checked} evicted glyphs ({colour} colour) drawn again: {} re-rasterised, texels equal swash's",
        s.cache.stats().misses - misses
    );
    Some(s)
}

fn main() {
    let Some(mut s) = churn() else { return };
    // A warm frame of the last window: every glyph a hit.
    let window: Vec<usize> = (FRAMES - WINDOW..FRAMES).collect();
    s.frame(window.iter().copied());
    let mut c = Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .configure_from_args();
    c.bench_function("text_cache/warm_frame_220_glyphs", |b| {
        b.iter(|| black_box(s.frame(window.iter().copied())));
    });
    c.final_summary();
}
