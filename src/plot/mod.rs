//! Export a run's metric series as a PNG or SVG chart grid (plotters), or as
//! CSV. Fonts are embedded (DejaVu Sans), so nothing depends on the system's
//! font libraries.

pub mod band;

use std::path::{Path, PathBuf};
use std::sync::Once;

use anyhow::{anyhow, Context, Result};
use image::ImageEncoder;
use plotters::coord::Shift;
use plotters::prelude::*;

use crate::content::ChartGroup;
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

/// Draw the run in `run_dir` to `out` (default `run_dir/charts.<ext>`), raw
/// values on a linear axis. The title says when the run did not finish (see
/// [`crate::runner::incomplete`]).
pub fn export_run(run_dir: &Path, format: Format, out: Option<&Path>) -> Result<PathBuf> {
    export_run_styled(run_dir, format, out, Style::default())
}

/// [`export_run`] drawn the way the drill screen shows it (smoothing, log y).
pub fn export_run_styled(run_dir: &Path, format: Format, out: Option<&Path>, style: Style) -> Result<PathBuf> {
    let out = out.map(Path::to_path_buf).unwrap_or_else(|| run_dir.join(format!("charts.{}", format.extension())));
    let bytes = render_run(run_dir, format, style)?;
    std::fs::write(&out, bytes).with_context(|| format!("writing {}", out.display()))?;
    Ok(out)
}

/// The run in `run_dir` drawn as a PNG or SVG file's bytes.
pub fn render_run(run_dir: &Path, format: Format, style: Style) -> Result<Vec<u8>> {
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
    // The drill's `[[chart]]`s group the series as the drill screen does.
    let charts = record
        .config
        .as_ref()
        .and_then(|c| crate::content::Content::embedded().ok()?.drill(&c.drill).map(|m| m.charts.clone()))
        .unwrap_or_default();
    let names: Vec<&str> = all.iter().map(|(n, _)| n.as_str()).collect();
    let groups = crate::content::drill_meta::group_series(&charts, &names);
    render_groups(format, &title, &all, &groups, style)
}

/// Named series in a grid of line charts, as PNG or SVG bytes. Drawing
/// happens in memory; writing the file is the caller's (so that a bad path
/// is an I/O error with its message, not the image library's).
pub fn render(format: Format, title: &str, all: &[(String, Vec<Point>)], style: Style) -> Result<Vec<u8>> {
    let names: Vec<&str> = all.iter().map(|(n, _)| n.as_str()).collect();
    render_groups(format, title, all, &crate::content::drill_meta::group_series(&[], &names), style)
}

/// [`render`] with the series in `groups` (see [`crate::content::drill_meta::group_series`]):
/// one panel per group, its curves in the palette's colours with a legend,
/// its x axis named by the group.
pub fn render_groups(
    format: Format,
    title: &str,
    all: &[(String, Vec<Point>)],
    groups: &[ChartGroup],
    style: Style,
) -> Result<Vec<u8>> {
    register_fonts();
    let cols = if groups.len() > 1 { 2 } else { 1 };
    let rows = groups.len().div_ceil(cols).max(1);
    let size = (560 * cols as u32, 60 + 300 * rows as u32);
    encode(
        format,
        size,
        |root| draw(root, title, all, groups, cols, rows, style),
        |root| draw(root, title, all, groups, cols, rows, style),
    )
}

/// Draw a figure of `size` pixels and encode it as `format`: `png` draws on
/// the pixel backend, `svg` on the SVG one (the same drawing function, given
/// twice because plotters' backends are different types).
pub(crate) fn encode(
    format: Format,
    size: (u32, u32),
    png: impl FnOnce(&DrawingArea<BitMapBackend, Shift>) -> Result<()>,
    svg: impl FnOnce(&DrawingArea<SVGBackend, Shift>) -> Result<()>,
) -> Result<Vec<u8>> {
    match format {
        Format::Png => {
            let mut pixels = vec![0u8; size.0 as usize * size.1 as usize * 3];
            {
                let root = BitMapBackend::with_buffer(&mut pixels, size).into_drawing_area();
                png(&root)?;
                root.present().map_err(|e| anyhow!("drawing: {e}"))?;
            }
            let mut out = Vec::new();
            image::codecs::png::PngEncoder::new(&mut out)
                .write_image(&pixels, size.0, size.1, image::ColorType::Rgb8)
                .map_err(|e| anyhow!("encoding the PNG: {e}"))?;
            Ok(out)
        }
        Format::Svg => {
            let mut text = String::new();
            {
                let root = SVGBackend::with_string(&mut text, size).into_drawing_area();
                svg(&root)?;
                root.present().map_err(|e| anyhow!("drawing: {e}"))?;
            }
            Ok(text.into_bytes())
        }
    }
}

/// A curve of a panel: its legend label, its number of points, its (x, y) as drawn.
type Curve<'a> = (&'a str, usize, Vec<(f64, f64)>);

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    all: &[(String, Vec<Point>)],
    groups: &[ChartGroup],
    cols: usize,
    rows: usize,
    style: Style,
) -> Result<()>
where
    DB::ErrorType: 'static,
{
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| anyhow!("drawing: {e}");
    root.fill(&WHITE).map_err(err)?;
    let root = root.titled(title, ("sans-serif", 22).into_font()).map_err(err)?;
    let cells = root.split_evenly((rows, cols));
    for (g, group) in groups.iter().enumerate() {
        let area = &cells[g];
        let curves: Vec<Curve> =
            group.members.iter().map(|(i, label)| (label.as_str(), all[*i].1.len(), style.apply(&all[*i].1))).collect();
        let (x0, x1) = x_range(curves.iter().flat_map(|c| c.2.iter().map(|p| p.0)));
        let (y0, y1) = value_range(curves.iter().flat_map(|c| c.2.iter().map(|p| p.1)));
        // Smoothing as the screen does it: only the long series are smoothed.
        let longest = curves.iter().map(|c| c.1).max().unwrap_or(0);
        let name = &group.title;
        let caption = match (style.smoothing_for(longest), style.log_y) {
            (Some(b), true) => format!("{name} (EMA {b:.2}, log y)"),
            (Some(b), false) => format!("{name} (EMA {b:.2})"),
            (None, true) => format!("{name} (log y)"),
            (None, false) => name.clone(),
        };
        let mut chart = ChartBuilder::on(area)
            .caption(caption, ("sans-serif", 18).into_font())
            .margin(10)
            .x_label_area_size(40)
            .y_label_area_size(52)
            .build_cartesian_2d(x0..x1, y0..y1)
            .map_err(err)?;
        let log_y = style.log_y;
        chart
            .configure_mesh()
            .x_desc(group.x.as_str())
            .x_label_formatter(&|x| format!("{x:.0}"))
            .y_label_formatter(&|y| short(if log_y { 10f64.powf(*y) } else { *y }))
            .light_line_style(RGBColor(235, 235, 235))
            .draw()
            .map_err(err)?;
        for (j, (label, _, xy)) in curves.iter().enumerate() {
            // A lone series keeps its own colour; a group's curves take the palette in order.
            let colour = PALETTE[if group.is_single() { g } else { j } % PALETTE.len()];
            // Wide strokes get miter spikes at sharp turns in plotters' bitmap
            // backend; noisy series (many points) are drawn one pixel wide.
            let width = if xy.len() > 60 { 1 } else { 2 };
            let line =
                chart.draw_series(LineSeries::new(xy.iter().copied(), colour.stroke_width(width))).map_err(err)?;
            if !group.is_single() {
                line.label(*label)
                    .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], colour.stroke_width(2)));
            }
            if xy.len() < 20 {
                // Sparse series: mark each measured point.
                chart.draw_series(xy.iter().map(|&p| Circle::new(p, 3, colour.filled()))).map_err(err)?;
            }
        }
        if !group.is_single() {
            chart
                .configure_series_labels()
                .position(SeriesLabelPosition::LowerRight)
                .background_style(WHITE.mix(0.8))
                .border_style(RGBColor(200, 200, 200))
                .label_font(("sans-serif", 13).into_font())
                .draw()
                .map_err(err)?;
        }
    }
    Ok(())
}

/// Compact axis labels: 0.003, 1.2e-5, 35.
fn short(y: f64) -> String {
    // Rounding noise next to 0 (−6.9e-18) reads as 0.
    let y = if y.abs() < 1e-12 { 0.0 } else { y };
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

/// The y range to draw `ys` in: the data with 5% headroom. A flat series
/// gets a narrow band around its value (not a unit range that makes 0.35
/// look like it sits between −0.15 and 0.85), and the headroom never crosses
/// a natural edge the data respects: a series ≥ 0 keeps its axis ≥ 0, a
/// series in [0, 1] (an accuracy, a rate) keeps its axis in [0, 1].
pub fn value_range(ys: impl Iterator<Item = f64>) -> (f64, f64) {
    let Some((lo, hi)) = extent(ys) else { return (0.0, 1.0) };
    let pad = if hi - lo > 1e-12 { (hi - lo) * 0.05 } else { (lo.abs() * 0.05).max(1e-3) };
    let (mut a, mut b) = (lo - pad, hi + pad);
    if lo >= 0.0 {
        a = a.max(0.0);
    }
    if lo >= 0.0 && hi <= 1.0 {
        b = b.min(1.0);
    }
    if b - a < 1e-12 {
        // A flat series at an edge (all 0, or all 1): widen inwards.
        if a <= 0.0 {
            b = a + 2.0 * pad;
        } else {
            a = b - 2.0 * pad;
        }
    }
    (a, b)
}

/// The x range (steps or seconds): the data, or a unit range for one point.
pub fn x_range(xs: impl Iterator<Item = f64>) -> (f64, f64) {
    match extent(xs) {
        None => (0.0, 1.0),
        Some((lo, hi)) if hi - lo < 1e-9 => (lo, lo + 1.0),
        Some(r) => r,
    }
}

/// Smallest and largest finite value; `None` when there is none.
fn extent(vs: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    vs.filter(|v| v.is_finite()).fold(None, |acc, v| match acc {
        None => Some((v, v)),
        Some((lo, hi)) => Some((f64::min(lo, v), f64::max(hi, v))),
    })
}

/// Series with fewer points than this (evaluations every so many steps,
/// per-round scores) are drawn raw: an EMA over 5 points mostly shows the
/// smoothing, not the series.
pub const MIN_POINTS_TO_SMOOTH: usize = 30;

/// Bias-corrected exponential moving average: s_t = β s_{t−1} + (1−β) y_t,
/// shown as s_t / (1 − β^t) so the first points are not dragged towards 0.
pub fn ema(values: &[f64], beta: f64) -> Vec<f64> {
    let mut s = 0.0;
    let mut out = Vec::with_capacity(values.len());
    for (t, v) in values.iter().enumerate() {
        s = beta * s + (1.0 - beta) * v;
        out.push(s / (1.0 - beta.powi(t as i32 + 1)));
    }
    out
}

/// How a series is drawn, on the screen and in an export: the same options.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Style {
    /// EMA decay in [0, 1) for series with at least [`MIN_POINTS_TO_SMOOTH`]
    /// points; `None` draws raw values.
    pub smoothing: Option<f64>,
    /// y as log10 (non-positive values are left out).
    pub log_y: bool,
}

impl Style {
    /// The EMA decay used for a series of `n` points, if any.
    pub fn smoothing_for(&self, n: usize) -> Option<f64> {
        self.smoothing.filter(|_| n >= MIN_POINTS_TO_SMOOTH)
    }

    /// The y values as drawn, before any log scale: smoothed where the
    /// series is long enough, raw otherwise.
    pub fn smoothed(&self, pts: &[Point]) -> Vec<f64> {
        let ys: Vec<f64> = pts.iter().map(|p| p.value).collect();
        match self.smoothing_for(pts.len()) {
            Some(b) => ema(&ys, b),
            None => ys,
        }
    }

    /// (x, y) of `pts` as drawn — x the step, or the seconds since the start
    /// when `x_time` — smoothed, then log10 if asked; non-finite results
    /// are left out. The screen's charts and the exports both draw these.
    pub fn points(&self, pts: &[Point], x_time: bool) -> Vec<(f64, f64)> {
        pts.iter()
            .zip(self.smoothed(pts))
            .filter_map(|(p, y)| {
                let y = if self.log_y { (y > 0.0).then(|| y.log10())? } else { y };
                let x = if x_time { p.t } else { p.step };
                y.is_finite().then_some((x, y))
            })
            .collect()
    }

    /// (step, y) of `pts` as drawn.
    pub fn apply(&self, pts: &[Point]) -> Vec<(f64, f64)> {
        self.points(pts, false)
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_respect_what_the_data_respects() {
        // One point of an accuracy: a narrow band, inside [0, 1].
        let (a, b) = value_range([0.35].into_iter());
        assert!(a > 0.3 && b < 0.4 && a < 0.35 && b > 0.35, "{a} {b}");
        // A flat accuracy of 1 stays at or below 1; of 0 at or above 0.
        let (a, b) = value_range([1.0, 1.0].into_iter());
        assert!(b <= 1.0 && a < 1.0);
        let (a, b) = value_range([0.0, 0.0].into_iter());
        assert!(a >= 0.0 && b > 0.0);
        // Rates near the edges: headroom does not cross 0 or 1.
        assert_eq!(value_range([0.0, 1.0].into_iter()), (0.0, 1.0));
        // A loss keeps its axis at or above 0; a signed series gets headroom both ways.
        assert!(value_range([0.01, 3.0].into_iter()).0 >= 0.0);
        let (a, b) = value_range([-1.0, 1.0].into_iter());
        assert!(a < -1.0 && b > 1.0);
        assert_eq!(value_range(std::iter::empty()), (0.0, 1.0));
    }

    #[test]
    fn ema_is_bias_corrected() {
        // A constant series stays constant from the first point on.
        assert!(ema(&[2.0; 5], 0.9).iter().all(|v| (v - 2.0).abs() < 1e-12));
        let e = ema(&[0.0, 10.0], 0.5);
        assert_eq!(e[0], 0.0);
        assert!((e[1] - 10.0 * 0.5 / 0.75).abs() < 1e-12);
    }

    /// The export draws what the screen shows: its smoothing and log-y in the
    /// captions, a flat accuracy on a narrow axis with no negative label.
    #[test]
    fn an_export_follows_the_screens_style() {
        let loss: Vec<Point> =
            (0..40).map(|i| Point { step: i as f64, t: 0.0, value: 3.0 / (1.0 + i as f64) }).collect();
        let acc: Vec<Point> = (0..5).map(|i| Point { step: 20.0 * i as f64, t: 0.0, value: 0.35 }).collect();
        let all = vec![("loss".to_string(), loss), ("heldout_acc".to_string(), acc)];
        let svg = |style: Style| String::from_utf8(render(Format::Svg, "run", &all, style).unwrap()).unwrap();
        let screen = svg(Style { smoothing: Some(0.9), log_y: true });
        assert!(screen.contains("loss (EMA 0.90, log y)"), "the long series is smoothed and log-scaled");
        assert!(screen.contains("heldout_acc (log y)") && !screen.contains("heldout_acc (EMA"), "sparse: raw");
        let raw = svg(Style { smoothing: None, log_y: false });
        assert!(raw.contains("heldout_acc") && !raw.contains("(EMA") && !raw.contains("log y)"), "no style, no note");
        // The text nodes: captions and axis labels.
        let texts = |svg: &str| -> Vec<String> {
            svg.split('>').filter_map(|t| t.split('<').next()).map(|t| t.trim().to_string()).collect()
        };
        for svg in [&screen, &raw] {
            let numbers: Vec<f64> = texts(svg).iter().filter_map(|t| t.parse().ok()).collect();
            assert!(numbers.iter().all(|v| *v >= 0.0), "no negative label for a loss or an accuracy: {numbers:?}");
            // The flat accuracy gets a narrow band around 0.35, not −0.4…0.5.
            assert!(numbers.iter().filter(|v| (0.33..0.37).contains(*v)).count() >= 3, "{numbers:?}");
        }
        // Log y: the loss axis is labelled in powers (0.1, 0.1585, …, 1, 1.5849).
        assert!(texts(&screen).iter().any(|t| t == "0.1585"), "log-spaced labels");
    }

    #[test]
    fn short_series_are_not_smoothed() {
        let pts = |n: usize| -> Vec<Point> {
            (0..n).map(|i| Point { step: i as f64, t: 0.0, value: (i % 2) as f64 }).collect()
        };
        let style = Style { smoothing: Some(0.9), log_y: false };
        let few = style.apply(&pts(5));
        assert_eq!(few.iter().map(|p| p.1).collect::<Vec<_>>(), vec![0.0, 1.0, 0.0, 1.0, 0.0]);
        let many = style.apply(&pts(MIN_POINTS_TO_SMOOTH));
        assert!(many.iter().skip(1).all(|p| p.1 > 0.0 && p.1 < 1.0), "smoothed");
    }

    /// A group is one panel: its curves with a legend, its x axis named by the group.
    #[test]
    fn a_group_is_one_panel_with_a_legend_and_its_x() {
        use crate::content::ChartSpec;
        let curve = |v: f64| -> Vec<Point> {
            (1..=16).map(|k| Point { step: k as f64, t: 0.0, value: v * k as f64 / 16.0 }).collect()
        };
        let all = vec![
            ("sft/loss".to_string(), curve(2.0)),
            ("pass@k/T=0.25".to_string(), curve(0.8)),
            ("pass@k/T=1".to_string(), curve(0.9)),
        ];
        let charts = [ChartSpec {
            title: "pass@k against k".into(),
            series: vec!["pass@k/*".into()],
            x: "k".into(),
            label: None,
        }];
        let names: Vec<&str> = all.iter().map(|(n, _)| n.as_str()).collect();
        let groups = crate::content::drill_meta::group_series(&charts, &names);
        assert_eq!(groups.len(), 2);
        let svg =
            String::from_utf8(render_groups(Format::Svg, "run", &all, &groups, Style::default()).unwrap()).unwrap();
        let texts: Vec<&str> = svg.split('>').filter_map(|t| t.split('<').next()).map(str::trim).collect();
        for want in ["pass@k against k", "T=0.25", "T=1", "k", "step", "sft/loss"] {
            assert!(texts.contains(&want), "{want} missing: {texts:?}");
        }
        assert!(!texts.contains(&"pass@k/T=1"), "a group's curves are labelled by what differs");
        // Rounding noise next to 0 reads as 0.
        assert_eq!(short(-6.9e-18), "0");
    }
}
