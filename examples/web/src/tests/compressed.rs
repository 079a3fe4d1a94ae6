//! Compressed formats in the browser: the families each path reports (in the test's line),
//! and a texture of each family it has drawn (from a compressed page, or for ASTC sizes
//! whose blocks do not tile a page, a class array). The blocks are made by hand (the
//! encoders are native code): solid red BC1, ETC2 RGB and ASTC at each of its 14 block sizes
//! (a void-extent block, the same 16 bytes at every size).

use layerbatch::{Config, Format, Quad, TextureDesc};

use super::{frame, open, Checked};
use crate::device::Backend;

/// A BC1 block of one colour: both endpoints red (RGB565 0xF800), every index 0.
const BC1_RED: [u8; 8] = [0x00, 0xF8, 0x00, 0xF8, 0, 0, 0, 0];
/// An ETC2 RGB block in ETC1's individual mode: base colour (15, 0, 0) of 4 bits, table 0,
/// every index 0 (modifier +2): (255, 2, 2).
const ETC2_RED: [u8; 8] = [0xFF, 0x00, 0x00, 0x00, 0, 0, 0, 0];
/// An ASTC LDR void-extent block (any block size): no extent, RGBA (1, 0, 0, 1) as UNORM16.
const ASTC_RED: [u8; 16] = [0xFC, 0xFD, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0, 0xFF, 0xFF];

pub(super) async fn compressed_families(backend: Backend) -> Checked {
    let (mut dev, mut batcher) = open(backend, [64, 64], Config::default()).await?;
    let families = batcher.budget().format_families;
    let mut drawn = Vec::new();
    let mut cases: Vec<(Format, &[u8], [u8; 4])> =
        vec![(Format::Bc1RgbaUnorm, &BC1_RED, [255, 0, 0, 255]), (Format::Etc2Rgb8Unorm, &ETC2_RED, [255, 2, 2, 255])];
    for block in layerbatch::AstcBlock::ALL {
        cases.push((Format::Astc { block, srgb: false }, &ASTC_RED, [255, 0, 0, 255]));
    }
    for (format, block, want) in cases {
        if !families.contains(format.family()) {
            continue;
        }
        // 30x22: whole blocks of the format, rounded up.
        let d = TextureDesc::new(30, 22).with_format(format);
        let [bw, bh] = format.block_size_px();
        let blocks = 30_u32.div_ceil(bw) * 22_u32.div_ceil(bh);
        let id =
            batcher.textures().register(&d, &block.repeat(blocks as usize)).map_err(|e| format!("{format}: {e}"))?;
        let image = frame(&mut dev, &mut batcher, &[Quad::rect(id, [8.0, 8.0], [30.0, 22.0])]).await?;
        image.rect([8, 8, 38, 30], want, 2, &format!("{format} ({})", backend.name()))?;
        batcher.textures().free(id).map_err(|e| e.to_string())?;
        drawn.push(format.name());
    }
    Ok(format!("families {families}; drew {drawn:?} ({})", backend.name()))
}
