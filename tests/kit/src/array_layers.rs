//! The 1,000-texture scene on a device held to 256 layers an array (WebGPU's default
//! `maxTextureArrayLayers`, the limit three.js #33072 hit), shared by the native test
//! (`tests/array_layers.rs`) and the browser test (`examples/web`): core spreads the textures
//! over more arrays (counted), and every quad shows its own texture, exactly, in one draw.

use layerbatch_core::{Batcher, Config, FramePlan, Quad, TextureDesc};

/// Textures, one quad each.
pub const TEXTURES: u32 = 1000;
/// Quads a row.
pub const ROW: u32 = 40;
/// A quad's side, pixels.
pub const CELL: u32 = 6;
/// The target's size.
pub const SIZE: [u32; 2] = [ROW * CELL, TEXTURES / ROW * CELL];

/// The scene's config: nothing packed into pages, so every texture is a layer of a class array.
pub fn config() -> Config {
    Config::default().with_max_packed_size_px(4)
}

/// Texture `i`'s one colour: neighbours differ in every channel.
pub fn color(i: u32) -> [u8; 4] {
    [(i * 53 % 251) as u8, (i * 97 % 241) as u8 + 10, if i.is_multiple_of(2) { 30 } else { 220 }, 255]
}

/// Registers the 1,000 textures on `b` (made with [`config`] for a device of 256 layers an
/// array) and plans the frame of their quads, [`ROW`] a row. Returns the plan and the arrays
/// the textures went to.
///
/// # Errors
/// A texture or quad refused, fewer than 4 arrays, or arrays not counted as created.
pub fn frame(b: &mut Batcher) -> Result<(FramePlan, usize), String> {
    let desc = TextureDesc::new(8, 8);
    let ids = (0..TEXTURES)
        .map(|i| b.textures().register(&desc, &color(i).repeat(64)))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())?;
    let arrays: std::collections::BTreeSet<_> =
        ids.iter().filter_map(|id| b.placement(*id).ok()).map(|p| p.array).collect();
    if arrays.len() < 4 {
        return Err(format!("1,000 layers over {} arrays of at most 256", arrays.len()));
    }
    b.begin_frame();
    for (i, id) in ids.iter().enumerate() {
        let i = i as u32;
        let at = [(i % ROW * CELL) as f32, (i / ROW * CELL) as f32];
        b.push(&Quad::rect(*id, at, [CELL as f32; 2])).map_err(|e| e.to_string())?;
    }
    let plan = b.finish().clone();
    if plan.totals.arrays_created as usize != arrays.len() {
        return Err(format!("{} arrays created, {} used", plan.totals.arrays_created, arrays.len()));
    }
    Ok((plan, arrays.len()))
}

/// Checks a [`SIZE`] RGBA8 readback of the frame: every pixel of quad `i` is [`color`]`(i)`.
///
/// # Errors
/// The first pixel that is not.
pub fn check(px: &[u8]) -> Result<(), String> {
    for i in 0..TEXTURES {
        let (x0, y0) = (i % ROW * CELL, i / ROW * CELL);
        for y in y0..y0 + CELL {
            for x in x0..x0 + CELL {
                let at = ((y * SIZE[0] + x) * 4) as usize;
                let got = px.get(at..at + 4).ok_or("a readback smaller than the scene")?;
                if got != color(i) {
                    return Err(format!("texture {i} at ({x}, {y}) is {got:?}, not {:?}", color(i)));
                }
            }
        }
    }
    Ok(())
}
