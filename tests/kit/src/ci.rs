//! The skip policy of every test that needs a device: under CI (`CI=true` or `CI=1`) a GPU
//! context or adapter that cannot be had fails the test, so that a CI run never passes by
//! skipping; elsewhere (a laptop without Vulkan, say) the test writes a `skipped: ...` line
//! that the test harness does not capture, naming the command that installs what it lacks,
//! and passes.

use std::fmt::Display;

/// Whether the environment says this is CI: `CI` is `true` (any case) or `1`.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v.eq_ignore_ascii_case("true") || v == "1")
}

/// The device `opened` gave, or, when it failed: a panic under CI, else a `skipped: {test}:
/// no {what}: {error}` line (see [`skip`]) and `None`.
///
/// # Panics
/// Under CI, when `opened` is an error.
pub fn require<T, E: Display>(opened: Result<T, E>, test: &str, what: &str) -> Option<T> {
    match opened {
        Ok(device) => Some(device),
        Err(e) => {
            skip(test, &format!("no {what}: {e}"));
            None
        }
    }
}

/// What installs everything the tests use (the README's setup).
pub const SETUP: &str = "scripts/setup.sh";

/// Skips `test` for `why`: panics under CI, else writes `skipped: {test}: {why}`, and the
/// command that installs what the tests use, straight to the process's stderr: the test
/// harness captures `println!` and `eprintln!` of a passing test, so a skip printed that way
/// is never seen.
///
/// # Panics
/// Under CI.
pub fn skip(test: &str, why: &str) {
    if in_ci() {
        panic!("{test}: CI=true and {why}");
    }
    let line = format!("skipped: {test}: {why} (`{SETUP}` installs what the tests need)\n");
    // Not `eprintln!`: that is captured. A failed write to stderr has nowhere to be reported.
    let _ = std::io::Write::write_all(&mut std::io::stderr(), line.as_bytes());
}
