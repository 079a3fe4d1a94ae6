//! GLSL sources of the slot-tier programs. Pure string generation, no GL calls.
//!
//! One vertex shader serves every tier. The fragment shader of tier `n` declares `n`
//! `sampler2DArray` uniforms `u_slot0..u_slot{n-1}` and picks one with a balanced tree of
//! `if`s on the flat per-instance slot (about `log2(n)` comparisons per pixel); the layer is a
//! texture coordinate, never a branch. The tier-1 program has no branch at all.
//!
//! Sampling positions arrive in texels of level 0 (`Instance::uv_rect`). Their derivatives are
//! taken before any branch; with `FLAG_CLAMP_TO_RECT` the position is clamped into the
//! texture's own rectangle (`Instance::tex_rect`) inset by half a texel, with bounds the vertex
//! stage computes once per quad (clamping in texels needs no texture size). Each slot's branch
//! then divides position and derivatives by its layer size (`textureSize`) and samples with
//! `textureGrad`, so mipmaps select the right level whichever branch runs.

use std::fmt::Write as _;

use layerbatch_core::Instance;

/// Vertex attribute locations, fixed by `layout(location = N)` in the vertex shader. Each
/// reads the [`Instance`] field of the same name, at its `Instance::OFFSET_*` byte offset.
pub(crate) mod attr {
    /// `origin: [f32; 2]`.
    pub(crate) const ORIGIN: u32 = 0;
    /// `axis_x: [f32; 2]`.
    pub(crate) const AXIS_X: u32 = 1;
    /// `axis_y: [f32; 2]`.
    pub(crate) const AXIS_Y: u32 = 2;
    /// `uv_rect: [f32; 4]`, texels.
    pub(crate) const UV_RECT: u32 = 3;
    /// `tex_rect: [f32; 4]`, texels.
    pub(crate) const TEX_RECT: u32 = 4;
    /// `color: [u8; 4]`, normalized.
    pub(crate) const COLOR: u32 = 5;
    /// `slot_flags_layer: u32` (an integer attribute).
    pub(crate) const SLOT_FLAGS_LAYER: u32 = 6;
    /// Number of attributes.
    pub(crate) const COUNT: u32 = 7;
}

/// Name of the `vec2` uniform holding the viewport size in pixels.
pub(crate) const VIEWPORT_UNIFORM: &str = "u_viewport_px";

/// Name of the `vec2[3]` uniform holding the segment's transform: the columns of
/// `[a c tx; b d ty]`.
pub(crate) const TRANSFORM_UNIFORM: &str = "u_transform";

/// Name of the sampler uniform of `slot`.
pub(crate) fn slot_uniform(slot: u32) -> String {
    format!("u_slot{slot}")
}

fn header(gles: bool, fragment: bool) -> &'static str {
    match (gles, fragment) {
        (false, _) => "#version 330 core\n",
        (true, false) => "#version 300 es\nprecision highp float;\nprecision highp int;\n",
        (true, true) => {
            "#version 300 es\nprecision highp float;\nprecision highp int;\nprecision highp sampler2DArray;\n"
        }
    }
}

/// Appends the vertex attribute declarations, at the locations of [`attr`].
fn vertex_inputs(out: &mut String) {
    out.push('\n');
    for (location, ty, name) in [
        (attr::ORIGIN, "vec2", "a_origin"),
        (attr::AXIS_X, "vec2", "a_axis_x"),
        (attr::AXIS_Y, "vec2", "a_axis_y"),
        (attr::UV_RECT, "vec4", "a_uv_rect"),
        (attr::TEX_RECT, "vec4", "a_tex_rect"),
        (attr::COLOR, "vec4", "a_color"),
        (attr::SLOT_FLAGS_LAYER, "uint", "a_slot_flags_layer"),
    ] {
        let _ = writeln!(out, "layout(location = {location}) in {ty} {name};");
    }
}

const VERTEX_BODY: &str = r"
// Viewport size in pixels: (0, 0) is the top-left corner, y points down.
uniform vec2 u_viewport_px;
// The segment's affine transform of pixel positions, by columns: x axis, y axis, offset.
uniform vec2 u_transform[3];

// The sampling position, texels of level 0.
out vec2 v_uv;
// Clamp bounds of the sampling position, texels: (lo.xy, hi.xy).
flat out vec4 v_bounds;
flat out vec4 v_color;
flat out uint v_slot;
flat out float v_layer;

// No sampling position reaches this far: the bounds of an unclamped instance.
const float UNBOUNDED = 1e30;

void main() {
    // Corner (s, t) of a 4-vertex triangle strip: (0,0) (1,0) (0,1) (1,1).
    vec2 st = vec2(float(gl_VertexID % 2), float(gl_VertexID / 2));
    vec2 local = a_origin + st.x * a_axis_x + st.y * a_axis_y;
    vec2 pos = u_transform[0] * local.x + u_transform[1] * local.y + u_transform[2];
    gl_Position = vec4(pos.x / u_viewport_px.x * 2.0 - 1.0, 1.0 - pos.y / u_viewport_px.y * 2.0, 0.0, 1.0);
    v_uv = mix(a_uv_rect.xy, a_uv_rect.zw, st);
    // The texture's rectangle inset by half a texel, so linear filtering never reads a
    // neighbour's or the padding's texels; on an axis under one texel wide, its centre.
    vec2 mid = 0.5 * (a_tex_rect.xy + a_tex_rect.zw);
    vec2 lo = min(a_tex_rect.xy + 0.5, mid);
    vec2 hi = max(a_tex_rect.zw - 0.5, mid);
    v_color = a_color;
    // The bit layout of Instance::slot_flags_layer, from the constants above.
    v_slot = a_slot_flags_layer & SLOT_MASK;
    uint flags = (a_slot_flags_layer >> FLAGS_SHIFT) & FLAGS_MASK;
    // A select (mix with a bool vector), not arithmetic: exact bounds either way.
    bvec4 clamped = bvec4((flags & FLAG_CLAMP_TO_RECT) != 0u);
    v_bounds = mix(vec4(-UNBOUNDED, -UNBOUNDED, UNBOUNDED, UNBOUNDED), vec4(lo, hi), clamped);
    v_layer = float(a_slot_flags_layer >> LAYER_SHIFT);
}
";

const FRAGMENT_COMMON: &str = r"
in vec2 v_uv;
flat in vec4 v_bounds;
flat in vec4 v_color;
flat in uint v_slot;
flat in float v_layer;

layout(location = 0) out vec4 o_color;

// Samples one layer of an array at `p` (texels of level 0, already clamped), with the
// gradients of the unclamped position (texels per pixel), taken before any branch.
vec4 sample_array(sampler2DArray s, vec2 p, vec2 ddx, vec2 ddy) {
    vec2 inv_size = 1.0 / vec2(textureSize(s, 0).xy);
    return textureGrad(s, vec3(p * inv_size, v_layer), ddx * inv_size, ddy * inv_size);
}
";

/// Appends the instance layout constants, `const uint NAME = VALUEu;` for every entry of
/// [`Instance::SHADER_CONSTANTS`], so the shaders unpack instances with the values core packs
/// them with, by name.
fn layout_constants(out: &mut String) {
    out.push_str("\n// Instance::SHADER_CONSTANTS (layerbatch-core): the bit layout of slot_flags_layer.\n");
    for (name, value) in Instance::SHADER_CONSTANTS {
        let _ = writeln!(out, "const uint {name} = {value}u;");
    }
}

/// Appends the slot choice over slots `lo..hi` as a balanced tree of `if`s.
fn slot_tree(out: &mut String, lo: u32, hi: u32, depth: usize) {
    let pad = "    ".repeat(depth);
    if hi - lo == 1 {
        let _ = writeln!(out, "{pad}texel = sample_array(u_slot{lo}, p, ddx, ddy);");
        return;
    }
    let mid = lo + (hi - lo) / 2;
    let _ = writeln!(out, "{pad}if (v_slot < {mid}u) {{");
    slot_tree(out, lo, mid, depth + 1);
    let _ = writeln!(out, "{pad}}} else {{");
    slot_tree(out, mid, hi, depth + 1);
    let _ = writeln!(out, "{pad}}}");
}

/// The `(vertex, fragment)` GLSL sources of the program of `tier` slots: `#version 330 core`,
/// or `#version 300 es` when `gles`.
///
/// The vertex stage declares no sampler; the fragment stage declares exactly `tier`
/// `sampler2DArray`s. Tier 1 has no branch. Both stages declare every constant of
/// [`Instance::SHADER_CONSTANTS`] as `const uint NAME = VALUEu;` and use those names, never
/// literals, for the instance bit layout.
///
/// # Panics
/// If `tier` is 0.
///
/// ```
/// let (vs, fs) = layerbatch_gl::shader_sources(4, true);
/// assert!(vs.starts_with("#version 300 es"));
/// assert_eq!(vs.matches("sampler2DArray").count(), 0);
/// assert_eq!(fs.matches("uniform sampler2DArray").count(), 4);
/// ```
pub fn shader_sources(tier: u32, gles: bool) -> (String, String) {
    assert!(tier > 0, "a program samples at least one slot");
    let mut vs = String::from(header(gles, false));
    layout_constants(&mut vs);
    vertex_inputs(&mut vs);
    vs.push_str(VERTEX_BODY);
    let mut fs = String::from(header(gles, true));
    layout_constants(&mut fs);
    fs.push('\n');
    for s in 0..tier {
        let _ = writeln!(fs, "uniform sampler2DArray {};", slot_uniform(s));
    }
    fs.push_str(FRAGMENT_COMMON);
    fs.push_str(concat!(
        "\nvoid main() {\n",
        "    // Derivatives of the texel-space position, before any branch.\n",
        "    vec2 ddx = dFdx(v_uv);\n",
        "    vec2 ddy = dFdy(v_uv);\n",
        "    // FLAG_CLAMP_TO_RECT: into the texture's rectangle (unbounded without the flag).\n",
        "    vec2 p = clamp(v_uv, v_bounds.xy, v_bounds.zw);\n",
        "    vec4 texel;\n",
    ));
    slot_tree(&mut fs, 0, tier, 1);
    fs.push_str("    // Texel and tint are both premultiplied.\n    o_color = texel * v_color;\n}\n");
    (vs, fs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tier_one_has_no_branch() {
        for gles in [false, true] {
            let (vs, fs) = shader_sources(1, gles);
            assert!(!fs.contains("if ("), "{fs}");
            assert!(!vs.contains("if ("), "{vs}");
        }
    }

    #[test]
    fn tree_covers_every_slot_once() {
        for tier in [2, 3, 4, 10, 16, 32] {
            let (_, fs) = shader_sources(tier, false);
            for s in 0..tier {
                assert_eq!(fs.matches(&format!("sample_array(u_slot{s},")).count(), 1, "tier {tier} slot {s}");
            }
            assert_eq!(fs.matches("if (").count() as u32, tier - 1);
            assert_eq!(fs.matches("uniform sampler2DArray").count() as u32, tier);
        }
    }

    #[test]
    fn derivatives_before_branch() {
        let (_, fs) = shader_sources(8, true);
        let main = fs.find("void main()").unwrap();
        let ddx = fs[main..].find("dFdx").unwrap();
        let first_if = fs[main..].find("if (").unwrap();
        assert!(ddx < first_if);
        assert!(!fs.contains("texture("), "every sample uses textureGrad");
    }

    // Texel-space sampling: derivatives of the unclamped position, then one clamp to the
    // bounds the vertex stage computed (from tex_rect and FLAG_CLAMP_TO_RECT), both before the
    // branch; each branch divides by its own layer size.
    #[test]
    fn clamp_in_texels_before_branch() {
        for gles in [false, true] {
            for tier in [1, 2, 8] {
                let (vs, fs) = shader_sources(tier, gles);
                let main = &fs[fs.find("void main()").unwrap()..];
                let ddx = main.find("dFdx(v_uv)").unwrap();
                let clamp = main.find("clamp(v_uv, v_bounds.xy, v_bounds.zw)").unwrap();
                assert!(ddx < clamp);
                if let Some(first_if) = main.find("if (") {
                    assert!(clamp < first_if);
                }
                assert_eq!(fs.matches("textureSize(s, 0)").count(), 1, "{fs}");
                assert_eq!(fs.matches("textureGrad(").count(), 1, "one sampling function: {fs}");
                assert!(vs.contains("a_tex_rect.xy + 0.5") && vs.contains("a_tex_rect.zw - 0.5"), "{vs}");
                assert!(vs.contains("FLAG_CLAMP_TO_RECT) != 0u"), "{vs}");
            }
        }
    }

    // Every attribute location of `attr` is declared once, with the field it names.
    #[test]
    fn attribute_locations() {
        let (vs, _) = shader_sources(1, false);
        for (loc, name) in [
            (attr::ORIGIN, "a_origin"),
            (attr::AXIS_X, "a_axis_x"),
            (attr::AXIS_Y, "a_axis_y"),
            (attr::UV_RECT, "a_uv_rect"),
            (attr::TEX_RECT, "a_tex_rect"),
            (attr::COLOR, "a_color"),
            (attr::SLOT_FLAGS_LAYER, "a_slot_flags_layer"),
        ] {
            let decl = format!("layout(location = {loc}) in ");
            assert_eq!(vs.matches(&decl).count(), 1, "{decl}");
            assert!(vs.lines().any(|l| l.starts_with(&decl) && l.ends_with(&format!(" {name};"))), "{name}");
        }
        assert_eq!(vs.matches("layout(location = ").count() as u32, attr::COUNT);
    }
}
