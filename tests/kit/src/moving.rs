//! A scene of moving sprites and its reference, shared by the native test (`tests/moving.rs`)
//! and the browser test (`examples/web`): sprites turned and scaled by their motions, drawn
//! by a moving layer, against the same quads pushed under each motion's transform, which must
//! draw the same pixels (tolerance 0): the vertex shader applies a motion in the form it
//! applies a draw's transform.

use layerbatch_core::{Affine2, Batcher, FramePlan, Motion, Quad, ResidentId, ResidentStyle};

/// A xorshift: the same motions on every machine.
#[derive(Clone, Debug)]
pub struct Rng(pub u64);

impl Rng {
    /// A number in `0..1`.
    pub fn unit(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % 1_000_000) as f32 / 1_000_000.0
    }
}

/// `n` motions anywhere in a target of `size`, turned anyhow, scaled 0.5 to 2.
pub fn motions(rng: &mut Rng, n: usize, size: [u32; 2]) -> Vec<Motion> {
    (0..n)
        .map(|_| {
            let p = [rng.unit() * size[0] as f32, rng.unit() * size[1] as f32];
            Motion::new(p, rng.unit() * std::f32::consts::TAU, 0.5 + rng.unit() * 1.5)
        })
        .collect()
}

/// The transform a motion applies, as a draw state's: `[a, b, c, d, tx, ty]`.
pub fn transform(m: &Motion) -> Affine2 {
    let [c, s] = m.rotation_scale;
    Affine2([c, s, -s, c, m.position[0], m.position[1]])
}

/// `quads` made around their sprites' pivots: each centred on `(0, 0)` at its own size.
pub fn centred(quads: &[Quad]) -> Vec<Quad> {
    quads
        .iter()
        .map(|q| {
            let [w, h] = [q.axis_x[0].hypot(q.axis_x[1]), q.axis_y[0].hypot(q.axis_y[1])];
            Quad { origin: [-w / 2.0, -h / 2.0], axis_x: [w, 0.0], axis_y: [0.0, h], ..*q }
        })
        .collect()
}

/// The reference frame: each sprite pushed under its motion's transform, between `around`'s
/// two runs of quads.
///
/// # Panics
/// If a quad is refused (a texture the batcher does not hold).
pub fn pushed(b: &mut Batcher, sprites: &[Quad], motions: &[Motion], around: (&[Quad], &[Quad])) -> FramePlan {
    pushed_under(b, sprites, motions, around, &|_| {})
}

/// [`pushed`] with `look` applied to the drawing state for the sprites (an effect, lit, a
/// colour offset), the state saved before and restored after; `look` may add the frame's lights.
///
/// # Panics
/// As [`pushed`].
pub fn pushed_under(
    b: &mut Batcher,
    sprites: &[Quad],
    motions: &[Motion],
    around: (&[Quad], &[Quad]),
    look: &dyn Fn(&mut Batcher),
) -> FramePlan {
    framed(b, around, look, |b| {
        for (q, m) in sprites.iter().zip(motions) {
            b.state().set_transform(transform(m));
            b.push(q).expect("a live texture");
        }
    })
}

/// The frame with moving layer `layer` drawn between `around`'s two runs of quads.
///
/// # Panics
/// If the layer or a quad is refused.
pub fn drawn(b: &mut Batcher, layer: ResidentId, around: (&[Quad], &[Quad])) -> FramePlan {
    drawn_under(b, layer, around, &|_| {})
}

/// [`drawn`] with `look` applied to the drawing state for the layer's draw, as in
/// [`pushed_under`].
///
/// # Panics
/// As [`drawn`].
pub fn drawn_under(
    b: &mut Batcher,
    layer: ResidentId,
    around: (&[Quad], &[Quad]),
    look: &dyn Fn(&mut Batcher),
) -> FramePlan {
    framed(b, around, look, |b| b.draw_resident(layer, &ResidentStyle::default()).expect("a live layer"))
}

/// A frame of `around.0`, then `middle` under `look` (the drawing state saved before and
/// restored after), then `around.1`.
fn framed(
    b: &mut Batcher,
    around: (&[Quad], &[Quad]),
    look: &dyn Fn(&mut Batcher),
    middle: impl FnOnce(&mut Batcher),
) -> FramePlan {
    b.begin_frame();
    b.push_all(around.0).expect("live textures");
    b.state().save();
    look(b);
    middle(b);
    b.state().restore();
    b.push_all(around.1).expect("live textures");
    b.finish().clone()
}
