//! `decode`: random and mutated blocks of every compressed format, at random sizes up to
//! 64x64 (and now and then a wrong length), through `decode_rgba8`.

use crate::rng::{Reader, Rng};
use crate::runner::{Outcome, Target};
use layerbatch_core::{decode_rgba8, Format};

/// The compressed formats.
fn formats() -> Vec<Format> {
    Format::ALL.into_iter().filter(|f| f.is_compressed()).collect()
}

/// Blocks that decode to something (not only the decoders' error colours), for mutating:
/// a BC1 block, a BC7 mode-6 block, an ASTC void-extent block, an ETC2 block of each mode.
const TEMPLATES: [[u8; 16]; 5] = [
    [0x00, 0xF8, 0xE0, 0x07, 0x1B, 0x1B, 0x1B, 0x1B, 0x00, 0xF8, 0xE0, 0x07, 0xE4, 0xE4, 0xE4, 0xE4],
    [0x40, 0xAF, 0xF5, 0x5A, 0x0F, 0xF0, 0x0F, 0xF0, 0x12, 0x34, 0x56, 0x78, 0x9A, 0xBC, 0xDE, 0xF0],
    [0xFC, 0xFD, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x80, 0x00, 0x40, 0xFF, 0xFF, 0xFF, 0xFF],
    [0x88, 0x44, 0x22, 0x02, 0x0F, 0xF0, 0xA5, 0x5A, 0x88, 0x44, 0x22, 0x03, 0x0F, 0xF0, 0xA5, 0x5A],
    [0xFF, 0x05, 0x18, 0x03, 0x00, 0x00, 0xFF, 0xFF, 0x80, 0x10, 0x92, 0x49, 0x24, 0x92, 0x49, 0x24],
];

pub struct Decode;

impl Target for Decode {
    fn name(&self) -> &'static str {
        "decode"
    }

    fn default_iterations(&self) -> u64 {
        300_000
    }

    fn generate(&mut self, rng: &mut Rng) -> Vec<u8> {
        // Header: format, width, height, how the blocks are made and how long they are; then
        // the bytes blocks are made from (as many as the largest level needs).
        let mut input = vec![rng.byte(), rng.byte(), rng.byte(), rng.byte(), rng.byte()];
        let (w, h) = (1 + u32::from(input[1] % 64), 1 + u32::from(input[2] % 64));
        let need = Format::Bc7RgbaUnorm.image_bytes(w, h) as usize;
        let n = if rng.one_in(4) { rng.index(need + 1) } else { need };
        input.extend(rng.bytes(n));
        input
    }

    fn run(&mut self, input: &[u8]) -> Outcome {
        let formats = formats();
        let mut r = Reader::new(input);
        let format = formats[r.below(formats.len())];
        let (w, h) = (1 + u32::from(r.u8() % 64), 1 + u32::from(r.u8() % 64));
        let how = r.u8();
        let length = r.u8();
        let rest = &input[input.len().min(5)..];
        let need = format.image_bytes(w, h) as usize;
        let mut blocks: Vec<u8> = match how % 3 {
            // Random bytes.
            0 => rest.iter().copied().cycle().take(need).collect(),
            // Templates, bits flipped where the input says.
            _ => {
                let block = format.block_bytes() as usize;
                let t = &TEMPLATES[usize::from(how / 3) % TEMPLATES.len()];
                let mut b: Vec<u8> = (0..need).map(|i| t[i % block]).collect();
                for pair in rest.chunks_exact(2) {
                    let at = usize::from(u16::from_le_bytes([pair[0], pair[1]]) >> 3);
                    if need > 0 {
                        b[at % need] ^= 1 << (pair[1] & 7);
                    }
                }
                b
            }
        };
        // Now and then a length that is not the level's.
        match length % 16 {
            0 => blocks.truncate(need.saturating_sub(1 + usize::from(length >> 4))),
            1 => blocks.extend(std::iter::repeat_n(0, 1 + usize::from(length >> 4))),
            _ => {}
        }
        match decode_rgba8(format, w, h, &blocks) {
            Ok(rgba) if rgba.len() == (w * h * 4) as usize => {
                if blocks.len() != need {
                    Outcome::Finding(format!("{format} {w}x{h}: {} bytes decoded, {need} needed", blocks.len()))
                } else {
                    Outcome::Ok
                }
            }
            Ok(rgba) => Outcome::Finding(format!("{format} {w}x{h}: {} bytes of RGBA8 out", rgba.len())),
            Err(e) => Outcome::err(&e),
        }
    }
}
