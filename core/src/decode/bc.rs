//! BC1, BC2, BC3, BC4, BC5 and BC7 blocks through bcdec_rs (a safe pure-Rust port of iOrange's
//! bcdec, fuzzed against the C original). bcdec follows the formats as Direct3D and the Khronos
//! Data Format Specification define them, and computes BC1-BC5 palettes exactly: the formulas'
//! values (RGB565 endpoints as `r / 31`, `g / 63`, `b / 31`; "(2*RGB0+RGB1)/3";
//! "(6*alpha0 + 1*alpha1)/7") rounded to nearest, as a float written to an 8-bit target:
//!
//! - BC1: four colours when `color0 > color1` (two interpolated at 1/3 and 2/3), else three
//!   (one at 1/2) and index 3 transparent black.
//! - BC3: the colour block always decodes four-colour, "as though color0 > color1" (the S3TC
//!   spec), whatever the order of the endpoints; the alpha block as BC4 (below).
//! - BC4, BC5 (unsigned): the endpoints and six values between them when `red0 > red1`, else
//!   the endpoints, four between, 0 and 255.
//! - BC7: modes 0 to 7 as the mode bit says; a block with no mode bit in its first byte (the
//!   reserved mode 8) decodes to transparent black (0, 0, 0, 0).
//!
//! Each decoder writes into a fixed-size array, 4x4 texels, so no input can make it index out
//! of bounds.

use super::Texels;

/// RGBA8 texels of a 4x4 block as bcdec writes them (16 bytes a row) into `out`.
fn rgba(px: &[u8; 64], out: &mut Texels) {
    for (o, p) in out.iter_mut().zip(px.chunks_exact(4)) {
        for (o, p) in o.iter_mut().zip(p) {
            *o = *p;
        }
    }
}

/// A BC1 block (8 bytes).
pub(super) fn bc1(block: &[u8; 8], out: &mut Texels) {
    let mut px = [0u8; 64];
    bcdec_rs::bc1(block, &mut px, 16);
    rgba(&px, out);
}

/// A BC2 block (16 bytes: sixteen 4-bit alphas, `a * 17`, then a BC1 colour block decoded as
/// four colours always, as BC3's).
pub(super) fn bc2(block: &[u8; 16], out: &mut Texels) {
    let mut px = [0u8; 64];
    bcdec_rs::bc2(block, &mut px, 16);
    rgba(&px, out);
}

/// A BC3 block (16 bytes: an alpha block, then a BC1 colour block decoded as four colours
/// always). The alpha block is BC4's format, and is decoded by bcdec's BC4 decoder: it rounds
/// the interpolated values to nearest, as the formula `(6 alpha0 + alpha1) / 7` evaluated and
/// written to an 8-bit target gives, where bcdec's BC3 path computes `(6 alpha0 + alpha1 + 1)
/// / 7` (up to 1 below).
pub(super) fn bc3(block: &[u8; 16], out: &mut Texels) {
    let mut px = [0u8; 64];
    bcdec_rs::bc3(block, &mut px, 16);
    rgba(&px, out);
    let mut alpha = [0u8; 16];
    bcdec_rs::bc4(&super::bytes::<8>(block), &mut alpha, 4, false);
    for (t, a) in out.iter_mut().zip(alpha) {
        t[3] = a;
    }
}

/// A BC4 block (8 bytes, unsigned red) as `(r, 0, 0, 255)`.
pub(super) fn bc4(block: &[u8; 8], out: &mut Texels) {
    let mut r = [0u8; 16];
    bcdec_rs::bc4(block, &mut r, 4, false);
    for (o, r) in out.iter_mut().zip(r) {
        *o = [r, 0, 0, 255];
    }
}

/// A BC5 block (16 bytes: red, then green, unsigned) as `(r, g, 0, 255)`.
pub(super) fn bc5(block: &[u8; 16], out: &mut Texels) {
    let mut rg = [0u8; 32];
    bcdec_rs::bc5(block, &mut rg, 8, false);
    for (o, rg) in out.iter_mut().zip(rg.chunks_exact(2)) {
        if let &[r, g] = rg {
            *o = [r, g, 0, 255];
        }
    }
}

/// A BC7 block (16 bytes).
pub(super) fn bc7(block: &[u8; 16], out: &mut Texels) {
    let mut px = [0u8; 64];
    bcdec_rs::bc7(block, &mut px, 16);
    rgba(&px, out);
}
