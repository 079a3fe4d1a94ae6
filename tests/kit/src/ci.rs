//! The skip policy of every test that needs a device: under CI (`CI=true` or `CI=1`) a GPU
//! context or adapter that cannot be had fails the test, so that a CI run never passes by
//! skipping; elsewhere (a laptop without Vulkan, say) the test prints `skipped: ...` and
//! passes.

use std::fmt::Display;

/// Whether the environment says this is CI: `CI` is `true` (any case) or `1`.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v.eq_ignore_ascii_case("true") || v == "1")
}

/// The device `opened` gave, or, when it failed: a panic under CI, else a `skipped: {test}:
/// no {what}: {error}` line on stdout and `None`.
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

/// Skips `test` for `why`: panics under CI, else prints `skipped: {test}: {why}`.
///
/// # Panics
/// Under CI.
pub fn skip(test: &str, why: &str) {
    if in_ci() {
        panic!("{test}: CI=true and {why}");
    }
    println!("skipped: {test}: {why}");
}
