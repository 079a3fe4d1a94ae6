//! The GLSL of each program: core's one WGSL source ([`layerbatch_core::shader::wgsl`])
//! translated by naga's GLSL writer when the renderer is made. Pure translation, no GL calls.
//!
//! What the translation gives the program builder besides the two stages' source:
//!
//! - **Samplers.** GLSL before 4.20 has no binding qualifiers, and naga pairs each texture
//!   with the sampler it is used with into one `sampler2DArray` uniform per stage (named
//!   `_group_G_binding_B_vs` / `_fs`). Each is listed with its texture's WGSL binding, which
//!   the builder maps to a texture unit: slot `i` (group 1, binding `2i`) to unit `i`, its
//!   normal map to unit `slots + i`, the ramp to [`layerbatch_core::Budget::ramp_unit`].
//! - **Uniforms.** `Globals` (the vertex stage's) and `Lights` (the fragment stage's) become
//!   plain uniforms of their structs (naga's uniform block line rewritten: [`plain_uniform`]
//!   says why), set member by member from the same bytes wgpu puts in its uniform buffers
//!   ([`layerbatch_core::shader::GlobalsEntry`], [`layerbatch_core::shader::lights_uniform`]).
//!   Plain uniforms are program state, so a paint binds no uniform buffer of the host's.
//! - **Vertex inputs** keep their WGSL locations (`layout(location = N)`, GLSL 3.30 and ES
//!   3.00 both have it); integer inputs (`u32`, `vec4<u32>`) are read with
//!   `glVertexAttribIPointer`.
//!
//! Varyings are matched by name (`_vs2fs_locationN`), as GLSL 3.30 requires. No coordinate
//! adjustment is asked of naga: WGSL's and GL's clip spaces agree in x and y, and the
//! programs write z = 0.

use layerbatch_core::shader::{wgsl, GROUP_GLOBALS, GROUP_MOTION, GROUP_SLOTS};
use layerbatch_core::ProgramKey;
use naga::back::glsl;

/// One plain uniform of a `Globals` or `Lights` member: its GLSL name, where its value lies in
/// the struct's bytes, and how many floats it has (every member is a float vector or an array
/// of them: one item a vector).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct UniformItem {
    pub(crate) name: String,
    pub(crate) offset: u32,
    pub(crate) floats: u32,
}

/// A program translated: both stages' GLSL and what binding them takes.
#[derive(Debug)]
pub(crate) struct Translated {
    pub(crate) vertex: String,
    pub(crate) fragment: String,
    /// Every sampler uniform of both stages, with its texture's WGSL `(group, binding)`.
    pub(crate) samplers: Vec<(String, u32, u32)>,
    /// The vertex stage's `Globals` members.
    pub(crate) globals: Vec<UniformItem>,
    /// The vertex stage's `MotionDraw` members ([`layerbatch_core::shader::MotionDraw`]).
    pub(crate) motion: Vec<UniformItem>,
    /// The vertex stage's `SlotSizes` members ([`layerbatch_core::shader::slot_sizes`]).
    pub(crate) slot_sizes: Vec<UniformItem>,
    /// The fragment stage's `Lights` members (empty without lights).
    pub(crate) lights: Vec<UniformItem>,
}

/// The `(vertex, fragment)` GLSL of the program of `key` ([`ProgramKey`]: tier, effects,
/// lights): core's WGSL translated by naga to `#version 330 core`,
/// or `#version 300 es` when `gles`. The renderer compiles the programs of
/// `ProgramKey::of_budget` at creation; this is the same translation, for inspection.
///
/// ```
/// use layerbatch_core::{Effect, ProgramKey};
/// let (vs, fs) = layerbatch_gl::program_sources(&ProgramKey::plain(4), true)?;
/// assert!(vs.starts_with("#version 300 es"));
/// assert_eq!(fs.matches("uniform highp sampler2DArray").count(), 4);
/// let (vs, fs) = layerbatch_gl::program_sources(&ProgramKey::plain(2).with_effects(&Effect::BUILT_IN), false)?;
/// assert!(vs.starts_with("#version 330 core"));
/// assert!(fs.contains("lb_effect_5")); // the palette, as every effect, from its WGSL
/// # Ok::<(), layerbatch_gl::Error>(())
/// ```
///
/// # Errors
/// [`crate::Error::Shader`] at [`crate::Stage::Translate`] when naga refuses the WGSL (a
/// declared effect's body that does not parse or validate) or cannot write it as GLSL.
///
/// # Panics
/// If `key.tier` is 0.
pub fn program_sources(key: &ProgramKey<'_>, gles: bool) -> Result<(String, String), crate::Error> {
    let t = translate(key, gles).map_err(|message| crate::Error::Shader {
        tier: Some(key.tier),
        stage: crate::Stage::Translate,
        message,
    })?;
    Ok((t.vertex, t.fragment))
}

/// Translates the program of `key`; the error is naga's message, with the WGSL's line for
/// parse and validation errors.
pub(crate) fn translate(key: &ProgramKey<'_>, gles: bool) -> Result<Translated, String> {
    let source = wgsl(key);
    let module = naga::front::wgsl::parse_str(&source).map_err(|e| e.emit_to_string(&source))?;
    let info = naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::empty())
        .validate(&module)
        .map_err(|e| e.emit_to_string(&source))?;
    let version = match gles {
        true => glsl::Version::Embedded { version: 300, is_webgl: cfg!(target_family = "wasm") },
        false => glsl::Version::Desktop(330),
    };
    let options = glsl::Options { version, writer_flags: glsl::WriterFlags::empty(), ..glsl::Options::default() };
    let mut samplers = Vec::new();
    // Each stage's uniform members, by the WGSL group of their uniform.
    let mut stage = |shader_stage, entry_point: &str| -> Result<(String, Vec<(u32, UniformItem)>), String> {
        let pipeline = glsl::PipelineOptions { shader_stage, entry_point: entry_point.to_owned(), multiview: None };
        let mut out = String::new();
        let policies = naga::proc::BoundsCheckPolicies::default();
        let mut writer = glsl::Writer::new(&mut out, &module, &info, &options, &pipeline, policies)
            .map_err(|e| format!("{entry_point}: {e}"))?;
        let reflection = writer.write().map_err(|e| format!("{entry_point}: {e}"))?;
        for (name, mapping) in reflection.texture_mapping {
            let binding = module.global_variables[mapping.texture].binding.as_ref();
            let binding = binding.ok_or_else(|| format!("{entry_point}: texture {name} has no binding"))?;
            samplers.push((name, binding.group, binding.binding));
        }
        let mut items = Vec::new();
        for (handle, block) in reflection.uniforms {
            let name = plain_uniform(&mut out, &block).map_err(|e| format!("{entry_point}: {e}"))?;
            let var = &module.global_variables[handle];
            let group = var.binding.as_ref().map_or(u32::MAX, |b| b.group);
            let mut members = Vec::new();
            struct_items(&module, var.ty, &name, &mut members).map_err(|e| format!("{entry_point}: {e}"))?;
            items.extend(members.into_iter().map(|m| (group, m)));
        }
        Ok((out, items))
    };
    let (vertex, vertex_items) = stage(naga::ShaderStage::Vertex, "vs_main")?;
    let (fragment, fragment_items) = stage(naga::ShaderStage::Fragment, "fs_main")?;
    let of = |group: u32| vertex_items.iter().filter(|(g, _)| *g == group).map(|(_, i)| i.clone()).collect::<Vec<_>>();
    let (globals, motion, slot_sizes) = (of(GROUP_GLOBALS), of(GROUP_MOTION), of(GROUP_SLOTS));
    let strip = |items: Vec<(u32, UniformItem)>| items.into_iter().map(|(_, i)| i).collect::<Vec<_>>();
    samplers.sort();
    Ok(Translated { vertex, fragment, samplers, globals, motion, slot_sizes, lights: strip(fragment_items) })
}

/// Rewrites naga's uniform block `block` (`layout(std140) uniform B { T name; };`, one line)
/// in `glsl` as a plain uniform of the same struct (`uniform T name;`), and returns `name`.
///
/// naga 30 writes every `var<uniform>` as a block, which a draw would have to back with a
/// buffer bound at an indexed binding point, context state of the host's. Its
/// `var<immediate>` (plain uniforms) would do, but is capped at 256 bytes (its validator
/// tracks immediates in a 64-bit mask, and overflows past it), less than the lights' 528. So
/// the one source declares uniforms, and this line is the one change GL makes to naga's text.
fn plain_uniform(glsl: &mut String, block: &str) -> Result<String, String> {
    let at = glsl.find(&format!("uniform {block} {{ ")).ok_or_else(|| format!("no uniform block {block}"))?;
    let start = glsl[..at].rfind('\n').map_or(0, |n| n + 1);
    let end = glsl[at..].find('\n').map_or(glsl.len(), |n| at + n);
    let inner = glsl[at..end].split_once("{ ").and_then(|(_, r)| r.split_once("; }"));
    let (ty, name) = inner
        .and_then(|(member, _)| member.split_once(' '))
        .ok_or_else(|| format!("uniform block {block} is not one struct member: {}", &glsl[start..end]))?;
    let (ty, name) = (ty.to_owned(), name.to_owned());
    glsl.replace_range(start..end, &format!("uniform {ty} {name};"));
    Ok(name)
}

/// Appends the uniforms GL makes of the members of struct `ty` (named `name` in the GLSL):
/// `name.member` for a float or float vector, `name.member[i]` for each element of an array
/// of them, with their byte offsets in the struct (WGSL's uniform layout, the bytes both
/// backends write).
fn struct_items(
    module: &naga::Module,
    ty: naga::Handle<naga::Type>,
    name: &str,
    items: &mut Vec<UniformItem>,
) -> Result<(), String> {
    use naga::{ArraySize, Scalar, TypeInner};
    let floats = |inner: &TypeInner| match *inner {
        TypeInner::Scalar(Scalar::F32) => Some(1),
        TypeInner::Vector { size, scalar: Scalar::F32 } => Some(size as u32),
        _ => None,
    };
    let TypeInner::Struct { members, .. } = &module.types[ty].inner else {
        return Err(format!("uniform {name} is not a struct"));
    };
    for m in members {
        let member = m.name.as_deref().unwrap_or_default();
        let unsupported = || format!("uniform {name}.{member}: not a float, a float vector or an array of them");
        match &module.types[m.ty].inner {
            TypeInner::Array { base, size: ArraySize::Constant(n), stride } => {
                let floats = floats(&module.types[*base].inner).ok_or_else(unsupported)?;
                for i in 0..n.get() {
                    let offset = m.offset + i * stride;
                    items.push(UniformItem { name: format!("{name}.{member}[{i}]"), offset, floats });
                }
            }
            inner => {
                let floats = floats(inner).ok_or_else(unsupported)?;
                items.push(UniformItem { name: format!("{name}.{member}"), offset: m.offset, floats });
            }
        }
    }
    Ok(())
}

/// The GLSL ES 3.00 function naga makes of `effect`'s WGSL body: `vec4 lb_effect(vec4 color,
/// vec2 texel, vec4 params, float time_s) { .. }` (naga may rename a parameter: call it by
/// position), calling `lb_texel`, `lb_alpha` and
/// `lb_ramp` as the body does, which the caller declares. For running an effect outside
/// layerbatch (the browser bench draws the looks scene's effects as PixiJS filters with it).
///
/// ```
/// let f = layerbatch_gl::effect_glsl(&layerbatch_core::Effect::FLASH)?;
/// assert!(f.starts_with("vec4 lb_effect(vec4 color, vec2 "));
/// assert!(f.contains("mix("));
/// # Ok::<(), layerbatch_gl::Error>(())
/// ```
///
/// # Errors
/// [`crate::Error::Effect`] at [`crate::Stage::Translate`] when naga refuses the body.
pub fn effect_glsl(effect: &layerbatch_core::Effect) -> Result<String, crate::Error> {
    let source = format!(
        "fn lb_texel(texel: vec2<f32>) -> vec4<f32> {{ return vec4<f32>(texel, texel); }}\n\
         fn lb_alpha(texel: vec2<f32>) -> f32 {{ return lb_texel(texel).a; }}\n\
         fn lb_ramp(index: f32, row: f32) -> vec4<f32> {{ return vec4<f32>(index, row, index, row); }}\n\
         fn lb_effect(color: vec4<f32>, texel: vec2<f32>, params: vec4<f32>, time_s: f32) -> vec4<f32> {{\n{}\n}}\n\
         @fragment fn main(@location(0) c: vec4<f32>, @location(1) p: vec4<f32>) -> @location(0) vec4<f32> {{\n\
         \x20   return lb_effect(c, p.xy, p, p.w);\n}}\n",
        effect.wgsl
    );
    let fail = |message: String| crate::Error::Effect { effect: effect.name, stage: crate::Stage::Translate, message };
    let module = naga::front::wgsl::parse_str(&source).map_err(|e| fail(e.emit_to_string(&source)))?;
    let info = naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::empty())
        .validate(&module)
        .map_err(|e| fail(e.emit_to_string(&source)))?;
    let version = glsl::Version::Embedded { version: 300, is_webgl: true };
    let options = glsl::Options { version, writer_flags: glsl::WriterFlags::empty(), ..glsl::Options::default() };
    let pipeline = glsl::PipelineOptions {
        shader_stage: naga::ShaderStage::Fragment,
        entry_point: "main".to_owned(),
        multiview: None,
    };
    let mut out = String::new();
    glsl::Writer::new(&mut out, &module, &info, &options, &pipeline, naga::proc::BoundsCheckPolicies::default())
        .and_then(|mut w| w.write())
        .map_err(|e| fail(e.to_string()))?;
    // The function is one block from its signature to the first closing brace at column 0.
    let start = out.find("vec4 lb_effect(").ok_or_else(|| fail("naga wrote no lb_effect".to_owned()))?;
    let end =
        out[start..].find("\n}\n").map(|e| start + e + 3).ok_or_else(|| fail("lb_effect has no end".to_owned()))?;
    Ok(out[start..end].to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use layerbatch_core::Effect;

    #[test]
    fn every_program_of_every_key_translates_for_both_versions() {
        for gles in [false, true] {
            for tier in [1, 2, 3, 16] {
                for (effects, lights) in
                    [(&[][..], 0), (&Effect::BUILT_IN[..], 0), (&[][..], 8), (&Effect::BUILT_IN[..], 4)]
                {
                    let key = ProgramKey::plain(tier).with_effects(effects).with_lights(lights);
                    let t = translate(&key, gles).unwrap_or_else(|e| panic!("{key:?} gles {gles}: {e}"));
                    // The slots' textures and normal maps in the fragment stage only.
                    let slot_samplers = t.samplers.iter().filter(|(_, g, _)| *g == 1).count() as u32;
                    let normals = if lights > 0 { tier } else { 0 };
                    assert_eq!(slot_samplers, tier + normals, "{key:?}");
                    assert!(!t.vertex.contains("sampler2DArray"), "{key:?}: the vertex stage samples a slot");
                    assert_eq!(t.slot_sizes.len(), tier.div_ceil(2) as usize);
                    let names: Vec<&str> = t.globals.iter().map(|i| i.name.as_str()).collect();
                    assert_eq!(names.len(), 6, "{names:?}");
                    assert_eq!(t.motion.len(), 1);
                    assert_eq!(t.samplers.iter().filter(|(_, g, _)| *g == GROUP_MOTION).count(), 1);
                    assert_eq!(t.lights.len(), if lights > 0 { 1 + 2 * lights as usize } else { 0 });
                }
            }
        }
    }
}
