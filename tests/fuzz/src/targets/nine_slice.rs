//! `nine_slice`: random `NineSlice` parameters (destinations, borders, sources, scales, fills,
//! colours; NaN, infinite, negative and huge) through `Batcher::push_nine_slice`; then the
//! plan through the validator and the mock device.

use super::check_plan;
use crate::rng::{Reader, Rng};
use crate::runner::{Outcome, Target};
use layerbatch_core::validate::PlanValidator;
use layerbatch_core::{Batcher, Config, Limits, MockDevice, NineSlice, SliceFill, TextureDesc, TextureId};

pub struct NineSliceTarget;

/// A number: mostly whole pixels, now and then eighths, now and then extreme. (Past the
/// input's end the reader gives zeros: those pick whole pixels.)
fn f(r: &mut Reader<'_>) -> f32 {
    match r.below(6) {
        5 => r.edgy_f32(),
        4 => f32::from(r.u8()) / 8.0,
        _ => f32::from(r.u8()),
    }
}

fn four(r: &mut Reader<'_>) -> [f32; 4] {
    [f(r), f(r), f(r), f(r)]
}

impl Target for NineSliceTarget {
    fn name(&self) -> &'static str {
        "nine_slice"
    }

    fn default_iterations(&self) -> u64 {
        300_000
    }

    fn generate(&mut self, rng: &mut Rng) -> Vec<u8> {
        let n = 32 + rng.index(160);
        rng.bytes(n)
    }

    fn run(&mut self, input: &[u8]) -> Outcome {
        let case = Case::new(input);
        let Ok(mut batcher) = Batcher::new(Limits::guaranteed_minimum(), Config::default()) else {
            return Outcome::Finding("Batcher::new failed".to_string());
        };
        let (w, h) = case.texture_px;
        let Ok(texture) = batcher.textures().register(&TextureDesc::new(w, h), &vec![255; (w * h * 4) as usize]) else {
            return Outcome::Finding("registering a small texture failed".to_string());
        };
        let (mut validator, mut device) = (PlanValidator::new(batcher.budget()), MockDevice::new(batcher.budget()));
        batcher.begin_frame();
        let mut last = Outcome::Ok;
        for slice in &case.slices {
            let mut slice = *slice;
            slice.texture = texture;
            if let Err(e) = batcher.push_nine_slice(&slice) {
                last = Outcome::err(&e);
            }
        }
        if batcher.frame_counters().quads as usize > 3 * NineSlice::MAX_QUADS {
            return Outcome::Finding(format!("{} quads from three nine-slices", batcher.frame_counters().quads));
        }
        if let Err(m) = check_plan(&mut batcher, &mut validator, &mut device) {
            return Outcome::Finding(m);
        }
        last
    }

    fn describe(&mut self, input: &[u8]) -> String {
        format!("{:?}", Case::new(input))
    }
}

/// A texture's size and the nine-slices drawn of it (their texture set when drawn).
#[derive(Debug)]
struct Case {
    texture_px: (u32, u32),
    slices: Vec<NineSlice>,
}

impl Case {
    fn new(input: &[u8]) -> Self {
        let mut r = Reader::new(input);
        let texture_px = (1 + u32::from(r.u8() % 64), 1 + u32::from(r.u8() % 64));
        // Any id: replaced by the registered texture's when drawn.
        let id = placeholder();
        let slices = (0..1 + r.below(3))
            .map(|_| {
                let fills = [SliceFill::Stretch, SliceFill::Tile];
                // Sources mostly inside the texture and borders mostly inside the source (so
                // most slices get drawn); now and then anything.
                let (w, h) = (texture_px.0 as f32, texture_px.1 as f32);
                let source = match r.below(6) {
                    5 => Some(four(&mut r)),
                    1 => {
                        let (x, y) = (f32::from(r.u8()) / 255.0 * w / 2.0, f32::from(r.u8()) / 255.0 * h / 2.0);
                        Some([x, y, f32::from(r.u8()) / 255.0 * (w - x), f32::from(r.u8()) / 255.0 * (h - y)])
                    }
                    _ => None,
                };
                let [_, _, sw, sh] = source.unwrap_or([0.0, 0.0, w, h]);
                let anything = r.below(5) == 4;
                let border = |r: &mut Reader<'_>, side: f32| {
                    if anything {
                        f(r)
                    } else {
                        f32::from(r.u8()) / 255.0 * side / 2.0
                    }
                };
                let borders = [border(&mut r, sw), border(&mut r, sh), border(&mut r, sw), border(&mut r, sh)];
                let slice = NineSlice::new(id, four(&mut r), borders)
                    .with_border_scale(f(&mut r))
                    .with_fill(fills[r.below(2)], fills[r.below(2)])
                    .with_color([r.u8(), r.u8(), r.u8(), r.u8()]);
                match source {
                    Some(source) => slice.with_source_px(source),
                    None => slice,
                }
            })
            .collect();
        Self { texture_px, slices }
    }
}

/// A texture id to build slices with before the texture exists.
fn placeholder() -> TextureId {
    static ID: std::sync::OnceLock<TextureId> = std::sync::OnceLock::new();
    *ID.get_or_init(|| {
        let mut b = Batcher::new(Limits::guaranteed_minimum(), Config::default()).expect("a batcher");
        b.textures().white().expect("the white texture")
    })
}
