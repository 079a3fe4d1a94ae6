//! Browser plumbing: console logging, timers, canvases.

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// Panic messages and `log` records (`warn!` and above; `debug!` with `?log=debug`) go to the
/// console.
pub fn install_console() {
    std::panic::set_hook(Box::new(|info| {
        web_sys::console::error_1(&JsValue::from_str(&format!("panic: {info}")));
    }));
    let verbose = web_sys::window().and_then(|w| w.location().search().ok()).is_some_and(|q| q.contains("log=debug"));
    log::set_max_level(if verbose { log::LevelFilter::Debug } else { log::LevelFilter::Warn });
    // A second call (a second `start`) keeps the first logger.
    let _ = log::set_logger(&ConsoleLog);
}

struct ConsoleLog;

impl log::Log for ConsoleLog {
    fn enabled(&self, metadata: &log::Metadata<'_>) -> bool {
        metadata.level() <= log::max_level()
    }
    fn log(&self, record: &log::Record<'_>) {
        if !self.enabled(record.metadata()) {
            return;
        }
        let line = JsValue::from_str(&format!("{} {}: {}", record.level(), record.target(), record.args()));
        match record.level() {
            log::Level::Error => web_sys::console::error_1(&line),
            log::Level::Warn => web_sys::console::warn_1(&line),
            _ => web_sys::console::log_1(&line),
        }
    }
    fn flush(&self) {}
}

/// Milliseconds since the page loaded.
pub fn now_ms() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map_or(0.0, |p| p.now())
}

/// Resolves after `ms` milliseconds (0: after the browser's other pending tasks).
pub async fn sleep_ms(ms: i32) {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        if let Some(w) = web_sys::window() {
            let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms);
        }
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}

fn document() -> Result<web_sys::Document, String> {
    web_sys::window().and_then(|w| w.document()).ok_or_else(|| "no document".to_string())
}

/// A new `width x height` canvas, added to the page's `#canvases` element (or its body) so
/// that a person opening the page sees what is drawn.
pub fn canvas(size: [u32; 2], title: &str) -> Result<web_sys::HtmlCanvasElement, String> {
    let document = document()?;
    let canvas: web_sys::HtmlCanvasElement = document
        .create_element("canvas")
        .map_err(|e| format!("create canvas: {e:?}"))?
        .dyn_into()
        .map_err(|_| "not a canvas".to_string())?;
    canvas.set_width(size[0]);
    canvas.set_height(size[1]);
    canvas.set_title(title);
    let parent = match document.get_element_by_id("canvases") {
        Some(p) => p,
        None => document.body().ok_or("no body")?.into(),
    };
    parent.append_child(&canvas).map_err(|e| format!("append canvas: {e:?}"))?;
    Ok(canvas)
}

/// Shows RGBA8 pixels (top row first) in a new 2D canvas: the last frame of a wgpu run,
/// which draws offscreen.
pub fn show(pixels: &[u8], size: [u32; 2], title: &str) -> Result<(), String> {
    let canvas = canvas(size, title)?;
    let ctx: web_sys::CanvasRenderingContext2d = canvas
        .get_context("2d")
        .map_err(|e| format!("2d context: {e:?}"))?
        .ok_or("no 2d context")?
        .dyn_into()
        .map_err(|_| "not a 2d context".to_string())?;
    let data = web_sys::ImageData::new_with_u8_clamped_array_and_sh(wasm_bindgen::Clamped(pixels), size[0], size[1])
        .map_err(|e| format!("image data: {e:?}"))?;
    ctx.put_image_data(&data, 0.0, 0.0).map_err(|e| format!("put image data: {e:?}"))
}

/// Removes a canvas from the page.
pub fn remove(canvas: &web_sys::HtmlCanvasElement) {
    canvas.remove();
}
