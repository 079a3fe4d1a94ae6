//! The WGSL of each program: core's one source ([`layerbatch_core::shader`]), and the check
//! of declared effects with naga.

use layerbatch_core::shader::wgsl;
use layerbatch_core::ProgramKey;

/// The WGSL source of the pipeline of `key` ([`ProgramKey`]: tier, effects, lights): core's
/// [`layerbatch_core::shader::wgsl`]. A renderer makes the
/// pipelines of `ProgramKey::of_budget` at creation (and per pass kind).
///
/// ```
/// use layerbatch_core::ProgramKey;
/// let src = layerbatch_wgpu::pipeline_source(&ProgramKey::plain(4));
/// assert_eq!(src.matches("texture_2d_array<f32>;").count(), 4);
/// assert!(src.contains("@group(0) @binding(0) var<uniform> globals: Globals;"));
/// ```
///
/// # Panics
/// If `key.tier` is 0.
pub fn pipeline_source(key: &ProgramKey<'_>) -> String {
    wgsl(key)
}

/// Checks every effect's WGSL with naga, each alone in a tier-1 shader: the first that does
/// not parse or validate is [`Error::Effect`](crate::Error::Effect), naming it.
pub(crate) fn check_effects(effects: &[layerbatch_core::Effect]) -> Result<(), crate::Error> {
    for (k, effect) in effects.iter().enumerate() {
        let source = pipeline_source(&ProgramKey::plain(1).with_effects(&effects[k..=k]));
        let fail = |message: String| crate::Error::Effect { effect: effect.name, message };
        let module = naga::front::wgsl::parse_str(&source).map_err(|e| fail(e.emit_to_string(&source)))?;
        let mut validator =
            naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::default());
        validator.validate(&module).map_err(|e| fail(e.emit_to_string(&source)))?;
    }
    Ok(())
}
