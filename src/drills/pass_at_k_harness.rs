//! `pass-at-k-harness`: evaluate a model the lab trains itself the way a
//! benchmark harness does, and watch the harness, not only the model, set
//! the number.
//!
//! Phases of `run`:
//!
//! 1. **data** — 2-digit addition, answers least significant digit first;
//!    held-out problems never trained on (`src/drills/addition.rs`, shared
//!    with `grpo-rlvr`).
//! 2. **warm start (SFT)** — a tiny character-level GPT learns the task part
//!    way, from answers that now and then hedge (`580,590`): a model right on
//!    a middling share of problems, which is where pass@k is interesting.
//! 3. **sample** — n completions per held-out problem at three temperatures,
//!    in the trained prompt format, and once more at the main temperature in
//!    a format the model never saw.
//! 4. **estimate** — per problem c of n correct (strict match); pass@k for
//!    k = 1..n with the unbiased estimator and the plug-in, pass^k, bootstrap
//!    intervals over problems (`src/eval/`); a Monte-Carlo draw of k-subsets
//!    to check both estimators against.
//! 5. **harness** — the same completions scored by four answer extractors,
//!    and the second prompt format: the score moves, the model does not.
//!
//! Charts use `step` = k. Claims: the unbiased estimator matches the
//! Monte-Carlo draw while the plug-in sits below it; the extractor and the
//! prompt format each move pass@1 by more than its interval; pass^k falls
//! with k; pass@1 falls and pass@n rises with temperature.

use anyhow::Result;
use candle_core::Device;
use serde::Deserialize;

use super::addition::{self, Text, WarmStart};
use super::keep::Role as Arms;
use super::try_it::{KeptRun, TrySession};
use super::{check_heads, RunCtx, TypedDrill, View};
use crate::envs::refine_arith::Problem;
pub use crate::envs::refine_arith::PromptFormat as Format;
use crate::eval::{
    monte_carlo_by_k, pass_at_k, pass_at_k_naive, pass_hat_k, Bootstrap, Counts, Draw, EstimatorGaps, Extractor,
    Interval,
};
use crate::ml::gpt::Gpt;
use crate::ml::rng::Rng;
use crate::ml::tokenizer::{CharTokenizer, Tokenize};
use crate::numbers::doublings;

mod tried;

pub struct PassAtKHarness;

/// `drills/pass-at-k-harness/drill.toml`, typed.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Params {
    pub digits: usize,
    pub hedge_rate: f64,
    pub slip_rate: f64,
    pub sft_steps: usize,
    pub sft_batch: usize,
    pub lr_sft: f64,
    pub problems: usize,
    pub samples: usize,
    pub temp_low: f64,
    pub temperature: f64,
    pub temp_high: f64,
    pub max_new: usize,
    pub alt_format: Format,
    pub mc_draws: usize,
    /// How the Monte-Carlo check draws k of the n completions (with
    /// replacement: a bug that re-derives the plug-in).
    pub mc_draw: Draw,
    pub bootstrap: usize,
    pub d_model: usize,
    pub n_layers: usize,
    pub n_heads: usize,
}

/// Characters of prompts and completions: the hedging task's, and a space
/// for the spaced prompt format (never in the training data).
const ALPHABET: &str = "0123456789+=, ";

/// Interval level of every bootstrap interval.
const LEVEL: f64 = 0.95;

/// Completions sampled per call of the generator.
const CHUNK: usize = 4096;

impl Params {
    fn warm_start(&self) -> WarmStart {
        WarmStart {
            hedge_rate: self.hedge_rate,
            slip_rate: self.slip_rate,
            steps: self.sft_steps,
            batch: self.sft_batch,
            lr: self.lr_sft,
            // The longest prompt format (spaced, 4 characters more) and the answer.
            context: 2 * self.digits + 6 + self.max_new + 2,
            d_model: self.d_model,
            n_layers: self.n_layers,
            n_heads: self.n_heads,
        }
    }

    fn temperatures(&self) -> [f64; 3] {
        [self.temp_low, self.temperature, self.temp_high]
    }
}

/// n completions for each of P problems in one prompt format at one
/// temperature, problem-major (problem i owns `texts[i·n .. (i+1)·n]`).
struct Pass {
    temperature: f64,
    format: Format,
    n: usize,
    texts: Vec<String>,
}

impl Pass {
    fn completions(&self, i: usize) -> &[String] {
        &self.texts[i * self.n..(i + 1) * self.n]
    }

    /// `[problem][sample]`: whether `extractor` reads the gold answer.
    fn correct(&self, problems: &[Problem], extractor: Extractor) -> Vec<Vec<bool>> {
        problems
            .iter()
            .enumerate()
            .map(|(i, q)| self.completions(i).iter().map(|t| extractor.accepts(t, &q.answer())).collect())
            .collect()
    }

    fn counts(&self, problems: &[Problem], extractor: Extractor) -> Counts {
        Counts::of(&self.correct(problems, extractor))
    }
}

/// `T=0.5`, `T=1`: a temperature as chart names and tables show it.
fn t_name(t: f64) -> String {
    format!("T={t}")
}

impl TypedDrill for PassAtKHarness {
    const ID: &'static str = "pass-at-k-harness";
    const CLAIMS: &'static [&'static str] = &[
        "extractor_moves_the_score",
        "format_moves_the_score",
        "naive_below_monte_carlo",
        "pass_at_1_falls_with_temperature",
        "pass_at_n_rises_with_temperature",
        "pass_hat_k_falls",
        "unbiased_matches_monte_carlo",
    ];
    type Params = Params;

    fn validate(p: &Params) -> Result<(), String> {
        check_heads(p.d_model, p.n_heads)?;
        addition::check_sizes(p.digits, p.max_new, "problems", p.problems)?;
        if p.temp_low >= p.temp_high {
            return Err(crate::t!("setup-pak-temps", low = p.temp_low.to_string(), high = p.temp_high.to_string()));
        }
        Ok(())
    }

    fn run(&self, p: &Params, ctx: &mut RunCtx) -> Result<()> {
        let tok = CharTokenizer::new(ALPHABET, &[]);
        let mut rng = Rng::new(ctx.seed);
        let problems = addition::data(ctx, &p.warm_start(), p.digits, p.problems, &Text::Chars(tok.clone()), &mut rng);
        let total = p.sft_steps + 4;
        let model = addition::warm_start(&p.warm_start(), ctx, &tok, &problems, &mut rng, total)?;
        // Try puts the random init the SFT started from (the run's seed draws it again) beside the model it scores.
        ctx.keep(tried::INIT, Arms::Start, &Gpt::new(model.cfg.clone(), ctx.seed, &ctx.device)?)?;
        ctx.keep(tried::TRAINED, Arms::Trained, &model)?;
        let test = &problems.test;

        ctx.phase(crate::t!("view-pak-phase-sample"));
        let mut passes = Vec::new();
        for (i, &t) in p.temperatures().iter().enumerate() {
            ctx.check_cancel()?;
            passes.push(sample(&model, &tok, p, test, Format::Trained, t, &mut rng.fork(20 + i as u64))?);
            ctx.progress(p.sft_steps + i + 1, total, 0);
        }
        let alt = sample(&model, &tok, p, test, p.alt_format, p.temperature, &mut rng.fork(30))?;
        ctx.progress(total, total, 0);
        ctx.log(crate::t!(
            "view-pak-log-sampled",
            samples = p.samples.to_string(),
            problems = test.len().to_string(),
            temps = p.temperatures().map(t_name).join(", "),
            t = t_name(p.temperature),
            format = p.alt_format.name()
        ));

        ctx.phase(crate::t!("view-pak-phase-estimate"));
        let boot = Bootstrap::new(test.len(), p.bootstrap, &mut rng.fork(40));
        let counts: Vec<Counts> = passes.iter().map(|s| s.counts(test, Extractor::Strict)).collect();
        for (s, c) in passes.iter().zip(&counts) {
            for k in 1..=p.samples {
                ctx.metric(k, &format!("pass@k/{}", t_name(s.temperature)), c.mean(k, pass_at_k));
            }
        }
        for (s, c) in passes.iter().zip(&counts) {
            for k in 1..=p.samples {
                ctx.metric(k, &format!("pass^k/{}", t_name(s.temperature)), c.mean(k, pass_hat_k));
            }
        }
        let main = &passes[1];
        let strict = main.correct(test, Extractor::Strict);
        let mc = monte_carlo_by_k(&strict, p.samples, p.mc_draws, p.mc_draw, &mut rng.fork(50));
        let est = estimators(ctx, p, &counts[1], mc, &boot);
        estimators_view(ctx, p, &counts[1], &est, &boot);
        temperature_view(ctx, p, &passes, &counts, &boot);

        ctx.phase(crate::t!("view-pak-phase-harness"));
        let harness = harness_view(ctx, p, test, main, &alt, &boot);
        problems_view(ctx, p, test, &passes, &alt);

        let at = |c: &Counts, k| c.mean(k, pass_at_k);
        let (low, high) = (&counts[0], &counts[2]);
        let n = p.samples;
        ctx.log(crate::t!(
            "view-pak-log-summary",
            t = t_name(p.temperature),
            n = n.to_string(),
            p1 = format!("{:.3}", at(&counts[1], 1)),
            pn = format!("{:.3}", at(&counts[1], n)),
            hat = format!("{:.3}", counts[1].mean(n, pass_hat_k)),
            low1 = format!("{:.3}", at(low, 1)),
            tlow = t_name(p.temp_low),
            high1 = format!("{:.3}", at(high, 1)),
            thigh = t_name(p.temp_high),
            lown = format!("{:.3}", at(low, n)),
            highn = format!("{:.3}", at(high, n))
        ));

        ctx.claim("unbiased_matches_monte_carlo", est.unbiased_off)?;
        ctx.claim("naive_below_monte_carlo", est.naive_below)?;
        ctx.claim("extractor_moves_the_score", harness.extractor_shift)?;
        ctx.claim("format_moves_the_score", harness.format_shift)?;
        ctx.claim("pass_hat_k_falls", counts[1].mean(1, pass_hat_k) - counts[1].mean(n, pass_hat_k))?;
        ctx.claim("pass_at_1_falls_with_temperature", at(low, 1) - at(high, 1))?;
        ctx.claim("pass_at_n_rises_with_temperature", at(high, n) - at(low, n))?;
        Ok(())
    }

    fn open_try(p: &Params, run: &KeptRun, device: &Device) -> Result<Box<dyn TrySession>> {
        tried::open(p, run, device)
    }
}

/// Phase "sample": `samples` completions per problem in `format` at `t`.
fn sample(
    model: &Gpt,
    tok: &CharTokenizer,
    p: &Params,
    test: &[Problem],
    format: Format,
    t: f64,
    rng: &mut Rng,
) -> Result<Pass> {
    let prompts: Vec<Vec<u32>> =
        test.iter().flat_map(|q| std::iter::repeat_n(tok.encode(&format.prompt(q)), p.samples)).collect();
    let mut texts = Vec::with_capacity(prompts.len());
    for chunk in prompts.chunks(CHUNK) {
        texts.extend(addition::sample_texts(model, &Text::Chars(tok.clone()), chunk, (p.max_new, t as f32), rng)?.1);
    }
    Ok(Pass { temperature: t, format, n: p.samples, texts })
}

/// The three pass@k estimates at the main temperature (`mc[k − 1]`: the
/// Monte-Carlo draw), charted, and how far each estimator is from the draw.
fn estimators(ctx: &mut RunCtx, p: &Params, c: &Counts, mc: Vec<f64>, boot: &Bootstrap) -> EstimatorGaps {
    let t = t_name(p.temperature);
    for (k, m) in (1..=p.samples).zip(&mc) {
        ctx.metric(k, &format!("estimator/unbiased ({t})"), c.mean(k, pass_at_k));
        ctx.metric(k, &format!("estimator/naive ({t})"), c.mean(k, pass_at_k_naive));
        ctx.metric(k, &format!("estimator/monte carlo ({t})"), *m);
    }
    for (k, m) in (1..=p.samples).zip(&mc) {
        ctx.metric(k, &format!("gap/unbiased − monte carlo ({t})"), c.mean(k, pass_at_k) - m);
        ctx.metric(k, &format!("gap/naive − monte carlo ({t})"), c.mean(k, pass_at_k_naive) - m);
    }
    let e = EstimatorGaps::of(c, mc, boot, LEVEL);
    let how = match p.mc_draw {
        Draw::WithoutReplacement => crate::t!("view-pak-draw-without"),
        Draw::WithReplacement => crate::t!("view-pak-draw-with"),
    };
    ctx.log(crate::t!(
        "view-pak-log-mc",
        draws = p.mc_draws.to_string(),
        how = how,
        off = format!("{:.4}", e.unbiased_off),
        off_hw = format!("{:.2}", e.unbiased_off_hw),
        below = format!("{:.4}", e.naive_below),
        k = e.naive_k.to_string(),
        below_hw = format!("{:.2}", e.naive_below_hw)
    ));
    e
}

fn estimators_view(ctx: &mut RunCtx, p: &Params, c: &Counts, e: &EstimatorGaps, boot: &Bootstrap) {
    // The k shown: 1, 2, 4, … and n.
    let rows = doublings(p.samples)
        .into_iter()
        .map(|k| {
            let unbiased = boot.interval(&c.per_problem(k, pass_at_k), LEVEL);
            let naive = c.mean(k, pass_at_k_naive);
            vec![
                k.to_string(),
                unbiased.text(),
                format!("{naive:.3}"),
                format!("{:.3}", e.mc[k - 1]),
                format!("{:+.3}", naive - e.mc[k - 1]),
                boot.interval(&c.per_problem(k, pass_hat_k), LEVEL).text(),
            ]
        })
        .collect();
    ctx.view(View::table(
        crate::t!(
            "view-pak-estimators-title",
            t = t_name(p.temperature),
            n = p.samples.to_string(),
            problems = c.c.len().to_string()
        ),
        [
            "k".to_string(),
            crate::t!("view-pak-col-unbiased"),
            crate::t!("view-pak-col-naive"),
            "Monte Carlo".into(),
            crate::t!("view-pak-col-naive-mc"),
            "pass^k [95%]".into(),
        ],
        rows,
    ));
}

fn temperature_view(ctx: &mut RunCtx, p: &Params, passes: &[Pass], counts: &[Counts], boot: &Bootstrap) {
    let n = p.samples;
    let rows = passes
        .iter()
        .zip(counts)
        .map(|(s, c)| {
            let share = |f: &dyn Fn(usize) -> bool| c.c.iter().filter(|&&x| f(x)).count() as f64 / c.c.len() as f64;
            let hedged = s.texts.iter().filter(|t| t.contains(',')).count() as f64 / s.texts.len() as f64;
            vec![
                t_name(s.temperature),
                boot.interval(&c.per_problem(1, pass_at_k), LEVEL).text(),
                boot.interval(&c.per_problem(n, pass_at_k), LEVEL).text(),
                format!("{:.3}", c.mean(n, pass_hat_k)),
                format!("{:.3}", share(&|x| x == 0)),
                format!("{:.3}", share(&|x| x == n)),
                format!("{hedged:.3}"),
            ]
        })
        .collect();
    ctx.view(View::table(
        crate::t!("view-pak-temperature-title"),
        [
            crate::t!("view-pak-col-temperature"),
            "pass@1 [95%]".into(),
            format!("pass@{n} [95%]"),
            format!("pass^{n}"),
            "c = 0".into(),
            format!("c = {n}"),
            crate::t!("view-pak-col-hedged"),
        ],
        rows,
    ));
}

/// What the harness choices did to pass@1 at the main temperature.
struct Harness {
    /// (any number − strict) / width of strict's interval.
    extractor_shift: f64,
    /// (trained format − other format, both strict) / width of the trained format's interval.
    format_shift: f64,
}

fn harness_view(ctx: &mut RunCtx, p: &Params, test: &[Problem], main: &Pass, alt: &Pass, boot: &Bootstrap) -> Harness {
    let n = p.samples;
    let base_values = main.counts(test, Extractor::Strict).per_problem(1, pass_at_k);
    let base = boot.interval(&base_values, LEVEL);
    let mut rows = Vec::new();
    let mut row = |label: String, c: &Counts| -> Interval {
        let values = c.per_problem(1, pass_at_k);
        let i = boot.interval(&values, LEVEL);
        // The difference problem by problem, on the same resamples: a paired interval.
        let diff: Vec<f64> = values.iter().zip(&base_values).map(|(v, b)| v - b).collect();
        rows.push(vec![
            label,
            i.text(),
            format!("{:.3}", i.width()),
            boot.interval(&diff, LEVEL).signed_text(),
            format!("{:+.2}", (i.estimate - base.estimate) / base.width()),
            format!("{:.3}", c.mean(n, pass_at_k)),
        ]);
        i
    };
    let by_extractor = Extractor::ALL
        .map(|e| (e, row(crate::t!("view-pak-row-trained", extractor = e.name()), &main.counts(test, e))));
    let alt_i = row(
        crate::t!("view-pak-row-format", extractor = "strict", format = alt.format.name()),
        &alt.counts(test, Extractor::Strict),
    );
    row(
        crate::t!("view-pak-row-format", extractor = "any number", format = alt.format.name()),
        &alt.counts(test, Extractor::AnyNumber),
    );
    let example = |f: Format| f.prompt(&test[0]);
    ctx.view(View::table(
        crate::t!(
            "view-pak-harness-title",
            t = t_name(p.temperature),
            n = n.to_string(),
            trained = Format::Trained.name(),
            trained_ex = example(Format::Trained),
            alt = alt.format.name(),
            alt_ex = example(alt.format)
        ),
        [
            crate::t!("view-pak-col-extractor"),
            "pass@1 [95%]".into(),
            crate::t!("view-pak-col-width"),
            crate::t!("view-pak-col-delta"),
            crate::t!("view-pak-col-delta-widths"),
            format!("pass@{n}"),
        ],
        rows,
    ));
    let any = by_extractor.iter().find(|(e, _)| *e == Extractor::AnyNumber).map(|(_, i)| *i).unwrap_or(base);
    let h = Harness {
        extractor_shift: (any.estimate - base.estimate) / base.width(),
        format_shift: (base.estimate - alt_i.estimate) / base.width(),
    };
    ctx.log(crate::t!(
        "view-pak-log-harness",
        base = base.text(),
        width = format!("{:.3}", base.width()),
        any = format!("{:.3}", any.estimate),
        any_shift = format!("{:+.2}", h.extractor_shift),
        format = alt.format.name(),
        alt = format!("{:.3}", alt_i.estimate),
        alt_shift = format!("{:+.2}", -h.format_shift)
    ));
    h
}

/// A dozen problems from always wrong to always right at the main
/// temperature, with their c/n under each setting.
fn problems_view(ctx: &mut RunCtx, p: &Params, test: &[Problem], passes: &[Pass], alt: &Pass) {
    let n = p.samples;
    let count =
        |s: &Pass, i: usize, e: Extractor| s.completions(i).iter().filter(|t| e.accepts(t, &test[i].answer())).count();
    let mut order: Vec<usize> = (0..test.len()).collect();
    order.sort_by_key(|&i| count(&passes[1], i, Extractor::Strict));
    let shown = 12.min(order.len());
    let rows = (0..shown)
        .map(|j| {
            let i = order[j * (order.len() - 1) / (shown - 1).max(1)];
            let mut row = vec![test[i].prompt(), test[i].answer()];
            row.extend(passes.iter().map(|s| format!("{}/{n}", count(s, i, Extractor::Strict))));
            row.push(format!("{}/{n}", count(&passes[1], i, Extractor::AnyNumber)));
            row.push(format!("{}/{n}", count(alt, i, Extractor::Strict)));
            row.push(passes[1].completions(i).iter().take(4).cloned().collect::<Vec<_>>().join(" "));
            row
        })
        .collect();
    let mut header = vec![crate::t!("view-col-prompt"), crate::t!("view-col-gold")];
    header.extend(passes.iter().map(|s| format!("c/n {}", t_name(s.temperature))));
    header.push(format!("any number {}", t_name(p.temperature)));
    header.push(crate::t!("view-pak-col-format", format = alt.format.name(), t = t_name(p.temperature)));
    header.push(crate::t!("view-pak-col-first-samples", t = t_name(p.temperature)));
    ctx.view(View::table(crate::t!("view-pak-problems-title"), header, rows));
}
