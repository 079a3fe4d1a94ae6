//! The smallest layerbatch program on OpenGL (`cargo run --example hello_gl`): a winit window, a
//! glutin context, one texture, three sprites, one draw call. Copy it: it uses only published crates
//! (layerbatch, layerbatch-gl, glutin, glutin-winit, winit, env_logger). `tour_gl` does more.
#![allow(unsafe_code)] // Making a GL context is unsafe in glutin and glow; layerbatch's API is safe.
use glutin::context::{ContextApi, ContextAttributesBuilder, GlProfile, PossiblyCurrentContext, Version};
use glutin::{config::ConfigTemplateBuilder, display::GetGlDisplay, prelude::*, surface::*};
use glutin_winit::{DisplayBuilder, GlWindow as _};
use layerbatch::{Batcher, Config, Filter, Quad, TextureDesc, TextureId};
use layerbatch_gl::{glow, glow::HasContext, Renderer, Target};
use std::{num::NonZeroU32, sync::Arc};
use winit::{application::*, event::WindowEvent, event_loop::*, raw_window_handle::HasWindowHandle, window::*};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// What a GL engine keeps: the host's context, the batcher, the renderer (`destroy` it) and textures.
#[derive(Debug)]
pub struct Sprites {
    gl: Arc<glow::Context>,
    batcher: Batcher,
    pub renderer: Renderer,
    checker: TextureId,
}

impl Sprites {
    /// On `gl`, current on this thread, with a 2x2 checker (RGBA8, premultiplied, nearest).
    pub fn new(gl: Arc<glow::Context>) -> Result<Self> {
        let mut batcher = Batcher::new(Renderer::query_limits(&gl), Config::default())?;
        let renderer = Renderer::new(gl.clone(), batcher.budget())?;
        let texels = [[255; 4], [120, 120, 120, 255], [120, 120, 120, 255], [255; 4]].concat();
        let checker = batcher.textures().register(&TextureDesc::new(2, 2).with_filter(Filter::Nearest), &texels)?;
        Ok(Self { gl, batcher, renderer, checker })
    }

    /// Clears the bound framebuffer (of `size` pixels) and paints a frame into it.
    pub fn frame(&mut self, size: [u32; 2]) -> Result<()> {
        // SAFETY: the context is current on this thread (as for every call of `self`).
        unsafe {
            self.gl.clear_color(0.0, 0.0, 0.0, 1.0);
            self.gl.clear(glow::COLOR_BUFFER_BIT);
        }
        self.batcher.begin_frame();
        for (x, tint) in [(40.0, [255, 80, 80, 255]), (160.0, [80, 255, 80, 255]), (280.0, [80, 80, 255, 255])] {
            self.batcher.push(&Quad::rect(self.checker, [x, 40.0], [96.0; 2]).with_color(tint))?;
        }
        Ok(self.renderer.paint(self.batcher.finish(), &Target::bound(size))?)
    }
}

struct Running(Sprites, Surface<WindowSurface>, PossiblyCurrentContext, Window); // Window dropped last.

fn open(event_loop: &ActiveEventLoop) -> Result<Running> {
    let builder =
        DisplayBuilder::new().with_window_attributes(Some(Window::default_attributes().with_title("hello_gl")));
    let (window, config) = builder.build(event_loop, ConfigTemplateBuilder::new(), |mut c| c.next().expect("one"))?;
    let (window, display) = (window.ok_or("no window")?, config.display());
    let api = ContextApi::OpenGl(Some(Version::new(3, 3)));
    let attributes = ContextAttributesBuilder::new().with_context_api(api).with_profile(GlProfile::Core);
    // SAFETY: `window` (dropped last, in `Running`) outlives the context and surface made from it.
    let (context, surface) = unsafe {
        let context = display.create_context(&config, &attributes.build(Some(window.window_handle()?.as_raw())))?;
        (context, display.create_window_surface(&config, &window.build_surface_attributes(Default::default())?)?)
    };
    let context = context.make_current(&surface)?;
    // SAFETY: the context is current on this thread, and the functions are its display's.
    let gl = unsafe { glow::Context::from_loader_function_cstr(|name| display.get_proc_address(name)) };
    Ok(Running(Sprites::new(Arc::new(gl))?, surface, context, window))
}

struct App(Option<Running>);

impl ApplicationHandler for App {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        self.0 = self.0.take().or_else(|| open(event_loop).map_err(|e| eprintln!("hello_gl: {e}")).ok());
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _: WindowId, event: WindowEvent) {
        let Some(Running(sprites, surface, context, window)) = self.0.as_mut() else { return event_loop.exit() };
        let (size, nonzero) = (window.inner_size(), |px| NonZeroU32::new(px).unwrap_or(NonZeroU32::MIN));
        match event {
            WindowEvent::CloseRequested => event_loop.exit(),
            WindowEvent::Resized(_) => surface.resize(context, nonzero(size.width), nonzero(size.height)),
            WindowEvent::RedrawRequested => {
                let drawn = sprites.frame(size.into()).and_then(|()| Ok(surface.swap_buffers(context)?));
                drawn.unwrap_or_else(|e| (eprintln!("hello_gl: {e}"), event_loop.exit()).1);
            }
            _ => {}
        }
    }

    fn exiting(&mut self, _: &ActiveEventLoop) {
        // The renderer deletes its GL objects while the context is current.
        self.0.take().into_iter().for_each(|Running(sprites, ..)| sprites.renderer.destroy());
    }
}

fn main() -> Result<()> {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init(); // budget cuts
    Ok(EventLoop::new()?.run_app(&mut App(None))?)
}
