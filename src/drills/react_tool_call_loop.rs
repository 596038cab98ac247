//! `react-tool-call-loop`: a tiny GPT learns to act in a ReAct loop with real
//! tools, trained with label masking, and a twin trained without the mask
//! shows the failure the mask prevents.
//!
//! 1. Tasks about a fictional world (`assets/world/facts.tsv`): look a fact
//!    up, compute, both, or neither. Places are split: held-out questions name
//!    places never seen in training, with new numbers.
//! 2. An oracle policy solves each training task *in the real loop*
//!    (`envs::react`), producing trajectories whose observations the tools
//!    wrote.
//! 3. SFT with label masking: only agent lines are trained (prompt and
//!    observation tokens get label −100). A second model trains on every token.
//! 4. Evaluation in the real loop with the real tools, batched over episodes:
//!    success, tool-call validity, steps. A probe lets each model continue
//!    right after its own action line, where the environment should speak:
//!    does it write `Observation:` itself?

use anyhow::{bail, Result};

use super::{Drill, RunCtx, TokenCell, TokenKind, View};
use crate::envs::kb::FactTable;
use crate::envs::react::{Session, Tools};
use crate::envs::{joined, Role};
use crate::ml::base;
use crate::ml::data::{batch, Example, LengthBuckets};
use crate::ml::gpt::Gpt;
use crate::ml::loss::masked_cross_entropy;
use crate::ml::optim::{clip_grad_norm, AdamW, AdamWConfig, LrSchedule};
use crate::ml::rng::Rng;
use crate::ml::sample::{generate, GenConfig};
use crate::ml::tokenizer::{Bpe, Tokenize, BOS, EOS};

pub struct ReactToolCallLoop;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Lookup,
    Calc,
    Both,
    Direct,
}

#[derive(Debug, Clone)]
struct Task {
    question: String,
    truth: String,
    kind: Kind,
    /// The oracle's agent lines, computed from the observations as they come.
    plan: Plan,
}

#[derive(Debug, Clone)]
enum Plan {
    Lookup { entity: String, attr: String },
    Calc { expr: String },
    Both { entity: String, attr: String, op: char, n: i64 },
    Direct { text: String },
}

const ATTRS: [&str; 4] = ["population", "founded", "capital", "flag"];

fn make_task(rng: &mut Rng, kb: &FactTable, places: &[String]) -> Task {
    let place = rng.choose(places).clone();
    match rng.below(4) {
        0 => {
            let attr = ATTRS[rng.below(4)].to_string();
            let truth = kb.get(&place, &attr).unwrap_or_default().to_string();
            Task {
                question: format!("{attr} of {place}?"),
                truth,
                kind: Kind::Lookup,
                plan: Plan::Lookup { entity: place, attr },
            }
        }
        1 => {
            // Fixed widths (3 and 2 digits) keep the copying simple for a tiny model.
            let (a, b) = (rng.range(100, 999), rng.range(10, 99));
            let op = *rng.choose(&['+', '-', '*']);
            let expr = format!("{a} {op} {b}");

            let truth = crate::envs::calculator::Calculator.eval(&expr).map(|v| v.to_string()).unwrap_or_default();
            Task { question: format!("{expr}?"), truth, kind: Kind::Calc, plan: Plan::Calc { expr } }
        }
        2 => {
            let attr = if rng.bool(0.5) { "population" } else { "founded" }.to_string();
            let n = rng.range(10, 99);
            let op = if rng.bool(0.5) { '+' } else { '-' };
            let base: i64 = kb.get(&place, &attr).and_then(|v| v.parse().ok()).unwrap_or(0);
            let truth = if op == '+' { base + n } else { base - n }.to_string();
            Task {
                question: format!("{attr} of {place} {op} {n}?"),
                truth,
                kind: Kind::Both,
                plan: Plan::Both { entity: place, attr, op, n },
            }
        }
        _ => Task {
            question: format!("repeat {place}"),
            truth: place.clone(),
            kind: Kind::Direct,
            plan: Plan::Direct { text: place },
        },
    }
}

/// The oracle's next line, given the transcript so far: it reads the
/// observations, and after an error it simply tries the right call again.
fn oracle_turn(task: &Task, transcript: &str) -> String {
    let obs: Vec<&str> = transcript.lines().filter_map(|l| l.strip_prefix("Observation: ")).collect();
    let ok: Vec<&str> = obs.iter().copied().filter(|o| !o.starts_with("error")).collect();
    let answer = |v: &str| format!("Final Answer: {v}\n");
    match (&task.plan, ok.len()) {
        (Plan::Direct { text }, _) => answer(text),
        // Tool inputs repeat the question's words in the question's order.
        (Plan::Lookup { entity, attr }, 0) | (Plan::Both { entity, attr, .. }, 0) => {
            format!("Action: lookup[{attr} of {entity}]\n")
        }
        (Plan::Calc { expr }, 0) => format!("Action: calc[{expr}]\n"),
        (Plan::Both { op, n, .. }, 1) => format!("Action: calc[{} {op} {n}]\n", ok[0]),
        (_, _) => answer(ok.last().copied().unwrap_or("?")),
    }
}

/// One character of a name changed: the kind of slip a small model makes.
fn misspell(name: &str, rng: &mut Rng) -> String {
    let mut chars: Vec<char> = name.chars().collect();
    let i = 1 + rng.below(chars.len().saturating_sub(1).max(1));
    let i = i.min(chars.len() - 1);
    let options: Vec<char> = "aeioulnrst".chars().filter(|c| *c != chars[i]).collect();
    chars[i] = *rng.choose(&options);
    chars.into_iter().collect()
}

/// A solved trajectory, and which agent segments the loss must skip.
struct Solved {
    session: Session,
    /// Indices of segments that are deliberate mistakes: kept in the context
    /// so the model learns to recover from the error they cause, never trained.
    mistakes: Vec<usize>,
}

/// Solve a task in the real loop with the oracle; with probability
/// `slip_rate` the first lookup misspells the place, and the oracle recovers.
fn solve(task: &Task, tools: &Tools, slip_rate: f64, rng: &mut Rng) -> Solved {
    let mut s = Session::new(&task.question);
    let mut mistakes = Vec::new();
    if let Plan::Lookup { entity, attr } | Plan::Both { entity, attr, .. } = &task.plan {
        if rng.bool(slip_rate) {
            mistakes.push(s.episode.segments.len());
            s.apply(&format!("Action: lookup[{attr} of {}]\n", misspell(entity, rng)), tools, 6);
        }
    }
    while !s.done {
        let turn = oracle_turn(task, &s.transcript);
        s.apply(&turn, tools, 6);
    }
    Solved { session: s, mistakes }
}

/// Tokens of a trajectory and which ones the loss trains: agent text only when
/// `mask` is on, everything when off (the first token is never a target).
/// Segments listed in `skip` are never trained.
fn example(tok: &Bpe, segments: &[(Role, String)], mask: bool, skip: &[usize]) -> Example {
    let mut tokens = vec![BOS];
    let mut train = vec![false];
    for (k, (role, text)) in segments.iter().enumerate() {
        let ids = tok.encode(text);
        let trained = (!mask || *role == Role::Agent) && !skip.contains(&k);
        train.extend(std::iter::repeat_n(trained, ids.len()));
        tokens.extend(ids);
    }
    tokens.push(EOS);
    train.push(true);
    Example::new(tokens, train)
}

/// Token ids as the model sees a trajectory: BOS, then each segment encoded
/// on its own (as in training, so token boundaries match at segment edges).
fn encode_segments(tok: &Bpe, segments: &[(Role, String)]) -> Vec<u32> {
    let mut ids = vec![BOS];
    for (_, text) in segments {
        ids.extend(tok.encode(text));
    }
    ids
}

/// Tokens that end a turn: any whose text contains a newline, and EOS.
fn stop_ids(tok: &Bpe) -> Vec<u32> {
    let mut ids: Vec<u32> = (0..tok.vocab_size() as u32).filter(|&i| tok.decode(&[i]).contains('\n')).collect();
    ids.push(EOS);
    ids
}

/// Generate one line for every given context at once (greedy), stopping at a newline.
fn turns(model: &Gpt, tok: &Bpe, contexts: &[Vec<u32>], max_new: usize) -> Result<Vec<String>> {
    let out = generate(model, contexts, &GenConfig::greedy(max_new, stop_ids(tok)), &mut Rng::new(0))?;
    Ok(out.iter().map(|o| tok.decode(o)).collect())
}

#[derive(Debug, Clone, Default)]
struct Eval {
    success: f64,
    validity: f64,
    steps: f64,
    sessions: Vec<Session>,
}

/// Run every task through the real loop, one batched generation per turn.
fn evaluate(model: &Gpt, tok: &Bpe, tasks: &[Task], tools: &Tools, max_steps: usize) -> Result<Eval> {
    const MAX_TURN: usize = 24;
    let mut sessions: Vec<Session> = tasks.iter().map(|t| Session::new(&t.question)).collect();
    while sessions.iter().any(|s| !s.done) {
        let open: Vec<usize> = (0..sessions.len()).filter(|&i| !sessions[i].done).collect();
        let contexts: Vec<(usize, Vec<u32>)> =
            open.iter().map(|&i| (i, encode_segments(tok, &sessions[i].episode.segments))).collect();
        // A transcript that no longer fits the context ends the episode unanswered.
        let (fits, full): (Vec<_>, Vec<_>) =
            contexts.into_iter().partition(|(_, c)| c.len() + MAX_TURN < model.cfg.context);
        for (i, _) in full {
            sessions[i].done = true;
        }
        if fits.is_empty() {
            break;
        }
        let ctxs: Vec<Vec<u32>> = fits.iter().map(|(_, c)| c.clone()).collect();
        let fits: Vec<usize> = fits.iter().map(|(i, _)| *i).collect();
        let lines = turns(model, tok, &ctxs, MAX_TURN)?;
        for (&i, line) in fits.iter().zip(lines) {
            sessions[i].apply(&line, tools, max_steps);
        }
    }
    let n = tasks.len().max(1) as f64;
    let success =
        tasks.iter().zip(&sessions).filter(|(t, s)| s.episode.answer.as_deref() == Some(t.truth.as_str())).count()
            as f64
            / n;
    let (calls, valid): (usize, usize) =
        sessions.iter().fold((0, 0), |(c, v), s| (c + s.episode.tool_calls, v + s.episode.valid_calls));
    let validity = if calls == 0 { 0.0 } else { valid as f64 / calls as f64 };
    let steps = sessions.iter().map(|s| s.episode.steps as f64).sum::<f64>() / n;
    Ok(Eval { success, validity, steps, sessions })
}

/// Let the model continue right after its first action line, where the
/// environment should write the observation. Fraction that write `Observation:` themselves.
fn hallucination_rate(model: &Gpt, tok: &Bpe, tasks: &[Task]) -> Result<f64> {
    // The question and the correct first action; the observation is what is withheld.
    let prefixes: Vec<Vec<u32>> = tasks
        .iter()
        .filter(|t| t.kind != Kind::Direct)
        .map(|t| {
            let s = Session::new(&t.question);
            let mut segs = s.episode.segments.clone();
            segs.push((Role::Agent, oracle_turn(t, &s.transcript)));
            encode_segments(tok, &segs)
        })
        .collect();
    if prefixes.is_empty() {
        return Ok(0.0);
    }
    let lines = turns(model, tok, &prefixes, 24)?;
    Ok(lines.iter().filter(|l| l.starts_with("Observation")).count() as f64 / lines.len() as f64)
}

/// Masked CE recomputed by hand from the logits: −log softmax at the label,
/// averaged over kept positions only.
fn reference_ce(logits: &[Vec<Vec<f32>>], labels: &[Vec<i64>]) -> (f64, f64) {
    let (mut sum, mut kept, mut all) = (0.0, 0usize, 0usize);
    for (lb, yb) in logits.iter().zip(labels) {
        for (z, &y) in lb.iter().zip(yb) {
            all += 1;
            if y < 0 {
                continue;
            }
            let m = z.iter().cloned().fold(f32::MIN, f32::max) as f64;
            let lse = m + z.iter().map(|&v| (v as f64 - m).exp()).sum::<f64>().ln();
            sum += lse - z[y as usize] as f64;
            kept += 1;
        }
    }
    (sum / kept.max(1) as f64, kept as f64 / all.max(1) as f64)
}

/// Train `model` on `data` for `steps` (AdamW, warmup + cosine, clipping),
/// charting the loss as `loss_<label>`; with `probe`, score held-out
/// questions in the real loop five times along the way.
#[allow(clippy::too_many_arguments)]
fn fit(
    ctx: &mut RunCtx,
    model: &Gpt,
    label: &str,
    data: &[Example],
    steps: usize,
    lr: f64,
    probe: Option<(&[Task], &Bpe, &Tools)>,
    seed: u64,
) -> Result<f64> {
    let batch_size = ctx.usize("batch")?;
    let vars: Vec<_> = model.vars().into_values().collect();
    let mut opt = AdamW::new(vars.clone(), AdamWConfig { lr, weight_decay: 0.0, ..Default::default() })?;
    let schedule = LrSchedule { peak: lr, min: lr * 0.1, warmup: (steps / 10).min(50), total: steps };
    let mut rng = Rng::new(seed ^ 0xda7a);
    let buckets = LengthBuckets::new(data);
    let mut tokens_seen = 0u64;
    let eval_every = (steps / 5).max(1);
    let mut probe_success = 0.0;
    for step in 0..steps {
        ctx.check_cancel()?;
        let picks: Vec<&Example> = buckets.sample(batch_size, &mut rng).into_iter().map(|i| &data[i]).collect();
        tokens_seen += picks.iter().map(|e| e.len() as u64).sum::<u64>();
        let (x, y) = batch(&picks, &ctx.device)?;
        let loss = masked_cross_entropy(&model.forward(&x)?, &y)?;
        let v = ctx.finite("loss", loss.to_scalar::<f32>()? as f64, step)?;
        let mut grads = loss.backward()?;
        clip_grad_norm(&mut grads, &vars, 1.0)?;
        opt.set_lr(schedule.at(step));
        opt.step(&grads)?;
        ctx.metric(step, &format!("loss_{label}"), v);
        if let Some((tasks, tok, tools)) = probe {
            if (step + 1) % eval_every == 0 || step + 1 == steps {
                probe_success = evaluate(model, tok, tasks, tools, 6)?.success;
                ctx.metric(step, &format!("probe_success_{label}"), probe_success);
            }
        }
        ctx.progress(step + 1, steps, tokens_seen);
    }
    Ok(probe_success)
}

impl Drill for ReactToolCallLoop {
    fn id(&self) -> &'static str {
        "react-tool-call-loop"
    }

    fn run(&self, ctx: &mut RunCtx) -> Result<()> {
        let n_train = ctx.usize("train_tasks")?;
        let n_eval = ctx.usize("eval_tasks")?;
        let max_steps = ctx.usize("max_steps")?;

        ctx.phase("data");
        let kb = FactTable::world();
        let tools = Tools::new(kb.clone());
        let mut rng = Rng::new(ctx.seed);
        let mut places: Vec<String> = kb.entities().iter().map(|s| s.to_string()).collect();
        rng.shuffle(&mut places);
        let held_out = places.split_off(places.len() * 3 / 4);
        let train_tasks: Vec<Task> = (0..n_train).map(|_| make_task(&mut rng, &kb, &places)).collect();
        let eval_tasks: Vec<Task> = (0..n_eval).map(|_| make_task(&mut rng, &kb, &held_out)).collect();
        let probe_tasks: Vec<Task> = eval_tasks.iter().take(40).cloned().collect();
        let slip_rate = ctx.f64("slip_rate")?;
        let solved: Vec<Solved> = train_tasks.iter().map(|t| solve(t, &tools, slip_rate, &mut rng)).collect();
        let slips = solved.iter().filter(|s| !s.mistakes.is_empty()).count();
        // The lab's base model and its BPE tokenizer (`src/ml/base.rs`).
        let (shipped, tok) = base::shipped(&ctx.device)?;
        let cfg = shipped.cfg.clone();
        let base_model = match ctx.text("start_from")?.as_str() {
            "random" => Gpt::new(cfg.clone(), ctx.seed ^ 0x5eed, &ctx.device)?,
            _ => shipped,
        };
        ctx.log(format!(
            "starting from the {} model: {} parameters, BPE vocabulary of {}",
            ctx.text("start_from")?,
            base_model.num_params(),
            tok.vocab_size()
        ));
        let oracle_ok = train_tasks
            .iter()
            .zip(&solved)
            .filter(|(t, s)| s.session.episode.answer.as_deref() == Some(t.truth.as_str()))
            .count();
        ctx.log(format!(
            "{n_train} oracle trajectories over {} places ({oracle_ok} solved in the real loop; {slips} recover from a misspelt lookup); {n_eval} held-out questions about {} unseen places",
            places.len(),
            held_out.len()
        ));
        let masked: Vec<Example> =
            solved.iter().map(|s| example(&tok, &s.session.episode.segments, true, &s.mistakes)).collect();
        let unmasked: Vec<Example> =
            solved.iter().map(|s| example(&tok, &s.session.episode.segments, false, &s.mistakes)).collect();
        let longest = masked.iter().map(|e| e.len()).max().unwrap_or(0);
        let share = masked.iter().map(|e| e.trained_tokens()).sum::<usize>() as f64
            / unmasked.iter().map(|e| e.trained_tokens()).sum::<usize>().max(1) as f64;
        ctx.log(format!("longest trajectory {longest} tokens; the mask keeps {:.0}% of the targets", share * 100.0));

        // The teaching view: one trajectory, token by token.
        let both = solved
            .iter()
            .zip(&train_tasks)
            .find(|(s, t)| t.kind == Kind::Both && !s.mistakes.is_empty())
            .map(|(s, _)| s)
            .unwrap_or(&solved[0]);
        let mut cells = Vec::new();
        for (k, (role, text)) in both.session.episode.segments.iter().enumerate() {
            for id in tok.encode(text) {
                let kind = match role {
                    Role::Agent if !both.mistakes.contains(&k) => TokenKind::Trained,
                    Role::Env | Role::Agent => TokenKind::Masked,
                    Role::Prompt => TokenKind::Prompt,
                };
                cells.push(TokenCell { text: tok.decode(&[id]), kind, value: None });
            }
        }
        ctx.view(View::Tokens {
            title: "A training trajectory, token by token".into(),
            tokens: cells,
            legend: "green: agent tokens (trained) · red, struck: label −100 — observations written by the tools, and the misspelt first lookup (kept in context to learn recovery, never trained) · grey: the question".into(),
        });

        if longest + 30 > cfg.context {
            bail!("the longest trajectory ({longest} tokens) does not fit the base model's context of {}", cfg.context);
        }
        let (steps, lr) = (ctx.usize("steps")?, ctx.f64("lr")?);
        ctx.phase("before SFT");
        let base = evaluate(&base_model, &tok, &eval_tasks, &tools, max_steps)?;
        ctx.log(format!("before SFT (the starting model in the loop): held-out success {:.3}", base.success));

        ctx.phase("SFT with the mask");
        let masked_model = base_model.fork(ctx.seed)?;
        let pm = fit(ctx, &masked_model, "masked", &masked, steps, lr, Some((&probe_tasks, &tok, &tools)), ctx.seed)?;
        ctx.phase("SFT without the mask");
        let unmasked_model = base_model.fork(ctx.seed)?;
        let pu =
            fit(ctx, &unmasked_model, "unmasked", &unmasked, steps, lr, Some((&probe_tasks, &tok, &tools)), ctx.seed)?;
        ctx.log(format!("probe success during training: masked {pm:.2}, unmasked {pu:.2}"));

        ctx.phase("evaluate in the loop");
        let untrained = &base_model;
        let em = evaluate(&masked_model, &tok, &eval_tasks, &tools, max_steps)?;
        let eu = evaluate(&unmasked_model, &tok, &eval_tasks, &tools, max_steps)?;
        let hm = hallucination_rate(&masked_model, &tok, &eval_tasks)?;
        let hu = hallucination_rate(&unmasked_model, &tok, &eval_tasks)?;
        let hb = hallucination_rate(untrained, &tok, &eval_tasks)?;

        // Masked CE against a reference computed by hand on the kept tokens.
        let picks: Vec<&Example> = masked.iter().take(8).collect();
        let (x, y) = batch(&picks, &ctx.device)?;
        let logits = masked_model.forward(&x)?;
        let ce = masked_cross_entropy(&logits, &y)?.to_scalar::<f32>()? as f64;
        let (reference, kept_share) = reference_ce(&logits.to_vec3::<f32>()?, &y.to_vec2::<i64>()?);
        let all_labels = {
            let ups: Vec<&Example> = unmasked.iter().take(8).collect();
            let (_, yu) = batch(&ups, &ctx.device)?;
            reference_ce(&logits.to_vec3::<f32>()?, &yu.to_vec2::<i64>()?).0
        };
        ctx.log(format!(
            "masked CE on a batch: {ce:.6} (code) vs {reference:.6} (by hand over the {:.0}% kept positions); averaging over every token would give {all_labels:.4}",
            kept_share * 100.0
        ));

        let row = |name: &str, e: &Eval, h: f64| {
            vec![
                name.to_string(),
                format!("{:.2}", e.success),
                format!("{:.2}", e.validity),
                format!("{:.2}", e.steps),
                format!("{h:.2}"),
            ]
        };
        ctx.view(View::Table {
            title: "Held-out evaluation in the real loop".into(),
            header: vec![
                "model".into(),
                "success".into(),
                "valid calls".into(),
                "steps".into(),
                "writes Observation".into(),
            ],
            rows: vec![row("untrained", &base, hb), row("SFT, masked", &em, hm), row("SFT, unmasked", &eu, hu)],
        });
        let show: Vec<String> = em
            .sessions
            .iter()
            .zip(&eval_tasks)
            .take(6)
            .map(|(s, t)| format!("{}→ truth {}\n", joined(&s.episode.segments), t.truth))
            .collect();
        ctx.view(View::Text {
            title: "Masked model on held-out questions (unseen places)".into(),
            body: show.join("\n"),
        });
        if let Some((s, _)) = eu.sessions.iter().zip(&eval_tasks).find(|(s, _)| s.episode.hallucinated_observations > 0)
        {
            ctx.view(View::Text {
                title: "Unmasked model, an episode where it wrote an observation".into(),
                body: joined(&s.episode.segments),
            });
        }
        let kinds =
            [(Kind::Lookup, "lookup"), (Kind::Calc, "calc"), (Kind::Both, "lookup + calc"), (Kind::Direct, "no tool")];
        let mut by_kind = Vec::new();
        for (k, name) in kinds {
            let rate = |e: &Eval| -> String {
                let (mut n, mut ok) = (0, 0);
                for (t, s) in eval_tasks.iter().zip(&e.sessions).filter(|(t, _)| t.kind == k) {
                    n += 1;
                    ok += usize::from(s.episode.answer.as_deref() == Some(t.truth.as_str()));
                }
                format!("{ok}/{n}")
            };
            by_kind.push(vec![name.to_string(), rate(&base), rate(&em), rate(&eu)]);
        }
        ctx.view(View::Table {
            title: "Held-out success by kind of question".into(),
            header: vec!["needs".into(), "untrained".into(), "masked".into(), "unmasked".into()],
            rows: by_kind.clone(),
        });
        ctx.log(format!("by kind (untrained, masked, unmasked): {by_kind:?}"));
        ctx.metric(0, "heldout_success_masked", em.success);
        ctx.metric(0, "heldout_success_unmasked", eu.success);
        ctx.metric(0, "heldout_success_untrained", base.success);
        ctx.log(format!(
            "held-out success: untrained {:.3}, masked {:.3}, unmasked {:.3}; writes Observation itself: masked {hm:.2}, unmasked {hu:.2}",
            base.success, em.success, eu.success
        ));

        ctx.claim("trained_success", em.success)?;
        ctx.claim("gain_over_untrained", em.success - base.success)?;
        ctx.claim("masked_ce_matches_reference", (ce - reference).abs())?;
        ctx.claim("hallucination_gap", hu - hm)?;
        Ok(())
    }
}
