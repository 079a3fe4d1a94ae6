//! The WGSL of lit programs ([`crate::Config::lights`]): the lights struct, the normal-map
//! bindings beside the slots, and the lighting function.
//!
//! Bindings added (`T` the tier, `i` in `0..T`):
//!
//! | group | binding                  | what                                        | stage    |
//! |-------|--------------------------|---------------------------------------------|----------|
//! | 0     | [`LIGHTS_BINDING`]       | `Lights` uniform: ambient + count, lights   | fragment |
//! | 1     | `NORMAL_BASE + 2i`       | `normal<i>`: slot `i`'s normal-map sibling   | fragment |
//! | 1     | `NORMAL_BASE + 2i + 1`   | `nsamp<i>`: its sampler (the slot's kind)    | fragment |
//!
//! The light count is a value under a fixed loop bound: no count makes a program.

use std::fmt::Write as _;

use super::{GROUP_GLOBALS, GROUP_SLOTS};

/// Binding of the `Lights` uniform in group [`GROUP_GLOBALS`] (wgpu).
pub const LIGHTS_BINDING: u32 = 1;

/// First binding of the normal maps in the slots group: after the most slots a draw has.
pub const NORMAL_BASE: u32 = 2 * crate::MAX_SLOTS_PER_DRAW;

/// Binding of slot `slot`'s normal-map texture.
pub const fn normal_texture_binding(slot: u32) -> u32 {
    NORMAL_BASE + 2 * slot
}

/// Binding of slot `slot`'s normal-map sampler.
pub const fn normal_sampler_binding(slot: u32) -> u32 {
    NORMAL_BASE + 2 * slot + 1
}

/// Appends the declarations of a lit shader of `tier` slots and `lights` lights.
pub(crate) fn declarations(s: &mut String, tier: u32, lights: u32) {
    let _ = write!(
        s,
        r"
// The frame's lights: the ambient colour and the count (as a float), then per light
// (x, y, height, radius) and (r, g, b, falloff).
struct Lights {{
    head: vec4<f32>,
    lights: array<vec4<f32>, {pairs}>,
}};
@group({GROUP_GLOBALS}) @binding({LIGHTS_BINDING}) var<uniform> lighting: Lights;
const MAX_LIGHTS: i32 = {lights};
",
        pairs = 2 * lights,
    );
    for i in 0..tier {
        let group = GROUP_SLOTS;
        let _ = writeln!(
            s,
            "@group({group}) @binding({}) var normal{i}: texture_2d_array<f32>;",
            normal_texture_binding(i)
        );
        let _ = writeln!(s, "@group({group}) @binding({}) var nsamp{i}: sampler;", normal_sampler_binding(i));
    }
}

/// What a lit vertex stage passes on (inside `VsOut`).
pub(crate) const VARYINGS: &str =
    "    // Lit quads: the position in pixels after the transform, the quad's axes as drawn (unit
    // vectors: normal maps turn with the quad), bit 0 lit, bit 1 has a normal map.
    @location(11) pos_px: vec2<f32>,
    @location(12) @interpolate(flat) axes: vec4<f32>,
    @location(13) @interpolate(flat) lit: u32,
";

/// The lit vertex stage's statements.
pub(crate) const VERTEX_TAIL: &str = "    out.pos_px = p;
    out.axes = vec4<f32>(normalize(globals.linear.xy * axis_x.x + globals.linear.zw * axis_x.y),
                         normalize(globals.linear.xy * axis_y.x + globals.linear.zw * axis_y.y));
    out.lit = select(0u, 1u, (look & EFFECT_LIT) != 0u) | select(0u, 2u, (flags & FLAG_NORMAL_MAP) != 0u);
";

/// `lb_lighting`: the light at `at` on a surface facing `n`, on every backend.
pub(crate) const FUNCTION: &str = r"
fn lb_lighting(n: vec3<f32>, at: vec2<f32>) -> vec3<f32> {
    var sum = lighting.head.xyz;
    let count = i32(lighting.head.w);
    for (var i = 0; i < MAX_LIGHTS; i++) {
        if (i >= count) { break; }
        let a = lighting.lights[2 * i];
        let b = lighting.lights[2 * i + 1];
        let d = a.xy - at;
        let reach = 1.0 - length(d) / a.w;
        if (reach <= 0.0) { continue; }
        let l = vec3<f32>(d, a.z);
        let len = length(l);
        let dir = select(vec3<f32>(0.0, 0.0, 1.0), l / max(len, 1e-30), len > 0.0);
        sum += b.rgb * max(dot(n, dir), 0.0) * pow(reach, b.w);
    }
    return sum;
}
";

/// The lit fragment statements: lights `c` when the quad is lit, sampling its normal map
/// through `sample` (the slot switch) when it has one.
pub(crate) fn fragment_body(s: &mut String, sample: &dyn Fn(&mut String)) {
    s.push_str(
        "    var c = tinted;
    if ((in.lit & 1u) != 0u) {
        var n = vec3<f32>(0.0, 0.0, 1.0);
        if ((in.lit & 2u) != 0u) {
            var t: vec4<f32>;
",
    );
    sample(s);
    s.push_str(
        "            // x right and y up in the texture, turned with the quad (its y axis points down).
            let m = t.xyz * 2.0 - 1.0;
            n = normalize(vec3<f32>(m.x * in.axes.xy - m.y * in.axes.zw, m.z));
        }
        c = vec4<f32>(c.rgb * lb_lighting(n, in.pos_px), c.a);
    }
",
    );
}
