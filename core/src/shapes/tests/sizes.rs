//! What typical shapes cost in triangles.

use super::assert_sound;
use crate::shapes::{FillStyle, Shapes, StrokeStyle};
use crate::Mesh;

const INK: [u8; 4] = [255, 160, 32, 255];

/// What typical shapes cost, with bounds so that a change in tessellation shows.
#[test]
fn mesh_sizes() {
    let mut shapes = Shapes::new();
    let mut count = |name: &str, f: &dyn Fn(&mut Shapes, &mut Mesh), bound: usize| {
        let mut mesh = Mesh::default();
        f(&mut shapes, &mut mesh);
        assert_sound(&mesh);
        eprintln!("{name}: {} triangles, {} vertices", mesh.triangles(), mesh.vertices.len());
        assert!(mesh.triangles() <= bound, "{name}: {} triangles", mesh.triangles());
    };
    let fill = FillStyle::new(INK);
    let stroke = StrokeStyle::new(INK, 2.0);
    count("fill circle d64", &|s, m| s.fill_circle(m, [40.0, 40.0], 32.0, &fill).unwrap(), 120);
    count(
        "fill circle d64 no AA",
        &|s, m| s.fill_circle(m, [40.0, 40.0], 32.0, &fill.with_anti_alias(false)).unwrap(),
        60,
    );
    count("stroke circle d64 w2", &|s, m| s.stroke_circle(m, [40.0, 40.0], 32.0, &stroke).unwrap(), 320);
    let hud = [16.0, 16.0, 240.0, 64.0];
    count("fill rounded rect 240x64 r8", &|s, m| s.fill_rounded_rect(m, hud, [8.0; 4], &fill).unwrap(), 120);
    count("stroke rounded rect 240x64 r8 w2", &|s, m| s.stroke_rounded_rect(m, hud, [8.0; 4], &stroke).unwrap(), 240);
    count("line w2", &|s, m| s.line(m, [0.0, 0.0], [100.0, 30.0], &stroke).unwrap(), 10);
}
