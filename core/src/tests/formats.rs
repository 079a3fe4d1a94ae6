//! Formats the device lacks, and compressed textures' blocks in the allocator.

use crate::plan::*;
use crate::*;

#[cfg(not(feature = "decode"))]
#[test]
fn a_family_the_device_lacks_is_refused_naming_what_it_has() {
    let mut b = Batcher::new(Limits::guaranteed_minimum(), Config::default()).unwrap();
    let d = TextureDesc::new(16, 16).with_format(Format::Bc7RgbaUnorm);
    let e = b.textures().register(&d, &[0; 256]).unwrap_err();
    assert_eq!(
        e,
        TextureError::FormatUnsupported {
            format: Format::Bc7RgbaUnorm,
            family: FormatFamily::Bc,
            available: FormatFamilies::RGBA8
        }
    );
    assert_eq!(e.to_string(), "format bc7-rgba-unorm needs the Bc family, which the device lacks (it has: RGBA8)");
    assert_eq!((b.allocator().array_count(), b.textures().memory_by_format().len()), (0, 0));
}

#[test]
fn a_plan_with_a_format_the_budget_lacks_is_refused_by_the_validator() {
    let with_bc = Limits::guaranteed_minimum().with_format_families(FormatFamilies::RGBA8.with(FormatFamily::Bc));
    let mut b = Batcher::new(with_bc, Config::default()).unwrap();
    let d = TextureDesc::new(16, 16).with_format(Format::Bc1RgbaUnorm);
    b.textures().register(&d, &[0; 128]).unwrap();
    b.begin_frame();
    let plan = b.finish().clone();
    // An executor whose device has no BC refuses the plan before touching anything.
    let plain = Batcher::new(Limits::guaranteed_minimum(), Config::default()).unwrap();
    let mut dev = MockDevice::new(plain.budget());
    let e = dev.execute(&plan).unwrap_err();
    assert!(e.to_string().contains("format"), "{e}");
    // Compressed copies on a device without them are refused too, and core plans none.
    let no_copies = with_bc.with_compressed_copies(false);
    let mut b = Batcher::new(no_copies, Config::default()).unwrap();
    let mut dev = MockDevice::new(b.budget());
    let d = TextureDesc::new(64, 64).with_format(Format::Bc1RgbaUnorm);
    for i in 0..40 {
        b.textures().register(&d, &vec![i; d.byte_len()]).unwrap();
        b.begin_frame();
        let plan = b.finish();
        assert!(!plan.ops.iter().any(|op| matches!(op, ResourceOp::Array(a) if a.is_gpu_copy())), "plan {i}");
        dev.execute(plan).unwrap();
    }
}
