//! The colour offset ("second tint", `DrawingState::set_color_offset`) scene and its CPU
//! reference, shared by the native test (`tests/color_offset.rs`) and the browser test
//! (`examples/web`): solid quads over an opaque background, opaque and half transparent,
//! with offsets alone, under a tint, after a flash effect, inside `save_state` /
//! `restore_state`, a transparent quad whose offset must add nothing, and tints on the sRGB
//! curve (`DrawingState::set_tint_encoding`), one with an offset. One draw.
//!
//! The reference composites each quad on the CPU from the documented formula: the colour is
//! `tint` (premultiplied; the white texture's texel is 1; an sRGB tint's rgb decoded with the
//! sRGB curve first), the flash mixes its rgb towards
//! `params.rgb * a` by `params.a`, the offset adds `offset * a`, and `Over` blends
//! `src + dst * (1 - src.a)`, rounded once to 8 bits.

use layerbatch_core::{Batcher, Config, Effect, EffectId, Quad, TextureId, TintEncoding};

/// The target's size.
pub const SIZE: [u32; 2] = [160, 64];
/// Most a channel may differ from the reference: the 8-bit parameters and offsets are exact
/// fractions of 255, but devices round once more than the reference.
pub const TOLERANCE: u8 = 2;

/// The background, opaque.
const BACKGROUND: [u8; 4] = [40, 60, 80, 255];

/// One quad of the scene: where, its premultiplied tint, its offset, its flash (`params`),
/// whether its tint is on the sRGB curve.
struct Item {
    at: [u32; 2],
    tint: [u8; 4],
    offset: [u8; 3],
    flash: Option<[f32; 4]>,
    srgb: bool,
}

/// 20 x 20 quads in a row, 4 pixels apart, then a second row.
fn items() -> Vec<Item> {
    let item = |i: u32, tint, offset, flash| Item {
        at: [4 + 26 * (i % 6), 6 + 30 * (i / 6)],
        tint,
        offset,
        flash,
        srgb: false,
    };
    let srgb = |i, tint, offset| Item { srgb: true, ..item(i, tint, offset, None) };
    vec![
        item(0, [255, 255, 255, 255], [0, 0, 0], None),
        item(1, [100, 50, 20, 255], [255, 64, 0], None),
        item(2, [128, 0, 0, 128], [0, 0, 255], None),
        item(3, [0, 0, 0, 0], [255, 255, 255], None),
        item(4, [30, 30, 30, 255], [10, 200, 90], Some([1.0, 1.0, 1.0, 0.5])),
        item(5, [64, 64, 64, 128], [128, 128, 128], Some([0.0, 0.0, 1.0, 1.0])),
        // Inside save / restore: the restored offset is the one before the save.
        item(6, [200, 100, 0, 255], [0, 90, 0], None),
        item(7, [80, 80, 80, 255], [7, 0, 0], None),
        item(8, [0, 64, 128, 192], [255, 0, 255], None),
        // On the sRGB curve: 188 is linear 0.5, 17 is 0.0056 (a dark tint), 128 at alpha 128
        // is premultiplied (linear 0.216 of 0.5).
        srgb(9, [188, 128, 64, 255], [0, 0, 0]),
        srgb(10, [188, 0, 128, 128], [0, 40, 0]),
        srgb(11, [17, 24, 39, 255], [0, 0, 0]),
    ]
}

/// The config: the flash is the one effect (id 1).
pub fn config() -> Config {
    Config::default().with_effects(&[Effect::FLASH])
}

/// Records the scene into `b` (a frame begun, `white` its white texture), and sets the offset
/// back to none.
pub fn record(b: &mut Batcher, white: TextureId) -> Result<(), String> {
    let full = [SIZE[0] as f32, SIZE[1] as f32];
    b.push(&Quad::solid(white, [0.0, 0.0], full, BACKGROUND)).map_err(|e| e.to_string())?;
    for (i, it) in items().iter().enumerate() {
        if i == 6 {
            b.state().save();
        }
        b.state().set_color_offset(it.offset);
        b.state().set_tint_encoding(if it.srgb { TintEncoding::Srgb } else { TintEncoding::Linear });
        let flash = it.flash.unwrap_or([0.0; 4]);
        let id = if it.flash.is_some() { b.budget().effect_at(1).unwrap() } else { EffectId::NONE };
        b.state().set_effect(id, flash);
        let quad = Quad::solid(white, [it.at[0] as f32, it.at[1] as f32], [20.0, 20.0], it.tint);
        b.push(&quad).map_err(|e| e.to_string())?;
        if i == 6 {
            // Restored: the offset of item 5, drawn by a quad in the gap below item 6.
            b.state().restore();
            let gap = Quad::solid(white, [it.at[0] as f32, 28.0], [20.0, 6.0], [50, 50, 50, 255]);
            b.push(&gap).map_err(|e| e.to_string())?;
        }
    }
    b.state().set_color_offset([0, 0, 0]);
    b.state().set_tint_encoding(TintEncoding::Linear);
    Ok(())
}

/// The scene's pixels as the CPU composites them (RGBA8, rows top-down).
pub fn reference() -> Vec<u8> {
    let (w, h) = (SIZE[0] as usize, SIZE[1] as usize);
    let mut px: Vec<[f32; 4]> = vec![BACKGROUND.map(|c| f32::from(c) / 255.0); w * h];
    let mut paint = |at: [u32; 2], size: [u32; 2], src: [f32; 4]| {
        for y in at[1]..at[1] + size[1] {
            for x in at[0]..at[0] + size[0] {
                let d = &mut px[y as usize * w + x as usize];
                *d = std::array::from_fn(|k| src[k] + d[k] * (1.0 - src[3]));
            }
        }
    };
    let items = items();
    for (i, it) in items.iter().enumerate() {
        paint(it.at, [20, 20], look(it.tint, it.offset, it.flash, it.srgb));
        if i == 6 {
            // The gap quad: drawn after the restore, with item 5's offset and flash.
            let before = &items[5];
            paint([it.at[0], 28], [20, 6], look([50, 50, 50, 255], before.offset, before.flash, before.srgb));
        }
    }
    px.iter().flat_map(|p| p.map(|c| (c.clamp(0.0, 1.0) * 255.0).round() as u8)).collect()
}

/// The colour a quad draws: its tint (decoded from the sRGB curve with `srgb`), flashed, then
/// offset.
fn look(tint: [u8; 4], offset: [u8; 3], flash: Option<[f32; 4]>, srgb: bool) -> [f32; 4] {
    let c = tint.map(|v| f32::from(v) / 255.0);
    let decode = |v: f32| match srgb {
        false => v,
        true if v <= 0.04045 => v / 12.92,
        true => ((v + 0.055) / 1.055).powf(2.4),
    };
    let mut rgb = [decode(c[0]), decode(c[1]), decode(c[2])];
    if let Some(p) = flash {
        // Parameters travel as bytes.
        let p = p.map(|v| (v * 255.0).round() / 255.0);
        rgb = std::array::from_fn(|k| rgb[k] + (p[k] * c[3] - rgb[k]) * p[3]);
    }
    let o = offset.map(|v| f32::from(v) / 255.0);
    [rgb[0] + o[0] * c[3], rgb[1] + o[1] * c[3], rgb[2] + o[2] * c[3], c[3]]
}
