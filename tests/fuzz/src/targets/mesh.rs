//! `mesh`: random vertex and index arrays (indices past the end, counts not a multiple of
//! three, NaN, infinite and huge positions and uvs) through `Batcher::push_mesh` and
//! `push_triangles`, on the white texture, a registered one, a freed one or another
//! batcher's, in a frame or not; then the plan through the validator and the mock device.

use super::check_plan;
use crate::rng::{Reader, Rng};
use crate::runner::{Outcome, Target};
use layerbatch_core::validate::PlanValidator;
use layerbatch_core::{Batcher, Config, Limits, Mesh, MockDevice, TextureDesc, Vertex};

pub struct MeshTarget;

fn vertex(r: &mut Reader<'_>) -> Vertex {
    let f = |r: &mut Reader<'_>| if r.below(5) == 0 { r.edgy_f32() } else { r.plain_f32() };
    let uv = |r: &mut Reader<'_>| if r.below(4) == 0 { r.edgy_f32() } else { f32::from(r.u8()) / 255.0 };
    Vertex::new([f(r), f(r)], [uv(r), uv(r)], [r.u8(), r.u8(), r.u8(), r.u8()])
}

impl Target for MeshTarget {
    fn name(&self) -> &'static str {
        "mesh"
    }

    fn default_iterations(&self) -> u64 {
        300_000
    }

    fn generate(&mut self, rng: &mut Rng) -> Vec<u8> {
        let n = 8 + rng.index(400);
        rng.bytes(n)
    }

    fn run(&mut self, input: &[u8]) -> Outcome {
        let mut r = Reader::new(input);
        let Ok(mut batcher) = Batcher::new(Limits::guaranteed_minimum(), Config::default()) else {
            return Outcome::Finding("Batcher::new failed".to_string());
        };
        let Ok(mut other) = Batcher::new(Limits::guaranteed_minimum(), Config::default()) else {
            return Outcome::Finding("Batcher::new failed".to_string());
        };
        let (w, h) = (1 + u32::from(r.u8() % 64), 1 + u32::from(r.u8() % 64));
        let registered =
            |b: &mut Batcher| b.textures().register(&TextureDesc::new(w, h), &vec![200; (w * h * 4) as usize]);
        let (Ok(white), Ok(texture), Ok(freed), Ok(foreign)) =
            (batcher.textures().white(), registered(&mut batcher), registered(&mut batcher), registered(&mut other))
        else {
            return Outcome::Finding("registering a small texture failed".to_string());
        };
        if batcher.textures().free(freed).is_err() {
            return Outcome::Finding("freeing a texture failed".to_string());
        }
        let (mut validator, mut device) = (PlanValidator::new(batcher.budget()), MockDevice::new(batcher.budget()));
        let in_frame = r.below(8) != 0;
        if in_frame {
            batcher.begin_frame();
        }
        let mut last = Outcome::Ok;
        for _ in 0..1 + r.below(4) {
            let id = [white, texture, texture, texture, freed, foreign][r.below(6)];
            let mut mesh = Mesh::default();
            for _ in 0..r.below(48) {
                mesh.vertices.push(vertex(&mut r));
            }
            let n = mesh.vertices.len() as u32;
            let count = if r.below(4) == 0 { r.below(40) } else { 3 * r.below(20) };
            for _ in 0..count {
                let i = match r.below(8) {
                    0 => r.edgy_u32(),
                    1 => n,
                    _ => u32::from(r.u8()) % n.max(1),
                };
                mesh.indices.push(i);
            }
            let result = if r.bool() {
                batcher.push_mesh(id, &mesh)
            } else {
                batcher.push_triangles(id, &mesh.vertices, &mesh.indices)
            };
            if let Err(e) = result {
                last = Outcome::err(&e);
            } else if !in_frame || id == freed || id == foreign {
                return Outcome::Finding(format!("a mesh was accepted outside a frame or on a bad texture ({id:?})"));
            }
        }
        if in_frame {
            if let Err(m) = check_plan(&mut batcher, &mut validator, &mut device) {
                return Outcome::Finding(m);
            }
        }
        last
    }
}
