//! Drawing a plan's segments: bind the target, set the fixed state, then per segment its
//! blend and clip, its block of instances, its slots, its program's uniforms and attributes,
//! and the draw.
#![allow(unsafe_code)]

use glow::HasContext;

use layerbatch_core::execute::{DrawStep, DrawSteps};
use layerbatch_core::plan::{flip_y, AttributeFormat, BlendFactor, DrawState, Instance, SlotBind};
use layerbatch_core::shader::{lights_uniform, GlobalsEntry, MotionDraw};
use layerbatch_core::{BlendMode, Clip, Format, FramePlan, PlanError, Viewport};

use super::Renderer;
use crate::error::Error;
use crate::program;
use crate::state::Saved;
use crate::target::Target;

impl Renderer {
    /// Draws the plan's `steps` (core's draw walk of it in `vp`: the plan's viewport, whose
    /// host clip is the host's scissor box when that is kept) into `vp`, or into the plan's
    /// render target, cleared first when the plan asks.
    pub(super) fn draw(
        &mut self,
        plan: &FramePlan,
        steps: &DrawSteps,
        target: &Target,
        vp: &Viewport,
        saved: &mut Saved,
        ramp_drawn: bool,
    ) -> Result<(), Error> {
        let Some(visible) = vp.visible_px() else { return Ok(()) };
        let srgb_target = self.bind_target(plan, target, saved)?;
        if ramp_drawn {
            self.arrays.ramp.bind(&self.gl)?;
        }
        self.set_fixed_state(plan, vp, visible, srgb_target.is_some());
        let viewport = [visible[2] as f32, visible[3] as f32];
        let result = self.draw_steps(plan, steps, vp, viewport, saved);
        if srgb_target == Some(false) {
            // SAFETY: puts back the capability as found, on errors too.
            unsafe { self.gl.disable(glow::FRAMEBUFFER_SRGB) };
        }
        result
    }

    /// Binds the draw framebuffer: the plan's render target's (made on first use), or the
    /// host's that `target` names (else the bound one stays), limited to its first draw
    /// buffer. Returns, for an sRGB render target on desktop GL, whether `FRAMEBUFFER_SRGB`
    /// was on.
    fn bind_target(&mut self, plan: &FramePlan, target: &Target, saved: &mut Saved) -> Result<Option<bool>, Error> {
        let gl = &*self.gl;
        match plan.target {
            Some(t) => {
                let fbo = self.arrays.target_framebuffer(t.array, t.layer)?;
                // SAFETY: our own complete framebuffer; the host's binding was saved.
                unsafe { gl.bind_framebuffer(glow::DRAW_FRAMEBUFFER, Some(fbo)) };
                let srgb = self.arrays.get(t.array).is_some_and(|(_, d)| d.format == Format::Rgba8UnormSrgb);
                // Desktop GL encodes into an sRGB attachment only with FRAMEBUFFER_SRGB (GLES
                // and wgpu always do): on for the paint, as it was after.
                // SAFETY: a capability query on the current context.
                Ok((srgb && !self.caps.gles).then(|| unsafe { gl.is_enabled(glow::FRAMEBUFFER_SRGB) }))
            }
            None => {
                if let Some(fb) = target.framebuffer {
                    // SAFETY: the host's framebuffer, named by the target; its binding was saved.
                    unsafe { gl.bind_framebuffer(glow::DRAW_FRAMEBUFFER, Some(fb)) };
                }
                saved.limit_draw_buffers(gl, &self.state_caps);
                Ok(None)
            }
        }
    }

    /// Sets what every segment draws with: the viewport (`visible`, y flipped into the host's
    /// framebuffer), `FRAMEBUFFER_SRGB` for an sRGB target (`srgb`), the target's clear, the
    /// renderer's vertex array and buffer, and premultiplied-alpha blending of draw buffer 0
    /// (the only one drawn: texels and tints are premultiplied).
    fn set_fixed_state(&self, plan: &FramePlan, vp: &Viewport, [vx, vy, vw, vh]: [u32; 4], srgb: bool) {
        let gl = &*self.gl;
        // GL's window rows go up. Into the host's framebuffer the viewport is flipped; into a
        // texture the quads are (`flip_y`), so that texel row 0 is the top row, as uploads.
        let target_h = vp.target_size_px[1];
        let gl_y =
            if plan.target.is_some() { i64::from(vy) } else { i64::from(target_h) - i64::from(vy) - i64::from(vh) };
        let to_i32 = |v: i64| v.clamp(0, i64::from(i32::MAX)) as i32;
        // SAFETY: binds our own VAO and buffer and sets fixed-function state that `Saved`
        // captured (the clear colour too, when a target is cleared).
        unsafe {
            if srgb {
                gl.enable(glow::FRAMEBUFFER_SRGB);
            }
            gl.viewport(to_i32(i64::from(vx)), to_i32(gl_y), to_i32(i64::from(vw)), to_i32(i64::from(vh)));
            if let Some([r, g, b, a]) = plan.target.and_then(|t| t.clear_rgba) {
                // Scissor is off (`Saved` disabled it) and every channel writable.
                gl.clear_color(r, g, b, a);
                gl.clear(glow::COLOR_BUFFER_BIT);
            }
            gl.bind_vertex_array(Some(self.vao));
            gl.bind_buffer(glow::ARRAY_BUFFER, Some(self.vbo));
        }
        let fixed = self.state_caps;
        fixed.set_blend_enabled(gl, true);
        fixed.set_blend_func(gl, gl_blend_factors(BlendMode::Over));
        fixed.set_blend_equation(gl, glow::FUNC_ADD, glow::FUNC_ADD);
    }

    /// Executes core's draw `steps` in order, with the state [`Renderer::set_fixed_state`]
    /// set up, into a viewport `viewport` pixels wide and tall. Each step is one GL change;
    /// uniforms, per program object, are set at a draw where the program's differ.
    fn draw_steps(
        &mut self,
        plan: &FramePlan,
        steps: &DrawSteps,
        vp: &Viewport,
        viewport: [f32; 2],
        saved: &Saved,
    ) -> Result<(), Error> {
        let flip = plan.target.is_some();
        let target_h = vp.target_size_px[1];
        let indexed = plan.drawn_indexed(self.indexed_quads);
        // Where the draws' attributes start in the bound buffer: a resident's base, in bytes.
        let mut base_bytes = 0u64;
        // A host clip origin of UPPER_LEFT flips y inside the viewport: flip the quads back.
        let flip_quads = flip != saved.clip_upper_left();
        let mut program = None;
        let mut transform = DrawState::IDENTITY;
        let mut tint = DrawState::WHITE;
        let mut look = (0, [0; 4]);
        // A moving layer's base while its buffer is in use (its motion texture bound).
        let mut moving_base = None;
        // The layer size of each slot, as bound: the vertex stage divides by it.
        let mut sizes = [[1u32; 2]; layerbatch_core::MAX_SLOTS_PER_DRAW as usize];
        for step in steps.steps() {
            match *step {
                DrawStep::Block { block } => {
                    self.upload_block(plan, block, indexed);
                    base_bytes = 0;
                    moving_base = None;
                }
                // The block uploaded last is still the buffer's store.
                DrawStep::BlockAgain { .. } => {
                    // SAFETY: our buffer; ARRAY_BUFFER's binding was saved.
                    unsafe { self.gl.bind_buffer(glow::ARRAY_BUFFER, Some(self.vbo)) };
                    base_bytes = 0;
                    moving_base = None;
                }
                DrawStep::Resident { resident, base } => {
                    let buffer = self.arrays.residents.get(resident).ok_or(Error::Plan(PlanError::BadResident {
                        at: 0,
                        resident,
                        reason: "drawn while the renderer holds no buffer for it",
                    }))?;
                    // SAFETY: our live buffer; ARRAY_BUFFER's binding was saved.
                    unsafe { self.gl.bind_buffer(glow::ARRAY_BUFFER, Some(buffer)) };
                    base_bytes = u64::from(base) * u64::from(Instance::quad_bytes(self.indexed_quads));
                    moving_base = self.arrays.motions.bind(&self.gl, resident).then_some(base);
                }
                DrawStep::Bind { segment, bind } => {
                    self.bind_slot(segment as usize, bind)?;
                    // Bound, so live, and its slot below the budget's.
                    sizes[bind.slot as usize] = self.arrays.size_px(bind.array).unwrap_or([1, 1]);
                }
                DrawStep::Program { segment, tier, effects } => {
                    let pi = self.programs.iter().position(|p| p.tier == tier && p.effects == effects);
                    // A program per budget tier, and the validator accepted only budget tiers.
                    let pi = pi.ok_or(Error::Plan(PlanError::UnknownTier { segment: segment as usize, tier }))?;
                    // SAFETY: the program linked at creation.
                    unsafe { self.gl.use_program(Some(self.programs[pi].program)) };
                    program = Some(pi);
                }
                // The host's blend functions were saved.
                DrawStep::Blend(mode) => self.state_caps.set_blend_func(&self.gl, gl_blend_factors(mode)),
                DrawStep::State { transform: t, tint: c, look: l, .. } => {
                    transform = if flip_quads { flip_y(t, viewport[1]) } else { t };
                    tint = c;
                    look = l;
                }
                DrawStep::Scissor(clip) => self.set_clip(clip, target_h, flip),
                // `Saved` puts the host's scissor back after the paint.
                DrawStep::RestoreScissor => {}
                DrawStep::Draw { segment, first, first_in_block, count, indexed } => {
                    // The walk sets a program before the first draw.
                    let tier = plan.segments.get(segment as usize).map_or(0, |s| s.tier);
                    let pi = program.ok_or(Error::Plan(PlanError::UnknownTier { segment: segment as usize, tier }))?;
                    let globals = GlobalsEntry::new(viewport.map(|v| v as u32), transform, tint, plan.time_s);
                    self.set_globals(pi, globals.with_look(look.0, look.1));
                    // GL counts a draw's instances (and, indexed, its vertices) from 0: the
                    // attributes start at the draw's first quad.
                    let motion = match moving_base {
                        Some(base) => MotionDraw::moving(base + first_in_block, indexed),
                        None => MotionDraw::STILL,
                    };
                    let prog = &mut self.programs[pi];
                    let bytes = bytemuck::cast_slice(&motion.0);
                    program::write_uniforms(&self.gl, &prog.motion, &mut prog.motion_written, bytes);
                    let floats = slot_size_floats(&sizes);
                    let bytes = bytemuck::cast_slice(&floats[..4 * prog.tier.div_ceil(2) as usize]);
                    program::write_uniforms(&self.gl, &prog.slot_sizes, &mut prog.slot_sizes_written, bytes);
                    self.set_lights(pi, plan, vp, flip_quads.then_some(viewport[1]));
                    self.set_divisors(indexed);
                    // No base vertex on GLES 3.0: the attributes start at the segment's first
                    // quad, and its indices at 0. The segment lies in the block just uploaded
                    // (the validator checked it crosses no multiple of the instance capacity),
                    // or in a resident's buffer from its base on.
                    let offset = base_bytes + u64::from(first_in_block) * u64::from(Instance::quad_bytes(indexed));
                    self.set_attributes(offset)?;
                    self.issue_draw(count, indexed);
                    self.drawn_tiers.push(self.programs[pi].tier);
                    // A glGetError per draw stalls some drivers: debug builds only.
                    #[cfg(debug_assertions)]
                    crate::error::check_gl(&self.gl, || {
                        let tier = self.programs[pi].tier;
                        format!("draw segment {segment} (tier {tier}, instances {first}..{})", first + count)
                    })?;
                    #[cfg(not(debug_assertions))]
                    let _ = first;
                }
            }
        }
        Ok(())
    }

    /// Sets our vertex array's attribute divisors for an `indexed` plan (per vertex) or an
    /// instanced one (per instance), where they differ from what it has. The vertex array is
    /// bound ([`Renderer::set_fixed_state`]).
    fn set_divisors(&mut self, indexed: bool) {
        if self.vao_indexed == indexed {
            return;
        }
        for a in &Instance::ATTRIBUTES {
            // SAFETY: our vertex array is bound; every location was enabled at creation.
            unsafe { self.gl.vertex_attrib_divisor(a.location, u32::from(!indexed)) };
        }
        self.vao_indexed = indexed;
    }

    /// Uploads block `block` of the plan's instances into the vertex buffer (bound by
    /// [`Renderer::set_fixed_state`]): four vertex records a primitive when `indexed`. Core
    /// writes them ([`FramePlan::write_block`]) straight into the buffer's new store, mapped
    /// (`glMapBufferRange` with `MAP_INVALIDATE_BUFFER_BIT`, after `glBufferData` orphaned the
    /// previous block's store still in flight): one pass over the bytes, no scratch. WebGL2
    /// maps nothing: there, and if a mapping fails, they go through a scratch buffer kept
    /// frame to frame and `glBufferData`. Core's walk counts the bytes.
    /// `GL_ARRAY_BUFFER`'s binding is ours during the paint (saved and restored), and no
    /// mapping outlives this call.
    fn upload_block(&mut self, plan: &FramePlan, block: u32, indexed: bool) {
        let bytes = plan.block_bytes(block, indexed);
        // A resident's buffer may be bound.
        // SAFETY: our buffer; ARRAY_BUFFER's binding was saved.
        unsafe { self.gl.bind_buffer(glow::ARRAY_BUFFER, Some(self.vbo)) };
        #[cfg(not(target_arch = "wasm32"))]
        if self.upload_mapped(plan, block, indexed, bytes) {
            return;
        }
        self.vertex_bytes.clear();
        self.vertex_bytes.resize(bytes, 0);
        plan.write_block(block, indexed, &mut self.vertex_bytes);
        // SAFETY: our buffer is bound to ARRAY_BUFFER; the slice is valid for its length.
        // Re-specifying the store orphans the previous block's data still in flight.
        unsafe { self.gl.buffer_data_u8_slice(glow::ARRAY_BUFFER, &self.vertex_bytes, glow::STREAM_DRAW) };
    }

    /// Writes the block into a new store of the bound vertex buffer through a mapping; false
    /// when GL gave no mapping (the caller uploads it another way).
    #[cfg(not(target_arch = "wasm32"))]
    fn upload_mapped(&mut self, plan: &FramePlan, block: u32, indexed: bool, bytes: usize) -> bool {
        let Ok(len) = i32::try_from(bytes) else { return false };
        let gl = &self.gl;
        let access = glow::MAP_WRITE_BIT | glow::MAP_INVALIDATE_BUFFER_BIT;
        // SAFETY: our buffer is bound to ARRAY_BUFFER; `glBufferData` gives it a new store of
        // `len` bytes (orphaning the old one), which is mapped for writing whole; the mapping
        // is written within its `bytes` and unmapped before any draw reads the buffer.
        unsafe {
            gl.buffer_data_size(glow::ARRAY_BUFFER, len, glow::STREAM_DRAW);
            let ptr = gl.map_buffer_range(glow::ARRAY_BUFFER, 0, len, access);
            if ptr.is_null() {
                return false;
            }
            let mapped = std::slice::from_raw_parts_mut(ptr, bytes);
            plan.write_block(block, indexed, mapped);
            // glow does not return glUnmapBuffer's GL_FALSE (contents lost to a display mode
            // change, on some desktop drivers): such a frame draws what the store holds.
            gl.unmap_buffer(glow::ARRAY_BUFFER);
        }
        true
    }

    /// Writes the `Globals` of a draw (the viewport, whole pixels here already; the state's
    /// transform, tint and look; the frame's time: core's [`GlobalsEntry`], the bytes wgpu's
    /// uniform holds) into program `pi`, in use, where they differ from what it last had
    /// (uniforms belong to the program object).
    fn set_globals(&mut self, pi: usize, entry: GlobalsEntry) {
        let prog = &mut self.programs[pi];
        program::write_uniforms(&self.gl, &prog.globals, &mut prog.globals_written, bytemuck::bytes_of(&entry));
    }

    /// Writes the plan's ambient colour and lights into program `pi`, in use, when it is lit
    /// and they differ from what it last had. `flip_h`: quads are drawn flipped in y within
    /// this height ([`flip_y`]), and so are the lights' positions, which keeps every distance
    /// and angle.
    fn set_lights(&mut self, pi: usize, plan: &FramePlan, vp: &Viewport, flip_h: Option<f32>) {
        let prog = &mut self.programs[pi];
        if prog.lights.is_empty() {
            return;
        }
        // Lights move into the visible viewport with the quads.
        let [.., dx, dy] = vp.transform(DrawState::IDENTITY);
        lights_uniform(&mut self.lights_bytes, plan, self.max_lights, [dx, dy]);
        if let Some(height) = flip_h {
            // Each light is two vec4 after the head: (x, y, height, radius), (colour).
            for light in self.lights_bytes[16..].chunks_exact_mut(32) {
                let y: &mut [f32] = bytemuck::cast_slice_mut(&mut light[4..8]);
                y[0] = height - y[0];
            }
        }
        program::write_uniforms(&self.gl, &prog.lights, &mut prog.lights_written, &self.lights_bytes);
    }

    /// Points every attribute of [`Instance::ATTRIBUTES`] into the bound vertex buffer, from
    /// byte `base` on, stride [`Instance::BYTES`].
    fn set_attributes(&self, base: u64) -> Result<(), Error> {
        let stride = Instance::BYTES as i32;
        let past = || Error::gl(format!("point attributes at byte {base}"), glow::INVALID_VALUE);
        for a in &Instance::ATTRIBUTES {
            let (size, ty, normalized) = gl_attribute(a.format);
            let offset = i32::try_from(base + u64::from(a.offset)).map_err(|_| past())?;
            // SAFETY: our vertex array and buffer are bound; every location was enabled at
            // creation; the offsets stay inside the block just uploaded (the caller's `base`
            // is a quad of it, and the row lies in an instance).
            unsafe {
                if a.format.is_integer() {
                    self.gl.vertex_attrib_pointer_i32(a.location, size, ty, stride, offset);
                } else {
                    self.gl.vertex_attrib_pointer_f32(a.location, size, ty, normalized, stride, offset);
                }
            }
        }
        Ok(())
    }

    /// Draws `quads` primitives from the attributes just set: one indexed draw of their
    /// triangles, or one instanced strip.
    fn issue_draw(&self, quads: u32, indexed: bool) {
        // SAFETY: the program, vertex array, attributes and slots are set; the element buffer
        // (indexed) holds the indices of `instance_capacity` quads, and a segment has at most
        // that many.
        unsafe {
            if indexed {
                let indices = quads * Instance::INDICES;
                self.gl.draw_elements(glow::TRIANGLES, indices as i32, glow::UNSIGNED_INT, 0);
            } else {
                self.gl.draw_arrays_instanced(glow::TRIANGLE_STRIP, 0, 4, quads as i32);
            }
        }
    }

    /// Sets the scissor for a clip (from [`Viewport::scissor`]: in the target's pixels, y
    /// down, within the host's clip; [`Clip::Full`]: none). `flip`: drawing into a texture,
    /// whose rows are y down already.
    fn set_clip(&self, clip: Clip, target_h: u32, flip: bool) {
        let gl = &self.gl;
        // SAFETY: scissor state on the current context; the host's box and `SCISSOR_TEST`
        // were saved (`Needs::scissor` is set whenever a plan state has a clip, and the host's
        // clip is kept only with its box saved).
        unsafe {
            match clip {
                Clip::Rect(rect) => {
                    let [x, y, w, h] = gl_scissor(rect, target_h, flip);
                    gl.scissor(x, y, w, h);
                    gl.enable(glow::SCISSOR_TEST);
                }
                // The walk skips empty clips.
                Clip::Full | Clip::Empty => gl.disable(glow::SCISSOR_TEST),
            }
        }
    }

    /// Binds `bind.array` on unit `bind.slot` for segment `segment`: one `glBindTexture`.
    fn bind_slot(&mut self, segment: usize, bind: SlotBind) -> Result<(), Error> {
        let SlotBind { slot, array } = bind;
        // The validator keeps every slot below its segment's tier, a budget tier.
        if slot >= self.slots {
            return Err(Error::Plan(PlanError::SlotOutOfRange { segment, slot }));
        }
        // The validator accepted the plan against what the arrays hold: a miss would be a
        // renderer bug, reported as the validator's error rather than a panic.
        let texture = self.arrays.texture(array).ok_or(Error::Plan(PlanError::UnknownArray { at: segment, array }))?;
        // SAFETY: a live texture of ours bound on a unit below the budget's slots (below
        // MAX_TEXTURE_IMAGE_UNITS, checked at creation); the unit's binding was saved.
        unsafe {
            self.gl.active_texture(glow::TEXTURE0 + slot);
            self.gl.bind_texture(glow::TEXTURE_2D_ARRAY, Some(texture));
        }
        if self.lights {
            // The sibling, or the array itself where it has none: then no quad of it has
            // FLAG_NORMAL_MAP (the validator), so nothing samples it as normals, and the unit
            // still holds a texture of the sampler's type.
            let normals = self.arrays.texture(array.normal_map()).unwrap_or(texture);
            // SAFETY: as above, on unit `slots + slot` (below 2 x slots, checked at creation).
            unsafe {
                self.gl.active_texture(glow::TEXTURE0 + self.slots + slot);
                self.gl.bind_texture(glow::TEXTURE_2D_ARRAY, Some(normals));
            }
        }
        Ok(())
    }
}

/// The slot-sizes uniform of every slot ([`layerbatch_core::shader::slot_sizes`]'s layout:
/// two slots a vec4), without allocating.
fn slot_size_floats(sizes: &[[u32; 2]; layerbatch_core::MAX_SLOTS_PER_DRAW as usize]) -> [f32; 64] {
    let mut floats = [1.0f32; 64];
    for (i, [w, h]) in sizes.iter().enumerate() {
        floats[2 * i] = *w as f32;
        floats[2 * i + 1] = *h as f32;
    }
    floats
}

/// GL's `(size, type, normalized)` for `glVertexAttrib(I)Pointer` of an attribute format.
fn gl_attribute(format: AttributeFormat) -> (i32, u32, bool) {
    match format {
        AttributeFormat::Float32x2 => (2, glow::FLOAT, false),
        AttributeFormat::Float32x4 => (4, glow::FLOAT, false),
        AttributeFormat::Unorm8x4 => (4, glow::UNSIGNED_BYTE, true),
        AttributeFormat::Uint32 => (1, glow::UNSIGNED_INT, false),
        // Through glVertexAttribIPointer: the shader reads a uvec4.
        AttributeFormat::Uint16x4 => (4, glow::UNSIGNED_SHORT, false),
    }
}

/// GL's names of a blend mode's factors: `[src rgb, dst rgb, src alpha, dst alpha]`.
fn gl_blend_factors(mode: BlendMode) -> [u32; 4] {
    mode.factors().map(|f| match f {
        BlendFactor::Zero => glow::ZERO,
        BlendFactor::One => glow::ONE,
        BlendFactor::DstColor => glow::DST_COLOR,
        BlendFactor::OneMinusSrcColor => glow::ONE_MINUS_SRC_COLOR,
        BlendFactor::OneMinusSrcAlpha => glow::ONE_MINUS_SRC_ALPHA,
    })
}

/// The GL scissor box (window coordinates, y up) of a clip rectangle inside a target
/// `target_h` tall ([`Viewport::scissor`]: y down). Into a texture (`flip`) rows are y down
/// already.
fn gl_scissor(rect: [u32; 4], target_h: u32, flip: bool) -> [i32; 4] {
    let [x, y, w, h] = rect.map(i64::from);
    let gl_y = if flip { y } else { i64::from(target_h) - y - h };
    [x, gl_y, w, h].map(|v| v.clamp(0, i64::from(i32::MAX)) as i32)
}

/// The host's scissor box (GL window coordinates, y up) as a rectangle of a target `target_h`
/// tall, y down, cut to the target's top and left edges.
pub(super) fn y_down(b: [i32; 4], target_h: u32) -> [u32; 4] {
    let [x, y, w, h] = b.map(i64::from);
    let top = i64::from(target_h) - y - h.max(0);
    let (x0, y0) = (x.max(0), top.max(0));
    let (x1, y1) = (x + w.max(0), top + h.max(0));
    [x0, y0, (x1 - x0).max(0), (y1 - y0).max(0)].map(|v| v.min(i64::from(u32::MAX)) as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    // Every row of the attribute table is pointed at with as many components, and as many
    // bytes, as core's format says; integers (only) through glVertexAttribIPointer's types.
    #[test]
    fn attribute_formats_match_the_table() {
        for a in Instance::ATTRIBUTES {
            let (size, ty, normalized) = gl_attribute(a.format);
            assert_eq!(size as u32, a.format.components(), "{}", a.name);
            let component_bytes = match ty {
                glow::UNSIGNED_BYTE => 1,
                glow::UNSIGNED_SHORT => 2,
                _ => 4,
            };
            assert_eq!(size as u32 * component_bytes, a.format.bytes(), "{}", a.name);
            assert_eq!(matches!(ty, glow::UNSIGNED_INT | glow::UNSIGNED_SHORT), a.format.is_integer(), "{}", a.name);
            assert_eq!(normalized, a.format == AttributeFormat::Unorm8x4, "{}", a.name);
        }
    }
}
