//! A tile grid in the page: on WebGPU culled on the GPU (the culling pass on the browser's own
//! WebGPU, quads drawn instanced), on WebGL2 (wgpu's and layerbatch-gl) on its CPU path. One
//! draw for the map; its pixels equal, tolerance 0, the same tiles pushed as quads made by
//! this test, for a view at a fractional offset, after cells change, and under a turned,
//! zoomed camera.

use layerbatch::tilegrid::TileGrid;
use layerbatch::{Affine2, Batcher, Config, QuadVertices, ResidentStyle};
use layerbatch_testkit::grids::{cells, tiles_under, tilesets, TILE_PX as TILE};

use super::{open, Checked, Fail};
use crate::device::{Backend, Device};

const SIZE: [u32; 2] = [320, 200];
const SIDE: u32 = 512;

/// On one path: three frames of the grid, each against its tiles pushed.
pub async fn tile_grid(backend: Backend) -> Checked {
    let config = Config::default().with_quad_vertices(QuadVertices::Instanced);
    let (mut dev, mut b) = open(backend, SIZE, config).await?;
    let checked = grid_on(&mut dev, &mut b).await;
    dev.close();
    let (gpu, pixels) = checked?;
    let path = if gpu { "culled on the GPU" } else { "its tiles pushed (no GPU culling)" };
    Ok(format!("a 512 x 512 grid, {path}: 1 draw, {pixels} tile pixels equal to the pushed tiles ({})", backend.name()))
}

async fn grid_on(dev: &mut Device, b: &mut Batcher) -> Result<(bool, usize), Fail> {
    let (table, sets) = tilesets(b, 4)?;
    let mut ids = cells(SIDE, 64, 23);
    let mut grid = TileGrid::new(b, &table, [SIDE, SIDE], TILE, &ids).map_err(|e| e.to_string())?;
    let gpu = grid.on_gpu();
    ensure!(gpu == dev.limits().gpu_culling(), "on the GPU: {gpu}, the device culls on the GPU: {}", !gpu);
    let mut pixels = 0;
    let steps = [
        ("first", [3000.5, 2000.25], 0.0, 1.0),
        ("cells changed", [3000.5, 2000.25], 0.0, 1.0),
        ("turned", [4100.0, 3900.0], 0.5, 1.5),
    ];
    for (step, [vx, vy], turn, zoom) in steps {
        if step == "cells changed" {
            grid.set_tiles(b, [190, 127], [6, 4], &[0; 24]).map_err(|e| e.to_string())?;
            for y in 127..131 {
                ids[(y * SIDE + 190) as usize..(y * SIDE + 196) as usize].fill(0);
            }
        }
        let camera = Affine2::translation(-vx, -vy).then(Affine2::rotation(turn)).then(Affine2::scale(zoom, zoom));
        let view = if turn == 0.0 {
            [vx, vy, SIZE[0] as f32, SIZE[1] as f32]
        } else {
            TileGrid::view_box(camera, SIZE).ok_or("no view box")?
        };
        b.begin_frame();
        grid.draw(b, view, &ResidentStyle::default().with_transform(camera)).map_err(|e| e.to_string())?;
        dev.draw(b.finish()).await?;
        let draws = dev.stats().device_frame.draw_calls;
        ensure!(draws == 1, "{step}: {draws} draws for the map");
        let drawn = dev.read().await?;
        let Some(cells_under) = grid.cells_in_view(view) else {
            return Err(Fail::Failed(format!("{step}: no cells")));
        };
        let under = tiles_under(&ids, SIDE, &sets, cells_under);
        b.begin_frame();
        b.state().set_transform(camera);
        b.push_all(&under).map_err(|e| e.to_string())?;
        dev.draw(b.finish()).await?;
        let pushed = dev.read().await?;
        let differing = drawn.chunks_exact(4).zip(pushed.chunks_exact(4)).filter(|(a, p)| a != p).count();
        ensure!(differing == 0, "{step}: {differing} pixels differ from the pushed tiles");
        let lit = drawn.chunks_exact(4).filter(|p| p[..3] != [0, 0, 0]).count();
        ensure!(lit > drawn.len() / 8, "{step}: only {lit} pixels drawn");
        pixels += lit;
    }
    Ok((gpu, pixels))
}
