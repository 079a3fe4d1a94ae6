//! Where a plan's quads land in the host's target: the one mapping both backends use for the
//! viewport, the scissor and the origin of the quads' pixel space.

use super::{Clip, FramePlan};

/// Where a plan is drawn in the host's render target: the area its quads' pixel coordinates
/// map to, and the host's own clip.
///
/// Quads are in pixels, y down, `(0, 0)` at the top-left corner of [`Viewport::rect_px`]. The
/// rectangle may reach outside the target (an egui panel scrolled partly off-screen): the part
/// outside is not drawn, and the visible quads stay exactly where they would be on a larger
/// target. Both backends draw through the same methods: [`Viewport::visible_px`] is the
/// device viewport, [`Viewport::transform`] moves the quads' origin into it, and
/// [`Viewport::scissor`] clips a draw state's clip to what is visible and to the host's clip.
///
/// `[u32; 2]` converts into a viewport covering the whole target, the usual case.
///
/// ```
/// use layerbatch_core::{Clip, Viewport};
/// // A 200x100 panel whose left 50 pixels lie off-screen, on an 800x600 target, inside a
/// // host clip.
/// let v = Viewport::rect([800, 600], [-50, 20, 200, 100]).with_host_clip(Some([0, 0, 800, 100]));
/// assert_eq!(v.visible_px(), Some([0, 20, 150, 100]));
/// // Quad x = 50 is target x = 0: the quads keep their place.
/// assert_eq!(v.transform([1.0, 0.0, 0.0, 1.0, 0.0, 0.0]), [1.0, 0.0, 0.0, 1.0, -50.0, 0.0]);
/// // A clip in the quads' pixels becomes a scissor in the target's, inside both clips.
/// assert_eq!(v.scissor(Some([40, 0, 100, 100])), Clip::Rect([0, 20, 90, 80]));
/// assert_eq!(v.scissor(None), Clip::Rect([0, 20, 150, 80]));
/// assert_eq!(Viewport::from([800, 600]).scissor(None), Clip::Full);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Viewport {
    /// Size of the host's target (framebuffer, or the pass's attachment), pixels.
    pub target_size_px: [u32; 2],
    /// `[x, y, width, height]` in the target's pixels, y down: the quads' `(0, 0)` is at
    /// `(x, y)`. May reach outside the target. Default: the whole target.
    pub rect_px: [i32; 4],
    /// The host's clip (scissor) in the target's pixels, y down: nothing is drawn outside it,
    /// and a backend that sets a scissor of its own sets this one back afterwards. Default
    /// `None`: no host clip.
    pub host_clip_px: Option<[u32; 4]>,
}

impl Viewport {
    /// The whole target of `target_size_px`: quad `(0, 0)` is its top-left corner.
    pub const fn full(target_size_px: [u32; 2]) -> Self {
        let [w, h] = target_size_px;
        Self { target_size_px, rect_px: [0, 0, clamp_i32(w), clamp_i32(h)], host_clip_px: None }
    }

    /// The area `rect_px` (`[x, y, width, height]`, y down, may reach outside) of a target of
    /// `target_size_px`: quad `(0, 0)` is at `(x, y)`.
    pub const fn rect(target_size_px: [u32; 2], rect_px: [i32; 4]) -> Self {
        Self { target_size_px, rect_px, host_clip_px: None }
    }

    /// Sets [`Viewport::host_clip_px`].
    #[must_use]
    pub const fn with_host_clip(mut self, host_clip_px: Option<[u32; 4]>) -> Self {
        self.host_clip_px = host_clip_px;
        self
    }

    /// Whether [`Viewport::rect_px`] is the whole target (the quads' origin is the target's):
    /// a backend then leaves the device viewport as the host set it.
    pub fn is_full(&self) -> bool {
        self.rect_px == Self::full(self.target_size_px).rect_px
    }

    /// The part of [`Viewport::rect_px`] inside the target, `[x, y, width, height]` in the
    /// target's pixels: the device viewport. `None` when nothing of it is visible (then
    /// nothing is drawn).
    pub fn visible_px(&self) -> Option<[u32; 4]> {
        let [x, y, w, h] = self.rect_px.map(i64::from);
        let [tw, th] = self.target_size_px.map(i64::from);
        let (x0, y0) = (x.clamp(0, tw), y.clamp(0, th));
        let (x1, y1) = ((x + w.max(0)).clamp(0, tw), (y + h.max(0)).clamp(0, th));
        if x1 <= x0 || y1 <= y0 {
            return None;
        }
        Some([x0 as u32, y0 as u32, (x1 - x0) as u32, (y1 - y0) as u32])
    }

    /// `transform` (a draw state's, see [`super::DrawState::transform`]) followed by the move
    /// of the quads' origin into the visible viewport: what a backend's vertex stage applies
    /// before mapping pixels of a viewport of [`Viewport::visible_px`]'s size to clip space.
    pub fn transform(&self, transform: [f32; 6]) -> [f32; 6] {
        let [vx, vy] = match self.visible_px() {
            Some([vx, vy, _, _]) => [i64::from(vx), i64::from(vy)],
            None => [0, 0],
        };
        let dx = (i64::from(self.rect_px[0]) - vx) as f32;
        let dy = (i64::from(self.rect_px[1]) - vy) as f32;
        let [a, b, c, d, tx, ty] = transform;
        [a, b, c, d, tx + dx, ty + dy]
    }

    /// The scissor for a draw state's clip (`clip_px`, in the quads' pixels): the clip moved
    /// into the target, within the visible viewport and the host's clip. [`Clip::Full`] when
    /// there is neither a clip nor a host clip, whatever the rectangle: the viewport (its
    /// visible part, [`Viewport::visible_px`]) bounds the quads by itself, and a scissor
    /// would replace one the host set without telling us (egui's, around a callback).
    /// [`Clip::Empty`] when nothing is left (the segment draws nothing). Overflow-free for any
    /// input.
    ///
    /// ```
    /// use layerbatch_core::plan::Clip;
    /// use layerbatch_core::Viewport;
    /// // A rectangle partly above the target, no clips: no scissor.
    /// let v = Viewport::rect([800, 600], [10, -50, 200, 100]);
    /// assert_eq!(v.scissor(None), Clip::Full);
    /// assert_eq!(v.scissor(Some([0, 0, 20, 80])), Clip::Rect([10, 0, 20, 30]));
    /// ```
    pub fn scissor(&self, clip_px: Option<[u32; 4]>) -> Clip {
        let Some(visible) = self.visible_px() else { return Clip::Empty };
        if clip_px.is_none() && self.host_clip_px.is_none() {
            return Clip::Full;
        }
        let mut r = to_i64(visible);
        if let Some(host) = self.host_clip_px {
            r = intersect(r, to_i64(host));
        }
        if let Some(clip) = clip_px {
            let [x, y, w, h] = to_i64(clip);
            r = intersect(r, [x + i64::from(self.rect_px[0]), y + i64::from(self.rect_px[1]), w, h]);
        }
        let [x, y, w, h] = r;
        if w <= 0 || h <= 0 {
            return Clip::Empty;
        }
        Clip::Rect([x as u32, y as u32, w as u32, h as u32])
    }

    /// The scissor a backend that set its own leaves behind: the host's clip within the
    /// target, or the whole target.
    pub fn restored_scissor_px(&self) -> [u32; 4] {
        let [tw, th] = self.target_size_px;
        let full = [0, 0, i64::from(tw), i64::from(th)];
        let [x, y, w, h] = match self.host_clip_px {
            Some(host) => intersect(full, to_i64(host)),
            None => full,
        };
        [x as u32, y as u32, w.max(0) as u32, h.max(0) as u32]
    }
}

impl From<[u32; 2]> for Viewport {
    fn from(target_size_px: [u32; 2]) -> Self {
        Self::full(target_size_px)
    }
}

impl FramePlan {
    /// Where this plan draws, given where the host asked it drawn: the whole of its
    /// [`FramePlan::target`] texture when it has one (the host's viewport does not apply),
    /// else `host`.
    pub fn viewport(&self, host: Viewport) -> Viewport {
        match self.target {
            Some(t) => Viewport::full(t.size_px),
            None => host,
        }
    }
}

/// `transform` followed by a flip of the y axis within a viewport `height_px` tall
/// (`y -> height_px - y`): for backends whose framebuffer rows go up (GL) when they draw into a
/// texture, so that texel row 0 is the top row there too ([`super::PlanTarget`]).
///
/// ```
/// let t = layerbatch_core::plan::flip_y([1.0, 0.0, 0.0, 1.0, 5.0, 0.0], 64.0);
/// // (x, y) -> (x + 5, 64 - y)
/// assert_eq!(t, [1.0, 0.0, 0.0, -1.0, 5.0, 64.0]);
/// ```
pub fn flip_y(transform: [f32; 6], height_px: f32) -> [f32; 6] {
    let [a, b, c, d, tx, ty] = transform;
    [a, -b, c, -d, tx, height_px - ty]
}

const fn clamp_i32(v: u32) -> i32 {
    if v > i32::MAX as u32 {
        i32::MAX
    } else {
        v as i32
    }
}

fn to_i64(r: [u32; 4]) -> [i64; 4] {
    r.map(i64::from)
}

fn intersect(a: [i64; 4], b: [i64; 4]) -> [i64; 4] {
    let (x0, y0) = (a[0].max(b[0]), a[1].max(b[1]));
    let (x1, y1) = ((a[0] + a[2]).min(b[0] + b[2]), (a[1] + a[3]).min(b[1] + b[3]));
    [x0, y0, x1 - x0, y1 - y0]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_viewport_matches_clip_within() {
        use crate::plan::DrawState;
        for clip in [None, Some([0, 0, 10, 10]), Some([90, 40, 20, 20]), Some([100, 0, 5, 5]), Some([u32::MAX; 4])] {
            let state = DrawState { clip_px: clip, ..DrawState::default() };
            assert_eq!(Viewport::full([100, 50]).scissor(clip), state.clip_within([100, 50]), "{clip:?}");
        }
    }

    #[test]
    fn off_target_rects_and_extremes() {
        // Entirely off the target: nothing visible, nothing drawn.
        let off = Viewport::rect([100, 100], [-300, 0, 200, 50]);
        assert_eq!(off.visible_px(), None);
        assert_eq!(off.scissor(None), Clip::Empty);
        // Extreme values neither overflow nor panic.
        let huge = Viewport::rect([u32::MAX, u32::MAX], [i32::MIN, i32::MAX, i32::MAX, i32::MAX]);
        assert_eq!(huge.visible_px(), None);
        let v = Viewport::rect([100, 100], [i32::MIN, i32::MIN, i32::MAX, i32::MAX]);
        assert_eq!(v.visible_px(), None);
        assert_eq!(Viewport::rect([100, 100], [10, 10, -5, 5]).visible_px(), None);
        let big = Viewport::rect([100, 100], [-10, -10, i32::MAX, i32::MAX]);
        assert_eq!(big.visible_px(), Some([0, 0, 100, 100]));
        assert_eq!(big.transform(crate::plan::DrawState::IDENTITY)[4..], [-10.0, -10.0]);
        assert_eq!(big.scissor(Some([u32::MAX; 4])), Clip::Empty);
        assert_eq!(big.scissor(Some([5, 5, 10, 10])), Clip::Rect([0, 0, 5, 5]));
        // A host clip outside the visible part leaves nothing; restoring gives it back.
        let clipped = Viewport::rect([100, 100], [50, 50, 50, 50]).with_host_clip(Some([0, 0, 40, 40]));
        assert_eq!(clipped.scissor(None), Clip::Empty);
        assert_eq!(clipped.restored_scissor_px(), [0, 0, 40, 40]);
        assert_eq!(Viewport::full([30, 20]).restored_scissor_px(), [0, 0, 30, 20]);
        let wide = Viewport::full([30, 20]).with_host_clip(Some([20, 10, u32::MAX, u32::MAX]));
        assert_eq!(wide.restored_scissor_px(), [20, 10, 10, 10]);
    }

    #[test]
    fn flip_is_an_involution() {
        let t = [0.5, 0.25, -0.25, 0.5, 3.0, 7.0];
        assert_eq!(flip_y(flip_y(t, 32.0), 32.0), t);
    }
}
