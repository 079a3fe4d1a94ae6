//! `{"tier1": {...}, "tier4": {...}}` for the fill-cost page (benches/web/pages/fill.js): each
//! tier's programs as layerbatch-gl compiles them on WebGL2
//! (`layerbatch_gl::program_sources(&ProgramKey::plain(tier), gles = true)`), core's instance
//! table (`Instance::ATTRIBUTES`, `Instance::BYTES`) and the page's quads as core's
//! instances, so that the page feeds the programs exactly what layerbatch-gl does and stays
//! true when the instance changes.

use layerbatch_core::plan::{AttributeFormat, Instance};
use layerbatch_core::ProgramKey;

/// The page's quads: `QUADS` of the canvas's size (`CANVAS`), each showing all of a
/// `SIDE`x`SIDE` texture (clamped to its rectangle, linear), a grey tint, quad `i` in slot
/// `i % tier`.
const QUADS: u32 = 8;
const CANVAS: [f32; 2] = [800.0, 600.0];
const SIDE: u16 = 64;

fn json_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// How WebGL2 reads a format: `[components, type, normalized, integer]`.
fn webgl(format: AttributeFormat) -> String {
    let (n, ty, norm, int) = match format {
        AttributeFormat::Float32x2 => (2, "FLOAT", false, false),
        AttributeFormat::Float32x4 => (4, "FLOAT", false, false),
        AttributeFormat::Unorm8x4 => (4, "UNSIGNED_BYTE", true, false),
        AttributeFormat::Uint32 => (1, "UNSIGNED_INT", false, true),
        AttributeFormat::Uint16x4 => (4, "UNSIGNED_SHORT", false, true),
    };
    format!("[{n},\"{ty}\",{norm},{int}]")
}

fn main() {
    let attributes: Vec<String> = Instance::ATTRIBUTES
        .iter()
        .map(|a| format!("{{\"location\":{},\"offset\":{},\"webgl\":{}}}", a.location, a.offset, webgl(a.format)))
        .collect();
    let entries: Vec<String> = [1u32, 4]
        .iter()
        .map(|&tier| {
            let (vs, fs) = layerbatch_gl::program_sources(&ProgramKey::plain(tier), true).expect("translates");
            let words: Vec<String> = (0..QUADS)
                .flat_map(|i| {
                    let quad = Instance {
                        origin: [0.0, 0.0],
                        axis_x: [CANVAS[0], 0.0],
                        axis_y: [0.0, CANVAS[1]],
                        uv_rect: [0.0, 0.0, f32::from(SIDE), f32::from(SIDE)],
                        tex_rect: [0, 0, SIDE, SIDE],
                        color: [128; 4],
                        slot_flags_layer: Instance::pack(
                            i % tier,
                            Instance::FLAG_CLAMP_TO_RECT | Instance::FLAG_LINEAR,
                            0,
                        ),
                        effect_params: [0; 4],
                        effect: 0,
                    };
                    let words: [u32; 16] = bytemuck::cast(quad);
                    words.map(|w| w.to_string())
                })
                .collect();
            format!(
                "\"tier{tier}\":{{\"vs\":{},\"fs\":{},\"stride\":{},\"attributes\":[{}],\"instances\":[{}]}}",
                json_string(&vs),
                json_string(&fs),
                Instance::BYTES,
                attributes.join(","),
                words.join(",")
            )
        })
        .collect();
    println!("{{{}}}", entries.join(","));
}
