//! `grpo-rlvr`: GRPO with verifiable rewards (R1-style RLVR) on addition,
//! and the reward hacking a loose verifier invites.
//!
//! Phases of `run`:
//!
//! 1. **data** — 2-digit addition (`src/envs/refine_arith.rs`), answers least
//!    significant digit first; held-out problems never trained on.
//! 2. **warm start (SFT)** — a tiny character-level GPT learns the task part
//!    way, from answers that now and then *hedge* (`580,590`: the right
//!    answer and a near miss), as real SFT data sometimes does.
//! 3. **RL** — two policies from the same warm start, updated in turn:
//!    the *sound* arm is paid by the exact verifier, the *proxy* arm by the
//!    `reward` parameter's verifier (`lenient`: the gold answer anywhere in
//!    the text, `src/envs/rlvr.rs`). Each step: G sampled completions per
//!    prompt, group-normalised advantages, the clipped GRPO objective with a
//!    k3 KL penalty to the frozen warm start (`src/rl/grpo.rs`), over
//!    `ppo_epochs` passes. Hacking detectors are charted for both arms:
//!    proxy − true gap, exploit (hedge) share, completion length, entropy.
//! 4. **evaluate** — both policies and the warm start on the held-out
//!    problems, sampled, scored by both verifiers.
//!
//! Claims: the sound arm's true accuracy rises; the proxy arm's proxy reward
//! rises while its true accuracy does not, as hedging takes over; the gap
//! detector flags the proxy arm and stays quiet on the sound one.
//!
//! With `model` set to a real pretrained model (`smollm2`, the `real` preset)
//! the same phases run on LoRA adapters over its frozen base
//! (`super::pipeline::real_start`): the problem is the user's message of its
//! chat template (`47+38`), the answer is written as people write sums
//! (`85`, a hedge `85,95`), and before the warm start the untrained instruct
//! model is measured on the held-out problems in its own words.

use anyhow::Result;
use candle_core::Device;
use serde::Deserialize;

use super::addition::{self, build_batch, shown, Grpo, Problems, Samples, Text, WarmStart};
use super::keep::Role as Arms;
use super::pipeline::{self, real_start, ModelChoice, RolloutTally};
use super::try_it::{Arm as TryArm, KeptRun, TrySession};
use super::{check_heads, RunCtx, TypedDrill, View};
use crate::envs::rlvr::{GapDetector, Reward, Scores, ALPHABET};
use crate::ml::lm::CausalLm;
use crate::ml::optim::LrSchedule;
use crate::ml::rng::Rng;
use crate::ml::start::Model;
use crate::ml::tokenizer::CharTokenizer;
use crate::ml::train::{TrainConfig, Trainer};
use crate::rl::advantage::GroupNorm;
use crate::rl::group_advantages;
use crate::rl::grpo::GrpoVariant;
use crate::rl::pg::{aggregate, Aggregation};

pub struct GrpoRlvr;

/// `drills/grpo-rlvr/drill.toml`, typed.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Params {
    pub digits: usize,
    pub hedge_rate: f64,
    pub sft_steps: usize,
    pub sft_batch: usize,
    pub lr_sft: f64,
    pub reward: Reward,
    pub variant: GrpoVariant,
    pub rl_steps: usize,
    pub prompts_per_step: usize,
    pub group: usize,
    pub max_new: usize,
    pub temperature: f32,
    pub lr: f64,
    pub kl_coef: f64,
    pub ppo_epochs: usize,
    pub clip_eps: f64,
    pub test_size: usize,
    pub d_model: usize,
    pub n_layers: usize,
    pub n_heads: usize,
    pub model: ModelChoice,
    pub lora_rank: usize,
    pub lora_layers: usize,
}

/// A real chat model's system message: the task and its answer format in a
/// few words (every token of it is read by every rollout and every step).
pub const SYSTEM: &str = "Add. Reply with the sum only.";

impl Params {
    fn warm_start(&self) -> WarmStart {
        WarmStart {
            hedge_rate: self.hedge_rate,
            slip_rate: 0.0,
            steps: self.sft_steps,
            batch: self.sft_batch,
            lr: self.lr_sft,
            context: 2 * self.digits + 2 + self.max_new + 2,
            d_model: self.d_model,
            n_layers: self.n_layers,
            n_heads: self.n_heads,
        }
    }
}

/// One policy being trained, and the verifier that pays it.
struct Arm {
    /// `sound` or `proxy`: the prefix of its charts.
    name: &'static str,
    reward: Reward,
    policy: Model,
    trainer: Trainer,
    rng: Rng,
    /// The live detector on the training gap (lenient − exact).
    detector: GapDetector,
    /// How fast its rollouts sampled (for the log).
    tally: RolloutTally,
}

impl TypedDrill for GrpoRlvr {
    const ID: &'static str = "grpo-rlvr";
    const CLAIMS: &'static [&'static str] = &[
        "detector_flags_proxy",
        "detector_quiet_on_sound",
        "proxy_exploit_share",
        "proxy_reward_gain",
        "proxy_true_change",
        "sound_single_answer_gain",
        "sound_true_gain",
    ];
    type Params = Params;

    fn validate(p: &Params) -> Result<(), String> {
        check_heads(p.d_model, p.n_heads)?;
        addition::check_sizes(p.digits, p.max_new, "test_size", p.test_size)
    }

    fn run(&self, p: &Params, ctx: &mut RunCtx) -> Result<()> {
        let seed = ctx.seed;
        let mut rng = Rng::new(seed);
        let total = p.sft_steps + p.rl_steps;
        let (warm, text, problems) = match &p.model {
            ModelChoice::Tiny => {
                let tok = CharTokenizer::new(ALPHABET, &[]);
                let text = Text::Chars(tok.clone());
                let problems = addition::data(ctx, &p.warm_start(), p.digits, p.test_size, &text, &mut rng);
                let warm = addition::warm_start(&p.warm_start(), ctx, &tok, &problems, &mut rng, total)?;
                (Model::Tiny(warm), text, problems)
            }
            ModelChoice::Real(name) => {
                let (start, tok, fmt) = real_start(name, p.lora_rank, p.lora_layers, SYSTEM, ctx)?;
                let text = Text::Chat { tok: Box::new(tok), fmt: Box::new(fmt) };
                let problems = addition::data(ctx, &p.warm_start(), p.digits, p.test_size, &text, &mut rng);
                addition::untrained(ctx, start.model(), &text, &problems.test, p.temperature)?;
                ctx.phase(crate::t!("view-phase-warm-start"));
                let warm = start.fork(seed)?;
                addition::warm_sft(&p.warm_start(), ctx, &text, warm.lm(), &problems, &mut rng, total)?;
                (warm, text, problems)
            }
        };
        let reference = warm.frozen(seed)?;
        ctx.keep(WARM, Arms::Start, &reference)?;

        // Everyone is evaluated on the same held-out problems with the same draws.
        let eval = |m: &dyn CausalLm| addition::held_out(m, &text, &problems, 2, (p.max_new, p.temperature), seed);
        let before_s = eval(warm.lm())?;
        let before = scores(&before_s);
        ctx.log(describe(&crate::t!("view-grpo-warm-start"), &before));

        ctx.phase(crate::t!("view-grpo-phase-rl"));
        let arm = |name, reward, tag| -> Result<Arm> {
            let policy = warm.fork(seed ^ tag)?;
            // A short warmup: Adam's first steps move every weight by about lr.
            let warmup = 5 * p.ppo_epochs;
            let schedule = LrSchedule { peak: p.lr, min: p.lr, warmup, total: warmup + 1 };
            let trainer = Trainer::for_model(policy.lm(), TrainConfig { schedule, ..TrainConfig::constant(p.lr) })?;
            let (rng, detector, tally) = (rng.clone().fork(tag), GapDetector::default(), RolloutTally::default());
            Ok(Arm { name, reward, policy, trainer, rng, detector, tally })
        };
        let mut arms = [arm("sound", Reward::Exact, 1)?, arm("proxy", p.reward, 2)?];
        // Try puts the warm start and both arms side by side (as they are when the run ends).
        for a in &arms {
            ctx.keep_live(a.name, Arms::Trained, &a.policy)?;
        }
        let flag = ctx.meta.claim("detector_flags_proxy").map(|c| c.threshold).unwrap_or(0.2);
        for step in 0..p.rl_steps {
            for a in arms.iter_mut() {
                ctx.check_cancel()?;
                rl_step(p, ctx, step, a, reference.lm(), &text, &problems, flag)?;
            }
            ctx.progress(p.sft_steps + step + 1, p.sft_steps + p.rl_steps, 0);
        }

        ctx.phase(crate::t!("view-phase-evaluate"));
        let sound_s = eval(arms[0].policy.lm())?;
        let proxy_s = eval(arms[1].policy.lm())?;
        let (sound, proxy) = (scores(&sound_s), scores(&proxy_s));
        ctx.log(describe(&crate::t!("view-grpo-sound-exact"), &sound));
        ctx.log(describe(&crate::t!("view-grpo-proxy-reward", reward = p.reward.name()), &proxy));
        for a in &arms {
            a.tally.log(ctx, &arm_label(a.name));
            ctx.log(match a.detector.flagged_at {
                Some(s) => crate::t!(
                    "view-grpo-log-live-flagged",
                    arm = arm_label(a.name),
                    flag = flag.to_string(),
                    step = (s + 1).to_string()
                ),
                None => crate::t!("view-grpo-log-live-quiet", arm = arm_label(a.name), flag = flag.to_string()),
            });
        }
        before_after_view(ctx, p, &before, &sound, &proxy);
        samples_view(ctx, &text, &before_s, &sound_s, &proxy_s);

        ctx.claim("sound_true_gain", sound.exact - before.exact)?;
        ctx.claim("proxy_reward_gain", proxy.reward(p.reward) - before.reward(p.reward))?;
        ctx.claim("proxy_true_change", proxy.exact - before.exact)?;
        ctx.claim("proxy_exploit_share", proxy.hedged)?;
        ctx.claim("detector_flags_proxy", proxy.gap())?;
        ctx.claim("detector_quiet_on_sound", sound.gap())?;
        ctx.claim("sound_single_answer_gain", sound.committed - before.committed)?;
        Ok(())
    }

    fn open_try(p: &Params, run: &KeptRun, device: &Device) -> Result<Box<dyn TrySession>> {
        let (text, base) = match &p.model {
            ModelChoice::Tiny => (Text::Chars(CharTokenizer::new(ALPHABET, &[])), None),
            ModelChoice::Real(_) => {
                let (base, tok, fmt) = pipeline::real_base(run, SYSTEM, device)?;
                (Text::Chat { tok: Box::new(tok), fmt: Box::new(fmt) }, Some(base))
            }
        };
        let mut arms = Vec::new();
        let labels = [
            (WARM, crate::t!("view-grpo-warm-start")),
            ("sound", crate::t!("view-grpo-arm-sound")),
            ("proxy", format!("{} ({})", crate::t!("view-grpo-arm-proxy"), p.reward.name())),
        ];
        for (id, label) in labels {
            let model = pipeline::kept_model(run, id, base.as_ref(), device)?;
            arms.push((TryArm { id: id.to_string(), label }, model));
        }
        // The run's held-out problems: its first draw (`addition::data`).
        let examples = Problems::distinct(p.digits, p.test_size, &mut Rng::new(run.seed).fork(7)).test;
        Ok(Box::new(addition::AdditionTry {
            text,
            digits: p.digits,
            max_new: p.max_new,
            temperature: p.temperature,
            arms,
            examples,
        }))
    }
}

/// The arm a run keeps for its warm start (the sound and proxy arms keep their names).
const WARM: &str = "warm-start";

/// One RL step of one arm: sample groups, score, advantages, clipped GRPO updates.
#[allow(clippy::too_many_arguments)]
fn rl_step(
    p: &Params,
    ctx: &mut RunCtx,
    step: usize,
    arm: &mut Arm,
    reference: &dyn CausalLm,
    text: &Text,
    problems: &Problems,
    flag: f64,
) -> Result<()> {
    let (lm, rng) = (arm.policy.lm(), &mut arm.rng);
    let s = arm.tally.time(
        || addition::get_batch(lm, text, problems, (p.prompts_per_step, p.group), (p.max_new, p.temperature), rng),
        |s| (s.outs.len(), s.outs.iter().map(Vec::len).sum()),
    )?;
    let rewards: Vec<f32> = s.verdicts.iter().map(|v| arm.reward.score(v)).collect();
    let mut adv = Vec::with_capacity(rewards.len());
    let mut zero_std = 0usize;
    for g in rewards.chunks(p.group) {
        zero_std += usize::from(g.iter().all(|r| *r == g[0]));
        // The learner's own advantage function when one is plugged in (`--use`).
        match ctx.plugs.group_advantages(g) {
            Some(yours) => adv.extend(yours?),
            None => adv.extend(p.variant.advantages(g)),
        }
    }
    let batch = build_batch(&s.prompts, &s.outs, &adv, &ctx.device)?;
    let grpo =
        Grpo { variant: p.variant, clip_eps: p.clip_eps, kl_coef: p.kl_coef, max_new: p.max_new, epochs: p.ppo_epochs };
    let up = grpo.update(arm.policy.lm(), reference, &mut arm.trainer, &batch, None)?;
    let entropy = aggregate(&up.entropy, &batch.mask, Aggregation::TokenMean)?.to_scalar::<f32>()? as f64;
    let (kl, clip_ratio) = (up.kl, up.clip_ratio);
    let sc = scores(&s);
    let n = arm.name;
    ctx.metric(step, &format!("{n}/reward"), sc.reward(arm.reward));
    ctx.metric(step, &format!("{n}/true_accuracy"), sc.exact);
    ctx.metric(step, &format!("{n}/gap (lenient − exact)"), sc.gap());
    ctx.metric(step, &format!("{n}/exploit_share (hedged)"), sc.hedged);
    ctx.metric(step, &format!("{n}/completion_length"), sc.length);
    ctx.metric(step, &format!("{n}/kl"), kl);
    ctx.metric(step, &format!("{n}/entropy"), entropy);
    if p.ppo_epochs > 1 {
        ctx.metric(step, &format!("{n}/clip_ratio"), clip_ratio);
    }
    ctx.metric(step, &format!("{n}/frac_reward_zero_std"), zero_std as f64 / p.prompts_per_step.max(1) as f64);

    // The live detector: the mean gap of the last five steps.
    if let Some(mean_gap) = arm.detector.push(step, sc.gap(), flag) {
        ctx.log(crate::t!(
            "view-grpo-log-flagged",
            arm = arm_label(n),
            step = (step + 1).to_string(),
            pct = format!("{:.0}", mean_gap * 100.0)
        ));
    }
    if step == 0 || step + 1 == p.rl_steps {
        group_view(ctx, p, text, arm, step, &s, &rewards, &adv);
    }
    if step + 1 == p.rl_steps {
        tokens_view(ctx, text, arm, &s, &adv);
    }
    Ok(())
}

fn scores(s: &Samples) -> Scores {
    Scores::of(&s.texts, &s.verdicts)
}

/// "sound arm", "proxy arm": an arm as the views name it (its `name` is in the metric names).
fn arm_label(name: &str) -> String {
    match name {
        "sound" => crate::t!("view-grpo-arm-sound"),
        _ => crate::t!("view-grpo-arm-proxy"),
    }
}

fn describe(who: &str, s: &Scores) -> String {
    crate::t!(
        "view-grpo-describe",
        who = who,
        exact = format!("{:.3}", s.exact),
        committed = format!("{:.3}", s.committed),
        lenient = format!("{:.3}", s.lenient),
        gap = format!("{:.3}", s.gap()),
        hedged = format!("{:.3}", s.hedged),
        length = format!("{:.2}", s.length)
    )
}

/// One group of the step: every completion, both verdicts, and its advantage
/// under GRPO and Dr. GRPO.
#[allow(clippy::too_many_arguments)]
fn group_view(
    ctx: &mut RunCtx,
    p: &Params,
    text: &Text,
    arm: &Arm,
    step: usize,
    s: &Samples,
    rewards: &[f32],
    adv: &[f32],
) {
    // The first group whose rewards differ, else the first group.
    let g = p.group;
    let k = (0..p.prompts_per_step)
        .find(|&k| rewards[k * g..(k + 1) * g].iter().any(|r| *r != rewards[k * g]))
        .unwrap_or(0);
    let r = &rewards[k * g..(k + 1) * g];
    let (a_grpo, a_dr) = (group_advantages(r, GroupNorm::MeanStd), group_advantages(r, GroupNorm::MeanOnly));
    let yes = |b: bool| if b { "✓" } else { "·" }.to_string();
    let rows = (0..g)
        .map(|j| {
            let i = k * g + j;
            let v = &s.verdicts[i];
            vec![
                s.texts[i].clone(),
                yes(v.exact),
                yes(v.lenient),
                format!("{:.0}", rewards[i]),
                format!("{:+.2}", a_grpo[j]),
                format!("{:+.2}", a_dr[j]),
                format!("{:+.2}", adv[i]),
            ]
        })
        .collect();
    ctx.view(View::table(
        crate::t!(
            "view-grpo-group-title",
            arm = arm_label(arm.name),
            reward = arm.reward.name(),
            step = (step + 1).to_string(),
            g = g.to_string(),
            prompt = shown(text, &s.probs[k * g]),
            gold = text.gold(&s.probs[k * g])
        ),
        [
            crate::t!("view-col-completion"),
            "exact".to_string(),
            "lenient".into(),
            crate::t!("view-grpo-col-reward"),
            "Â GRPO".into(),
            "Â Dr. GRPO".into(),
            crate::t!("view-grpo-col-used"),
        ],
        rows,
    ));
}

/// A completion of the last step token by token, coloured by its advantage:
/// a hedge if there is one.
fn tokens_view(ctx: &mut RunCtx, text: &Text, arm: &Arm, s: &Samples, adv: &[f32]) {
    let i = (0..s.texts.len()).find(|&i| s.verdicts[i].hedged && adv[i] != 0.0).unwrap_or(0);
    let cells = text.cells(&s.probs[i], &s.prompts[i], &s.outs[i], |_| adv[i]);
    ctx.view(View::Tokens {
        title: crate::t!("view-grpo-tokens-title", arm = arm_label(arm.name)),
        tokens: cells,
        legend: crate::t!("view-grpo-tokens-legend", gold = text.gold(&s.probs[i])),
    });
}

fn before_after_view(ctx: &mut RunCtx, p: &Params, before: &Scores, sound: &Scores, proxy: &Scores) {
    let row = |name: String, s: &Scores| {
        let shares = [s.exact, s.lenient, s.gap(), s.hedged, s.committed].map(|v| format!("{v:.3}"));
        [vec![name], shares.to_vec(), vec![format!("{:.2}", s.length)]].concat()
    };
    ctx.view(View::table(
        crate::t!("view-grpo-before-after-title"),
        [
            crate::t!("view-grpo-col-policy"),
            crate::t!("view-grpo-col-true"),
            "lenient".to_string(),
            crate::t!("view-grpo-col-gap"),
            crate::t!("view-grpo-col-hedged"),
            crate::t!("view-grpo-col-single"),
            crate::t!("view-grpo-col-length"),
        ],
        vec![
            row(crate::t!("view-grpo-warm-start"), before),
            row(crate::t!("view-grpo-sound-exact"), sound),
            row(crate::t!("view-grpo-proxy-reward", reward = p.reward.name()), proxy),
        ],
    ));
}

fn samples_view(ctx: &mut RunCtx, text: &Text, before: &Samples, sound: &Samples, proxy: &Samples) {
    let mark = |s: &Samples, i: usize| format!("{} {}", s.texts[i], s.verdicts[i].mark());
    let rows = (0..before.texts.len().min(24))
        .step_by(2)
        .map(|i| {
            let q = &before.probs[i];
            vec![shown(text, q), text.gold(q), mark(before, i), mark(sound, i), mark(proxy, i)]
        })
        .collect();
    ctx.view(View::table(
        crate::t!("view-grpo-samples-title"),
        [
            crate::t!("view-col-prompt"),
            crate::t!("view-col-gold"),
            crate::t!("view-grpo-warm-start"),
            crate::t!("view-grpo-arm-sound"),
            crate::t!("view-grpo-arm-proxy"),
        ],
        rows,
    ));
}
