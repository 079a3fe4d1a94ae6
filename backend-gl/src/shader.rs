//! GLSL sources of the slot-tier programs. Pure string generation, no GL calls.
//!
//! Both stages of tier `n` declare `n` `sampler2DArray` uniforms `u_slot0..u_slot{n-1}` (one
//! texture unit each, shared by the stages). The fragment shader picks one with a balanced
//! tree of `if`s on the flat per-instance slot (about `log2(n)` comparisons per pixel); the
//! layer is a texture coordinate, never a branch. The tier-1 program has no branch at all.
//!
//! Sampling positions arrive in texels of level 0 (`Instance::uv_rect`), so core can grow an
//! atlas page in size without touching an instance. The **vertex** stage divides them by the
//! size of the instance's layer (`textureSize` of its slot, picked by the same tree, once per
//! vertex), and the clamp bounds with them: the fragment stage gets `0..1` coordinates and
//! does per pixel only what a plain sprite shader does, plus the derivatives, one clamp
//! (`FLAG_CLAMP_TO_RECT`: into the texture's own rectangle inset by half a texel) and the
//! slot branch above tier 1. Tier 1 samples with `texture` (implicit derivatives, as a plain
//! sprite shader). Above it, the mip level is computed from the derivatives of the unclamped
//! position before any branch and sampled with `textureLod`, so mipmaps select the right level
//! whichever branch runs and inside or outside the clamped band.

use std::fmt::Write as _;

use layerbatch_core::plan::{AttributeFormat, Instance};
use layerbatch_core::{Effect, ProgramKey};

use crate::lighting;

/// Name of the `vec2` uniform holding the viewport size in pixels.
pub(crate) const VIEWPORT_UNIFORM: &str = "u_viewport_px";

/// Name of the `vec4` uniform holding the segment's tint ([`layerbatch_core::plan::DrawState::tint`]).
pub(crate) const TINT_UNIFORM: &str = "u_tint";
/// Name of the `vec2[3]` uniform holding the segment's transform: the columns of
/// `[a c tx; b d ty]`.
pub(crate) const TRANSFORM_UNIFORM: &str = "u_transform";

/// Name of the `float` uniform holding the frame's time for effects (only in programs with
/// effects).
pub(crate) const TIME_UNIFORM: &str = "u_time_s";
/// Name of the ramp's sampler uniform (only in programs with an effect that samples it).
pub(crate) const RAMP_UNIFORM: &str = "u_ramp";

/// Name of the sampler uniform of `slot`.
pub(crate) fn slot_uniform(slot: u32) -> String {
    format!("u_slot{slot}")
}

fn header(gles: bool) -> &'static str {
    match gles {
        false => "#version 330 core\n",
        // Both stages sample (the vertex stage asks layer sizes): samplers need a precision.
        true => "#version 300 es\nprecision highp float;\nprecision highp int;\nprecision highp sampler2DArray;\n",
    }
}

/// Appends the vertex attribute declarations, one per row of [`Instance::ATTRIBUTES`]:
/// `layout(location = N) in <type> a_<name>;`.
fn vertex_inputs(out: &mut String) {
    out.push('\n');
    for a in &Instance::ATTRIBUTES {
        let _ = writeln!(out, "layout(location = {}) in {} a_{};", a.location, glsl_type(a.format), a.name);
    }
}

/// The GLSL type a vertex shader reads an attribute of `format` as.
fn glsl_type(format: AttributeFormat) -> &'static str {
    match format {
        AttributeFormat::Float32x2 => "vec2",
        // Uint16x4 through glVertexAttribPointer, not normalized: whole-number floats.
        AttributeFormat::Float32x4 | AttributeFormat::Unorm8x4 | AttributeFormat::Uint16x4 => "vec4",
        AttributeFormat::Uint32 => "uint",
    }
}

const VERTEX_BODY: &str = r"
// Viewport size in pixels: (0, 0) is the top-left corner, y points down.
uniform vec2 u_viewport_px;
// The segment's affine transform of pixel positions, by columns: x axis, y axis, offset.
uniform vec2 u_transform[3];
// The segment's tint, premultiplied: multiplies every quad's colour (a resident layer's fade).
uniform vec4 u_tint;

// The sampling position in the layer, 0..1.
out vec2 v_uv;
// Clamp bounds of the sampling position, 0..1: (lo.xy, hi.xy).
flat out vec4 v_bounds;
// Interpolated: a triangle's corners have colours of their own (a quad's four are one).
out vec4 v_color;
flat out uint v_slot;
flat out float v_layer;
// The layer's size in texels: the level choice above tier 1 needs it.
flat out vec2 v_size;
// 1.0 when the texture has straight alpha (FLAG_STRAIGHT_ALPHA): premultiplied once sampled.
flat out float v_straight;

// No sampling position reaches this far: the bounds of an unclamped instance.
const float UNBOUNDED = 1e30;

void main() {
    // Corner k of the quad (its vertex 4q + k, indexed: see Instance::VERTICES) is
    // (s, t) = (k % 2, k / 2): (0,0) (1,0) (0,1) (1,1).
    int corner = gl_VertexID % 4;
    vec2 st = vec2(float(corner % 2), float(corner / 2));
    vec2 local = a_origin + st.x * a_axis_x + st.y * a_axis_y;
    vec2 pos = u_transform[0] * local.x + u_transform[1] * local.y + u_transform[2];
    gl_Position = vec4(pos.x / u_viewport_px.x * 2.0 - 1.0, 1.0 - pos.y / u_viewport_px.y * 2.0, 0.0, 1.0);
    // The bit layout of Instance::slot_flags_layer, from the constants above.
    v_slot = a_slot_flags_layer & SLOT_MASK;
    // Texels to 0..1 by the size of the instance's layer, here rather than per pixel.
    v_size = vec2(layer_size(v_slot));
    vec2 inv_size = 1.0 / v_size;
    v_uv = mix(a_uv_rect.xy, a_uv_rect.zw, st) * inv_size;
    // The texture's rectangle inset by half a texel, so linear filtering never reads a
    // neighbour's or the padding's texels; on an axis under one texel wide, its centre.
    vec2 mid = 0.5 * (a_tex_rect.xy + a_tex_rect.zw);
    vec2 lo = min(a_tex_rect.xy + 0.5, mid);
    vec2 hi = max(a_tex_rect.zw - 0.5, mid);
    v_color = a_color * u_tint;
    uint flags = (a_slot_flags_layer >> FLAGS_SHIFT) & FLAGS_MASK;
    // A select (mix with a bool vector), not arithmetic: exact bounds either way.
    bvec4 clamped = bvec4((flags & FLAG_CLAMP_TO_RECT) != 0u);
    v_bounds = mix(vec4(-UNBOUNDED, -UNBOUNDED, UNBOUNDED, UNBOUNDED), vec4(lo, hi) * inv_size.xyxy, clamped);
    v_layer = float(a_slot_flags_layer >> LAYER_SHIFT);
    v_straight = float(min(flags & FLAG_STRAIGHT_ALPHA, 1u));
}
";

const FRAGMENT_COMMON: &str = r"
in vec2 v_uv;
flat in vec4 v_bounds;
in vec4 v_color;
flat in uint v_slot;
flat in float v_layer;
flat in vec2 v_size;
flat in float v_straight;

layout(location = 0) out vec4 o_color;
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

/// Appends a choice over slots `lo..hi` as a balanced tree of `if`s on `slot`, with `leaf(s)`
/// the statement for slot `s`.
fn slot_tree(out: &mut String, slot: &str, lo: u32, hi: u32, depth: usize, leaf: &dyn Fn(u32) -> String) {
    let pad = "    ".repeat(depth);
    if hi - lo == 1 {
        let _ = writeln!(out, "{pad}{}", leaf(lo));
        return;
    }
    let mid = lo + (hi - lo) / 2;
    let _ = writeln!(out, "{pad}if ({slot} < {mid}u) {{");
    slot_tree(out, slot, lo, mid, depth + 1, leaf);
    let _ = writeln!(out, "{pad}}} else {{");
    slot_tree(out, slot, mid, hi, depth + 1, leaf);
    let _ = writeln!(out, "{pad}}}");
}

/// Appends the `tier` sampler uniforms.
fn samplers(out: &mut String, tier: u32) {
    out.push('\n');
    for s in 0..tier {
        let _ = writeln!(out, "uniform sampler2DArray {};", slot_uniform(s));
    }
}

/// The `(vertex, fragment)` GLSL sources of the program of `key` ([`ProgramKey`]: tier,
/// effects, lights): `#version 330 core`, or `#version 300 es` when `gles`. The one source
/// function: a renderer compiles the programs of `ProgramKey::of_budget` at creation.
///
/// Both stages declare exactly `tier` `sampler2DArray`s: the vertex stage asks the size of
/// the instance's layer (`textureSize`), the fragment stage samples (`texture` at tier 1,
/// `textureLod` at a level computed before the branch above it, once per slot). Tier 1 has no branch in either. Both stages declare every
/// constant of
/// [`Instance::SHADER_CONSTANTS`] as `const uint NAME = VALUEu;` and use those names, never
/// literals, for the instance bit layout.
///
/// ```
/// use layerbatch_core::ProgramKey;
/// let (vs, fs) = layerbatch_gl::program_sources(&ProgramKey::plain(4), true);
/// assert!(vs.starts_with("#version 300 es"));
/// assert_eq!(vs.matches("uniform sampler2DArray").count(), 4);
/// assert_eq!(fs.matches("uniform sampler2DArray").count(), 4);
/// assert_eq!(fs.matches("textureSize").count(), 0); // sizes are the vertex stage's
/// ```
///
/// With effects ([`layerbatch_core::Config::effects`]) the vertex stage passes each quad's
/// effect id, parameters and texel position, and the fragment stage has one function per
/// effect (`lb_effect_1` .. : the effect's body with the signature `vec4 (vec4 color, vec2
/// texel, vec4 params, float time_s)`) and applies the quad's, chosen by a chain of `if`s on
/// its id, to the tinted texel. With lights above 0 it also lights lit quads (`u_normal0..`
/// samplers for the normal-map siblings of the slots, `u_lights`, `u_light_count`,
/// `u_ambient` and `lb_lighting`; see the module `lighting`), applied to the tinted texel
/// before the effect. A key without either gives exactly the plain program.
///
/// ```
/// use layerbatch_core::{Effect, ProgramKey};
/// let (vs, fs) = layerbatch_gl::program_sources(&ProgramKey::plain(2).with_effects(&Effect::BUILT_IN), false);
/// assert!(vs.contains("v_effect = a_effect & EFFECT_MASK;"));
/// assert_eq!(fs.matches("vec4 lb_effect_").count(), 5);
/// assert!(fs.contains("vec4 lb_ramp(float index, float row)")); // the palette samples the ramp
/// assert!(fs.contains("uniform float u_time_s;"));
/// let (vs, fs) = layerbatch_gl::program_sources(&ProgramKey::plain(2).with_lights(8), true);
/// assert!(vs.contains("v_lit = a_effect & EFFECT_LIT;"));
/// assert_eq!(fs.matches("uniform sampler2DArray").count(), 4); // 2 slots, 2 normal maps
/// assert!(fs.contains("uniform vec4 u_lights[16];"));
/// ```
///
/// # Panics
/// If `key.tier` is 0.
pub fn program_sources(key: &ProgramKey<'_>, gles: bool) -> (String, String) {
    let (tier, effects, lights) = (key.tier, key.effects, key.lights);
    assert!(tier > 0, "a program samples at least one slot");
    let mut vs = String::from(header(gles));
    layout_constants(&mut vs);
    vertex_inputs(&mut vs);
    samplers(&mut vs, tier);
    vs.push_str("\n// The size of the layers in `slot`, texels.\nivec2 layer_size(uint slot) {\n");
    slot_tree(&mut vs, "slot", 0, tier, 1, &|s| format!("return textureSize(u_slot{s}, 0).xy;"));
    vs.push_str("}\n");
    if effects.is_empty() && lights == 0 {
        vs.push_str(VERTEX_BODY);
    } else {
        let mut tail = String::from("\n");
        if !effects.is_empty() {
            vs.push_str(EFFECT_VARYINGS_OUT);
            tail.push_str(EFFECT_VERTEX_TAIL.trim_end_matches("}\n"));
        }
        if lights > 0 {
            vs.push_str(lighting::VARYINGS_OUT);
            tail.push_str(lighting::VERTEX_TAIL);
        }
        tail.push_str("}\n");
        vs.push_str(&VERTEX_BODY.replacen("\n}\n", &tail, 1));
    }
    let mut fs = String::from(header(gles));
    layout_constants(&mut fs);
    samplers(&mut fs, tier);
    fs.push_str(FRAGMENT_COMMON);
    effect_functions(&mut fs, effects, tier);
    if lights > 0 {
        lighting::fragment_declarations(&mut fs, tier, lights);
    }
    fs.push_str("\nvoid main() {\n");
    if tier == 1 && lights > 0 {
        // The normal map is sampled in a branch: its level comes from derivatives taken
        // before it.
        fs.push_str(concat!(
            "    vec2 ddx = dFdx(v_uv) * v_size;\n",
            "    vec2 ddy = dFdy(v_uv) * v_size;\n",
            "    float lod = 0.5 * log2(max(dot(ddx, ddx), dot(ddy, ddy)));\n",
        ));
    }
    if tier == 1 {
        // No branch: implicit derivatives, as a plain sprite shader. Only textures without
        // mip levels are clamped, so the clamp never moves a level choice.
        fs.push_str(concat!(
            "    // FLAG_CLAMP_TO_RECT: into the texture's rectangle (unbounded without the flag).\n",
            "    vec2 p = clamp(v_uv, v_bounds.xy, v_bounds.zw);\n",
            "    vec4 texel = texture(u_slot0, vec3(p, v_layer));\n",
        ));
    } else {
        fs.push_str(concat!(
            "    // The mip level, from the derivatives of the unclamped position in texels, before\n",
            "    // the branch (GL's formula: log2 of the longer footprint axis). Sampling at a given\n",
            "    // level costs what plain sampling does; explicit gradients cost more than twice that\n",
            "    // on software rasterizers.\n",
            "    vec2 ddx = dFdx(v_uv) * v_size;\n",
            "    vec2 ddy = dFdy(v_uv) * v_size;\n",
            "    float lod = 0.5 * log2(max(dot(ddx, ddx), dot(ddy, ddy)));\n",
            "    // FLAG_CLAMP_TO_RECT: into the texture's rectangle (unbounded without the flag).\n",
            "    vec2 p = clamp(v_uv, v_bounds.xy, v_bounds.zw);\n",
            "    vec4 texel;\n",
        ));
        slot_tree(&mut fs, "v_slot", 0, tier, 1, &|s| format!("texel = textureLod(u_slot{s}, vec3(p, v_layer), lod);"));
    }
    fs.push_str(concat!(
        "    // A straight texel is premultiplied here (mix(1, a, 1) is a, mix(1, a, 0) is 1, exactly);\n",
        "    // then texel and tint are both premultiplied.\n",
        "    texel.rgb *= mix(1.0, texel.a, v_straight);\n",
    ));
    if lights == 0 {
        fs.push_str(match effects.is_empty() {
            true => "    o_color = texel * v_color;\n}\n",
            false => "    o_color = lb_apply_effect(texel * v_color);\n}\n",
        });
        return (vs, fs);
    }
    fs.push_str("    vec4 c = texel * v_color;\n");
    lighting::fragment_body(&mut fs, &|out| {
        slot_tree(out, "v_slot", 0, tier, 3, &|s| {
            format!("t = textureLod({}, vec3(p, v_layer), lod);", lighting::normal_uniform(s))
        });
    });
    fs.push_str(match effects.is_empty() {
        true => "    o_color = c;\n}\n",
        false => "    o_color = lb_apply_effect(c);\n}\n",
    });
    (vs, fs)
}

/// What the vertex stage of a program with effects passes on.
const EFFECT_VARYINGS_OUT: &str = r"
// The quad's effect (0: none) and its 4 parameters (0..1); the sampling position in texels
// of the texture's own rectangle, and that rectangle in the layer (for lb_alpha).
flat out uint v_effect;
flat out vec4 v_params;
out vec2 v_texel;
flat out vec4 v_rect;
";

/// The end of the vertex body of a program with effects (replacing its closing brace).
const EFFECT_VERTEX_TAIL: &str = r"
    v_effect = a_effect & EFFECT_MASK;
    v_params = a_effect_params;
    v_texel = mix(a_uv_rect.xy, a_uv_rect.zw, st) - a_tex_rect.xy;
    v_rect = a_tex_rect;
}
";

/// Appends, for a program with effects, the time uniform, the effect inputs, one function
/// per effect and `lb_apply_effect`, which applies the quad's.
fn effect_functions(out: &mut String, effects: &[Effect], tier: u32) {
    if effects.is_empty() {
        return;
    }
    out.push_str(
        "\nuniform float u_time_s;\nflat in uint v_effect;\nflat in vec4 v_params;\nin vec2 v_texel;\nflat in vec4 v_rect;\n",
    );
    // Effects may read their quad's texture elsewhere (an outline, a palette index).
    out.push_str(concat!(
        "\n// The quad's texture at `texel` (its texels, from its rectangle's corner), level 0,\n",
        "// premultiplied; 0 outside the rectangle.\n",
        "vec4 lb_texel(vec2 texel) {\n",
        "    vec2 at = v_rect.xy + texel;\n",
        "    if (any(lessThan(at, v_rect.xy)) || any(greaterThanEqual(at, v_rect.zw))) { return vec4(0.0); }\n",
        "    vec3 uvw = vec3(at / v_size, v_layer);\n",
        "    vec4 t;\n",
    ));
    slot_tree(out, "v_slot", 0, tier, 1, &|s| format!("t = textureLod(u_slot{s}, uvw, 0.0);"));
    out.push_str("    t.rgb *= mix(1.0, t.a, v_straight);\n    return t;\n}\n");
    out.push_str("\n// The alpha of lb_texel.\nfloat lb_alpha(vec2 texel) {\n    return lb_texel(texel).a;\n}\n");
    if effects.iter().any(|e| e.ramp) {
        let _ = write!(
            out,
            "\n// The ramp (one layer, {w}x{h}, straight RGBA8): entry `index` (0..1 over its {w}\n\
             // entries) of row `row` (0..1 over its {h} rows), unfiltered.\n\
             uniform highp sampler2DArray {RAMP_UNIFORM};\n\
             vec4 lb_ramp(float index, float row) {{\n\
             \x20   ivec2 at = ivec2(floor(clamp(vec2(index, row), 0.0, 1.0) * vec2({wm}.0, {hm}.0) + 0.5));\n\
             \x20   return texelFetch({RAMP_UNIFORM}, ivec3(at, 0), 0);\n}}\n",
            w = layerbatch_core::RAMP_WIDTH_PX,
            h = layerbatch_core::RAMP_ROWS,
            wm = layerbatch_core::RAMP_WIDTH_PX - 1,
            hm = layerbatch_core::RAMP_ROWS - 1,
        );
    }
    for (k, e) in effects.iter().enumerate() {
        let _ = write!(
            out,
            "\n// Effect {} ({:?}).\nvec4 lb_effect_{}(vec4 color, vec2 texel, vec4 params, float time_s) {{\n{}\n}}\n",
            k + 1,
            e.name,
            k + 1,
            e.glsl
        );
    }
    out.push_str("\nvec4 lb_apply_effect(vec4 color) {\n");
    // Quads without an effect leave at once (a branch all of a quad's pixels agree on).
    out.push_str("    if (v_effect == 0u) { return color; }\n");
    for k in 1..=effects.len() {
        let _ =
            writeln!(out, "    if (v_effect == {k}u) {{ return lb_effect_{k}(color, v_texel, v_params, u_time_s); }}");
    }
    out.push_str("    return color;\n}\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tier_one_has_no_branch() {
        for gles in [false, true] {
            let (vs, fs) = program_sources(&ProgramKey::plain(1), gles);
            assert!(!fs.contains("if ("), "{fs}");
            assert!(!vs.contains("if ("), "{vs}");
        }
    }

    #[test]
    fn tree_covers_every_slot_once() {
        for tier in [2, 3, 4, 10, 16, 32] {
            let (vs, fs) = program_sources(&ProgramKey::plain(tier), false);
            for s in 0..tier {
                assert_eq!(fs.matches(&format!("textureLod(u_slot{s},")).count(), 1, "tier {tier} slot {s}");
                assert_eq!(vs.matches(&format!("textureSize(u_slot{s},")).count(), 1, "tier {tier} slot {s}");
            }
            assert_eq!(fs.matches("if (").count() as u32, tier - 1);
            assert_eq!(vs.matches("if (").count() as u32, tier - 1);
            assert_eq!(fs.matches("uniform sampler2DArray").count() as u32, tier);
            assert_eq!(vs.matches("uniform sampler2DArray").count() as u32, tier);
        }
    }

    #[test]
    fn derivatives_before_branch() {
        let (_, fs) = program_sources(&ProgramKey::plain(8), true);
        let main = fs.find("void main()").unwrap();
        let ddx = fs[main..].find("dFdx").unwrap();
        let first_if = fs[main..].find("if (").unwrap();
        assert!(ddx < first_if);
        assert!(!fs.contains("texture(") && !fs.contains("textureGrad("), "every sample uses textureLod");
    }

    // Texels become 0..1 in the vertex stage (by the instance's layer size, bounds too); the
    // fragment stage asks no size. Tier 1 clamps and samples with implicit derivatives, as a
    // plain sprite shader; above it the derivatives of the unclamped position come first, then
    // one clamp, both before the branch.
    #[test]
    fn clamp_in_texels_before_branch() {
        for gles in [false, true] {
            for tier in [1, 2, 8] {
                let (vs, fs) = program_sources(&ProgramKey::plain(tier), gles);
                let main = &fs[fs.find("void main()").unwrap()..];
                let clamp = main.find("clamp(v_uv, v_bounds.xy, v_bounds.zw)").unwrap();
                if tier == 1 {
                    assert!(!main.contains("dFdx") && !main.contains("textureGrad"), "{fs}");
                    assert_eq!(main.matches("texture(u_slot0, vec3(p, v_layer))").count(), 1, "{fs}");
                } else {
                    let ddx = main.find("dFdx(v_uv)").unwrap();
                    assert!(ddx < clamp && clamp < main.find("if (").unwrap());
                    assert_eq!(fs.matches("textureLod(").count() as u32, tier, "one sample per slot: {fs}");
                    assert!(main.find("log2(").unwrap() < main.find("if (").unwrap(), "the level before the branch");
                    assert!(!fs.contains("texture(") && !fs.contains("textureGrad("), "{fs}");
                }
                assert_eq!(fs.matches("textureSize").count(), 0, "{fs}");
                assert_eq!(vs.matches("textureSize(").count() as u32, tier, "{vs}");
                assert!(vs.contains("* inv_size;") && vs.contains("vec4(lo, hi) * inv_size.xyxy"), "{vs}");
                assert!(vs.contains("a_tex_rect.xy + 0.5") && vs.contains("a_tex_rect.zw - 0.5"), "{vs}");
                assert!(vs.contains("FLAG_CLAMP_TO_RECT) != 0u"), "{vs}");
            }
        }
    }

    // Every attribute location of the table is declared once, with the field it names, as the
    // type its format reads as, and the vertex body reads it.
    #[test]
    fn attribute_locations() {
        let (vs, _) = program_sources(&ProgramKey::plain(1).with_effects(&Effect::BUILT_IN), false);
        for a in Instance::ATTRIBUTES {
            let (loc, name) = (a.location, format!("a_{}", a.name));
            let decl = format!("layout(location = {loc}) in ");
            assert_eq!(vs.matches(&decl).count(), 1, "{decl}");
            assert!(vs.lines().any(|l| l.starts_with(&decl) && l.ends_with(&format!(" {name};"))), "{name}");
            let typed = format!("{decl}{} {name};", glsl_type(a.format));
            assert!(vs.contains(&typed), "{typed}");
            let body = &vs[vs.find("void main()").unwrap()..];
            assert!(body.contains(&name), "{name} is read");
        }
        assert_eq!(vs.matches("layout(location = ").count(), Instance::ATTRIBUTES.len());
        // The fields the shader bodies read, by name: the table names each once.
        for name in [
            "origin",
            "axis_x",
            "axis_y",
            "uv_rect",
            "tex_rect",
            "color",
            "slot_flags_layer",
            "effect_params",
            "effect",
        ] {
            assert_eq!(Instance::ATTRIBUTES.iter().filter(|a| a.name == name).count(), 1, "{name}");
        }
        // The packed integer is read as one (glVertexAttribIPointer), the colour as floats.
        assert!(vs.contains(" in uint a_slot_flags_layer;") && vs.contains(" in vec4 a_color;"), "{vs}");
        // Without effects the effect inputs are declared and unread: the same program as ever.
        let (plain_vs, plain_fs) = program_sources(&ProgramKey::plain(1), false);
        assert!(!plain_vs[plain_vs.find("void main()").unwrap()..].contains("a_effect"), "{plain_vs}");
        assert!(!plain_fs.contains("v_effect") && !plain_fs.contains("u_time_s"), "{plain_fs}");
    }

    // Every declared effect is one function, called from one branch on its id, and applied to
    // the tinted texel.
    #[test]
    fn effects_are_functions_chosen_by_id() {
        for tier in [1, 4] {
            let (_, fs) = program_sources(&ProgramKey::plain(tier).with_effects(&Effect::BUILT_IN), true);
            for (k, e) in Effect::BUILT_IN.iter().enumerate() {
                let k = k + 1;
                assert_eq!(
                    fs.matches(&format!("vec4 lb_effect_{k}(vec4 color, vec2 texel, vec4 params, float time_s)"))
                        .count(),
                    1
                );
                assert_eq!(fs.matches(&format!("if (v_effect == {k}u) {{ return lb_effect_{k}(")).count(), 1);
                assert!(fs.contains(e.glsl), "{}", e.name);
            }
            assert!(fs.contains("o_color = lb_apply_effect(texel * v_color);"), "{fs}");
        }
    }
}
