//! layerbatch in a browser: the stress scene of `examples/stress.rs` and the browser pixel
//! tests, on three paths, chosen at run time:
//!
//! - `gl`: layerbatch-gl on a WebGL2 context through stock glow (`glow::Context::from_webgl2_context`),
//!   drawing into the canvas's default framebuffer;
//! - `wgpu-webgl`: layerbatch-wgpu on wgpu's WebGL2 backend;
//! - `wgpu-webgpu`: layerbatch-wgpu on the browser's WebGPU.
//!
//! Built for `wasm32-unknown-unknown` and bound with `wasm-bindgen --target web`; the page
//! (`index.html`, `main.js`) loads it. `scripts/web-stress.sh` and `scripts/web-test.sh` build
//! it, serve it on 127.0.0.1 and drive headless Chromium. Natively the crate is empty.
//!
//! Exports: `run_stress(options_json)` resolves to the stress summary as JSON (the fields of
//! `stress --json`), `test_names()` lists the pixel tests, and `run_test(name, backend)`
//! resolves to a JSON outcome (`{"name", "backend", "status": "ok" | "skipped" | "failed",
//! "detail", "ms"}`). For the HUD scene of issue 18: `hud_scene_json(seed)` is the scene as
//! JSON (what the PixiJS page of the browser bench draws) and `run_hud(options_json)`
//! resolves to the HUD bench's figures on one path as JSON (`hud::Report`); likewise
//! `looks_scene_json()` and `run_looks(options_json)` for the looks scene of issue 29.
#![cfg(target_arch = "wasm32")]
// glow's calls are `unsafe`: the host side here (clears, bindings, readback) calls them.
#![allow(unsafe_code)]

mod device;
mod hud;
mod looks;
mod stress;
mod tests;
mod util;

use wasm_bindgen::prelude::*;

/// Panics and `log` records go to the browser console.
#[wasm_bindgen(start)]
pub fn start() {
    util::install_console();
}

/// Runs the stress scene with `options` (JSON: `backend` `"gl" | "wgpu-webgl" |
/// "wgpu-webgpu"`, `sprites`, `static` (of them, standing still in a resident layer),
/// `moving` (every sprite in a moving layer, its motions written each frame),
/// `textures`, `sizes` `"pow2" | "mixed" | "uniform"`, `slots`, `arrays`,
/// `quads`, `warmup`, `frames`, `seconds`; any may be left out) and resolves to its summary as
/// one JSON object.
#[wasm_bindgen]
pub async fn run_stress(options: String) -> Result<String, JsValue> {
    let options: stress::Options =
        serde_json::from_str(&options).map_err(|e| JsValue::from_str(&format!("options: {e}")))?;
    let report = stress::run(&options).await.map_err(|e| JsValue::from_str(&e))?;
    serde_json::to_string(&report).map_err(|e| JsValue::from_str(&e.to_string()))
}

/// The HUD scene for `seed` as JSON (`layerbatch_testkit::hud::HudScene`, texture pixels left
/// out).
#[wasm_bindgen]
pub fn hud_scene_json(seed: u32) -> Result<String, JsValue> {
    hud::scene_json(seed).map_err(|e| JsValue::from_str(&e))
}

/// Draws the HUD scene with `options` (JSON: `backend`, `seed`, `warmup`, `frames`; any may
/// be left out) and resolves to the figures as one JSON object.
#[wasm_bindgen]
pub async fn run_hud(options: String) -> Result<String, JsValue> {
    let options: hud::Options =
        serde_json::from_str(&options).map_err(|e| JsValue::from_str(&format!("options: {e}")))?;
    let report = hud::run(&options).await.map_err(|e| JsValue::from_str(&e))?;
    serde_json::to_string(&report).map_err(|e| JsValue::from_str(&e.to_string()))
}

/// The looks scene of issue 29 as JSON (sprites, texture pixels, the effects' GLSL bodies):
/// what the PixiJS page of the browser bench draws.
#[wasm_bindgen]
pub fn looks_scene_json() -> Result<String, JsValue> {
    looks::scene_json().map_err(|e| JsValue::from_str(&e))
}

/// Draws the looks scene with `options` (JSON: `backend`, `warmup`, `frames`, `lights`; any
/// may be left out) and resolves to the figures as one JSON object.
#[wasm_bindgen]
pub async fn run_looks(options: String) -> Result<String, JsValue> {
    let options: looks::Options =
        serde_json::from_str(&options).map_err(|e| JsValue::from_str(&format!("options: {e}")))?;
    let report = looks::run(&options).await.map_err(|e| JsValue::from_str(&e))?;
    serde_json::to_string(&report).map_err(|e| JsValue::from_str(&e.to_string()))
}

/// The pixel tests, by name.
#[wasm_bindgen]
pub fn test_names() -> Vec<String> {
    tests::TESTS.iter().map(|t| t.name.to_string()).collect()
}

/// The backends a test runs on (`"all"` for the cross-backend ones).
#[wasm_bindgen]
pub fn test_backends(name: String) -> Vec<String> {
    tests::TESTS
        .iter()
        .find(|t| t.name == name)
        .map(|t| t.backends.iter().map(|b| b.to_string()).collect())
        .unwrap_or_default()
}

/// Runs test `name` on `backend` and resolves to its outcome as JSON.
#[wasm_bindgen]
pub async fn run_test(name: String, backend: String) -> String {
    tests::run(&name, &backend).await.to_json()
}
