//! layerbatch sprites inside Bevy, headless, read back: z order among Bevy's sprites, the
//! same pixels as Bevy's own drawing of the same images, image changes, cameras that move,
//! zoom and resize, two cameras. Each scene is drawn twice, once with layerbatch sprites and
//! once with Bevy sprites only (the reference), in apps of their own.
//!
//! These need a GPU adapter (lavapipe here). Without one Bevy's `RenderPlugin` panics and
//! the test fails: there is no skip.

use bevy::asset::RenderAssetUsages;
use bevy::camera::RenderTarget;
use bevy::camera::visibility::RenderLayers;
use bevy::image::{
    ImageAddressMode, ImageFilterMode, ImageSampler, ImageSamplerDescriptor, TextureAtlas, TextureAtlasLayout,
};
use bevy::prelude::*;
use bevy::render::render_resource::{Extent3d, TextureDimension, TextureFormat};
use bevy::sprite::{Anchor, TextureSlicer};
use bevy_layerbatch::headless::{self, read_image, solid_image, target_image};
use bevy_layerbatch::{LayerbatchFrameStats, LayerbatchPlugin, LayerbatchSprite, LayerbatchStats, SpriteMode};

const CLEAR: [u8; 4] = [20, 30, 40, 255];

/// One sprite of a scene.
#[derive(Clone, Copy)]
struct Item {
    image: usize,
    center: Vec2,
    z: f32,
    size: Vec2,
    color: Color,
    angle_rad: f32,
    /// The part of the image shown, in its pixels (inside the atlas cell, with `atlas`).
    rect: Option<Rect>,
    layerbatch: bool,
    /// `size` is the image's (or the atlas cell's) own: no `custom_size`.
    natural_size: bool,
    anchor: Anchor,
    /// Cell `index` of the image cut in 2x2-pixel cells (the checker's four colours).
    atlas: Option<usize>,
    /// Its render layer (none: layer 0).
    layer: Option<usize>,
    /// Mirrored horizontally, vertically.
    flip: [bool; 2],
}

fn item(image: usize, center: [f32; 2], z: f32, layerbatch: bool) -> Item {
    Item {
        image,
        center: Vec2::from(center),
        z,
        size: Vec2::splat(24.0),
        color: Color::WHITE,
        angle_rad: 0.0,
        rect: None,
        layerbatch,
        natural_size: false,
        anchor: Anchor::CENTER,
        atlas: None,
        layer: None,
        flip: [false; 2],
    }
}

/// The images: opaque red (sRGB), a linear image whose right half is half transparent, an
/// opaque 4x4 checker of four colours (sRGB), that checker in BC1, tiling and with separate
/// filters, and a 6x6 image of 36 colours (nearest).
fn images() -> Vec<Image> {
    let mut translucent = Vec::new();
    for _y in 0..8 {
        for x in 0..8 {
            translucent.extend_from_slice(if x < 4 { &[30, 60, 220, 255] } else { &[40, 200, 90, 128] });
        }
    }
    let colours = [[250, 250, 250, 255], [10, 10, 10, 255], [240, 180, 20, 255], [120, 20, 160, 255]];
    let mut checker = Vec::new();
    for y in 0..4 {
        for x in 0..4 {
            checker.extend_from_slice(&colours[(x / 2) + 2 * (y / 2)]);
        }
    }
    let image = |size, data, format| {
        Image::new(
            Extent3d { width: size, height: size, depth_or_array_layers: 1 },
            TextureDimension::D2,
            data,
            format,
            RenderAssetUsages::default(),
        )
    };
    // Nearest, so the CPU composite (point sampled) is the reference texel for texel. Linear
    // filtering of straight alpha against Bevy's renderer: Bevy's own examples
    // (truth/tests/examples.rs, real sprites with soft edges, turned and scaled).
    let mut translucent = image(8, translucent, TextureFormat::Rgba8Unorm);
    translucent.sampler = ImageSampler::nearest();
    // BC1 (sRGB), as Bevy's ktx2 and dds loaders give it: 2x2 blocks, each one 565 colour
    // (red, green, blue, white: exact in 565), every texel index 0.
    let bc1: Vec<u8> = [0xF800u16, 0x07E0, 0x001F, 0xFFFF]
        .iter()
        .flat_map(|c| [c.to_le_bytes(), c.to_le_bytes()].concat().into_iter().chain([0; 4]))
        .collect();
    let mut bc1 = image(8, bc1, TextureFormat::Bc1RgbaUnormSrgb);
    bc1.sampler = ImageSampler::nearest();
    // The checker again, tiling in u and clamped in v, nearest.
    let mut tiles = image(4, checker.clone(), TextureFormat::Rgba8UnormSrgb);
    tiles.sampler = ImageSampler::Descriptor(ImageSamplerDescriptor {
        address_mode_u: ImageAddressMode::Repeat,
        address_mode_v: ImageAddressMode::ClampToEdge,
        ..ImageSamplerDescriptor::nearest()
    });
    // Seven opaque columns of different colours: linear when magnified, nearest when minified.
    let columns: Vec<u8> = (0..7 * 7)
        .flat_map(|i| [(i % 7 * 40) as u8, 250 - (i % 7 * 35) as u8, if i % 2 == 0 { 30 } else { 220 }, 255])
        .collect();
    let mut columns = image(7, columns, TextureFormat::Rgba8UnormSrgb);
    columns.sampler = ImageSampler::Descriptor(ImageSamplerDescriptor {
        mag_filter: ImageFilterMode::Linear,
        min_filter: ImageFilterMode::Nearest,
        ..ImageSamplerDescriptor::linear()
    });
    // Every texel its own colour, nearest: where a nine-slice cuts it shows.
    let texels: Vec<u8> = (0..6 * 6).flat_map(|i| [(i % 6 * 45) as u8, (i / 6 * 45) as u8, 120, 255]).collect();
    let mut texels = image(6, texels, TextureFormat::Rgba8UnormSrgb);
    texels.sampler = ImageSampler::nearest();
    vec![
        solid_image(8, 8, [220, 40, 40, 255]),
        translucent,
        image(4, checker, TextureFormat::Rgba8UnormSrgb),
        bc1,
        tiles,
        columns,
        texels,
    ]
}

/// A camera: where it looks, its zoom (world units per pixel) and its target size.
#[derive(Clone, Copy)]
struct View {
    at: Vec2,
    scale: f32,
    size: UVec2,
    /// An HDR camera (`Hdr`: its main pass draws into `Rgba16Float`, tonemapped into the target).
    hdr: bool,
    msaa: Msaa,
    /// A Bevy sprite at `at` (z 0) showing the target of that view (render to texture).
    shows: Option<usize>,
    /// The camera's render layer (none: layer 0).
    layer: Option<usize>,
}

const VIEW: View = View {
    at: Vec2::ZERO,
    scale: 1.0,
    size: UVec2::new(160, 96),
    hdr: false,
    msaa: Msaa::Sample4,
    shows: None,
    layer: None,
};

/// A headless app drawing `items` through `views`, each into an image target.
struct Scene {
    app: App,
    images: Vec<Handle<Image>>,
    targets: Vec<Handle<Image>>,
    sprites: Vec<Entity>,
}

impl Scene {
    /// `items`, and a Bevy 2D mesh (a circle of radius 10 with a translucent colour) at each
    /// of `circles` (x, y, z), seen through `views`; the layerbatch items as Bevy sprites
    /// unless `with_layerbatch`.
    fn new(items: &[Item], circles: &[Vec3], views: &[View], with_layerbatch: bool) -> Self {
        Self::with_plugin(items, circles, views, with_layerbatch, LayerbatchPlugin::default())
    }

    /// [`Scene::new`] with `plugin`.
    fn with_plugin(
        items: &[Item],
        circles: &[Vec3],
        views: &[View],
        with_layerbatch: bool,
        plugin: LayerbatchPlugin,
    ) -> Self {
        let mut app = App::new();
        app.add_plugins(headless::default_plugins(false).disable::<bevy::log::LogPlugin>())
            .insert_resource(ClearColor(Color::srgba_u8(CLEAR[0], CLEAR[1], CLEAR[2], CLEAR[3])));
        app.add_plugins(plugin);
        headless::start(&mut app);
        let world = app.world_mut();
        let images: Vec<_> = images().into_iter().map(|i| world.resource_mut::<Assets<Image>>().add(i)).collect();
        let mut targets = Vec::new();
        for (order, view) in views.iter().enumerate() {
            let target = world.resource_mut::<Assets<Image>>().add(target_image(view.size.x, view.size.y));
            let projection = Projection::Orthographic(OrthographicProjection {
                scale: view.scale,
                ..OrthographicProjection::default_2d()
            });
            let camera = Camera { order: order as isize, ..default() };
            let mut spawned = world.spawn((
                Camera2d,
                camera,
                RenderTarget::Image(target.clone().into()),
                projection,
                view.msaa,
                Transform::from_translation(view.at.extend(0.0)),
            ));
            if view.hdr {
                spawned.insert(bevy::camera::Hdr);
            }
            if let Some(layer) = view.layer {
                spawned.insert(RenderLayers::layer(layer));
            }
            targets.push(target);
        }
        for view in views {
            if let Some(shown) = view.shows {
                world.spawn((
                    Sprite::from_image(targets[shown].clone()),
                    Transform::from_translation(view.at.extend(0.0)),
                ));
            }
        }
        for &at in circles {
            let mesh = world.resource_mut::<Assets<Mesh>>().add(Circle::new(10.0));
            let material = world.resource_mut::<Assets<ColorMaterial>>().add(Color::srgba(0.2, 0.9, 0.9, 0.8));
            world.spawn((Mesh2d(mesh), MeshMaterial2d(material), Transform::from_translation(at)));
        }
        let cells = world.resource_mut::<Assets<TextureAtlasLayout>>().add(TextureAtlasLayout::from_grid(
            UVec2::splat(2),
            2,
            2,
            None,
            None,
        ));
        let mut sprites = Vec::new();
        for it in items {
            let transform =
                Transform::from_translation(it.center.extend(it.z)).with_rotation(Quat::from_rotation_z(it.angle_rad));
            let image = images[it.image].clone();
            let custom_size = (!it.natural_size).then_some(it.size);
            let texture_atlas = it.atlas.map(|index| TextureAtlas { layout: cells.clone(), index });
            let mut entity = if it.layerbatch && with_layerbatch {
                world.spawn((
                    LayerbatchSprite {
                        color: it.color,
                        custom_size,
                        rect: it.rect,
                        texture_atlas,
                        flip_x: it.flip[0],
                        flip_y: it.flip[1],
                        ..LayerbatchSprite::from_image(image)
                    },
                    transform,
                    it.anchor,
                ))
            } else {
                world.spawn((
                    Sprite {
                        color: it.color,
                        custom_size,
                        rect: it.rect,
                        texture_atlas,
                        flip_x: it.flip[0],
                        flip_y: it.flip[1],
                        ..Sprite::from_image(image)
                    },
                    transform,
                    it.anchor,
                ))
            };
            if let Some(layer) = it.layer {
                entity.insert(RenderLayers::layer(layer));
            }
            sprites.push(entity.id());
        }
        Self { app, images, targets, sprites }
    }

    /// Renders one frame and reads every target back.
    fn frame(&mut self) -> Vec<(UVec2, Vec<u8>)> {
        self.app.update();
        let targets = self.targets.clone();
        targets.iter().map(|t| read_image(&mut self.app, t).expect("the target is on the GPU")).collect()
    }

    /// Renders until two frames in a row read back the same (images and pipelines ready).
    fn settle(&mut self) -> Vec<(UVec2, Vec<u8>)> {
        let mut last = self.frame();
        for _ in 0..20 {
            let next = self.frame();
            if next == last {
                return next;
            }
            last = next;
        }
        panic!("the frames never settled");
    }

    fn stats(&self) -> LayerbatchFrameStats {
        self.app.world().resource::<LayerbatchStats>().frame()
    }
}

/// The largest per-channel difference, and how many pixels differ by more than 2.
fn diff(a: &[u8], b: &[u8]) -> (u8, usize) {
    assert_eq!(a.len(), b.len());
    let mut worst = 0;
    let mut over = 0;
    for (p, q) in a.chunks_exact(4).zip(b.chunks_exact(4)) {
        let d = p.iter().zip(q).map(|(x, y)| x.abs_diff(*y)).max().unwrap_or(0);
        worst = worst.max(d);
        over += usize::from(d > 2);
    }
    (worst, over)
}

/// Draws `items` with layerbatch and with Bevy only; every pixel of every target within 2.
fn assert_like_bevy(items: &[Item], circles: &[Vec3], views: &[View]) -> (Scene, Vec<(UVec2, Vec<u8>)>) {
    let mut bevy_only = Scene::new(items, circles, views, false);
    let reference = bevy_only.settle();
    let mut mixed = Scene::new(items, circles, views, true);
    let drawn = mixed.settle();
    for (i, ((size, got), (_, want))) in drawn.iter().zip(&reference).enumerate() {
        let (worst, over) = diff(got, want);
        if over > 0 {
            for (n, (p, q)) in got.chunks_exact(4).zip(want.chunks_exact(4)).enumerate() {
                if p.iter().zip(q).any(|(x, y)| x.abs_diff(*y) > 2) {
                    eprintln!("({}, {}): {p:?} vs bevy {q:?}", n as u32 % size.x, n as u32 / size.x);
                }
            }
        }
        assert!(over == 0, "view {i} ({size}): {over} pixels differ from Bevy's by more than 2 (worst {worst})");
        assert!(got.chunks_exact(4).any(|p| p != CLEAR), "view {i} drew nothing");
    }
    (mixed, drawn)
}

fn srgb_to_linear(c: u8) -> f32 {
    let c = c as f32 / 255.0;
    if c <= 0.04045 { c / 12.92 } else { ((c + 0.055) / 1.055).powf(2.4) }
}

fn linear_to_srgb(c: f32) -> u8 {
    let c = c.clamp(0.0, 1.0);
    let s = if c <= 0.003_130_8 { c * 12.92 } else { 1.055 * c.powf(1.0 / 2.4) - 0.055 };
    (s * 255.0).round() as u8
}

/// A texel of `image` in linear light, premultiplied.
fn texel(image: &Image, x: u32, y: u32) -> [f32; 4] {
    let p = &image.data.as_ref().unwrap()[((y * image.width() + x) * 4) as usize..][..4];
    let srgb = image.texture_descriptor.format == TextureFormat::Rgba8UnormSrgb;
    let a = p[3] as f32 / 255.0;
    let c = |v: u8| if srgb { srgb_to_linear(v) } else { v as f32 / 255.0 } * a;
    [c(p[0]), c(p[1]), c(p[2]), a]
}

/// `image` sampled at (u, v) (0..1, v down) as the GPU does: nearest, or bilinear between
/// the decoded texels, clamped to the edge.
fn sample(image: &Image, u: f32, v: f32) -> [f32; 4] {
    let (w, h) = (image.width(), image.height());
    let nearest =
        matches!(&image.sampler, ImageSampler::Descriptor(d) if d.mag_filter == bevy::image::ImageFilterMode::Nearest);
    if nearest {
        return texel(image, ((u * w as f32) as u32).min(w - 1), ((v * h as f32) as u32).min(h - 1));
    }
    let (x, y) = (u * w as f32 - 0.5, v * h as f32 - 0.5);
    let (x0, y0) = (x.floor(), y.floor());
    let (fx, fy) = (x - x0, y - y0);
    let at = |dx: f32, dy: f32| {
        texel(image, (x0 + dx).clamp(0.0, w as f32 - 1.0) as u32, (y0 + dy).clamp(0.0, h as f32 - 1.0) as u32)
    };
    let (a, b, c, d) = (at(0.0, 0.0), at(1.0, 0.0), at(0.0, 1.0), at(1.0, 1.0));
    std::array::from_fn(|i| (a[i] * (1.0 - fx) + b[i] * fx) * (1.0 - fy) + (c[i] * (1.0 - fx) + d[i] * fx) * fy)
}

/// The CPU reference: `items` composited in z order in linear light over the clear colour,
/// at the centre of pixel (x, y) of an unmoved, unzoomed `size` view.
fn composite(items: &[Item], size: UVec2, x: u32, y: u32) -> [u8; 3] {
    let src = images();
    let world = Vec2::new(x as f32 + 0.5 - size.x as f32 / 2.0, size.y as f32 / 2.0 - (y as f32 + 0.5));
    let mut order: Vec<_> = items.iter().collect();
    order.sort_by(|a, b| a.z.total_cmp(&b.z));
    let mut out = [CLEAR[0], CLEAR[1], CLEAR[2]].map(srgb_to_linear);
    for it in order {
        let local = (world - it.center) / it.size + 0.5;
        if !(0.0..1.0).contains(&local.x) || !(0.0..1.0).contains(&local.y) {
            continue;
        }
        let s = sample(&src[it.image], local.x, 1.0 - local.y);
        for c in 0..3 {
            out[c] = s[c] + out[c] * (1.0 - s[3]);
        }
    }
    out.map(linear_to_srgb)
}

/// Whether pixel (x, y) of a `size` view is within 1 pixel of a sprite's edge (where MSAA
/// coverage, not the centre, decides).
fn near_an_edge(items: &[Item], size: UVec2, x: u32, y: u32) -> bool {
    let world = Vec2::new(x as f32 + 0.5 - size.x as f32 / 2.0, size.y as f32 / 2.0 - (y as f32 + 0.5));
    items.iter().any(|it| {
        let (lo, hi) = (it.center - it.size / 2.0, it.center + it.size / 2.0);
        let inside = |p: Vec2, pad: f32| p.x > lo.x - pad && p.x < hi.x + pad && p.y > lo.y - pad && p.y < hi.y + pad;
        inside(world, 1.0) && !inside(world, -1.0)
    })
}

/// Group A: layerbatch, Bevy, layerbatch up the z axis; group B: Bevy, layerbatch, Bevy. The
/// z values interleave the groups: A0 B1 A2 B3 A4 B5, so B3 and A4 are one layerbatch run.
fn interleaved() -> Vec<Item> {
    vec![
        item(0, [-40.0, 0.0], 0.0, true),
        item(2, [-30.0, 8.0], 0.2, false),
        item(1, [-20.0, 16.0], 0.4, true),
        item(0, [30.0, 0.0], 0.1, false),
        item(2, [40.0, 8.0], 0.3, true),
        item(1, [50.0, 16.0], 0.5, false),
    ]
}

#[test]
fn bevy_sprites_between_layerbatch_sprites_keep_the_z_order_and_bevys_pixels() {
    let items = interleaved();
    let (mixed, drawn) = assert_like_bevy(&items, &[], &[VIEW]);
    let (size, pixels) = &drawn[0];
    let mut checked = 0;
    for y in 0..size.y {
        for x in 0..size.x {
            if near_an_edge(&items, *size, x, y) {
                continue;
            }
            let want = composite(&items, *size, x, y);
            let got = &pixels[((y * size.x + x) * 4) as usize..][..3];
            let d = got.iter().zip(want).map(|(g, w)| g.abs_diff(w)).max().unwrap();
            if d > 2 {
                for xx in x.saturating_sub(6)..(x + 6).min(size.x) {
                    eprintln!(
                        "  ({xx}, {y}): {:?} cpu {:?} edge {}",
                        &pixels[((y * size.x + xx) * 4) as usize..][..3],
                        composite(&items, *size, xx, y),
                        near_an_edge(&items, *size, xx, y)
                    );
                }
            }
            assert!(d <= 2, "pixel ({x}, {y}): drawn {got:?}, the CPU composite {want:?}");
            checked += 1;
        }
    }
    assert!(checked > 10_000, "{checked} pixels checked");
    let stats = mixed.stats();
    // A0 alone; B3 and A4 together: two runs, each one draw call, whatever the images.
    assert_eq!((stats.sprites, stats.plans, stats.device_draw_calls), (3, 2, 2));
    // The sRGB images share a page; the linear, nearest-filtered one is in another array:
    // the run [B3 A4] binds both in its one draw.
    assert_eq!((stats.counters.draw_calls, stats.counters.max_slot_tier), (2, 2));
    // Six items, five draws in the phase: A0, B1, A2 (another image than B1's), [B3 A4], B5.
    assert_eq!(stats.phase_draws, 5);
}

#[test]
fn a_modified_image_shows_its_new_pixels_and_a_removed_one_is_freed() {
    let items = [item(0, [-30.0, 0.0], 0.0, true), item(2, [30.0, 0.0], 0.0, true)];
    modified_and_removed(Scene::new(&items, &[], &[VIEW], true));
}

/// The same with Bevy's own sprites in drop-in mode; and an image removed from Bevy's assets
/// while a sprite still shows it: drawn as Bevy draws it (Bevy keeps showing the pixels it
/// last had), and nothing panics.
#[test]
fn drop_in_sprites_follow_their_images_modified_and_removed() {
    let items = [item(0, [-30.0, 0.0], 0.0, false), item(2, [30.0, 0.0], 0.0, false)];
    let drop_in = LayerbatchPlugin { sprites: SpriteMode::All, ..LayerbatchPlugin::default() };
    modified_and_removed(Scene::with_plugin(&items, &[], &[VIEW], false, drop_in));

    let mut scenes =
        [Scene::with_plugin(&items, &[], &[VIEW], false, drop_in), Scene::new(&items, &[], &[VIEW], false)];
    let mut frames = Vec::new();
    for scene in &mut scenes {
        scene.settle();
        let red = scene.images[0].clone();
        scene.app.world_mut().resource_mut::<Assets<Image>>().remove(&red);
        frames.push(scene.settle());
    }
    let (worst, over) = diff(&frames[0][0].1, &frames[1][0].1);
    assert!(over == 0, "image removed: {over} pixels differ from Bevy's (worst {worst})");
    assert_eq!(scenes[0].stats().sprites, 2, "{:?}", scenes[0].stats());
}

/// Modifies the image of a scene's first sprite (red to green), then removes its second
/// sprite and that sprite's image; returns the scene.
fn modified_and_removed(mut scene: Scene) -> Scene {
    let before = scene.settle();
    let at =
        |frame: &[(UVec2, Vec<u8>)], x: u32, y: u32| frame[0].1[((y * VIEW.size.x + x) * 4) as usize..][..4].to_vec();
    // The red sprite's centre: pixel (50, 48).
    assert_eq!(at(&before, 50, 48), [220, 40, 40, 255]);
    // The two images the sprites use: not the third, nor Bevy's own images, nor the target.
    let held = scene.stats();
    assert_eq!((held.textures_live, held.textures_refused), (2, 0), "{held:?}");

    // Modified: the red image turns green, in place.
    let red = scene.images[0].clone();
    let mut images = scene.app.world_mut().resource_mut::<Assets<Image>>();
    images
        .get_mut(&red)
        .unwrap()
        .data
        .as_mut()
        .unwrap()
        .chunks_exact_mut(4)
        .for_each(|p| p.copy_from_slice(&[20, 210, 60, 255]));
    let after = scene.frame();
    assert_eq!(at(&after, 50, 48), [20, 210, 60, 255], "the next frame shows the new pixels");
    let stats = scene.stats();
    assert_eq!((stats.textures_updated, stats.counters.layer_uploads), (1, 1));

    // Removed: the checker's sprite goes, and with it the image's last handles.
    let checker = scene.images.remove(2);
    scene.app.world_mut().despawn(scene.sprites[1]);
    scene.app.world_mut().resource_mut::<Assets<Image>>().remove(&checker);
    drop(checker);
    let gone = scene.settle();
    assert_eq!(at(&gone, 110, 48)[..3], CLEAR[..3], "the checker is not drawn any more");
    let stats = scene.stats();
    assert_eq!((stats.textures_freed, stats.textures_live), (1, held.textures_live - 1));
    assert_eq!(stats.sprites, 1);
    scene
}

/// Only images a `LayerbatchSprite` uses enter layerbatch: 100 images drawn by Bevy's own
/// sprites and 10 by layerbatch sprites (two sprites each): layerbatch holds the 10. An image
/// stays while a sprite uses it, and goes with its last sprite.
#[test]
fn only_images_layerbatch_sprites_use_are_held_and_the_last_sprite_frees_them() {
    let mut app = App::new();
    app.add_plugins(headless::default_plugins(false).disable::<bevy::log::LogPlugin>());
    app.add_plugins(LayerbatchPlugin::default());
    headless::start(&mut app);
    let world = app.world_mut();
    let target = world.resource_mut::<Assets<Image>>().add(target_image(160, 96));
    world.spawn((Camera2d, RenderTarget::Image(target.into())));
    let add = |world: &mut World, i: u32| {
        world.resource_mut::<Assets<Image>>().add(solid_image(16, 16, [(i * 2) as u8, 100, 200, 255]))
    };
    for i in 0..100 {
        let image = add(world, i);
        world
            .spawn((Sprite { custom_size: Some(Vec2::splat(1.0)), ..Sprite::from_image(image) }, Transform::default()));
    }
    let mut pairs = Vec::new();
    for i in 0..10 {
        let image = add(world, 100 + i);
        let sprite =
            || LayerbatchSprite { custom_size: Some(Vec2::splat(4.0)), ..LayerbatchSprite::from_image(image.clone()) };
        let at = |y: f32| Transform::from_xyz(i as f32 * 6.0 - 30.0, y, 1.0);
        pairs.push([world.spawn((sprite(), at(10.0))).id(), world.spawn((sprite(), at(-10.0))).id()]);
    }
    let stats = |app: &mut App| {
        app.update();
        app.world().resource::<LayerbatchStats>().frame()
    };
    for _ in 0..3 {
        stats(&mut app);
    }
    let s = stats(&mut app);
    assert_eq!((s.textures_live, s.textures_registered, s.sprites), (10, 10, 20), "{s:?}");
    // One of image 0's sprites goes: the other still uses it.
    app.world_mut().despawn(pairs[0][0]);
    let s = stats(&mut app);
    assert_eq!((s.textures_live, s.textures_freed, s.sprites), (10, 0, 19), "{s:?}");
    // Its last sprite goes: so does the texture.
    app.world_mut().despawn(pairs[0][1]);
    let s = stats(&mut app);
    assert_eq!((s.textures_live, s.textures_freed, s.sprites), (9, 1, 18), "{s:?}");
}

#[test]
fn a_camera_that_moves_and_zooms_and_a_target_that_resizes_draw_what_bevy_draws() {
    let mut items = interleaved();
    for it in &mut items {
        it.layerbatch = true;
    }
    // A tinted, translucent one; one rotated, showing part of its image.
    items[1].color = Color::srgba(1.0, 0.8, 0.6, 0.75);
    items[4].angle_rad = 0.6;
    items[4].rect = Some(Rect::new(1.0, 0.0, 4.0, 3.0));
    let moved = View { at: Vec2::new(13.0, -7.0), scale: 0.5, ..VIEW };
    // A Bevy mesh between the layerbatch sprites in z: over those up to 0.3, under 0.4 and 0.5.
    let circles = [Vec3::new(-25.0, 6.0, 0.35)];
    let (mut scene, _) = assert_like_bevy(&items, &circles, &[moved]);
    assert_eq!(scene.stats().plans, 2, "the mesh splits the layerbatch sprites into two runs");

    // Resized: the target grows; the view follows it.
    let target = scene.targets[0].clone();
    scene.app.world_mut().resource_mut::<Assets<Image>>().get_mut(&target).unwrap().resize(Extent3d {
        width: 200,
        height: 120,
        depth_or_array_layers: 1,
    });
    let resized = scene.settle();
    let mut reference = Scene::new(&items, &circles, &[View { size: UVec2::new(200, 120), ..moved }], false);
    let want = reference.settle();
    assert_eq!(resized[0].0, UVec2::new(200, 120));
    let (worst, over) = diff(&resized[0].1, &want[0].1);
    assert_eq!(over, 0, "after the resize, {over} pixels differ from Bevy's by more than 2 (worst {worst})");
}

#[test]
fn two_cameras_each_draw_the_sprites_under_their_own_view() {
    let items = interleaved();
    let views = [VIEW, View { at: Vec2::new(-25.0, 10.0), scale: 0.25, size: UVec2::new(96, 64), ..VIEW }];
    let (scene, _) = assert_like_bevy(&items, &[], &views);
    let stats = scene.stats();
    // The second camera's frustum (24 x 16 world units about (-25, 10)) holds two of them:
    // Bevy's visibility culls the third.
    assert_eq!(stats.sprites, 5, "three sprites seen by the first camera, two by the second");
}

/// Cameras of every kind of pass draw their layerbatch sprites, in one renderer: a plain one
/// without MSAA before an HDR one with 4x MSAA, then the reverse (HDR first, no MSAA; plain
/// with MSAA), each the same pixels as Bevy's sprites.
#[test]
fn plain_and_hdr_cameras_with_and_without_msaa_all_draw() {
    let items = interleaved();
    let hdr = View { hdr: true, ..VIEW };
    for (views, what) in [
        ([View { msaa: Msaa::Off, ..VIEW }, hdr], "plain without MSAA, then HDR with 4x"),
        ([View { msaa: Msaa::Off, ..hdr }, VIEW], "HDR without MSAA, then plain with 4x"),
    ] {
        let (scene, _) = assert_like_bevy(&items, &[], &views);
        let stats = scene.stats();
        assert_eq!(stats.sprites, 6, "{what}: three sprites, seen by both cameras");
        assert_eq!(stats.pass_kinds, 2, "{what}: one renderer, a pass kind per camera");
        assert_eq!(stats.pipeline_compiles, 0, "{what}: the settled frame makes no pipeline");
    }
}

/// Bad input: a sprite showing the very target its camera renders into (sampled in the pass
/// that draws it). A `LayerbatchSprite` is not drawn into that camera's target (it would
/// sample itself: skipped for that view, counted) and the camera's other sprites are drawn
/// every frame; in drop-in mode the Bevy `Sprite` stays Bevy's, and the frames are the ones
/// Bevy's renderer draws for the same app, feedback and all. No validation error, no panic.
#[test]
fn a_sprite_showing_its_own_cameras_target_is_refused_or_left_to_bevy() {
    let spawn = |scene: &mut Scene, layerbatch: bool| {
        let target = scene.targets[0].clone();
        let (size, at) = (Some(Vec2::splat(24.0)), Transform::from_xyz(30.0, 0.0, 0.5));
        let world = scene.app.world_mut();
        if layerbatch {
            world.spawn((LayerbatchSprite { custom_size: size, ..LayerbatchSprite::from_image(target) }, at));
        } else {
            world.spawn((Sprite { custom_size: size, ..Sprite::from_image(target) }, at));
        }
    };
    let mut scene = Scene::new(&[item(0, [-30.0, 0.0], 0.0, true)], &[], &[VIEW], true);
    spawn(&mut scene, true);
    for frame in 0..6 {
        let drawn = scene.frame();
        let red = drawn[0].1.chunks_exact(4).filter(|p| p[0] > 200 && p[1] < 60).count();
        // From the third frame on (the first ones upload the image and make the pipelines).
        assert!(frame < 2 || red == 24 * 24, "frame {frame}: {red} red pixels");
    }
    let s = scene.stats();
    // The render target is held (a host texture: a view of Bevy's texture), not refused.
    assert_eq!((s.sprites, s.sprites_skipped, s.textures_refused), (1, 1, 0), "{s:?}");

    let items = [item(0, [-30.0, 0.0], 0.0, false)];
    let drop_in = LayerbatchPlugin { sprites: SpriteMode::All, ..LayerbatchPlugin::default() };
    let mut scenes =
        [Scene::with_plugin(&items, &[], &[VIEW], false, drop_in), Scene::new(&items, &[], &[VIEW], false)];
    for scene in &mut scenes {
        spawn(scene, false);
    }
    for frame in 0..6 {
        let [ours, bevys] = scenes.each_mut().map(|s| s.frame());
        let (worst, over) = diff(&ours[0].1, &bevys[0].1);
        assert!(frame < 2 || over == 0, "drop-in, frame {frame}: {over} pixels differ from Bevy's (worst {worst})");
    }
    let s = scenes[0].stats();
    assert_eq!((s.sprites, s.sprites_left_to_bevy, s.sprites_skipped), (1, 1, 0), "{s:?}");
}

/// A camera renders layerbatch sprites into an image that a Bevy sprite shows to a second
/// camera (render to texture): both targets as Bevy draws them.
#[test]
fn a_camera_rendering_into_an_image_that_another_camera_shows() {
    let items = interleaved();
    // The second camera looks far from the sprites, at a sprite of the first camera's target.
    let screen = View { at: Vec2::new(1000.0, 0.0), shows: Some(0), ..VIEW };
    let (scene, drawn) = assert_like_bevy(&items, &[], &[VIEW, screen]);
    assert_eq!(drawn[0].1, drawn[1].1, "the second camera shows the first one's target, 1:1");
    assert_eq!(scene.stats().pass_kinds, 1, "both cameras' passes are of one kind");
    assert_eq!(scene.stats().sprites, 3, "the second camera sees no layerbatch sprite (culled)");
}

/// A `LayerbatchSprite` showing a camera's render target to a second camera (a minimap): a
/// view of Bevy's own texture, showing what the first camera drew the same frame, 1:1; the
/// sprite despawned, its texture is freed and the frames go on, with no error.
#[test]
fn a_layerbatch_sprite_shows_a_render_target_the_frame_it_is_drawn() {
    let items = interleaved();
    let screen = View { at: Vec2::new(1000.0, 0.0), ..VIEW };
    let mut scene = Scene::new(&items, &[], &[VIEW, screen], true);
    let target = scene.targets[0].clone();
    let shower =
        scene.app.world_mut().spawn((LayerbatchSprite::from_image(target), Transform::from_xyz(1000.0, 0.0, 0.0))).id();
    let drawn = scene.settle();
    assert!(drawn[0].1.chunks_exact(4).any(|p| p != CLEAR), "the first camera drew nothing");
    assert_eq!(drawn[0].1, drawn[1].1, "the second camera shows the first one's target, 1:1, the same frame");
    let s = scene.stats();
    assert_eq!((s.sprites, s.sprites_skipped), (4, 0), "{s:?}");
    let live = s.textures_live;
    scene.app.world_mut().despawn(shower);
    let drawn = scene.settle();
    assert!(drawn[1].1.chunks_exact(4).all(|p| p == CLEAR), "the second camera shows nothing any more");
    let s = scene.stats();
    assert_eq!(s.textures_live, live - 1, "the render target's host texture was freed: {s:?}");
}

/// Bevy's `Anchor` component and `TextureAtlas` on a `LayerbatchSprite`, as on a `Sprite`:
/// anchored corners, an atlas cell at its own size and stretched, a rect inside a cell.
#[test]
fn anchors_and_texture_atlases_work_as_on_bevy_sprites() {
    let at = |center: [f32; 2], z: f32| item(2, center, z, true);
    let items = [
        Item { anchor: Anchor::BOTTOM_LEFT, ..at([-60.0, -30.0], 0.1) },
        Item { anchor: Anchor::TOP_RIGHT, angle_rad: 0.4, ..at([-20.0, 20.0], 0.2) },
        Item { anchor: Anchor(Vec2::new(0.25, -0.4)), ..at([0.0, -10.0], 0.3) },
        // Cell 3 (the bottom-right 2x2 of the checker) at its own size, scaled up by nothing:
        // 2x2 world units; then stretched to 24 units; then one texel of cell 1 by a rect.
        Item { atlas: Some(3), natural_size: true, size: Vec2::splat(2.0), ..at([30.0, 30.0], 0.4) },
        Item { atlas: Some(3), ..at([40.0, 0.0], 0.5) },
        Item {
            atlas: Some(1),
            rect: Some(Rect::new(1.0, 0.0, 2.0, 1.0)),
            anchor: Anchor::TOP_LEFT,
            ..at([50.0, -20.0], 0.6)
        },
    ];
    let (scene, _) = assert_like_bevy(&items, &[], &[VIEW]);
    assert_eq!(scene.stats().sprites, 6);
}

/// Bevy's visibility applies: a sprite outside every camera's frustum is not extracted, and
/// costs nothing (no quad planned); a sprite on render layer 1 is drawn only by the camera
/// on layer 1, which draws nothing else.
#[test]
fn render_layers_and_frustum_culling_apply() {
    let mut items = interleaved();
    items.push(Item { layer: Some(1), ..item(0, [0.0, -30.0], 0.6, true) });
    items.push(item(1, [5000.0, 0.0], 0.7, true));
    let views = [VIEW, View { layer: Some(1), ..VIEW }];
    let (scene, drawn) = assert_like_bevy(&items, &[], &views);
    let stats = scene.stats();
    // Camera 0: the three layerbatch sprites of `interleaved`; camera 1: the one on layer 1.
    assert_eq!(stats.sprites, 4, "{stats:?}");
    assert_eq!(stats.counters.quads, 4, "the culled sprite is not planned: {stats:?}");
    let red = drawn[1].1.chunks_exact(4).filter(|p| p[0] > 200 && p[1] < 60).count();
    assert_eq!(red, 24 * 24, "camera 1 draws the red sprite on its layer, and nothing else red");
}

/// The whole sampler applies: a `v` clamp beside a `u` repeat (a rect reaching past the image
/// on every side), and a nearest `min_filter` beside a linear `mag_filter` (the same image
/// shrunk, 7 texels over 5 pixels, and magnified 4x), against Bevy's `Sprite` with the same
/// images.
#[test]
fn per_axis_wraps_and_separate_min_and_mag_filters_apply_as_on_bevy_sprites() {
    let items = [
        Item { rect: Some(Rect::new(-4.0, -4.0, 8.0, 8.0)), ..item(4, [-40.0, 0.0], 0.1, true) },
        Item { size: Vec2::splat(5.0), ..item(5, [0.5, 0.5], 0.2, true) },
        Item { size: Vec2::splat(28.0), ..item(5, [40.0, 0.0], 0.3, true) },
    ];
    let (scene, drawn) = assert_like_bevy(&items, &[], &[VIEW]);
    let stats = scene.stats();
    assert_eq!((stats.textures_live, stats.textures_refused, stats.sprites), (2, 0, 3), "{stats:?}");
    let (size, pixels) = &drawn[0];
    let at = |x: u32, y: u32| <[u8; 4]>::try_from(&pixels[((y * size.x + x) * 4) as usize..][..4]).unwrap();
    // 2 pixels a texel. u repeats: texel u -2 shows column 2 (clamped, it would be column 0);
    // v clamps: texel v -2 shows row 0 (repeated, it would be row 2).
    let (left, top): (i32, i32) = (80 - 40 - 12, 48 - 12);
    let texel = |u: i32, v: i32| at((left + 8 + 2 * u) as u32, (top + 8 + 2 * v) as u32);
    assert_eq!(texel(-2, 1), texel(2, 1), "u repeats");
    assert_ne!(texel(-2, 1), texel(0, 1));
    assert_eq!(texel(0, -2), texel(0, 0), "v clamps");
    assert_ne!(texel(0, -2), texel(0, 2));
    // Minified nearest: five column colours, none a blend of two (the columns' reds are 40
    // apart, within 2 after the sRGB round trip).
    for x in 78..83 {
        let red = at(x, 47)[0];
        assert!(red % 40 <= 2 || red % 40 >= 38, "pixel {x} is one column's red, unblended: {:?}", at(x, 47));
    }
}

/// The README's headless first frame is `examples/first_frame.rs`, word for word (bevy-test.sh
/// runs the example).
#[test]
fn the_readmes_first_frame_is_the_example() {
    let example = include_str!("../examples/first_frame.rs");
    let body = &example[example.find("use bevy::camera").expect("the example's first import")..];
    assert!(include_str!("../README.md").contains(body), "README.md's snippet differs from examples/first_frame.rs");
}

/// Bevy's compressed images (here BC1, as its ktx2 and dds loaders give them) are held in
/// their own format and drawn as Bevy draws them.
#[test]
fn compressed_images_draw_as_bevy_draws_them() {
    let items = [item(3, [-30.0, 0.0], 0.1, true), Item { size: Vec2::splat(32.0), ..item(3, [30.0, 0.0], 0.2, true) }];
    let (scene, drawn) = assert_like_bevy(&items, &[], &[VIEW]);
    let stats = scene.stats();
    assert_eq!((stats.textures_live, stats.textures_refused, stats.sprites), (1, 0, 2), "{stats:?}");
    // The 32-unit sprite's top-left quarter is the red block, its bottom-right the white one.
    let (size, pixels) = &drawn[0];
    let at = |x: u32, y: u32| &pixels[((y * size.x + x) * 4) as usize..][..4];
    assert_eq!(at(80 + 14 + 4, 48 - 16 + 4), [255, 0, 0, 255]);
    assert_eq!(at(80 + 14 + 28, 48 + 12), [255, 255, 255, 255]);
}

/// An image layerbatch refuses (a format it does not store) is tried again when Bevy modifies
/// it into one it does, while its sprite waits.
#[test]
fn a_refused_image_modified_into_a_held_format_is_drawn() {
    let mut app = App::new();
    app.add_plugins(headless::default_plugins(false).disable::<bevy::log::LogPlugin>());
    app.add_plugins(LayerbatchPlugin::default());
    headless::start(&mut app);
    let world = app.world_mut();
    let mut images = world.resource_mut::<Assets<Image>>();
    let target = images.add(target_image(160, 96));
    let r8 = Image::new_fill(
        Extent3d { width: 8, height: 8, depth_or_array_layers: 1 },
        TextureDimension::D2,
        &[200],
        TextureFormat::R8Unorm,
        RenderAssetUsages::default(),
    );
    let image = images.add(r8);
    world.spawn((Camera2d, RenderTarget::Image(target.clone().into())));
    world
        .spawn((LayerbatchSprite::from_image(image.clone()).with_custom_size(Vec2::splat(32.0)), Transform::default()));
    let frame = |app: &mut App| {
        app.update();
        app.world().resource::<LayerbatchStats>().frame()
    };
    frame(&mut app);
    let s = frame(&mut app);
    assert_eq!((s.textures_refused, s.textures_live, s.sprites_skipped, s.sprites), (1, 0, 1, 0), "{s:?}");
    *app.world_mut().resource_mut::<Assets<Image>>().get_mut(&image).unwrap() = solid_image(8, 8, [220, 40, 40, 255]);
    frame(&mut app);
    let s = frame(&mut app);
    assert_eq!((s.textures_refused, s.textures_live, s.sprites_skipped, s.sprites), (0, 1, 0, 1), "{s:?}");
    let (size, pixels) = read_image(&mut app, &target).expect("the target");
    let centre = ((size.y / 2 * size.x + size.x / 2) * 4) as usize;
    assert_eq!(pixels[centre..][..4], [220, 40, 40, 255]);
}

/// Drop-in mode: a scene of Bevy `Sprite`s only (tinted, translucent, turned, cut by rects and
/// atlas cells, anchored, mirrored, nine-sliced, around translucent Bevy meshes in z), the
/// game's code unchanged but for the plugin's `sprites`: layerbatch draws every sprite and
/// Bevy none of them, within 2 per channel of Bevy drawing them all. A sprite made tiled goes
/// back to Bevy (counted) and returns when its mode does; one showing a camera's render target
/// stays Bevy's.
#[test]
fn drop_in_draws_bevys_own_sprites_as_bevy_does() {
    let at = |image: usize, center: [f32; 2], z: f32| item(image, center, z, false);
    let items = [
        at(0, [-60.0, 20.0], 0.1),
        Item { color: Color::srgba(0.3, 0.9, 0.5, 0.7), angle_rad: 0.5, ..at(1, [-40.0, -10.0], 0.2) },
        Item { flip: [true, false], anchor: Anchor::BOTTOM_LEFT, ..at(2, [-15.0, 10.0], 0.3) },
        Item { flip: [false, true], atlas: Some(1), ..at(2, [10.0, -20.0], 0.4) },
        Item { flip: [true, true], rect: Some(Rect::new(1.0, 0.0, 3.0, 4.0)), ..at(5, [30.0, 15.0], 0.5) },
        Item { atlas: Some(3), natural_size: true, size: Vec2::splat(2.0), ..at(2, [50.0, -30.0], 0.6) },
        Item { anchor: Anchor(Vec2::new(0.3, -0.2)), angle_rad: -0.7, ..at(3, [60.0, 25.0], 0.7) },
        // Nine-sliced below: every texel its own colour, 1-texel borders.
        Item { size: Vec2::new(40.0, 22.0), ..at(6, [-50.0, -32.0], 0.8) },
        Item { size: Vec2::new(18.0, 30.0), flip: [true, false], angle_rad: 0.3, ..at(6, [0.0, 30.0], 0.9) },
    ];
    let circles = [Vec3::new(-30.0, 0.0, 0.25), Vec3::new(35.0, 10.0, 0.45)];
    // The same Bevy app but for the plugin's setting: Bevy's renderer draws the reference.
    let mut bevy_only = Scene::new(&items, &circles, &[VIEW], false);
    let drop_in = LayerbatchPlugin { sprites: SpriteMode::All, ..LayerbatchPlugin::default() };
    let mut scene = Scene::with_plugin(&items, &circles, &[VIEW], false, drop_in);
    let slicer =
        bevy::sprite::TextureSlicer { border: bevy::sprite::BorderRect::all(1.0), max_corner_scale: 4.0, ..default() };
    let set_mode = |scene: &mut Scene, k: usize, mode: bevy::sprite::SpriteImageMode| {
        scene.app.world_mut().get_mut::<Sprite>(scene.sprites[k]).unwrap().image_mode = mode;
    };
    for scene in [&mut scene, &mut bevy_only] {
        set_mode(scene, 7, bevy::sprite::SpriteImageMode::Sliced(slicer.clone()));
        set_mode(
            scene,
            8,
            bevy::sprite::SpriteImageMode::Sliced(TextureSlicer { max_corner_scale: 1.5, ..slicer.clone() }),
        );
    }
    let same = |scene: &mut Scene, bevy_only: &mut Scene, what: &str| {
        let (reference, drawn) = (bevy_only.settle(), scene.settle());
        let (worst, over) = diff(&drawn[0].1, &reference[0].1);
        if over > 0 {
            let size = VIEW.size;
            for (n, (p, q)) in drawn[0].1.chunks_exact(4).zip(reference[0].1.chunks_exact(4)).enumerate() {
                if p.iter().zip(q).any(|(x, y)| x.abs_diff(*y) > 2) {
                    eprintln!("({}, {}): {p:?} vs bevy {q:?}", n as u32 % size.x, n as u32 / size.x);
                }
            }
        }
        assert!(over == 0, "{what}: {over} pixels differ from Bevy's by more than 2 (worst {worst})");
    };
    same(&mut scene, &mut bevy_only, "every sprite adopted");
    let stats = scene.stats();
    assert_eq!((stats.sprites, stats.sprites_left_to_bevy), (9, 0), "{stats:?}");
    // Sprites 0-1 and 2 are runs of their own between the circles; 3-8 one run past them:
    // five draws in the phase, the circles' two and layerbatch's three (Bevy draws no sprite).
    // The two nine-slices are 9 quads each.
    assert_eq!((stats.plans, stats.phase_draws, stats.counters.quads), (3, 5, 7 + 18), "{stats:?}");
    assert_eq!(bevy_only.stats().sprites, 0);

    // Tiled: Bevy's again, counted; then back to sliced.
    let tiled = bevy::sprite::SpriteImageMode::Tiled { tile_x: true, tile_y: true, stretch_value: 1.0 };
    for scene in [&mut scene, &mut bevy_only] {
        set_mode(scene, 7, tiled.clone());
    }
    same(&mut scene, &mut bevy_only, "one tiled, left to Bevy");
    let stats = scene.stats();
    assert_eq!((stats.sprites, stats.sprites_left_to_bevy), (8, 1), "{stats:?}");
    for scene in [&mut scene, &mut bevy_only] {
        set_mode(scene, 7, bevy::sprite::SpriteImageMode::Sliced(slicer.clone()));
    }
    same(&mut scene, &mut bevy_only, "adopted again");
    let stats = scene.stats();
    assert_eq!((stats.sprites, stats.sprites_left_to_bevy), (9, 0), "{stats:?}");

    // A camera's render target shown by a Bevy sprite (seen by a second camera far from the
    // others): layerbatch's too, a view of Bevy's texture (0 bytes copied); the second camera
    // shows the first's picture 1:1, the same frame, as Bevy's renderer does.
    let views = [VIEW, View { at: Vec2::new(1000.0, 0.0), shows: Some(0), ..VIEW }];
    let mut bevy_only = Scene::new(&items, &circles, &views, false);
    let mut scene = Scene::with_plugin(&items, &circles, &views, false, drop_in);
    let (reference, drawn) = (bevy_only.settle(), scene.settle());
    for (i, ((_, got), (_, want))) in drawn.iter().zip(&reference).enumerate() {
        let (worst, over) = diff(got, want);
        assert!(over == 0, "render target, view {i}: {over} pixels differ (worst {worst})");
    }
    assert_eq!(drawn[0].1, drawn[1].1, "the second camera shows the first one's target");
    let stats = scene.stats();
    assert_eq!((stats.sprites, stats.sprites_left_to_bevy), (10, 0), "{stats:?}");
    let device = stats.total.host_contents;
    assert!(device >= 1, "the target's array was filled from Bevy's texture: {stats:?}");
}
