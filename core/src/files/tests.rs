//! Files of each kind, headers written by hand from their specifications (Microsoft's
//! `DDS_HEADER` / `DDS_HEADER_DXT10`, ARM's astcenc file format): what is read, and every
//! refusal. Real files from real tools are in `tests/real_files.rs`.

use super::*;
#[cfg(feature = "dds")]
use crate::Alpha;
use crate::{AstcBlock, Batcher, Config, Limits};

fn astc_file(block: [u8; 3], size: [u32; 3], data_bytes: usize) -> Vec<u8> {
    let mut f = vec![0x13, 0xAB, 0xA1, 0x5C, block[0], block[1], block[2]];
    for v in size {
        f.extend_from_slice(&v.to_le_bytes()[..3]);
    }
    f.extend(std::iter::repeat_n(7u8, data_bytes));
    f
}

#[cfg(feature = "dds")]
/// A DDS file: `DDS `, a 124-byte header, a DX10 header when `dxgi` is given, then `data`.
fn dds_file(w: u32, h: u32, mips: u32, fourcc: &[u8; 4], dxgi: Option<(u32, u32, u32, u32)>, data: &[u8]) -> Vec<u8> {
    let mut f = b"DDS ".to_vec();
    let mut put = |v: u32| f.extend_from_slice(&v.to_le_bytes());
    put(124);
    put(0x1 | 0x2 | 0x4 | 0x1000 | 0x20000); // CAPS HEIGHT WIDTH PIXELFORMAT MIPMAPCOUNT
    put(h);
    put(w);
    put(0);
    put(0);
    put(mips);
    for _ in 0..11 {
        put(0);
    }
    put(32);
    put(0x4); // DDPF_FOURCC
    put(u32::from_le_bytes(*fourcc));
    for _ in 0..5 {
        put(0);
    }
    put(0x1000 | if mips > 1 { 0x400008 } else { 0 }); // TEXTURE (+ MIPMAP COMPLEX)
    for _ in 0..4 {
        put(0);
    }
    if let Some((format, dimension, misc, array)) = dxgi {
        put(format);
        put(dimension);
        put(misc);
        put(array);
        put(0);
    }
    f.extend_from_slice(data);
    f
}

fn like() -> TextureDesc {
    TextureDesc::new(1, 1)
}

#[test]
fn astc_files_of_every_block_size_read_as_their_format() {
    for block in AstcBlock::ALL {
        let [bw, bh] = block.size_px();
        let bytes = 16 * (13_u32.div_ceil(bw) * 11_u32.div_ceil(bh)) as usize;
        let file = astc_file([bw as u8, bh as u8, 1], [13, 11, 1], bytes);
        let t = read_file(&file, &like(), FileLimits::default()).unwrap();
        assert_eq!(t.desc.format, Format::Astc { block, srgb: false }, "{block:?}");
        assert_eq!((t.desc.width_px, t.desc.height_px, t.desc.mip_levels), (13, 11, 1));
        assert_eq!(t.layers, vec![vec![7u8; bytes]]);
        let srgb = TextureDesc { format: Format::Rgba8UnormSrgb, ..like() };
        assert!(read_astc(&file, &srgb, FileLimits::default()).unwrap().desc.format.is_srgb());
    }
}

#[test]
fn astc_refusals_name_what_is_wrong() {
    let limits = FileLimits::default();
    let err = |f: &[u8]| read_file(f, &like(), limits).unwrap_err();
    assert!(matches!(err(&astc_file([6, 6, 1], [7, 5, 1], 31)), FileError::Container { kind: FileKind::Astc, .. }));
    assert!(matches!(err(&astc_file([6, 6, 1], [7, 5, 1], 33)), FileError::Container { .. }));
    assert!(matches!(err(&astc_file([6, 6, 1], [7, 5, 1], 0)[..10]), FileError::Container { .. }));
    assert!(matches!(err(&astc_file([7, 7, 1], [7, 7, 1], 16)), FileError::Format { .. }));
    assert!(matches!(err(&astc_file([3, 3, 3], [3, 3, 3], 16)), FileError::Unsupported { .. }));
    assert!(matches!(err(&astc_file([4, 4, 1], [0, 4, 1], 0)), FileError::Container { .. }));
    // A 16-byte header declaring 16M x 16M texels: refused before anything is allocated.
    let e = err(&astc_file([4, 4, 1], [0xFF_FFFF, 0xFF_FFFF, 1], 0));
    assert!(matches!(e, FileError::TooLarge { width_px: 0xFF_FFFF, .. }), "{e}");
    assert!(e.to_string().contains("astc-4x4-unorm"), "{e}");
    let e = err(b"GIF89a....");
    assert_eq!(
        e.to_string(),
        "10 bytes are not a KTX2, ASTC or DDS file (they start [47, 49, 46, 38, 39, 61, 2e, 2e, 2e, 2e])"
    );
}

#[cfg(feature = "dds")]
#[test]
fn dds_dx10_arrays_with_mips_and_srgb_read_level_by_level() {
    // 8x8 BC7 sRGB, 4 levels (8, 4, 2, 1: 64 + 16 + 16 + 16 bytes a layer), 3 layers.
    let per_layer: Vec<u8> = (0..112u32).map(|i| i as u8).collect();
    let data: Vec<u8> = (0..3u8).flat_map(|l| per_layer.iter().map(move |b| b ^ l)).collect();
    let file = dds_file(8, 8, 4, b"DX10", Some((99, 3, 0, 3)), &data);
    let t = read_file(&file, &like(), FileLimits::default()).unwrap();
    assert_eq!(t.desc.format, Format::Bc7RgbaUnormSrgb);
    assert_eq!((t.desc.width_px, t.desc.height_px, t.desc.mip_levels, t.layers.len()), (8, 8, 4, 3));
    for (l, layer) in t.layers.iter().enumerate() {
        assert_eq!(layer, &data[l * 112..(l + 1) * 112], "layer {l}");
    }
    // One byte short: the last level of the last layer is past the end.
    let short = dds_file(8, 8, 4, b"DX10", Some((99, 3, 0, 3)), &data[..data.len() - 1]);
    let e = read_file(&short, &like(), FileLimits::default()).unwrap_err();
    assert!(matches!(e, FileError::Container { kind: FileKind::Dds, .. }), "{e}");
    assert!(e.to_string().contains("truncated"), "{e}");
}

#[cfg(feature = "dds")]
#[test]
fn dds_legacy_headers_and_refusals() {
    let t = read_file(&dds_file(4, 4, 1, b"DXT1", None, &[1; 8]), &like(), FileLimits::default()).unwrap();
    assert_eq!((t.desc.format, t.layers[0].len()), (Format::Bc1RgbaUnorm, 8));
    let t = read_file(&dds_file(4, 4, 1, b"DXT4", None, &[1; 16]), &like(), FileLimits::default()).unwrap();
    assert_eq!((t.desc.format, t.desc.alpha), (Format::Bc3RgbaUnorm, Alpha::Premultiplied));
    let t = read_file(&dds_file(4, 4, 1, b"ATI2", None, &[1; 16]), &like(), FileLimits::default()).unwrap();
    assert_eq!(t.desc.format, Format::Bc5RgUnorm);
    let err = |f: Vec<u8>, limits| read_file(&f, &like(), limits).unwrap_err();
    let t = read_file(&dds_file(4, 4, 1, b"DXT3", None, &[1; 16]), &like(), FileLimits::default()).unwrap();
    assert_eq!(t.desc.format, Format::Bc2RgbaUnorm);
    let t =
        read_file(&dds_file(4, 4, 1, b"DX10", Some((75, 3, 0, 1)), &[1; 16]), &like(), FileLimits::default()).unwrap();
    assert_eq!(t.desc.format, Format::Bc2RgbaUnormSrgb);
    let e = err(dds_file(4, 4, 1, b"DX10", Some((81, 3, 0, 1)), &[1; 8]), FileLimits::default());
    assert!(matches!(e, FileError::Format { kind: FileKind::Dds, .. }) && e.to_string().contains("signed"), "{e}");
    let e = err(dds_file(4, 4, 1, b"DX10", Some((95, 3, 0, 1)), &[1; 16]), FileLimits::default());
    assert!(e.to_string().contains("BC6H"), "{e}");
    let e = err(dds_file(4, 4, 1, b"DX10", Some((98, 3, 0x4, 1)), &[1; 96]), FileLimits::default());
    assert!(matches!(e, FileError::Unsupported { .. }), "{e}");
    // 1M layers of 16k x 16k declared in 148 bytes: refused before any allocation.
    let e = err(dds_file(16384, 16384, 1, b"DX10", Some((98, 3, 0, 1 << 20)), &[]), FileLimits::default());
    assert!(matches!(e, FileError::TooManyLayers { layers: 1_048_576, .. }), "{e}");
    // 2^32 - 1 layers (the fuzz target's first finding: they were listed before counted).
    let e = err(dds_file(4, 4, 1, b"DX10", Some((98, 3, 0, u32::MAX)), &[]), FileLimits::default());
    assert!(matches!(e, FileError::TooManyLayers { layers: u32::MAX, .. }), "{e}");
    let e = err(dds_file(16384, 16384, 1, b"DX10", Some((98, 3, 0, 4)), &[]), FileLimits::new(1 << 20, 256));
    assert!(matches!(e, FileError::TooLarge { kind: FileKind::Dds, layers: 4, .. }), "{e}");
    for cut in 0..148 {
        let f = dds_file(8, 8, 4, b"DX10", Some((99, 3, 0, 3)), &[]);
        assert!(read_file(&f[..cut], &like(), FileLimits::default()).is_err(), "{cut}");
    }
}

#[test]
fn register_file_decodes_or_names_the_format_a_device_lacks() {
    let mut b = Batcher::new(Limits::guaranteed_minimum(), Config::default()).unwrap();
    // ASTC on a device of RGBA8 only: the family and the device's families are named.
    let file = astc_file([8, 8, 1], [16, 16, 1], 64);
    match b.textures().register_file(&file, &like()) {
        #[cfg(feature = "decode")]
        Ok(ids) => assert_eq!(ids.len(), 1),
        #[cfg(not(feature = "decode"))]
        Err(e) => {
            assert!(matches!(e, FileError::Texture { kind: FileKind::Astc, layer: 0, .. }), "{e}");
            assert!(e.to_string().contains("astc-8x8-unorm"), "{e}");
        }
        #[allow(unreachable_patterns)]
        other => panic!("{other:?}"),
    }
}
