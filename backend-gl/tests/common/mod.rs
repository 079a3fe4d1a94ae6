//! Shared test helpers: a headless EGL context (llvmpipe through Mesa's EGL device platform,
//! `layerbatch_testkit::egl`), an offscreen RGBA8 framebuffer with readback, and small texture
//! builders.
#![allow(dead_code)]

use std::sync::Arc;

use glutin::api::egl::{context::PossiblyCurrentContext, display::Display};
use layerbatch_gl::glow;
use layerbatch_testkit::{ci, egl};

/// Premultiplied "over": `src + dst * (1 - src.a)`, the kit's blend formula.
pub fn over(src: [u8; 4], dst: [u8; 4]) -> [u8; 4] {
    layerbatch_testkit::blend::over(src, dst)
}

/// Which context a scene runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavor {
    /// Desktop OpenGL 3.3 core profile.
    Gl33,
    /// OpenGL ES 3.0.
    Gles30,
}

/// A current headless context. Field order: `gl` drops before the context and display.
pub struct Ctx {
    pub gl: Arc<glow::Context>,
    pub flavor: Flavor,
    _context: PossiblyCurrentContext,
    _display: Display,
}

impl Ctx {
    /// The address of the GL entry point `name` (for the few a test needs that glow does not
    /// wrap, e.g. `glLogicOp`), or null when the driver has none.
    pub fn proc_address(&self, name: &std::ffi::CStr) -> *const std::ffi::c_void {
        use glutin::display::GlDisplay;
        self._display.get_proc_address(name)
    }
}

fn create(flavor: Flavor) -> Result<Ctx, String> {
    let egl::Egl { gl, context, display } = egl::surfaceless(flavor == Flavor::Gles30)?;
    Ok(Ctx { gl: Arc::new(gl), flavor, _context: context, _display: display })
}

/// A context of `flavor`, or `None` (with a `skipped:` line) when none can be made outside
/// CI. Under `CI=true` a missing context fails the test.
pub fn context(flavor: Flavor, test: &str) -> Option<Ctx> {
    ci::require(create(flavor), &format!("{test} on {flavor:?}"), "EGL context")
}

/// Runs `scene` on a fresh context of `flavor` (this test's own thread).
pub fn run(flavor: Flavor, test: &str, scene: impl FnOnce(&Ctx)) {
    if let Some(ctx) = context(flavor, test) {
        scene(&ctx);
    }
}

/// An offscreen RGBA8 framebuffer (renderbuffer colour attachment).
pub struct Offscreen {
    pub fbo: glow::Framebuffer,
    pub rb: glow::Renderbuffer,
    pub width: u32,
    pub height: u32,
    target: egl::Framebuffer,
}

impl Offscreen {
    /// Creates it, bound to `FRAMEBUFFER`, cleared to `clear` (floats, premultiplied).
    pub fn new(gl: &glow::Context, width: u32, height: u32, clear: [f32; 4]) -> Self {
        let target = egl::Framebuffer::new(gl, [width, height]).unwrap();
        target.clear(gl, clear);
        Self { fbo: target.fbo, rb: target.renderbuffer, width, height, target }
    }

    pub fn clear(&self, gl: &glow::Context, c: [f32; 4]) {
        self.target.clear(gl, c);
    }

    /// Reads the framebuffer back; row 0 is the top (y down, like instance positions).
    pub fn read(&self, gl: &glow::Context) -> Image {
        Image { width: self.width, height: self.height, px: self.target.read(gl) }
    }

    pub fn delete(self, gl: &glow::Context) {
        self.target.delete(gl);
    }
}

/// A readback, top row first.
pub struct Image {
    pub width: u32,
    pub height: u32,
    pub px: Vec<u8>,
}

impl Image {
    /// An image of one colour, for building expected images.
    #[allow(dead_code)]
    pub fn filled(width: u32, height: u32, c: [u8; 4]) -> Self {
        Self { width, height, px: c.repeat((width * height) as usize) }
    }

    /// Fills `[x0, x1) x [y0, y1)` with `c`.
    #[allow(dead_code)]
    pub fn fill(&mut self, [x0, y0, x1, y1]: [u32; 4], c: [u8; 4]) {
        for y in y0..y1 {
            for x in x0..x1 {
                let i = ((y * self.width + x) * 4) as usize;
                self.px[i..i + 4].copy_from_slice(&c);
            }
        }
    }

    pub fn at(&self, x: u32, y: u32) -> [u8; 4] {
        let i = ((y * self.width + x) * 4) as usize;
        [self.px[i], self.px[i + 1], self.px[i + 2], self.px[i + 3]]
    }

    /// Every pixel, with coordinates.
    pub fn pixels(&self) -> impl Iterator<Item = (u32, u32, [u8; 4])> + '_ {
        (0..self.height).flat_map(move |y| (0..self.width).map(move |x| (x, y, self.at(x, y))))
    }

    /// Asserts every pixel of the rectangle `[x0, x1) x [y0, y1)` is `want`, within `tol`.
    pub fn assert_rect(&self, [x0, y0, x1, y1]: [u32; 4], want: [u8; 4], tol: u8, what: &str) {
        for y in y0..y1 {
            for x in x0..x1 {
                let got = self.at(x, y);
                assert!(close(got, want, tol), "{what}: pixel ({x}, {y}) is {got:?}, want {want:?}");
            }
        }
    }
}

pub fn close(a: [u8; 4], b: [u8; 4], tol: u8) -> bool {
    a.iter().zip(b).all(|(x, y)| x.abs_diff(y) <= tol)
}

/// `w x h` pixels of one colour.
pub fn solid(w: u32, h: u32, c: [u8; 4]) -> Vec<u8> {
    c.repeat((w * h) as usize)
}

/// `count` opaque colours, pairwise at least 48 apart in some channel: a 6x6x6 grid of
/// levels walked with a stride so neighbours differ a lot. At most 216.
pub fn distinct_colors(count: u32) -> Vec<[u8; 4]> {
    const LEVELS: [u8; 6] = [16, 64, 112, 160, 208, 255];
    assert!(count <= 216, "only 216 distinct colours");
    (0..count)
        .map(|i| {
            let j = (i * 97 + 5) % 216;
            [LEVELS[(j % 6) as usize], LEVELS[(j / 6 % 6) as usize], LEVELS[(j / 36) as usize], 255]
        })
        .collect()
}

/// Makes a test with one function per context flavour.
#[macro_export]
macro_rules! both_flavors {
    ($scene:ident) => {
        mod $scene {
            #[test]
            fn gl33() {
                $crate::common::run($crate::common::Flavor::Gl33, stringify!($scene), super::$scene);
            }
            #[test]
            fn gles30() {
                $crate::common::run($crate::common::Flavor::Gles30, stringify!($scene), super::$scene);
            }
        }
    };
}
