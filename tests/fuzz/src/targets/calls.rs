//! `calls`: the call-sequence model (`layerbatch_testkit::callseq`, DESIGN 30) with its choices
//! read from the input: register, write, resize and free textures, render targets, resident
//! layers created, updated, replaced, destroyed and drawn (whole and by range, parked behind
//! an earlier plan of the host frame), a tilemap animated and drawn, effects, lights, normal
//! maps, ramp rows, sort keys and clips, several plans a host frame with `end_frame`,
//! `restore` with and without CPU copies, `compact`, on four configurations (a desktop device,
//! a small one under budget pressure, looks, indexed quads with BC textures). After every
//! plan: the validator accepts it, the mock device runs it, every quad samples exactly its
//! texture's pixels, and nothing that returned `Ok` is missing from it. Any departure is a
//! finding.

use layerbatch_testkit::callseq::{Choices, Setup, Tally, World};

use crate::rng::{Reader, Rng};
use crate::runner::{Outcome, Target};

/// The model's choices, read from an input's bytes (zeros once it is read).
struct Bytes<'a>(Reader<'a>);

impl Choices for Bytes<'_> {
    fn below(&mut self, n: u64) -> u64 {
        match n {
            0 => 0,
            1..=256 => u64::from(self.0.u8()) % n,
            _ => u64::from(self.0.u32()) % n,
        }
    }
}

/// Most calls one input makes.
const MAX_CALLS: usize = 4000;

#[derive(Default)]
pub struct Calls {
    tally: Tally,
    inputs: u64,
}

impl Target for Calls {
    fn name(&self) -> &'static str {
        "calls"
    }

    fn default_iterations(&self) -> u64 {
        20_000
    }

    fn generate(&mut self, rng: &mut Rng) -> Vec<u8> {
        let n = 64 + rng.index(6000);
        rng.bytes(n)
    }

    fn run(&mut self, input: &[u8]) -> Outcome {
        let setups = Setup::all();
        let setup = setups[input.first().map_or(0, |b| *b as usize) % setups.len()];
        let mut world = match World::new(setup) {
            Ok(w) => w,
            Err(e) => return Outcome::Finding(e),
        };
        let mut c = Bytes(Reader::new(input.get(1..).unwrap_or(&[])));
        let mut result = Ok(());
        for _ in 0..MAX_CALLS {
            if c.0.is_empty() {
                break;
            }
            if let Err(e) = world.step(&mut c) {
                result = Err(e);
                break;
            }
        }
        let result = result.and_then(|()| world.finish_run());
        let t = world.tally;
        self.inputs += 1;
        self.tally.calls += t.calls;
        self.tally.refused += t.refused;
        self.tally.plans += t.plans;
        self.tally.resident_quads += t.resident_quads;
        self.tally.restores += t.restores;
        match result {
            Ok(()) => Outcome::Ok,
            Err(e) => Outcome::Finding(format!("{} (setup {}, call {})", e, setup.name, t.calls)),
        }
    }
}

impl Drop for Calls {
    fn drop(&mut self) {
        let t = &self.tally;
        println!(
            "calls: {} inputs, {} calls ({} refused as the model expected), {} plans checked against the validator \
             and the model, {} resident quads checked, {} restores",
            self.inputs, t.calls, t.refused, t.plans, t.resident_quads, t.restores
        );
    }
}
