//! Drawing of the drill screen: it only reads the [`State`].

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{
    Block, BorderType, Borders, Cell, Gauge, List, ListItem, ListState, Paragraph, Row, Table, Tabs, Wrap,
};
use ratatui::Frame;

use super::parts::{fit_parts, header_row, pad, panel, status_cell};
use super::{sweep_tab, ConfigRow, Focus, State, Tab, SWEEP_SEEDS_MAX};
use crate::drills::{RunStatus, View};
use crate::tui::theme::{
    accent, border, dim, highlight, notice, param_key, GAUGE_BLUE, GAUGE_FAILED, GAUGE_PASSED, GAUGE_PAST, GAUGE_TRACK,
};
use crate::tui::widgets::{chart, claims, column_widths, ellipsize, token_mask, wrap_all, wrap_words};
use unicode_width::UnicodeWidthStr;

pub fn draw(frame: &mut Frame, area: Rect, s: &State) {
    // The objective (wrapped, at most a few lines: the README tells the rest)
    // and one line for preset and source, always seen.
    let objective = objective_lines(&s.meta.objective, area.width as usize, area.height);
    let [top, status_row, main, gauge] = Layout::vertical([
        Constraint::Length(objective.len() as u16),
        Constraint::Length(1),
        Constraint::Min(8),
        Constraint::Length(1),
    ])
    .areas(area);
    // Objective and where the shown run comes from.
    let source = match (&s.viewing, s.running()) {
        (Some(_), _) if s.showing_last => {
            let last = s.last_run_line().unwrap_or_default();
            match &s.viewing_preset {
                Some(preset) => crate::t!("drill-src-last-preset", last = last, preset = preset.as_str()),
                None => crate::t!("drill-src-last", last = last),
            }
        }
        (Some(name), _) => match &s.viewing_preset {
            // The saved run's own preset and edits, not the config pane's.
            Some(preset) => crate::t!("drill-src-saved-preset", name = name.as_str(), preset = preset.as_str()),
            None => crate::t!("drill-src-saved", name = name.as_str()),
        },
        (None, true) => crate::t!("drill-src-live"),
        (None, false) if s.view.report.is_some() => crate::t!("drill-src-last-run"),
        _ if s.loading() => crate::t!("drill-src-reading"),
        _ => crate::t!("drill-src-none"),
    };
    frame.render_widget(Paragraph::new(objective.into_iter().map(Line::raw).collect::<Vec<_>>()), top);
    frame.render_widget(
        Paragraph::new(Line::from(crate::tui::widgets::fit_spans(
            vec![
                // Files read or written for a key, while they are: first, so a long line does not cut it.
                Span::styled(s.under_way().map(|w| format!("{w} · ")).unwrap_or_default(), notice()),
                Span::styled(
                    format!(
                        "{} · ",
                        crate::t!("drill-track-preset", track = s.meta.track.to_string(), preset = s.preset_label())
                    ),
                    dim(),
                ),
                Span::styled(s.uses_label().map(|u| format!("{u} · ")).unwrap_or_default(), highlight()),
                Span::styled(source, highlight()),
            ],
            status_row.width as usize,
        ))),
        status_row,
    );

    let left_w = (area.width / 3).clamp(30, 52);
    let [left, right] = Layout::horizontal([Constraint::Length(left_w), Constraint::Min(20)]).areas(main);
    // Claims get the room their wrapped text needs, up to 60% of the column.
    let ended = s.view.report.is_some() || (s.viewing.is_some() && s.view.progress.is_some());
    // The claims of the shown run's preset (a saved run's own, else the config pane's).
    let preset = s.viewed_preset.as_deref().unwrap_or(&s.preset);
    let was = s.compare.as_ref().map(|(_, c)| c.as_slice());
    let claim_lines = claims::lines(
        &s.meta.for_preset(preset),
        &s.view.claims,
        left.width.saturating_sub(2) as usize,
        ended,
        was,
        s.claims_hidden(),
    );
    // …and leave the config at least 6 rows (a few parameters and their help).
    let claims_h = (claim_lines.len() as u16 + 2).min(left.height * 3 / 5).min(left.height.saturating_sub(6).max(3));
    let [config_area, claims_area] = Layout::vertical([Constraint::Min(4), Constraint::Length(claims_h)]).areas(left);
    draw_config(frame, config_area, s);
    // Too many to show whole: say where every claim is told in full.
    let claims_title = if claim_lines.len() as u16 + 2 > claims_h {
        format!(" {} ", crate::t!("drill-claims-title-log"))
    } else {
        format!(" {} ", crate::t!("drill-claims-title"))
    };
    frame.render_widget(Paragraph::new(claim_lines).block(panel(claims_title, false)), claims_area);

    let [tabs_area, pane] = Layout::vertical([Constraint::Length(1), Constraint::Min(3)]).areas(right);
    let selected = Tab::ALL.iter().position(|t| *t == s.tab).unwrap_or(0);
    // Every tab stays in sight: when the names do not all fit, tabs show
    // only their key, the log's first and the charts' last; the open tab
    // keeps its name.
    let mut titles: Vec<String> = Tab::ALL.iter().map(|t| t.title()).collect();
    let width = |titles: &[String]| titles.iter().map(|t| t.width() + 3).sum::<usize>();
    for t in [Tab::Log, Tab::Views, Tab::Sweep, Tab::Runs, Tab::Try, Tab::Charts] {
        if width(&titles) <= tabs_area.width as usize {
            break;
        }
        if t != s.tab {
            let i = Tab::ALL.iter().position(|x| *x == t).unwrap_or(0);
            titles[i] = t.key().to_string();
        }
    }
    frame.render_widget(
        Tabs::new(titles)
            .select(selected)
            .highlight_style(accent().add_modifier(Modifier::BOLD | Modifier::UNDERLINED)),
        tabs_area,
    );
    match s.tab {
        Tab::Charts => draw_charts(frame, pane, s),
        Tab::Views => draw_views(frame, pane, s),
        Tab::Log => draw_log(frame, pane, s),
        Tab::Runs => draw_runs(frame, pane, s),
        Tab::Sweep => sweep_tab::draw(frame, pane, s),
        Tab::Try => super::try_tab::draw(frame, pane, &s.try_tab, s.focus == Focus::Pane),
    }
    draw_gauge(frame, gauge, s);
    // Over everything: the predictions, what the run measured for them, the `b` list.
    if let Some(a) = &s.asking {
        super::predict::draw_asking(frame, area, a);
    } else if let Some(o) = &s.outcomes {
        super::predict::draw_outcomes(frame, area, o);
    } else if let Some(b) = &s.breaking {
        super::predict::draw_breaking(frame, area, b);
    }
}

/// The objective wrapped to `width`, at most 3 lines (2 below 30 rows, 1
/// below 20); a longer one ends in `… (r: README)`.
fn objective_lines(objective: &str, width: usize, height: u16) -> Vec<String> {
    let cap = match height {
        h if h >= 30 => 3,
        h if h >= 20 => 2,
        _ => 1,
    };
    let mut lines = wrap_words(objective, width);
    if lines.len() > cap {
        lines.truncate(cap);
        let last = lines.pop().unwrap_or_default();
        let more = format!(" {}", crate::t!("drill-readme-more"));
        let more = more.as_str();
        let keep = width.saturating_sub(more.width());
        let head = if last.width() > keep { ellipsize(&last, keep).trim_end_matches('…').to_string() } else { last };
        lines.push(format!("{}{more}", head.trim_end()));
    }
    if lines.is_empty() {
        lines.push(String::new());
    }
    lines
}

/// The value shown in config row `row`: the text being typed there, or
/// `value`. Typed text wider than `width` columns shows its end (where the
/// cursor is) after a `…`.
fn shown_value(s: &State, row: usize, value: String, width: usize) -> String {
    match &s.editing {
        Some(typed) if s.cursor == row => {
            let shown = format!("{typed}█");
            let n = shown.chars().count();
            if n <= width || width < 2 {
                shown
            } else {
                let tail: String = shown.chars().skip(n - (width - 1)).collect();
                format!("…{tail}")
            }
        }
        _ => value,
    }
}

fn draw_config(frame: &mut Frame, area: Rect, s: &State) {
    let (seed_label, sweep_seeds_label) = (crate::t!("drill-seed-label"), crate::t!("drill-sweep-seeds-label"));
    let key_w = s
        .meta
        .params
        .iter()
        .map(|p| p.key.width())
        .chain([seed_label.width(), sweep_seeds_label.width()])
        .max()
        .unwrap_or(4);
    // Columns left for a value: inside the borders, after the key and a space.
    let value_w = (area.width as usize).saturating_sub(2 + key_w + 1);
    let item = |key: &str, value: String, vstyle: Style| {
        ListItem::new(Line::from(vec![
            Span::styled(format!("{} ", pad(key, key_w)), param_key()),
            Span::styled(value, vstyle),
        ]))
    };
    let defaults = s.meta.preset_values(&s.preset).ok();
    let mut items: Vec<ListItem> = s
        .meta
        .params
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let current = s.params.get(&p.key);
            let changed = defaults.as_ref().and_then(|d| d.get(&p.key)) != current;
            let vstyle = if changed { highlight() } else { Style::default() };
            item(&p.key, shown_value(s, i, current.map(|v| v.to_string()).unwrap_or_default(), value_w), vstyle)
        })
        .collect();
    let n = s.meta.params.len();
    items.push(item(&seed_label, shown_value(s, n, s.seed.to_string(), value_w), Style::default()));
    items.push(item(&sweep_seeds_label, shown_value(s, n + 1, s.sweep_seeds.to_string(), value_w), Style::default()));
    if !s.pluggable().is_empty() {
        // Not a row the cursor visits: `u` switches it.
        let (text, style) = match s.uses.keys().next() {
            Some(id) => (crate::t!("drill-fn-yours", id = id.as_str()), highlight()),
            None => (crate::t!("drill-fn-lab"), Style::default()),
        };
        items.push(item(&crate::t!("drill-function-label"), text, style));
    }
    let help = match s.config_row() {
        ConfigRow::Param(i) => s.meta.params.get(i).map(|p| p.help.clone()).unwrap_or_default(),
        ConfigRow::Seed => crate::t!("drill-seed-help"),
        ConfigRow::SweepSeeds => crate::t!("drill-sweep-seeds-help", max = SWEEP_SEEDS_MAX.to_string()),
    };
    // The help of the selected row, wrapped (up to 4 lines, leaving the list room).
    let help_lines = wrap_words(&help, area.width.saturating_sub(2) as usize).len() as u16;
    let help_h = help_lines.clamp(1, 4).min(area.height.saturating_sub(4) / 2).max(1) + 1;
    let [list_area, help_area] = Layout::vertical([Constraint::Min(2), Constraint::Length(help_h)]).areas(area);
    // More rows than fit: a window around the cursor, and a last row that
    // says how many are above and below.
    let total = items.len();
    let h = list_area.height.saturating_sub(1) as usize;
    let (offset, rows, more) = if total <= h || h < 2 {
        (0, total, None)
    } else {
        let rows = h - 1;
        let offset = s.cursor.saturating_sub(rows - 1).min(total - rows);
        let below = total - offset - rows;
        let more = match (offset, below) {
            (0, b) => crate::t!("drill-more-below", below = b.to_string()),
            (a, 0) => crate::t!("drill-more-above", above = a.to_string()),
            (a, b) => crate::t!("drill-more-both", above = a.to_string(), below = b.to_string()),
        };
        (offset, rows, Some(more))
    };
    let mut items: Vec<ListItem> = items.into_iter().skip(offset).take(rows).collect();
    if let Some(more) = more {
        items.push(ListItem::new(Line::from(Span::styled(more, dim()))));
    }
    let mut st = ListState::default().with_selected(s.cursor.checked_sub(offset).filter(|&c| c < rows));
    // The preset and the seed are always in sight, in the top border.
    let title = match s.edited_keys().len() {
        0 => format!(" {} ", crate::t!("drill-config-title", preset = s.preset.as_str())),
        n => format!(" {} ", crate::t!("drill-config-title-edited", preset = s.preset.as_str(), n = n.to_string())),
    };
    let seed = shown_value(s, s.meta.params.len(), s.seed.to_string(), 12);
    let seed = format!(" {} ", crate::t!("drill-config-seed", seed = seed));
    let mut block = panel(title.clone(), s.focus == Focus::Config);
    // Where both fit (on a narrow pane the preset's title wins; the seed row is a ↓ away).
    if title.width() + seed.width() + 4 <= area.width as usize {
        block = block.title(Line::from(seed).right_aligned());
    }
    let list = List::new(items).block(block.borders(Borders::TOP | Borders::LEFT | Borders::RIGHT)).highlight_style(
        if s.focus == Focus::Config { Style::default().add_modifier(Modifier::REVERSED) } else { Style::default() },
    );
    frame.render_stateful_widget(list, list_area, &mut st);
    frame.render_widget(
        Paragraph::new(Span::styled(help, dim())).wrap(Wrap { trim: true }).block(
            Block::default()
                .borders(Borders::LEFT | Borders::RIGHT | Borders::BOTTOM)
                .border_type(BorderType::Rounded)
                .border_style(border(s.focus == Focus::Config)),
        ),
        help_area,
    );
}

/// How many charts fit, and in how many columns.
fn grid(area: Rect, n: usize) -> (usize, usize) {
    let cols = if area.width >= 90 && n > 1 { 2 } else { 1 };
    let rows = ((area.height / 9).max(1) as usize).min(n.div_ceil(cols).max(1));
    (cols, rows)
}

fn draw_charts(frame: &mut Frame, area: Rect, s: &State) {
    let series = &s.view.series;
    if series.is_empty() {
        let msg = match (&s.view.report, &s.viewing) {
            _ if s.running() => crate::t!("drill-charts-waiting"),
            (Some(r), _) => match &r.status {
                RunStatus::Failed(m) => crate::t!("drill-charts-failed", error = m.as_str()),
                st => crate::t!("drill-charts-ended", status = st.to_string()),
            },
            (None, Some(name)) => crate::t!("drill-charts-empty-saved", name = name.as_str()),
            (None, None) => crate::t!("drill-charts-none"),
        };
        let title = format!(" {} ", crate::t!("drill-tab-charts"));
        frame.render_widget(
            Paragraph::new(msg).wrap(Wrap { trim: true }).block(panel(title, s.focus == Focus::Pane)),
            area,
        );
        return;
    }
    // Series a `[[chart]]` of the drill names are drawn together.
    let names: Vec<&str> = series.iter().map(|(n, _)| n.as_str()).collect();
    let groups = s.meta.chart_groups(&names);
    let (cols, rows) = grid(area, groups.len());
    let per_page = cols * rows;
    let pages = groups.len().div_ceil(per_page);
    let page = s.chart_page.min(pages - 1);
    let shown = &groups[page * per_page..((page + 1) * per_page).min(groups.len())];
    let [status, charts] = Layout::vertical([Constraint::Length(1), Constraint::Min(3)]).areas(area);
    let smooth = match s.opts.smoothing {
        Some(b) => format!("EMA {b:.3}"),
        None => crate::t!("drill-smooth-raw"),
    };
    // The x of the charts on this page: one name when they share it.
    let mut xs: Vec<&str> = shown.iter().map(|g| chart::x_name(&g.x, s.opts)).collect();
    xs.dedup();
    let x = match xs.as_slice() {
        [one] => crate::t!("drill-x-one", x = *one),
        _ => crate::t!("drill-x-per-chart"),
    };
    let mut parts = vec![
        crate::t!("drill-page", page = (page + 1).to_string(), pages = pages.to_string()),
        crate::t!("drill-smooth-keys", smooth = smooth),
        if s.opts.log_y { crate::t!("drill-y-log") } else { crate::t!("drill-y-linear") },
        x,
    ];
    match (&s.compare, &s.previous) {
        // A `b` run: what the grey is matters more than the settings.
        (Some(_), Some(_)) => parts.insert(1, crate::t!("drill-grey-last-passing-seed", seed = s.seed.to_string())),
        (None, Some(_)) if s.runs_diff.is_some() => {
            let (_, a, b) = s.runs_diff.as_ref().expect("checked");
            parts.insert(1, crate::t!("drill-grey-compared", a = a.as_str(), b = b.as_str()))
        }
        (None, Some(_)) => parts.push(crate::t!("drill-grey-previous")),
        _ => {}
    }
    // Whole settings or none: the ones that do not fit are in the help (?).
    let info = format!(" {}", fit_parts(&parts, status.width.saturating_sub(1) as usize));
    frame.render_widget(Paragraph::new(Span::styled(info, dim())), status);
    let row_areas = Layout::vertical(vec![Constraint::Ratio(1, rows as u32); rows]).split(charts);
    for (r, row_area) in row_areas.iter().enumerate() {
        let cells = Layout::horizontal(vec![Constraint::Ratio(1, cols as u32); cols]).split(*row_area);
        for (c, cell) in cells.iter().enumerate() {
            let g = page * per_page + r * cols + c;
            let Some(group) = groups.get(g) else { continue };
            let members = group
                .members
                .iter()
                .map(|(i, label)| {
                    let (name, pts) = &series[*i];
                    let prev =
                        s.previous.as_ref().and_then(|p| p.iter().find(|(n, _)| n == name)).map(|(_, p)| p.as_slice());
                    chart::Member { label: label.as_str(), pts: pts.as_slice(), prev }
                })
                .collect();
            // A lone series keeps a colour of its own; a group's curves take the palette from its start.
            let colour = if group.is_single() { g } else { 0 };
            let grey = match (&s.compare, &s.runs_diff) {
                (Some(_), _) => crate::t!("drill-grey-last-passing"),
                (None, Some((_, _, b))) => crate::t!("drill-grey-run-b", name = b.as_str()),
                (None, None) => crate::t!("drill-grey-previous-run"),
            };
            let spec = chart::Spec { title: &group.title, x: &group.x, colour, members, grey: &grey };
            chart::draw(frame, *cell, &spec, s.opts);
        }
    }
}

fn draw_views(frame: &mut Frame, area: Rect, s: &State) {
    let views = &s.view.views;
    let Some(v) = views.get(s.view_index.min(views.len().saturating_sub(1))) else {
        frame.render_widget(
            Paragraph::new(crate::t!("drill-views-empty"))
                .wrap(Wrap { trim: true })
                .block(panel(format!(" {} ", crate::t!("drill-tab-views")), s.focus == Focus::Pane)),
            area,
        );
        return;
    };
    // "title (2/3, ↑↓)": the position always shows; a title too long for the
    // border is cut there and given in full on the first line inside.
    let i = s.view_index.min(views.len() - 1);
    let tail = if views.len() > 1 { format!(" ({}/{}, ↑↓) ", i + 1, views.len()) } else { " ".to_string() };
    let room = (area.width as usize).saturating_sub(4 + tail.width());
    let shown = ellipsize(v.title(), room);
    let cut = shown != v.title();
    let block = panel(format!(" {shown}{tail}"), s.focus == Focus::Pane);
    let mut inner = block.inner(area);
    frame.render_widget(block, area);
    if cut {
        let full = wrap_words(v.title(), inner.width as usize);
        let h = (full.len() as u16).min(inner.height.saturating_sub(1));
        let [head, rest] = Layout::vertical([Constraint::Length(h), Constraint::Min(0)]).areas(inner);
        frame.render_widget(Paragraph::new(full.join("\n")).style(accent()), head);
        inner = rest;
    }
    // A view longer than the pane scrolls with PgDn / PgUp (lines; table rows).
    let fits = |content_h: usize| content_h.saturating_sub(inner.height as usize);
    match v {
        View::Tokens { tokens, legend, .. } => {
            let mut lines = token_mask::lines(tokens, inner.width as usize);
            lines.push(Line::raw(""));
            lines.push(Line::from(vec![
                Span::styled(
                    format!(" {} ", crate::t!("drill-token-prompt")),
                    token_mask::kind_style(crate::drills::TokenKind::Prompt),
                ),
                Span::raw(" "),
                Span::styled(
                    format!(" {} ", crate::t!("drill-token-trained")),
                    token_mask::kind_style(crate::drills::TokenKind::Trained),
                ),
                Span::raw(" "),
                Span::styled(
                    format!(" {} ", crate::t!("drill-token-masked")),
                    token_mask::kind_style(crate::drills::TokenKind::Masked),
                ),
            ]));
            if tokens.iter().any(|t| t.kind == crate::drills::TokenKind::Injected) {
                let key = token_mask::kind_style(crate::drills::TokenKind::Injected);
                let injected = format!(" {} ", crate::t!("drill-token-injected"));
                lines.last_mut().expect("the key line").spans.extend([Span::raw(" "), Span::styled(injected, key)]);
            }
            lines.push(Line::from(Span::styled(legend.clone(), dim())));
            let h = lines.len() + wrap_words(legend, inner.width as usize).len();
            let y = s.view_scroll.min(fits(h)) as u16;
            frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }).scroll((y, 0)), inner);
        }
        View::Table { header, rows, .. } => {
            let skip = s.view_scroll.min(rows.len().saturating_sub(1));
            frame.render_widget(wrapped_table(header, &rows[skip..], inner.width), inner);
        }
        View::Text { body, .. } => {
            let h: usize = body.lines().map(|l| wrap_all(l, inner.width as usize).len()).sum();
            let y = s.view_scroll.min(fits(h)) as u16;
            frame.render_widget(Paragraph::new(body.clone()).wrap(Wrap { trim: false }).scroll((y, 0)), inner);
        }
    }
}

fn draw_log(frame: &mut Frame, area: Rect, s: &State) {
    let logs = &s.view.logs;
    let n = logs.len();
    let (w, h) = (area.width.saturating_sub(2) as usize, area.height.saturating_sub(2) as usize);
    // The entry the view ends at (the newest when following).
    let end = s.log_scroll.map_or(n, |i| (i + 1).min(n));
    // Whole lines, wrapped: the rows of the entries before `end`, newest at
    // the bottom; near the top the rows stay filled with the entries after it.
    let mut rows: Vec<String> = Vec::new();
    let mut first = end;
    while first > 0 && rows.len() < h {
        first -= 1;
        let mut r = wrap_hanging(&logs[first], w);
        r.append(&mut rows);
        rows = r;
    }
    let mut next = end;
    while rows.len() < h && next < n {
        rows.extend(wrap_hanging(&logs[next], w));
        next += 1;
    }
    let shown_end = next;
    let skip = rows.len().saturating_sub(h).min(if next > end { 0 } else { usize::MAX });
    let lines: Vec<Line> = rows.into_iter().skip(skip).take(h).map(Line::raw).collect();
    let title = if s.log_scroll.is_some() {
        format!(" {} ", crate::t!("drill-log-scrolled", at = shown_end.to_string(), n = n.to_string()))
    } else {
        format!(" {} ", crate::t!("drill-log-following", count = n))
    };
    frame.render_widget(Paragraph::new(lines).block(panel(title, s.focus == Focus::Pane)), area);
}

/// A log line broken into rows of at most `width` columns, at a space where
/// there is one; the rows after the first are indented two columns, so a
/// continuation is told from a new line. No character is lost.
pub(super) fn wrap_hanging(text: &str, width: usize) -> Vec<String> {
    use unicode_width::UnicodeWidthChar;
    const INDENT: &str = "  ";
    let mut out = Vec::new();
    let mut rest = text.trim_end();
    let mut room = width.max(1);
    let mut prefix = "";
    loop {
        if rest.width() <= room {
            out.push(format!("{prefix}{rest}"));
            return out;
        }
        // The longest head of `rest` that fits…
        let mut used = 0;
        let mut cut = 0;
        for (i, c) in rest.char_indices() {
            let cw = c.width().unwrap_or(0);
            if used + cw > room {
                break;
            }
            used += cw;
            cut = i + c.len_utf8();
        }
        if cut == 0 {
            // Not even one character fits: take one anyway.
            cut = rest.chars().next().map_or(rest.len(), char::len_utf8);
        }
        // …ended at its last space when it has one (the space is dropped).
        let (line, tail) = if rest[cut..].starts_with(' ') {
            (&rest[..cut], &rest[cut..])
        } else {
            match rest[..cut].rfind(' ') {
                Some(sp) if !rest[..sp].trim().is_empty() => (&rest[..sp], &rest[sp + 1..]),
                _ => (&rest[..cut], &rest[cut..]),
            }
        };
        out.push(format!("{prefix}{}", line.trim_end()));
        rest = tail.trim_start();
        if width > INDENT.len() + 4 {
            prefix = INDENT;
            room = width - INDENT.len();
        }
        if rest.is_empty() {
            return out;
        }
    }
}

fn draw_runs(frame: &mut Frame, area: Rect, s: &State) {
    if s.runs.is_empty() {
        frame.render_widget(
            Paragraph::new(crate::t!("drill-runs-empty"))
                .block(panel(format!(" {} ", crate::t!("drill-tab-runs")), s.focus == Focus::Pane)),
            area,
        );
        return;
    }
    // Two runs compared: what differs below the list.
    let area = match &s.runs_diff {
        Some((diff, a, b)) => {
            let [list, below] = Layout::vertical([Constraint::Percentage(45), Constraint::Min(4)]).areas(area);
            let title = format!(" {} ", crate::t!("drill-runs-diff-title", a = a.as_str(), b = b.as_str()));
            let lines: Vec<Line> = diff.text().lines().map(|l| Line::raw(l.to_string())).collect();
            frame.render_widget(Paragraph::new(lines).block(panel(title, false)), below);
            list
        }
        None => area,
    };
    let block = panel(
        if area.width >= 50 {
            format!(" {} ", crate::t!("drill-runs-title"))
        } else {
            format!(" {} ", crate::t!("drill-runs-title-short"))
        },
        s.focus == Focus::Pane,
    );
    let avail = block.inner(area).width as usize;
    // On a narrow screen the run's name drops the year and the seconds' dashes.
    let name = |n: &str| match (avail < 70, n.split_once('T')) {
        (true, Some((date, time))) if date.len() == 10 => format!("{} {}", &date[5..], time.replace('-', ":")),
        _ => n.to_string(),
    };
    let cells: Vec<(Vec<String>, Style)> = s
        .runs
        .iter()
        .map(|r| {
            let mark = match s.runs_marked.iter().position(|d| *d == r.dir) {
                Some(0) => "A",
                Some(_) => "B",
                None => "",
            };
            // What the run changed from its preset, with the values, and the learner's functions.
            let (what, seed) = r.config.as_ref().map_or(("?".to_string(), "?".to_string()), |c| {
                let mut parts = vec![c.preset.clone()];
                parts.extend(crate::runner::kept::edited(&s.meta, c).into_iter().map(|(k, v)| format!("{k}={v}")));
                if !c.uses.is_empty() {
                    let ids: Vec<&str> = c.uses.keys().map(String::as_str).collect();
                    parts.push(crate::t!("drill-with-yours", ids = ids.join(", ")));
                }
                (parts.join(" · "), c.seed.to_string())
            });
            let (status, style, claims, wall) = match &r.report {
                Some(rep) => {
                    // Observations are not verdicts: the count is of claims only.
                    let verdicts: Vec<bool> = rep.claims.iter().filter(|c| !c.observation).map(|c| c.pass).collect();
                    let passed = verdicts.iter().filter(|p| **p).count();
                    let (st, style) = status_cell(&rep.status);
                    // "3 claims failed", not "claim failed" beside a count of those that held.
                    let st = match rep.status {
                        RunStatus::ClaimsFailed => crate::t!("drill-claims-failed", count = verdicts.len() - passed),
                        _ => st,
                    };
                    let held = crate::t!("drill-runs-held", held = passed, total = verdicts.len());
                    (st, style, held, format!("{:.0} s", rep.wall_s))
                }
                None if crate::runner::report_unreadable(r) => {
                    (crate::t!("drill-status-corrupt"), dim(), "-".into(), "-".into())
                }
                None => (crate::t!("drill-status-interrupted"), dim(), "-".into(), "-".into()),
            };
            let kept = match &r.weights {
                crate::runner::kept::Weights::Kept { bytes, .. } => {
                    format!("◆ {}", crate::ml::models::human_size(*bytes))
                }
                crate::runner::kept::Weights::Pruned => crate::t!("drill-runs-pruned"),
                crate::runner::kept::Weights::None => "—".into(),
            };
            let kept = if r.pinned { format!("{kept} ⚑") } else { kept };
            (vec![mark.to_string(), name(&r.name), what, seed, status, claims, wall, kept], style)
        })
        .collect();
    let header = [
        "drill-col-mark",
        "drill-col-run",
        "drill-col-preset",
        "drill-col-seed",
        "drill-col-status",
        "drill-col-claims",
        "drill-col-time",
        "drill-col-weights",
    ]
    .map(|k| crate::i18n::tr(k, None));
    let mut natural: Vec<usize> = header.iter().map(|h| h.width()).collect();
    for (row, _) in &cells {
        for (w, c) in natural.iter_mut().zip(row) {
            *w = (*w).max(c.width());
        }
    }
    // Columns that do not fit are left out whole, least needed first; what
    // the run changed is cut short (…) before it goes.
    let mut shown: Vec<usize> = (0..header.len()).collect();
    let fits = |shown: &[usize], natural: &[usize]| shown.iter().map(|&i| natural[i] + 1).sum::<usize>() <= avail + 1;
    for drop in [6, 7, 3, 5] {
        if fits(&shown, &natural) {
            break;
        }
        shown.retain(|&i| i != drop);
    }
    // The marks' column goes while nothing is marked, then what the run
    // changed, when even cut short it leaves no room for the run and its status.
    if !fits(&shown, &natural) && s.runs_marked.is_empty() {
        shown.retain(|&i| i != 0);
    }
    if !fits(&shown, &natural) {
        let others: usize = shown.iter().filter(|&&i| i != 2).map(|&i| natural[i] + 1).sum();
        natural[2] = (avail + 1).saturating_sub(others + 1).max(8);
    }
    if !fits(&shown, &natural) {
        shown.retain(|&i| i != 2);
    }
    let rows: Vec<Row> = cells
        .iter()
        .map(|(row, style)| {
            Row::new(shown.iter().map(|&i| {
                let text = if i == 2 { ellipsize(&row[i], natural[2]) } else { row[i].clone() };
                let c = Cell::from(text);
                match i {
                    4 => c.style(*style),
                    0 => c.style(accent()),
                    _ => c,
                }
            }))
        })
        .collect();
    let table = Table::new(rows, shown.iter().map(|&i| Constraint::Length(natural[i] as u16)))
        .header(header_row(shown.iter().map(|&i| header[i].clone())))
        .block(block)
        .row_highlight_style(Style::default().add_modifier(Modifier::REVERSED));
    let mut st = ratatui::widgets::TableState::default().with_selected(Some(s.runs_cursor));
    frame.render_stateful_widget(table, area, &mut st);
}

/// A table whose columns are as wide as their contents allow and whose
/// cells wrap (long words split) rather than being cut: in a teaching view
/// the cell text is what the learner reads.
fn wrapped_table<'a>(header: &[String], rows: &[Vec<String>], width: u16) -> Table<'a> {
    let n = header.len().max(rows.iter().map(Vec::len).max().unwrap_or(0)).max(1);
    let mut natural = vec![0usize; n];
    for r in std::iter::once(header).chain(rows.iter().map(Vec::as_slice)) {
        for (w, c) in natural.iter_mut().zip(r) {
            *w = (*w).max(c.width());
        }
    }
    let widths = column_widths(&natural, width as usize, 1);
    let row = |cells: &[String]| -> (Vec<Cell<'a>>, u16) {
        let wrapped: Vec<Vec<String>> = cells.iter().zip(&widths).map(|(c, &w)| wrap_all(c, w)).collect();
        let h = wrapped.iter().map(Vec::len).max().unwrap_or(1).max(1) as u16;
        (wrapped.into_iter().map(|lines| Cell::from(lines.join("\n"))).collect(), h)
    };
    let (head, head_h) = row(header);
    let body: Vec<Row> = rows
        .iter()
        .map(|r| {
            let (cells, h) = row(r);
            Row::new(cells).height(h)
        })
        .collect();
    Table::new(body, widths.iter().map(|&w| Constraint::Length(w as u16)))
        .header(header_row(head).height(head_h))
        .column_spacing(1)
}

/// The gauge of the run shown: its phase and step, or how it ended.
fn run_gauge(s: &State) -> (f64, Vec<String>, Color) {
    let v = &s.view;
    let (ratio, label) = match (v.progress, &v.report) {
        // How many claims failed, and where to read why.
        (_, Some(r)) if r.status == RunStatus::ClaimsFailed => (
            1.0,
            vec![
                crate::t!("drill-gauge-finished", secs = format!("{:.1}", r.wall_s), failed = super::failed_claims(r)),
                crate::t!("drill-gauge-why"),
                crate::t!("drill-gauge-break"),
            ],
        ),
        (_, Some(r)) => (1.0, vec![r.outcome()]),
        // A saved run without a report was killed: it is not training now.
        (Some((step, total, _)), None) if s.viewing.is_some() => (
            (step as f64 / total.max(1) as f64).clamp(0.0, 1.0),
            vec![
                crate::t!(
                    "drill-gauge-interrupted",
                    step = step.to_string(),
                    total = total.to_string(),
                    phase = v.phase.as_str()
                ),
                crate::t!("drill-gauge-stopped"),
            ],
        ),
        (Some((step, total, _)), None) => {
            // Most important first: what is left out on a narrow screen is the tail.
            let mut parts = vec![crate::t!(
                "drill-gauge-step",
                phase = v.phase.as_str(),
                step = step.to_string(),
                total = total.to_string()
            )];
            if let Some(eta) = v.eta() {
                parts.push(crate::t!("drill-gauge-eta", secs = format!("{eta:.0}")));
            }
            if let Some(tps) = v.tokens_per_s() {
                parts.push(format!("{:.1}K tok/s", tps / 1000.0));
            }
            if !v.device.is_empty() {
                parts.push(v.device.clone());
            }
            ((step as f64 / total.max(1) as f64).clamp(0.0, 1.0), parts)
        }
        (None, None) if s.running() => (0.0, vec![crate::t!("drill-gauge-starting", phase = v.phase.as_str())]),
        _ => (0.0, vec![crate::t!("drill-gauge-idle")]),
    };
    let colour = match &v.report {
        None if s.viewing.is_some() && v.progress.is_some() => GAUGE_PAST,
        Some(r) if r.status == RunStatus::Passed => GAUGE_PASSED,
        Some(r) if matches!(r.status, RunStatus::Failed(_) | RunStatus::ClaimsFailed) => GAUGE_FAILED,
        _ => GAUGE_BLUE,
    };
    (ratio, label, colour)
}

fn draw_gauge(frame: &mut Frame, area: Rect, s: &State) {
    let (ratio, parts, colour) = match s.sweep.as_ref().filter(|v| v.is_live()) {
        Some(v) => {
            let (ratio, text, colour) = sweep_tab::gauge(v);
            (ratio, vec![text], colour)
        }
        None => run_gauge(s),
    };
    // A space either side: the filled bar never runs into the text.
    let label = format!(" {} ", fit_parts(&parts, (area.width as usize).saturating_sub(2)));
    frame.render_widget(
        Gauge::default().ratio(ratio).label(label).gauge_style(Style::default().fg(colour).bg(GAUGE_TRACK)),
        area,
    );
}
