//! `bevy-example`: runs one of Bevy 0.20.1's own examples (copied from Bevy's source by
//! `build.rs`) headless, under Bevy's renderer or under layerbatch's drop-in mode, and writes
//! the frames it is asked for. `LBT_EXAMPLE` names the example, `LBT_RENDERER` is `bevy` or
//! `layerbatch`; the arguments are the example's own (bevymark's, the testbed's scene); the
//! rest of the environment is the capture's (`bevy_examples_truth::Config`).
//! `bevy-example --diff` prints what the drop-in variant changes in each example's source.

include!(concat!(env!("OUT_DIR"), "/examples.rs"));

fn main() {
    if std::env::args().nth(1).as_deref() == Some("--diff") {
        print!("{DIFFS}");
        return;
    }
    let name = std::env::var("LBT_EXAMPLE").unwrap_or_default();
    let layerbatch = match std::env::var("LBT_RENDERER").as_deref() {
        Ok("bevy") => false,
        Ok("layerbatch") => true,
        other => {
            eprintln!("bevy-example: LBT_RENDERER must be `bevy` or `layerbatch`, not {other:?}");
            std::process::exit(2);
        }
    };
    if !run(&name, layerbatch) {
        eprintln!("bevy-example: no example {name:?} (from {BEVY_SOURCE}); there are {EXAMPLES:?}");
        std::process::exit(2);
    }
}
