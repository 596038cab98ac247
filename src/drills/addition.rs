//! Addition with a hedging habit, the groundwork that `grpo-rlvr` and
//! `pass-at-k-harness` share: held-out problems, the warm start of a tiny
//! character-level GPT, and sampling completions from it.
//!
//! The task is [`refine_arith`](crate::envs::refine_arith)'s: `47+38=`
//! answered with `digits + 1` digits, least significant first (`580`). A
//! share `hedge_rate` of the warm-start answers *hedge*: the gold answer among
//! one or two near misses (`580,590`, [`hedge`]), the habit a lenient verifier
//! or a lenient answer extractor pays for. A share `slip_rate` of the answers
//! to problems whose sum carries into the top digit drop that carry
//! (`Problem::top_carry_dropped`): a systematic error the model learns as
//! its most likely answer on those problems when the share is above one half.

use anyhow::Result;
use candle_core::{Device, Tensor};

use super::pipeline::{self, no_probe, Batches, Sft};
use super::{RunCtx, TokenCell, TokenKind, View};
use crate::envs::format::Format;
use crate::envs::refine_arith::Problem;
use crate::envs::rlvr::{hedge, judge, Verdict};
use crate::envs::Role;
use crate::ml::data::Example;
use crate::ml::gpt::{Gpt, GptConfig};
use crate::ml::lm::CausalLm;
use crate::ml::rng::Rng;
use crate::ml::sample::{Decoding, GenConfig};
use crate::ml::tokenizer::{Bpe, CharTokenizer, Tokenize, EOS, PAD};
use crate::ml::train::Trainer;
use crate::rl::grpo::{grpo_loss, GrpoVariant};

/// Held-out problems, and fresh training problems that never coincide with one.
pub(crate) use crate::envs::refine_arith::HeldOut as Problems;

/// How the problems and their answers become one model's tokens, and its
/// completions text.
pub(crate) enum Text {
    /// The tiny GPT: one token per character, `47+38=` answered `580` (the
    /// sum's digits least significant first, as many as the widest sum has).
    Chars(CharTokenizer),
    /// A real chat model: `47+38` as the user's message, answered as people
    /// write sums (`85`), the hedges as `85,95`; the answer ends with the
    /// chat template's end of turn.
    Chat { tok: Box<Bpe>, fmt: Box<Format> },
}

impl Text {
    /// What the model reads before it answers `q`.
    pub fn prompt(&self, q: &Problem) -> Vec<u32> {
        match self {
            Text::Chars(tok) => tok.encode(&q.prompt()),
            Text::Chat { tok, fmt } => fmt.encode_segments(tok, &[(Role::Prompt, format!("{}+{}", q.a, q.b))]),
        }
    }

    /// The one right answer to `q`, as this model writes it.
    pub fn gold(&self, q: &Problem) -> String {
        match self {
            Text::Chars(_) => q.answer(),
            Text::Chat { .. } => (q.a + q.b).to_string(),
        }
    }

    /// An answer of the tiny format (`580`, `580,590`) as this model writes it
    /// (`85`, `85,95`).
    pub fn written(&self, answer: &str) -> String {
        match self {
            Text::Chars(_) => answer.to_string(),
            Text::Chat { .. } => answer
                .split(crate::envs::rlvr::SEP)
                .map(|c| c.chars().rev().collect::<String>().parse::<u64>().map_or(c.to_string(), |n| n.to_string()))
                .collect::<Vec<_>>()
                .join(","),
        }
    }

    /// A training example: the prompt of `q`, then `answer` and the end token in the loss.
    pub fn example(&self, q: &Problem, answer: &str) -> Example {
        let mut ids = self.tokenizer().encode(answer);
        ids.push(self.eos());
        Example::prompt_answer(&self.prompt(q), &ids)
    }

    /// The model's tokenizer.
    pub fn tokenizer(&self) -> &dyn Tokenize {
        match self {
            Text::Chars(tok) => tok,
            Text::Chat { tok, .. } => tok.as_ref(),
        }
    }

    /// The token that ends an answer.
    pub fn eos(&self) -> u32 {
        match self {
            Text::Chars(_) => EOS,
            Text::Chat { fmt, .. } => fmt.eos,
        }
    }

    /// Tokens that end a completion.
    pub fn stop(&self) -> Vec<u32> {
        match self {
            Text::Chars(_) => vec![EOS],
            Text::Chat { fmt, .. } => fmt.stop().to_vec(),
        }
    }

    /// A completion as text, without its end token.
    pub fn decode(&self, out: &[u32]) -> String {
        match self {
            Text::Chars(tok) => tok.decode(out),
            Text::Chat { tok, fmt } => fmt.line(tok, out).trim().to_string(),
        }
    }

    /// A token view's cells of `q`'s prompt `prompt` and a completion `out`:
    /// the prompt grey, completion token `j` trained and coloured by
    /// `value(j)`. A chat model's prompt is mostly its template, so the
    /// problem stands for it.
    pub fn cells(&self, q: &Problem, prompt: &[u32], out: &[u32], value: impl Fn(usize) -> f32) -> Vec<TokenCell> {
        match self {
            Text::Chars(tok) => TokenCell::completion(tok, prompt, out, value),
            Text::Chat { tok, fmt } => {
                let problem = TokenCell { text: shown(self, q), kind: TokenKind::Prompt, value: None };
                let out = out.iter().enumerate().map(|(j, &t)| TokenCell {
                    text: if t == fmt.eos { "⏎".to_string() } else { tok.decode(&[t]) },
                    kind: TokenKind::Trained,
                    value: Some(value(j)),
                });
                std::iter::once(problem).chain(out).collect()
            }
        }
    }
}

/// The warm start's settings (each drill maps its parameters onto these).
pub(crate) struct WarmStart {
    pub hedge_rate: f64,
    /// Share of the problems that carry out answered without that carry.
    pub slip_rate: f64,
    pub steps: usize,
    pub batch: usize,
    /// Peak learning rate (warmup over a twentieth of the steps, cosine to a tenth).
    pub lr: f64,
    /// Longest prompt + completion the model must hold, in characters.
    pub context: usize,
    pub d_model: usize,
    pub n_layers: usize,
    pub n_heads: usize,
}

/// The rules between parameters that every drill on this task shares: room
/// for an answer and its end token in `max_new`, and at most half of all
/// problems held out (`key` names the drill's parameter for `held`).
pub(crate) fn check_sizes(digits: usize, max_new: usize, key: &str, held: usize) -> Result<(), String> {
    if max_new < digits + 2 {
        return Err(crate::t!("setup-max-new", max_new = max_new.to_string(), digits = (digits + 1).to_string()));
    }
    check_held(digits, key, held)
}

/// At most half of all `digits`-digit problems held out, so that training
/// prompts drawn outside the held-out set are never short (`key` names the
/// drill's parameter for `held`).
pub(crate) fn check_held(digits: usize, key: &str, held: usize) -> Result<(), String> {
    let all = 10usize.pow(2 * digits as u32);
    if held * 2 > all {
        return Err(crate::t!(
            "setup-held-half",
            key = key,
            held = held.to_string(),
            all = all.to_string(),
            digits = digits.to_string()
        ));
    }
    Ok(())
}

/// Phase "data": `test_size` distinct held-out problems, and a look at the
/// warm-start data (with a slipped answer among the rows when `w` slips).
pub(crate) fn data(
    ctx: &mut RunCtx,
    w: &WarmStart,
    digits: usize,
    test_size: usize,
    text: &Text,
    rng: &mut Rng,
) -> Problems {
    ctx.phase(crate::t!("view-phase-data"));
    let problems = Problems::distinct(digits, test_size, &mut rng.fork(7));
    let mut show = rng.fork(9);
    let rows = (0..8)
        .map(|i| {
            let q = problems.fresh(&mut show);
            let (answer, kind) = if i % 4 == 3 {
                (hedge(&q.answer(), &mut show), crate::t!("view-add-kind-hedge"))
            } else if w.slip_rate > 0.0 && i % 4 == 1 && q.carries_out() {
                (q.top_carry_dropped(), crate::t!("view-add-kind-slip"))
            } else {
                (q.answer(), crate::t!("view-add-kind-answer"))
            };
            vec![shown(text, &q), text.written(&answer), text.gold(&q), kind]
        })
        .collect();
    let title =
        if w.slip_rate > 0.0 { crate::t!("view-add-data-title-slips") } else { crate::t!("view-add-data-title") };
    ctx.view(View::table(
        title,
        [
            crate::t!("view-col-prompt"),
            crate::t!("view-col-completion"),
            crate::t!("view-col-gold"),
            crate::t!("view-col-kind"),
        ],
        rows,
    ));
    let slips = if w.slip_rate > 0.0 {
        crate::t!("view-add-log-slips", pct = format!("{:.0}", w.slip_rate * 100.0))
    } else {
        String::new()
    };
    let how = match text {
        Text::Chars(_) => crate::t!("view-add-how-chars"),
        Text::Chat { .. } => crate::t!("view-add-how-chat"),
    };
    ctx.log(crate::t!(
        "view-add-log-data",
        digits = digits.to_string(),
        how = how,
        prompt = shown(text, &problems.test[0]),
        answer = text.gold(&problems.test[0]),
        held = problems.test.len().to_string(),
        hedge = format!("{:.0}", w.hedge_rate * 100.0),
        slips = slips,
        vocab = text.tokenizer().vocab_size().to_string()
    ));
    problems
}

/// Phase "untrained model": a real instruct model on `probs` before any
/// training, in its own words (up to 24 tokens), greedy and sampled at
/// `temperature`: how often its reply *is* the sum (the exact verifier) and
/// how often the last number it writes is (an answer extractor's reading).
pub(crate) fn untrained(
    ctx: &mut RunCtx,
    model: &dyn CausalLm,
    text: &Text,
    probs: &[Problem],
    temperature: f32,
) -> Result<()> {
    ctx.phase(crate::t!("view-add-phase-untrained"));
    let prompts: Vec<Vec<u32>> = probs.iter().map(|q| text.prompt(q)).collect();
    let mut rng = Rng::new(ctx.seed ^ 0x07);
    let greedy: Vec<String> = model
        .generate(&prompts, &GenConfig::greedy(24, text.stop()), &mut rng)?
        .iter()
        .map(|o| text.decode(o))
        .collect();
    let sampled = sample_texts(model, text, &prompts, (24, temperature), &mut rng)?.1;
    let n = probs.len().max(1) as f64;
    let rates = |texts: &[String]| {
        let exact = texts.iter().zip(probs).filter(|(t, q)| **t == text.gold(q)).count() as f64 / n;
        let last = texts.iter().zip(probs).filter(|(t, q)| last_number(t).is_some_and(|x| x == text.gold(q))).count()
            as f64
            / n;
        (format!("{exact:.3}"), format!("{last:.3}"))
    };
    let ((g_exact, g_last), (s_exact, s_last)) = (rates(&greedy), rates(&sampled));
    let example = match (probs.first(), greedy.first()) {
        (Some(q), Some(t)) => format!("{} → {t:?}", shown(text, q)),
        _ => String::new(),
    };
    ctx.log(crate::t!(
        "view-add-log-untrained",
        greedy_exact = g_exact,
        greedy_last = g_last,
        temperature = temperature.to_string(),
        sampled_exact = s_exact,
        sampled_last = s_last,
        example = example
    ));
    Ok(())
}

/// The last run of digits in `text`, if any: what an answer extractor reads
/// as a reply's answer.
pub(crate) fn last_number(text: &str) -> Option<String> {
    text.split(|c: char| !c.is_ascii_digit()).rfind(|s| !s.is_empty()).map(str::to_string)
}

/// A problem as a table shows it: the tiny GPT's prompt, or a chat model's user message.
pub(crate) fn shown(text: &Text, q: &Problem) -> String {
    match text {
        Text::Chars(_) => q.prompt(),
        Text::Chat { .. } => format!("{}+{}", q.a, q.b),
    }
}

/// Phase "warm start (SFT)": a tiny GPT learns the task part way. Progress is
/// reported as step `s` of `progress_total`.
pub(crate) fn warm_start(
    w: &WarmStart,
    ctx: &mut RunCtx,
    tok: &CharTokenizer,
    problems: &Problems,
    rng: &mut Rng,
    progress_total: usize,
) -> Result<Gpt> {
    ctx.phase(crate::t!("view-phase-warm-start"));
    let cfg = GptConfig::new(tok.vocab_size(), w.d_model, w.n_layers, w.n_heads, w.context);
    let model = Gpt::new(cfg, ctx.seed, &ctx.device)?;
    ctx.log(crate::t!(
        "view-log-tiny-gpt",
        d = w.d_model.to_string(),
        layers = w.n_layers.to_string(),
        heads = w.n_heads.to_string(),
        params = model.num_params().to_string(),
        size = crate::numbers::count_short(model.num_params())
    ));
    warm_sft(w, ctx, &Text::Chars(tok.clone()), &model, problems, rng, progress_total)?;
    Ok(model)
}

/// The warm start's SFT of `model` (a tiny GPT, or a real model's adapters)
/// on answers of which a share `hedge_rate` hedge.
pub(crate) fn warm_sft(
    w: &WarmStart,
    ctx: &mut RunCtx,
    text: &Text,
    model: &dyn CausalLm,
    problems: &Problems,
    rng: &mut Rng,
    progress_total: usize,
) -> Result<()> {
    // A warmup of a twentieth of the steps, not the pipeline's tenth: with the
    // tenth, grpo-rlvr's proxy arm hedges less (proxy_exploit_share 0.496 on
    // seed 16, 19 of seeds 1–20) than with this one (20 of 20, at least 0.721).
    let sft = Sft { warmup: w.steps / 20, ..Sft::new(w.steps, w.lr).within(0, progress_total) };
    let batches = Batches::fresh(|rng: &mut Rng| {
        (0..w.batch)
            .map(|_| {
                let q = problems.fresh(rng);
                let answer = if rng.bool(w.hedge_rate) {
                    hedge(&q.answer(), rng)
                } else if w.slip_rate > 0.0 && q.carries_out() && rng.bool(w.slip_rate) {
                    q.top_carry_dropped()
                } else {
                    q.answer()
                };
                text.example(&q, &text.written(&answer))
            })
            .collect()
    });
    pipeline::sft(ctx, model, &sft, batches, rng, no_probe)?;
    Ok(())
}

/// One sampled completion per prompt at `temperature` (KV cache, stop at the
/// end token): the new tokens (with the end token if the model wrote it) and
/// their text (without it).
pub(crate) fn sample_texts(
    model: &dyn CausalLm,
    text: &Text,
    prompts: &[Vec<u32>],
    (max_new, temperature): (usize, f32),
    rng: &mut Rng,
) -> Result<(Vec<Vec<u32>>, Vec<String>)> {
    let decoding = Decoding::Sample { temperature, top_k: None, top_p: None };
    let cfg = GenConfig::new(max_new, decoding, text.stop());
    let outs = model.generate(prompts, &cfg, rng)?;
    let texts = outs.iter().map(|o| text.decode(o)).collect();
    Ok((outs, texts))
}

/// Sampled completions for a set of problems, with their verdicts.
pub(crate) struct Samples {
    pub probs: Vec<Problem>,
    pub prompts: Vec<Vec<u32>>,
    pub outs: Vec<Vec<u32>>,
    pub texts: Vec<String>,
    pub verdicts: Vec<Verdict>,
}

/// One sampled completion per problem at `temperature`, judged.
pub(crate) fn sample(
    model: &dyn CausalLm,
    text: &Text,
    probs: &[Problem],
    how: (usize, f32),
    rng: &mut Rng,
) -> Result<Samples> {
    let prompts: Vec<Vec<u32>> = probs.iter().map(|q| text.prompt(q)).collect();
    let (outs, texts) = sample_texts(model, text, &prompts, how, rng)?;
    let verdicts = texts.iter().zip(probs).map(|(t, q)| judge(t, &text.gold(q))).collect();
    Ok(Samples { probs: probs.to_vec(), prompts, outs, texts, verdicts })
}

/// The RL rollout batch (nanochat's `get_batch`): `prompts` fresh problems,
/// each sampled `group` times by `model` (`how`: the longest completion,
/// and the temperature), judged.
pub(crate) fn get_batch(
    model: &dyn CausalLm,
    text: &Text,
    problems: &Problems,
    (prompts, group): (usize, usize),
    how: (usize, f32),
    rng: &mut Rng,
) -> Result<Samples> {
    let probs: Vec<Problem> = (0..prompts).flat_map(|_| std::iter::repeat_n(problems.fresh(rng), group)).collect();
    sample(model, text, &probs, how, rng)
}

/// The held-out evaluation every drill on this task shares: one completion
/// per held-out problem (`times` over), sampled with the same draws for
/// every model of the run so that models differ only by what they learned.
pub(crate) fn held_out(
    model: &dyn CausalLm,
    text: &Text,
    problems: &Problems,
    times: usize,
    how: (usize, f32),
    seed: u64,
) -> Result<Samples> {
    let probs: Vec<Problem> = problems.test.iter().flat_map(|q| std::iter::repeat_n(*q, times)).collect();
    sample(model, text, &probs, how, &mut Rng::new(seed ^ 0xe0))
}

/// The GRPO update's settings.
pub(crate) struct Grpo {
    pub variant: GrpoVariant,
    pub clip_eps: f64,
    pub kl_coef: f64,
    /// The longest completion (Dr. GRPO's constant normaliser).
    pub max_new: usize,
    pub epochs: usize,
}

/// What one GRPO update measured.
pub(crate) struct Update {
    /// The k3 KL to the reference on the first pass.
    pub kl: f64,
    /// Share of clipped tokens, averaged over the passes after the first.
    pub clip_ratio: f64,
    /// The first pass's log-probs (detached): π before this update.
    pub logp: Tensor,
    /// The first pass's next-token entropies on the completion tokens (detached).
    pub entropy: Tensor,
}

impl Grpo {
    /// One GRPO update on `batch`: the reference log-probs, then `epochs`
    /// passes of the clipped GRPO loss. The ratio's denominator is
    /// `behaviour` (μ, the log-probs of the policy that sampled the batch)
    /// when given, else π's own log-probs before the first pass (on-policy).
    pub fn update(
        &self,
        policy: &dyn CausalLm,
        reference: &dyn CausalLm,
        trainer: &mut Trainer,
        batch: &Batch,
        behaviour: Option<&Tensor>,
    ) -> Result<Update> {
        let ref_logp = batch.logprobs(reference)?.detach();
        let (mut kl, mut clip_ratio, mut first) = (0.0, 0.0, None);
        let mut old: Option<Tensor> = None;
        for epoch in 0..self.epochs {
            let scored = policy.scored_logprobs(&batch.x, &batch.targets, &batch.mask, epoch == 0)?;
            let logp = scored.logp;
            let old = old.get_or_insert_with(|| behaviour.cloned().unwrap_or_else(|| logp.detach())).clone();
            let out = grpo_loss(
                &logp,
                &old,
                &ref_logp,
                &batch.adv,
                &batch.mask,
                self.variant,
                self.clip_eps,
                self.kl_coef,
                self.max_new,
            )?;
            trainer.step(&out.loss, "GRPO loss")?;
            if epoch == 0 {
                kl = out.kl;
                let entropy = scored.entropy.ok_or_else(|| anyhow::anyhow!("asked for the entropies"))?;
                first = Some((entropy, logp.detach()));
            } else {
                clip_ratio += out.clip_ratio / (self.epochs - 1) as f64;
            }
        }
        let (entropy, logp) = first.ok_or_else(|| anyhow::anyhow!("a GRPO update needs at least one epoch"))?;
        Ok(Update { kl, clip_ratio, logp, entropy })
    }
}

/// The RL batch as tensors; position t predicts token t + 1.
pub(crate) struct Batch {
    pub x: Tensor,
    pub targets: Tensor,
    /// 1 where the target is a completion token.
    pub mask: Tensor,
    /// Each row's advantage on its completion tokens.
    pub adv: Tensor,
}

impl Batch {
    /// Log-probs `[B, T]` that `model` gives the batch's next tokens.
    pub fn logprobs(&self, model: &dyn CausalLm) -> Result<Tensor> {
        Ok(model.scored_logprobs(&self.x, &self.targets, &self.mask, false)?.logp)
    }
}

/// Prompts and their sampled completions as one right-padded batch, each
/// completion token carrying its row's advantage.
pub(crate) fn build_batch(prompts: &[Vec<u32>], outs: &[Vec<u32>], adv: &[f32], device: &Device) -> Result<Batch> {
    let rows: Vec<(Vec<u32>, usize)> =
        prompts.iter().zip(outs).map(|(pr, o)| (pr.iter().chain(o).copied().collect(), pr.len())).collect();
    let tmax = rows.iter().map(|(ids, _)| ids.len()).max().unwrap_or(2).max(2);
    let b = rows.len();
    let ids: Vec<u32> =
        rows.iter().flat_map(|(r, _)| r.iter().copied().chain(std::iter::repeat(PAD)).take(tmax)).collect();
    let mut mask = vec![0f32; b * (tmax - 1)];
    let mut a = vec![0f32; b * (tmax - 1)];
    for (i, (r, plen)) in rows.iter().enumerate() {
        for t in 0..tmax - 1 {
            if t + 1 >= *plen && t + 1 < r.len() {
                mask[i * (tmax - 1) + t] = 1.0;
                a[i * (tmax - 1) + t] = adv[i];
            }
        }
    }
    let x = Tensor::from_vec(ids, (b, tmax), device)?;
    Ok(Batch {
        targets: x.narrow(1, 1, tmax - 1)?,
        x,
        mask: Tensor::from_vec(mask, (b, tmax - 1), device)?,
        adv: Tensor::from_vec(a, (b, tmax - 1), device)?,
    })
}

/// A typed sum (`47+38`, `47 + 38 =`) as a problem of the run's `digits`, or
/// the learner's message why it is not one.
pub(crate) fn parse_problem(input: &str, digits: usize) -> Result<Problem> {
    let t = input.trim().trim_end_matches('=').trim();
    let bad = || super::try_it::refuse(crate::t!("try-add-not-a-sum", digits = digits.to_string()));
    let Some((a, b)) = t.split_once('+') else { return bad() };
    let (a, b) = (a.trim(), b.trim());
    let ok = |s: &str| !s.is_empty() && s.len() <= digits && s.chars().all(|c| c.is_ascii_digit());
    if !ok(a) || !ok(b) {
        return bad();
    }
    match (a.parse::<u32>(), b.parse::<u32>()) {
        (Ok(a), Ok(b)) => Ok(Problem { a, b, digits }),
        _ => bad(),
    }
}

/// Try on the addition task: each arm samples completions of a typed sum,
/// every completion judged by both verifiers (the exact one and the lenient
/// one that pays a hedge), so the arm that learned to hedge shows it.
pub(crate) struct AdditionTry {
    pub text: Text,
    pub digits: usize,
    pub max_new: usize,
    pub temperature: f32,
    pub arms: Vec<(super::try_it::Arm, crate::ml::start::Model)>,
    /// Held-out problems of the run.
    pub examples: Vec<Problem>,
}

impl AdditionTry {
    fn note(&self, q: &Problem) -> String {
        match &self.text {
            Text::Chars(_) => {
                crate::t!("try-add-note-chars", prompt = q.prompt(), gold = q.answer(), sum = (q.a + q.b).to_string())
            }
            Text::Chat { .. } => crate::t!("try-add-note-chat", sum = (q.a + q.b).to_string()),
        }
    }
}

impl super::try_it::TrySession for AdditionTry {
    fn kind(&self) -> super::try_it::TryKind {
        super::try_it::TryKind::Sampling
    }

    fn arms(&self) -> Vec<super::try_it::Arm> {
        super::try_it::arms_of(&self.arms)
    }

    fn examples(&self) -> Vec<String> {
        self.examples.iter().take(12).map(|q| format!("{}+{}", q.a, q.b)).collect()
    }

    fn prompt_hint(&self) -> String {
        crate::t!("try-add-hint", digits = self.digits.to_string())
    }

    fn defaults(&self) -> super::try_it::TryOpts {
        super::try_it::TryOpts::new(8, self.temperature)
    }

    fn answer(
        &mut self,
        input: &str,
        opts: &super::try_it::TryOpts,
        progress: &mut dyn FnMut(&super::try_it::TryAnswer),
        cancel: &std::sync::atomic::AtomicBool,
    ) -> Result<super::try_it::TryAnswer> {
        use super::try_it::{self, TryAnswer, TryCell, TryColumn, TrySample, Verdict};
        let text = try_it::checked_input(input, 40)?;
        let q = parse_problem(text, self.digits)?;
        let prompt = self.text.prompt(&q);
        let gold = self.text.gold(&q);
        let mut answer = TryAnswer { input: text.to_string(), notes: vec![self.note(&q)], columns: Vec::new() };
        let all = self.arms();
        let n = opts.samples.clamp(1, try_it::MAX_SAMPLES);
        for arm in opts.arms(&all) {
            try_it::check(cancel)?;
            let model = try_it::model_of(&self.arms, &arm.id);
            try_it::check_fits(prompt.len(), self.max_new, model.lm().context())?;
            let cfg = GenConfig::new(self.max_new, try_it::decoding(opts.temperature), self.text.stop());
            let prompts = vec![prompt.clone(); n];
            let outs = model.lm().generate(&prompts, &cfg, &mut try_it::arm_rng(opts.seed))?;
            let mut col = TryColumn::new(arm);
            let (mut exact, mut lenient, mut hedged) = (0, 0, 0);
            for out in &outs {
                let said = self.text.decode(out);
                let v = judge(&said, &gold);
                exact += usize::from(v.exact);
                lenient += usize::from(v.lenient);
                hedged += usize::from(v.hedged);
                let ids: Vec<u32> = prompt.iter().chain(out).copied().collect();
                let logp = try_it::token_logps(model.lm(), &ids, prompt.len())?;
                let mut cells = vec![TryCell::new(shown(&self.text, &q), TokenKind::Prompt)];
                for (j, &t) in out.iter().enumerate() {
                    let piece =
                        if t == self.text.eos() { "⏎".to_string() } else { self.text.tokenizer().decode(&[t]) };
                    cells.push(TryCell { text: piece, kind: TokenKind::Trained, logp: logp[prompt.len() + j] });
                }
                let mut verdicts = vec![Verdict::check("exact", v.exact), Verdict::check("lenient", v.lenient)];
                if v.hedged {
                    verdicts.push(Verdict::new(crate::t!("try-add-hedge"), "", None));
                }
                col.samples.push(TrySample { cells, lines: Vec::new(), verdicts, pending: false });
            }
            col.summary = vec![
                Verdict::new("exact", format!("{exact}/{n}"), None),
                Verdict::new("lenient", format!("{lenient}/{n}"), None),
                Verdict::new(crate::t!("try-add-hedged"), format!("{hedged}/{n}"), None),
            ];
            answer.columns.push(col);
            progress(&answer);
        }
        Ok(answer)
    }
}
