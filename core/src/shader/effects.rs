//! The WGSL of the effect chain: one function per declared effect, the helpers their bodies
//! may call (`lb_texel`, `lb_alpha`, `lb_ramp`), and `lb_apply_effect`.

use std::fmt::Write as _;

use super::{slot_switch, GROUP_GLOBALS};
use crate::Effect;

/// Binding of the ramp (a one-layer `texture_2d_array`, read with `textureLoad`) in group
/// [`GROUP_GLOBALS`].
pub const RAMP_BINDING: u32 = 2;

/// Appends one function per effect and `lb_apply_effect`, which applies the quad's.
pub(crate) fn effect_functions(s: &mut String, effects: &[Effect], tier: u32) {
    if effects.is_empty() {
        return;
    }
    // Effects may read their quad's texture elsewhere (an outline, a palette index): the
    // quad's inputs, kept for lb_texel while an effect runs.
    s.push_str(concat!(
        "\nvar<private> lb_in: VsOut;\n",
        "\n// The quad's texture at `texel` (its texels, from its rectangle's corner), level 0,\n",
        "// premultiplied; 0 outside the rectangle.\n",
        "fn lb_texel(texel: vec2<f32>) -> vec4<f32> {\n",
        "    let at = lb_in.rect.xy + texel;\n",
        "    if (any(at < lb_in.rect.xy) || any(at >= lb_in.rect.zw)) { return vec4<f32>(0.0); }\n",
        "    let uv = at / lb_in.size;\n",
        "    var t: vec4<f32>;\n",
    ));
    let sample = |i: u32| format!("t = textureSampleLevel(slot{i}, samp{i}, uv, lb_in.layer, 0.0);");
    slot_switch(s, "lb_in.slot", tier, &sample);
    s.push_str("    return vec4<f32>(t.rgb * mix(1.0, t.a, lb_in.straight_offset.x), t.a);\n}\n");
    s.push_str(
        "\n// The alpha of lb_texel.\nfn lb_alpha(texel: vec2<f32>) -> f32 {\n    return lb_texel(texel).a;\n}\n",
    );
    if effects.iter().any(|e| e.ramp) {
        let _ = write!(
            s,
            "\n// The ramp ({w}x{h}, straight RGBA8): entry `index` (0..1 over its {w} entries) of row\n\
             // `row` (0..1 over its {h} rows), unfiltered.\n\
             @group({GROUP_GLOBALS}) @binding({binding}) var lb_ramp_texture: texture_2d_array<f32>;\n\
             fn lb_ramp(index: f32, row: f32) -> vec4<f32> {{\n\
             \x20   let at = vec2<i32>(floor(clamp(vec2<f32>(index, row), vec2<f32>(0.0), vec2<f32>(1.0)) * vec2<f32>({wm}.0, {hm}.0) + 0.5));\n\
             \x20   return textureLoad(lb_ramp_texture, at, 0, 0);\n}}\n",
            w = crate::RAMP_WIDTH_PX,
            h = crate::RAMP_ROWS,
            wm = crate::RAMP_WIDTH_PX - 1,
            hm = crate::RAMP_ROWS - 1,
            binding = RAMP_BINDING,
        );
    }
    for (k, e) in effects.iter().enumerate() {
        let _ = write!(
            s,
            "\n// Effect {} ({:?}).\nfn lb_effect_{}(color: vec4<f32>, texel: vec2<f32>, params: vec4<f32>, time_s: f32) -> vec4<f32> {{\n{}\n}}\n",
            k + 1,
            e.name,
            k + 1,
            e.wgsl
        );
    }
    s.push_str("\nfn lb_apply_effect(color: vec4<f32>, in: VsOut) -> vec4<f32> {\n    lb_in = in;\n");
    // Quads without an effect leave at once (a branch all of a quad's pixels agree on).
    s.push_str("    if (in.effect == 0u) { return color; }\n");
    for k in 1..=effects.len() {
        let _ = writeln!(
            s,
            "    if (in.effect == {k}u) {{ return lb_effect_{k}(color, in.texel, in.params, in.time_s); }}"
        );
    }
    s.push_str("    return color;\n}\n");
}
