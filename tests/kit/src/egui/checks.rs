//! What the egui tests (`tests/egui_wgpu.rs`, `tests/egui_glow.rs`) share: the test scenes'
//! egui frame, solid squares, and the two checks: (a) the sprites' pixels, (b) egui's own
//! pixels around them, against the same frame rendered without the callbacks.

/// Most a channel may differ from the expected colour.
pub const TOL: u8 = 2;
/// The panel's background.
pub const BACKGROUND: egui::Color32 = egui::Color32::from_rgb(20, 24, 28);
/// The fill of the frame around each canvas.
pub const FRAME_FILL: egui::Color32 = egui::Color32::from_rgb(30, 60, 110);

/// The test scenes' egui frame: a background panel with a label, then `add`.
pub fn panel<R>(ui: &mut egui::Ui, add: impl FnOnce(&mut egui::Ui) -> R) -> R {
    let frame = egui::Frame::new().fill(BACKGROUND).inner_margin(8);
    egui::CentralPanel::no_frame()
        .frame(frame)
        .show(ui, |ui| {
            ui.label("layerbatch in egui");
            add(ui)
        })
        .inner
}

/// A canvas of `size` points, added by `canvas` (which returns its rectangle), in a frame of
/// [`FRAME_FILL`] with a 10 point margin. Returns the canvas's rectangle (points).
pub fn framed(ui: &mut egui::Ui, canvas: impl FnOnce(&mut egui::Ui) -> egui::Rect) -> egui::Rect {
    egui::Frame::new().fill(FRAME_FILL).inner_margin(10).show(ui, canvas).inner
}

/// A solid square in a panel's pixels.
#[derive(Clone, Copy, Debug)]
pub struct Square {
    /// Left edge, pixels.
    pub x: i32,
    /// Top edge, pixels.
    pub y: i32,
    /// Side, pixels.
    pub size: i32,
    /// Colour, RGBA8.
    pub color: [u8; 4],
}

/// A [`Square`].
pub const fn sq(x: i32, y: i32, size: i32, color: [u8; 4]) -> Square {
    Square { x, y, size, color }
}

/// A read-back frame: RGBA8, top row first.
#[derive(Clone, Copy, Debug)]
pub struct Shot<'a> {
    /// Width, pixels.
    pub width: u32,
    /// Height, pixels.
    pub height: u32,
    /// `width * height` RGBA8 pixels.
    pub pixels: &'a [u8],
}

impl Shot<'_> {
    /// The pixel at `(x, y)`, top-left origin.
    pub fn px(&self, x: u32, y: u32) -> [u8; 4] {
        let i = ((y * self.width + x) * 4) as usize;
        self.pixels[i..i + 4].try_into().unwrap()
    }

    fn save_png(&self, path: &std::path::Path) {
        image::save_buffer(path, self.pixels, self.width, self.height, image::ColorType::Rgba8).unwrap();
    }
}

/// `rect` (points) in whole pixels, `[x, y, w, h]`, rounded like egui-wgpu's viewport (not
/// clamped to the screen).
pub fn to_px(rect: egui::Rect, pixels_per_point: f32) -> [i32; 4] {
    let [x0, y0, x1, y1] =
        [rect.min.x, rect.min.y, rect.max.x, rect.max.y].map(|v| (v * pixels_per_point).round() as i32);
    [x0, y0, x1 - x0, y1 - y0]
}

/// The intersection of two `[x, y, w, h]` rectangles (empty: zero size).
pub fn intersect(a: [i32; 4], b: [i32; 4]) -> [i32; 4] {
    let (x0, y0) = (a[0].max(b[0]), a[1].max(b[1]));
    let (x1, y1) = ((a[0] + a[2]).min(b[0] + b[2]), (a[1] + a[3]).min(b[1] + b[3]));
    [x0, y0, (x1 - x0).max(0), (y1 - y0).max(0)]
}

/// Whether `(x, y)` is in the `[x, y, w, h]` rectangle `r`.
pub fn contains(r: [i32; 4], x: i32, y: i32) -> bool {
    x >= r[0] && y >= r[1] && x < r[0] + r[2] && y < r[1] + r[3]
}

/// Whether every channel of `a` is within [`TOL`] of `b`'s.
pub fn close(a: [u8; 4], b: [u8; 4]) -> bool {
    a.iter().zip(b).all(|(x, y)| x.abs_diff(y) <= TOL)
}

/// A panel as the test expects it drawn: its `(0, 0)` at `origin` (screen pixels), its
/// squares, and the part of the screen they may show in (`visible`: the screen, egui's clip
/// rectangle and the sprites' own clip, intersected).
#[derive(Debug)]
pub struct Expected<'a> {
    /// Where the panel's `(0, 0)` is, screen pixels.
    pub origin: [i32; 2],
    /// Its squares.
    pub squares: &'a [Square],
    /// Where they may show.
    pub visible: [i32; 4],
}

impl Expected<'_> {
    /// Each square's screen rectangle, cut to what is visible.
    fn covered(&self) -> impl Iterator<Item = [i32; 4]> + '_ {
        self.squares
            .iter()
            .map(|s| intersect([self.origin[0] + s.x, self.origin[1] + s.y, s.size, s.size], self.visible))
    }
}

/// (a) Each visible point of each square (its centre, 2 px inside each corner) has the
/// square's colour; returns how many points were checked. (b) Every pixel outside the squares
/// (1 px of edge spared) is the same as in `without`.
///
/// With `LAYERBATCH_EGUI_PNG=DIR` set, both frames are saved there first.
pub fn check(test: &str, with: &Shot<'_>, without: &Shot<'_>, panels: &[Expected<'_>]) -> usize {
    if let Some(dir) = std::env::var_os("LAYERBATCH_EGUI_PNG") {
        let dir = std::path::Path::new(&dir);
        with.save_png(&dir.join(format!("{test}.png")));
        without.save_png(&dir.join(format!("{test}_without.png")));
    }
    let screen = [0, 0, with.width as i32, with.height as i32];
    let mut checked = 0;
    for (p, panel) in panels.iter().enumerate() {
        let visible = intersect(panel.visible, screen);
        for s in panel.squares {
            let (x0, y0, last) = (panel.origin[0] + s.x, panel.origin[1] + s.y, s.size - 3);
            for (dx, dy) in [(s.size / 2, s.size / 2), (2, 2), (last, 2), (2, last), (last, last)] {
                let (x, y) = (x0 + dx, y0 + dy);
                if contains(visible, x, y) {
                    let got = with.px(x as u32, y as u32);
                    assert!(
                        close(got, s.color),
                        "{test}: panel {p}, square {s:?}: pixel ({x}, {y}) is {got:?}, expected {:?} (±{TOL})",
                        s.color
                    );
                    checked += 1;
                }
            }
        }
    }
    let covered: Vec<[i32; 4]> =
        panels.iter().flat_map(|p| p.covered()).map(|[x, y, w, h]| [x - 1, y - 1, w + 2, h + 2]).collect();
    let mut differing = Vec::new();
    for y in 0..with.height as i32 {
        for x in 0..with.width as i32 {
            if covered.iter().any(|&r| contains(r, x, y)) {
                continue;
            }
            let (a, b) = (with.px(x as u32, y as u32), without.px(x as u32, y as u32));
            if !close(a, b) {
                differing.push(((x, y), a, b));
            }
        }
    }
    assert!(
        differing.is_empty(),
        "{test}: {} of egui's pixels changed by the callbacks (first: (x, y), with, without): {:?}",
        differing.len(),
        &differing[..differing.len().min(5)]
    );
    checked
}

/// A 320 x 120 canvas's squares for [`scrolled_canvas`]: some hidden left of the scroll
/// area, some cut by its edges or by [`SCROLLED_CLIP`], some hidden right of it.
pub const SCROLLED: [Square; 7] = [
    sq(10, 20, 20, [230, 40, 40, 255]),   // left of egui's clip: hidden
    sq(50, 20, 20, [40, 230, 40, 255]),   // straddles egui's left edge (x 60)
    sq(100, 2, 20, [40, 40, 230, 255]),   // straddles the sprites' clip (y 10)
    sq(120, 50, 30, [230, 230, 40, 255]), // wholly visible
    sq(200, 90, 20, [230, 40, 230, 255]), // straddles the sprites' clip (y 110)
    sq(250, 40, 20, [250, 150, 0, 255]),  // straddles egui's right edge (x 260)
    sq(290, 40, 20, [0, 200, 200, 255]),  // right of egui's clip: hidden
];

/// The sprites' own clip in [`SCROLLED`]'s canvas: all but 10 px at the top and bottom.
pub const SCROLLED_CLIP: [u32; 4] = [0, 10, 320, 100];

/// A scroll area 200 points wide scrolled 60 points to the right, its scroll bar hidden,
/// around `canvas` (which returns its rectangle). Returns the canvas's rectangle and egui's
/// clip rectangle inside the scroll area (points).
pub fn scrolled_canvas(
    ui: &mut egui::Ui,
    size: egui::Vec2,
    canvas: impl FnOnce(&mut egui::Ui) -> egui::Rect,
) -> (egui::Rect, egui::Rect) {
    // 80 points in from the panel's edge: the canvas's left part, hidden by the scroll area,
    // stays on the screen.
    ui.add_space(10.0);
    ui.horizontal(|ui| {
        ui.add_space(80.0);
        // egui paints fade-out gradients over a scroll area's edges, over the sprites too (as
        // it should: they are egui's, on top): off, so the sprites' colours can be checked.
        ui.spacing_mut().scroll.fade.strength = 0.0;
        egui::Frame::new()
            .fill(FRAME_FILL)
            .inner_margin(10)
            .show(ui, |ui| {
                egui::ScrollArea::horizontal()
                    .id_salt("scrolled canvas")
                    .max_width(200.0)
                    .min_scrolled_height(size.y)
                    .horizontal_scroll_offset(60.0)
                    .scroll_bar_visibility(egui::scroll_area::ScrollBarVisibility::AlwaysHidden)
                    .show(ui, |ui| {
                        let clip = ui.clip_rect();
                        (canvas(ui), clip)
                    })
                    .inner
            })
            .inner
    })
    .inner
}
