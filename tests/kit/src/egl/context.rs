//! A current OpenGL (3.3 core) or OpenGL ES (3.0) context with no window and no X server:
//! glutin's EGL device platform, on Mesa's software device when there is one. The recipe of
//! `docs/ARCHITECTURE.md` (testing without a GPU).

use glutin::api::egl::{context::PossiblyCurrentContext, device::Device, display::Display};
use glutin::config::{Api, ConfigSurfaceTypes, ConfigTemplateBuilder};
use glutin::context::{ContextApi, ContextAttributesBuilder, GlProfile, Version};
use glutin::display::GlDisplay;
use layerbatch_gl::glow::{self, HasContext};

/// A current surfaceless context and the `glow` loader on it.
///
/// Drop `gl` (and everything made with it) before `context` and `display`: keep them in that
/// field order.
#[derive(Debug)]
pub struct Egl {
    /// The GL functions.
    pub gl: glow::Context,
    /// The context, current on this thread.
    pub context: PossiblyCurrentContext,
    /// The EGL display.
    pub display: Display,
}

/// Makes a GLES 3.0 context when `gles`, else a desktop GL 3.3 core one, current on this
/// thread with no surface. Fails when the driver hands back the other API.
pub fn surfaceless(gles: bool) -> Result<Egl, String> {
    let devices: Vec<Device> = Device::query_devices().map_err(|e| format!("EGL devices: {e}"))?.collect();
    // LAYERBATCH_EGL_DEVICE=hardware: the first device that is not Mesa's software one (a GPU
    // benchmark on a machine that has both).
    let hardware = std::env::var("LAYERBATCH_EGL_DEVICE").is_ok_and(|v| v == "hardware");
    let software = |d: &&Device| d.extensions().contains("EGL_MESA_device_software");
    let device = if hardware { devices.iter().find(|d| !software(d)) } else { devices.iter().find(software) }
        .or(devices.first())
        .ok_or("no EGL device")?;
    // SAFETY: the device comes from EGL's own enumeration; no native display is passed.
    let display = unsafe { Display::with_device(device, None) }.map_err(|e| format!("EGL display: {e}"))?;
    // The default template asks for a window surface: ask for none.
    let template = ConfigTemplateBuilder::new()
        .with_surface_type(ConfigSurfaceTypes::empty())
        .with_api(if gles { Api::GLES3 } else { Api::OPENGL })
        .build();
    // SAFETY: the display is alive for the call.
    let config = unsafe { display.find_configs(template) }
        .map_err(|e| format!("EGL configs: {e}"))?
        .next()
        .ok_or("no EGL config")?;
    let api =
        if gles { ContextApi::Gles(Some(Version::new(3, 0))) } else { ContextApi::OpenGl(Some(Version::new(3, 3))) };
    let attrs = ContextAttributesBuilder::new().with_context_api(api).with_profile(GlProfile::Core).build(None);
    // SAFETY: the config comes from this display; no shared context.
    let context = unsafe { display.create_context(&config, &attrs) }
        .map_err(|e| format!("EGL context: {e}"))?
        .make_current_surfaceless()
        .map_err(|e| format!("make current: {e}"))?;
    // SAFETY: the context is current on this thread; `Egl` documents that `gl` must go first.
    let gl = unsafe { glow::Context::from_loader_function_cstr(|s| display.get_proc_address(s)) };
    let v = gl.version();
    if v.is_embedded != gles {
        return Err(format!("asked for {}, got {v:?}", if gles { "GLES" } else { "desktop GL" }));
    }
    Ok(Egl { gl, context, display })
}

/// `"RENDERER (VERSION)"` of the current context, e.g. `llvmpipe (...) (4.5 (Core Profile) Mesa ...)`.
pub fn describe(gl: &glow::Context) -> String {
    // SAFETY: plain string queries on the current context.
    unsafe { format!("{} ({})", gl.get_parameter_string(glow::RENDERER), gl.get_parameter_string(glow::VERSION)) }
}
