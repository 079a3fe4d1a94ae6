//! The programs' GLSL (core's WGSL translated by naga): sampler budgets per stage, the
//! instance bit layout by name, and compile/link errors with info logs.
// The tests drive GL directly (host-side state, readback): every call is in `unsafe`.
#![allow(unsafe_code)]

use crate::common;

use common::Ctx;
use layerbatch_core::shader::wgsl;
use layerbatch_core::ProgramKey;
use layerbatch_core::{Batcher, Budget, Config, Limits};
use layerbatch_gl::{compile_program_for_test, glow, program_sources, Error, Renderer, Stage};

/// Sampler declarations in a GLSL source: `uniform` lines whose type is a sampler.
fn sampler_declarations(src: &str) -> usize {
    src.lines().map(str::trim).filter(|l| l.starts_with("uniform") && l.contains("sampler")).count()
}

// 8. Built for the guaranteed minimum (16 units), no stage declares more than 16 samplers:
//    the fragment stage the tier's, the vertex stage one (a moving layer's motions: the layer
//    sizes come from a uniform), whatever the tier.
#[test]
fn sampler_count_per_stage() {
    let minimum = Limits::guaranteed_minimum();
    let budget = Budget::new(&minimum, &Config::default().with_max_slots(32)).unwrap();
    assert_eq!(budget.slots, 16);
    assert_eq!(budget.tiers, [1, 2, 4, 8, 16]);
    for gles in [false, true] {
        for &tier in &budget.tiers {
            let (vs, fs) = program_sources(&ProgramKey::plain(tier), gles).expect("translates");
            assert_eq!(sampler_declarations(&vs), 1, "vertex stage, tier {tier}");
            assert_eq!(vs.matches("sampler2D _group_2_binding_1_vs;").count(), 1, "the motions");
            assert!(!vs.contains("sampler2DArray"), "the vertex stage samples no slot");
            assert!(!vs.contains("texture(") && !vs.contains("textureGrad("), "the vertex stage only fetches");
            let n = sampler_declarations(&fs);
            assert_eq!(n, tier as usize, "fragment stage, tier {tier}");
            assert!(n as u32 <= minimum.max_texture_units, "fragment stage, tier {tier}: {n} samplers");
            assert_eq!(fs.matches("sampler2DArray _group_1_binding_").count(), tier as usize);
            if tier == 1 {
                // WGSL's `select` becomes `?:` of two values: a select, not a branch. The vertex
                // stage's one `if` is the draw's: whether it moves (a uniform).
                let keywords = ["if", "else", "switch", "for", "while"];
                let words = |src: &str| -> usize {
                    src.split(|c: char| !c.is_alphanumeric() && c != '_').filter(|w| keywords.contains(w)).count()
                };
                assert_eq!(words(&fs), 0, "tier 1 has no branch:\n{fs}");
                assert_eq!(words(&vs), 1, "tier 1's vertex stage branches on moving alone:\n{vs}");
            }
            let version = if gles { "#version 300 es" } else { "#version 330 core" };
            assert!(vs.starts_with(version) && fs.starts_with(version));
        }
    }
}

// Every tier of the guaranteed-minimum budget compiles and links on the real driver.
fn minimum_budget_links(ctx: &Ctx) {
    let batcher = Batcher::new(Limits::guaranteed_minimum(), Config::default()).unwrap();
    let renderer = Renderer::new(ctx.gl.clone(), batcher.budget()).expect("every tier links");
    assert_eq!(renderer.tiers(), batcher.budget().tiers);
    assert_eq!(renderer.stats().device_total.pipeline_compiles, 5);
    // The most the device allows (32 on llvmpipe) links too.
    let limits = Renderer::query_limits(&ctx.gl);
    let big = Batcher::new(limits, Config::default().with_max_slots(32)).unwrap();
    let r2 = Renderer::new(ctx.gl.clone(), big.budget()).expect("every tier links");
    assert_eq!(r2.stats().device_total.pipeline_compiles, big.budget().tiers.len() as u64);
    r2.destroy();
    renderer.destroy();
}
both_flavors!(minimum_budget_links);

// 9. A deliberately broken shader yields an error with the stage and the driver's info log.
fn broken_shader(ctx: &Ctx) {
    let gles = ctx.flavor == common::Flavor::Gles30;
    let (vs, fs) = program_sources(&ProgramKey::plain(2), gles).expect("translates");
    let version = vs.lines().next().unwrap();

    let bad_fs = format!("{version}\nvoid main() {{ this is not glsl; }}\n");
    match compile_program_for_test(&ctx.gl, &vs, &bad_fs) {
        Err(Error::Shader { stage: Stage::Fragment, message, .. }) => {
            assert!(!message.trim().is_empty());
            assert!(message.to_lowercase().contains("error"), "driver log: {message}");
            println!("fragment info log: {message}");
        }
        other => panic!("expected a fragment compile error, got {other:?}"),
    }

    let bad_vs = format!("{version}\nvoid main() {{ gl_Position = undefined_thing; }}\n");
    match compile_program_for_test(&ctx.gl, &bad_vs, &fs) {
        Err(Error::Shader { stage: Stage::Vertex, message, .. }) => {
            assert!(message.to_lowercase().contains("error"), "driver log: {message}");
        }
        other => panic!("expected a vertex compile error, got {other:?}"),
    }

    // Both stages compile, but declare one uniform with two types: a link error.
    let precision = if gles { "precision highp float;\n" } else { "" };
    let link_vs = format!("{version}\nuniform float u_x;\nvoid main() {{ gl_Position = vec4(u_x); }}\n");
    let link_fs =
        format!("{version}\n{precision}uniform vec2 u_x;\nout vec4 o;\nvoid main() {{ o = vec4(u_x, 0.0, 1.0); }}\n");
    match compile_program_for_test(&ctx.gl, &link_vs, &link_fs) {
        Err(Error::Shader { stage: Stage::Link, message, .. }) => {
            assert!(!message.trim().is_empty());
            println!("link info log: {message}");
        }
        other => panic!("expected a link error, got {other:?}"),
    }

    // The real sources compile through the same entry point.
    let program = compile_program_for_test(&ctx.gl, &vs, &fs).expect("valid sources link");
    // SAFETY: the program returned above, deleted once.
    unsafe { glow::HasContext::delete_program(&*ctx.gl, program) };
}
both_flavors!(broken_shader);

/// The `const NAME: u32 = VALUEu;` declarations of a WGSL source, in order.
fn uint_constants(src: &str) -> Vec<(String, u32)> {
    src.lines()
        .filter_map(|l| {
            let rest = l.trim().strip_prefix("const ")?;
            let (name, value) = rest.split_once(": u32 = ")?;
            let value = value.strip_suffix("u;").unwrap_or_else(|| panic!("not `VALUEu;`: {l}"));
            Some((name.to_owned(), value.parse().unwrap_or_else(|_| panic!("not a decimal u32: {l}"))))
        })
        .collect()
}

/// The operand after each shift or bitwise-and operator of `body` (`&&` is not one).
fn bit_operands(body: &str) -> Vec<&str> {
    let mut operands = Vec::new();
    let mut rest = body;
    while let Some(i) = rest.find(['>', '<', '&']) {
        let op_len = match &rest[i..] {
            r if r.starts_with(">>") || r.starts_with("<<") || r.starts_with("&&") => 2,
            _ => 1,
        };
        let is_bit_op = matches!(&rest[i..i + op_len], ">>" | "<<" | "&");
        rest = &rest[i + op_len..];
        if is_bit_op {
            let operand = rest.trim_start();
            let end = operand.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(operand.len());
            operands.push(&operand[..end]);
        }
    }
    operands
}

// The instance bit layout in the source GL programs are made of (core's WGSL; naga folds
// the constants into the GLSL) is core's: it declares exactly
// `Instance::SHADER_CONSTANTS` as `const NAME: u32 = VALUEu;`, and the body shifts and masks
// by those names only, never by a literal.
#[test]
fn shader_constants_match_rust() {
    let mut want: Vec<(String, u32)> =
        layerbatch_core::plan::Instance::SHADER_CONSTANTS.iter().map(|&(n, v)| (n.to_owned(), v)).collect();
    // The motion texture's layout, from core too.
    want.push(("MOTION_ROW_TEXELS".to_owned(), layerbatch_core::MOTION_ROW_TEXELS));
    // The look's parameter halves in the globals, from core too.
    want.push(("LOOK_PARAMS_HIGH_SHIFT".to_owned(), layerbatch_core::shader::LOOK_PARAMS_HIGH_SHIFT));
    want.sort();
    for gles in [false, true] {
        for tier in 1..=32 {
            let source = wgsl(&ProgramKey::plain(tier));
            // Every program translates, for both GLSL versions.
            program_sources(&ProgramKey::plain(tier), gles).expect("translates");
            {
                let src = &source;
                let what = format!("tier {tier}, gles {gles}");
                let mut got = uint_constants(src);
                got.sort();
                assert_eq!(got, want, "{what}:\n{src}");
                let body: String =
                    src.lines().filter(|l| !l.trim().starts_with("const ")).collect::<Vec<_>>().join("\n");
                for operand in bit_operands(&body) {
                    assert!(
                        !operand.starts_with(|c: char| c.is_ascii_digit()),
                        "{what}: a literal `{operand}` shifts or masks; use a SHADER_CONSTANTS name:\n{src}"
                    );
                }
                for literal in ["0xff", ">> 8u", ">> 16u", "& 0xffu", "& 1u"] {
                    assert!(!body.contains(literal), "{what}: `{literal}` in the body:\n{src}");
                }
            }
            // The vertex stage unpacks slot, flags and layer with the names.
            for name in ["SLOT_MASK", "FLAGS_SHIFT", "FLAGS_MASK", "LAYER_SHIFT", "FLAG_CLAMP_TO_RECT"] {
                let uses = source.matches(name).count();
                assert!(
                    uses >= 2 || (tier == 1 && name == "SLOT_MASK"),
                    "tier {tier}: {name} declared and used:\n{source}"
                );
            }
        }
    }
}
