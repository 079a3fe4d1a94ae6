//! Stand-ins for the assets Bevy's examples load: Bevy's crate ships the examples' code but
//! not their `assets/` folder, so each file an example names is made at test time, at the
//! path and (where the example depends on it) the size the example expects, from the real
//! CC0 sprites of Python Arcade's pack (`scripts/fetch-assets.sh`) and a Debian font. Both
//! renderers load the same files, so the comparison does not depend on which pictures they
//! are; what matters is that they are real art (soft alpha edges, odd sizes), not flat fills.

use std::path::Path;

use image::imageops::FilterType;
use image::{GenericImage, RgbaImage};

/// One stand-in: the path Bevy's examples load, the Arcade sprite it is made from (under
/// `arcade/resources/assets/images/`), its size in pixels.
const IMAGES: &[(&str, &str, [u32; 2])] = &[
    ("branding/bevy_bird_dark.png", "animated_characters/robot/robot_idle.png", [256, 256]),
    // bevymark sizes its birds from a 256-pixel icon (`BIRD_TEXTURE_SIZE`).
    ("branding/icon.png", "enemies/bee.png", [256, 256]),
    ("branding/bevy_logo_dark.png", "items/flagGreen1.png", [480, 120]),
    // sprite_scale fits and fills a wide banner into boxes of other shapes.
    ("branding/banner.png", "tiles/bridgeB.png", [400, 100]),
    ("pixel/bevy_pixel_dark.png", "items/coinGold.png", [32, 32]),
    ("pixel/bevy_pixel_light.png", "enemies/slimeBlue.png", [32, 32]),
    // sprite_slice cuts 200 pixels off each side of this one, 80 off the next.
    ("textures/slice_square.png", "tiles/boxCrate_double.png", [512, 512]),
    ("textures/slice_square_2.png", "tiles/brickBrown.png", [256, 256]),
    ("textures/simplespace/ship_C.png", "space_shooter/playerShip1_orange.png", [64, 48]),
    ("textures/simplespace/enemy_A.png", "space_shooter/playerShip2_orange.png", [56, 44]),
    ("textures/simplespace/enemy_B.png", "space_shooter/meteorGrey_big1.png", [50, 42]),
    // texture_atlas packs every image under textures/rpg and shows the vendor by its path.
    (
        "textures/rpg/chars/vendor/generic-rpg-vendor.png",
        "animated_characters/male_person/malePerson_idle.png",
        [48, 64],
    ),
    ("textures/rpg/chars/mani/mani-idle-run.png", "animated_characters/zombie/zombie_idle.png", [24, 32]),
    ("textures/rpg/props/generic-rpg-barrel01.png", "tiles/boxCrate.png", [20, 24]),
    ("textures/rpg/props/generic-rpg-crate01.png", "tiles/boxCrate_single.png", [32, 32]),
    ("textures/rpg/props/generic-rpg-flower01.png", "tiles/bush.png", [16, 12]),
    ("textures/rpg/props/generic-rpg-rock01.png", "tiles/rock.png", [29, 20]),
    ("textures/rpg/props/generic-rpg-tree01.png", "tiles/cactus.png", [40, 56]),
    ("textures/rpg/tiles/generic-rpg-tile01.png", "tiles/grassMid.png", [32, 32]),
    ("textures/rpg/tiles/generic-rpg-tile02.png", "tiles/dirtCenter.png", [32, 32]),
    ("textures/rpg/tiles/generic-rpg-tile03.png", "tiles/brickGrey.png", [16, 16]),
    ("textures/rpg/tiles/generic-rpg-bridge.png", "tiles/bridgeA.png", [64, 16]),
    ("textures/rpg/ui/generic-rpg-ui-coin.png", "items/coinSilver.png", [12, 12]),
];

/// gabe-idle-run.png: seven 24x24 cells in a row (sprite_sheet and sprite_animation cut it
/// with `TextureAtlasLayout::from_grid(UVec2::splat(24), 7, 1, ..)`): a walk cycle.
const SHEET: &str = "textures/rpg/chars/gabe/gabe-idle-run.png";
const SHEET_FRAMES: &str = "animated_characters/female_adventurer/femaleAdventurer_walk";

/// The font the examples name, and the Debian file standing in for it.
const FONT: (&str, &str) = ("fonts/FiraSans-Bold.ttf", "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf");

/// Writes every stand-in under `root/assets/` from the Arcade pack unpacked at `arcade`
/// (the folder holding `arcade/resources/`).
pub fn write(arcade: &Path, root: &Path) -> Result<(), String> {
    let images = arcade.join("arcade/resources/assets/images");
    let assets = root.join("assets");
    let open = |name: &str| -> Result<RgbaImage, String> {
        let path = images.join(name);
        Ok(image::open(&path).map_err(|e| format!("{}: {e}", path.display()))?.to_rgba8())
    };
    let save = |name: &str, image: &RgbaImage| -> Result<(), String> {
        let path = assets.join(name);
        std::fs::create_dir_all(path.parent().expect("a file in a folder")).map_err(|e| e.to_string())?;
        image.save(&path).map_err(|e| format!("{}: {e}", path.display()))
    };
    for &(name, source, [w, h]) in IMAGES {
        save(name, &image::imageops::resize(&open(source)?, w, h, FilterType::Triangle))?;
    }
    let mut sheet = RgbaImage::new(24 * 7, 24);
    for frame in 0..7 {
        let cell = image::imageops::resize(&open(&format!("{SHEET_FRAMES}{frame}.png"))?, 24, 24, FilterType::Triangle);
        sheet.copy_from(&cell, frame * 24, 0).map_err(|e| e.to_string())?;
    }
    save(SHEET, &sheet)?;
    let font = assets.join(FONT.0);
    std::fs::create_dir_all(font.parent().expect("a file in a folder")).map_err(|e| e.to_string())?;
    std::fs::copy(FONT.1, &font).map_err(|e| format!("{} (scripts/install-fonts.sh): {e}", FONT.1))?;
    Ok(())
}
