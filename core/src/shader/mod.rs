//! The one shader source: the WGSL of each [`ProgramKey`], for every backend.
//!
//! Authored once, here, and the same text for every backend: the tiers, lighting, the effect
//! chain and the built-in effects are WGSL only. layerbatch-wgpu compiles it as it is;
//! layerbatch-gl translates it to GLSL 330 or GLSL ES 3.00 with naga when its renderer is made,
//! and writes `Globals` and `Lights` as plain GL uniforms of the same structs (see
//! `layerbatch_gl::program_sources`), from the same bytes ([`GlobalsEntry`],
//! [`lights_uniform`]).
//!
//! Bindings (the same for every tier and target; GL maps each to a texture unit, `T` = the tier, `i` in `0..T`):
//!
//! | group | binding   | what                                   | stage    |
//! |-------|-----------|----------------------------------------|----------|
//! | 0     | 0         | `Globals` uniform, dynamic offset      | vertex   |
//! | 1     | `2i`      | `slot<i>: texture_2d_array<f32>`       | both     |
//! | 1     | `2i + 1`  | `samp<i>: sampler`, slot `i`'s sampler | fragment |
//!
//! **Globals.** One `Globals` entry per draw state of a plan (the viewport size, the
//! state's 2x3 transform `[a, b, c, d, tx, ty]` and its tint), selected per segment by a dynamic offset.
//! The vertex stage maps a corner `(x, y)` to `(a x + c y + tx, b x + d y + ty)`, pixels,
//! before the viewport mapping. Blending is the pipeline's (one per tier and blend mode) and
//! clipping the pass's scissor rectangle: neither is in the shader.
//!
//! **One sampler per slot.** Each slot is sampled through its own sampler, the one matching
//! the array bound there (its filter, its wrap; see the renderer), so filtering and wrapping
//! are the sampler's work: nearest, bilinear and trilinear filtering, repeat and mirrored
//! repeat, exactly as a GL texture unit does them, seams included. This is safe on wgpu's GL
//! backend, which turns every (texture, sampler) pair a shader uses into one GL texture unit
//! and remembers one sampler per texture binding: here each texture is sampled through one
//! sampler only, and each sampler serves one texture.
//!
//! **Inputs.** The vertex stage's inputs are core's [`Instance::ATTRIBUTES`](crate::plan::Instance::ATTRIBUTES), one
//! `@location(N) name: type` each (the vertex layout is generated from the same table), and
//! the body reads them by those names.
//!
//! The instance's bit layout (slot, flags and layer packed in `slot_flags_layer`) is core's:
//! every name of [`Instance::SHADER_CONSTANTS`](crate::plan::Instance::SHADER_CONSTANTS) is declared as `const NAME: u32 = VALUEu;`,
//! and the body unpacks with those names only, so the two cannot drift apart. Of the flags the
//! shader reads `FLAG_CLAMP_TO_RECT` alone; `FLAG_LINEAR`, `FLAG_REPEAT` and `FLAG_MIRROR` are
//! informational (the samplers follow the arrays).
//!
//! **Texel coordinates.** An instance's `uv_rect` and `tex_rect` are in texels of level 0.
//! The vertex stage unpacks the instance once per vertex: the slot (clamped to `T - 1`, as the
//! switch's `default` is), the layer, and the clamp bounds, passed flat; it divides the
//! position and the bounds by the size of the instance's layer (its slot's entry in the
//! slot-sizes uniform, [`slot_sizes`]: the vertex stage samples no slot texture), so the
//! fragment stage gets `0..1` coordinates. With
//! `FLAG_CLAMP_TO_RECT` the bounds are `tex_rect` inset by half a texel, `[x0 + 0.5, x1 - 0.5]`
//! (the rectangle's centre on an axis where it is under one texel wide), so no position, UVs
//! outside 0..1 or flipped ones included, and no linear filtering at any scale reads a
//! neighbour's or the padding's texels; without it the bounds are unbounded.
//!
//! **Small per-pixel work.** Software rasterizers (lavapipe, llvmpipe, SwiftShader) are
//! fill-bound and pay for every branch of a fragment shader whether a fragment takes it or
//! not. Per pixel the fragment stage does what a plain sprite shader does (interpolate one
//! position, sample, multiply by the tint) plus one `clamp`, branch-free. The tier-1
//! shader has no branch at all and samples with `textureSample` (implicit derivatives). Above
//! it the mip level `lod` is taken from the derivatives of the unclamped position, in uniform
//! control flow before the slot's `switch` on the flat slot index, so the sampler picks the
//! same level inside and outside the clamped band; each slot's case holds only its sample:
//!
//! ```wgsl
//! texel = textureSampleLevel(slotN, sampN, p, layer, lod);
//! ```
//!
//! Dividing by the layer's size at draw time (per vertex, with a `switch` on the slot there
//! too) is what lets core grow an atlas page in size without touching an instance.

use std::fmt::Write as _;

use crate::plan::{AttributeFormat, Instance};
use crate::ProgramKey;
use crate::MOTION_ROW_TEXELS;

mod effects;
mod grid;
mod lighting;
mod uniforms;

use effects::effect_functions;
pub use effects::RAMP_BINDING;
pub use grid::{grid_wgsl, GridParams, GRID_BINDINGS, GRID_WORKGROUP_SIDE};
pub use lighting::{normal_sampler_binding, normal_texture_binding, LIGHTS_BINDING, NORMAL_BASE};
pub use uniforms::{lights_bytes, lights_uniform, GlobalsEntry, GLOBALS_BYTES};

/// The `Globals` uniform's WGSL struct ([`GlobalsEntry`]'s layout), shared by the tier
/// programs and the grid culling pass ([`grid_wgsl`]).
const GLOBALS_STRUCT: &str = "struct Globals {
    viewport_px: vec2<f32>,
    // The frame's time for effects, then padding.
    time_s: vec2<f32>,
    // The draw state's transform: (a, b, c, d), then (tx, ty, 0, 0).
    linear: vec4<f32>,
    translate: vec4<f32>,
    // The draw state's tint, premultiplied: multiplies every quad's colour.
    tint: vec4<f32>,
    // The draw state's look (a resident layer drawn under an effect or lit), ORed into each
    // quad's (a resident quad has none of its own), in exact integers: the look word's low
    // byte, its colour offset, then its parameters' low and high 16 bits.
    look: vec4<f32>,
};";

/// Group index of the globals (the viewport and transform uniform, at a dynamic offset).
pub const GROUP_GLOBALS: u32 = 0;
/// Group index of a tier's slots (a texture and its sampler per slot).
pub const GROUP_SLOTS: u32 = 1;

/// Group index of the moving layers' motion: a [`MotionDraw`] uniform at
/// [`MOTION_DRAW_BINDING`] and the motion texture at [`MOTION_TEXELS_BINDING`] (a placeholder
/// for draws that do not move).
pub const GROUP_MOTION: u32 = 2;
/// The shift of a look's high parameter bytes in `Globals.look.w` ([`GlobalsEntry::look`]).
pub const LOOK_PARAMS_HIGH_SHIFT: u32 = 16;
/// Binding of the [`MotionDraw`] uniform in [`GROUP_MOTION`].
pub const MOTION_DRAW_BINDING: u32 = 0;
/// Binding of the motion texture (`texture_2d<f32>`, RGBA32F, read with `textureLoad`) in
/// [`GROUP_MOTION`].
pub const MOTION_TEXELS_BINDING: u32 = 1;

/// The per-draw uniform of [`GROUP_MOTION`]: `[first, indexed, 0, 0]`. `first` below 0: the
/// draw does not move (its quads are drawn as written). Else the draw's primitive `k` (its
/// `instance_index`, or `vertex_index / 4` when `indexed` is 1) is sprite `first + k` of the
/// motion texture, counted as the executor's draw counts: wgpu's instance and vertex indices
/// start at the draw's first instance in its block, GL's (no base instance on GLES 3.0) at 0.
/// Sprite indices are below 2^24, exact in an `f32`.
///
/// ```
/// use layerbatch_core::shader::MotionDraw;
/// assert_eq!(MotionDraw::STILL.0, [-1.0, 0.0, 0.0, 0.0]);
/// assert_eq!(MotionDraw::moving(2048, true).0, [2048.0, 1.0, 0.0, 0.0]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MotionDraw(pub [f32; 4]);

impl MotionDraw {
    /// A draw that does not move.
    pub const STILL: Self = Self([-1.0, 0.0, 0.0, 0.0]);
    /// A moving draw whose primitive `k` is sprite `first + k`.
    pub fn moving(first: u32, indexed: bool) -> Self {
        Self([first as f32, if indexed { 1.0 } else { 0.0 }, 0.0, 0.0])
    }
}

/// Binding of the slots' sizes in [`GROUP_SLOTS`]: a uniform of [`slot_sizes`] (the vertex
/// stage divides texel positions by them; it samples no slot texture, so its one texture is
/// the motion texture whatever the tier). After every slot's and normal map's bindings.
pub const SLOT_SIZES_BINDING: u32 = lighting::NORMAL_BASE + 2 * crate::MAX_SLOTS_PER_DRAW;

/// The bytes of the slot-sizes uniform of a tier of `tier` slots holding layers of `sizes`
/// texels (`[width, height]` per slot, `[1, 1]` for an empty one): slot `2k` in `xy` and slot
/// `2k + 1` in `zw` of vector `k` (uniform arrays hold vec4s), `16 * ceil(tier / 2)` bytes.
///
/// ```
/// use layerbatch_core::shader::slot_sizes;
/// let b = slot_sizes(3, [[256, 128], [64, 64], [1, 1]].into_iter());
/// let f: &[f32] = bytemuck::cast_slice(&b);
/// assert_eq!(f, &[256.0, 128.0, 64.0, 64.0, 1.0, 1.0, 1.0, 1.0]);
/// ```
pub fn slot_sizes(tier: u32, sizes: impl Iterator<Item = [u32; 2]>) -> Vec<u8> {
    let mut floats = vec![1.0f32; 4 * tier.div_ceil(2) as usize];
    for (i, [w, h]) in sizes.take(tier as usize).enumerate() {
        floats[2 * i] = w as f32;
        floats[2 * i + 1] = h as f32;
    }
    bytemuck::cast_slice(&floats).to_vec()
}

/// Binding of slot `slot`'s texture in [`GROUP_SLOTS`]; its sampler is the next binding.
pub const fn texture_binding(slot: u32) -> u32 {
    2 * slot
}

/// Binding of slot `slot`'s sampler in [`GROUP_SLOTS`].
pub const fn sampler_binding(slot: u32) -> u32 {
    2 * slot + 1
}

/// The WGSL source of the program of `key` ([`ProgramKey`]: tier, effects, lights). The one
/// source function: a renderer makes the programs of
/// [`ProgramKey::of_budget`] at creation.
///
/// Entry points `vs_main` and `fs_main`. The vertex stage reads one texture (a moving layer's
/// motions, [`GROUP_MOTION`]) and no sampler;
/// the fragment stage samples `tier` textures, each through its own sampler.
///
/// ```
/// use layerbatch_core::{shader::wgsl, ProgramKey};
/// let src = wgsl(&ProgramKey::plain(4));
/// assert_eq!(src.matches("texture_2d_array<f32>;").count(), 4);
/// assert_eq!(src.matches(": sampler;").count(), 4);
/// ```
///
/// With effects ([`crate::Config::effects`]) the vertex stage passes each quad's
/// effect id, parameters and texel position and the frame's time (from its globals entry),
/// and the fragment stage has one function per effect (`lb_effect_1` .. : the effect's body
/// with the signature `fn (color: vec4<f32>, texel: vec2<f32>, params: vec4<f32>, time_s:
/// f32) -> vec4<f32>`) and applies the quad's, chosen by a chain of `if`s on its id, to the
/// tinted texel. With lights above 0 it also lights lit quads (a `Lights` struct, a normal-map
/// texture and sampler per slot, and `lb_lighting`), applied to the tinted texel before the effect. A key without either gives
/// exactly the plain source.
///
/// ```
/// use layerbatch_core::{shader::wgsl, Effect, ProgramKey};
/// let src = wgsl(&ProgramKey::plain(2).with_effects(&Effect::BUILT_IN));
/// assert_eq!(src.matches("fn lb_effect_").count(), 5);
/// assert!(src.contains("fn lb_ramp(index: f32, row: f32)")); // the palette samples the ramp
/// assert!(src.contains("out.effect = look & EFFECT_MASK;"));
/// let src = wgsl(&ProgramKey::plain(2).with_lights(8));
/// assert_eq!(src.matches("texture_2d_array<f32>;").count(), 4); // 2 slots, 2 normal maps
/// assert!(src.contains("lights: array<vec4<f32>, 16>,"));
/// ```
///
/// # Panics
/// If `key.tier` is 0.
pub fn wgsl(key: &ProgramKey<'_>) -> String {
    let (tier, effects, lights) = (key.tier, key.effects, key.lights);
    assert!(tier >= 1, "a tier has at least one slot");
    let mut s = String::with_capacity(4096 + 256 * tier as usize);
    let _ = write!(
        s,
        r"// layerbatch: slot tier {tier}.

{GLOBALS_STRUCT}
const LOOK_PARAMS_HIGH_SHIFT: u32 = {LOOK_PARAMS_HIGH_SHIFT}u;

@group({GROUP_GLOBALS}) @binding(0) var<uniform> globals: Globals;

// A moving layer's draw (MotionDraw): x, the sprite of its first primitive (below 0: the draw
// does not move); y, 1.0 when drawn indexed. The motion texture holds a sprite a texel
// (position xy, scale * (cos, sin) zw), MOTION_ROW_TEXELS a row.
struct MotionDraw {{
    params: vec4<f32>,
}};

@group({GROUP_MOTION}) @binding({MOTION_DRAW_BINDING}) var<uniform> motion: MotionDraw;
@group({GROUP_MOTION}) @binding({MOTION_TEXELS_BINDING}) var motion_texels: texture_2d<f32>;
const MOTION_ROW_TEXELS: u32 = {MOTION_ROW_TEXELS}u;
"
    );
    let _ = write!(
        s,
        "\n// Each slot's layer size in texels, two slots a vector (slot_sizes).\n\
         struct SlotSizes {{\n    size: array<vec4<f32>, {pairs}>,\n}};\n\
         @group({GROUP_SLOTS}) @binding({SLOT_SIZES_BINDING}) var<uniform> slot_sizes: SlotSizes;\n",
        pairs = tier.div_ceil(2)
    );
    for i in 0..tier {
        let _ =
            writeln!(s, "@group({GROUP_SLOTS}) @binding({}) var slot{i}: texture_2d_array<f32>;", texture_binding(i));
        let _ = writeln!(s, "@group({GROUP_SLOTS}) @binding({}) var samp{i}: sampler;", sampler_binding(i));
    }
    if lights > 0 {
        lighting::declarations(&mut s, tier, lights);
    }
    // The instance's bit layout, from core: the body below uses these names, never literals.
    s.push('\n');
    for (name, value) in Instance::SHADER_CONSTANTS {
        let _ = writeln!(s, "const {name}: u32 = {value}u;");
    }
    s.push_str(
        r"
struct VsOut {
    @builtin(position) position: vec4<f32>,
    // Sampling position in the layer, 0..1.
    @location(0) uv: vec2<f32>,
    // Clamp bounds, 0..1: (lo.xy, hi.xy).
    @location(1) @interpolate(flat) bounds: vec4<f32>,
    // Interpolated: a triangle's corners have colours of their own (a quad's four are one).
    @location(2) color: vec4<f32>,
    @location(3) @interpolate(flat) layer: i32,
    // The layer's size in texels: the level choice above tier 1 needs it.
    @location(5) @interpolate(flat) size: vec2<f32>,
    // x: 1.0 when the texture has straight alpha (FLAG_STRAIGHT_ALPHA): premultiplied once
    // sampled; yzw: the colour offset (COLOR_OFFSET_SHIFT), added last.
    @location(6) @interpolate(flat) straight_offset: vec4<f32>,
",
    );
    if tier > 1 {
        s.push_str("    @location(4) @interpolate(flat) slot: u32,\n");
    }
    if !effects.is_empty() {
        s.push_str(concat!(
            "    // The quad's effect (0: none), its 4 parameters (0..1), the sampling position in\n",
            "    // texels of the texture's own rectangle, and the frame's time.\n",
            "    @location(7) @interpolate(flat) effect: u32,\n",
            "    @location(8) @interpolate(flat) params: vec4<f32>,\n",
            "    @location(9) texel: vec2<f32>,\n",
            "    @location(10) @interpolate(flat) time_s: f32,\n",
            "    // The texture's rectangle in the layer, texels (for lb_alpha).\n",
            "    @location(14) @interpolate(flat) rect: vec4<f32>,\n",
        ));
    }
    if lights > 0 {
        s.push_str(lighting::VARYINGS);
    }
    s.push_str(
        r"};

@vertex
fn vs_main(
    @builtin(vertex_index) vertex_index: u32,
    @builtin(instance_index) instance_index: u32,
",
    );
    // The instance's attributes, from core's table (the vertex layout is made from it too).
    for a in Instance::ATTRIBUTES {
        let _ = writeln!(s, "    @location({}) {}: {},", a.location, a.name, wgsl_type(a.format));
    }
    s.push_str(
        r") -> VsOut {
    // Corner k of the quad (its vertex 4q + k, indexed: see Instance::VERTICES) is
    // (s, t) = (k % 2, k / 2). Arithmetic, not bit operations: every mask or shift of the
    // source is one of the named layout constants.
    let corner = vertex_index % 4u;
    let st = vec2<f32>(f32(corner % 2u), f32(corner / 2u));
    var q = origin + st.x * axis_x + st.y * axis_y;
    // The quad's look, with the draw state's ORed in (a resident quad has none of its own).
    let look = effect | u32(globals.look.x) | (u32(globals.look.y) << COLOR_OFFSET_SHIFT);
    let look_params = unpack4x8unorm(effect_params | u32(globals.look.z) | (u32(globals.look.w) << LOOK_PARAMS_HIGH_SHIFT));
    if (motion.params.x >= 0.0) {
        // A moving sprite: its corner turned, scaled and moved by its motion, in the form the
        // transform below has (a host doing it with a transform gets the same pixels).
        let local = select(instance_index, vertex_index / 4u, motion.params.y > 0.5);
        let sprite = u32(motion.params.x) + local;
        let texel = vec2<i32>(i32(sprite % MOTION_ROW_TEXELS), i32(sprite / MOTION_ROW_TEXELS));
        let m = textureLoad(motion_texels, texel, 0);
        q = vec2<f32>(m.z, m.w) * q.x + vec2<f32>(-m.w, m.z) * q.y + m.xy;
    }
    // The segment's transform, in pixels, before the viewport mapping.
    let p = globals.linear.xy * q.x + globals.linear.zw * q.y + globals.translate.xy;
    let ndc = vec2<f32>(p.x / globals.viewport_px.x * 2.0 - 1.0, 1.0 - p.y / globals.viewport_px.y * 2.0);
    let flags = (slot_flags_layer >> FLAGS_SHIFT) & FLAGS_MASK;
    // Clamping: tex_rect (whole texels) inset by half a texel, its centre on an axis under
    // one texel wide.
    let rect = vec4<f32>(tex_rect);
    let centre = 0.5 * (rect.xy + rect.zw);
    let lo = min(rect.xy + 0.5, centre);
    let hi = max(rect.zw - 0.5, centre);
    let unbounded = vec4<f32>(-1.0e30, -1.0e30, 1.0e30, 1.0e30);
    // Texels to 0..1 by the size of the instance's layer, here rather than per pixel.
    let size = layer_size(SLOT_OF_INSTANCE);
    let inv = 1.0 / size;
    var out: VsOut;
    out.position = vec4<f32>(ndc, 0.0, 1.0);
    out.uv = mix(uv_rect.xy, uv_rect.zw, st) * inv;
    out.bounds = select(unbounded, vec4<f32>(lo, hi) * inv.xyxy, (flags & FLAG_CLAMP_TO_RECT) != 0u);
    // A tint on the sRGB curve (FLAG_SRGB_TINT) is decoded to linear here, once a vertex.
    let srgb = (flags & FLAG_SRGB_TINT) != 0u;
    let decoded = select(pow((color.rgb + 0.055) / 1.055, vec3<f32>(2.4)), color.rgb / 12.92, color.rgb <= vec3<f32>(0.04045));
    out.color = vec4<f32>(select(color.rgb, decoded, srgb), color.a) * globals.tint;
    out.size = size;
    out.layer = i32(slot_flags_layer >> LAYER_SHIFT);
    let offset = unpack4x8unorm(look >> COLOR_OFFSET_SHIFT).xyz;
    out.straight_offset = vec4<f32>(select(0.0, 1.0, (flags & FLAG_STRAIGHT_ALPHA) != 0u), offset);
",
    );
    if tier > 1 {
        let _ = writeln!(s, "    out.slot = min(slot_flags_layer & SLOT_MASK, {}u);", tier - 1);
    }
    if !effects.is_empty() {
        s.push_str(concat!(
            "    out.effect = look & EFFECT_MASK;\n",
            "    out.params = look_params;\n",
            "    out.texel = mix(uv_rect.xy, uv_rect.zw, st) - rect.xy;\n",
            "    out.time_s = globals.time_s.x;\n",
            "    out.rect = rect;\n",
        ));
    }
    if lights > 0 {
        s.push_str(lighting::VERTEX_TAIL);
    }
    s.push_str(
        r"    return out;
}

@fragment
fn fs_main(in: VsOut) -> @location(0) vec4<f32> {
",
    );
    if tier == 1 {
        // No branch: implicit derivatives, as a plain sprite shader. Only textures without mip
        // levels are clamped, so the clamp never moves a level choice.
        s.push_str(concat!(
            "    let p = clamp(in.uv, in.bounds.xy, in.bounds.zw);\n",
            "    let texel = textureSample(slot0, samp0, p, in.layer);\n",
        ));
        if lights > 0 {
            // The normal map is sampled in a branch: its level from derivatives taken here.
            s.push_str(concat!(
                "    let ddx = dpdx(in.uv) * in.size;\n",
                "    let ddy = dpdy(in.uv) * in.size;\n",
                "    let lod = 0.5 * log2(max(dot(ddx, ddx), dot(ddy, ddy)));\n",
                "    let layer = in.layer;\n",
            ));
        }
    } else {
        s.push_str(concat!(
            "    // The mip level, from the derivatives of the unclamped position in texels, taken in\n",
            "    // uniform control flow before the slot branch (GL's formula: log2 of the longer\n",
            "    // footprint axis). Sampling at a given level costs what plain sampling does;\n",
            "    // explicit gradients cost more than twice that on software rasterizers.\n",
            "    let ddx = dpdx(in.uv) * in.size;\n",
            "    let ddy = dpdy(in.uv) * in.size;\n",
            "    let lod = 0.5 * log2(max(dot(ddx, ddx), dot(ddy, ddy)));\n",
            "    let p = clamp(in.uv, in.bounds.xy, in.bounds.zw);\n",
            "    let layer = in.layer;\n",
            "    var texel: vec4<f32>;\n",
        ));
        let sample = |i: u32| format!("texel = textureSampleLevel(slot{i}, samp{i}, p, layer, lod);");
        slot_switch(&mut s, "in.slot", tier, &sample);
    }
    // A straight texel is premultiplied here (mix(1, a, 1) is a, mix(1, a, 0) is 1, exactly).
    s.push_str(
        "    let tinted = vec4<f32>(texel.rgb * mix(1.0, texel.a, in.straight_offset.x), texel.a) * in.color;\n",
    );
    // The colour offset, last: added times coverage (premultiplied), after lights and effect.
    let offset = "    return vec4<f32>(c.rgb + in.straight_offset.yzw * c.a, c.a);\n}\n";
    if lights == 0 {
        s.push_str(match effects.is_empty() {
            true => "    let c = tinted;\n",
            false => "    let c = lb_apply_effect(tinted, in);\n",
        });
        s.push_str(offset);
    } else {
        lighting::fragment_body(&mut s, &|s| {
            let sample = |i: u32| format!("t = textureSampleLevel(normal{i}, nsamp{i}, p, layer, lod);");
            slot_switch(s, "in.slot", tier, &sample);
        });
        if !effects.is_empty() {
            s.push_str("    c = lb_apply_effect(c, in);\n");
        }
        s.push_str(offset);
        s.push_str(lighting::FUNCTION);
    }
    effect_functions(&mut s, effects, tier);
    // The layer size the vertex stage divides by: the slot's, from the uniform.
    let _ = write!(
        s,
        "\n// The size of the layers in `slot` (clamped to the tier's last, as sampling is), texels.\n\
         fn layer_size(slot: u32) -> vec2<f32> {{\n    let at = min(slot, {last}u);\n\
         \x20   let pair = slot_sizes.size[at / 2u];\n    return select(pair.xy, pair.zw, at % 2u == 1u);\n}}\n",
        last = tier - 1
    );
    // Tier 1 has one slot: it reads no slot bits.
    let slot = if tier == 1 { "0u" } else { "slot_flags_layer & SLOT_MASK" };
    s.replace("SLOT_OF_INSTANCE", slot)
}

/// The WGSL type a vertex input of `format` is read as.
const fn wgsl_type(format: AttributeFormat) -> &'static str {
    match format {
        AttributeFormat::Float32x2 => "vec2<f32>",
        AttributeFormat::Float32x4 | AttributeFormat::Unorm8x4 => "vec4<f32>",
        AttributeFormat::Uint16x4 => "vec4<u32>",
        AttributeFormat::Uint32 => "u32",
    }
}

/// Appends `leaf(0)` for tier 1, else a `switch` on `on` with one case per slot (the last
/// also the `default`).
pub(crate) fn slot_switch(s: &mut String, on: &str, tier: u32, leaf: &dyn Fn(u32) -> String) {
    if tier == 1 {
        let _ = writeln!(s, "    {}", leaf(0));
        return;
    }
    let _ = writeln!(s, "    switch {on} {{");
    for i in 0..tier {
        let label = if i + 1 == tier { format!("case {i}u, default") } else { format!("case {i}u") };
        let _ = writeln!(s, "        {label}: {{ {} }}", leaf(i));
    }
    s.push_str("    }\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_vertex_inputs_are_cores_table() {
        for tier in [1, 2, 16] {
            let src = wgsl(&ProgramKey::plain(tier));
            for a in Instance::ATTRIBUTES {
                let input = format!("@location({}) {}: {},", a.location, a.name, wgsl_type(a.format));
                assert_eq!(src.matches(&input).count(), 1, "tier {tier}: {input}");
            }
        }
    }
}
