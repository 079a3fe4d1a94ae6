//! 1,000 textures on a device of 256 layers an array, on each browser path
//! ([`layerbatch_testkit::array_layers`]): WebGPU opened at its default limits (a host that asks
//! for nothing gets `maxTextureArrayLayers` 256), wgpu's WebGL2 at its downlevel limits (256),
//! layerbatch-gl held to 256. Core spreads the textures over more arrays (counted) and every
//! quad shows its own texture, exactly, in one draw.

use layerbatch::Batcher;
use layerbatch_testkit::array_layers;

use super::{Checked, Fail};
use crate::device::{Backend, Device};

/// On one path: the 1,000-texture frame at 256 layers an array.
pub async fn thousand_textures_at_256_layers(backend: Backend) -> Checked {
    let mut dev = Device::open_at_default_limits(backend, array_layers::SIZE).await?;
    let drawn = draw_on(&mut dev, backend).await;
    dev.close();
    let (arrays, reported) = drawn?;
    Ok(format!(
        "1,000 textures over {arrays} arrays of 256 layers (the device reports {reported}), 1 draw, each quad its own texture ({})",
        backend.name()
    ))
}

/// Draws and checks; returns the arrays used and the layers an array the device reported.
async fn draw_on(dev: &mut Device, backend: Backend) -> Result<(usize, u32), Fail> {
    let reported = dev.limits().max_array_layers;
    let limits = match backend {
        // What the device says: WebGPU's default, wgpu's WebGL2 downlevel limits.
        Backend::WgpuWebgpu | Backend::WgpuWebgl => dev.limits(),
        // WebGL2's own (often more): held to 256, as such a device would say.
        Backend::Gl => dev.limits().with_max_array_layers(256),
    };
    ensure!(limits.max_array_layers == 256, "{} layers an array, not 256", limits.max_array_layers);
    let mut b = Batcher::new(limits, array_layers::config()).map_err(|e| format!("budget: {e}"))?;
    dev.init(b.budget())?;
    let (plan, arrays) = array_layers::frame(&mut b)?;
    dev.draw(&plan).await?;
    let draws = dev.stats().device_frame.draw_calls;
    ensure!(draws == 1, "{draws} draws over {arrays} arrays");
    array_layers::check(&dev.read().await?)?;
    Ok((arrays, reported))
}
