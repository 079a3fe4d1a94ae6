//! Compiling and linking the slot-tier programs.
#![allow(unsafe_code)]

use glow::HasContext;

use layerbatch_core::{Budget, Effect, ProgramKey};

use crate::error::{Error, Stage};
use crate::{lighting, shader};

/// A linked program of one slot tier.
#[derive(Debug)]
pub(crate) struct TierProgram {
    pub(crate) tier: u32,
    /// The tier's effect program (every declared effect), else its plain one.
    pub(crate) effects: bool,
    pub(crate) program: glow::Program,
    pub(crate) u_viewport: Option<glow::UniformLocation>,
    /// The viewport last written to `u_viewport`.
    pub(crate) viewport: [f32; 2],
    pub(crate) u_transform: Option<glow::UniformLocation>,
    /// The transform last written to `u_transform`.
    pub(crate) transform: [f32; 6],
    pub(crate) u_tint: Option<glow::UniformLocation>,
    /// The tint last written to `u_tint`.
    pub(crate) tint: [f32; 4],
    /// The effects' time (programs with effects only).
    pub(crate) u_time: Option<glow::UniformLocation>,
    /// The time last written to `u_time`.
    pub(crate) time_s: f32,
    /// The lights, their count and the ambient colour (lit programs only).
    pub(crate) u_lights: Option<glow::UniformLocation>,
    pub(crate) u_light_count: Option<glow::UniformLocation>,
    pub(crate) u_ambient: Option<glow::UniformLocation>,
    /// What was last written to the three: the ambient colour, then the lights packed (two
    /// `vec4` each); empty until the first write.
    pub(crate) lights: Vec<[f32; 4]>,
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
/// none) and points its samplers at units `0..tier`, and with
/// lights its normal-map samplers at units `slots..slots + tier`, and the ramp's at
/// [`Budget::ramp_unit`]. Leaves the program current
/// (the caller saves and restores `CURRENT_PROGRAM`).
pub(crate) fn build_tier(
    gl: &glow::Context,
    (tier, with_effects): (u32, bool),
    gles: bool,
    budget: &Budget,
) -> Result<TierProgram, Error> {
    let key = ProgramKey::of_budget(budget, tier, with_effects);
    let effects = key.effects;
    let (vs, fs) = shader::program_sources(&key, gles);
    let program = match compile_program(gl, &vs, &fs, Some(tier)) {
        Ok(p) => p,
        Err(e) => return Err(blame_effect(gl, gles, effects).unwrap_or(e)),
    };
    // SAFETY: `program` linked successfully; uniform locations come from it.
    unsafe {
        gl.use_program(Some(program));
        for slot in 0..tier {
            let loc = gl.get_uniform_location(program, &shader::slot_uniform(slot));
            gl.uniform_1_i32(loc.as_ref(), slot as i32);
            if budget.max_lights > 0 {
                let loc = gl.get_uniform_location(program, &lighting::normal_uniform(slot));
                gl.uniform_1_i32(loc.as_ref(), (budget.slots + slot) as i32);
            }
        }
        if let Some(unit) = budget.ramp_unit().filter(|_| with_effects) {
            let loc = gl.get_uniform_location(program, shader::RAMP_UNIFORM);
            gl.uniform_1_i32(loc.as_ref(), unit as i32);
        }
        let u_viewport = gl.get_uniform_location(program, shader::VIEWPORT_UNIFORM);
        let u_transform = gl.get_uniform_location(program, shader::TRANSFORM_UNIFORM);
        let u_tint = gl.get_uniform_location(program, shader::TINT_UNIFORM);
        let u_time = gl.get_uniform_location(program, shader::TIME_UNIFORM);
        // A fresh program's uniforms are zero: `transform` starts as "not written".
        Ok(TierProgram {
            tier,
            effects: with_effects,
            program,
            u_viewport,
            viewport: [0.0, 0.0],
            u_transform,
            transform: [0.0; 6],
            u_tint,
            // Never a tint: the first draw writes it.
            tint: [f32::NAN; 4],
            u_time,
            time_s: 0.0,
            u_lights: gl.get_uniform_location(program, lighting::LIGHTS_UNIFORM),
            u_light_count: gl.get_uniform_location(program, lighting::LIGHT_COUNT_UNIFORM),
            u_ambient: gl.get_uniform_location(program, lighting::AMBIENT_UNIFORM),
            lights: Vec::new(),
        })
    }
}

/// After a tier program with `effects` failed: the first effect that fails alone (in a tier-1
/// program with only it), as [`Error::Effect`], or `None` when each builds alone.
fn blame_effect(gl: &glow::Context, gles: bool, effects: &[Effect]) -> Option<Error> {
    for (k, effect) in effects.iter().enumerate() {
        let (vs, fs) = shader::program_sources(&ProgramKey::plain(1).with_effects(&effects[k..=k]), gles);
        match compile_program(gl, &vs, &fs, Some(1)) {
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
