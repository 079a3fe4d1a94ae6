//! The drawing state saved and restored, as a 2D canvas's: the draw state (blend, clip,
//! transform), the look (effect, its parameters, lit) and the sort key, on a stack that
//! empties when a frame begins or ends.

use super::Batcher;

impl Batcher {
    /// Saves the drawing state quads get now: the draw state ([`Batcher::draw_state`]: blend,
    /// clip, transform), the effect and its parameters ([`Batcher::effect`]), being lit
    /// ([`Batcher::lit`]) and the sort key ([`Batcher::sort_key`]), on a stack.
    /// [`Batcher::restore_state`] puts the last saved back. The stack is the frame's:
    /// it empties when a frame begins (which resets the state) and when it ends. Frame-wide values (ambient light,
    /// time, lights) are not drawing state and are not saved.
    ///
    /// ```
    /// # use layerbatch_core::{Batcher, BlendMode, Config, Limits, Quad, SortKey, TextureDesc};
    /// let mut batcher = Batcher::new(Limits::guaranteed_minimum(), Config::default())?;
    /// let tex = batcher.register(&TextureDesc::new(4, 4), &[255; 64])?;
    /// batcher.begin_frame();
    /// batcher.save_state();
    /// batcher.set_blend(BlendMode::Multiply);
    /// batcher.set_sort_key(SortKey::z(2));
    /// batcher.push(&Quad::rect(tex, [0.0, 0.0], [4.0, 4.0]))?;
    /// assert!(batcher.restore_state());
    /// assert_eq!((batcher.draw_state().blend, batcher.sort_key()), (BlendMode::Over, SortKey::default()));
    /// assert!(!batcher.restore_state()); // nothing saved: nothing changes
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn save_state(&mut self) {
        self.recorder.save();
    }

    /// Puts back the drawing state of the last [`Batcher::save_state`] of this frame, as if
    /// each part had been set again (a changed draw state ends the segment at the next quad;
    /// the effect, lit and the sort key ride on each quad and cost no draw). Returns `false`,
    /// changing nothing, when nothing is saved.
    pub fn restore_state(&mut self) -> bool {
        let Some(key) = self.recorder.restore() else { return false };
        if key != self.sort_key() {
            self.set_sort_key(key);
        }
        true
    }
}
