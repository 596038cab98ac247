//! `turn-credit-assignment`: multi-turn RL in the search-or-answer QA world.
//!
//! 1. Warm start: SFT of the lab's base model on mixed trajectories — answers
//!    for "known" places learned by heart (often after a needless search),
//!    searches for the others, and some wrong answers — so there is something
//!    for RL to improve.
//! 2. RL: for each question, a group of G sampled episodes in the real world;
//!    per-turn rewards (−λ per search, correct + format at the answer),
//!    returns discounted per turn with γ, advantages against a baseline from
//!    the group (GRPO, Dr. GRPO, RLOO or none), and the masked policy-gradient
//!    loss on the agent's tokens only — observation tokens carry no gradient.
//!    Optionally a k3 KL penalty to the warm start.
//! 3. Claims measured from the run: reward rises, needless searches fall,
//!    advantages are zero-mean per group, observation logits get no gradient.

use anyhow::{bail, Result};
use candle_core::{Device, Tensor, D};

use super::{Drill, RunCtx, TokenCell, TokenKind, View};
use crate::envs::kb::FactTable;
use crate::envs::qa_world::{QaConfig, QaSession, QaWorld, Question};
use crate::envs::Role;
use crate::ml::base;
use crate::ml::data::{batch, Example, LengthBuckets};
use crate::ml::gpt::Gpt;
use crate::ml::loss::{masked_cross_entropy, token_logprobs};
use crate::ml::optim::{clip_grad_norm, AdamW, AdamWConfig, LrSchedule};
use crate::ml::rng::Rng;
use crate::ml::sample::{generate, Decoding, GenConfig};
use crate::ml::tokenizer::{Bpe, Tokenize, BOS, PAD};
use crate::rl::advantage::{Baseline, GroupNorm};
use crate::rl::entropy::entropy_from_logits;
use crate::rl::kl::kl_k3;
use crate::rl::pg::{aggregate, masked_pg_loss, Aggregation};
use crate::rl::ppo::ppo_clip_loss;
use crate::rl::returns::discounted_returns;

pub struct TurnCreditAssignment;

/// One episode as training rows: token ids, loss mask, per-token advantage,
/// and which tokens the world wrote.
type Seq = (Vec<u32>, Vec<f32>, Vec<f32>, Vec<bool>);

/// An episode with the token ids of every segment, exactly as sampled (so
/// the loss scores the tokens the policy really produced).
#[derive(Debug, Clone)]
struct Rollout {
    session: QaSession,
    ids: Vec<(Role, Vec<u32>)>,
}

impl Rollout {
    fn new(q: Question, tok: &Bpe) -> Rollout {
        let session = QaSession::new(q);
        let ids = vec![(Role::Prompt, tok.encode(&session.transcript))];
        Rollout { session, ids }
    }

    fn context(&self) -> Vec<u32> {
        let mut c = vec![BOS];
        for (_, ids) in &self.ids {
            c.extend(ids);
        }
        c
    }
}

/// Roll every open episode forward one turn at a time, one batched generation per turn.
fn rollouts(
    model: &Gpt,
    tok: &Bpe,
    world: &QaWorld,
    qs: &[Question],
    decoding: Decoding,
    stop: &[u32],
    rng: &mut Rng,
) -> Result<Vec<Rollout>> {
    let mut rs: Vec<Rollout> = qs.iter().map(|q| Rollout::new(q.clone(), tok)).collect();
    while rs.iter().any(|r| !r.session.done) {
        let open: Vec<usize> = (0..rs.len()).filter(|&i| !rs[i].session.done).collect();
        let contexts: Vec<Vec<u32>> = open.iter().map(|&i| rs[i].context()).collect();
        let budget = model.cfg.context.saturating_sub(contexts.iter().map(|c| c.len()).max().unwrap_or(0)).min(16);
        if budget == 0 {
            for &i in &open {
                rs[i].session.done = true;
            }
            break;
        }
        let cfg = GenConfig { max_new: budget, decoding, stop: stop.to_vec(), use_cache: true };
        let outs = generate(model, &contexts, &cfg, rng)?;
        for (&i, out) in open.iter().zip(outs) {
            let before = rs[i].session.episode.segments.len();
            world.apply(&mut rs[i].session, &tok.decode(&out));
            rs[i].ids.push((Role::Agent, out));
            // The environment's reply, if any, as token ids.
            let replies: Vec<(Role, Vec<u32>)> = rs[i].session.episode.segments[before + 1..]
                .iter()
                .map(|(role, text)| (*role, tok.encode(text)))
                .collect();
            rs[i].ids.extend(replies);
        }
    }
    Ok(rs)
}

/// Warm-start trajectories: what the SFT teaches before RL.
#[allow(clippy::too_many_arguments)]
fn warm_start_text(
    world: &QaWorld,
    q: &Question,
    needless: f64,
    wrong: f64,
    capitals: &[String],
    rng: &mut Rng,
) -> Vec<(Role, String)> {
    let mut segs = vec![(Role::Prompt, q.prompt())];
    let searched = !q.known || rng.bool(needless);
    if searched {
        segs.push((Role::Agent, format!("search[{}]\n", q.entity)));
        segs.push((Role::Env, world.search(&q.entity)));
    }
    // The sloppy habit: after a search, sometimes answer something other than what the
    // observation says. Memorised answers stay clean, so answering a known place
    // directly really is the better policy.
    let answer = if searched && rng.bool(wrong) { rng.choose(capitals).clone() } else { q.truth.clone() };
    segs.push((Role::Agent, format!("answer[{answer}]\n")));
    segs
}

struct Stats {
    reward: f64,
    accuracy: f64,
    /// Accuracy on known places when the agent answers without searching: its memory.
    memory_accuracy: f64,
    searches_known: f64,
    searches_unknown: f64,
}

fn stats(rs: &[Rollout]) -> Stats {
    let n = rs.len().max(1) as f64;
    let mean = |f: &dyn Fn(&Rollout) -> Option<f64>| -> f64 {
        let v: Vec<f64> = rs.iter().filter_map(f).collect();
        v.iter().sum::<f64>() / v.len().max(1) as f64
    };
    Stats {
        reward: rs.iter().map(|r| r.session.episode.total_reward() as f64).sum::<f64>() / n,
        accuracy: rs.iter().filter(|r| r.session.episode.correct).count() as f64 / n,
        memory_accuracy: mean(&|r| {
            (r.session.question.known && r.session.episode.searches == 0).then_some(if r.session.episode.correct {
                1.0
            } else {
                0.0
            })
        }),
        searches_known: mean(&|r| r.session.question.known.then_some(r.session.episode.searches as f64)),
        searches_unknown: mean(&|r| (!r.session.question.known).then_some(r.session.episode.searches as f64)),
    }
}

impl Drill for TurnCreditAssignment {
    fn id(&self) -> &'static str {
        "turn-credit-assignment"
    }

    fn run(&self, ctx: &mut RunCtx) -> Result<()> {
        let cfg_world = QaConfig {
            w_correct: ctx.f64("w_correct")? as f32,
            w_format: ctx.f64("w_format")? as f32,
            search_cost: ctx.f64("search_cost")? as f32,
            max_turns: 3,
        };
        let (n_known, needless, wrong) =
            (ctx.usize("known_places")?, ctx.f64("needless_rate")?, ctx.f64("wrong_rate")?);
        let (warm_steps, rl_steps) = (ctx.usize("warm_steps")?, ctx.usize("rl_steps")?);
        let (n_q, group) = (ctx.usize("questions_per_step")?, ctx.usize("group")?);
        let (gamma, kl_coef, temperature) =
            (ctx.f64("gamma")? as f32, ctx.f64("kl_coef")?, ctx.f64("temperature")? as f32);
        let baseline = match ctx.text("baseline")?.as_str() {
            "grpo" => Baseline::Group(GroupNorm::MeanStd),
            "dr-grpo" => Baseline::Group(GroupNorm::MeanOnly),
            "rloo" => Baseline::Rloo,
            "reinforce" => Baseline::None,
            other => bail!("unknown baseline {other}"),
        };
        let turn_credit = ctx.text("credit")? == "turn";
        let mask_obs = ctx.bool("mask_observations")?;
        let (ppo_epochs, clip_eps) = (ctx.usize("ppo_epochs")?, ctx.f64("clip_eps")?);
        let agg = Aggregation::parse(&ctx.text("aggregation")?).unwrap_or(Aggregation::TokenMean);

        ctx.phase("data");
        let kb = FactTable::world();
        let world = QaWorld::new(kb.clone(), cfg_world);
        let mut rng = Rng::new(ctx.seed);
        let mut places: Vec<String> = kb.entities().iter().map(|s| s.to_string()).collect();
        rng.shuffle(&mut places);
        let question = |place: &str, known: bool| Question {
            entity: place.to_string(),
            truth: kb.get(place, "capital").unwrap_or_default().to_string(),
            known,
        };
        let known: Vec<Question> = places[..n_known].iter().map(|p| question(p, true)).collect();
        let unknown: Vec<Question> = places[n_known..].iter().map(|p| question(p, false)).collect();
        let capitals: Vec<String> = known.iter().chain(unknown.iter().take(200)).map(|q| q.truth.clone()).collect();
        ctx.log(format!(
            "{} places the warm start learns by heart, {} that need a search; reward = {}·correct + {} format − {}·searches",
            known.len(),
            unknown.len(),
            cfg_world.w_correct,
            cfg_world.w_format,
            cfg_world.search_cost
        ));

        ctx.phase("warm start (SFT)");
        let (base_model, tok) = base::shipped(&ctx.device)?;
        let stop: Vec<u32> = (0..tok.vocab_size() as u32)
            .filter(|&i| tok.decode(&[i]).contains('\n'))
            .chain([crate::ml::tokenizer::EOS])
            .collect();
        let policy = base_model.fork(ctx.seed)?;
        let mut warm: Vec<Example> = Vec::new();
        for i in 0..4000 {
            // Known places (two in three examples) appear often enough to be memorised;
            // the others teach searching.
            let q = if i % 3 != 0 { &known[rng.below(known.len())] } else { &unknown[rng.below(unknown.len())] };
            let segs = warm_start_text(&world, q, needless, wrong, &capitals, &mut rng);
            let mut ids = vec![BOS];
            let mut train = vec![false];
            for (role, text) in &segs {
                let t = tok.encode(text);
                train.extend(std::iter::repeat_n(*role == Role::Agent, t.len()));
                ids.extend(t);
            }
            warm.push(Example::new(ids, train));
        }
        {
            let vars: Vec<_> = policy.vars().into_values().collect();
            let lr = ctx.f64("lr_sft")?;
            let mut opt = AdamW::new(vars.clone(), AdamWConfig { lr, weight_decay: 0.0, ..Default::default() })?;
            let schedule = LrSchedule { peak: lr, min: lr * 0.1, warmup: 20, total: warm_steps };
            let buckets = LengthBuckets::new(&warm);
            for step in 0..warm_steps {
                ctx.check_cancel()?;
                let picks: Vec<&Example> = buckets.sample(32, &mut rng).into_iter().map(|i| &warm[i]).collect();
                let (x, y) = batch(&picks, &ctx.device)?;
                let loss = masked_cross_entropy(&policy.forward(&x)?, &y)?;
                let v = ctx.finite("warm-start loss", loss.to_scalar::<f32>()? as f64, step)?;
                let mut g = loss.backward()?;
                clip_grad_norm(&mut g, &vars, 1.0)?;
                opt.set_lr(schedule.at(step));
                opt.step(&g)?;
                ctx.metric(step, "warm_start_loss", v);
                ctx.progress(step + 1, warm_steps, 0);
            }
        }
        let reference = policy.fork(ctx.seed)?;
        let decoding = Decoding::Sample { temperature, top_k: None, top_p: None };
        let eval_qs: Vec<Question> =
            (0..256)
                .map(|i| {
                    if i % 2 == 0 {
                        known[i / 2 % known.len()].clone()
                    } else {
                        unknown[i / 2 % unknown.len()].clone()
                    }
                })
                .collect();
        let before =
            stats(&rollouts(&policy, &tok, &world, &eval_qs, decoding, &stop, &mut Rng::new(ctx.seed ^ 0xe0))?);
        ctx.log(format!(
            "warm start: mean reward {:.3}, accuracy {:.2} (from memory on known places {:.2}), searches per episode {:.2} on known places and {:.2} on the others",
            before.reward, before.accuracy, before.memory_accuracy, before.searches_known, before.searches_unknown
        ));

        ctx.phase("RL");
        let vars: Vec<_> = policy.vars().into_values().collect();
        let lr_rl = ctx.f64("lr_rl")?;
        let mut opt = AdamW::new(vars.clone(), AdamWConfig { lr: lr_rl, weight_decay: 0.0, ..Default::default() })?;
        let mut rewards_hist = Vec::new();
        let mut max_group_mean = 0f64;
        let mut last_batch = None;
        for step in 0..rl_steps {
            ctx.check_cancel()?;
            let qs: Vec<Question> = (0..n_q)
                .map(|i| if (step + i) % 2 == 0 { rng.choose(&known).clone() } else { rng.choose(&unknown).clone() })
                .collect();
            let all_q: Vec<Question> = qs.iter().flat_map(|q| std::iter::repeat_n(q.clone(), group)).collect();
            let rs = rollouts(&policy, &tok, &world, &all_q, decoding, &stop, &mut rng)?;

            // Per-turn returns and advantages, group by group.
            let mut turn_adv: Vec<Vec<f32>> = Vec::with_capacity(rs.len());
            let (mut zero_std, mut stds) = (0usize, Vec::new());
            for g in rs.chunks(group) {
                let returns: Vec<Vec<f32>> = g
                    .iter()
                    .map(|r| {
                        let tr = &r.session.episode.turn_rewards;
                        if turn_credit {
                            discounted_returns(tr, gamma)
                        } else {
                            vec![tr.iter().sum(); tr.len()]
                        }
                    })
                    .collect();
                let totals: Vec<f32> = returns.iter().map(|r| r.first().copied().unwrap_or(0.0)).collect();
                let (_, sd) = crate::rl::advantage::mean_std(&totals);
                stds.push(sd as f64);
                if sd < 1e-6 {
                    zero_std += 1;
                }
                // A group whose episodes all score the same carries no signal
                // for a group baseline: every advantage in it is zero. (Without
                // this, GRPO's division by a std of ~0 would blow up float noise
                // and the later turns' returns-to-go.)
                let silent = sd < 1e-4 && baseline != Baseline::None;
                let adv0 = if silent { vec![0.0; totals.len()] } else { baseline.advantages(&totals) };
                max_group_mean = max_group_mean.max((adv0.iter().sum::<f32>() / adv0.len() as f32).abs() as f64);
                // Every turn's return-to-go against the episode-level baseline of its group.
                let (base, scale) = baseline.baseline_and_scale(&totals);
                for (r, b_i) in returns.iter().zip(&base) {
                    turn_adv.push(r.iter().map(|g_t| if silent { 0.0 } else { (g_t - b_i) / scale }).collect());
                }
            }

            // The batch: every episode's tokens; mask = agent tokens (or all, if the mask is off).
            let seqs: Vec<Seq> = rs
                .iter()
                .zip(&turn_adv)
                .map(|(r, adv)| {
                    let (mut ids, mut mask, mut a, mut obs) = (vec![BOS], vec![0f32], vec![0f32], vec![false]);
                    let mut turn = 0usize;
                    let mut cur = 0f32;
                    for (role, t) in &r.ids {
                        if *role == Role::Agent {
                            cur = adv.get(turn).copied().unwrap_or(0.0);
                            turn += 1;
                        }
                        let m = match role {
                            Role::Agent => 1.0,
                            Role::Env if !mask_obs => 1.0,
                            _ => 0.0,
                        };
                        ids.extend(t);
                        mask.extend(std::iter::repeat_n(m, t.len()));
                        a.extend(std::iter::repeat_n(cur, t.len()));
                        obs.extend(std::iter::repeat_n(*role == Role::Env, t.len()));
                    }
                    (ids, mask, a, obs)
                })
                .collect();
            let tmax = seqs.iter().map(|s| s.0.len()).max().unwrap_or(2);
            let b = seqs.len();
            let pad =
                |v: &Vec<u32>| -> Vec<u32> { v.iter().copied().chain(std::iter::repeat(PAD)).take(tmax).collect() };
            let padf =
                |v: &Vec<f32>| -> Vec<f32> { v.iter().copied().chain(std::iter::repeat(0.0)).take(tmax).collect() };
            let x = Tensor::from_vec(seqs.iter().flat_map(|s| pad(&s.0)).collect::<Vec<_>>(), (b, tmax), &ctx.device)?;
            // Targets are the next tokens: drop position 0 of masks/advantages.
            let shift = |v: Vec<f32>| -> Vec<f32> { v[1..].to_vec() };
            let mask = Tensor::from_vec(
                seqs.iter().flat_map(|s| shift(padf(&s.1))).collect::<Vec<_>>(),
                (b, tmax - 1),
                &ctx.device,
            )?;
            let adv = Tensor::from_vec(
                seqs.iter().flat_map(|s| shift(padf(&s.2))).collect::<Vec<_>>(),
                (b, tmax - 1),
                &ctx.device,
            )?;
            let targets = x.narrow(1, 1, tmax - 1)?;
            let agent_mask = Tensor::from_vec(
                seqs.iter()
                    .flat_map(|s| shift(padf(&s.1.iter().zip(&s.3).map(|(m, o)| if *o { 0.0 } else { *m }).collect())))
                    .collect::<Vec<_>>(),
                (b, tmax - 1),
                &ctx.device,
            )?;
            let ref_logp = token_logprobs(&reference.forward(&x)?.narrow(1, 0, tmax - 1)?, &targets)?.detach();
            // One update is the plain policy gradient. With ppo_epochs > 1 the
            // same rollouts are reused, and the clipped ratio to the sampling
            // policy keeps the later updates close to it.
            let mut old_logp: Option<Tensor> = None;
            let (mut loss_v, mut kl_v, mut clip_frac) = (0.0, 0.0, 0.0);
            let mut logits = None;
            for _ in 0..ppo_epochs {
                let lg = policy.forward(&x)?;
                let logp = token_logprobs(&lg.narrow(1, 0, tmax - 1)?, &targets)?;
                let old = old_logp.get_or_insert_with(|| logp.detach()).clone();
                let pg = if ppo_epochs > 1 {
                    let out = ppo_clip_loss(&logp, &old, &adv, &mask, clip_eps, agg)?;
                    clip_frac = out.clip_frac;
                    out.loss
                } else {
                    masked_pg_loss(&logp, &adv, &mask, agg)?
                };
                let kl = aggregate(&kl_k3(&logp, &ref_logp)?.mul(&agent_mask)?, &agent_mask, Aggregation::TokenMean)?;
                let loss = if kl_coef > 0.0 { (&pg + (&kl * kl_coef)?)? } else { pg.clone() };
                loss_v = ctx.finite("RL loss", loss.to_scalar::<f32>()? as f64, step)?;
                kl_v = kl.to_scalar::<f32>()? as f64;
                let mut grads = loss.backward()?;
                clip_grad_norm(&mut grads, &vars, 1.0)?;
                opt.step(&grads)?;
                logits.get_or_insert(lg);
            }
            let logits = logits.ok_or_else(|| anyhow::anyhow!("ppo_epochs must be at least 1"))?;
            let inputs = logits.narrow(1, 0, tmax - 1)?;

            let st = stats(&rs);
            rewards_hist.push(st.reward);
            let ent = aggregate(
                &entropy_from_logits(&inputs.detach())?.mul(&agent_mask)?,
                &agent_mask,
                Aggregation::TokenMean,
            )?
            .to_scalar::<f32>()? as f64;
            let resp_len = agent_mask.sum_all()?.to_scalar::<f32>()? as f64 / b as f64;
            ctx.metric(step, "mean_reward", st.reward);
            ctx.metric(step, "reward_std", stds.iter().sum::<f64>() / stds.len().max(1) as f64);
            ctx.metric(step, "zero_std_groups", zero_std as f64 / (b / group).max(1) as f64);
            ctx.metric(step, "searches_known", st.searches_known);
            ctx.metric(step, "searches_unknown", st.searches_unknown);
            ctx.metric(step, "accuracy", st.accuracy);
            ctx.metric(step, "kl_to_warm_start", kl_v);
            if ppo_epochs > 1 {
                ctx.metric(step, "ppo_clip_fraction", clip_frac);
            }
            ctx.metric(step, "entropy", ent);
            ctx.metric(step, "response_tokens", resp_len);
            ctx.metric(step, "pg_loss (not a progress signal)", loss_v);
            ctx.progress(step + 1, rl_steps, 0);
            last_batch = Some((x, mask, adv, logits, seqs, rs));
        }

        ctx.phase("evaluate");
        let after = stats(&rollouts(&policy, &tok, &world, &eval_qs, decoding, &stop, &mut Rng::new(ctx.seed ^ 0xe1))?);
        ctx.log(format!(
            "after RL: mean reward {:.3}, accuracy {:.2} (from memory on known places {:.2}), searches per episode {:.2} on known places and {:.2} on the others",
            after.reward, after.accuracy, after.memory_accuracy, after.searches_known, after.searches_unknown
        ));
        ctx.view(View::Table {
            title: "Before and after RL (256 sampled episodes each)".into(),
            header: vec![
                "".into(),
                "mean reward".into(),
                "accuracy".into(),
                "searches, known".into(),
                "searches, others".into(),
            ],
            rows: vec![
                vec![
                    "warm start".into(),
                    format!("{:.3}", before.reward),
                    format!("{:.2}", before.accuracy),
                    format!("{:.2}", before.searches_known),
                    format!("{:.2}", before.searches_unknown),
                ],
                vec![
                    "after RL".into(),
                    format!("{:.3}", after.reward),
                    format!("{:.2}", after.accuracy),
                    format!("{:.2}", after.searches_known),
                    format!("{:.2}", after.searches_unknown),
                ],
            ],
        });

        // The gradient of the loss with respect to the logits, position by position.
        let Some((x, mask, adv, logits, seqs, rs)) = last_batch else { bail!("no RL step ran (rl_steps = 0)") };
        let (b, tmax) = x.dims2()?;
        let probe = Tensor::from_vec(logits.flatten_all()?.to_vec1::<f32>()?, logits.shape(), &Device::Cpu)?;
        let probe = candle_core::Var::from_tensor(&probe)?;
        let targets = x.to_device(&Device::Cpu)?.narrow(1, 1, tmax - 1)?;
        let logp = token_logprobs(&probe.as_tensor().narrow(1, 0, tmax - 1)?, &targets)?;
        let loss = masked_pg_loss(&logp, &adv.to_device(&Device::Cpu)?, &mask.to_device(&Device::Cpu)?, agg)?;
        let g = loss
            .backward()?
            .get(probe.as_tensor())
            .cloned()
            .ok_or_else(|| anyhow::anyhow!("no gradient reached the logits"))?;
        let gn = g.abs()?.max(D::Minus1)?.to_vec2::<f32>()?;
        let (mut obs_max, mut agent_max) = (0f32, 0f32);
        for (s, row) in seqs.iter().zip(&gn).take(b) {
            for (t, &g_t) in row.iter().enumerate().take(tmax - 1) {
                // Position t predicts token t + 1.
                let is_obs = s.3.get(t + 1).copied().unwrap_or(false);
                let is_agent = s.1.get(t + 1).copied().unwrap_or(0.0) > 0.0 && !is_obs;
                if is_obs {
                    obs_max = obs_max.max(g_t);
                } else if is_agent {
                    agent_max = agent_max.max(g_t);
                }
            }
        }
        ctx.log(format!(
            "largest |∂loss/∂logit| at observation positions: {obs_max:e}; at agent positions: {agent_max:e}"
        ));
        if let Some((r, s)) = rs.iter().zip(&seqs).find(|(r, _)| r.session.episode.searches > 0) {
            let mut cells = Vec::new();
            let mut pos = 1usize;
            for (role, ids) in &r.ids {
                for &id in ids {
                    let kind = match role {
                        Role::Prompt => TokenKind::Prompt,
                        Role::Env if mask_obs => TokenKind::Masked,
                        _ => TokenKind::Trained,
                    };
                    let value = (kind == TokenKind::Trained).then(|| s.2.get(pos).copied().unwrap_or(0.0));
                    cells.push(TokenCell { text: tok.decode(&[id]), kind, value });
                    pos += 1;
                }
            }
            ctx.view(View::Tokens {
                title: "An RL episode: per-token advantage".into(),
                tokens: cells,
                legend: "agent tokens coloured by their advantage (green > 0, red < 0); observation tokens struck through: masked, no gradient".into(),
            });
        }

        let n = rewards_hist.len();
        let tail = &rewards_hist[n - (n / 10).max(1)..];
        let final_reward = tail.iter().sum::<f64>() / tail.len() as f64;
        ctx.claim("reward_gain", final_reward - before.reward)?;
        ctx.claim("needless_search_drop", before.searches_known - after.searches_known)?;
        ctx.claim("group_advantage_mean", max_group_mean)?;
        ctx.claim("observation_logit_grad", obs_max as f64)?;
        Ok(())
    }
}
