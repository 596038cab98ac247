//! Export a run's metric series as a PNG or SVG chart grid (plotters), or as
//! CSV. Fonts are embedded (DejaVu Sans), so nothing depends on the system's
//! font libraries.

use std::path::{Path, PathBuf};
use std::sync::Once;

use anyhow::{anyhow, Context, Result};
use image::ImageEncoder;
use plotters::coord::Shift;
use plotters::prelude::*;

use crate::runner::{load_events, series, Point};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Png,
    Svg,
}

impl Format {
    pub fn extension(self) -> &'static str {
        match self {
            Format::Png => "png",
            Format::Svg => "svg",
        }
    }
}

fn register_fonts() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let _ = plotters::style::register_font("sans-serif", FontStyle::Normal, dejavu::sans::regular());
        let _ = plotters::style::register_font("sans-serif", FontStyle::Bold, dejavu::sans::bold());
    });
}

const PALETTE: [RGBColor; 6] = [
    RGBColor(0x1f, 0x77, 0xb4),
    RGBColor(0xd6, 0x27, 0x28),
    RGBColor(0x2c, 0xa0, 0x2c),
    RGBColor(0xff, 0x7f, 0x0e),
    RGBColor(0x94, 0x67, 0xbd),
    RGBColor(0x8c, 0x56, 0x4b),
];

/// Draw the run in `run_dir` to `out` (default `run_dir/charts.<ext>`).
/// The title says when the run did not finish (see [`crate::runner::incomplete`]).
pub fn export_run(run_dir: &Path, format: Format, out: Option<&Path>) -> Result<PathBuf> {
    let out = out.map(Path::to_path_buf).unwrap_or_else(|| run_dir.join(format!("charts.{}", format.extension())));
    let bytes = render_run(run_dir, format)?;
    std::fs::write(&out, bytes).with_context(|| format!("writing {}", out.display()))?;
    Ok(out)
}

/// The run in `run_dir` drawn as a PNG or SVG file's bytes.
pub fn render_run(run_dir: &Path, format: Format) -> Result<Vec<u8>> {
    let events = load_events(run_dir)?;
    let all = series(&events);
    if all.is_empty() {
        return Err(anyhow!("{} has no metric points to draw", run_dir.display()));
    }
    let record = crate::runner::load_run(run_dir);
    let mut title = match &record.config {
        Some(c) => format!("{} · preset {} · seed {} · {}", c.drill, c.preset, c.seed, record.name),
        None => record.name.clone(),
    };
    if let Some(note) = crate::runner::incomplete(&record, &events) {
        title.push_str(&format!(" · {note} (partial)"));
    }
    render(format, &title, &all)
}

/// Named series in a grid of line charts, as PNG or SVG bytes. Drawing
/// happens in memory; writing the file is the caller's (so that a bad path
/// is an I/O error with its message, not the image library's).
pub fn render(format: Format, title: &str, all: &[(String, Vec<Point>)]) -> Result<Vec<u8>> {
    register_fonts();
    let cols = if all.len() > 1 { 2 } else { 1 };
    let rows = all.len().div_ceil(cols);
    let size = (560 * cols as u32, 60 + 300 * rows as u32);
    match format {
        Format::Png => {
            let mut pixels = vec![0u8; size.0 as usize * size.1 as usize * 3];
            {
                let root = BitMapBackend::with_buffer(&mut pixels, size).into_drawing_area();
                draw(&root, title, all, cols, rows)?;
                root.present().map_err(|e| anyhow!("drawing: {e}"))?;
            }
            let mut png = Vec::new();
            image::codecs::png::PngEncoder::new(&mut png)
                .write_image(&pixels, size.0, size.1, image::ColorType::Rgb8)
                .map_err(|e| anyhow!("encoding the PNG: {e}"))?;
            Ok(png)
        }
        Format::Svg => {
            let mut svg = String::new();
            {
                let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
                draw(&root, title, all, cols, rows)?;
                root.present().map_err(|e| anyhow!("drawing: {e}"))?;
            }
            Ok(svg.into_bytes())
        }
    }
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    all: &[(String, Vec<Point>)],
    cols: usize,
    rows: usize,
) -> Result<()>
where
    DB::ErrorType: 'static,
{
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| anyhow!("drawing: {e}");
    root.fill(&WHITE).map_err(err)?;
    let root = root.titled(title, ("sans-serif", 22).into_font()).map_err(err)?;
    let cells = root.split_evenly((rows, cols));
    for (i, (name, pts)) in all.iter().enumerate() {
        let area = &cells[i];
        let (x0, x1) = bounds(pts.iter().map(|p| p.step));
        let (y0, y1) = bounds(pts.iter().map(|p| p.value));
        let mut chart = ChartBuilder::on(area)
            .caption(name, ("sans-serif", 18).into_font())
            .margin(10)
            .x_label_area_size(28)
            .y_label_area_size(52)
            .build_cartesian_2d(x0..x1, y0..y1)
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_desc("step")
            .x_label_formatter(&|x| format!("{x:.0}"))
            .y_label_formatter(&|y| short(*y))
            .light_line_style(RGBColor(235, 235, 235))
            .draw()
            .map_err(err)?;
        let colour = PALETTE[i % PALETTE.len()];
        // Wide strokes get miter spikes at sharp turns in plotters' bitmap
        // backend; noisy series (many points) are drawn one pixel wide.
        let width = if pts.len() > 60 { 1 } else { 2 };
        chart
            .draw_series(LineSeries::new(pts.iter().map(|p| (p.step, p.value)), colour.stroke_width(width)))
            .map_err(err)?;
    }
    Ok(())
}

/// Compact axis labels: 0.003, 1.2e-5, 35.
fn short(y: f64) -> String {
    let a = y.abs();
    if a != 0.0 && !(1e-3..1e5).contains(&a) {
        format!("{y:.1e}")
    } else if a >= 100.0 {
        format!("{y:.0}")
    } else {
        let s = format!("{y:.4}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// Axis range with a little headroom; a flat series gets a unit range.
fn bounds(xs: impl Iterator<Item = f64>) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for x in xs.filter(|x| x.is_finite()) {
        lo = lo.min(x);
        hi = hi.max(x);
    }
    if !lo.is_finite() {
        return (0.0, 1.0);
    }
    if (hi - lo).abs() < 1e-12 {
        return (lo - 0.5, hi + 0.5);
    }
    let pad = (hi - lo) * 0.05;
    (lo - pad, hi + pad)
}

/// Metrics as CSV: `series,step,t,value`, written to `out` (default `run_dir/metrics.csv`).
pub fn write_csv(run_dir: &Path, out: Option<&Path>) -> Result<PathBuf> {
    let out = out.map(Path::to_path_buf).unwrap_or_else(|| run_dir.join("metrics.csv"));
    std::fs::write(&out, csv(run_dir)?).with_context(|| format!("writing {}", out.display()))?;
    Ok(out)
}

/// Metrics as CSV text: `series,step,t,value`.
pub fn csv(run_dir: &Path) -> Result<String> {
    let events = load_events(run_dir)?;
    let mut s = String::from("series,step,t,value\n");
    for (name, pts) in series(&events) {
        for p in pts {
            s.push_str(&format!("{name},{},{:.3},{}\n", p.step, p.t, p.value));
        }
    }
    Ok(s)
}
