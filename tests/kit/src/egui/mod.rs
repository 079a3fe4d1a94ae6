//! Headless egui hosts for the egui examples and their tests: on egui-wgpu (`wgpu_host`,
//! feature `egui-wgpu`) and on egui_glow (`glow_host`, feature `egui-glow`), what they share
//! (egui's input for a fixed-size screen, a read-back frame), and the tests' checks
//! ([`checks`]).
//!
//! A real host (eframe, or your engine's egui integration) does the same per frame: gather
//! input, run the egui context, tessellate, upload egui's texture changes, paint, present.

pub mod checks;
#[cfg(feature = "egui-glow")]
pub mod glow_host;
#[cfg(feature = "egui-wgpu")]
pub mod wgpu_host;

/// egui's input for one frame of a `size_px` screen at `pixels_per_point`, with no events:
/// the same every frame, so that a frame renders the same way every time.
pub fn raw_input(size_px: [u32; 2], pixels_per_point: f32, frame: u64) -> egui::RawInput {
    let size_pt = egui::vec2(size_px[0] as f32, size_px[1] as f32) / pixels_per_point;
    let mut input = egui::RawInput {
        screen_rect: Some(egui::Rect::from_min_size(egui::Pos2::ZERO, size_pt)),
        // A fixed clock: no animation depends on how long a software rasterizer takes.
        time: Some(frame as f64 / 60.0),
        ..Default::default()
    };
    input.viewports.entry(egui::ViewportId::ROOT).or_default().native_pixels_per_point = Some(pixels_per_point);
    input
}

/// A read-back frame: RGBA8, top row first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Image {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `width * height` RGBA8 pixels, top row first.
    pub pixels: Vec<u8>,
}

impl Image {
    /// The pixel at `(x, y)`, top-left origin.
    pub fn px(&self, x: u32, y: u32) -> [u8; 4] {
        let i = ((y * self.width + x) * 4) as usize;
        self.pixels[i..i + 4].try_into().unwrap()
    }

    /// Writes the frame as a PNG.
    pub fn save_png(&self, path: &std::path::Path) -> Result<(), String> {
        image::save_buffer(path, &self.pixels, self.width, self.height, image::ColorType::Rgba8)
            .map_err(|e| format!("{}: {e}", path.display()))
    }
}
