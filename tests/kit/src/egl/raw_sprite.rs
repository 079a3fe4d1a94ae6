//! The fill-rate bench's hand-written GL sprite programs ([`crate::fill`]): what any 2D
//! batcher's sprite shader does per pixel, and layerbatch's former tier-1 fragment work.

use layerbatch_gl::glow::{self, HasContext};

use crate::fill::{texels, K};

/// The cases drawn by a hand-written program.
pub const RAW_CASES: [&str; 2] = [RAW[0].0, RAW[1].0];

const BASE_VS: &str = r"#version 330 core
layout(location = 0) in vec4 a_rect;   // x, y, w, h in pixels
layout(location = 1) in vec4 a_color;
uniform vec2 u_viewport_px;
uniform sampler2DArray u_tex;
out vec2 v_uv;
flat out vec4 v_color;
flat out vec4 v_bounds;
void main() {
    vec2 st = vec2(float(gl_VertexID % 2), float(gl_VertexID / 2));
    vec2 pos = a_rect.xy + st * a_rect.zw;
    gl_Position = vec4(pos.x / u_viewport_px.x * 2.0 - 1.0, 1.0 - pos.y / u_viewport_px.y * 2.0, 0.0, 1.0);
    vec2 inv = 1.0 / vec2(textureSize(u_tex, 0).xy);
    v_uv = SCALE;
    v_bounds = vec4(0.5, 0.5, 63.5, 63.5) * BSCALE;
    v_color = a_color;
}
";

/// The hand-written programs: `(name, uv expression, bounds scale, fragment body)`.
const RAW: [(&str, &str, &str, &str); 2] = [
    // What any 2D batcher's sprite shader does per pixel.
    ("baseline", "st", "1.0", "o_color = texture(u_tex, vec3(v_uv, 0.0)) * v_color;"),
    // layerbatch's tier-1 fragment work before the vertex stage divided by the layer size:
    // texel coordinates, the size asked and divided by per pixel.
    (
        "previous_tier1",
        "st * 64.0",
        "1.0",
        "vec2 ddx = dFdx(v_uv); vec2 ddy = dFdy(v_uv); vec2 p = clamp(v_uv, v_bounds.xy, v_bounds.zw); \
         vec2 i = 1.0 / vec2(textureSize(u_tex, 0).xy); \
         o_color = textureGrad(u_tex, vec3(p * i, 0.0), ddx * i, ddy * i) * v_color;",
    ),
];

const BASE_FS: &str = r"#version 330 core
uniform sampler2DArray u_tex;
in vec2 v_uv;
flat in vec4 v_color;
flat in vec4 v_bounds;
layout(location = 0) out vec4 o_color;
void main() {
    BODY
}
";

/// A hand-written sprite program and its objects.
#[derive(Debug)]
pub struct Raw {
    program: glow::Program,
    vao: glow::VertexArray,
    _vbo: glow::Buffer,
    texture: glow::Texture,
}

impl Raw {
    /// The program of case `name` of [`RAW_CASES`] for a `size` target (`K` quads covering
    /// it), or `None` for another name.
    pub fn new(gl: &glow::Context, size: [u32; 2], name: &str) -> Option<Self> {
        let &variant = RAW.iter().find(|r| r.0 == name)?;
        let vs = BASE_VS.replace("BSCALE", variant.2).replace("SCALE", variant.1);
        let fs = BASE_FS.replace("BODY", variant.3);
        // SAFETY: object creation and uploads on the current context, from valid data.
        unsafe {
            let program = gl.create_program().unwrap();
            for (kind, src) in [(glow::VERTEX_SHADER, vs.as_str()), (glow::FRAGMENT_SHADER, fs.as_str())] {
                let s = gl.create_shader(kind).unwrap();
                gl.shader_source(s, src);
                gl.compile_shader(s);
                assert!(gl.get_shader_compile_status(s), "{}", gl.get_shader_info_log(s));
                gl.attach_shader(program, s);
            }
            gl.link_program(program);
            assert!(gl.get_program_link_status(program), "{}", gl.get_program_info_log(program));
            let texture = gl.create_texture().unwrap();
            gl.bind_texture(glow::TEXTURE_2D_ARRAY, Some(texture));
            gl.tex_storage_3d(glow::TEXTURE_2D_ARRAY, 1, glow::RGBA8, 64, 64, 2);
            let px = texels(64);
            gl.tex_sub_image_3d(
                glow::TEXTURE_2D_ARRAY,
                0,
                0,
                0,
                0,
                64,
                64,
                1,
                glow::RGBA,
                glow::UNSIGNED_BYTE,
                glow::PixelUnpackData::Slice(Some(&px)),
            );
            for (p, v) in [
                (glow::TEXTURE_MIN_FILTER, glow::LINEAR),
                (glow::TEXTURE_MAG_FILTER, glow::LINEAR),
                (glow::TEXTURE_WRAP_S, glow::CLAMP_TO_EDGE),
                (glow::TEXTURE_WRAP_T, glow::CLAMP_TO_EDGE),
            ] {
                gl.tex_parameter_i32(glow::TEXTURE_2D_ARRAY, p, v as i32);
            }
            let vao = gl.create_vertex_array().unwrap();
            gl.bind_vertex_array(Some(vao));
            let vbo = gl.create_buffer().unwrap();
            gl.bind_buffer(glow::ARRAY_BUFFER, Some(vbo));
            let mut data: Vec<f32> = Vec::new();
            for _ in 0..K {
                data.extend_from_slice(&[0.0, 0.0, size[0] as f32, size[1] as f32]);
                data.extend_from_slice(&[0.5, 0.5, 0.5, 0.5]);
            }
            let bytes: Vec<u8> = data.iter().flat_map(|v| v.to_ne_bytes()).collect();
            gl.buffer_data_u8_slice(glow::ARRAY_BUFFER, &bytes, glow::STATIC_DRAW);
            for (loc, offset) in [(0, 0), (1, 16)] {
                gl.enable_vertex_attrib_array(loc);
                gl.vertex_attrib_pointer_f32(loc, 4, glow::FLOAT, false, 32, offset);
                gl.vertex_attrib_divisor(loc, 1);
            }
            gl.use_program(Some(program));
            let vp = gl.get_uniform_location(program, "u_viewport_px");
            gl.uniform_2_f32(vp.as_ref(), size[0] as f32, size[1] as f32);
            Some(Self { program, vao, _vbo: vbo, texture })
        }
    }

    /// Draws its `K` quads into the bound framebuffer.
    pub fn draw(&self, gl: &glow::Context) {
        // SAFETY: our own objects on the current context.
        unsafe {
            gl.use_program(Some(self.program));
            gl.bind_vertex_array(Some(self.vao));
            gl.active_texture(glow::TEXTURE0);
            gl.bind_texture(glow::TEXTURE_2D_ARRAY, Some(self.texture));
            gl.enable(glow::BLEND);
            gl.blend_func(glow::ONE, glow::ONE_MINUS_SRC_ALPHA);
            gl.draw_arrays_instanced(glow::TRIANGLE_STRIP, 0, 4, K as i32);
            gl.disable(glow::BLEND);
        }
    }
}
