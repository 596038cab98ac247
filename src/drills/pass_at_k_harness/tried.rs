//! Try on a pass-at-k-harness run: a typed sum, in whichever of the
//! harness's prompt formats it is typed (`47+38=` as trained, `47 + 38 =`
//! spaced, `047+038=` padded, `7+38=` unpadded), to the model the harness
//! scores and to the random init its SFT started from. `n` samples each at a
//! temperature, every sample read by the four answer extractors, and per arm
//! what a harness makes of the `n`: c right under each extractor, pass@1,
//! pass@k with the unbiased estimator and with the plug-in, pass^k.
//!
//! Typing the same sum in two formats, or reading the same samples with two
//! extractors, moves the numbers while the model stays the same: the drill's
//! two harness claims, on one problem.

use std::sync::atomic::AtomicBool;

use anyhow::Result;
use candle_core::Device;

use super::{Format, Params, ALPHABET};
use crate::drills::addition::Problems;
use crate::drills::try_it::{
    self, Arm, KeptRun, TryAnswer, TryCell, TryColumn, TryKind, TryOpts, TrySample, TrySession, Verdict,
};
use crate::drills::TokenKind;
use crate::envs::refine_arith::Problem;
use crate::eval::{pass_at_k, pass_at_k_naive, pass_hat_k, Extractor};
use crate::ml::gpt::Gpt;
use crate::ml::lm::CausalLm;
use crate::ml::rng::Rng;
use crate::ml::sample::GenConfig;
use crate::ml::tokenizer::{CharTokenizer, Tokenize, EOS};

/// The arms a run keeps: the random init its SFT started from, the model the harness scores.
pub(super) const INIT: &str = "random-init";
pub(super) const TRAINED: &str = "warm-start";

/// The longest input read, in characters.
const MAX_INPUT: usize = 32;

/// Every prompt format, the trained one first (an unpadded sum of full-width operands reads as trained).
const FORMATS: [Format; 4] = [Format::Trained, Format::Spaced, Format::Padded, Format::Unpadded];

pub(super) fn open(p: &Params, run: &KeptRun, device: &Device) -> Result<Box<dyn TrySession>> {
    let arms = [(INIT, crate::t!("try-pak-init")), (TRAINED, crate::t!("try-pak-trained"))]
        .into_iter()
        .map(|(id, label)| Ok((Arm { id: id.to_string(), label }, run.tiny(id, device)?)))
        .collect::<Result<Vec<_>>>()?;
    // The run's held-out problems: its first draw (`addition::data`).
    let held = Problems::distinct(p.digits, p.problems, &mut Rng::new(run.seed).fork(7));
    Ok(Box::new(PakTry { p: p.clone(), tok: CharTokenizer::new(ALPHABET, &[]), held, arms }))
}

struct PakTry {
    p: Params,
    tok: CharTokenizer,
    held: Problems,
    arms: Vec<(Arm, Gpt)>,
}

impl PakTry {
    /// The typed sum and the prompt format it is typed in (a missing `=` added).
    fn parse(&self, text: &str) -> Result<(Problem, Format)> {
        let d = self.p.digits;
        let body = text.trim_end_matches('=').trim_end();
        let typed = match body.contains(' ') {
            true => format!("{body} ="),
            false => format!("{body}="),
        };
        let operand = |s: &str| -> Option<u32> {
            let s = s.trim();
            let ok = !s.is_empty() && s.len() <= d + 1 && s.chars().all(|c| c.is_ascii_digit());
            ok.then(|| s.parse::<u32>().ok()).flatten().filter(|&v| (v as usize) < 10usize.pow(d as u32))
        };
        let parsed =
            body.split_once('+').and_then(|(a, b)| Some(Problem { a: operand(a)?, b: operand(b)?, digits: d }));
        let Some(q) = parsed else { return try_it::refuse(self.formats_message()) };
        match FORMATS.into_iter().find(|f| f.prompt(&q) == typed) {
            Some(f) => Ok((q, f)),
            None => try_it::refuse(self.formats_message()),
        }
    }

    /// What to type: a held-out sum in each format.
    fn formats_message(&self) -> String {
        let q = self.held.test.first().copied().unwrap_or(Problem { a: 47, b: 38, digits: self.p.digits });
        let small = Problem { a: q.a % 10, ..q };
        let shown = |f: Format, q: &Problem| format!("{} ({})", f.prompt(q), f.name());
        let list = [shown(Format::Trained, &q), shown(Format::Spaced, &q), shown(Format::Padded, &q)];
        crate::t!(
            "try-pak-not-a-sum",
            formats = format!("{}, {}", list.join(", "), shown(Format::Unpadded, &small)),
            digits = self.p.digits.to_string()
        )
    }

    /// The k the summary estimates at: half the samples (at least 2, when there are 2).
    fn k(n: usize) -> usize {
        n.div_ceil(2).max(2).min(n)
    }
}

impl TrySession for PakTry {
    fn kind(&self) -> TryKind {
        TryKind::Sampling
    }

    fn arms(&self) -> Vec<Arm> {
        try_it::arms_of(&self.arms)
    }

    /// Held-out sums in the trained format, then the first few again in the drill's other format.
    fn examples(&self) -> Vec<String> {
        let test = &self.held.test;
        let trained = test.iter().take(8).map(|q| Format::Trained.prompt(q));
        let alt = match self.p.alt_format {
            Format::Trained => Format::Spaced,
            f => f,
        };
        trained.chain(test.iter().take(4).map(|q| alt.prompt(q))).collect()
    }

    fn prompt_hint(&self) -> String {
        crate::t!("try-pak-hint", digits = self.p.digits.to_string())
    }

    fn defaults(&self) -> TryOpts {
        TryOpts::new(self.p.samples.min(try_it::MAX_SAMPLES), self.p.temperature as f32)
    }

    fn answer(
        &mut self,
        input: &str,
        opts: &TryOpts,
        progress: &mut dyn FnMut(&TryAnswer),
        cancel: &AtomicBool,
    ) -> Result<TryAnswer> {
        let text = try_it::checked_input(input, MAX_INPUT)?;
        let (q, format) = self.parse(text)?;
        let shown = format.prompt(&q);
        let prompt = self.tok.encode(&shown);
        let gold = q.answer();
        let n = opts.samples.clamp(1, try_it::MAX_SAMPLES);
        let k = PakTry::k(n);
        let how = match format {
            Format::Trained => crate::t!("try-pak-format-trained"),
            f => crate::t!("try-pak-format-unseen", format = f.name()),
        };
        let seen = match self.held.test.iter().any(|h| (h.a, h.b) == (q.a, q.b)) {
            true => crate::t!("try-sft-held-out"),
            false => crate::t!("try-pak-maybe-trained"),
        };
        let notes = vec![
            crate::t!(
                "try-pak-note",
                prompt = shown.as_str(),
                how = how,
                gold = gold.as_str(),
                sum = (q.a + q.b).to_string(),
                seen = seen
            ),
            crate::t!("try-pak-note-estimates", n = n.to_string(), k = k.to_string()),
        ];
        let mut out = TryAnswer { input: text.to_string(), notes, columns: Vec::new() };
        let all = self.arms();
        for arm in opts.arms(&all) {
            try_it::check(cancel)?;
            let model = try_it::model_of(&self.arms, &arm.id);
            try_it::check_fits(prompt.len(), self.p.max_new, model.context())?;
            let cfg = GenConfig::new(self.p.max_new, try_it::decoding(opts.temperature), vec![EOS]);
            let outs = model.generate(&vec![prompt.clone(); n], &cfg, &mut try_it::arm_rng(opts.seed))?;
            let mut col = TryColumn::new(arm);
            let mut counts = [0usize; 4];
            for o in &outs {
                let ids: Vec<u32> = prompt.iter().chain(o).copied().collect();
                let logp = try_it::token_logps(model, &ids, prompt.len())?;
                let mut cells = vec![TryCell::new(shown.clone(), TokenKind::Prompt)];
                for (j, &t) in o.iter().enumerate() {
                    let piece = if t == EOS { "⏎".to_string() } else { self.tok.decode(&[t]) };
                    cells.push(TryCell { text: piece, kind: TokenKind::Trained, logp: logp[prompt.len() + j] });
                }
                let said = self.tok.decode(&o.iter().copied().filter(|&t| t != EOS).collect::<Vec<_>>());
                // One line per sample: the extractors that read it right, marked by strict's verdict.
                let mut readers = Vec::new();
                for (e, c) in Extractor::ALL.into_iter().zip(counts.iter_mut()) {
                    if e.accepts(&said, &gold) {
                        *c += 1;
                        readers.push(e.name());
                    }
                }
                let strict = Extractor::Strict.accepts(&said, &gold);
                let readers = if readers.is_empty() { crate::t!("try-pak-none") } else { readers.join(", ") };
                let mut verdicts = vec![Verdict::new(crate::t!("try-pak-read-right"), readers, Some(strict))];
                let parts: Vec<&str> = said.split(',').collect();
                if parts.len() > 1 && parts.iter().all(|x| !x.is_empty() && x.chars().all(|c| c.is_ascii_digit())) {
                    verdicts.push(Verdict::new(crate::t!("try-add-hedge"), "", None));
                }
                col.samples.push(TrySample { cells, verdicts, ..Default::default() });
            }
            let mut summary: Vec<Verdict> = Extractor::ALL
                .into_iter()
                .zip(counts)
                .map(|(e, c)| Verdict::new(e.name(), format!("{c}/{n}"), None))
                .collect();
            let c = counts[0];
            let est = |name: String, v: f64| Verdict::new(name, format!("{v:.3}"), None);
            summary.push(est("pass@1".into(), pass_at_k(n, c, 1)));
            if k > 1 {
                summary.push(est(format!("pass@{k}"), pass_at_k(n, c, k)));
                summary.push(est(crate::t!("try-pak-plug-in", k = k.to_string()), pass_at_k_naive(n, c, k)));
                summary.push(est(format!("pass^{k}"), pass_hat_k(n, c, k)));
            }
            col.summary = summary;
            out.columns.push(col);
            progress(&out);
        }
        Ok(out)
    }
}
