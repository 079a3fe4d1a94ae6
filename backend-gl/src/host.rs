//! The host's object bindings (program, vertex array, buffers, textures, samplers,
//! framebuffers): read before a paint changes them and put back after.
//!
//! Natively they are read through glow's getters (`get_parameter_texture` and the like),
//! which return glow's handle of whatever object is bound.
//!
//! In a browser (glow's `web_sys` backend) those getters panic ("A resource was created
//! externally") whenever `getParameter` returns an object glow's context did not create,
//! `null` included, i.e. whenever nothing is bound: every fresh WebGL2 context
//! (grovesNL/glow#334). So there the bindings are read and restored through the raw
//! `WebGL2RenderingContext`, as the JS objects themselves: what the host bound, made through
//! glow or not, is rebound as it was. glow does not hand out its raw context, so
//! [`HostGl::new`] finds it once, at renderer creation (see [`HostGl::new`]).
#![allow(unsafe_code)]

#[cfg(not(all(target_family = "wasm", not(target_os = "emscripten"))))]
pub(crate) use native::{Bound, HostGl};
#[cfg(all(target_family = "wasm", not(target_os = "emscripten")))]
pub(crate) use web::{Bound, HostGl};

#[cfg(not(all(target_family = "wasm", not(target_os = "emscripten"))))]
mod native {
    use glow::HasContext;

    /// A binding of the host's as found: glow's handle, or `None` for no object.
    #[derive(Debug)]
    pub(crate) struct Bound<T>(Option<T>);

    impl<T> Bound<T> {
        /// An object is bound.
        pub(crate) fn is_some(&self) -> bool {
            self.0.is_some()
        }
    }

    /// Reads and restores the host's object bindings through glow's getters.
    #[derive(Clone, Debug, Default)]
    pub(crate) struct HostGl;

    // SAFETY (every function below): plain binding queries and binds on the current context;
    // the objects rebound are the ones read from it.
    impl HostGl {
        pub(crate) fn new(_gl: &glow::Context) -> Self {
            Self
        }

        /// Native contexts read every binding.
        pub(crate) fn reads_bindings(&self) -> bool {
            true
        }

        pub(crate) unsafe fn program(&self, gl: &glow::Context) -> Bound<glow::Program> {
            Bound(gl.get_parameter_program(glow::CURRENT_PROGRAM))
        }
        pub(crate) unsafe fn use_program(&self, gl: &glow::Context, p: &Bound<glow::Program>) {
            gl.use_program(p.0);
        }

        pub(crate) unsafe fn vertex_array(&self, gl: &glow::Context) -> Bound<glow::VertexArray> {
            Bound(gl.get_parameter_vertex_array(glow::VERTEX_ARRAY_BINDING))
        }
        pub(crate) unsafe fn bind_vertex_array(&self, gl: &glow::Context, v: &Bound<glow::VertexArray>) {
            gl.bind_vertex_array(v.0);
        }

        /// `pname`: `ARRAY_BUFFER_BINDING` or `PIXEL_UNPACK_BUFFER_BINDING`.
        pub(crate) unsafe fn buffer(&self, gl: &glow::Context, pname: u32) -> Bound<glow::Buffer> {
            Bound(gl.get_parameter_buffer(pname))
        }
        pub(crate) unsafe fn bind_buffer(&self, gl: &glow::Context, target: u32, b: &Bound<glow::Buffer>) {
            gl.bind_buffer(target, b.0);
        }

        /// The `TEXTURE_2D` binding of the active unit.
        pub(crate) unsafe fn texture_2d(&self, gl: &glow::Context) -> Bound<glow::Texture> {
            Bound(gl.get_parameter_texture(glow::TEXTURE_BINDING_2D))
        }
        /// Rebinds `TEXTURE_2D` on the active unit (the host's: never one the paint deleted).
        pub(crate) unsafe fn bind_texture_2d(&self, gl: &glow::Context, t: &Bound<glow::Texture>) {
            gl.bind_texture(glow::TEXTURE_2D, t.0);
        }

        /// The `TEXTURE_2D_ARRAY` binding of the active unit.
        pub(crate) unsafe fn texture_2d_array(&self, gl: &glow::Context) -> Bound<glow::Texture> {
            Bound(gl.get_parameter_texture(glow::TEXTURE_BINDING_2D_ARRAY))
        }
        /// Rebinds on the active unit; a texture in `deleted` (the paint deleted it) becomes 0,
        /// as GL itself unbinds a deleted texture.
        pub(crate) unsafe fn bind_texture_2d_array(
            &self,
            gl: &glow::Context,
            t: &Bound<glow::Texture>,
            deleted: &[glow::Texture],
        ) {
            gl.bind_texture(glow::TEXTURE_2D_ARRAY, t.0.filter(|t| !deleted.contains(t)));
        }

        /// The sampler object bound to the active unit.
        pub(crate) unsafe fn sampler(&self, gl: &glow::Context) -> Bound<glow::Sampler> {
            Bound(gl.get_parameter_sampler(glow::SAMPLER_BINDING))
        }
        pub(crate) unsafe fn bind_sampler(&self, gl: &glow::Context, unit: u32, s: &Bound<glow::Sampler>) {
            gl.bind_sampler(unit, s.0);
        }

        /// `pname`: `DRAW_FRAMEBUFFER_BINDING` or `READ_FRAMEBUFFER_BINDING`.
        pub(crate) unsafe fn framebuffer(&self, gl: &glow::Context, pname: u32) -> Bound<glow::Framebuffer> {
            Bound(gl.get_parameter_framebuffer(pname))
        }
        pub(crate) unsafe fn bind_framebuffer(&self, gl: &glow::Context, target: u32, f: &Bound<glow::Framebuffer>) {
            gl.bind_framebuffer(target, f.0);
        }
    }
}

#[cfg(all(target_family = "wasm", not(target_os = "emscripten")))]
mod web {
    use std::marker::PhantomData;

    use glow::HasContext;
    use wasm_bindgen::{JsCast, JsValue};
    use web_sys::{
        WebGl2RenderingContext, WebGlBuffer, WebGlFramebuffer, WebGlProgram, WebGlSampler, WebGlTexture,
        WebGlVertexArrayObject,
    };

    /// A binding of the host's as found: the JS object `getParameter` returned (`null` for
    /// none), whoever created it.
    #[derive(Debug)]
    pub(crate) struct Bound<T>(JsValue, PhantomData<T>);

    impl<T> Bound<T> {
        fn new(v: JsValue) -> Self {
            Self(v, PhantomData)
        }
        /// An object is bound.
        pub(crate) fn is_some(&self) -> bool {
            !self.0.is_null() && !self.0.is_undefined()
        }
        /// The object as its WebGL type, `None` for none.
        fn object<W: JsCast>(&self) -> Option<&W> {
            self.is_some().then(|| self.0.unchecked_ref::<W>())
        }
    }

    /// Reads and restores the host's object bindings through the raw WebGL2 context behind
    /// the host's `glow::Context`.
    #[derive(Clone, Debug)]
    pub(crate) struct HostGl {
        /// `None` when the context could not be found (see [`HostGl::new`]): bindings are then
        /// not read, and put back as "none".
        raw: Option<WebGl2RenderingContext>,
    }

    impl HostGl {
        /// Finds the `WebGL2RenderingContext` behind `gl`. glow 0.17 and 0.18 keep it private,
        /// so it is asked for through glow itself: for one call,
        /// `WebGL2RenderingContext.prototype.getUniformLocation` is replaced by
        /// `Object.prototype.valueOf` (which returns `this`), and glow's `get_uniform_location`
        /// on a throwaway program (linked from two one-line shaders) then returns the context
        /// object where a uniform location would be. The prototype is put back at once; the whole exchange is synchronous, so
        /// no other script can observe it. It needs no JS snippet, so it works with every
        /// wasm-bindgen target.
        ///
        /// If the context is not a WebGL2 context, or something (a debugging wrapper) defines
        /// its own `getUniformLocation` on the context object, nothing is found: the
        /// renderer then cannot read the host's object bindings and leaves none bound after a
        /// paint (logged once at `warn!`).
        pub(crate) fn new(gl: &glow::Context) -> Self {
            let raw = find_raw_context(gl);
            if raw.is_none() {
                log::warn!(
                    "layerbatch-gl: could not reach the WebGL2 context behind the glow context; the host's program, \
                     vertex array, buffer, texture, sampler and framebuffer bindings are not restored after a \
                     paint (they are left unbound)"
                );
            }
            Self { raw }
        }

        /// Whether the host's object bindings are read (the raw context was found).
        pub(crate) fn reads_bindings(&self) -> bool {
            self.raw.is_some()
        }

        fn read<T>(&self, pname: u32) -> Bound<T> {
            let value = match &self.raw {
                Some(raw) => raw.get_parameter(pname).unwrap_or(JsValue::NULL),
                None => JsValue::NULL,
            };
            Bound::new(value)
        }

        pub(crate) unsafe fn program(&self, _gl: &glow::Context) -> Bound<glow::Program> {
            self.read(glow::CURRENT_PROGRAM)
        }
        pub(crate) unsafe fn use_program(&self, gl: &glow::Context, p: &Bound<glow::Program>) {
            match &self.raw {
                Some(raw) => raw.use_program(p.object::<WebGlProgram>()),
                None => gl.use_program(None),
            }
        }

        pub(crate) unsafe fn vertex_array(&self, _gl: &glow::Context) -> Bound<glow::VertexArray> {
            self.read(glow::VERTEX_ARRAY_BINDING)
        }
        pub(crate) unsafe fn bind_vertex_array(&self, gl: &glow::Context, v: &Bound<glow::VertexArray>) {
            match &self.raw {
                Some(raw) => raw.bind_vertex_array(v.object::<WebGlVertexArrayObject>()),
                None => gl.bind_vertex_array(None),
            }
        }

        /// `pname`: `ARRAY_BUFFER_BINDING` or `PIXEL_UNPACK_BUFFER_BINDING`.
        pub(crate) unsafe fn buffer(&self, _gl: &glow::Context, pname: u32) -> Bound<glow::Buffer> {
            self.read(pname)
        }
        pub(crate) unsafe fn bind_buffer(&self, gl: &glow::Context, target: u32, b: &Bound<glow::Buffer>) {
            match &self.raw {
                Some(raw) => raw.bind_buffer(target, b.object::<WebGlBuffer>()),
                None => gl.bind_buffer(target, None),
            }
        }

        /// The `TEXTURE_2D` binding of the active unit.
        pub(crate) unsafe fn texture_2d(&self, _gl: &glow::Context) -> Bound<glow::Texture> {
            self.read(glow::TEXTURE_BINDING_2D)
        }
        /// Rebinds `TEXTURE_2D` on the active unit (the host's: never one the paint deleted).
        pub(crate) unsafe fn bind_texture_2d(&self, gl: &glow::Context, t: &Bound<glow::Texture>) {
            match &self.raw {
                Some(raw) => raw.bind_texture(glow::TEXTURE_2D, t.object::<WebGlTexture>()),
                None => gl.bind_texture(glow::TEXTURE_2D, None),
            }
        }

        /// The `TEXTURE_2D_ARRAY` binding of the active unit.
        pub(crate) unsafe fn texture_2d_array(&self, _gl: &glow::Context) -> Bound<glow::Texture> {
            self.read(glow::TEXTURE_BINDING_2D_ARRAY)
        }
        /// Rebinds on the active unit. A texture the paint deleted is not rebound (WebGL
        /// refuses deleted objects; `isTexture` is false for them): the unit gets none, as
        /// WebGL itself unbinds a deleted texture. `deleted` is glow's handles, not needed
        /// here.
        pub(crate) unsafe fn bind_texture_2d_array(
            &self,
            gl: &glow::Context,
            t: &Bound<glow::Texture>,
            _deleted: &[glow::Texture],
        ) {
            match &self.raw {
                Some(raw) => {
                    let texture = t.object::<WebGlTexture>().filter(|t| raw.is_texture(Some(t)));
                    raw.bind_texture(glow::TEXTURE_2D_ARRAY, texture);
                }
                None => gl.bind_texture(glow::TEXTURE_2D_ARRAY, None),
            }
        }

        /// The sampler object bound to the active unit.
        pub(crate) unsafe fn sampler(&self, _gl: &glow::Context) -> Bound<glow::Sampler> {
            self.read(glow::SAMPLER_BINDING)
        }
        pub(crate) unsafe fn bind_sampler(&self, gl: &glow::Context, unit: u32, s: &Bound<glow::Sampler>) {
            match &self.raw {
                Some(raw) => raw.bind_sampler(unit, s.object::<WebGlSampler>()),
                None => gl.bind_sampler(unit, None),
            }
        }

        /// `pname`: `DRAW_FRAMEBUFFER_BINDING` or `READ_FRAMEBUFFER_BINDING`.
        pub(crate) unsafe fn framebuffer(&self, _gl: &glow::Context, pname: u32) -> Bound<glow::Framebuffer> {
            self.read(pname)
        }
        pub(crate) unsafe fn bind_framebuffer(&self, gl: &glow::Context, target: u32, f: &Bound<glow::Framebuffer>) {
            match &self.raw {
                Some(raw) => raw.bind_framebuffer(target, f.object::<WebGlFramebuffer>()),
                None => gl.bind_framebuffer(target, None),
            }
        }
    }

    /// The throwaway program's shaders (WebGL2: GLSL ES 3.00).
    const PROBE_VS: &str = "#version 300 es\nvoid main() { gl_Position = vec4(0.0); }\n";
    const PROBE_FS: &str = "#version 300 es\nprecision mediump float;\nout vec4 o;\nvoid main() { o = vec4(0.0); }\n";

    /// The `WebGL2RenderingContext` behind `gl` (see [`HostGl::new`]), or `None`.
    fn find_raw_context(gl: &glow::Context) -> Option<WebGl2RenderingContext> {
        use js_sys::{Object, Reflect};

        let class = Reflect::get(&js_sys::global(), &JsValue::from_str("WebGL2RenderingContext")).ok()?;
        let proto = Reflect::get(&class, &JsValue::from_str("prototype")).ok()?;
        if !proto.is_object() {
            return None;
        }
        let name = JsValue::from_str("getUniformLocation");
        let proto_object: &Object = proto.unchecked_ref();
        let own = Object::has_own(proto_object, &name);
        let original = Reflect::get(&proto, &name).ok()?;
        let value_of = Reflect::get(&Object::new(), &JsValue::from_str("valueOf")).ok()?;
        // A linked program, so that the real method, should a wrapper on the context object
        // be called instead of the replaced one, answers without a GL error.
        let program = crate::program::compile_program(gl, PROBE_VS, PROBE_FS, None).ok()?;
        // SAFETY: a program made above and deleted here; only its handle is passed, and the
        // replaced method ignores it (it returns its receiver).
        let found = unsafe {
            let swapped = Reflect::set(&proto, &name, &value_of).unwrap_or(false);
            let found = if swapped { gl.get_uniform_location(program, "layerbatch_probe") } else { None };
            // Put the real method back before anything else can run.
            let restored = match (swapped, own) {
                (false, _) => true,
                (true, true) => Reflect::set(&proto, &name, &original).unwrap_or(false),
                (true, false) => Reflect::delete_property(proto_object, &name).unwrap_or(false),
            };
            if !restored {
                log::error!("layerbatch-gl: could not restore WebGL2RenderingContext.prototype.getUniformLocation");
            }
            gl.delete_program(program);
            found
        };
        let value: JsValue = found?.into();
        value.dyn_into::<WebGl2RenderingContext>().ok()
    }
}
