//! A live line chart of one metric series, or of a group of compared series
//! with a legend (ratatui `Chart`, braille dots), with optional bias-corrected EMA smoothing, log-scale y, x by step or by
//! wall time, and the previous run of the drill overlaid in a dimmer colour.

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::symbols;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Axis, Block, BorderType, Borders, Chart, Dataset, GraphType, Paragraph};
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
            crate::t!("drill-chart-ema", shown = fmt(shown, false), last = fmt(last, false))
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

use crate::tui::theme::{self, series as colour};

/// One curve of a chart: its legend label, its points, and the previous
/// run's points of the same series (drawn grey).
#[derive(Debug, Clone, Copy)]
pub struct Member<'a> {
    pub label: &'a str,
    pub pts: &'a [Point],
    pub prev: Option<&'a [Point]>,
}

/// What a chart draws: a title, what its x axis counts, and its curves.
/// `colour` is the first curve's colour index (a lone series keeps its own
/// colour; the curves of a group take the colours that follow it).
#[derive(Debug, Clone)]
pub struct Spec<'a> {
    pub title: &'a str,
    pub x: &'a str,
    pub colour: usize,
    pub members: Vec<Member<'a>>,
    /// What the grey curves are, in the legend ("previous run", "last passing run").
    pub grey: &'a str,
}

/// The x axis's name as drawn: seconds when x is time, else what the chart declares.
pub fn x_name(x: &str, opts: ChartOpts) -> &str {
    if opts.x_time {
        "s"
    } else {
        x
    }
}

/// The two x labels: the first value, and the last one with the axis's name
/// ("0" … "step 300", "1" … "k 16", "0 s" … "30 s").
pub fn x_labels(x0: f64, x1: f64, x: &str, opts: ChartOpts) -> [String; 2] {
    if opts.x_time {
        [format!("{x0:.0} s"), format!("{x1:.0} s")]
    } else {
        [short_x(x0), format!("{x} {}", short_x(x1))]
    }
}

fn short_x(x: f64) -> String {
    if (x - x.round()).abs() < 1e-9 || x.abs() >= 100.0 {
        format!("{x:.0}")
    } else {
        format!("{x:.2}")
    }
}

/// The legend: one coloured mark and label per curve (with its last value
/// when that fits), then "grey: <what the grey is>" when one is drawn; packed
/// into at most `max_lines` lines of `width` columns, never dropped: what
/// does not fit ends the last line with `…`.
pub fn legend_lines(
    items: &[(String, String, Color)],
    prev: Option<&str>,
    width: usize,
    max_lines: usize,
) -> Vec<Line<'static>> {
    use unicode_width::UnicodeWidthStr;
    let pack = |with_values: bool| -> Vec<Vec<(String, Style)>> {
        let mut entries: Vec<(String, Style)> = items
            .iter()
            .map(|(label, value, c)| {
                let text = if with_values && !value.is_empty() {
                    format!("━ {label} {value}")
                } else {
                    format!("━ {label}")
                };
                (text, Style::default().fg(*c))
            })
            .collect();
        if let Some(what) = prev {
            entries.push((crate::t!("drill-chart-grey", what = what), theme::dim()));
        }
        let mut lines: Vec<Vec<(String, Style)>> = vec![Vec::new()];
        let mut used = 0usize;
        for (text, style) in entries {
            let w = text.width();
            let line = lines.last_mut().expect("a line");
            if !line.is_empty() && used + 2 + w > width {
                lines.push(vec![(text, style)]);
                used = w;
            } else {
                if !line.is_empty() {
                    line.push(("  ".into(), Style::default()));
                    used += 2;
                }
                line.push((text, style));
                used += w;
            }
        }
        lines
    };
    let mut lines = pack(true);
    if lines.len() > max_lines {
        lines = pack(false);
    }
    let max_lines = max_lines.max(1);
    let cut = lines.len() > max_lines;
    lines.truncate(max_lines);
    let mut out: Vec<Line<'static>> = Vec::new();
    for (i, parts) in lines.into_iter().enumerate() {
        let last = i + 1 == max_lines;
        let mut spans = Vec::new();
        let mut used = 0usize;
        for (text, style) in parts {
            let room = width.saturating_sub(used + usize::from(cut && last));
            let text = if text.width() > room { crate::tui::widgets::ellipsize(&text, room) } else { text };
            used += text.width();
            // The mark takes the curve's colour; the label reads in the normal colour.
            match text.strip_prefix("━") {
                Some(rest) if style != theme::dim() => {
                    spans.push(Span::styled("━", style.add_modifier(Modifier::BOLD)));
                    spans.push(Span::raw(rest.to_string()));
                }
                _ => spans.push(Span::styled(text, style)),
            }
        }
        if cut && last {
            spans.push(Span::styled("…", theme::dim()));
        }
        out.push(Line::from(spans));
    }
    out
}

/// Draw one chart: a lone series (titled with its name and last value), or
/// a group of compared series in the theme's colours with a legend; the
/// previous run's curves in grey, labelled in the legend.
pub fn draw(frame: &mut Frame, area: Rect, spec: &Spec, opts: ChartOpts) {
    let max_points = (area.width as usize * 2).max(16);
    let single = spec.members.len() == 1;
    let col = |j: usize| colour(spec.colour + j);
    let cur: Vec<Vec<(f64, f64)>> = spec.members.iter().map(|m| prepare(m.pts, opts, max_points)).collect();
    let old: Vec<Vec<(f64, f64)>> =
        spec.members.iter().map(|m| m.prev.map(|p| prepare(p, opts, max_points)).unwrap_or_default()).collect();
    let all = || cur.iter().chain(old.iter()).flatten();
    let (x0, x1) = x_range(all().map(|p| p.0));
    let (y0, y1) = value_range(all().map(|p| p.1));
    let any_prev = old.iter().any(|o| !o.is_empty());
    let title = if single {
        let value = title_value(spec.members[0].pts, opts);
        Line::from(vec![
            Span::styled(format!(" {} ", spec.title), Style::default().fg(col(0)).add_modifier(Modifier::BOLD)),
            Span::styled(if value.is_empty() { value } else { format!("{value} ") }, theme::chart_value()),
        ])
    } else {
        Line::from(Span::styled(format!(" {} ", spec.title), theme::chart_title()))
    };
    let axis_style = theme::dim();
    let block =
        Block::default().borders(Borders::ALL).border_type(BorderType::Rounded).border_style(axis_style).title(title);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    // The legend: every curve of a group, and the grey of a previous run.
    let items: Vec<(String, String, Color)> = if single {
        Vec::new()
    } else {
        spec.members.iter().enumerate().map(|(j, m)| (m.label.to_string(), last_value(m.pts, opts), col(j))).collect()
    };
    let legend = if items.is_empty() && !any_prev {
        Vec::new()
    } else {
        let max_lines = (inner.height as usize / 3).clamp(1, 3);
        legend_lines(&items, any_prev.then_some(spec.grey), inner.width as usize, max_lines)
    };
    let [legend_area, plot] =
        Layout::vertical([Constraint::Length(legend.len() as u16), Constraint::Min(0)]).areas(inner);
    frame.render_widget(Paragraph::new(legend), legend_area);
    let mut datasets = Vec::new();
    for o in old.iter().filter(|o| !o.is_empty()) {
        datasets.push(
            Dataset::default()
                .marker(symbols::Marker::Braille)
                .graph_type(GraphType::Line)
                .style(theme::previous_run())
                .data(o),
        );
    }
    for (j, c) in cur.iter().enumerate() {
        datasets.push(
            Dataset::default()
                .marker(symbols::Marker::Braille)
                .graph_type(GraphType::Line)
                .style(Style::default().fg(col(j)))
                .data(c),
        );
    }
    let [xl0, xl1] = x_labels(x0, x1, spec.x, opts);
    let chart = Chart::new(datasets)
        .legend_position(None)
        .x_axis(Axis::default().style(axis_style).bounds([x0, x1]).labels([Span::raw(xl0), Span::raw(xl1)]))
        .y_axis(
            Axis::default()
                .style(axis_style)
                .bounds([y0, y1])
                .labels([Span::raw(fmt(y0, opts.log_y)), Span::raw(fmt(y1, opts.log_y))]),
        );
    if plot.height >= 2 && plot.width >= 4 {
        frame.render_widget(chart, plot);
    }
}

/// The last value a curve shows (smoothed when it is), for the legend.
fn last_value(pts: &[Point], opts: ChartOpts) -> String {
    let style = opts.style();
    match style.smoothed(pts).last() {
        Some(v) => fmt(*v, false),
        None => String::new(),
    }
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
        let lone = |title: &'static str, pts: &'static [Point]| Spec {
            title,
            x: "step",
            colour: 0,
            members: vec![Member { label: title, pts, prev: None }],
            grey: "previous run",
        };
        let pts: &'static [Point] = Box::leak(pts.into_boxed_slice());
        let one: &'static [Point] = Box::leak(Box::new(one));
        term.draw(|f| draw(f, f.area(), &lone("heldout_acc", pts), ChartOpts::default())).unwrap();
        let t = text(&term);
        assert!(t.contains("heldout_acc 0.731"), "{t}");
        assert!(t.contains(" 79") && t.contains("99") && !t.contains("79.000"), "{t}");
        term.draw(|f| draw(f, f.area(), &lone("acc", one), ChartOpts::default())).unwrap();
        let t = text(&term);
        assert!(!t.contains('-'), "no negative axis label for an accuracy of 0.35: {t}");
        assert!(t.contains("0.33") && t.contains("0.36"), "{t}");
    }
}
