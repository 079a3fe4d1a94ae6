//! Basis Universal in the browser: an ETC1S and a UASTC KTX2 file made by Binomial's basisu
//! at build time (scripts/web/basis-files.sh), transcoded in wasm at registration to each
//! target the path has (as itself: ASTC 4x4 where it has ASTC; and restricted to BC7, to ETC2
//! and to RGBA8), compared byte for byte with Binomial's own transcodes of the same file, and
//! drawn at scale 1, nearest, against core's decode of those bytes.

use layerbatch::{
    decode_rgba8, read_basis, BasisTarget, Batcher, Config, FileLimits, Filter, FormatFamilies, FormatFamily, Quad,
    TextureDesc,
};

use super::{frame, Checked, Fail};
use crate::device::{Backend, Device};
use crate::hud::fetch_bytes;

const MISSING: &str = "the site has no Basis files: scripts/web/build.sh makes them with scripts/web/basis-files.sh, \
                       which needs scripts/install-test-tools.sh's basisu and opengl_basisu";

pub(super) async fn basis_files(backend: Backend) -> Checked {
    let probe = Device::open(backend, [64, 64]).await?;
    let device = probe.limits().format_families;
    probe.close();
    let only = |f: FormatFamily| FormatFamilies::RGBA8.with(f);
    let settings = [
        (device, "the path's own"),
        (only(FormatFamily::Bc), "BC only"),
        (only(FormatFamily::Etc2), "ETC2 only"),
        (FormatFamilies::RGBA8, "RGBA8 only"),
    ];
    let like = TextureDesc::new(1, 1).with_filter(Filter::Nearest);
    let mut done = Vec::new();
    for name in ["etc1s", "uastc"] {
        let file = fetch_bytes(&format!("basis/{name}.ktx2"), MISSING).await?;
        for (families, what) in settings {
            if !families.iter().all(|f| device.contains(f)) {
                continue;
            }
            // A device of its own for each setting, closed after (a renderer is destroyed with it).
            let mut dev = Device::open(backend, [64, 64]).await?;
            let mut batcher = Batcher::new(dev.limits().with_format_families(families), Config::default())
                .map_err(|e| format!("budget: {e}"))?;
            dev.init(batcher.budget())?;
            let ids = batcher.textures().register_file(&file, &like).map_err(|e| format!("{name} ({what}): {e}"))?;
            let desc = batcher.desc(ids[0]).map_err(|e| e.to_string())?;
            let target = BasisTarget::choose(families, &desc);
            let read = read_basis(&file, &like, FileLimits::default(), families).map_err(|e| format!("{name}: {e}"))?;
            // The bytes: every level as Binomial's transcoder gives them (ETC1 for these
            // opaque files' ETC2).
            let reference = match target {
                BasisTarget::Astc4x4 => "astc_4x4",
                BasisTarget::Bc7 => "bc7",
                BasisTarget::Etc2 => "etc1",
                _ => "rgba8",
            };
            let mut at = 0;
            for level in 0..desc.mip_levels {
                let expected = fetch_bytes(&format!("basis/{name}/{reference}-{level}-0.bin"), MISSING).await?;
                let got = read.layers[0].get(at..at + expected.len()).ok_or("a level short")?;
                let differing = got.iter().zip(&expected).filter(|(a, b)| a != b).count();
                ensure!(
                    differing == 0,
                    "{name} to {target} ({what}), level {level}: {differing} of {} bytes differ from Binomial's",
                    expected.len()
                );
                at += expected.len();
            }
            // The pixels: level 0 at scale 1, nearest, against core's decode of the bytes.
            let (w, h) = (desc.width_px, desc.height_px);
            let level0 = &read.layers[0][..desc.format.image_bytes(w, h) as usize];
            let decoded = decode_rgba8(desc.format, w, h, level0).map_err(|e| e.to_string())?;
            let quad = Quad::rect(ids[0], [0.0, 0.0], [w as f32, h as f32]);
            let image = frame(&mut dev, &mut batcher, &[quad]).await?;
            let mut worst = 0;
            for y in 0..h {
                for x in 0..w {
                    let i = ((y * w + x) * 4) as usize;
                    let got = image.at(x, y);
                    let d = (0..3).map(|c| got[c].abs_diff(decoded[i + c])).max().unwrap_or(0);
                    ensure!(
                        d <= 2,
                        "{name} as {} ({what}): ({x}, {y}) is {got:?}, decoded {:?}",
                        desc.format,
                        &decoded[i..i + 4]
                    );
                    worst = worst.max(d);
                }
            }
            dev.close();
            done.push(format!("{name} to {target} ({what}): Binomial's bytes, drawn within {worst}"));
        }
    }
    Ok(format!("{} ({})", done.join("; "), backend.name()))
}
