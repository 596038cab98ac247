//! `self-refine-loop`: draft → critique → revise with keep-best, then a
//! STaR round that trains the model on its own verified answers.
//!
//! The task is addition (`src/envs/refine_arith.rs`): `347+285=` with the sum
//! written least significant digit first. The verifier scores an answer
//! digit by digit and writes its feedback as a one-mark-per-digit critique
//! (`.` right, `^` too low, `v` too high).
//!
//! 1. **SFT** a tiny GPT on two kinds of sequences: first drafts
//!    (`347+285=2360`) and refinement traces (`347+285=2260|.^..>2360`, a
//!    corrupted draft, its critique, the right revision; the loss covers the
//!    critique and the revision).
//! 2. **Self-Refine** (Madaan et al., arXiv:2303.17651) on held-out problems:
//!    draft greedily; critique the latest version; revise conditioned on it;
//!    keep the best version so far (`src/continual/keep_best.rs`); stop when
//!    the answer passes or after `rounds` revisions. The critic is the
//!    verifier, or (`critic = "self"`) the model writing its own critique and
//!    judging itself — the failure mode this drill measures.
//! 3. **STaR / rejection-sampling fine-tuning** (Zelikman et al.,
//!    arXiv:2203.14465): run the loop on fresh problems, keep the final
//!    answers that pass the verifier, fine-tune on them as first drafts (and
//!    on the refinement steps that produced them), and measure the
//!    first-draft pass rate again.

use anyhow::{bail, Result};

use super::{Drill, RunCtx, TokenCell, TokenKind, View};
use crate::continual::KeepBest;
use crate::envs::refine_arith::{corrupt, critique, critique_score, passes, score, Problem, ALPHABET, REV_OPEN};
use crate::ml::data::{batch, Example};
use crate::ml::gpt::{Gpt, GptConfig};
use crate::ml::loss::masked_cross_entropy;
use crate::ml::optim::{clip_grad_norm, AdamW, AdamWConfig, LrSchedule};
use crate::ml::rng::Rng;
use crate::ml::sample::{generate, GenConfig};
use crate::ml::tokenizer::{CharTokenizer, Tokenize, EOS};

pub struct SelfRefineLoop;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Critic {
    /// The verifier's feedback; keep-best and stopping use the verifier's score.
    Verifier,
    /// The model critiques itself; keep-best and stopping trust its own critique.
    Model,
}

/// `text` as a training example; `trained[i]` says whether character i is in the loss.
fn example(tok: &CharTokenizer, parts: &[(&str, bool)]) -> Example {
    let mut tokens = Vec::new();
    let mut train = Vec::new();
    for (text, trained) in parts {
        let ids = tok.encode(text);
        train.extend(std::iter::repeat_n(*trained, ids.len()));
        tokens.extend(ids);
    }
    tokens.push(EOS);
    train.push(true);
    Example::new(tokens, train)
}

fn draft_example(tok: &CharTokenizer, p: &Problem, answer: &str) -> Example {
    example(tok, &[(&p.prompt(), false), (answer, true)])
}

/// `prompt draft|critique>revision⏎`, loss on the critique and the revision.
fn refine_example(tok: &CharTokenizer, p: &Problem, draft: &str, crit: &str, revision: &str) -> Example {
    example(tok, &[(&format!("{}{draft}|", p.prompt()), false), (&format!("{crit}>{revision}"), true)])
}

/// One SFT example: a first draft, or a refinement trace from a synthetic draft.
fn sft_example(tok: &CharTokenizer, p: &Problem, draft_frac: f64, correct_frac: f64, rng: &mut Rng) -> Example {
    let gold = p.answer();
    if rng.bool(draft_frac) {
        return draft_example(tok, p, &gold);
    }
    let draft = if rng.bool(correct_frac) { gold.clone() } else { corrupt(&gold, rng) };
    refine_example(tok, p, &draft, &critique(&draft, &gold), &gold)
}

struct Gen<'a> {
    tok: &'a CharTokenizer,
    width: usize,
}

impl Gen<'_> {
    /// Greedy completions of `prompts`, as text without the stop token.
    fn complete(&self, model: &Gpt, prompts: &[String], stop: u32) -> Result<Vec<String>> {
        if prompts.is_empty() {
            return Ok(Vec::new());
        }
        let ids: Vec<Vec<u32>> = prompts.iter().map(|p| self.tok.encode(p)).collect();
        let out = generate(model, &ids, &GenConfig::greedy(self.width + 1, vec![stop, EOS]), &mut Rng::new(0))?;
        Ok(out.iter().map(|o| self.tok.decode(&o.iter().copied().filter(|&t| t != stop).collect::<Vec<_>>())).collect())
    }

    fn drafts(&self, model: &Gpt, probs: &[Problem]) -> Result<Vec<String>> {
        self.complete(model, &probs.iter().map(|p| p.prompt()).collect::<Vec<_>>(), EOS)
    }
}

/// One episode of the loop: every version, its critique, and the keep-best record.
struct Episode {
    versions: Vec<String>,
    critiques: Vec<String>,
    best: KeepBest,
    stopped: bool,
}

/// Run Self-Refine on `probs`, all episodes batched round by round.
fn refine_loop(model: &Gpt, g: &Gen, probs: &[Problem], rounds: usize, critic: Critic) -> Result<Vec<Episode>> {
    let rev_stop = g.tok.encode(&REV_OPEN.to_string())[0];
    let golds: Vec<String> = probs.iter().map(|p| p.answer()).collect();
    // Critique and selection score of one version of each listed episode.
    let judge = |idx: &[usize], texts: &[String]| -> Result<Vec<(String, f64)>> {
        match critic {
            Critic::Verifier => {
                Ok(idx.iter().zip(texts).map(|(&i, t)| (critique(t, &golds[i]), score(t, &golds[i]))).collect())
            }
            Critic::Model => {
                let prompts: Vec<String> = idx.iter().zip(texts).map(|(&i, t)| probs[i].critic_prompt(t)).collect();
                let crits = g.complete(model, &prompts, rev_stop)?;
                Ok(crits
                    .into_iter()
                    .map(|c| {
                        let s = critique_score(&c, g.width);
                        (c, s)
                    })
                    .collect())
            }
        }
    };
    let all: Vec<usize> = (0..probs.len()).collect();
    let drafts = g.drafts(model, probs)?;
    let judged = judge(&all, &drafts)?;
    let mut eps: Vec<Episode> = drafts
        .into_iter()
        .zip(judged)
        .enumerate()
        .map(|(i, (d, (c, sel)))| {
            let truth = score(&d, &golds[i]);
            let stopped = sel >= 1.0;
            Episode { best: KeepBest::new(sel, truth), versions: vec![d], critiques: vec![c], stopped }
        })
        .collect();
    for _ in 0..rounds {
        let active: Vec<usize> = (0..eps.len()).filter(|&i| !eps[i].stopped).collect();
        if active.is_empty() {
            break;
        }
        let prompts: Vec<String> = active
            .iter()
            .map(|&i| probs[i].revise_prompt(eps[i].versions.last().unwrap(), eps[i].critiques.last().unwrap()))
            .collect();
        let revisions = g.complete(model, &prompts, EOS)?;
        let judged = judge(&active, &revisions)?;
        for ((&i, rev), (c, sel)) in active.iter().zip(revisions).zip(judged) {
            let truth = score(&rev, &golds[i]);
            let e = &mut eps[i];
            e.best.push(sel, truth);
            e.stopped = sel >= 1.0;
            e.versions.push(rev);
            e.critiques.push(c);
        }
    }
    Ok(eps)
}

/// Per round t = 0..=rounds: mean score of the latest version, mean
/// best-so-far, and pass rate of the kept version (stopped episodes carry on).
fn round_stats(eps: &[Episode], rounds: usize) -> Vec<(f64, f64, f64)> {
    let n = eps.len().max(1) as f64;
    (0..=rounds)
        .map(|t| {
            let (mut latest, mut best, mut pass) = (0.0, 0.0, 0.0);
            for e in eps {
                let k = t.min(e.best.truth.len() - 1);
                latest += e.best.truth[k];
                best += e.best.kept_true[k];
                pass += (e.best.kept_true[k] >= 1.0) as u8 as f64;
            }
            (latest / n, best / n, pass / n)
        })
        .collect()
}

struct Trainer {
    vars: Vec<candle_core::Var>,
    opt: AdamW,
}

impl Trainer {
    fn new(model: &Gpt, lr: f64) -> Result<Trainer> {
        let vars: Vec<_> = model.vars().into_values().collect();
        let opt = AdamW::new(vars.clone(), AdamWConfig { lr, weight_decay: 0.0, ..Default::default() })?;
        Ok(Trainer { vars, opt })
    }

    fn step(&mut self, model: &Gpt, picks: &[&Example], lr: f64) -> Result<f64> {
        let (x, y) = batch(picks, &model.device)?;
        let loss = masked_cross_entropy(&model.forward(&x)?, &y)?;
        let v = loss.to_scalar::<f32>()? as f64;
        let mut grads = loss.backward()?;
        clip_grad_norm(&mut grads, &self.vars, 1.0)?;
        self.opt.set_lr(lr);
        self.opt.step(&grads)?;
        Ok(v)
    }
}

fn pass_rate(texts: &[String], probs: &[Problem]) -> f64 {
    texts.iter().zip(probs).filter(|(t, p)| passes(t, &p.answer())).count() as f64 / probs.len().max(1) as f64
}

impl Drill for SelfRefineLoop {
    fn id(&self) -> &'static str {
        "self-refine-loop"
    }

    fn run(&self, ctx: &mut RunCtx) -> Result<()> {
        let digits = ctx.usize("digits")?;
        let steps = ctx.usize("steps")?;
        let batch_size = ctx.usize("batch")?;
        let lr = ctx.f64("lr")?;
        let draft_frac = ctx.f64("draft_frac")?;
        let correct_frac = ctx.f64("correct_draft_frac")?;
        let rounds = ctx.usize("rounds")?;
        let critic = match ctx.text("critic")?.as_str() {
            "verifier" => Critic::Verifier,
            "self" => Critic::Model,
            other => bail!("critic must be verifier or self, got {other}"),
        };
        let test_size = ctx.usize("test_size")?;
        let star_iters = ctx.usize("star_iters")?;
        let star_problems = ctx.usize("star_problems")?;
        let star_steps = ctx.usize("star_steps")?;
        let star_lr = ctx.f64("star_lr")?;
        let verified_only = ctx.bool("star_verified_only")?;
        let (d, layers, heads) = (ctx.usize("d_model")?, ctx.usize("n_layers")?, ctx.usize("n_heads")?);
        if d % heads != 0 {
            bail!("d_model {d} must be divisible by n_heads {heads}");
        }
        if !(1..=4).contains(&digits) {
            bail!("digits must be 1 to 4, got {digits}");
        }

        ctx.phase("data");
        let tok = CharTokenizer::new(ALPHABET, &[]);
        let width = digits + 1;
        let g = Gen { tok: &tok, width };
        let mut rng = Rng::new(ctx.seed);
        let mut test_rng = rng.fork(7);
        let test: Vec<Problem> = (0..test_size).map(|_| Problem::random(digits, &mut test_rng)).collect();
        let held: std::collections::HashSet<(u32, u32)> = test.iter().map(|p| (p.a, p.b)).collect();
        // Training problems never coincide with a test problem.
        let fresh = |rng: &mut Rng| loop {
            let p = Problem::random(digits, rng);
            if !held.contains(&(p.a, p.b)) {
                return p;
            }
        };
        let shown = {
            let p = fresh(&mut rng.fork(9));
            let draft = corrupt(&p.answer(), &mut rng.fork(10));
            refine_example(&tok, &p, &draft, &critique(&draft, &p.answer()), &p.answer())
        };
        ctx.view(View::Tokens {
            title: "One refinement trace of the SFT data".into(),
            tokens: shown
                .tokens
                .iter()
                .zip(&shown.train)
                .map(|(&t, &trained)| TokenCell {
                    text: if t == EOS { "⏎".into() } else { tok.token(t).to_string() },
                    kind: if trained { TokenKind::Trained } else { TokenKind::Prompt },
                    value: None,
                })
                .collect(),
            legend:
                "prompt · synthetic draft | critique (. right, ^ too low, v too high) > revision; bright = in the loss"
                    .into(),
        });

        let cfg = GptConfig::new(tok.vocab_size(), d, layers, heads, 4 * width + 2 * digits + 8);
        let model = Gpt::new(cfg, ctx.seed, &ctx.device)?;
        ctx.log(format!(
            "{digits}-digit addition; tiny GPT: d_model {d}, {layers} layers, {heads} heads, {} parameters",
            model.num_params()
        ));

        // 1. SFT on drafts and (draft, critique, revision) traces.
        ctx.phase("sft");
        let mut trainer = Trainer::new(&model, lr)?;
        let schedule = LrSchedule { peak: lr, min: lr * 0.1, warmup: steps / 20, total: steps };
        let probe = &test[..test.len().min(128)];
        let total = steps + star_iters * star_steps;
        let mut tokens_seen = 0u64;
        for step in 0..steps {
            ctx.check_cancel()?;
            let ex: Vec<Example> = (0..batch_size)
                .map(|_| {
                    let p = fresh(&mut rng);
                    sft_example(&tok, &p, draft_frac, correct_frac, &mut rng)
                })
                .collect();
            tokens_seen += ex.iter().map(|e| e.len() as u64).sum::<u64>();
            let loss = trainer.step(&model, &ex.iter().collect::<Vec<_>>(), schedule.at(step))?;
            ctx.metric(step, "loss", ctx.finite("loss", loss, step)?);
            if (step + 1) % (steps / 5).max(1) == 0 {
                let pr = pass_rate(&g.drafts(&model, probe)?, probe);
                ctx.metric(step, "first-draft pass (SFT, probe)", pr);
            }
            ctx.progress(step + 1, total, tokens_seen);
        }

        // 2. The loop on held-out problems, with the SFT model.
        ctx.phase("self-refine");
        let eps = refine_loop(&model, &g, &test, rounds, critic)?;
        let stats = round_stats(&eps, rounds);
        for (t, (latest, best, pass)) in stats.iter().enumerate() {
            ctx.metric(t, "round: score of latest version", *latest);
            ctx.metric(t, "round: best-so-far score", *best);
            ctx.metric(t, "round: pass rate (kept)", *pass);
        }
        let first = eps.iter().map(|e| e.best.first_true()).sum::<f64>() / eps.len().max(1) as f64;
        let fin = eps.iter().map(|e| e.best.final_true()).sum::<f64>() / eps.len().max(1) as f64;
        ctx.log(format!(
            "self-refine ({} critic, {rounds} rounds) on {} held-out problems: mean score {first:.3} → {fin:.3}, pass {:.3} → {:.3}",
            if critic == Critic::Verifier { "verifier" } else { "self" },
            eps.len(),
            stats[0].2,
            stats[rounds].2
        ));
        episode_view(ctx, &test, &eps, "Self-Refine episodes (SFT model)");
        let mut monotone = eps.iter().filter(|e| e.best.is_monotone()).count();
        let mut episodes = eps.len();

        // The failure mode, always measured: the model as its own critic.
        self_critic_view(ctx, &model, &g, &test, &eps, rounds)?;

        // 3. STaR: fine-tune on the model's own verified final answers.
        let before = pass_rate(&eps.iter().map(|e| e.versions[0].clone()).collect::<Vec<_>>(), &test);
        ctx.metric(0, "STaR: first-draft pass rate", before);
        ctx.metric(0, "STaR: pass rate after refine", stats[rounds].2);
        let mut after = before;
        let mut after_first = None;
        let mut last_eps = eps;
        let mut step = steps;
        for it in 1..=star_iters {
            ctx.phase(format!("STaR round {it}"));
            let probs: Vec<Problem> = (0..star_problems).map(|_| fresh(&mut rng)).collect();
            let collected = refine_loop(&model, &g, &probs, rounds, critic)?;
            let mut data = Vec::new();
            let (mut kept, mut wrong_kept) = (0usize, 0usize);
            for (p, e) in probs.iter().zip(&collected) {
                let answer = &e.versions[e.best.best];
                // Filter: the verifier's pass, or (ablation) whatever the loop returned.
                let ok = passes(answer, &p.answer());
                if verified_only && !ok {
                    continue;
                }
                kept += 1;
                wrong_kept += (!ok) as usize;
                data.push(draft_example(&tok, p, answer));
                // The refinement step that produced the kept answer, in the model's own words.
                if e.best.best > 0 {
                    let k = e.best.best;
                    data.push(refine_example(&tok, p, &e.versions[k - 1], &e.critiques[k - 1], answer));
                }
            }
            let drafts_ok = collected.iter().zip(&probs).filter(|(e, p)| passes(&e.versions[0], &p.answer())).count();
            ctx.log(format!(
                "STaR round {it}: {star_problems} fresh problems, {drafts_ok} first drafts right, {kept} final answers kept \
                 ({wrong_kept} of them wrong), {} training sequences",
                data.len()
            ));
            if data.is_empty() {
                ctx.log("nothing to train on: the round is skipped");
                continue;
            }
            let mut trainer = Trainer::new(&model, star_lr)?;
            let schedule = LrSchedule { peak: star_lr, min: star_lr * 0.1, warmup: star_steps / 20, total: star_steps };
            for s in 0..star_steps {
                ctx.check_cancel()?;
                let picks: Vec<&Example> = (0..batch_size).map(|_| &data[rng.below(data.len())]).collect();
                tokens_seen += picks.iter().map(|e| e.len() as u64).sum::<u64>();
                let loss = trainer.step(&model, &picks, schedule.at(s))?;
                ctx.metric(step, "loss", ctx.finite("loss", loss, step)?);
                step += 1;
                ctx.progress(step, total, tokens_seen);
            }
            let eps = refine_loop(&model, &g, &test, rounds, critic)?;
            after = pass_rate(&eps.iter().map(|e| e.versions[0].clone()).collect::<Vec<_>>(), &test);
            let st = round_stats(&eps, rounds);
            after_first.get_or_insert(after);
            ctx.metric(it, "STaR: first-draft pass rate", after);
            ctx.metric(it, "STaR: pass rate after refine", st[rounds].2);
            ctx.log(format!(
                "after STaR round {it}: first-draft pass rate {after:.3}, after refine {:.3}",
                st[rounds].2
            ));
            monotone += eps.iter().filter(|e| e.best.is_monotone()).count();
            episodes += eps.len();
            last_eps = eps;
        }
        if star_iters > 0 {
            let st = round_stats(&last_eps, rounds);
            for (t, (latest, best, pass)) in st.iter().enumerate() {
                ctx.metric(t, "round after STaR: score of latest", *latest);
                ctx.metric(t, "round after STaR: best-so-far", *best);
                ctx.metric(t, "round after STaR: pass rate", *pass);
            }
        }

        ctx.phase("report");
        ctx.log(format!(
            "first-draft pass rate on {} held-out problems: {before:.3} before STaR, {:.3} after round 1, {after:.3} after round {star_iters}",
            test.len(),
            after_first.unwrap_or(before)
        ));
        ctx.claim("best_so_far_monotone", monotone as f64 / episodes.max(1) as f64)?;
        ctx.claim("refine_gain", fin - first)?;
        ctx.claim("star_gain", after_first.unwrap_or(before) - before)?;
        Ok(())
    }
}

/// A few episodes version by version.
fn episode_view(ctx: &mut RunCtx, probs: &[Problem], eps: &[Episode], title: &str) {
    let mut rows = Vec::new();
    for (p, e) in probs.iter().zip(eps).filter(|(_, e)| e.versions.len() > 1).take(12) {
        let trail: Vec<String> =
            e.versions.iter().zip(&e.critiques).map(|(v, c)| format!("{v} [{c}]")).collect::<Vec<_>>();
        rows.push(vec![
            p.prompt(),
            p.answer(),
            trail.join(" → "),
            format!("{:.2} → {:.2}", e.best.first_true(), e.best.final_true()),
        ]);
    }
    ctx.view(View::Table {
        title: title.into(),
        header: vec!["problem".into(), "gold".into(), "versions [critique]".into(), "score".into()],
        rows,
    });
}

/// Let the model critique its own first drafts and run the loop trusting it:
/// how often does it approve its own mistakes, and what happens to the scores.
fn self_critic_view(
    ctx: &mut RunCtx,
    model: &Gpt,
    g: &Gen,
    probs: &[Problem],
    verifier_eps: &[Episode],
    rounds: usize,
) -> Result<()> {
    let eps = refine_loop(model, g, probs, rounds, Critic::Model)?;
    let (mut wrong, mut approved_wrong, mut right, mut flagged_right) = (0, 0, 0, 0);
    for (p, e) in probs.iter().zip(&eps) {
        let ok = passes(&e.versions[0], &p.answer());
        let approves = critique_score(&e.critiques[0], g.width) >= 1.0;
        if ok {
            right += 1;
            flagged_right += (!approves) as usize;
        } else {
            wrong += 1;
            approved_wrong += approves as usize;
        }
    }
    for t in 0..=rounds {
        let n = eps.len().max(1) as f64;
        // What the loop believes its kept answer scores (its own best critique so far)…
        let believed = eps
            .iter()
            .map(|e| {
                let k = t.min(e.best.select.len() - 1);
                e.best.select[..=k].iter().cloned().fold(0.0, f64::max)
            })
            .sum::<f64>()
            / n;
        // …and what the verifier says the kept answer scores.
        let truth = eps.iter().map(|e| e.best.kept_true[t.min(e.best.kept_true.len() - 1)]).sum::<f64>() / n;
        ctx.metric(t, "self-critic: believed best score", believed);
        ctx.metric(t, "self-critic: true score of kept", truth);
    }
    let fall = eps.iter().filter(|e| !e.best.is_monotone()).count();
    let mean = |xs: &mut dyn Iterator<Item = f64>| {
        let v: Vec<f64> = xs.collect();
        v.iter().sum::<f64>() / v.len().max(1) as f64
    };
    let self_final = mean(&mut eps.iter().map(|e| e.best.final_true()));
    let ver_final = mean(&mut verifier_eps.iter().map(|e| e.best.final_true()));
    let first = mean(&mut eps.iter().map(|e| e.best.first_true()));
    let frac = |a: usize, b: usize| if b > 0 { format!("{:.3} ({a}/{b})", a as f64 / b as f64) } else { "–".into() };
    ctx.log(format!(
        "self-critic: approves {approved_wrong} of {wrong} wrong first drafts; true score {first:.3} → {self_final:.3} \
         (verifier critic: → {ver_final:.3}); kept answer got worse in {fall} episodes"
    ));
    ctx.view(View::Table {
        title: "The model as its own critic (no verifier in the loop)".into(),
        header: vec!["measure".into(), "value".into()],
        rows: vec![
            vec!["wrong drafts it approves (agrees with its mistake)".into(), frac(approved_wrong, wrong)],
            vec!["right drafts it flags (false alarm)".into(), frac(flagged_right, right)],
            vec!["mean true score: first draft".into(), format!("{first:.3}")],
            vec!["mean true score: kept, self critic".into(), format!("{self_final:.3}")],
            vec!["mean true score: kept, verifier critic".into(), format!("{ver_final:.3}")],
            vec!["episodes whose kept answer got worse".into(), frac(fall, eps.len())],
        ],
    });
    Ok(())
}
