//! EGL contexts and the raw GL calls made on them: the kit's only `unsafe` code (glutin's and
//! glow's calls are `unsafe`), every block with a `SAFETY:` line. Everything else in the kit
//! reaches GL through these safe functions.
//!
//! - [`surfaceless`]: a GL 3.3 core or GLES 3.0 context with no window (EGL device platform).
//! - [`Framebuffer`]: an offscreen RGBA8 target on it: clear, scissor, read back.
//! - [`raw_sprite`]: a hand-written sprite program, the fill-rate bench's baseline.
//! - [`GpuTimer`]: `GL_TIME_ELAPSED` queries, the GPU's time of a frame.
//! - `window` (feature `window`): a GL context on a winit window's surface.

mod context;
mod framebuffer;
pub mod host_texture;
pub mod raw_sprite;
mod timer;
#[cfg(feature = "window")]
pub mod window;

pub use context::{describe, surfaceless, Egl};
pub use framebuffer::{finish, flush, Framebuffer};
pub use timer::GpuTimer;
