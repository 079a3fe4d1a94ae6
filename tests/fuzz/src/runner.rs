//! Runs a target's inputs one at a time, each under a time and a memory ceiling, and keeps
//! what a report needs: inputs run, errors returned by kind, the slowest input, the largest
//! peak, and findings (a panic, an input over a ceiling, a broken invariant) with the input.

use crate::rng::{hex, Rng};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// What one input did.
#[derive(Debug)]
pub enum Outcome {
    /// Accepted.
    Ok,
    /// Refused with an error of this kind (the API's answer to bad input: fine).
    Err(String),
    /// Something that must not happen (a broken invariant): a finding.
    Finding(String),
}

impl Outcome {
    /// `Err` of the kind of `error`: its `Debug` form's variant name, with the variant of a
    /// nested error (`Texture/TooLarge`).
    pub fn err(error: &dyn std::fmt::Debug) -> Self {
        Outcome::Err(kind(&format!("{error:?}")))
    }
}

/// The variant names of a `Debug`-formatted error: `Texture { layer: 0, source: TooLarge {
/// .. } }` is `Texture/TooLarge`.
fn kind(debug: &str) -> String {
    let ident = |s: &str| s.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect::<String>();
    let mut out = ident(debug);
    if let Some(at) = debug.find("source: ") {
        let inner = ident(&debug[at + 8..]);
        if !inner.is_empty() {
            out = format!("{out}/{inner}");
        }
    }
    if out.is_empty() {
        "?".to_string()
    } else {
        out
    }
}

/// A fuzz target: makes inputs (byte strings, so every one can be printed and replayed) and
/// runs them.
pub trait Target {
    /// The name `--target` takes.
    fn name(&self) -> &'static str;
    /// Inputs of a default run.
    fn default_iterations(&self) -> u64;
    /// A new input.
    fn generate(&mut self, rng: &mut Rng) -> Vec<u8>;
    /// Runs one input.
    fn run(&mut self, input: &[u8]) -> Outcome;
    /// What an input does, in words (printed when one input is replayed).
    fn describe(&mut self, _input: &[u8]) -> String {
        String::new()
    }
}

/// Ceilings and the seed of a run.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Most time one input may take.
    pub time_ceiling: Duration,
    /// Most bytes one input may have live at once (above what was live before it).
    pub memory_ceiling: u64,
    /// The run's seed: input `i` of a target is the same for the same seed.
    pub seed: u64,
    /// Print what each input does before running it (for replaying one).
    pub describe: bool,
}

/// The input being run, for the panic hook, the watchdog and the memory limit.
struct Current {
    target: &'static str,
    iteration: u64,
    seed: u64,
    input: Vec<u8>,
}

static CURRENT: Mutex<Current> = Mutex::new(Current { target: "", iteration: 0, seed: 0, input: Vec::new() });
/// When the running input started, nanoseconds after `clock()`'s start; 0 between inputs.
static STARTED_NS: AtomicU64 = AtomicU64::new(0);

fn clock() -> Instant {
    static START: OnceLock<Instant> = OnceLock::new();
    *START.get_or_init(Instant::now)
}

fn now_ns() -> u64 {
    clock().elapsed().as_nanos() as u64 + 1
}

/// Prints the running input (target, iteration, bytes in hex, how to replay it).
fn print_current(headline: &str) {
    match CURRENT.try_lock() {
        Ok(c) => eprintln!("{}", finding_text(headline, c.target, c.iteration, c.seed, &c.input)),
        Err(_) => eprintln!("FINDING: {headline} (the input could not be read)"),
    }
}

/// A finding as printed: what, where, the input in hex (the first 16 KiB of it), and the
/// command that replays it.
fn finding_text(headline: &str, target: &str, iteration: u64, seed: u64, input: &[u8]) -> String {
    const SHOWN: usize = 16 << 10;
    let shown = &input[..input.len().min(SHOWN)];
    let cut = if input.len() > SHOWN { format!(" (first {SHOWN} shown)") } else { String::new() };
    format!(
        "FINDING [{target} #{iteration}] {headline}\n  input, {} bytes{cut}: {}\n  replay: cargo run --profile fuzz -p \
         layerbatch-fuzz -- --target {target} --seed {seed} --iteration {iteration} --describe",
        input.len(),
        hex(shown)
    )
}

/// Called by the allocator when an input goes past the hard memory limit; the process
/// aborts after it.
pub fn memory_blowup(over: u64, size: usize) {
    print_current(&format!(
        "memory: {} MiB live above the input's start (allocating {size} bytes): past the hard limit, stopped",
        over >> 20
    ));
}

/// Installs the panic hook (it prints the input before the panic aborts the process) and
/// the watchdog (it stops an input running past `hard` and prints it).
pub fn install(hard: Duration) {
    clock();
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        print_current(&format!("panic: {info}"));
        default(info);
    }));
    std::thread::spawn(move || loop {
        std::thread::sleep(Duration::from_millis(100));
        let started = STARTED_NS.load(Relaxed);
        if started != 0 && now_ns().saturating_sub(started) > hard.as_nanos() as u64 {
            print_current(&format!("time: still running after {:.1} s, stopped", hard.as_secs_f64()));
            std::process::exit(3);
        }
    });
}

/// What a target's run found.
#[derive(Debug, Default)]
pub struct Report {
    /// Inputs run.
    pub inputs: u64,
    /// Inputs accepted.
    pub oks: u64,
    /// Errors returned, by kind.
    pub errors: BTreeMap<String, u64>,
    /// The slowest input: its time and number.
    pub slowest: (Duration, u64),
    /// The largest peak: bytes and input number.
    pub peak: (u64, u64),
    /// Time for all inputs.
    pub total: Duration,
    /// Findings, as printed.
    pub findings: Vec<String>,
}

/// A target's input `i` for `seed`.
pub fn input_seed(seed: u64, target: &str, i: u64) -> u64 {
    let name = target.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3));
    seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ name ^ i.wrapping_mul(0xD1B5_4A32_D192_ED03)
}

/// Runs `iterations` (those numbered in it) of `target`, or the one `input` given.
pub fn run(target: &mut dyn Target, iterations: std::ops::Range<u64>, given: Option<&[u8]>, s: &Settings) -> Report {
    let mut report = Report::default();
    let started = Instant::now();
    let numbers: Box<dyn Iterator<Item = u64>> = if given.is_some() { Box::new(0..1) } else { Box::new(iterations) };
    for i in numbers {
        let input = match given {
            Some(bytes) => bytes.to_vec(),
            None => target.generate(&mut Rng::new(input_seed(s.seed, target.name(), i))),
        };
        if s.describe {
            println!("{} #{i}: {}", target.name(), target.describe(&input));
        }
        {
            let mut c = CURRENT.lock().unwrap_or_else(|e| e.into_inner());
            c.target = target.name();
            c.iteration = i;
            c.seed = s.seed;
            c.input.clear();
            c.input.extend_from_slice(&input);
        }
        crate::alloc::start_input();
        STARTED_NS.store(now_ns(), Relaxed);
        let t0 = Instant::now();
        let outcome = target.run(&input);
        let dt = t0.elapsed();
        STARTED_NS.store(0, Relaxed);
        let peak = crate::alloc::input_peak();
        report.inputs += 1;
        if dt > report.slowest.0 {
            report.slowest = (dt, i);
        }
        if peak > report.peak.0 {
            report.peak = (peak, i);
        }
        let name = target.name();
        let mut headlines = Vec::new();
        match outcome {
            Outcome::Ok => report.oks += 1,
            Outcome::Err(kind) => *report.errors.entry(kind).or_default() += 1,
            Outcome::Finding(message) => headlines.push(message),
        }
        if dt > s.time_ceiling {
            headlines.push(format!(
                "time: {:.1} ms, over the {:.0} ms ceiling",
                dt.as_secs_f64() * 1e3,
                s.time_ceiling.as_secs_f64() * 1e3
            ));
        }
        if peak > s.memory_ceiling {
            headlines.push(format!("memory: peak {} KiB, over the {} MiB ceiling", peak >> 10, s.memory_ceiling >> 20));
        }
        for headline in headlines {
            let text = finding_text(&headline, name, i, s.seed, &input);
            eprintln!("{text}");
            report.findings.push(text);
        }
    }
    report.total = started.elapsed();
    report
}

/// The report's lines.
pub fn print(name: &str, r: &Report) {
    let errors: Vec<String> = r.errors.iter().map(|(k, n)| format!("{k} {n}")).collect();
    println!(
        "{name}: {} inputs in {:.2} s; ok {}; errors by kind: {}; slowest input {:.3} ms (#{}); peak {} bytes \
         ({:.1} MiB, #{}); findings {}",
        r.inputs,
        r.total.as_secs_f64(),
        r.oks,
        if errors.is_empty() { "none".to_string() } else { errors.join(", ") },
        r.slowest.0.as_secs_f64() * 1e3,
        r.slowest.1,
        r.peak.0,
        r.peak.0 as f64 / f64::from(1u32 << 20),
        r.peak.1,
        r.findings.len()
    );
}
