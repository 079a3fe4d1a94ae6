//! The cliff as a picture: draw calls per frame against distinct textures in the frame, one
//! line per strategy.
//!
//! `cargo run --release --example cliff -- --out cliff.svg [--quads N]`

use layerbatch_testkit::cliff::{CliffScene, Strategy};
use plotters::prelude::*;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut out = String::from("cliff.svg");
    let mut quads = 10_000usize;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--out" => out = args.next().ok_or("--out needs a file name")?,
            "--quads" => quads = args.next().ok_or("--quads needs a number")?.parse()?,
            "-h" | "--help" => {
                println!("usage: cliff [--out FILE.svg] [--quads N]");
                return Ok(());
            }
            other => return Err(format!("unknown argument {other:?} (try --help)").into()),
        }
    }

    let xs = 1..=64usize;
    let mut series = Vec::new();
    for s in Strategy::ALL {
        let points: Vec<(usize, u64)> =
            xs.clone().map(|t| (t, CliffScene::new(s, t, quads).frame().draw_calls)).collect();
        series.push((s, points));
    }
    println!("draw calls per frame, {quads} quads round-robin over t textures");
    println!(
        "{:>3} {:>16} {:>20} {:>10}",
        "t",
        Strategy::ALL[0].name(),
        Strategy::ALL[1].name(),
        Strategy::ALL[2].name()
    );
    for (i, t) in xs.clone().enumerate() {
        if t <= 2 || (15..=18).contains(&t) || t % 16 == 0 {
            println!("{t:>3} {:>16} {:>20} {:>10}", series[0].1[i].1, series[1].1[i].1, series[2].1[i].1);
        }
    }

    let root = SVGBackend::new(&out, (800, 480)).into_drawing_area();
    root.fill(&WHITE)?;
    let y_max = quads.max(2) as f64 * 3.0;
    let mut chart = ChartBuilder::on(&root)
        .caption(format!("Draw calls per frame, {quads} interleaved quads"), ("sans-serif", 22))
        .margin(16)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(1usize..64usize, (0.7f64..y_max).log_scale())?;
    chart
        .configure_mesh()
        .y_label_formatter(&|y| format!("{y:.0}"))
        .x_desc("distinct textures in the frame")
        .y_desc("draw calls per frame (log)")
        .draw()?;
    let colors = [RED, BLUE, RGBColor(0, 150, 60)];
    let labels = ["break batch on texture change (1 slot)", "16-slot ladder, arrays off", "layerbatch: texture arrays"];
    for ((_, points), (color, label)) in series.iter().zip(colors.iter().zip(labels)) {
        let color = *color;
        chart
            .draw_series(LineSeries::new(points.iter().map(|&(x, y)| (x, y as f64)), color.stroke_width(3)))?
            .label(label)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(3)));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::Coordinate(330, 190))
        .border_style(BLACK)
        .background_style(WHITE.mix(0.9))
        .draw()?;
    root.present()?;
    println!("wrote {out}");
    Ok(())
}
