//! `fuzz`: deterministic, bounded mutation fuzzing of layerbatch-core's untrusted-input APIs.
//!
//! ```text
//! cargo run --profile fuzz -p layerbatch-fuzz -- [--target all|ktx2,decode,...] [--except NAME,..] [--iterations N]
//!     [--seed S] [--iteration I] [--input HEX] [--time-ceiling SECONDS] [--memory-ceiling MIB]
//!     [--describe]
//! ```
//!
//! Each target makes inputs from a seeded xorshift generator (input `i` is the same on every
//! machine for the same seed) and runs them one at a time. Each input runs under a time
//! ceiling (default 2 s) and a memory ceiling (default 256 MiB of live bytes above what was
//! live before it, counted by the global allocator); an input over either, a broken
//! invariant, or a panic (in the `fuzz` profile, `panic = "abort"`: the process dies) is a
//! finding, printed with the input in hex and the command that replays it. The exit status is
//! 0 only for a run without findings. A watchdog stops an input running past 10 times the
//! time ceiling, and the allocator one taking 4 times the memory ceiling.

mod alloc;
mod rng;
mod runner;
mod targets;

use std::time::Duration;

#[global_allocator]
static GLOBAL: alloc::Counting = alloc::Counting;

const USAGE: &str =
    "usage: fuzz [--target all|NAME[,NAME..]] [--except NAME[,NAME..]] [--iterations N] [--seed S] [--iteration I] \
                     [--input HEX] [--time-ceiling SECONDS] [--memory-ceiling MIB] [--describe]
targets: ktx2 files basis decode shapes mesh nine_slice plan calls text";

struct Args {
    targets: Vec<String>,
    /// Targets left out (of `all`, say: CI runs `calls` beside the rest, on the other core).
    except: Vec<String>,
    iterations: Option<u64>,
    iteration: Option<u64>,
    input: Option<Vec<u8>>,
    settings: runner::Settings,
}

fn parse() -> Result<Args, String> {
    let mut args = Args {
        targets: vec!["all".to_string()],
        except: Vec::new(),
        iterations: None,
        iteration: None,
        input: None,
        settings: runner::Settings {
            time_ceiling: Duration::from_secs(2),
            memory_ceiling: 256 << 20,
            seed: 0x1A7E_B47C,
            describe: false,
        },
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or(format!("{flag} needs a value"));
        let number = |v: String| v.parse::<u64>().map_err(|e| format!("{flag} {v}: {e}"));
        match flag.as_str() {
            "--target" => args.targets = value()?.split(',').map(str::to_string).collect(),
            "--except" => args.except = value()?.split(',').map(str::to_string).collect(),
            "--iterations" => args.iterations = Some(number(value()?)?),
            "--seed" => args.settings.seed = number(value()?)?,
            "--iteration" => args.iteration = Some(number(value()?)?),
            "--input" => args.input = Some(rng::unhex(&value()?)?),
            "--time-ceiling" => {
                let v = value()?;
                let s: f64 = v.parse().map_err(|e| format!("--time-ceiling {v}: {e}"))?;
                if !(s > 0.0 && s < 1e6) {
                    return Err(format!("--time-ceiling {v}: seconds, above 0"));
                }
                args.settings.time_ceiling = Duration::from_secs_f64(s);
            }
            "--memory-ceiling" => args.settings.memory_ceiling = number(value()?)?.saturating_mul(1 << 20),
            "--describe" => args.settings.describe = true,
            "--help" | "-h" => return Err(USAGE.to_string()),
            other => return Err(format!("unknown argument {other}\n{USAGE}")),
        }
    }
    Ok(args)
}

fn main() {
    let args = match parse() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let s = &args.settings;
    alloc::set_hard_limit(s.memory_ceiling.saturating_mul(4));
    runner::install(s.time_ceiling.saturating_mul(10));
    let all = args.targets.iter().any(|t| t == "all");
    let known = targets::NAMES;
    let named = args.targets.iter().chain(&args.except);
    if let Some(bad) = named.into_iter().find(|t| *t != "all" && !known.contains(&t.as_str())) {
        eprintln!("unknown target {bad}\n{USAGE}");
        std::process::exit(2);
    }
    if args.input.is_some() && (all || args.targets.len() != 1) {
        eprintln!("--input needs one --target");
        std::process::exit(2);
    }
    println!(
        "layerbatch fuzz: seed {}, time ceiling {:.2} s, memory ceiling {} MiB per input{}",
        s.seed,
        s.time_ceiling.as_secs_f64(),
        s.memory_ceiling >> 20,
        if cfg!(debug_assertions) { ", debug assertions on" } else { "" }
    );
    let started = std::time::Instant::now();
    let mut findings = 0;
    for name in known {
        if (!all && !args.targets.iter().any(|t| t == name)) || args.except.iter().any(|t| t == name) {
            continue;
        }
        let mut target = match targets::make(name) {
            Ok(t) => t,
            Err(why) => {
                println!("{name}: skipped: {why}");
                continue;
            }
        };
        let range = match (args.iteration, args.iterations) {
            (Some(i), _) => i..i + 1,
            (None, Some(n)) => 0..n,
            (None, None) => 0..target.default_iterations(),
        };
        let report = runner::run(target.as_mut(), range, args.input.as_deref(), s);
        runner::print(name, &report);
        findings += report.findings.len();
    }
    println!(
        "total: {:.1} s, {findings} finding(s), {} KiB live at the end",
        started.elapsed().as_secs_f64(),
        alloc::live() >> 10
    );
    if findings > 0 {
        std::process::exit(1);
    }
}
