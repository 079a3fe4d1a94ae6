//! The CPU reference of every [`BlendMode`], for pixel tests: what a backend must write when
//! a premultiplied source colour lands on a premultiplied destination. Written out from each
//! mode's documented formula, not from [`BlendMode::factors`], so a wrong factor in core
//! shows as a wrong pixel.

use layerbatch_core::BlendMode;

/// `src` blended onto `dst` (RGBA8, premultiplied) by `mode`, in floats, rounded to RGBA8.
pub fn blend(mode: BlendMode, src: [u8; 4], dst: [u8; 4]) -> [u8; 4] {
    let f = |v: u8| f32::from(v) / 255.0;
    let (s, d) = (src.map(f), dst.map(f));
    let px: [f32; 4] = std::array::from_fn(|i| match mode {
        BlendMode::Over => s[i] + d[i] * (1.0 - s[3]),
        // Light adds colour, not coverage: the target's alpha stays.
        BlendMode::Additive if i < 3 => s[i] + d[i],
        BlendMode::Additive => d[3],
        BlendMode::Multiply if i < 3 => s[i] * d[i] + d[i] * (1.0 - s[3]),
        BlendMode::Screen if i < 3 => s[i] + d[i] * (1.0 - s[i]),
        // Multiply and screen blend alpha as "over" does.
        BlendMode::Multiply | BlendMode::Screen => s[3] + d[3] * (1.0 - s[3]),
        // Opaque, and whatever mode comes next until it is written here: the source.
        _ => s[i],
    });
    px.map(|v| (v.clamp(0.0, 1.0) * 255.0).round() as u8)
}

/// Premultiplied "over": `src + dst * (1 - src.a)`.
pub fn over(src: [u8; 4], dst: [u8; 4]) -> [u8; 4] {
    blend(BlendMode::Over, src, dst)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_mode_on_half_transparent_orange_over_green() {
        let (src, dst) = ([128, 64, 0, 128], [100, 200, 50, 255]);
        assert_eq!(blend(BlendMode::Over, src, dst), [178, 164, 25, 255]);
        assert_eq!(blend(BlendMode::Additive, src, dst), [228, 255, 50, 255]);
        assert_eq!(blend(BlendMode::Multiply, src, dst), [100, 150, 25, 255]);
        assert_eq!(blend(BlendMode::Screen, src, dst), [178, 214, 50, 255]);
        assert_eq!(blend(BlendMode::Opaque, src, dst), src);
        assert_eq!(over(src, dst), blend(BlendMode::Over, src, dst));
    }

    #[test]
    fn opaque_source_over_anything_is_the_source() {
        assert_eq!(over([10, 20, 30, 255], [200, 100, 0, 255]), [10, 20, 30, 255]);
        assert_eq!(over([0, 0, 0, 0], [200, 100, 0, 255]), [200, 100, 0, 255]);
    }
}
