//! Compiling and linking the slot-tier programs.
#![allow(unsafe_code)]

use glow::HasContext;

use layerbatch_core::shader::{
    GROUP_GLOBALS, GROUP_MOTION, GROUP_SLOTS, MOTION_TEXELS_BINDING, NORMAL_BASE, RAMP_BINDING,
};
use layerbatch_core::{Budget, Effect, ProgramKey};

use crate::error::{Error, Stage};
use crate::shader::{self, UniformItem};

/// A linked program of one slot tier.
#[derive(Debug)]
pub(crate) struct TierProgram {
    pub(crate) tier: u32,
    /// The tier's effect program (every declared effect), else its plain one.
    pub(crate) effects: bool,
    pub(crate) program: glow::Program,
    /// The vertex stage's `Globals` uniforms, each with its location.
    pub(crate) globals: Vec<(Option<glow::UniformLocation>, UniformItem)>,
    /// The `Globals` bytes last written (empty: none yet): unchanged values are not written.
    pub(crate) globals_written: Vec<u8>,
    /// The vertex stage's `MotionDraw` uniform ([`layerbatch_core::shader::MotionDraw`]).
    pub(crate) motion: Vec<(Option<glow::UniformLocation>, UniformItem)>,
    /// The `MotionDraw` bytes last written.
    pub(crate) motion_written: Vec<u8>,
    /// The vertex stage's `SlotSizes` uniform ([`layerbatch_core::shader::slot_sizes`]).
    pub(crate) slot_sizes: Vec<(Option<glow::UniformLocation>, UniformItem)>,
    /// The `SlotSizes` bytes last written.
    pub(crate) slot_sizes_written: Vec<u8>,
    /// The fragment stage's `Lights` uniforms (lit programs only).
    pub(crate) lights: Vec<(Option<glow::UniformLocation>, UniformItem)>,
    /// The `Lights` bytes last written.
    pub(crate) lights_written: Vec<u8>,
}

fn log_or_placeholder(log: String) -> String {
    if log.trim().is_empty() {
        "(the driver gave no info log)".to_owned()
    } else {
        log.trim_end().to_owned()
    }
}

fn compile_shader(
    gl: &glow::Context,
    kind: u32,
    source: &str,
    stage: Stage,
    tier: Option<u32>,
) -> Result<glow::Shader, Error> {
    // SAFETY: plain GL object calls on the current context; the shader handle is used only
    // while alive and deleted on failure.
    unsafe {
        let shader = gl.create_shader(kind).map_err(|message| Error::create_object("shader", message))?;
        gl.shader_source(shader, source);
        gl.compile_shader(shader);
        if gl.get_shader_compile_status(shader) {
            Ok(shader)
        } else {
            let message = log_or_placeholder(gl.get_shader_info_log(shader));
            gl.delete_shader(shader);
            Err(Error::Shader { tier, stage, message })
        }
    }
}

/// Compiles and links a program; every failure is an [`Error::Shader`] with the stage and
/// the driver's info log, and leaves no GL object behind.
pub(crate) fn compile_program(
    gl: &glow::Context,
    vs_src: &str,
    fs_src: &str,
    tier: Option<u32>,
) -> Result<glow::Program, Error> {
    let vs = compile_shader(gl, glow::VERTEX_SHADER, vs_src, Stage::Vertex, tier)?;
    let fs = match compile_shader(gl, glow::FRAGMENT_SHADER, fs_src, Stage::Fragment, tier) {
        Ok(fs) => fs,
        Err(e) => {
            // SAFETY: `vs` was created above and is not attached to anything.
            unsafe { gl.delete_shader(vs) };
            return Err(e);
        }
    };
    // SAFETY: `vs` and `fs` are live compiled shaders; the program is deleted on failure and
    // the shaders are detached and deleted in every case.
    unsafe {
        let program = match gl.create_program() {
            Ok(p) => p,
            Err(message) => {
                gl.delete_shader(vs);
                gl.delete_shader(fs);
                return Err(Error::create_object("program", message));
            }
        };
        gl.attach_shader(program, vs);
        gl.attach_shader(program, fs);
        gl.link_program(program);
        gl.detach_shader(program, vs);
        gl.detach_shader(program, fs);
        gl.delete_shader(vs);
        gl.delete_shader(fs);
        if gl.get_program_link_status(program) {
            Ok(program)
        } else {
            let message = log_or_placeholder(gl.get_program_info_log(program));
            gl.delete_program(program);
            Err(Error::Shader { tier, stage: Stage::Link, message })
        }
    }
}

/// Test-only entry point: compiles and links `vs_src` and `fs_src` the way the renderer builds
/// its programs, so a test can feed a deliberately broken shader and inspect the error. The
/// caller owns (and deletes) the returned program.
///
/// # Errors
/// [`Error::Shader`] with the failing [`Stage`] and the driver's info log.
#[doc(hidden)]
pub fn compile_program_for_test(gl: &glow::Context, vs_src: &str, fs_src: &str) -> Result<glow::Program, Error> {
    compile_program(gl, vs_src, fs_src, None)
}

/// Builds the program of `tier` slots (with every declared effect when `with_effects`, else
/// none) from core's WGSL translated by naga ([`shader::translate`]), and points its
/// samplers at units: slot `i` at `i`, its normal map at `slots + i`, the ramp at
/// [`Budget::ramp_unit`], the motion texture at [`Budget::motion_unit`]. Leaves the program current (the caller saves and restores
/// `CURRENT_PROGRAM`).
pub(crate) fn build_tier(
    gl: &glow::Context,
    (tier, with_effects): (u32, bool),
    gles: bool,
    budget: &Budget,
) -> Result<TierProgram, Error> {
    let key = ProgramKey::of_budget(budget, tier, with_effects);
    let effects = key.effects;
    let translated = match shader::translate(&key, gles) {
        Ok(t) => t,
        Err(message) => {
            return Err(blame_effect(gl, gles, effects).unwrap_or(Error::Shader {
                tier: Some(tier),
                stage: Stage::Translate,
                message,
            }))
        }
    };
    let program = match compile_program(gl, &translated.vertex, &translated.fragment, Some(tier)) {
        Ok(p) => p,
        Err(e) => return Err(blame_effect(gl, gles, effects).unwrap_or(e)),
    };
    let unit_of = |group: u32, binding: u32| match group {
        GROUP_SLOTS if binding < NORMAL_BASE => Some(binding / 2),
        GROUP_SLOTS => Some(budget.slots + (binding - NORMAL_BASE) / 2),
        GROUP_GLOBALS if binding == RAMP_BINDING => budget.ramp_unit(),
        GROUP_MOTION if binding == MOTION_TEXELS_BINDING => Some(budget.motion_unit()),
        _ => None,
    };
    // SAFETY: `program` linked successfully; uniform locations come from it.
    unsafe {
        gl.use_program(Some(program));
        for (name, group, binding) in &translated.samplers {
            let Some(unit) = unit_of(*group, *binding) else {
                gl.delete_program(program);
                let message = format!("sampler {name} of group {group} binding {binding} has no texture unit");
                return Err(Error::Shader { tier: Some(tier), stage: Stage::Translate, message });
            };
            let loc = gl.get_uniform_location(program, name);
            gl.uniform_1_i32(loc.as_ref(), unit as i32);
        }
        let locate = |items: Vec<UniformItem>| -> Vec<_> {
            items.into_iter().map(|item| (gl.get_uniform_location(program, &item.name), item)).collect()
        };
        Ok(TierProgram {
            tier,
            effects: with_effects,
            program,
            globals: locate(translated.globals),
            globals_written: Vec::new(),
            motion: locate(translated.motion),
            motion_written: Vec::new(),
            slot_sizes: locate(translated.slot_sizes),
            slot_sizes_written: Vec::new(),
            lights: locate(translated.lights),
            lights_written: Vec::new(),
        })
    }
}

/// Writes `bytes` (a `Globals` or `Lights` value) into the program's uniforms `items` where
/// they differ from `written`, the bytes last written, which become `bytes`. The program is
/// in use.
pub(crate) fn write_uniforms(
    gl: &glow::Context,
    items: &[(Option<glow::UniformLocation>, UniformItem)],
    written: &mut Vec<u8>,
    bytes: &[u8],
) {
    let floats: &[f32] = bytemuck::cast_slice(bytes);
    let old: &[f32] = if written.len() == bytes.len() { bytemuck::cast_slice(written) } else { &[] };
    for (loc, item) in items {
        let (at, n) = ((item.offset / 4) as usize, item.floats as usize);
        let Some(value) = floats.get(at..at + n) else { continue };
        if old.get(at..at + n) == Some(value) {
            continue;
        }
        // SAFETY: the program is in use and `loc` is its own; `value` has the uniform's size.
        unsafe {
            match n {
                1 => gl.uniform_1_f32_slice(loc.as_ref(), value),
                2 => gl.uniform_2_f32_slice(loc.as_ref(), value),
                3 => gl.uniform_3_f32_slice(loc.as_ref(), value),
                _ => gl.uniform_4_f32_slice(loc.as_ref(), &value[..4]),
            }
        }
    }
    written.clear();
    written.extend_from_slice(bytes);
}

/// After a tier program with `effects` failed: the first effect that fails alone (in a tier-1
/// program with only it), as [`Error::Effect`], or `None` when each builds alone.
fn blame_effect(gl: &glow::Context, gles: bool, effects: &[Effect]) -> Option<Error> {
    for (k, effect) in effects.iter().enumerate() {
        let t = match shader::translate(&ProgramKey::plain(1).with_effects(&effects[k..=k]), gles) {
            Ok(t) => t,
            Err(message) => return Some(Error::Effect { effect: effect.name, stage: Stage::Translate, message }),
        };
        match compile_program(gl, &t.vertex, &t.fragment, Some(1)) {
            // SAFETY: the probe program linked and is used by nothing.
            Ok(p) => unsafe { gl.delete_program(p) },
            Err(Error::Shader { stage, message, .. }) => {
                return Some(Error::Effect { effect: effect.name, stage, message });
            }
            Err(e) => return Some(e),
        }
    }
    None
}
