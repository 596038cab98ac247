//! Seed bands: one metric over the seeds of a sweep, as the mean with a
//! ±1 standard deviation band and the min–max range lighter — the figure
//! style of Spinning Up's benchmark plots — for the Sweep tab, and as a PNG,
//! SVG or CSV export.
//!
//! At each x (the step a point was logged at, whatever the chart's x axis
//! counts) over the n seeds:
//!
//! - mean  m = (1/n) Σ_i y_i
//! - sd    s = √((1/n) Σ_i (y_i − m)²), the *population* standard deviation
//!   (ddof 0): it describes these n seeds, it does not estimate a wider
//!   population (that would divide by n − 1);
//! - min and max of the y_i.
//!
//! Alignment: a band has a point only at the x values **every** seed logged
//! (their intersection); nothing is interpolated. Seeds of one sweep run the
//! same configuration, so their drills log at the same steps and nothing is
//! lost; an x only some seeds reached (a run that stopped early) would mix
//! different seed sets into one curve, and is left out. When a stream logs
//! one x twice, its last value counts (what the run ended with there).
//!
//! Which series are drawn together comes from the drill's `[[chart]]`
//! declarations ([`crate::content::ChartGroup`]): each member of a chart is
//! an arm of a comparison (naive / EWC / replay) with its own colour.

use std::collections::BTreeMap;

use anyhow::{anyhow, Result};
use plotters::coord::Shift;
use plotters::prelude::*;

use super::{register_fonts, short, value_range, x_range, Format, PALETTE};
use crate::content::DrillMeta;
use crate::runner::Point;

/// One x of a band: the statistics of the seeds' values there.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BandPoint {
    pub x: f64,
    pub mean: f64,
    /// Population standard deviation (ddof 0), see the module doc.
    pub sd: f64,
    pub min: f64,
    pub max: f64,
    /// Seeds behind the point.
    pub n: usize,
}

/// The band of one series over seeds: `streams[i]` is seed i's (x, y)
/// points. Points only at the x values every stream has (see the module
/// doc); non-finite values are left out of their stream. No stream, no band.
pub fn band(streams: &[Vec<(f64, f64)>]) -> Vec<BandPoint> {
    if streams.is_empty() {
        return Vec::new();
    }
    // x as its bits: exact equality, and an order (for finite x, total_cmp's).
    let per_stream: Vec<BTreeMap<OrdX, f64>> = streams
        .iter()
        .map(|s| s.iter().filter(|(x, y)| x.is_finite() && y.is_finite()).map(|&(x, y)| (OrdX(x), y)).collect())
        .collect();
    let n = per_stream.len();
    per_stream[0]
        .keys()
        .filter(|x| per_stream.iter().all(|s| s.contains_key(x)))
        .map(|x| {
            let ys: Vec<f64> = per_stream.iter().map(|s| s[x]).collect();
            let mean = ys.iter().sum::<f64>() / n as f64;
            let var = ys.iter().map(|y| (y - mean).powi(2)).sum::<f64>() / n as f64;
            BandPoint {
                x: x.0,
                mean,
                sd: var.sqrt(),
                min: ys.iter().copied().fold(f64::INFINITY, f64::min),
                max: ys.iter().copied().fold(f64::NEG_INFINITY, f64::max),
                n,
            }
        })
        .collect()
}

/// A finite x with a total order, for the band's map.
#[derive(Debug, Clone, Copy, PartialEq)]
struct OrdX(f64);
impl Eq for OrdX {}
impl PartialOrd for OrdX {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for OrdX {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// One arm of a chart: a series over the seeds.
#[derive(Debug, Clone, PartialEq)]
pub struct Arm {
    /// The legend label (what the chart pattern's `*` matched).
    pub label: String,
    /// The series' full name.
    pub series: String,
    pub points: Vec<BandPoint>,
}

/// A chart of bands: the arms a drill's `[[chart]]` draws together.
#[derive(Debug, Clone, PartialEq)]
pub struct BandChart {
    pub title: String,
    /// What the x axis counts (`step`, `k`, …).
    pub x: String,
    pub arms: Vec<Arm>,
    /// Seeds behind the bands.
    pub seeds: usize,
}

impl BandChart {
    /// Whether `query` names this chart: its title or one of its series,
    /// case-insensitively, in part.
    pub fn matches(&self, query: &str) -> bool {
        let q = query.to_lowercase();
        self.title.to_lowercase().contains(&q) || self.arms.iter().any(|a| a.series.to_lowercase().contains(&q))
    }

    /// The y range the chart needs: every arm's min–max, with headroom.
    pub fn y_range(&self) -> (f64, f64) {
        value_range(self.arms.iter().flat_map(|a| a.points.iter().flat_map(|p| [p.min, p.max])))
    }

    pub fn x_range(&self) -> (f64, f64) {
        x_range(self.arms.iter().flat_map(|a| a.points.iter().map(|p| p.x)))
    }
}

/// The band charts of a sweep: `seeds[i]` is seed i's metric series (as
/// [`crate::runner::series`] reads them), grouped into the drill's charts.
/// Series in the order they first appear, over the seeds in order; an arm
/// no x of which every seed logged is left out, and so is a chart left empty.
pub fn band_charts(meta: &DrillMeta, seeds: &[Vec<(String, Vec<Point>)>]) -> Vec<BandChart> {
    let mut names: Vec<&str> = Vec::new();
    for s in seeds {
        for (name, _) in s {
            if !names.contains(&name.as_str()) {
                names.push(name);
            }
        }
    }
    meta.chart_groups(&names)
        .into_iter()
        .filter_map(|g| {
            let arms: Vec<Arm> = g
                .members
                .iter()
                .filter_map(|(i, label)| {
                    let name = names[*i];
                    let streams: Vec<Vec<(f64, f64)>> = seeds
                        .iter()
                        .map(|s| {
                            s.iter()
                                .find(|(n, _)| n == name)
                                .map(|(_, pts)| pts.iter().map(|p| (p.step, p.value)).collect())
                                .unwrap_or_default()
                        })
                        .collect();
                    let points = band(&streams);
                    (!points.is_empty()).then(|| Arm { label: label.clone(), series: name.to_string(), points })
                })
                .collect();
            (!arms.is_empty()).then_some(BandChart { title: g.title, x: g.x, arms, seeds: seeds.len() })
        })
        .collect()
}

/// What the band shows, for legends and captions.
pub const BAND_NOTE: &str = "line: mean · band: ±1 sd (population) · lighter: min–max";

/// The bands as CSV: `chart,x,arm,mean,sd,min,max,n`, one row per arm and x.
pub fn csv(charts: &[BandChart]) -> String {
    let mut s = String::from("chart,x,arm,mean,sd,min,max,n\n");
    for c in charts {
        for a in &c.arms {
            for p in &a.points {
                s.push_str(&format!(
                    "{},{},{},{},{},{},{},{}\n",
                    csv_field(&c.title),
                    p.x,
                    csv_field(&a.label),
                    p.mean,
                    p.sd,
                    p.min,
                    p.max,
                    p.n
                ));
            }
        }
    }
    s
}

/// A CSV field, quoted when it holds a comma, a quote or a line break.
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// Band charts in a grid (two columns when there are several), as PNG or
/// SVG bytes: per arm the min–max range as a light polygon, the ±1 sd band
/// as a stronger one, the mean as a line; the legend beside each chart.
pub fn render(format: Format, title: &str, charts: &[BandChart]) -> Result<Vec<u8>> {
    if charts.is_empty() {
        return Err(anyhow!("no series has a point every seed logged: nothing to draw"));
    }
    register_fonts();
    let cols = if charts.len() > 1 { 2 } else { 1 };
    let rows = charts.len().div_ceil(cols);
    let size = (760 * cols as u32, 60 + 380 * rows as u32);
    super::encode(
        format,
        size,
        |root| draw(root, title, charts, cols, rows),
        |root| draw(root, title, charts, cols, rows),
    )
}

/// Opacity of the ±1 sd band and of the min–max range over white.
const SD_ALPHA: f64 = 0.30;
const RANGE_ALPHA: f64 = 0.12;

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    charts: &[BandChart],
    cols: usize,
    rows: usize,
) -> Result<()>
where
    DB::ErrorType: 'static,
{
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| anyhow!("drawing: {e}");
    root.fill(&WHITE).map_err(err)?;
    let root = root.titled(title, ("sans-serif", 20).into_font()).map_err(err)?;
    for (c, cell) in charts.iter().zip(root.split_evenly((rows, cols))) {
        // The legend beside the plot, never over the data.
        let (w, _) = cell.dim_in_pixel();
        let (plot, legend) = cell.split_horizontally(w as i32 - 150);
        let (x0, x1) = c.x_range();
        let (y0, y1) = c.y_range();
        let mut chart = ChartBuilder::on(&plot)
            .caption(format!("{} · {} seeds", c.title, c.seeds), ("sans-serif", 17).into_font())
            .margin(10)
            .x_label_area_size(40)
            .y_label_area_size(52)
            .build_cartesian_2d(x0..x1, y0..y1)
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_desc(c.x.as_str())
            .x_label_formatter(&|x| short(*x))
            .y_label_formatter(&|y| short(*y))
            .light_line_style(RGBColor(235, 235, 235))
            .draw()
            .map_err(err)?;
        let colour = |i: usize| PALETTE[i % PALETTE.len()];
        // Ranges first, then bands, then the means on top of every fill.
        for (i, a) in c.arms.iter().enumerate() {
            let poly = outline(&a.points, |p| p.min, |p| p.max);
            chart.draw_series(std::iter::once(Polygon::new(poly, colour(i).mix(RANGE_ALPHA).filled()))).map_err(err)?;
        }
        for (i, a) in c.arms.iter().enumerate() {
            let poly = outline(&a.points, |p| p.mean - p.sd, |p| p.mean + p.sd);
            chart.draw_series(std::iter::once(Polygon::new(poly, colour(i).mix(SD_ALPHA).filled()))).map_err(err)?;
        }
        for (i, a) in c.arms.iter().enumerate() {
            let line: Vec<(f64, f64)> = a.points.iter().map(|p| (p.x, p.mean)).collect();
            chart.draw_series(LineSeries::new(line, colour(i).stroke_width(2))).map_err(err)?;
        }
        draw_legend(&legend, c, colour).map_err(err)?;
    }
    Ok(())
}

/// The legend: a swatch per arm (the band's colour with its mean line), then what the fills mean.
fn draw_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    c: &BandChart,
    colour: impl Fn(usize) -> RGBColor,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let font = ("sans-serif", 15).into_font();
    let small = ("sans-serif", 12).into_font().color(&RGBColor(90, 90, 90));
    let mut y = 50;
    for (i, a) in c.arms.iter().enumerate() {
        area.draw(&Rectangle::new([(4, y - 7), (30, y + 7)], colour(i).mix(SD_ALPHA).filled()))?;
        area.draw(&PathElement::new(vec![(4, y), (30, y)], colour(i).stroke_width(2)))?;
        area.draw(&Text::new(a.label.clone(), (36, y - 8), font.clone()))?;
        y += 24;
    }
    y += 6;
    for note in ["line: mean", "band: ±1 sd", "(population, ddof 0)", "lighter: min–max"] {
        area.draw(&Text::new(note, (4, y), small.clone()))?;
        y += 16;
    }
    Ok(())
}

/// A closed outline: `lo` left to right, then `hi` back.
fn outline(points: &[BandPoint], lo: impl Fn(&BandPoint) -> f64, hi: impl Fn(&BandPoint) -> f64) -> Vec<(f64, f64)> {
    let mut poly: Vec<(f64, f64)> = points.iter().map(|p| (p.x, lo(p))).collect();
    poly.extend(points.iter().rev().map(|p| (p.x, hi(p))));
    poly
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_quotes_what_needs_quoting() {
        assert_eq!(csv_field("acc A, naive"), "\"acc A, naive\"");
        assert_eq!(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(csv_field("ewc"), "ewc");
    }

    #[test]
    fn a_stream_that_logs_an_x_twice_counts_its_last_value() {
        let b = band(&[vec![(0.0, 1.0), (0.0, 3.0)], vec![(0.0, 5.0)]]);
        assert_eq!(b.len(), 1);
        assert_eq!((b[0].mean, b[0].min, b[0].max), (4.0, 3.0, 5.0));
        assert!(band(&[]).is_empty());
        assert!(band(&[vec![(0.0, 1.0)], vec![]]).is_empty(), "no x every seed logged");
    }
}
