//! The WGSL of every tier fits the weakest wgpu device: per stage, the textures and samplers an
//! entry point reaches are counted from the source (a small reflection over the generated
//! text: global declarations, function bodies, and the call graph from each entry point).

use std::collections::{BTreeSet, HashMap};

use layerbatch_core::ProgramKey;
use layerbatch_core::{Budget, Config};
use layerbatch_wgpu::{limits, pipeline_source};

struct Global {
    name: String,
    ty: String,
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Whether `text` contains `name` as a whole identifier.
fn mentions(text: &str, name: &str) -> bool {
    text.match_indices(name).any(|(i, _)| {
        let before = text[..i].chars().next_back().is_none_or(|c| !is_ident(c));
        let after = text[i + name.len()..].chars().next().is_none_or(|c| !is_ident(c));
        before && after
    })
}

fn globals(src: &str) -> Vec<Global> {
    src.lines()
        .map(str::trim)
        .filter(|l| l.starts_with("@group("))
        .map(|l| {
            let rest = &l[l.find("var").expect("a var")..];
            let rest = rest.trim_start_matches("var").trim_start_matches("<uniform>").trim();
            let (name, ty) = rest.split_once(':').expect("name: type");
            Global { name: name.trim().to_string(), ty: ty.trim().trim_end_matches(';').to_string() }
        })
        .collect()
}

/// Function name -> body.
fn functions(src: &str) -> HashMap<String, String> {
    let mut out = HashMap::new();
    let mut rest = src;
    while let Some(i) = rest.find("fn ") {
        if i > 0 && is_ident(rest[..i].chars().next_back().unwrap()) {
            rest = &rest[i + 3..];
            continue;
        }
        let after = &rest[i + 3..];
        let name: String = after.chars().take_while(|&c| is_ident(c)).collect();
        let open = after.find('{').expect("a body");
        let mut depth = 0;
        let mut end = open;
        for (k, c) in after[open..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = open + k;
                        break;
                    }
                }
                _ => {}
            }
        }
        out.insert(name, after[open..=end].to_string());
        rest = &after[end..];
    }
    out
}

/// (textures, samplers) the entry point reaches.
fn stage_bindings(src: &str, entry: &str) -> (usize, usize) {
    let fns = functions(src);
    let mut reached = BTreeSet::from([entry.to_string()]);
    let mut todo = vec![entry.to_string()];
    while let Some(f) = todo.pop() {
        for name in fns.keys() {
            if !reached.contains(name) && mentions(&fns[&f], name) {
                reached.insert(name.clone());
                todo.push(name.clone());
            }
        }
    }
    let used: Vec<Global> =
        globals(src).into_iter().filter(|g| reached.iter().any(|f| mentions(&fns[f], &g.name))).collect();
    let textures = used.iter().filter(|g| g.ty.starts_with("texture_")).count();
    let samplers = used.iter().filter(|g| g.ty == "sampler" || g.ty == "sampler_comparison").count();
    (textures, samplers)
}

#[test]
fn every_tier_fits_webgl2_limits() {
    let webgl2 = wgpu::Limits::downlevel_webgl2_defaults();
    // The budget a wgpu-GL device with WebGL2 limits gets, even when 32 slots are asked for:
    // 15, as that backend gives every texture of a pipeline one of its 16 units, the motion
    // texture's among them.
    let budget = Budget::new(&limits(wgpu::Backend::Gl, &webgl2), &Config::default().with_max_slots(32)).unwrap();
    assert_eq!(budget.tiers, [1, 2, 4, 8, 15]);
    for &tier in &budget.tiers {
        let src = pipeline_source(&ProgramKey::plain(tier));
        let all = globals(&src);
        assert_eq!(all.iter().filter(|g| g.ty.starts_with("texture_2d_array")).count(), tier as usize);
        assert_eq!(all.iter().filter(|g| g.ty == "sampler").count(), tier as usize, "one sampler per slot");
        assert!(!all.iter().any(|g| g.ty.contains("SlotInfo")), "tier {tier}: no slot uniform");

        // The vertex stage reads one texture, the motions (the layer sizes come from a
        // uniform), and no sampler: whatever the tier, the pipeline's textures fit 16 units.
        let (vs_textures, vs_samplers) = stage_bindings(&src, "vs_main");
        assert_eq!((vs_textures, vs_samplers), (1, 0), "tier {tier}: the motions only in the vertex stage");
        assert!(
            tier < webgl2.max_sampled_textures_per_shader_stage,
            "tier {tier}: every texture (and the motions) a unit"
        );

        let (fs_textures, fs_samplers) = stage_bindings(&src, "fs_main");
        assert_eq!(fs_textures, tier as usize, "tier {tier}");
        assert_eq!(fs_samplers, tier as usize, "tier {tier}: one sampler per slot");
        assert!(fs_textures as u32 <= webgl2.max_sampled_textures_per_shader_stage, "tier {tier}");
        assert!(fs_samplers as u32 <= webgl2.max_samplers_per_shader_stage, "tier {tier}");
    }
}

#[test]
fn tier_one_has_no_branch_and_derivatives_come_first() {
    let one = pipeline_source(&ProgramKey::plain(1));
    assert!(!one.contains("switch"), "tier 1 has no slot branch");
    for tier in [2, 4, 16, 32] {
        let src = pipeline_source(&ProgramKey::plain(tier));
        let fs = &functions(&src)["fs_main"];
        let switch = fs.find("switch").expect("a slot switch above tier 1");
        assert!(fs.find("dpdx").unwrap() < switch && fs.find("dpdy").unwrap() < switch, "derivatives first");
        assert_eq!(fs.matches("case ").count(), tier as usize, "one case per slot");
    }
}

/// The sampler does the filtering and the wrapping: each slot is sampled once, through its
/// own sampler, at the clamped position the vertex stage divided by the layer's size (from the
/// slot-sizes uniform, once per vertex: the vertex stage samples no slot), and the shader
/// emulates neither nearest
/// filtering nor repeat or mirror wrapping.
#[test]
fn one_sample_per_slot_and_nothing_else_in_the_switch() {
    for tier in [1, 2, 4, 16, 32] {
        let src = pipeline_source(&ProgramKey::plain(tier));
        // One sample per slot (tier 1: implicit derivatives, as a plain sprite shader; above:
        // at the level computed before the branch), and no other texture access anywhere.
        let (implicit, at_level) = if tier == 1 { (1, 0) } else { (0, tier as usize) };
        assert_eq!(src.matches("textureSample(").count(), implicit, "tier {tier}");
        assert_eq!(src.matches("textureSampleLevel(").count(), at_level, "tier {tier}");
        assert!(!src.contains("textureSampleGrad("), "tier {tier}: no explicit gradients (slow in software)");
        assert_eq!(src.matches("textureLoad(").count(), 1, "tier {tier}: one sampling path, and the motions' fetch");
        assert!(functions(&src)["vs_main"].contains("textureLoad(motion_texels"), "tier {tier}");
        assert!(!src.contains("textureDimensions("), "tier {tier}: the sizes come from the slot-sizes uniform");
        // No emulation: no wrapping (fract), no texel snapping (floor). (The level is chosen
        // in the shader above tier 1, with log2, before the branch.)
        for emulation in ["fract(", "floor(", "round(", "SlotInfo", "slot_info"] {
            assert!(!src.contains(emulation), "tier {tier}: the shader emulates the sampler ({emulation})");
        }
        let fs = &functions(&src)["fs_main"];
        assert_eq!(fs.matches("textureSample").count(), tier as usize, "tier {tier}: sampled in fs_main");
        assert!(!fs.contains("textureDimensions") && !fs.contains("layer_size"), "tier {tier}: no size per pixel");
        assert!(functions(&src)["vs_main"].contains("layer_size("), "tier {tier}: the vertex stage divides");
        let sample = |i: u32| format!("texel = textureSampleLevel(slot{i}, samp{i}, p, layer, lod);");
        if tier == 1 {
            assert!(!fs.contains("if ") && !fs.contains("switch"), "tier 1 is branch-free");
            let flat: String = fs.split_whitespace().collect::<Vec<_>>().join(" ");
            let one = "let texel = textureSample(slot0, samp0, p, in.layer);";
            assert!(flat.contains(one), "tier 1 samples slot 0 through samp0: {fs}");
            continue;
        }
        // Every case body is exactly the sample of its slot, through its own sampler.
        let switch = &fs[fs.find("switch").unwrap()..];
        for i in 0..tier {
            let label = if i + 1 == tier { format!("case {i}u, default: {{ ") } else { format!("case {i}u: {{ ") };
            let body = &switch[switch.find(&label).unwrap_or_else(|| panic!("tier {tier}: {label}")) + label.len()..];
            let body = &body[..body.find('}').unwrap()];
            assert_eq!(body.trim(), sample(i));
        }
    }
}

/// Every bit-layout constant of the generated WGSL is core's: the `const NAME: u32 = VALUEu;`
/// declarations of each tier are exactly `Instance::SHADER_CONSTANTS`, and the rest of the
/// source unpacks an instance with those names only (no literal shift, mask or flag).
#[test]
fn shader_constants_match_rust() {
    use layerbatch_core::plan::Instance;
    let mut expected: BTreeSet<(String, u32)> =
        Instance::SHADER_CONSTANTS.iter().map(|&(name, value)| (name.to_string(), value)).collect();
    assert_eq!(expected.len(), Instance::SHADER_CONSTANTS.len(), "names are unique");
    // The motion texture's layout, from core too.
    expected.insert(("MOTION_ROW_TEXELS".to_string(), layerbatch_core::MOTION_ROW_TEXELS));
    expected.insert(("LOOK_PARAMS_HIGH_SHIFT".to_string(), layerbatch_core::shader::LOOK_PARAMS_HIGH_SHIFT));
    for tier in 1..=32 {
        let src = pipeline_source(&ProgramKey::plain(tier));
        let mut declared = BTreeSet::new();
        let mut body = String::new();
        for line in src.lines() {
            let t = line.trim();
            let Some(decl) = t.strip_prefix("const ") else {
                body.push_str(line);
                body.push('\n');
                continue;
            };
            // `NAME: u32 = VALUEu;`
            let (name, rest) = decl.split_once(':').unwrap_or_else(|| panic!("tier {tier}: {t}"));
            let value = rest
                .trim()
                .strip_prefix("u32 =")
                .and_then(|v| v.trim().strip_suffix("u;"))
                .unwrap_or_else(|| panic!("tier {tier}: not `const NAME: u32 = VALUEu;`: {t}"));
            let value: u32 = value.parse().unwrap_or_else(|e| panic!("tier {tier}: {t}: {e}"));
            assert!(declared.insert((name.trim().to_string(), value)), "tier {tier}: {t} declared twice");
        }
        assert_eq!(declared, expected, "tier {tier}: the WGSL constants are Instance::SHADER_CONSTANTS");

        // No literal layout value as a shift amount or a bitwise operand, in any spelling.
        // (`1u << level` shifts a literal, by a variable: not the layout.)
        let body = body.replace(' ', "");
        for &(name, value) in &Instance::SHADER_CONSTANTS {
            for literal in [format!("{value}u"), format!("{value:#x}u"), format!("{value:#X}u")] {
                let patterns = [">>", "<<", "&", "|"]
                    .map(|op| format!("{op}{literal}"))
                    .into_iter()
                    .chain(["&", "|"].map(|op| format!("{literal}{op}")));
                for pattern in patterns {
                    assert!(!body.contains(&pattern), "tier {tier}: literal `{pattern}` instead of {name}");
                }
            }
        }
        // The names are what unpacks the instance. The filter and wrap flags are
        // informational (the samplers follow the arrays): declared, never read.
        for (name, _) in Instance::SHADER_CONSTANTS {
            let used = mentions(&body, name);
            if name == "SLOT_MASK" && tier == 1 {
                assert!(!used, "tier 1 reads no slot");
            } else if name == "EFFECT_MASK" {
                // Only programs with effects read the effect id.
                assert!(!used, "tier {tier}: a program without effects reads no effect");
                let with = layerbatch_wgpu::pipeline_source(
                    &ProgramKey::plain(tier).with_effects(&layerbatch_core::Effect::BUILT_IN),
                );
                assert!(with.contains("look & EFFECT_MASK"), "tier {tier}: effects read the id by {name}");
            } else if ["FLAG_NORMAL_MAP", "EFFECT_LIT"].contains(&name) {
                // Only lit pipelines read the lighting bits.
                assert!(!used, "tier {tier}: a pipeline without lights reads no lighting bit");
                let lit = layerbatch_wgpu::pipeline_source(&ProgramKey::plain(tier).with_lights(8));
                assert!(mentions(&lit, name), "tier {tier}: lit pipelines read {name}");
            } else if ["FLAG_LINEAR", "FLAG_REPEAT", "FLAG_MIRROR"].contains(&name) {
                assert!(!used, "tier {tier}: {name} is informational; the sampler filters and wraps");
            } else {
                assert!(used, "tier {tier}: {name} is declared but not used");
            }
        }
    }
}
