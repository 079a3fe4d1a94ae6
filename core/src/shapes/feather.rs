//! Turns lyon's triangles into mesh triangles with a one-pixel feathered edge: boundary
//! vertices move half a pixel in, and a band of two triangles per boundary edge fades to
//! transparent half a pixel out.

use super::ShapeError;
use crate::{Mesh, Vertex};
use lyon_tessellation::math::Point;

/// Longest outward miter, in half-band widths: at corners sharper than 60 degrees the band's
/// outer side is bevelled instead of reaching far past the tip.
const BEVEL_MITER: f32 = 2.0;
/// Longest inward miter at a concave corner, in half-band widths: moving further (a notch
/// sharper than about 40 degrees) would dim the fill beyond the notch's tip, moving less
/// leaves the band's inner side skewed along the corner's edges (a little extra coverage).
/// 3 kept 6,000 random polygons within 2 of tiny-skia away from the band; 4 did not.
const CONCAVE_INSET_MITER: f32 = 3.0;
/// No boundary edge at this vertex yet.
const NONE: u32 = u32::MAX;
/// More than one boundary edge in (or out) at this vertex: it is not a manifold corner.
const MANY: u32 = u32::MAX - 1;

/// One triangle side, for finding the sides that belong to a single triangle.
#[derive(Clone, Copy, Debug)]
struct Side {
    /// `min(from, to) << 32 | max(from, to)`: both directions sort together.
    key: u64,
    from: u32,
    to: u32,
    /// From a zero-area triangle: no outward direction.
    flat: bool,
}

/// Scratch buffers of the feathering pass, kept between shapes so that steady state does not
/// allocate.
#[derive(Debug, Default)]
pub(crate) struct Feather {
    order: Vec<u32>,
    remap: Vec<u32>,
    pos: Vec<[f32; 2]>,
    tris: Vec<([u32; 3], bool)>,
    sides: Vec<Side>,
    /// Boundary edges `from -> to`, interior on the left (positive cross product side).
    boundary: Vec<[u32; 2]>,
    /// Outward unit normal of each boundary edge.
    normals: Vec<[f32; 2]>,
    /// Length of each boundary edge.
    lengths: Vec<f32>,
    /// Per vertex: the boundary edge arriving, or `NONE` / `MANY`.
    edge_in: Vec<u32>,
    /// Per vertex: the boundary edge leaving, or `NONE` / `MANY`.
    edge_out: Vec<u32>,
    /// Per vertex: where its band-inner vertex goes, relative to it (zero off the boundary).
    inset: Vec<[f32; 2]>,
    /// Per vertex: where its band-outer vertex goes, relative to it, unless bevelled.
    outset: Vec<[f32; 2]>,
    /// Per vertex: whether it is a convex corner sharper than 60 degrees, so the band's outer
    /// side is bevelled.
    bevel: Vec<bool>,
    /// Per vertex: the band-outer vertex (mesh-local) of its arriving edge, or `NONE`.
    outer_in: Vec<u32>,
    /// Per vertex: the band-outer vertex (mesh-local) of its leaving edge, or `NONE`.
    outer_out: Vec<u32>,
    /// Triangle corners `(vertex, triangle, 0..3)` at pinch vertices.
    corners: Vec<(u32, u32, u8)>,
    /// Per corner: its fan, or `NONE`.
    fan: Vec<u32>,
    /// Per corner: its parent in the union-find over corners sharing an edge.
    parent: Vec<u32>,
    /// `(other vertex, corner)` for both other vertices of each corner, sorted: corners with
    /// the same other vertex share an edge at the pinch vertex.
    links: Vec<(u32, u32)>,
    /// Per union-find root: its fan, or `NONE`.
    fan_of_root: Vec<u32>,
}

impl Feather {
    /// Appends `indices` over `positions` to `mesh` in `color`; with `feather`, with the
    /// anti-aliasing band. Leaves `mesh` as it was on error.
    pub(crate) fn append(
        &mut self,
        mesh: &mut Mesh,
        positions: &[Point],
        indices: &[u32],
        color: [u8; 4],
        feather: bool,
    ) -> Result<(), ShapeError> {
        if indices.len() < 3 {
            return Ok(());
        }
        if !feather {
            let base = check_room(mesh, positions.len())?;
            mesh.vertices.extend(positions.iter().map(|p| Vertex::solid([p.x, p.y], color)));
            mesh.indices.extend(indices.iter().map(|&i| base + i));
            return Ok(());
        }
        self.weld(positions, indices);
        self.find_boundary();
        self.link();
        if self.split_pinches() {
            self.find_boundary();
            self.link();
        }
        self.miters();
        self.emit(mesh, color)
    }

    /// Merges vertices at the same position (so that coincident vertices in lyon's output do
    /// not look like a boundary), drops triangles that collapse, and orients the rest so that
    /// their cross product is positive.
    fn weld(&mut self, positions: &[Point], indices: &[u32]) {
        // `+ 0.0` turns -0.0 into 0.0 so that both weld.
        let bits = |p: &Point| ((p.x + 0.0).to_bits(), (p.y + 0.0).to_bits());
        self.order.clear();
        self.order.extend(0..positions.len() as u32);
        self.order.sort_unstable_by_key(|&i| bits(&positions[i as usize]));
        self.remap.clear();
        self.remap.resize(positions.len(), 0);
        self.pos.clear();
        let mut last = None;
        for &i in &self.order {
            let p = &positions[i as usize];
            if last != Some(bits(p)) {
                last = Some(bits(p));
                self.pos.push([p.x + 0.0, p.y + 0.0]);
            }
            self.remap[i as usize] = self.pos.len() as u32 - 1;
        }
        self.tris.clear();
        for t in indices.chunks_exact(3) {
            let [a, mut b, mut c] = [t[0], t[1], t[2]].map(|i| self.remap[i as usize]);
            if a == b || b == c || a == c {
                continue;
            }
            let cross = cross3(self.pos[a as usize], self.pos[b as usize], self.pos[c as usize]);
            if cross < 0.0 {
                std::mem::swap(&mut b, &mut c);
            }
            self.tris.push(([a, b, c], cross == 0.0));
        }
    }

    /// Boundary edges: sides of exactly one triangle.
    fn find_boundary(&mut self) {
        self.sides.clear();
        for &([a, b, c], flat) in &self.tris {
            for (from, to) in [(a, b), (b, c), (c, a)] {
                let key = (u64::from(from.min(to)) << 32) | u64::from(from.max(to));
                self.sides.push(Side { key, from, to, flat });
            }
        }
        self.sides.sort_unstable_by_key(|s| s.key);
        self.boundary.clear();
        let mut i = 0;
        while i < self.sides.len() {
            let mut j = i + 1;
            while j < self.sides.len() && self.sides[j].key == self.sides[i].key {
                j += 1;
            }
            let s = self.sides[i];
            if j == i + 1 && !s.flat {
                self.boundary.push([s.from, s.to]);
            }
            i = j;
        }
    }

    /// Per vertex, the boundary edge arriving and the one leaving.
    fn link(&mut self) {
        let n = self.pos.len();
        for v in [&mut self.edge_in, &mut self.edge_out] {
            v.clear();
            v.resize(n, NONE);
        }
        for (e, &[from, to]) in self.boundary.iter().enumerate() {
            let mark = |slot: &mut u32| *slot = if *slot == NONE { e as u32 } else { MANY };
            mark(&mut self.edge_out[from as usize]);
            mark(&mut self.edge_in[to as usize]);
        }
    }

    /// Gives each fan of triangles around a pinch vertex (where boundary loops touch, as at
    /// the crossings of an even-odd star) its own copy of the vertex, so that every copy is a
    /// plain corner with one boundary edge in and one out. Returns whether it split any.
    fn split_pinches(&mut self) -> bool {
        let mut split = false;
        // Every triangle corner, grouped by vertex.
        self.corners.clear();
        for (t, (tri, _)) in self.tris.iter().enumerate() {
            for (k, &v) in tri.iter().enumerate() {
                if self.edge_in[v as usize] == MANY || self.edge_out[v as usize] == MANY {
                    self.corners.push((v, t as u32, k as u8));
                }
            }
        }
        self.corners.sort_unstable();
        let mut start = 0;
        while start < self.corners.len() {
            let v = self.corners[start].0;
            let end = start + self.corners[start..].iter().take_while(|c| c.0 == v).count();
            split |= self.split_fans(start..end);
            start = end;
        }
        split
    }

    /// Gives each fan of `self.corners[range]` (corners at one vertex, connected through
    /// triangles that share an edge there) but the first its own copy of the vertex.
    ///
    /// Linear after a sort: corners that share an other vertex are joined in a union-find
    /// (lyon fills a thin spike as one fan of tens of thousands of triangles at one vertex;
    /// a flood fill comparing every pair took seconds there). Fans are numbered in the order
    /// of their first corner, so the fan of the first corner keeps the vertex.
    fn split_fans(&mut self, range: std::ops::Range<usize>) -> bool {
        let corners = &self.corners[range];
        let v = corners[0].0;
        self.links.clear();
        for (c, &(_, t, k)) in corners.iter().enumerate() {
            let tri = self.tris[t as usize].0;
            for other in [tri[(k as usize + 1) % 3], tri[(k as usize + 2) % 3]] {
                self.links.push((other, c as u32));
            }
        }
        self.links.sort_unstable();
        self.parent.clear();
        self.parent.extend(0..corners.len() as u32);
        for pair in self.links.windows(2) {
            if pair[0].0 == pair[1].0 {
                union(&mut self.parent, pair[0].1, pair[1].1);
            }
        }
        self.fan.clear();
        self.fan.resize(corners.len(), NONE);
        // Fan ids by root, in the order of each fan's first corner.
        let mut fans = 0;
        self.fan_of_root.clear();
        self.fan_of_root.resize(corners.len(), NONE);
        for c in 0..corners.len() {
            let root = find(&mut self.parent, c as u32) as usize;
            if self.fan_of_root[root] == NONE {
                self.fan_of_root[root] = fans;
                fans += 1;
            }
            self.fan[c] = self.fan_of_root[root];
        }
        let first_copy = self.pos.len() as u32;
        for _ in 1..fans {
            self.pos.push(self.pos[v as usize]);
        }
        for (c, &(_, t, k)) in corners.iter().enumerate() {
            let f = self.fan[c];
            if f > 0 {
                self.tris[t as usize].0[k as usize] = first_copy + f - 1;
            }
        }
        fans > 1
    }

    /// Outward normals per boundary edge and miters per boundary vertex.
    fn miters(&mut self) {
        let n = self.pos.len();
        for v in [&mut self.inset, &mut self.outset] {
            v.clear();
            v.resize(n, [0.0; 2]);
        }
        self.bevel.clear();
        self.bevel.resize(n, false);
        self.normals.clear();
        self.lengths.clear();
        for &[from, to] in &self.boundary {
            let (a, b) = (self.pos[from as usize], self.pos[to as usize]);
            let d = [b[0] - a[0], b[1] - a[1]];
            let len = d[0].hypot(d[1]);
            self.normals.push(if len > 0.0 && len.is_finite() { [d[1] / len, -d[0] / len] } else { [0.0; 2] });
            self.lengths.push(len);
        }
        for v in 0..n {
            let (ei, eo) = (self.edge_in[v] as usize, self.edge_out[v] as usize);
            if ei >= MANY as usize || eo >= MANY as usize {
                continue;
            }
            let (n1, n2) = (self.normals[ei], self.normals[eo]);
            let sum = [n1[0] + n2[0], n1[1] + n2[1]];
            let sum_len = sum[0].hypot(sum[1]);
            // Straight on along the arriving edge, for a hairpin.
            let dir = if sum_len > 1e-6 { [sum[0] / sum_len, sum[1] / sum_len] } else { [-n1[1], n1[0]] };
            // 1 / cos(half the turn): the offset, in half pixels, that keeps the band half
            // a pixel from both edges. It is taken in full on the side where the corner is
            // a wedge (inward at a convex corner: a sharp tip fades out where it gets narrower
            // than a pixel; outward at a concave one: a narrow notch fades in), but past a
            // pixel no further than the shorter edge is long. On the other side it would
            // reach far from the corner: there it is clamped (inward), or the band is
            // bevelled (outward).
            let denom = 1.0 + n1[0] * n2[0] + n1[1] * n2[1];
            let miter = if denom > 0.0 { (2.0 / denom).sqrt() } else { f32::INFINITY };
            let convex = n1[0] * n2[1] - n1[1] * n2[0] >= 0.0;
            let long = miter.min((2.0 * self.lengths[ei].min(self.lengths[eo])).max(BEVEL_MITER));
            let short = miter.min(if convex { BEVEL_MITER } else { CONCAVE_INSET_MITER });
            let (inward, outward) = if convex { (long, short) } else { (short, long) };
            self.bevel[v] = convex && miter > BEVEL_MITER;
            self.inset[v] = [-0.5 * dir[0] * inward, -0.5 * dir[1] * inward];
            self.outset[v] = [0.5 * dir[0] * outward, 0.5 * dir[1] * outward];
        }
    }

    /// Writes the moved interior, the outer ring and the band into `mesh`.
    fn emit(&mut self, mesh: &mut Mesh, color: [u8; 4]) -> Result<(), ShapeError> {
        let manifold = |v: usize| self.edge_in[v] < MANY && self.edge_out[v] < MANY;
        let outers: usize = (0..self.pos.len()).filter(|&v| manifold(v)).map(|v| 1 + usize::from(self.bevel[v])).sum();
        let loose_ends: usize =
            self.boundary.iter().map(|e| e.iter().filter(|&&v| !manifold(v as usize)).count()).sum();
        let base = check_room(mesh, self.pos.len() + outers + loose_ends)?;
        let clear = [0u8; 4];
        let at = |p: [f32; 2], d: [f32; 2], k: f32| [p[0] + k * d[0], p[1] + k * d[1]];
        for (&p, &d) in self.pos.iter().zip(&self.inset) {
            mesh.vertices.push(Vertex::solid(at(p, d, 1.0), color));
        }
        for v in [&mut self.outer_in, &mut self.outer_out] {
            v.clear();
            v.resize(self.pos.len(), NONE);
        }
        for v in 0..self.pos.len() {
            if !manifold(v) {
                continue;
            }
            let p = self.pos[v];
            let mut push = |pos| {
                mesh.vertices.push(Vertex::solid(pos, clear));
                mesh.vertices.len() as u32 - 1 - base
            };
            if self.bevel[v] {
                // Too sharp to miter: the outer side cuts across the tip, half a pixel out.
                let (n_in, n_out) = (self.normals[self.edge_in[v] as usize], self.normals[self.edge_out[v] as usize]);
                let (oi, oo) = (push(at(p, n_in, 0.5)), push(at(p, n_out, 0.5)));
                mesh.indices.extend_from_slice(&[base + v as u32, base + oi, base + oo]);
                (self.outer_in[v], self.outer_out[v]) = (oi, oo);
            } else {
                let o = push(at(p, self.outset[v], 1.0));
                (self.outer_in[v], self.outer_out[v]) = (o, o);
            }
        }
        for (&[a, b], &n) in self.boundary.iter().zip(&self.normals) {
            let mut loose = |v: u32, o: u32| {
                if o != NONE {
                    return o;
                }
                // Where boundary loops overlap: this edge's own normal, no inset.
                mesh.vertices.push(Vertex::solid(at(self.pos[v as usize], n, 0.5), clear));
                mesh.vertices.len() as u32 - 1 - base
            };
            let (oa, ob) = (loose(a, self.outer_out[a as usize]), loose(b, self.outer_in[b as usize]));
            mesh.indices.extend_from_slice(&[base + a, base + b, base + ob, base + a, base + ob, base + oa]);
        }
        // The interior last: where lyon's stroke triangles overlap, an inner band lies under
        // the other part's interior instead of fading it.
        for &(t, _) in &self.tris {
            mesh.indices.extend(t.map(|i| base + i));
        }
        debug_assert_eq!(mesh.vertices.len() - base as usize, self.pos.len() + outers + loose_ends);
        Ok(())
    }
}

/// The base index for `added` more vertices, or the error if they would not fit `u32`.
fn check_room(mesh: &Mesh, added: usize) -> Result<u32, ShapeError> {
    let vertices = mesh.vertices.len().saturating_add(added);
    if vertices > u32::MAX as usize {
        return Err(ShapeError::TooManyVertices { vertices });
    }
    Ok(mesh.vertices.len() as u32)
}

/// Twice the signed area of `a, b, c`.
fn cross3(a: [f32; 2], b: [f32; 2], c: [f32; 2]) -> f32 {
    (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
}

/// The root of `x` in the union-find `parent`, halving the path on the way.
fn find(parent: &mut [u32], mut x: u32) -> u32 {
    while parent[x as usize] != x {
        let up = parent[parent[x as usize] as usize];
        parent[x as usize] = up;
        x = up;
    }
    x
}

/// Joins the sets of `a` and `b` (the larger root under the smaller: deterministic).
fn union(parent: &mut [u32], a: u32, b: u32) {
    let (ra, rb) = (find(parent, a), find(parent, b));
    if ra != rb {
        let (lo, hi) = if ra < rb { (ra, rb) } else { (rb, ra) };
        parent[hi as usize] = lo;
    }
}
