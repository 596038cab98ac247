//! The drill screen's Sweep tab: a seed sweep of the configuration (live,
//! finished, or the newest saved one) as a header, the seed bands of one
//! chart (`←→` picks it: per arm the mean over the seeds as a line, ±1
//! population standard deviation as a dotted band, min–max as sparse dots;
//! see [`crate::plot::band`]), a per-claim summary (how often each claim
//! held, mean, min, max) and a per-seed table. Where the pane is too short
//! for the bands and the tables, `b` switches between them.

use std::path::{Path, PathBuf};
use std::time::Instant;

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span, Text};
use ratatui::widgets::{Axis, Cell, Chart, Dataset, GraphType, Paragraph, Row, Table, Wrap};
use ratatui::Frame;

use super::parts::{header_row, panel, status_cell};
use super::{window, Focus, State};
use crate::content::DrillMeta;
use crate::plot::band::{band_charts, BandChart, BandPoint};
use crate::runner::sweep::{ClaimStats, Record, SeedResult, SeedStreams, Sweep, SweepConfig};
use crate::tui::theme::{self, accent, dim, GAUGE_BLUE};
use crate::tui::widgets::ellipsize;
use unicode_width::UnicodeWidthStr;

/// Where a sweep shown on the Sweep tab stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SweepPhase {
    Running,
    /// `x` was pressed: the run under way is stopping.
    Cancelling,
    Cancelled,
    /// Loaded from a record its sweep never finished writing (killed).
    Interrupted,
    Done,
    /// A run could not start (the message says why).
    Failed(String),
}

impl SweepPhase {
    pub(super) fn label(&self) -> String {
        match self {
            SweepPhase::Running => crate::t!("drill-phase-running"),
            SweepPhase::Cancelling => crate::t!("drill-phase-cancelling"),
            SweepPhase::Cancelled => crate::t!("drill-phase-cancelled"),
            SweepPhase::Interrupted => crate::t!("drill-phase-interrupted"),
            SweepPhase::Done => crate::t!("drill-phase-done"),
            SweepPhase::Failed(_) => crate::t!("drill-phase-failed"),
        }
    }

    fn style(&self) -> Style {
        match self {
            SweepPhase::Running | SweepPhase::Cancelling => theme::partial(),
            SweepPhase::Cancelled => dim(),
            SweepPhase::Interrupted => theme::partial(),
            SweepPhase::Done => accent(),
            SweepPhase::Failed(_) => theme::fail(),
        }
    }
}

/// A seed sweep as the Sweep tab shows it: live (seeds arriving), or
/// finished in this session, or loaded from disk.
#[derive(Debug, Clone)]
pub struct SweepView {
    /// The seeds so far and their per-claim statistics.
    pub sweep: Sweep,
    pub phase: SweepPhase,
    /// The file it was saved in, once saved.
    pub saved: Option<PathBuf>,
    /// When a live sweep started.
    started: Option<Instant>,
    /// The whole seconds of elapsed time last drawn (see [`SweepView::tick`]).
    shown_s: u64,
    /// Wall time of the seeds an earlier try of a resumed sweep ran.
    earlier_s: f64,
    /// The finished seeds' metric streams, and their bands per chart.
    streams: SeedStreams,
    pub bands: Vec<BandChart>,
}

impl SweepView {
    /// A sweep starting now, no seed done yet.
    pub fn live(meta: &DrillMeta, config: SweepConfig) -> SweepView {
        SweepView::resumed(meta, config, &Record::unsaved())
    }

    /// A sweep starting now with the seeds `record` has done (none for a fresh one).
    pub fn resumed(meta: &DrillMeta, config: SweepConfig, record: &Record) -> SweepView {
        let sweep = Sweep::summarise(meta, config, record.done.clone(), record.wall_s);
        let mut v = SweepView {
            phase: SweepPhase::Running,
            saved: record.path.clone(),
            started: Some(Instant::now()),
            shown_s: 0,
            earlier_s: record.wall_s,
            streams: SeedStreams::default(),
            bands: Vec::new(),
            sweep,
        };
        v.load_streams(meta);
        v
    }

    /// A sweep that has ended: done if every seed ran, else interrupted
    /// (its record was left mid-sweep) or cancelled.
    pub fn finished(meta: &DrillMeta, sweep: Sweep, saved: Option<PathBuf>) -> SweepView {
        let phase = match (sweep.complete, sweep.in_progress) {
            (true, _) => SweepPhase::Done,
            (false, true) => SweepPhase::Interrupted,
            (false, false) => SweepPhase::Cancelled,
        };
        let mut v = SweepView {
            sweep,
            phase,
            saved,
            started: None,
            shown_s: 0,
            earlier_s: 0.0,
            streams: SeedStreams::default(),
            bands: Vec::new(),
        };
        v.load_streams(meta);
        v
    }

    fn load_streams(&mut self, meta: &DrillMeta) {
        self.streams = SeedStreams::load(&self.sweep, self.saved.as_deref());
        self.bands = band_charts(meta, &self.streams.series);
    }

    pub fn is_live(&self) -> bool {
        matches!(self.phase, SweepPhase::Running | SweepPhase::Cancelling)
    }

    /// A seed finished: add it and recompute the statistics.
    pub fn apply(&mut self, meta: &DrillMeta, r: &SeedResult) {
        let mut results = std::mem::take(&mut self.sweep.results);
        results.push(r.clone());
        let config = self.sweep.config.clone();
        self.sweep = Sweep::summarise(meta, config, results, self.elapsed());
        let before = self.streams.seeds.len();
        self.streams.add(r, self.saved.as_deref());
        if self.streams.seeds.len() != before {
            self.bands = band_charts(meta, &self.streams.series);
        }
    }

    /// The sweep stopped without its final summary: keep what arrived.
    pub(super) fn stop(&mut self, phase: SweepPhase) {
        self.sweep.total_wall_s = self.elapsed();
        self.phase = phase;
    }

    /// Seeds whose run finished (a cancelled one did not).
    pub fn done(&self) -> usize {
        self.sweep.done()
    }

    /// Whether a live sweep's elapsed time has reached a new second since
    /// the last call: the screen redraws then, between seeds too.
    pub(super) fn tick(&mut self) -> bool {
        let s = self.elapsed() as u64;
        let moved = self.is_live() && s != self.shown_s;
        self.shown_s = s;
        moved
    }

    /// Seconds since a live sweep started; the whole sweep's once it ended.
    pub fn elapsed(&self) -> f64 {
        match self.started {
            Some(t) if self.is_live() => self.earlier_s + t.elapsed().as_secs_f64(),
            _ => self.sweep.total_wall_s,
        }
    }
}

/// Seconds as a learner reads them: "41 s", "12 min".
fn duration(secs: f64) -> String {
    if secs < 120.0 {
        format!("{secs:.0} s")
    } else {
        format!("{:.0} min", secs / 60.0)
    }
}

/// A measured value for the sweep tables, in a few characters ("–" when
/// there is none): 0.930, 4.2e-4, 1234.
fn value(x: f64) -> String {
    match x.abs() {
        a if !a.is_finite() => "–".into(),
        a if a > 0.0 && a < 0.01 => format!("{x:.1e}"),
        a if a >= 1000.0 => format!("{x:.0}"),
        _ => format!("{x:.3}"),
    }
}

fn threshold(c: &ClaimStats) -> String {
    format!("{} {}", c.op.symbol(), c.threshold)
}

/// Column widths that fit in `avail` cells (one between columns): each
/// column gets its `min` (those that do not fit are left out, from the
/// right), then the room left goes, column by column, up to each `want`.
fn fit_widths(cols: &[(usize, usize)], avail: usize) -> Vec<usize> {
    let mut widths = Vec::new();
    let mut used = 0;
    for &(min, _) in cols {
        let need = min + usize::from(!widths.is_empty());
        if used + need > avail {
            break;
        }
        widths.push(min);
        used += need;
    }
    let mut spare = avail - used;
    for (w, &(_, want)) in widths.iter_mut().zip(cols) {
        let grow = want.saturating_sub(*w).min(spare);
        *w += grow;
        spare -= grow;
    }
    widths
}

/// A table of text cells in the given widths (cells past the last width are left out).
fn fitted_table<'a>(header: Vec<String>, rows: Vec<Row<'a>>, widths: &[usize]) -> Table<'a> {
    let header = header.into_iter().zip(widths).map(|(h, &w)| ellipsize(&h, w));
    Table::new(rows, widths.iter().map(|&w| Constraint::Length(w as u16))).header(header_row(header)).column_spacing(1)
}

fn right(text: String, style: Style) -> Cell<'static> {
    Cell::from(Line::from(text).right_aligned()).style(style)
}

/// The text of the Sweep tab before any sweep of this drill.
fn intro(n: u64) -> String {
    crate::t!("drill-sweep-intro", n = n.to_string())
}

/// Join `parts` with " · " into lines of at most `width` columns, never
/// splitting a part (one longer than the width gets a line of its own).
fn pack(parts: Vec<Span<'static>>, width: usize) -> Vec<Line<'static>> {
    let mut lines: Vec<Vec<Span<'static>>> = vec![Vec::new()];
    let mut used = 0;
    for part in parts {
        let w = part.width();
        if used > 0 && used + 3 + w > width {
            lines.push(Vec::new());
            used = 0;
        }
        let line = lines.last_mut().expect("at least one line");
        if used > 0 {
            line.push(Span::styled(" · ", dim()));
            used += 3;
        }
        used += w;
        line.push(part);
    }
    lines.into_iter().map(Line::from).collect()
}

/// `resumes`: `S` would continue this sweep (a partial one of the configuration on the left).
fn header(v: &SweepView, resumes: bool) -> Vec<Span<'static>> {
    let sw = &v.sweep;
    let mut parts = vec![
        Span::styled(sw.config.drill.clone(), accent()),
        Span::raw(crate::t!("drill-sweep-preset", preset = sw.config.preset.as_str())),
        Span::raw(seeds_done(v)),
        Span::raw(crate::t!("drill-sweep-elapsed", time = duration(v.elapsed()))),
    ];
    if v.done() > 0 {
        parts.push(Span::raw(crate::t!("drill-sweep-median", secs = format!("{:.1}", sw.median_wall_s))));
    }
    match sw.partial().filter(|_| !v.is_live()) {
        Some(p) => {
            let partial = crate::t!("drill-sweep-partial", what = p);
            parts.push(Span::styled(partial, v.phase.style().add_modifier(Modifier::BOLD)));
            if resumes {
                parts.push(Span::styled(crate::t!("drill-sweep-resumes"), accent()));
            }
        }
        None => parts.push(Span::styled(v.phase.label(), v.phase.style().add_modifier(Modifier::BOLD))),
    }
    if let SweepPhase::Failed(m) = &v.phase {
        parts.push(Span::styled(m.clone(), v.phase.style()));
    }
    if let Some(name) = v.saved.as_deref().and_then(Path::file_stem) {
        parts.push(Span::styled(crate::t!("drill-sweep-saved-name", name = name.to_string_lossy().to_string()), dim()));
    }
    parts
}

/// "seeds 3/20": the seeds done of all.
fn seeds_done(v: &SweepView) -> String {
    crate::t!("drill-sweep-seeds", done = v.done().to_string(), total = v.sweep.config.seeds.len().to_string())
}

/// Per claim: held x/n (an observation: how often, as a rate), mean, min, max, threshold.
fn summary(sw: &Sweep, width: u16) -> (Table<'static>, u16) {
    let held = |c: &ClaimStats| match (c.observation, c.runs) {
        (_, 0) => ("–".to_string(), dim()),
        (true, n) => (format!("{:.0}%", 100.0 * c.held as f64 / n as f64), Style::default()),
        (false, n) if c.held == n => (format!("{}/{n}", c.held), theme::pass()),
        (false, n) if c.held == 0 => (format!("0/{n}"), theme::fail()),
        (false, n) => (format!("{}/{n}", c.held), theme::partial()),
    };
    let cells: Vec<[(String, Style); 5]> = sw
        .claims
        .iter()
        .map(|c| {
            [
                held(c),
                (value(c.mean), Style::default()),
                (value(c.min), Style::default()),
                (value(c.max), Style::default()),
                (threshold(c), dim()),
            ]
        })
        .collect();
    let header = [
        "drill-col-claim",
        "drill-col-held",
        "drill-col-mean",
        "drill-col-min",
        "drill-col-max",
        "drill-col-threshold",
    ]
    .map(|k| crate::i18n::tr(k, None));
    // Numbers are never cut; a header may be ("thresh…").
    let col_w = |i: usize| cells.iter().map(|r| r[i].0.width()).max().unwrap_or(0).max(4);
    let header_w = |i: usize| col_w(i).max(header[i + 1].width());
    let id_w = sw.claims.iter().map(|c| claim_label(c).width()).max().unwrap_or(0);
    let mut cols = vec![(header[0].width(), id_w.max(header[0].width()))];
    cols.extend((0..5).map(|i| (col_w(i), header_w(i))));
    let widths = fit_widths(&cols, width as usize);
    let claim_w = widths.first().copied().unwrap_or(0);
    let mut height = 1;
    let rows: Vec<Row> = sw
        .claims
        .iter()
        .zip(cells)
        .map(|(c, cells)| {
            let (claim, h) = claim_cell(c, claim_w);
            height += h;
            let mut row = vec![claim];
            row.extend(cells.into_iter().enumerate().map(|(i, (text, style))| match i {
                4 => Cell::from(text).style(style),
                _ => right(text, style),
            }));
            row.truncate(widths.len());
            Row::new(row).height(h)
        })
        .collect();
    (fitted_table(header.to_vec(), rows, &widths), height)
}

/// The mark of an observation in the claim column: "(observation)".
fn mark() -> String {
    crate::t!("drill-observation-mark")
}

/// A claim's id, and for an observation its mark.
fn claim_label(c: &ClaimStats) -> String {
    if c.observation {
        format!("{} {}", c.id, mark())
    } else {
        c.id.clone()
    }
}

/// A claim's id in `width` columns, an observation marked "(observation)"
/// (on the line below when it does not fit); returns the cell and its height.
fn claim_cell(c: &ClaimStats, width: usize) -> (Cell<'static>, u16) {
    if !c.observation {
        return (Cell::from(ellipsize(&c.id, width)), 1);
    }
    if claim_label(c).width() <= width {
        return (Cell::from(Line::from(vec![Span::raw(c.id.clone()), Span::styled(format!(" {}", mark()), dim())])), 1);
    }
    let lines = vec![Line::raw(ellipsize(&c.id, width)), Line::styled(ellipsize(&mark(), width), dim())];
    (Cell::from(Text::from(lines)), 2)
}

/// One row per seed, newest at the bottom: status, wall time and each
/// claim's value (✓/✗, or · for an observation).
fn draw_seeds(frame: &mut Frame, caption: Rect, area: Rect, sw: &Sweep, scroll: Option<usize>) {
    let rows: Vec<Vec<(String, Style)>> = sw
        .results
        .iter()
        .map(|r| {
            let (status, style) = status_cell(&r.status);
            let mut row = vec![(r.seed.to_string(), Style::default()), (status, style)];
            row.push((format!("{:.1}", r.wall_s), Style::default()));
            row.extend(sw.claims.iter().map(|c| seed_value(c, r)));
            row
        })
        .collect();
    let mut header = vec![crate::t!("drill-col-seed"), crate::t!("drill-col-status"), crate::t!("drill-col-wall")];
    header.extend(sw.claims.iter().map(|c| c.id.clone()));
    let cols: Vec<(usize, usize)> = header
        .iter()
        .enumerate()
        .map(|(i, h)| {
            let widest = rows.iter().map(|r| r[i].0.width()).max().unwrap_or(0);
            match i {
                0..=2 => (widest.max(h.width()), widest.max(h.width())),
                _ => (widest.max(5), widest.max(h.width())),
            }
        })
        .collect();
    let widths = fit_widths(&cols, area.width as usize);
    let n = rows.len();
    let shown = window(n, area.height.saturating_sub(1) as usize, scroll);
    let mut text = match n {
        0 => crate::t!("drill-per-seed-none"),
        _ => crate::t!(
            "drill-per-seed",
            from = (shown.start + 1).to_string(),
            to = shown.end.to_string(),
            n = n.to_string()
        ),
    };
    let hidden = header.len().saturating_sub(widths.len());
    if hidden > 0 {
        text.push_str(&format!(" · {}", crate::t!("drill-more-columns", n = hidden.to_string())));
    }
    frame.render_widget(Paragraph::new(Span::styled(text, dim())), caption);
    let table_rows: Vec<Row> = rows[shown]
        .iter()
        .map(|r| {
            let cells = r.iter().take(widths.len()).enumerate().map(|(i, (text, style))| match i {
                1 => Cell::from(text.clone()).style(*style),
                _ => right(text.clone(), *style),
            });
            Row::new(cells.collect::<Vec<_>>())
        })
        .collect();
    frame.render_widget(fitted_table(header, table_rows, &widths), area);
}

/// One claim's value on one seed: ✓ or ✗, or · for an observation (never coloured).
fn seed_value(c: &ClaimStats, r: &SeedResult) -> (String, Style) {
    match r.claims.iter().find(|v| v.id == c.id) {
        None => ("–".into(), dim()),
        Some(v) if c.observation => (format!("{} ·", value(v.measured)), Style::default()),
        Some(v) if v.pass => (format!("{} ✓", value(v.measured)), theme::pass()),
        Some(v) => (format!("{} ✗", value(v.measured)), theme::fail()),
    }
}

/// Rows the seed bands need at least: title, legend, and a chart of 7.
const BANDS_MIN_H: u16 = 10;
/// Below this many rows inside the panel the tab is compact: a one-line
/// header, a short legend, and the rest for the chart.
const COMPACT_H: u16 = 14;
/// Rows of the per-seed table shown under the bands when there is room.
const SEED_ROWS_UNDER_BANDS: usize = 4;

/// What the Sweep tab shows under its header, given the rows it has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum SweepLayout {
    /// The claims and the per-seed table (no bands, or `b` chose them).
    Tables,
    /// The seed bands alone (the pane is too short for both).
    Bands,
    /// The bands above, the tables below.
    Both,
}

/// The tab's layout: the bands when there are some and `want_bands`, with
/// the tables under them when `rows` holds both.
pub(super) fn layout(has_bands: bool, want_bands: bool, rows: u16, summary_h: u16) -> SweepLayout {
    if !has_bands || !want_bands {
        SweepLayout::Tables
    } else if rows >= BANDS_MIN_H + summary_h + 3 {
        SweepLayout::Both
    } else {
        SweepLayout::Bands
    }
}

pub(super) fn draw(frame: &mut Frame, area: Rect, s: &State) {
    let focused = s.focus == Focus::Pane;
    let Some(v) = &s.sweep else {
        let block = panel(format!(" {} ", crate::t!("drill-tab-sweep")), focused);
        frame.render_widget(Paragraph::new(intro(s.sweep_seeds)).wrap(Wrap { trim: true }).block(block), area);
        return;
    };
    let inner = panel("", false).inner(area);
    let resumes = v.sweep.partial().is_some() && !v.is_live() && s.sweep_config().same_sweep(&v.sweep.config);
    let compact = inner.height < COMPACT_H;
    let header = if compact {
        // A small pane says only what is unusual: under way, or partial.
        let usual = v.phase == SweepPhase::Done && v.sweep.partial().is_none();
        if usual {
            Vec::new()
        } else {
            vec![compact_header(v, inner.width as usize)]
        }
    } else {
        pack(header(v, resumes), inner.width as usize)
    };
    let (summary, summary_h) = summary(&v.sweep, inner.width);
    let rows = inner.height.saturating_sub(header.len() as u16);
    let shown = layout(!v.bands.is_empty(), s.sweep_bands, rows, summary_h);
    // The keys of what is shown, in the panel's title.
    let title = match (shown, v.bands.len()) {
        (SweepLayout::Tables, 0) => crate::t!("drill-tab-sweep"),
        (SweepLayout::Tables, _) => crate::t!("drill-sweep-title-bands"),
        (SweepLayout::Bands, n) if n > 1 => crate::t!("drill-sweep-title-chart-tables"),
        (SweepLayout::Bands, _) => crate::t!("drill-sweep-title-tables"),
        (SweepLayout::Both, n) if n > 1 => crate::t!("drill-sweep-title-chart-hide"),
        (SweepLayout::Both, _) => crate::t!("drill-sweep-title-hide"),
    };
    let title = format!(" {title} ");
    let block = panel(title, focused);
    frame.render_widget(block, area);
    let [head_area, body] =
        Layout::vertical([Constraint::Length(header.len() as u16), Constraint::Min(0)]).areas(inner);
    frame.render_widget(Paragraph::new(header), head_area);
    let tables = match shown {
        SweepLayout::Tables => body,
        SweepLayout::Bands => {
            draw_bands(frame, body, v, s.sweep_chart, compact);
            return;
        }
        SweepLayout::Both => {
            // The tables keep the summary and a few seeds; the bands take the rest.
            let seeds_h = v.sweep.results.len().min(SEED_ROWS_UNDER_BANDS) as u16 + 2;
            let tables_h = (summary_h + seeds_h).min(body.height - BANDS_MIN_H);
            let [bands, tables] =
                Layout::vertical([Constraint::Min(BANDS_MIN_H), Constraint::Length(tables_h)]).areas(body);
            draw_bands(frame, bands, v, s.sweep_chart, compact);
            tables
        }
    };
    let [summary_area, caption, seeds] =
        Layout::vertical([Constraint::Length(summary_h), Constraint::Length(1), Constraint::Min(0)]).areas(tables);
    frame.render_widget(summary, summary_area);
    draw_seeds(frame, caption, seeds, &v.sweep, s.sweep_scroll);
}

/// The band at `x`, linearly between the band's points (`None` outside them).
fn band_at(points: &[BandPoint], x: f64) -> Option<BandPoint> {
    let i = points.partition_point(|p| p.x < x);
    let hi = points.get(i)?;
    if hi.x == x || i == 0 {
        return (hi.x == x).then_some(*hi);
    }
    let lo = points[i - 1];
    let t = (x - lo.x) / (hi.x - lo.x);
    let mix = |a: f64, b: f64| a + t * (b - a);
    Some(BandPoint {
        x,
        mean: mix(lo.mean, hi.mean),
        sd: mix(lo.sd, hi.sd),
        min: mix(lo.min, hi.min),
        max: mix(lo.max, hi.max),
        n: hi.n,
    })
}

/// The dots that fill a band on a braille grid of `cols` × `rows` dots over
/// the chart's bounds: the ±1 sd band in a checkerboard (half the dots), the
/// rest of the min–max range sparser (one dot in eight), so the two read
/// apart and the mean line stays visible through both.
fn band_dots(points: &[BandPoint], bounds: [(f64, f64); 2], cols: usize, rows: usize) -> [Vec<(f64, f64)>; 2] {
    let [(x0, x1), (y0, y1)] = bounds;
    let (mut sd, mut range) = (Vec::new(), Vec::new());
    for c in 0..cols {
        let x = x0 + (c as f64 + 0.5) / cols as f64 * (x1 - x0);
        let Some(b) = band_at(points, x) else { continue };
        for r in 0..rows {
            let y = y0 + (r as f64 + 0.5) / rows as f64 * (y1 - y0);
            if (y - b.mean).abs() <= b.sd {
                if (c + r) % 2 == 0 {
                    sd.push((x, y));
                }
            } else if y >= b.min && y <= b.max && c % 2 == 0 && r % 4 == 0 {
                range.push((x, y));
            }
        }
    }
    [sd, range]
}

/// The header in one line for a small pane: how many seeds, and how the sweep stands.
fn compact_header(v: &SweepView, width: usize) -> Line<'static> {
    let text = match v.sweep.partial().filter(|_| !v.is_live()) {
        Some(p) => p,
        None => format!("{} · {}", seeds_done(v), v.phase.label()),
    };
    Line::styled(ellipsize(&text, width), v.phase.style())
}

/// The seed bands of the chosen chart: its title (and which of how many),
/// the legend (every arm in its colour, what line, band and dots are), the
/// chart. `compact`: the title only when the legend does not already say
/// it, and a shorter legend.
fn draw_bands(frame: &mut Frame, area: Rect, v: &SweepView, chosen: usize, compact: bool) {
    let n = v.bands.len();
    let Some(c) = v.bands.get(chosen % n.max(1)) else { return };
    let width = area.width as usize;
    // Compact: the x axis loses its labels (two rows of a chart of four), so the title names x.
    let which = match compact {
        true if n > 1 => format!("{}/{n} · x {}", chosen % n + 1, c.x),
        true => format!("x {}", c.x),
        false => crate::t!("drill-band-chart", i = (chosen % n + 1).to_string(), n = n.to_string()),
    };
    let title_w = if compact { width.saturating_sub(which.chars().count() + 1) } else { width };
    let mut title = vec![Span::styled(ellipsize(&c.title, title_w), accent().add_modifier(Modifier::BOLD))];
    if n > 1 || compact {
        title.push(Span::styled(which.clone(), dim()));
    }
    let mut legend: Vec<Span<'static>> = c
        .arms
        .iter()
        .enumerate()
        .map(|(i, a)| Span::styled(format!("━ {}", a.label), Style::default().fg(theme::series(i))))
        .collect();
    if compact {
        legend.push(Span::styled(crate::t!("drill-band-sd-short"), dim()));
        legend.push(Span::styled(crate::t!("drill-band-range"), dim()));
    } else {
        legend.push(Span::styled(crate::t!("drill-band-mean"), dim()));
        legend.push(Span::styled(crate::t!("drill-band-sd"), dim()));
        legend.push(Span::styled(crate::t!("drill-band-range"), dim()));
        let mut seeds = crate::t!("drill-band-seeds", n = c.seeds.to_string());
        if !v.streams.missing.is_empty() {
            let missing = crate::t!("drill-band-missing", n = v.streams.missing.len().to_string());
            seeds.push_str(&format!(" {missing}"));
        }
        legend.push(Span::styled(seeds, dim()));
    }
    let lone = c.arms.len() == 1 && c.arms[0].label == c.title;
    let mut lines = match (compact, lone, n) {
        // The legend names the chart: at most which of how many.
        (true, true, _) => vec![Line::styled(crate::t!("drill-band-chart-which", which = which.as_str()), dim())],
        // One line: the title gives way to the count.
        (true, false, _) => vec![Line::from(title)],
        (false, _, _) => pack(title, width),
    };
    lines.extend(pack(legend, width));
    let [text_area, chart_area] =
        Layout::vertical([Constraint::Length(lines.len() as u16), Constraint::Min(0)]).areas(area);
    frame.render_widget(Paragraph::new(lines), text_area);

    let (x0, x1) = c.x_range();
    let (y0, y1) = c.y_range();
    let y_labels = [value(y0), value(y1)];
    // The plot inside the axes: the y labels and the axis take the left, the x labels and the axis two rows.
    let label_w = y_labels.iter().map(|l| l.chars().count()).max().unwrap_or(0) as u16 + 1;
    let cols = chart_area.width.saturating_sub(label_w) as usize * 2;
    let rows = chart_area.height.saturating_sub(if compact { 0 } else { 2 }) as usize * 4;
    let fills: Vec<[Vec<(f64, f64)>; 2]> =
        c.arms.iter().map(|a| band_dots(&a.points, [(x0, x1), (y0, y1)], cols, rows)).collect();
    let means: Vec<Vec<(f64, f64)>> = c.arms.iter().map(|a| a.points.iter().map(|p| (p.x, p.mean)).collect()).collect();
    let dots = |data, i| {
        Dataset::default()
            .marker(Marker::Braille)
            .graph_type(GraphType::Scatter)
            .style(Style::default().fg(theme::series_faint(i)))
            .data(data)
    };
    // Ranges first, then the bands, then every mean on top of every fill.
    let mut datasets: Vec<Dataset> = fills.iter().enumerate().map(|(i, f)| dots(&f[1], i)).collect();
    datasets.extend(fills.iter().enumerate().map(|(i, f)| dots(&f[0], i)));
    datasets.extend(means.iter().enumerate().map(|(i, m)| {
        Dataset::default()
            .marker(Marker::Braille)
            .graph_type(GraphType::Line)
            .style(Style::default().fg(theme::series(i)))
            .data(m)
    }));
    let axis = dim();
    let x_label = |x: f64| if x.fract() == 0.0 { format!("{x:.0}") } else { value(x) };
    let x_axis = Axis::default().style(axis).bounds([x0, x1]);
    let x_axis = match compact {
        true => x_axis,
        false => x_axis.labels([Span::raw(x_label(x0)), Span::raw(format!("{} {}", c.x, x_label(x1)))]),
    };
    let chart = Chart::new(datasets)
        .x_axis(x_axis)
        .y_axis(Axis::default().style(axis).bounds([y0, y1]).labels(y_labels.map(Span::raw)));
    frame.render_widget(chart, chart_area);
}

/// The gauge while a sweep runs: seeds done of all, and about how long is left.
pub(super) fn gauge(v: &SweepView) -> (f64, String, Color) {
    let (done, total) = (v.done(), v.sweep.config.seeds.len());
    let mut text =
        crate::t!("drill-sweep-gauge", phase = v.phase.label(), done = done.to_string(), total = total.to_string());
    if done > 0 && done < total {
        let left = (total - done) as f64 * v.sweep.median_wall_s;
        text.push_str(&format!(" · {}", crate::t!("drill-sweep-left", time = duration(left))));
    }
    (done as f64 / total.max(1) as f64, text, GAUGE_BLUE)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths_fit_what_they_can_and_grow_left_to_right() {
        // Every minimum fits; the first column grows to what it wants, then the next.
        assert_eq!(fit_widths(&[(5, 16), (5, 5), (5, 9)], 22), vec![10, 5, 5]);
        assert_eq!(fit_widths(&[(5, 16), (5, 5), (5, 9)], 40), vec![16, 5, 9]);
        // A column whose minimum does not fit is left out, and those after it.
        assert_eq!(fit_widths(&[(4, 4), (7, 7), (7, 7)], 15), vec![4, 7]);
        assert!(fit_widths(&[(4, 4)], 0).is_empty());
    }

    #[test]
    fn values_stay_short_and_readable() {
        assert_eq!(value(0.93), "0.930");
        assert_eq!(value(0.00042), "4.2e-4");
        assert_eq!(value(0.0), "0.000");
        assert_eq!(value(12345.6), "12346");
        assert_eq!(value(f64::NAN), "–");
        assert_eq!(value(f64::INFINITY), "–");
    }

    #[test]
    fn header_parts_are_packed_whole() {
        let parts = ["sft-basics", "preset quick", "seeds 3/20", "41 s elapsed"].map(Span::raw).to_vec();
        let text = |lines: &[Line]| lines.iter().map(|l| l.to_string()).collect::<Vec<_>>();
        assert_eq!(text(&pack(parts.clone(), 80)), ["sft-basics · preset quick · seeds 3/20 · 41 s elapsed"]);
        assert_eq!(text(&pack(parts.clone(), 30)), ["sft-basics · preset quick", "seeds 3/20 · 41 s elapsed"]);
        assert_eq!(text(&pack(parts, 5)).len(), 4, "a part wider than the line gets a line of its own");
    }
}
