//! The claims panel: each claim of the drill with its threshold, pending
//! until measured, then pass or fail with the measured value. An observation
//! is shown with its value and never as a pass or a fail.

use ratatui::text::{Line, Span};

use super::wrap_words;
use crate::content::DrillMeta;
use crate::drills::ClaimResult;
use crate::tui::theme::{self, why_style};

/// `ended`: the run shown is over (finished, failed or interrupted), so a
/// claim without a result was never measured rather than pending. `was`:
/// the values of the run this one is compared with ("0.0130 (was 0.2900)").
/// A failed claim is followed by its `why`. `hidden`: the preset's
/// predictions are not answered or skipped yet, so each claim shows only as
/// "claim N" (its text and threshold would give the answers away).
pub fn lines(
    meta: &DrillMeta,
    results: &[ClaimResult],
    width: usize,
    ended: bool,
    was: Option<&[ClaimResult]>,
    hidden: bool,
) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    if hidden {
        // The claims first (a small pane shows them), then why they are hidden.
        for (i, _) in meta.claims.iter().enumerate() {
            out.push(Line::from(vec![
                Span::styled("○ ", theme::dim()),
                Span::raw(crate::t!("drill-claim-hidden", n = i + 1)),
            ]));
        }
        for part in wrap_words(&crate::t!("drill-claims-hidden"), width) {
            out.push(Line::from(Span::styled(part, theme::dim())));
        }
        return out;
    }
    for c in &meta.claims {
        let r = results.iter().find(|r| r.id == c.id);
        let observation = c.observation || r.is_some_and(|r| r.observation);
        let (mark, style) = match r {
            None => ("○", theme::dim()),
            Some(_) if observation => ("○", theme::observed()),
            Some(r) if r.pass => ("✓", theme::claim_pass()),
            Some(_) => ("✗", theme::claim_fail()),
        };
        // The claim's text is the lesson: wrapped, never cut.
        for (i, part) in wrap_words(&c.text, width.saturating_sub(2)).into_iter().enumerate() {
            let lead = if i == 0 { Span::styled(format!("{mark} "), style) } else { Span::raw("  ") };
            out.push(Line::from(vec![lead, Span::raw(part)]));
        }
        let threshold = format!("{} {}", c.op.symbol(), c.threshold);
        let before = was
            .and_then(|w| w.iter().find(|x| x.id == c.id))
            .map(|x| format!(" {}", crate::t!("drill-claim-was", value = format!("{:.4}", x.measured))))
            .unwrap_or_default();
        let value = match r {
            Some(r) if observation => {
                let v = crate::t!("drill-claim-observed", value = format!("{:.4}", r.measured), threshold = threshold);
                format!("  {v}{before}")
            }
            Some(r) => format!("  {:.4} {threshold}{before}", r.measured),
            None if ended => crate::t!("drill-claim-not-measured", threshold = threshold),
            None if observation => crate::t!("drill-claim-pending-observation", threshold = threshold),
            None => crate::t!("drill-claim-pending", threshold = threshold),
        };
        for part in wrap_words(value.trim_start(), width.saturating_sub(2)) {
            out.push(Line::from(Span::styled(format!("  {part}"), style)));
        }
        // A ✗ says what it means for learning, under it.
        if let (Some(r), Some(why)) = (r, &c.why) {
            if !r.pass && !observation {
                for part in wrap_words(&crate::t!("drill-claim-why", why = why.as_str()), width.saturating_sub(2)) {
                    out.push(Line::from(Span::styled(format!("  {part}"), why_style())));
                }
            }
        }
    }
    out
}
