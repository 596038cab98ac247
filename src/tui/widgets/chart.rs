//! A live line chart of one metric series (ratatui `Chart`, braille dots),
//! with optional bias-corrected EMA smoothing, log-scale y, x by step or by
//! wall time, and the previous run of the drill overlaid in a dimmer colour.

use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::symbols;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Axis, Block, BorderType, Borders, Chart, Dataset, GraphType};
use ratatui::Frame;

use crate::runner::Point;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChartOpts {
    /// EMA decay in [0, 1); `None` shows raw points.
    pub smoothing: Option<f64>,
    pub log_y: bool,
    /// x = seconds since start instead of step.
    pub x_time: bool,
}

impl Default for ChartOpts {
    fn default() -> Self {
        ChartOpts { smoothing: Some(0.9), log_y: false, x_time: false }
    }
}

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

/// Points as (x, y) after smoothing and scaling, at most `max_points` of them.
pub fn prepare(pts: &[Point], opts: ChartOpts, max_points: usize) -> Vec<(f64, f64)> {
    let ys: Vec<f64> = pts.iter().map(|p| p.value).collect();
    let ys = match opts.smoothing {
        Some(b) if pts.len() > 2 => ema(&ys, b),
        _ => ys,
    };
    let stride = pts.len().div_ceil(max_points.max(1)).max(1);
    pts.iter()
        .zip(ys)
        .enumerate()
        .filter(|(i, _)| i % stride == 0 || *i + 1 == pts.len())
        .filter_map(|(_, (p, y))| {
            let x = if opts.x_time { p.t } else { p.step };
            let y = if opts.log_y {
                if y > 0.0 {
                    y.log10()
                } else {
                    return None;
                }
            } else {
                y
            };
            y.is_finite().then_some((x, y))
        })
        .collect()
}

fn fmt(v: f64, log: bool) -> String {
    let v = if log { 10f64.powf(v) } else { v };
    let a = v.abs();
    if a != 0.0 && !(1e-3..1e5).contains(&a) {
        format!("{v:.1e}")
    } else if a >= 100.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.3}")
    }
}

pub fn colour(i: usize) -> Color {
    const C: [Color; 6] = [
        Color::Rgb(0x5f, 0xd7, 0xff),
        Color::Rgb(0xff, 0x87, 0x87),
        Color::Rgb(0x87, 0xff, 0x87),
        Color::Rgb(0xff, 0xd7, 0x5f),
        Color::Rgb(0xd7, 0x87, 0xff),
        Color::Rgb(0xff, 0xaf, 0x5f),
    ];
    C[i % C.len()]
}

/// Draw one series (and the previous run's, if any) into `area`.
pub fn draw(
    frame: &mut Frame,
    area: Rect,
    name: &str,
    idx: usize,
    pts: &[Point],
    prev: Option<&[Point]>,
    opts: ChartOpts,
) {
    let max_points = (area.width as usize * 2).max(16);
    let cur = prepare(pts, opts, max_points);
    let old = prev.map(|p| prepare(p, opts, max_points)).unwrap_or_default();
    let all = cur.iter().chain(old.iter());
    let (mut x0, mut x1, mut y0, mut y1) = (f64::INFINITY, f64::NEG_INFINITY, f64::INFINITY, f64::NEG_INFINITY);
    for &(x, y) in all {
        x0 = x0.min(x);
        x1 = x1.max(x);
        y0 = y0.min(y);
        y1 = y1.max(y);
    }
    if !x0.is_finite() {
        (x0, x1, y0, y1) = (0.0, 1.0, 0.0, 1.0);
    }
    if (x1 - x0).abs() < 1e-9 {
        x1 = x0 + 1.0;
    }
    if (y1 - y0).abs() < 1e-12 {
        y0 -= 0.5;
        y1 += 0.5;
    }
    let last = pts.last().map(|p| p.value);
    let title = Line::from(vec![
        Span::styled(format!(" {name} "), Style::default().fg(colour(idx)).add_modifier(Modifier::BOLD)),
        Span::styled(last.map(|v| format!("{} ", fmt(v, false))).unwrap_or_default(), Style::default().fg(Color::Gray)),
    ]);
    let mut datasets = Vec::new();
    if !old.is_empty() {
        datasets.push(
            Dataset::default()
                .marker(symbols::Marker::Braille)
                .graph_type(GraphType::Line)
                .style(Style::default().fg(Color::DarkGray))
                .data(&old),
        );
    }
    datasets.push(
        Dataset::default()
            .marker(symbols::Marker::Braille)
            .graph_type(GraphType::Line)
            .style(Style::default().fg(colour(idx)))
            .data(&cur),
    );
    let axis_style = Style::default().fg(Color::DarkGray);
    let chart = Chart::new(datasets)
        .block(
            Block::default()
                .borders(Borders::ALL)
                .border_type(BorderType::Rounded)
                .border_style(axis_style)
                .title(title),
        )
        .x_axis(
            Axis::default()
                .style(axis_style)
                .bounds([x0, x1])
                .labels([Span::raw(fmt(x0, false)), Span::raw(fmt(x1, false))]),
        )
        .y_axis(
            Axis::default()
                .style(axis_style)
                .bounds([y0, y1])
                .labels([Span::raw(fmt(y0, opts.log_y)), Span::raw(fmt(y1, opts.log_y))]),
        );
    frame.render_widget(chart, area);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ema_is_bias_corrected() {
        // A constant series stays constant from the first point on.
        assert!(ema(&[2.0; 5], 0.9).iter().all(|v| (v - 2.0).abs() < 1e-12));
        let e = ema(&[0.0, 10.0], 0.5);
        assert_eq!(e[0], 0.0);
        assert!((e[1] - 10.0 * 0.5 / 0.75).abs() < 1e-12);
    }

    #[test]
    fn prepare_downsamples_and_skips_nonpositive_on_log_scale() {
        let pts: Vec<Point> =
            (0..1000).map(|i| Point { step: i as f64, t: i as f64 / 10.0, value: i as f64 }).collect();
        let p = prepare(&pts, ChartOpts { smoothing: None, log_y: false, x_time: false }, 100);
        assert!(p.len() <= 101 && p.last().unwrap().0 == 999.0);
        let l = prepare(&pts, ChartOpts { smoothing: None, log_y: true, x_time: true }, 2000);
        assert_eq!(l.len(), 999, "value 0 has no log");
        assert!((l[0].0 - 0.1).abs() < 1e-12, "x is time");
    }
}
