//! GLSL of lit programs ([`layerbatch_core::Config::lights`]): the normal-map samplers beside
//! the slots, the lights uniform, and the lighting function. Pure strings, no GL calls.
//!
//! A lit program of tier `n` declares `u_normal0..u_normal{n-1}` (units `slots + s`, the
//! sibling of the array in slot `s`: [`layerbatch_core::plan::ArrayId::normal_map`]), `u_lights`
//! (two `vec4` a light: `(x, y, height, radius)` and `(r, g, b, falloff)`, `MAX` of them),
//! `u_light_count` and `u_ambient`. The light count is a uniform under a fixed loop bound, so
//! no light count ever compiles a program.

use std::fmt::Write as _;

/// Name of the `vec4[2 * lights]` uniform of the lights.
pub(crate) const LIGHTS_UNIFORM: &str = "u_lights";
/// Name of the `int` uniform of the frame's light count.
pub(crate) const LIGHT_COUNT_UNIFORM: &str = "u_light_count";
/// Name of the `vec3` uniform of the ambient colour.
pub(crate) const AMBIENT_UNIFORM: &str = "u_ambient";

/// Name of the normal-map sampler uniform of `slot`.
pub(crate) fn normal_uniform(slot: u32) -> String {
    format!("u_normal{slot}")
}

/// What a lit vertex stage passes on.
pub(crate) const VARYINGS_OUT: &str = r"
// Lit quads: the pixel's position in target pixels (after the transform), the quad's axes as
// drawn (unit vectors: normal maps turn with the quad), whether it is lit and has a normal map.
out vec2 v_pos_px;
flat out vec4 v_axes;
flat out uint v_lit;
flat out uint v_normal_map;
";

/// The end of a lit vertex body (inserted before its closing brace).
pub(crate) const VERTEX_TAIL: &str = r"
    v_pos_px = pos;
    v_axes = vec4(normalize(u_transform[0] * a_axis_x.x + u_transform[1] * a_axis_x.y),
                  normalize(u_transform[0] * a_axis_y.x + u_transform[1] * a_axis_y.y));
    v_lit = a_effect & EFFECT_LIT;
    v_normal_map = flags & FLAG_NORMAL_MAP;
";

/// Appends the lit fragment stage's declarations and `lb_lighting`, for `lights` lights a
/// frame and `tier` normal-map samplers.
pub(crate) fn fragment_declarations(out: &mut String, tier: u32, lights: u32) {
    let _ = write!(
        out,
        r"
in vec2 v_pos_px;
flat in vec4 v_axes;
flat in uint v_lit;
flat in uint v_normal_map;
const int MAX_LIGHTS = {lights};
uniform vec4 u_lights[{pairs}];
uniform int u_light_count;
uniform vec3 u_ambient;
",
        pairs = 2 * lights
    );
    for s in 0..tier {
        let _ = writeln!(out, "uniform sampler2DArray {};", normal_uniform(s));
    }
    out.push_str(
        r"
// The light at `at` (target pixels) on a surface facing `n`: the ambient colour plus, per
// light, colour * max(n . l, 0) * (1 - d / radius)^falloff within the radius.
vec3 lb_lighting(vec3 n, vec2 at) {
    vec3 sum = u_ambient;
    for (int i = 0; i < MAX_LIGHTS; i++) {
        if (i >= u_light_count) { break; }
        vec4 a = u_lights[2 * i];
        vec4 b = u_lights[2 * i + 1];
        vec2 d = a.xy - at;
        float reach = 1.0 - length(d) / a.w;
        if (reach <= 0.0) { continue; }
        vec3 l = vec3(d, a.z);
        float len = length(l);
        l = len > 0.0 ? l / len : vec3(0.0, 0.0, 1.0);
        sum += b.rgb * max(dot(n, l), 0.0) * pow(reach, b.w);
    }
    return sum;
}
",
    );
}

/// Appends the lit fragment stage's statements: lights `c` (the tinted texel) when the quad
/// is lit, sampling its normal map (`p`, `v_layer`, `lod`, the slot tree `tree`) when it has
/// one.
pub(crate) fn fragment_body(out: &mut String, tree: &dyn Fn(&mut String)) {
    out.push_str(
        r"    if (v_lit != 0u) {
        vec3 n = vec3(0.0, 0.0, 1.0);
        if (v_normal_map != 0u) {
            vec4 t;
",
    );
    tree(out);
    out.push_str(
        r"            // x right and y up in the texture, turned with the quad (its y axis points down).
            vec3 m = t.xyz * 2.0 - 1.0;
            n = normalize(vec3(m.x * v_axes.xy - m.y * v_axes.zw, m.z));
        }
        c.rgb *= lb_lighting(n, v_pos_px);
    }
",
    );
}
