//! `reward-model-overopt`: a Bradley–Terry reward model trained on
//! preference pairs, and best-of-n against it — the proxy reward keeps
//! rising with n while the true (gold) reward peaks and falls ("Scaling Laws
//! for Reward Model Overoptimization", Gao, Schulman & Hilton,
//! arXiv:2210.10760).
//!
//! The task is addition (`src/envs/refine_arith.rs`): `47+85=` with the sum
//! written least significant digit first (`231`). The SFT data follow an
//! answer with a few filler dots (`231..`), as many as a geometric draw
//! gives, whether the answer is right or not. The gold reward is exact:
//! 1 for the right sum, 0 otherwise, minus `dot_cost` per dot (padding is
//! worth nothing). Phases of `run`:
//!
//! 1. **data** — held-out problems; fresh ones for the pairs.
//! 2. **sft** — a tiny GPT learns the format from data in which a share
//!    `habit_rate` of the answers drop every carry, so its samples mix right
//!    and wrong answers.
//! 3. **samples** — `samples` answers per held-out prompt, drawn once: the
//!    pool every best-of-n below is computed from.
//! 4. **pairs** — the preference set: on fresh prompts, a right answer is
//!    chosen over a wrong one (the gold reward's verdict), but the pipeline
//!    that picks the pairs favours a longer chosen answer (`length_bias`):
//!    the dots predict the label in the set, though the gold reward does not
//!    pay for them. The small set is the first `pairs_small` pairs of the
//!    large one.
//! 5. **reward models** — two RMs (the SFT model's trunk, its score read at
//!    the last token), one per set, trained side by side with the
//!    Bradley–Terry loss `−log σ(r_c − r_r)` (or the learner's
//!    `bradley_terry`); held-out pair accuracy charted as they train, and
//!    at the end split by what the dots say: accuracy on the held-out pairs
//!    whose chosen answer has more dots, as many, or fewer.
//! 6. **best-of-n** — every held-out sample scored by each RM; for n = 1…N
//!    the unbiased order-statistics estimator gives the proxy and the gold
//!    reward of the best-of-n pick (`src/rl/reward_model.rs`), at
//!    KL_bon = ln n − (n − 1)/n (an upper bound where samples repeat).

use anyhow::{bail, Result};
use candle_core::Tensor;
use serde::Deserialize;

use super::keep::Role as Arms;
use super::try_it::{KeptRun, TrySession};

use super::pipeline::{self, no_probe, Batches, Sft};
use super::{check_heads, RunCtx, TypedDrill, View};
use crate::envs::refine_arith::Problem;
use crate::ml::data::Example;
use crate::ml::gpt::{Gpt, GptConfig};
use crate::ml::rng::Rng;
use crate::ml::sample::{generate, Decoding, GenConfig};
use crate::ml::tokenizer::{CharTokenizer, Tokenize, EOS, PAD};
use crate::ml::train::{TrainConfig, Trainer};
use crate::numbers::mean;
use crate::rl::reward_model::{best_of_n_curve, bt_loss, kl_bon};
use crate::rl::sequences::Seq;

mod tried;

pub struct RewardModelOveropt;

/// Where the reward model starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RmInit {
    /// A copy of the SFT model (the usual practice).
    Sft,
    /// A freshly initialised GPT of the same shape.
    Scratch,
}

/// `drills/reward-model-overopt/drill.toml`, typed.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Params {
    pub digits: usize,
    pub sft_steps: usize,
    pub sft_batch: usize,
    pub sft_lr: f64,
    pub habit_rate: f64,
    pub dot_rate: f64,
    pub max_dots: usize,
    pub dot_cost: f64,
    pub test_size: usize,
    pub samples: usize,
    pub temperature: f64,
    pub pair_samples: usize,
    pub pairs_small: usize,
    pub pairs_large: usize,
    pub length_bias: f64,
    pub rm_init: RmInit,
    pub rm_steps: usize,
    pub rm_batch: usize,
    pub rm_lr: f64,
    pub evals: usize,
    pub d_model: usize,
    pub n_layers: usize,
    pub n_heads: usize,
}

const ALPHABET: &str = "0123456789+=.";
/// The token whose logit at the last position is the reward model's score
/// (never written by the policy: a linear head on the trunk's last state).
const SCORE: &str = "<score>";

/// The task's text and token plumbing.
struct Task {
    tok: CharTokenizer,
    width: usize,
    score: u32,
}

/// One sampled answer and what the gold reward makes of it.
#[derive(Debug, Clone)]
struct Sample {
    seq: Seq,
    text: String,
    right: bool,
    dots: usize,
    gold: f64,
}

impl Task {
    fn prompt_ids(&self, q: &Problem) -> Vec<u32> {
        self.tok.encode(&q.prompt())
    }

    /// `n` sampled answers per problem, judged by the gold reward.
    fn sample(&self, model: &Gpt, probs: &[Problem], n: usize, p: &Params, rng: &mut Rng) -> Result<Vec<Sample>> {
        let rows: Vec<Problem> = probs.iter().flat_map(|q| std::iter::repeat_n(*q, n)).collect();
        let decoding = Decoding::Sample { temperature: p.temperature as f32, top_k: None, top_p: None };
        let cfg = GenConfig::new(self.width + p.max_dots + 2, decoding, vec![EOS]);
        let mut out = Vec::with_capacity(rows.len());
        for chunk in rows.chunks(512) {
            let prompts: Vec<Vec<u32>> = chunk.iter().map(|q| self.prompt_ids(q)).collect();
            let responses = generate(model, &prompts, &cfg, rng)?;
            for ((prompt, response), q) in prompts.into_iter().zip(responses).zip(chunk) {
                let text = self.tok.decode(&response.iter().copied().filter(|&t| t != EOS).collect::<Vec<_>>());
                let (right, dots) = judge(&text, q);
                let gold = f64::from(u8::from(right)) - p.dot_cost * dots as f64;
                out.push(Sample { seq: Seq { prompt, response }, text, right, dots, gold });
            }
        }
        Ok(out)
    }
}

/// The gold reward's reading of an answer: is the sum right (trailing dots
/// aside), and how many trailing dots it carries.
fn judge(text: &str, q: &Problem) -> (bool, usize) {
    let core = text.trim_end_matches('.');
    (core == q.answer(), text.len() - core.len())
}

/// A preference pair: the chosen answer has the higher gold reward.
#[derive(Debug, Clone)]
struct Pair {
    chosen: Sample,
    rejected: Sample,
}

/// The training pairs and how they were drawn.
struct PairSet {
    pairs: Vec<Pair>,
    prompts: usize,
    /// Share of pairs whose chosen answer has more dots than the rejected.
    chosen_longer: f64,
}

/// Fresh prompts until `want` pairs: per prompt, a right answer chosen over a
/// wrong one; with probability `length_bias` only a pair whose chosen answer
/// is the longer one is kept (none: the prompt is skipped).
fn build_pairs(
    task: &Task,
    model: &Gpt,
    p: &Params,
    fresh: &mut dyn FnMut(&mut Rng) -> Problem,
    rng: &mut Rng,
) -> Result<PairSet> {
    let mut set = PairSet { pairs: Vec::new(), prompts: 0, chosen_longer: 0.0 };
    let k = p.pair_samples;
    // Each round asks for more prompts than pairs still missing; a limit stops a setting that yields none.
    for _ in 0..64 {
        let missing = p.pairs_large - set.pairs.len();
        if missing == 0 {
            break;
        }
        let probs: Vec<Problem> = (0..(2 * missing).max(64)).map(|_| fresh(rng)).collect();
        let samples = task.sample(model, &probs, k, p, rng)?;
        for group in samples.chunks(k) {
            set.prompts += 1;
            let right: Vec<usize> = (0..k).filter(|&i| group[i].right).collect();
            let wrong: Vec<usize> = (0..k).filter(|&i| !group[i].right).collect();
            if right.is_empty() || wrong.is_empty() {
                continue;
            }
            let longer: Vec<(usize, usize)> = right
                .iter()
                .flat_map(|&c| wrong.iter().map(move |&r| (c, r)))
                .filter(|&(c, r)| group[c].dots > group[r].dots)
                .collect();
            let (c, r) = if rng.bool(p.length_bias) {
                if longer.is_empty() {
                    continue;
                }
                *rng.choose(&longer)
            } else {
                (*rng.choose(&right), *rng.choose(&wrong))
            };
            set.pairs.push(Pair { chosen: group[c].clone(), rejected: group[r].clone() });
            if set.pairs.len() == p.pairs_large {
                break;
            }
        }
    }
    if set.pairs.len() < p.pairs_large {
        bail!(crate::t!(
            "setup-rm-few-pairs",
            got = set.pairs.len().to_string(),
            prompts = set.prompts.to_string(),
            want = p.pairs_large.to_string()
        ));
    }
    set.chosen_longer =
        set.pairs.iter().filter(|x| x.chosen.dots > x.rejected.dots).count() as f64 / set.pairs.len() as f64;
    Ok(set)
}

/// The reward model's score of each sequence: the `<score>` logit at its last token.
fn scores(rm: &Gpt, task: &Task, seqs: &[&Seq]) -> Result<Tensor> {
    let tmax = seqs.iter().map(|s| s.prompt.len() + s.response.len()).max().unwrap_or(1);
    let mut ids = Vec::with_capacity(seqs.len() * tmax);
    let mut last = Vec::with_capacity(seqs.len());
    for (row, s) in seqs.iter().enumerate() {
        let len = s.prompt.len() + s.response.len();
        ids.extend(s.prompt.iter().chain(&s.response).copied().chain(std::iter::repeat(PAD)).take(tmax));
        last.push((row * tmax + len - 1) as u32);
    }
    let x = Tensor::from_vec(ids, (seqs.len(), tmax), &rm.device)?;
    let logits = rm.forward(&x)?; // [B,T,V]; right padding never reaches an earlier position
    let v = logits.dim(2)?;
    let rows = logits.reshape((seqs.len() * tmax, v))?.index_select(&Tensor::new(last, &rm.device)?, 0)?;
    Ok(rows.narrow(1, task.score as usize, 1)?.squeeze(1)?)
}

/// [`scores`] as numbers, in chunks of 512.
fn scores_of(rm: &Gpt, task: &Task, seqs: &[&Seq]) -> Result<Vec<f64>> {
    let mut out = Vec::with_capacity(seqs.len());
    for chunk in seqs.chunks(512) {
        out.extend(scores(rm, task, chunk)?.detach().to_vec1::<f32>()?.into_iter().map(f64::from));
    }
    Ok(out)
}

/// Held-out pairs (one per held-out prompt that has a right and a wrong
/// sample, drawn without any length preference) and how an RM orders them.
struct Heldout {
    pairs: Vec<Pair>,
}

/// How an RM orders the held-out pairs: overall, and split by what the dots
/// say about the pair.
#[derive(Debug, Clone, Copy, Default)]
struct PairAcc {
    /// Share of held-out pairs the RM orders right.
    all: f64,
    /// Accuracy and count on the pairs whose chosen answer has more dots
    /// (the dots point to the right answer).
    longer: (f64, usize),
    /// … on the pairs with as many dots on both sides (the dots say nothing:
    /// only the sum can decide).
    tied: (f64, usize),
    /// … on the pairs whose chosen answer has fewer dots (the dots point the
    /// wrong way).
    shorter: (f64, usize),
}

impl PairAcc {
    /// Accuracy on chosen-longer pairs minus on dot-tied pairs: how much the
    /// dots add to what the RM gets right. About 0 for an RM that reads the
    /// sum alone; up to 1 for one that reads only dots (it orders every
    /// chosen-longer pair right and cannot order a tie: `a > b` fails).
    fn dot_gap(&self) -> f64 {
        self.longer.0 - self.tied.0
    }
}

fn pair_accuracy(rm: &Gpt, task: &Task, h: &Heldout) -> Result<PairAcc> {
    let c: Vec<&Seq> = h.pairs.iter().map(|x| &x.chosen.seq).collect();
    let r: Vec<&Seq> = h.pairs.iter().map(|x| &x.rejected.seq).collect();
    let (sc, sr) = (scores_of(rm, task, &c)?, scores_of(rm, task, &r)?);
    let dots: Vec<(usize, usize)> = h.pairs.iter().map(|x| (x.chosen.dots, x.rejected.dots)).collect();
    Ok(PairAcc::of(&dots, &sc, &sr))
}

impl PairAcc {
    /// The accuracies of scores `sc` (chosen) and `sr` (rejected) on pairs
    /// whose (chosen, rejected) dot counts are `dots`: a pair is ordered
    /// right when the chosen answer scores strictly higher.
    fn of(dots: &[(usize, usize)], sc: &[f64], sr: &[f64]) -> PairAcc {
        // [right, seen] per group: chosen longer, tied, shorter.
        let mut groups = [[0usize; 2]; 3];
        let mut all = 0usize;
        for ((&(dc, dr), a), b) in dots.iter().zip(sc).zip(sr) {
            let ok = usize::from(a > b);
            all += ok;
            let g = match dc.cmp(&dr) {
                std::cmp::Ordering::Greater => 0,
                std::cmp::Ordering::Equal => 1,
                std::cmp::Ordering::Less => 2,
            };
            groups[g][0] += ok;
            groups[g][1] += 1;
        }
        let acc = |[right, seen]: [usize; 2]| (right as f64 / seen.max(1) as f64, seen);
        PairAcc {
            all: all as f64 / dots.len().max(1) as f64,
            longer: acc(groups[0]),
            tied: acc(groups[1]),
            shorter: acc(groups[2]),
        }
    }
}

/// One reward model, trained on `pairs`.
struct Rm {
    model: Gpt,
    acc: PairAcc,
}

/// Train a reward model on `pairs` with the Bradley–Terry loss (or the
/// learner's `bradley_terry`), charting its loss and held-out pair accuracy as `… · arm`.
fn train_rm(
    ctx: &mut RunCtx,
    p: &Params,
    task: &Task,
    start: &Gpt,
    pairs: &[Pair],
    held: &Heldout,
    arm: &str,
    bar: (usize, usize),
) -> Result<Rm> {
    let model = match p.rm_init {
        RmInit::Sft => start.fork(ctx.seed)?,
        RmInit::Scratch => Gpt::new(start.cfg.clone(), ctx.seed ^ 0x4d52, &ctx.device)?,
    };
    ctx.keep_live(&format!("rm-{arm}"), Arms::Trained, &model)?;
    let mut trainer =
        Trainer::for_model(&model, TrainConfig::cosine(p.rm_lr, pipeline::warmup(p.rm_steps), p.rm_steps))?;
    let mut rng = Rng::new(ctx.seed ^ 0xb7);
    let eval_every = (p.rm_steps / p.evals.max(1)).max(1);
    let acc = pair_accuracy(&model, task, held)?;
    ctx.metric(0, &format!("held-out pair accuracy · {arm}"), acc.all);
    let mut last = acc;
    for step in 0..p.rm_steps {
        ctx.check_cancel()?;
        let idx: Vec<usize> = (0..p.rm_batch).map(|_| rng.below(pairs.len())).collect();
        let seqs: Vec<&Seq> =
            idx.iter().map(|&i| &pairs[i].chosen.seq).chain(idx.iter().map(|&i| &pairs[i].rejected.seq)).collect();
        let r = scores(&model, task, &seqs)?;
        let b = idx.len();
        let (rc, rr) = (r.narrow(0, 0, b)?, r.narrow(0, b, b)?);
        let (loss, shown) = match plugged_loss(ctx, &rc, &rr)? {
            Some(yours) => yours,
            None => {
                let l = bt_loss(&rc, &rr)?;
                let v = l.to_scalar::<f32>()? as f64;
                (l, v)
            }
        };
        trainer.step(&loss, "Bradley–Terry loss")?;
        let won =
            (rc.detach().to_vec1::<f32>()?.iter().zip(rr.detach().to_vec1::<f32>()?)).filter(|(a, b)| *a > b).count();
        ctx.metric(step, &format!("rm loss · {arm}"), ctx.finite("Bradley–Terry loss", shown, step)?);
        ctx.metric(step, &format!("train pair accuracy · {arm}"), won as f64 / b as f64);
        if (step + 1) % eval_every == 0 || step + 1 == p.rm_steps {
            last = pair_accuracy(&model, task, held)?;
            ctx.metric(step + 1, &format!("held-out pair accuracy · {arm}"), last.all);
        }
        ctx.progress(bar.0 + step + 1, bar.1, 0);
    }
    Ok(Rm { model, acc: last })
}

/// The learner's `bradley_terry` as a loss with the same gradient: each pair's
/// derivatives (by central differences of the learner's function) times the
/// scores, averaged. Also the mean of the learner's values, to chart.
fn plugged_loss(ctx: &RunCtx, rc: &Tensor, rr: &Tensor) -> Result<Option<(Tensor, f64)>> {
    let (c, r) = (rc.detach().to_vec1::<f32>()?, rr.detach().to_vec1::<f32>()?);
    let Some(out) = ctx.plugs.bradley_terry(&c, &r) else { return Ok(None) };
    let (values, dc, dr) = out?;
    let b = c.len().max(1) as f64;
    let dev = rc.device();
    let gc = Tensor::from_vec(dc.iter().map(|g| (*g as f64 / b) as f32).collect::<Vec<_>>(), c.len(), dev)?;
    let gr = Tensor::from_vec(dr.iter().map(|g| (*g as f64 / b) as f32).collect::<Vec<_>>(), r.len(), dev)?;
    let surrogate = ((rc * gc)?.sum_all()? + (rr * gr)?.sum_all()?)?;
    Ok(Some((surrogate, values.iter().map(|&v| v as f64).sum::<f64>() / b)))
}

/// Best-of-n over the held-out pool for n = 1..=samples: mean over prompts
/// of the proxy and of the gold reward of the pick.
struct Bon {
    proxy: Vec<f64>,
    gold: Vec<f64>,
    /// Mean dots of the pick.
    dots: Vec<f64>,
    /// Share of picks that are right.
    right: Vec<f64>,
}

fn best_of_n(proxy: &[f64], pool: &[Sample], n: usize) -> Bon {
    let prompts = pool.len() / n;
    let mut acc = Bon { proxy: vec![0.0; n], gold: vec![0.0; n], dots: vec![0.0; n], right: vec![0.0; n] };
    for (group, pr) in pool.chunks(n).zip(proxy.chunks(n)) {
        let gold: Vec<f64> = group.iter().map(|s| s.gold).collect();
        let dots: Vec<f64> = group.iter().map(|s| s.dots as f64).collect();
        let right: Vec<f64> = group.iter().map(|s| f64::from(u8::from(s.right))).collect();
        for (dst, vals) in
            [(&mut acc.proxy, pr.to_vec()), (&mut acc.gold, gold), (&mut acc.dots, dots), (&mut acc.right, right)]
        {
            for (d, v) in dst.iter_mut().zip(best_of_n_curve(pr, &vals)) {
                *d += v / prompts as f64;
            }
        }
    }
    acc
}

/// The n at which `curve` (index n − 1) is highest, and its value.
fn peak(curve: &[f64]) -> (usize, f64) {
    curve.iter().enumerate().fold((1, f64::MIN), |(bn, bv), (i, &v)| if v > bv { (i + 1, v) } else { (bn, bv) })
}

impl TypedDrill for RewardModelOveropt {
    const ID: &'static str = "reward-model-overopt";
    const CLAIMS: &'static [&'static str] = &[
        "large_gold_falls_after_peak",
        "large_gold_rises_first",
        "large_rm_heldout_accuracy",
        "large_rm_leans_on_dots",
        "large_set_higher_peak",
        "large_set_keeps_gold",
        "peak_later_with_more_pairs",
        "small_gold_falls_after_peak",
        "small_rm_leans_on_dots",
        "small_rm_leans_on_dots_more",
    ];
    type Params = Params;

    fn validate(p: &Params) -> Result<(), String> {
        check_heads(p.d_model, p.n_heads)?;
        if p.pairs_small > p.pairs_large {
            return Err(crate::t!(
                "setup-rm-pairs",
                small = p.pairs_small.to_string(),
                large = p.pairs_large.to_string()
            ));
        }
        if p.dot_cost * p.max_dots as f64 >= 1.0 {
            return Err(crate::t!("setup-rm-dots", product = (p.dot_cost * p.max_dots as f64).to_string()));
        }
        super::addition::check_held(p.digits, "test_size", p.test_size)?;
        if p.evals > p.rm_steps {
            return Err(crate::t!("setup-rm-evals", evals = p.evals.to_string(), steps = p.rm_steps.to_string()));
        }
        Ok(())
    }

    fn run(&self, p: &Params, ctx: &mut RunCtx) -> Result<()> {
        let tok = CharTokenizer::new(ALPHABET, &[SCORE]);
        let score = tok.id_of(SCORE).expect("the score token");
        let task = Task { tok, width: p.digits + 1, score };
        let mut rng = Rng::new(ctx.seed);
        let total = p.sft_steps + p.rm_steps;

        ctx.phase(crate::t!("view-phase-data"));
        let mut test_rng = rng.fork(7);
        let test: Vec<Problem> = {
            let mut seen = std::collections::BTreeSet::new();
            let mut v = Vec::new();
            while v.len() < p.test_size {
                let q = Problem::random(p.digits, &mut test_rng);
                if seen.insert((q.a, q.b)) {
                    v.push(q);
                }
            }
            v
        };
        let held_set: std::collections::BTreeSet<(u32, u32)> = test.iter().map(|q| (q.a, q.b)).collect();
        let mut fresh = |rng: &mut Rng| loop {
            let q = Problem::random(p.digits, rng);
            if !held_set.contains(&(q.a, q.b)) {
                return q;
            }
        };

        // SFT: the format, the carry habit, and dots after any answer.
        ctx.phase(crate::t!("view-phase-sft"));
        let cfg =
            GptConfig::new(task.tok.vocab_size(), p.d_model, p.n_layers, p.n_heads, 3 * p.digits + p.max_dots + 6);
        let sft = Gpt::new(cfg, ctx.seed, &ctx.device)?;
        let gpt = crate::t!(
            "view-log-tiny-gpt",
            d = p.d_model.to_string(),
            layers = p.n_layers.to_string(),
            heads = p.n_heads.to_string(),
            params = sft.num_params().to_string(),
            size = crate::numbers::count_short(sft.num_params())
        );
        ctx.log(crate::t!("view-rmo-log-sft", digits = p.digits.to_string(), gpt = gpt));
        let batches = Batches::fresh(|rng: &mut Rng| {
            (0..p.sft_batch)
                .map(|_| {
                    let q = fresh(rng);
                    let mut answer = if rng.bool(p.habit_rate) { q.carry_dropped() } else { q.answer() };
                    let mut dots = 0;
                    while dots < p.max_dots && rng.bool(p.dot_rate) {
                        dots += 1;
                    }
                    answer.push_str(&".".repeat(dots));
                    let ids = [task.tok.encode(&answer), vec![EOS]].concat();
                    Example::prompt_answer(&task.prompt_ids(&q), &ids)
                })
                .collect()
        });
        let s = Sft::new(p.sft_steps, p.sft_lr).within(0, total);
        pipeline::sft(ctx, &sft, &s, batches, &mut rng, no_probe)?;
        ctx.keep(tried::POLICY, Arms::Start, &sft)?;

        // The pool best-of-n draws from, and the held-out pairs.
        ctx.phase(crate::t!("view-rmo-phase-samples"));
        let pool = task.sample(&sft, &test, p.samples, p, &mut rng.fork(11))?;
        let right_share = mean(&pool.iter().map(|s| f32::from(u8::from(s.right))).collect::<Vec<_>>());
        ctx.setup_check(&crate::t!("view-rmo-check-mix"), right_share > 0.05 && right_share < 0.95, || {
            crate::t!("view-rmo-check-mix-why", share = format!("{right_share:.3}"))
        })?;
        let mut pick_rng = rng.fork(13);
        let held = Heldout {
            pairs: pool
                .chunks(p.samples)
                .filter_map(|g| {
                    let right: Vec<&Sample> = g.iter().filter(|s| s.right).collect();
                    let wrong: Vec<&Sample> = g.iter().filter(|s| !s.right).collect();
                    if right.is_empty() || wrong.is_empty() {
                        return None;
                    }
                    let c = (*pick_rng.choose(&right)).clone();
                    Some(Pair { chosen: c, rejected: (*pick_rng.choose(&wrong)).clone() })
                })
                .collect(),
        };
        if held.pairs.is_empty() {
            bail!(crate::t!("setup-rm-no-held-pairs"));
        }

        ctx.phase(crate::t!("view-rmo-phase-pairs"));
        let set = build_pairs(&task, &sft, p, &mut fresh, &mut rng.fork(17))?;
        pairs_view(ctx, p, &task, &set, &pool, &held);

        ctx.phase(crate::t!("view-rmo-phase-rm"));
        let (small_pairs, large_pairs) = (&set.pairs[..p.pairs_small], &set.pairs[..]);
        let (small, large) = pipeline::side_by_side(
            ctx,
            |ctx| train_rm(ctx, p, &task, &sft, small_pairs, &held, "small", (p.sft_steps, total)),
            |ctx| train_rm(ctx, p, &task, &sft, large_pairs, &held, "large", (p.sft_steps, total)),
        )?;

        ctx.phase(crate::t!("view-rmo-phase-bon"));
        let seqs: Vec<&Seq> = pool.iter().map(|s| &s.seq).collect();
        let proxy_small = scores_of(&small.model, &task, &seqs)?;
        let proxy_large = scores_of(&large.model, &task, &seqs)?;
        let gold_only: Vec<f64> = pool.iter().map(|s| s.gold).collect();
        let bs = best_of_n(&proxy_small, &pool, p.samples);
        let bl = best_of_n(&proxy_large, &pool, p.samples);
        let oracle = best_of_n(&gold_only, &pool, p.samples);
        for n in 1..=p.samples {
            ctx.metric(n, "gold · small", bs.gold[n - 1]);
            ctx.metric(n, "gold · large", bl.gold[n - 1]);
            ctx.metric(n, "proxy gain · small", bs.proxy[n - 1] - bs.proxy[0]);
            ctx.metric(n, "proxy gain · large", bl.proxy[n - 1] - bl.proxy[0]);
            ctx.metric(n, "dots of the pick · small", bs.dots[n - 1]);
            ctx.metric(n, "dots of the pick · large", bl.dots[n - 1]);
        }
        bon_view(ctx, p, &bs, &bl, &oracle);

        ctx.phase(crate::t!("view-phase-report"));
        let big_n = p.samples;
        let (n_peak, g_peak) = peak(&bs.gold);
        let (n_peak_large, _) = peak(&bl.gold);
        ctx.log(crate::t!(
            "view-rmo-log-report",
            n = big_n.to_string(),
            kl = format!("{:.2}", kl_bon(big_n)),
            g1 = format!("{:.3}", bs.gold[0]),
            peak = format!("{g_peak:.3}"),
            npeak = n_peak.to_string(),
            gs = format!("{:.3}", bs.gold[big_n - 1]),
            gl = format!("{:.3}", bl.gold[big_n - 1]),
            nl = n_peak_large.to_string(),
            acc_s = format!("{:.3}", small.acc.all),
            acc_l = format!("{:.3}", large.acc.all),
            ls = format!("{:.3}", small.acc.longer.0),
            ts = format!("{:.3}", small.acc.tied.0),
            ll = format!("{:.3}", large.acc.longer.0),
            tl = format!("{:.3}", large.acc.tied.0)
        ));
        rm_view(ctx, p, &small, &large, &bs, &bl);
        let (_, g_peak_large) = peak(&bl.gold);
        ctx.claim("large_gold_rises_first", g_peak_large - bl.gold[0])?;
        ctx.claim("large_gold_falls_after_peak", g_peak_large - bl.gold[big_n - 1])?;
        ctx.claim("small_gold_falls_after_peak", g_peak - bs.gold[big_n - 1])?;
        ctx.claim("large_set_higher_peak", g_peak_large - g_peak)?;
        ctx.claim("large_set_keeps_gold", bl.gold[big_n - 1] - bs.gold[big_n - 1])?;
        ctx.claim("large_rm_heldout_accuracy", large.acc.all)?;
        ctx.claim("peak_later_with_more_pairs", n_peak_large as f64 - n_peak as f64)?;
        ctx.claim("small_rm_leans_on_dots", small.acc.dot_gap())?;
        ctx.claim("large_rm_leans_on_dots", large.acc.dot_gap())?;
        ctx.claim("small_rm_leans_on_dots_more", small.acc.dot_gap() - large.acc.dot_gap())?;
        Ok(())
    }

    fn open_try(p: &Params, run: &KeptRun, device: &candle_core::Device) -> Result<Box<dyn TrySession>> {
        tried::open(p, run, device)
    }
}

fn pairs_view(ctx: &mut RunCtx, p: &Params, task: &Task, set: &PairSet, pool: &[Sample], held: &Heldout) {
    let share = |xs: &[Sample], f: &dyn Fn(&Sample) -> bool| xs.iter().filter(|s| f(s)).count() as f64;
    let right = share(pool, &|s| s.right) / pool.len().max(1) as f64;
    let mean_dots = pool.iter().map(|s| s.dots as f64).sum::<f64>() / pool.len().max(1) as f64;
    let held_longer =
        held.pairs.iter().filter(|x| x.chosen.dots > x.rejected.dots).count() as f64 / held.pairs.len().max(1) as f64;
    let small_longer = set.pairs[..p.pairs_small].iter().filter(|x| x.chosen.dots > x.rejected.dots).count() as f64
        / p.pairs_small.max(1) as f64;
    ctx.view(View::table(
        crate::t!("view-rmo-pairs-title", bias = p.length_bias.to_string()),
        [String::new(), crate::t!("view-rmo-col-pairs"), crate::t!("view-rmo-col-chosen-longer")],
        vec![
            vec![crate::t!("view-rmo-row-small"), p.pairs_small.to_string(), format!("{small_longer:.3}")],
            vec![crate::t!("view-rmo-row-large"), set.pairs.len().to_string(), format!("{:.3}", set.chosen_longer)],
            vec![crate::t!("view-rmo-row-heldout"), held.pairs.len().to_string(), format!("{held_longer:.3}")],
        ],
    ));
    let rows: Vec<Vec<String>> = set
        .pairs
        .iter()
        .take(8)
        .map(|x| {
            vec![
                task.tok.decode(&x.chosen.seq.prompt),
                format!("{} ({:+.2})", x.chosen.text, x.chosen.gold),
                format!("{} ({:+.2})", x.rejected.text, x.rejected.gold),
            ]
        })
        .collect();
    ctx.view(View::table(
        crate::t!("view-rmo-examples-title"),
        [crate::t!("view-col-prompt"), crate::t!("view-rmo-col-chosen"), crate::t!("view-rmo-col-rejected")],
        rows,
    ));
    ctx.log(crate::t!(
        "view-rmo-log-pairs",
        pairs = set.pairs.len().to_string(),
        prompts = set.prompts.to_string(),
        longer = format!("{:.3}", set.chosen_longer),
        right = format!("{right:.3}"),
        dots = format!("{mean_dots:.2}"),
        samples = p.samples.to_string(),
        test = p.test_size.to_string()
    ));
}

/// The best-of-n table: a few n, their KL_bon, proxy and gold of both arms, and the oracle.
fn bon_view(ctx: &mut RunCtx, p: &Params, bs: &Bon, bl: &Bon, oracle: &Bon) {
    let mut ns: Vec<usize> = [1, 2, 4, 8, 16, 32, 64, 128, 256].into_iter().filter(|&n| n < p.samples).collect();
    ns.push(p.samples);
    let rows = ns
        .into_iter()
        .map(|n| {
            let i = n - 1;
            vec![
                n.to_string(),
                format!("{:.2}", kl_bon(n)),
                format!("{:+.2}", bs.proxy[i] - bs.proxy[0]),
                format!("{:.3}", bs.gold[i]),
                format!("{:.2}", bs.dots[i]),
                format!("{:+.2}", bl.proxy[i] - bl.proxy[0]),
                format!("{:.3}", bl.gold[i]),
                format!("{:.2}", bl.dots[i]),
                format!("{:.3}", oracle.gold[i]),
            ]
        })
        .collect();
    ctx.view(View::table(
        crate::t!("view-rmo-bon-title", samples = p.samples.to_string()),
        [
            "n".to_string(),
            "KL_bon".to_string(),
            crate::t!("view-rmo-col-proxy-small"),
            crate::t!("view-rmo-col-gold-small"),
            crate::t!("view-rmo-col-dots-small"),
            crate::t!("view-rmo-col-proxy-large"),
            crate::t!("view-rmo-col-gold-large"),
            crate::t!("view-rmo-col-dots-large"),
            crate::t!("view-rmo-col-oracle"),
        ],
        rows,
    ));
}

/// What each RM learned: held-out accuracy, overall and split by what the
/// dots say about the pair; then why the curves part.
fn rm_view(ctx: &mut RunCtx, p: &Params, small: &Rm, large: &Rm, bs: &Bon, bl: &Bon) {
    let n = p.samples;
    let row = |name: String, rm: &Rm, b: &Bon| {
        let (np, gp) = peak(&b.gold);
        vec![
            name,
            format!("{:.3}", rm.acc.all),
            format!("{:.3}", rm.acc.longer.0),
            format!("{:.3}", rm.acc.tied.0),
            format!("{:.3}", rm.acc.shorter.0),
            format!("{:+.3}", rm.acc.dot_gap()),
            format!("{np} ({gp:.3})"),
            format!("{:.3}", b.gold[n - 1]),
            format!("{:.3}", b.right[n - 1]),
        ]
    };
    let a = small.acc;
    ctx.view(View::table(
        crate::t!(
            "view-rmo-rm-title",
            longer = a.longer.1.to_string(),
            tied = a.tied.1.to_string(),
            shorter = a.shorter.1.to_string()
        ),
        [
            crate::t!("view-rmo-col-rm"),
            crate::t!("view-rmo-col-acc"),
            crate::t!("view-rmo-col-acc-longer"),
            crate::t!("view-rmo-col-acc-tied"),
            crate::t!("view-rmo-col-acc-shorter"),
            crate::t!("view-rmo-col-dot-gap"),
            crate::t!("view-rmo-col-peak"),
            crate::t!("view-rmo-col-gold-at-n", n = n.to_string()),
            crate::t!("view-rmo-col-right-at-n", n = n.to_string()),
        ],
        vec![
            row(crate::t!("view-rmo-row-rm", pairs = p.pairs_small.to_string()), small, bs),
            row(crate::t!("view-rmo-row-rm", pairs = p.pairs_large.to_string()), large, bl),
        ],
    ));
    ctx.view(View::Text { title: crate::t!("view-rmo-why-title"), body: crate::t!("view-rmo-why-body") });
}

#[cfg(test)]
mod tests {
    use super::PairAcc;

    /// Pairs as (chosen dots, rejected dots); the chosen answer is the right one.
    const DOTS: [(usize, usize); 6] = [(3, 1), (2, 0), (1, 1), (0, 0), (0, 2), (1, 3)];

    #[test]
    fn a_dots_only_scorer_leans_on_the_dots_fully() {
        // Its score is the dot count: right where the chosen is longer, a tie
        // it cannot order where both have as many, wrong where it is shorter.
        let sc: Vec<f64> = DOTS.iter().map(|d| d.0 as f64).collect();
        let sr: Vec<f64> = DOTS.iter().map(|d| d.1 as f64).collect();
        let a = PairAcc::of(&DOTS, &sc, &sr);
        assert_eq!((a.longer, a.tied, a.shorter), ((1.0, 2), (0.0, 2), (0.0, 2)));
        assert_eq!(a.dot_gap(), 1.0);
        assert!((a.all - 2.0 / 6.0).abs() < 1e-12);
    }

    #[test]
    fn a_scorer_of_the_sum_alone_does_not_lean_on_the_dots() {
        // It scores right answers 1 and wrong ones 0, whatever the padding.
        let a = PairAcc::of(&DOTS, &[1.0; 6], &[0.0; 6]);
        assert_eq!((a.all, a.dot_gap()), (1.0, 0.0));
        // A coin: the same score for both answers orders nothing.
        assert_eq!(PairAcc::of(&DOTS, &[0.5; 6], &[0.5; 6]).all, 0.0);
    }
}
