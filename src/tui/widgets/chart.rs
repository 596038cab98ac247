//! A live line chart of one metric series (ratatui `Chart`, braille dots),
//! with optional bias-corrected EMA smoothing, log-scale y, x by step or by
//! wall time, and the previous run of the drill overlaid in a dimmer colour.

use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::symbols;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Axis, Block, BorderType, Borders, Chart, Dataset, GraphType};
use ratatui::Frame;

use crate::plot::{value_range, x_range};
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

impl ChartOpts {
    /// The same drawing options for an export.
    pub fn style(&self) -> crate::plot::Style {
        crate::plot::Style { smoothing: self.smoothing, log_y: self.log_y }
    }
}

/// Points as (x, y) after smoothing (long series only, see
/// [`crate::plot::MIN_POINTS_TO_SMOOTH`]) and scaling, at most `max_points`.
pub fn prepare(pts: &[Point], opts: ChartOpts, max_points: usize) -> Vec<(f64, f64)> {
    let all = opts.style().points(pts, opts.x_time);
    let stride = all.len().div_ceil(max_points.max(1)).max(1);
    let n = all.len();
    all.into_iter().enumerate().filter(|(i, _)| i % stride == 0 || *i + 1 == n).map(|(_, p)| p).collect()
}

/// The chart's title value: the last value the curve shows, and when the
/// curve is smoothed also the last raw value, each labelled.
pub fn title_value(pts: &[Point], opts: ChartOpts) -> String {
    let Some(last) = pts.last().map(|p| p.value) else { return String::new() };
    let style = opts.style();
    match style.smoothing_for(pts.len()) {
        Some(_) => {
            let shown = style.smoothed(pts).last().copied().unwrap_or(last);
            format!("EMA {} · last {}", fmt(shown, false), fmt(last, false))
        }
        None => fmt(last, false),
    }
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

use crate::tui::theme::series as colour;

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
    let all = || cur.iter().chain(old.iter());
    let (x0, x1) = x_range(all().map(|p| p.0));
    let (y0, y1) = value_range(all().map(|p| p.1));
    let value = title_value(pts, opts);
    let title = Line::from(vec![
        Span::styled(format!(" {name} "), Style::default().fg(colour(idx)).add_modifier(Modifier::BOLD)),
        Span::styled(if value.is_empty() { value } else { format!("{value} ") }, Style::default().fg(Color::Gray)),
    ]);
    let x_label = |x: f64| if opts.x_time { format!("{x:.0} s") } else { format!("{x:.0}") };
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
            Axis::default().style(axis_style).bounds([x0, x1]).labels([Span::raw(x_label(x0)), Span::raw(x_label(x1))]),
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
    fn the_title_says_what_the_curve_shows() {
        let opts = ChartOpts::default();
        // A sparse evaluation series is drawn raw: its title is its last value.
        let few: Vec<Point> =
            [0.2, 0.5, 0.731].iter().enumerate().map(|(i, &v)| Point { step: i as f64, t: 0.0, value: v }).collect();
        assert_eq!(title_value(&few, opts), "0.731");
        assert_eq!(prepare(&few, opts, 100).last().unwrap().1, 0.731);
        // A long, smoothed series: the smoothed value the curve ends at, and the raw last value, both labelled.
        let many: Vec<Point> =
            (0..100).map(|i| Point { step: i as f64, t: 0.0, value: if i == 99 { 0.0 } else { 1.0 } }).collect();
        let t = title_value(&many, opts);
        assert!(t.starts_with("EMA 0.900") && t.ends_with("last 0.000"), "{t}");
        assert!((prepare(&many, opts, 1000).last().unwrap().1 - 0.9).abs() < 1e-3);
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

    /// Drawn into a test terminal: the title value, the step axis in whole
    /// steps, and a one-point accuracy on a narrow axis inside [0, 1].
    #[test]
    fn draws_honest_titles_and_axes() {
        use ratatui::backend::TestBackend;
        use ratatui::Terminal;
        let pts: Vec<Point> =
            [(79.0, 0.2), (99.0, 0.731)].iter().map(|&(step, value)| Point { step, t: 0.0, value }).collect();
        let one = [Point { step: 99.0, t: 0.0, value: 0.35 }];
        let mut term = Terminal::new(TestBackend::new(60, 12)).unwrap();
        let text = |term: &Terminal<TestBackend>| {
            let buf = term.backend().buffer();
            (0..buf.area.height)
                .map(|y| (0..buf.area.width).map(|x| buf[(x, y)].symbol().to_string()).collect::<String>())
                .collect::<Vec<_>>()
                .join("\n")
        };
        term.draw(|f| draw(f, f.area(), "heldout_acc", 0, &pts, None, ChartOpts::default())).unwrap();
        let t = text(&term);
        assert!(t.contains("heldout_acc 0.731"), "{t}");
        assert!(t.contains(" 79") && t.contains("99") && !t.contains("79.000"), "{t}");
        term.draw(|f| draw(f, f.area(), "acc", 0, &one, None, ChartOpts::default())).unwrap();
        let t = text(&term);
        assert!(!t.contains('-'), "no negative axis label for an accuracy of 0.35: {t}");
        assert!(t.contains("0.33") && t.contains("0.36"), "{t}");
    }
}
