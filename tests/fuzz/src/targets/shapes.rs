//! `shapes`: random paths, polylines, polygons, circles, ellipses and rounded rectangles with
//! coordinates that are ordinary, huge, tiny, NaN or infinite, and random tolerances, stroke
//! widths, caps, joins and miter limits, through the public shapes API; then the mesh into a
//! batcher.

use super::check_plan;
use crate::rng::{Reader, Rng};
use crate::runner::{Outcome, Target};
use layerbatch_core::shapes::{point, FillRule, FillStyle, LineCap, LineJoin, Path, ShapeError, Shapes, StrokeStyle};
use layerbatch_core::validate::PlanValidator;
use layerbatch_core::{Batcher, Config, Limits, Mesh, MeshError, MockDevice};
use lyon_tessellation::math::Transform;

pub struct ShapesTarget {
    shapes: Shapes,
}

impl ShapesTarget {
    pub fn new() -> Self {
        Self { shapes: Shapes::new() }
    }
}

/// A coordinate: mostly ordinary, now and then extreme.
fn coord(r: &mut Reader<'_>) -> f32 {
    if r.below(6) == 5 {
        r.edgy_f32()
    } else {
        r.plain_f32() - 256.0
    }
}

/// A radius or size: mostly ordinary, now and then extreme.
fn size(r: &mut Reader<'_>) -> f32 {
    if r.below(6) == 5 {
        r.edgy_f32()
    } else {
        r.plain_f32() / 4.0 + 0.5
    }
}

/// A tolerance: mostly valid (0.01 and up), now and then not (0, negative, NaN, tiny).
fn tolerance(r: &mut Reader<'_>) -> f32 {
    const VALID: [f32; 6] = [0.1, 0.1, 0.25, 1.0, 0.01, 1.0e6];
    const INVALID: [f32; 6] = [0.005, 0.0, -1.0, f32::NAN, f32::INFINITY, 1.0e-6];
    // Past the input's end the reader gives zeros: those pick ordinary values.
    match r.below(16) {
        15 => r.edgy_f32(),
        14 => INVALID[r.below(INVALID.len())],
        _ => VALID[r.below(VALID.len())],
    }
}

fn color(r: &mut Reader<'_>) -> [u8; 4] {
    [r.u8(), r.u8(), r.u8(), r.u8()]
}

fn fill_style(r: &mut Reader<'_>) -> FillStyle {
    let rule = if r.bool() { FillRule::EvenOdd } else { FillRule::NonZero };
    FillStyle::new(color(r)).with_rule(rule).with_tolerance_px(tolerance(r)).with_anti_alias(r.below(4) != 0)
}

fn stroke_style(r: &mut Reader<'_>) -> StrokeStyle {
    const CAPS: [LineCap; 3] = [LineCap::Butt, LineCap::Square, LineCap::Round];
    const JOINS: [LineJoin; 4] = [LineJoin::Miter, LineJoin::MiterClip, LineJoin::Round, LineJoin::Bevel];
    let width = if r.below(12) == 11 { r.edgy_f32() } else { f32::from(r.u8()) / 16.0 + 0.25 };
    let miter = if r.below(12) == 11 { r.edgy_f32() } else { 1.0 + f32::from(r.u8()) / 16.0 };
    StrokeStyle::new(color(r), width)
        .with_cap(CAPS[r.below(3)])
        .with_join(JOINS[r.below(4)])
        .with_miter_limit(miter)
        .with_tolerance_px(tolerance(r))
        .with_anti_alias(r.below(4) != 0)
}

fn points(r: &mut Reader<'_>) -> Vec<[f32; 2]> {
    (0..r.below(24)).map(|_| [coord(r), coord(r)]).collect()
}

/// A path of finite points (lyon's builder debug-asserts them), then, now and then, moved by
/// a transform that may be huge or non-finite (how hosts get non-finite paths).
fn path(r: &mut Reader<'_>) -> Path {
    let finite = |v: f32| if v.is_finite() { v } else { 0.0 };
    let p = |r: &mut Reader<'_>| point(finite(coord(r)), finite(coord(r)));
    let mut b = Path::builder();
    for _ in 0..1 + r.below(3) {
        b.begin(p(r));
        for _ in 0..r.below(10) {
            match r.below(3) {
                0 => {
                    b.line_to(p(r));
                }
                1 => {
                    let (c, to) = (p(r), p(r));
                    b.quadratic_bezier_to(c, to);
                }
                _ => {
                    let (c1, c2, to) = (p(r), p(r), p(r));
                    b.cubic_bezier_to(c1, c2, to);
                }
            }
        }
        b.end(r.bool());
    }
    let path = b.build();
    if r.below(3) == 0 {
        let m: [f32; 6] = std::array::from_fn(|_| r.edgy_f32());
        path.transformed(&Transform::new(m[0], m[1], m[2], m[3], m[4], m[5]))
    } else {
        path
    }
}

/// One call of the shapes API, with its arguments.
#[derive(Debug)]
enum Op {
    FillPath(Path, FillStyle),
    StrokePath(Path, StrokeStyle),
    Polyline(Vec<[f32; 2]>, bool, StrokeStyle),
    FillPolygon(Vec<[f32; 2]>, FillStyle),
    StrokePolygon(Vec<[f32; 2]>, StrokeStyle),
    Line([f32; 2], [f32; 2], StrokeStyle),
    FillCircle([f32; 2], f32, FillStyle),
    StrokeCircle([f32; 2], f32, StrokeStyle),
    FillEllipse([f32; 2], [f32; 2], f32, FillStyle),
    StrokeEllipse([f32; 2], [f32; 2], f32, StrokeStyle),
    FillRoundedRect([f32; 4], [f32; 4], FillStyle),
    StrokeRoundedRect([f32; 4], [f32; 4], StrokeStyle),
}

/// The calls an input makes: one to three.
fn ops(input: &[u8]) -> Vec<Op> {
    let mut r = Reader::new(input);
    let r = &mut r;
    let c = |r: &mut Reader<'_>| [coord(r), coord(r)];
    (0..1 + r.below(3))
        .map(|_| match r.below(12) {
            0 => Op::FillPath(path(r), fill_style(r)),
            1 => Op::StrokePath(path(r), stroke_style(r)),
            2 => Op::Polyline(points(r), r.bool(), stroke_style(r)),
            3 => Op::FillPolygon(points(r), fill_style(r)),
            4 => Op::StrokePolygon(points(r), stroke_style(r)),
            5 => Op::Line(c(r), c(r), stroke_style(r)),
            6 => Op::FillCircle(c(r), size(r), fill_style(r)),
            7 => Op::StrokeCircle(c(r), size(r), stroke_style(r)),
            8 => Op::FillEllipse(c(r), [size(r), size(r)], r.edgy_f32(), fill_style(r)),
            9 => Op::StrokeEllipse(c(r), [size(r), size(r)], r.edgy_f32(), stroke_style(r)),
            10 => Op::FillRoundedRect(
                [coord(r), coord(r), size(r), size(r)],
                [size(r), size(r), size(r), size(r)],
                fill_style(r),
            ),
            _ => Op::StrokeRoundedRect(
                [coord(r), coord(r), size(r), size(r)],
                [size(r), size(r), size(r), size(r)],
                stroke_style(r),
            ),
        })
        .collect()
}

/// The kind of a shapes error; a refused tessellated vertex (a shape made from valid input
/// that `push_mesh` could not take) is counted apart from refused arguments.
fn shape_err(e: &ShapeError) -> Outcome {
    match e {
        ShapeError::NonFinite { what: "tessellated vertex", .. } => Outcome::Err("NonFinite/vertex".to_string()),
        ShapeError::OutOfRange { what: "tessellated vertex", .. } => Outcome::Err("OutOfRange/vertex".to_string()),
        _ => Outcome::err(e),
    }
}

/// Runs one call on `mesh`.
fn call(shapes: &mut Shapes, mesh: &mut Mesh, op: &Op) -> Result<(), ShapeError> {
    match op {
        Op::FillPath(p, s) => shapes.fill_path(mesh, p, s),
        Op::StrokePath(p, s) => shapes.stroke_path(mesh, p, s),
        Op::Polyline(pts, closed, s) => shapes.polyline(mesh, pts, *closed, s),
        Op::FillPolygon(pts, s) => shapes.fill_polygon(mesh, pts, s),
        Op::StrokePolygon(pts, s) => shapes.stroke_polygon(mesh, pts, s),
        Op::Line(a, b, s) => shapes.line(mesh, *a, *b, s),
        Op::FillCircle(c, radius, s) => shapes.fill_circle(mesh, *c, *radius, s),
        Op::StrokeCircle(c, radius, s) => shapes.stroke_circle(mesh, *c, *radius, s),
        Op::FillEllipse(c, radii, rot, s) => shapes.fill_ellipse(mesh, *c, *radii, *rot, s),
        Op::StrokeEllipse(c, radii, rot, s) => shapes.stroke_ellipse(mesh, *c, *radii, *rot, s),
        Op::FillRoundedRect(rect, radii, s) => shapes.fill_rounded_rect(mesh, *rect, *radii, s),
        Op::StrokeRoundedRect(rect, radii, s) => shapes.stroke_rounded_rect(mesh, *rect, *radii, s),
    }
}

impl Target for ShapesTarget {
    fn name(&self) -> &'static str {
        "shapes"
    }

    fn default_iterations(&self) -> u64 {
        100_000
    }

    fn generate(&mut self, rng: &mut Rng) -> Vec<u8> {
        let n = 64 + rng.index(448);
        rng.bytes(n)
    }

    fn run(&mut self, input: &[u8]) -> Outcome {
        let mut mesh = Mesh::default();
        let mut last = Outcome::Ok;
        for (i, op) in ops(input).iter().enumerate() {
            let before = mesh.clone();
            match call(&mut self.shapes, &mut mesh, op) {
                Ok(()) => {
                    if mesh.indices.len() % 3 != 0 || mesh.indices.iter().any(|&i| i as usize >= mesh.vertices.len()) {
                        return Outcome::Finding(format!("call {i} made a mesh with a bad index"));
                    }
                    // The shapes API refuses a shape whose vertices push_mesh could not take
                    // (non-finite, or at or past Quad::MAX_POSITION): one it returned Ok for
                    // must have none.
                    let max = layerbatch_core::Quad::MAX_POSITION;
                    if let Some(v) =
                        mesh.vertices.iter().find(|v| !v.pos_px.iter().all(|p| p.is_finite() && p.abs() < max))
                    {
                        return Outcome::Finding(format!(
                            "call {i} returned Ok with a vertex push_mesh cannot take (non-finite or |x| >= 2^30): {v:?}"
                        ));
                    }
                }
                // The API's answer to bad input (or to a shape it could not make drawable):
                // fine, if the mesh is left as it was.
                Err(e) => {
                    if mesh != before {
                        return Outcome::Finding(format!("call {i}, refused ({e:?}), changed the mesh"));
                    }
                    last = shape_err(&e);
                }
            }
        }
        // The mesh into a batcher, as the docs say: with the white texture.
        let Ok(mut batcher) = Batcher::new(Limits::guaranteed_minimum(), Config::default()) else {
            return Outcome::Finding("Batcher::new failed".to_string());
        };
        let Ok(white) = batcher.textures().white() else { return Outcome::Finding("white() failed".to_string()) };
        let (mut validator, mut device) = (PlanValidator::new(batcher.budget()), MockDevice::new(batcher.budget()));
        batcher.begin_frame();
        if let Err(e) = batcher.push_mesh(white, &mesh) {
            let bad = match e {
                MeshError::BadVertex { vertex } => mesh.vertices.get(vertex).copied(),
                _ => None,
            };
            return Outcome::Finding(format!("the batcher refuses the mesh the shapes API made: {e}: {bad:?}"));
        }
        if let Err(m) = check_plan(&mut batcher, &mut validator, &mut device) {
            return Outcome::Finding(m);
        }
        last
    }

    fn describe(&mut self, input: &[u8]) -> String {
        format!("{:?}", ops(input))
    }
}
