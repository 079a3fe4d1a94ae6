//! Sort keys: where an item goes in a sorted frame (z, then y, then submission order), and the
//! stable radix sort `finish` orders a frame's items with.

/// Where a quad (or a mesh, a glyph run, a nine-slice, a shape, a resident layer's draw) goes
/// in a sorted frame: by `z` (lower first, drawn under), then `y` (lower first: in a top-down
/// scene a sprite whose feet are lower on screen is drawn over those behind it), then in the
/// order the items were submitted. Set with [`DrawingState::set_sort_key`](crate::DrawingState::set_sort_key).
///
/// Keys order as `(z, y)` with `y` in IEEE total order: `-0.0` before `0.0`, and a NaN `y`
/// after `+∞` (positive NaN) or before `-∞` (negative NaN), deterministically.
/// [`SortKey::default`] is `z` 0, `y` 0.0.
///
/// ```
/// use layerbatch_core::SortKey;
/// assert!(SortKey::z(-1) < SortKey::zy(0, -1e9));
/// assert!(SortKey::zy(0, 10.0) < SortKey::zy(0, 10.5));
/// assert!(SortKey::zy(0, 1e9) < SortKey::z(1));
/// assert_eq!(SortKey::zy(3, -2.5).z_value(), 3);
/// assert_eq!(SortKey::zy(3, -2.5).y_value(), -2.5);
/// assert_eq!(SortKey::default(), SortKey::zy(0, 0.0));
/// ```
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SortKey(u64);

impl SortKey {
    /// A key of layer `z` alone (its `y` is 0.0).
    pub const fn z(z: i16) -> Self {
        Self::from_parts(z, 0.0f32.to_bits())
    }

    /// A key of layer `z` and depth `y` within it.
    pub const fn zy(z: i16, y: f32) -> Self {
        Self::from_parts(z, y.to_bits())
    }

    /// The y-sort key of `quad` for a top-down scene: layer `z`, and the lowest point of the
    /// quad on screen (its largest corner y, before the batcher's transform), so that a
    /// sprite standing further down is drawn over one behind it whatever their sizes.
    ///
    /// ```
    /// use layerbatch_core::{Batcher, Config, Limits, Quad, SortKey, TextureDesc};
    /// # let mut batcher = Batcher::new(Limits::guaranteed_minimum(), Config::default())?;
    /// let tex = batcher.textures().register(&TextureDesc::new(16, 16), &[255; 16 * 16 * 4])?;
    /// let tall = Quad::rect(tex, [0.0, 0.0], [16.0, 48.0]); // feet at y 48
    /// let short = Quad::rect(tex, [8.0, 30.0], [16.0, 16.0]); // feet at y 46
    /// assert!(SortKey::by_feet(0, &short) < SortKey::by_feet(0, &tall));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn by_feet(z: i16, quad: &crate::Quad) -> Self {
        let [oy, ay, by] = [quad.origin[1], quad.axis_x[1], quad.axis_y[1]];
        Self::zy(z, oy + ay.max(0.0) + by.max(0.0))
    }

    const fn from_parts(z: i16, y_bits: u32) -> Self {
        // Biased z, then y's bits flipped into an order-preserving unsigned (total order).
        let z = (z as u16 ^ 0x8000) as u64;
        let y = if y_bits & 0x8000_0000 != 0 { !y_bits } else { y_bits | 0x8000_0000 };
        Self((z << 32) | y as u64)
    }

    /// The key's layer.
    pub const fn z_value(self) -> i16 {
        ((self.0 >> 32) as u16 ^ 0x8000) as i16
    }

    /// The key's depth within its layer.
    pub const fn y_value(self) -> f32 {
        let y = self.0 as u32;
        f32::from_bits(if y & 0x8000_0000 != 0 { y & 0x7FFF_FFFF } else { !y })
    }

    /// The key as one ordered integer (48 bits used).
    pub const fn bits(self) -> u64 {
        self.0
    }
}

impl Default for SortKey {
    fn default() -> Self {
        Self::z(0)
    }
}

impl std::fmt::Debug for SortKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SortKey").field("z", &self.z_value()).field("y", &self.y_value()).finish()
    }
}

/// Bits of the packed item a radix pass orders by (2,048 buckets: a pass's counts fit in L1).
const DIGIT_BITS: u32 = 11;
/// Passes that cover any 64-bit item.
const MAX_PASSES: usize = 64usize.div_ceil(DIGIT_BITS as usize);

/// The stable order of `keys`: `order[j]` is the index of the `j`-th smallest key, equal keys
/// in index order.
///
/// Only the bits on which keys differ matter: they are shifted down and packed above the
/// item's index into one `u64` (a y-sort of 100,000 quads: 31 key bits over 17 index bits),
/// so items are distinct, their order is the stable order, and a least-significant-digit
/// radix sort moves 8 bytes an item, one pass per 11-bit digit that differs between items
/// (one counting pass makes every histogram). Keys too wide to pack beside their indices
/// (z and y both spread to their lowest bits, in a frame of millions) fall back to an
/// unstable sort of `(key, index)` pairs, which are distinct too. `scratch` is reused.
pub(crate) fn stable_order(keys: &[u64], order: &mut Vec<u32>, scratch: &mut SortScratch) {
    let n = keys.len();
    order.clear();
    let (all, any) = keys.iter().fold((u64::MAX, 0), |(all, any), &k| (all & k, any | k));
    let varying = all ^ any;
    if n < 2 || varying == 0 {
        order.extend(0..n as u32);
        return;
    }
    let low = varying.trailing_zeros();
    let span = 64 - varying.leading_zeros() - low;
    let index_bits = u64::BITS - (n.max(2) as u64 - 1).leading_zeros();
    if span + index_bits > 64 {
        let pairs = &mut scratch.pairs;
        pairs.clear();
        pairs.extend(keys.iter().enumerate().map(|(i, &k)| (k, i as u32)));
        pairs.sort_unstable();
        order.extend(pairs.iter().map(|&(_, i)| i));
        return;
    }
    let key_mask = u64::MAX >> (64 - span);
    let (items, back) = (&mut scratch.items, &mut scratch.back);
    items.clear();
    items.extend(keys.iter().enumerate().map(|(i, &k)| (((k >> low) & key_mask) << index_bits) | i as u64));
    let passes = (span as usize).div_ceil(DIGIT_BITS as usize);
    let shift = |d: usize| index_bits + d as u32 * DIGIT_BITS;
    let mut counts = [[0u32; 1 << DIGIT_BITS]; MAX_PASSES];
    for &item in items.iter() {
        for (d, c) in counts.iter_mut().enumerate().take(passes) {
            c[((item >> shift(d)) & ((1 << DIGIT_BITS) - 1)) as usize] += 1;
        }
    }
    back.clear();
    back.resize(n, 0);
    for (d, c) in counts.iter().enumerate().take(passes) {
        // A digit every item shares moves nothing.
        if c.iter().any(|&m| m as usize == n) {
            continue;
        }
        let mut at = [0u32; 1 << DIGIT_BITS];
        let mut sum = 0;
        for (a, &m) in at.iter_mut().zip(c) {
            *a = sum;
            sum += m;
        }
        for &item in items.iter() {
            let digit = ((item >> shift(d)) & ((1 << DIGIT_BITS) - 1)) as usize;
            back[at[digit] as usize] = item;
            at[digit] += 1;
        }
        std::mem::swap(items, back);
    }
    let index_mask = u64::MAX >> (64 - index_bits);
    order.extend(items.iter().map(|&item| (item & index_mask) as u32));
}

/// The reusable buffers of [`stable_order`].
#[derive(Debug, Default)]
pub(crate) struct SortScratch {
    items: Vec<u64>,
    back: Vec<u64>,
    pairs: Vec<(u64, u32)>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::Rng;

    #[test]
    fn keys_order_as_z_then_y_in_total_order() {
        let ys = [f32::NEG_INFINITY, -1e30, -1.0, -0.0, 0.0, 1e-40, 1.0, 1e30, f32::INFINITY];
        let zs = [i16::MIN, -1, 0, 1, i16::MAX];
        let mut want = Vec::new();
        for &z in &zs {
            for &y in &ys {
                want.push(SortKey::zy(z, y));
            }
        }
        let mut got = want.clone();
        got.reverse();
        got.sort();
        assert_eq!(got, want);
        for k in &want {
            assert_eq!(SortKey::zy(k.z_value(), k.y_value()), *k);
        }
        assert!(SortKey::zy(0, f32::NAN) > SortKey::zy(0, f32::INFINITY));
        assert!(SortKey::zy(0, -f32::NAN) < SortKey::zy(0, f32::NEG_INFINITY));
        assert!(SortKey::zy(0, f32::NAN) < SortKey::z(1));
    }

    #[test]
    fn the_radix_order_is_std_stable_sort() {
        let mut rng = Rng(7 + 1);
        let (mut order, mut scratch) = (Vec::new(), SortScratch::default());
        for n in [0, 1, 2, 3, 255, 256, 1000, 20_000] {
            // Up to 64 bits spread from the top and from the bottom: packed beside the index
            // and, for the widest, the fallback.
            for spread in [1u64, 4, 300, 1 << 40, u64::MAX >> 16, u64::MAX] {
                let keys: Vec<u64> = (0..n).map(|_| rng.next() % spread.max(1)).collect();
                let shifted: Vec<u64> = keys.iter().map(|k| k << 13).collect();
                for keys in [&keys, &shifted] {
                    stable_order(keys, &mut order, &mut scratch);
                    let mut want: Vec<u32> = (0..n as u32).collect();
                    want.sort_by_key(|&i| keys[i as usize]);
                    assert_eq!(order, want, "n {n}, spread {spread}");
                }
            }
        }
    }
}
