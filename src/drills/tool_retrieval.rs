//! `tool-retrieval`: with thousands of tools, an agent first retrieves a few
//! candidates. A bi-encoder trained with InfoNCE (`src/rl/info_nce.rs`) is
//! set against BM25 (`src/eval/retrieval.rs`) on tools it never trained on,
//! and trained three ways on the same batches: with in-batch negatives only,
//! with `hard_negatives` random extra negatives per query, and with as many
//! hard negatives — near-duplicates of each tool, tools that differ in one
//! slot (`get_weather_forecast` vs `get_weather_history`).
//!
//! Phases of `run`:
//!
//! 1. **data** — the tool world (`src/envs/tool_world.rs`): verb × object ×
//!    qualifier tools, whole verb-object families held out; held-out queries
//!    that name each slot by a synonym with probability `synonym_rate`.
//! 2. **BM25** — the lexical baseline on the held-out queries, over all tools.
//! 3. **train** — three copies of one encoder (mean of word embeddings, a
//!    residual MLP, unit length), trained at once; held-out recall@1,
//!    recall@5 and the near-duplicate confusion are charted as they train.
//! 4. **report** — the four retrievers side by side, what their misses
//!    share with the right tool, and the queries on which hardness decides.

use anyhow::Result;
use candle_core::{Device, Tensor, Var};
use serde::Deserialize;

use super::keep::Role as Arms;
use super::pipeline;
use super::try_it::{KeptRun, TrySession};
use super::{RunCtx, TypedDrill, View};
use crate::envs::tool_world::{query, words, ToolWorld};
use crate::eval::retrieval::{recall_at_k, top1_share, Bm25};
use crate::ml::rng::Rng;
use crate::ml::train::{TrainConfig, Trainer};
use crate::rl::info_nce::info_nce_loss;

mod tried;

pub struct ToolRetrieval;

/// Where an arm's extra negatives (beyond the batch) come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Extra {
    /// None: in-batch negatives only.
    None,
    /// Near-duplicates of each batch tool (one slot different): hard negatives.
    NearDuplicates,
    /// Training tools drawn uniformly: as many extra negatives, none of them hard (a control).
    Random,
}

/// `drills/tool-retrieval/drill.toml`, typed.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Params {
    pub verbs: usize,
    pub objects: usize,
    pub qualifiers: usize,
    pub holdout: f64,
    pub synonym_rate: f64,
    pub eval_queries: usize,
    pub steps: usize,
    pub batch: usize,
    pub lr: f64,
    pub tau: f64,
    pub hard_negatives: usize,
    pub shuffle_pairs: bool,
    pub d_embed: usize,
    pub hidden: usize,
    pub evals: usize,
}

/// Words as ids, and texts as bags of words (each word weighted 1 / length).
struct Vocab {
    ids: std::collections::BTreeMap<&'static str, usize>,
}

impl Vocab {
    fn new() -> Vocab {
        Vocab { ids: ToolWorld::vocabulary().into_iter().enumerate().map(|(i, w)| (w, i)).collect() }
    }

    fn len(&self) -> usize {
        self.ids.len()
    }

    /// `[N, V]`: row `n` is the mean of the one-hot vectors of text `n`'s words.
    fn bags(&self, texts: &[String], dev: &Device) -> Result<Tensor> {
        let v = self.len();
        let mut m = vec![0f32; texts.len() * v];
        for (n, t) in texts.iter().enumerate() {
            let ids: Vec<usize> = words(t).into_iter().filter_map(|w| self.ids.get(w).copied()).collect();
            for &i in &ids {
                m[n * v + i] += 1.0 / ids.len() as f32;
            }
        }
        Ok(Tensor::from_vec(m, (texts.len(), v), dev)?)
    }
}

/// The bi-encoder (one tower for queries and tools): `e = mean of word
/// embeddings`, `y = e + W2·gelu(W1·e + b1)`, returned at unit length so a
/// dot product is a cosine.
struct Encoder {
    emb: Var,
    w1: Var,
    b1: Var,
    w2: Var,
}

impl Encoder {
    fn new(vocab: usize, d: usize, hidden: usize, seed: u64, dev: &Device) -> Result<Encoder> {
        let mut rng = Rng::new(seed);
        let mut normal = |n: usize, scale: f32| -> Vec<f32> { (0..n).map(|_| rng.normal() * scale).collect() };
        let emb = Var::from_vec(normal(vocab * d, 1.0), (vocab, d), dev)?;
        let w1 = Var::from_vec(normal(d * hidden, 1.0 / (d as f32).sqrt()), (d, hidden), dev)?;
        let b1 = Var::from_vec(vec![0f32; hidden], hidden, dev)?;
        let w2 = Var::from_vec(normal(hidden * d, 0.5 / (hidden as f32).sqrt()), (hidden, d), dev)?;
        Ok(Encoder { emb, w1, b1, w2 })
    }

    fn vars(&self) -> Vec<Var> {
        vec![self.emb.clone(), self.w1.clone(), self.b1.clone(), self.w2.clone()]
    }

    /// `[N, V]` bags → `[N, d]` unit vectors.
    fn encode(&self, bags: &Tensor) -> Result<Tensor> {
        let e = bags.matmul(self.emb.as_tensor())?;
        let h = e.matmul(self.w1.as_tensor())?.broadcast_add(self.b1.as_tensor())?.gelu()?;
        let y = (e + h.matmul(self.w2.as_tensor())?)?;
        let norm = (y.sqr()?.sum_keepdim(1)? + 1e-12)?.sqrt()?;
        Ok(y.broadcast_div(&norm)?)
    }

    /// Cosine of every query with every tool, `[Q, T]`, as numbers.
    fn sims(&self, queries: &Tensor, tools: &Tensor) -> Result<Vec<Vec<f32>>> {
        let q = self.encode(queries)?;
        let t = self.encode(tools)?;
        Ok(q.matmul(&t.t()?)?.to_vec2::<f32>()?)
    }
}

/// The held-out queries: `eval_queries` per held-out tool.
struct HeldOut {
    texts: Vec<String>,
    target: Vec<usize>,
    bags: Tensor,
}

/// What a retriever scores on the held-out queries (all tools are candidates).
#[derive(Debug, Clone, Copy, Default)]
struct Scores {
    r1: f64,
    r5: f64,
    /// Share of queries whose top-1 is a near-duplicate of the target.
    confusion: f64,
}

fn score(world: &ToolWorld, held: &HeldOut, rows: &[Vec<f64>]) -> Scores {
    let n = rows.len().max(1) as f64;
    let mut s = Scores::default();
    for (row, &t) in rows.iter().zip(&held.target) {
        s.r1 += recall_at_k(row, t, 1) / n;
        s.r5 += recall_at_k(row, t, 5) / n;
        s.confusion += top1_share(row, |j| world.tools[j].near_duplicate_of(&world.tools[t])) / n;
    }
    s
}

/// The best tool of each query (the first on a tie).
fn top1(rows: &[Vec<f64>]) -> Vec<usize> {
    rows.iter()
        .map(|r| r.iter().enumerate().fold((0, f64::NEG_INFINITY), |b, (i, &x)| if x > b.1 { (i, x) } else { b }).0)
        .collect()
}

/// One trained encoder and its held-out numbers.
struct Arm {
    scores: Scores,
    rows: Vec<Vec<f64>>,
}

/// Train one encoder with InfoNCE (or the learner's `info_nce`), with
/// `hard_negatives` extra negatives per batch tool of kind `extra`; chart its
/// loss and held-out scores as `… · arm`. The batches (tools, queries) come
/// from the same stream in every arm; the extra negatives from one of their own.
#[allow(clippy::too_many_arguments)]
fn train_arm(
    ctx: &mut RunCtx,
    p: &Params,
    world: &ToolWorld,
    vocab: &Vocab,
    tool_bags: &Tensor,
    held: &HeldOut,
    extra: Extra,
    arm: &str,
) -> Result<Arm> {
    let hard = if extra == Extra::None { 0 } else { p.hard_negatives };
    let dev = ctx.device.clone();
    let enc = Encoder::new(vocab.len(), p.d_embed, p.hidden, ctx.seed ^ 0xe7c, &dev)?;
    ctx.keep_live(&arm.replace(' ', "-"), Arms::Trained, &enc)?;
    let mut trainer = Trainer::new(enc.vars(), TrainConfig::cosine(p.lr, pipeline::warmup(p.steps), p.steps))?;
    let train = world.train_ids();
    let neighbours: Vec<Vec<usize>> =
        (0..world.tools.len())
            .map(|t| {
                if extra == Extra::NearDuplicates && !world.held_out[t] {
                    world.near_duplicates(t)
                } else {
                    Vec::new()
                }
            })
            .collect();
    let mut rng = Rng::new(ctx.seed ^ 0xba7c);
    let mut hard_rng = Rng::new(ctx.seed ^ 0x4a2d);
    let eval_every = (p.steps / p.evals.max(1)).max(1);
    let evaluate = |enc: &Encoder| -> Result<(Scores, Vec<Vec<f64>>)> {
        let rows: Vec<Vec<f64>> =
            enc.sims(&held.bags, tool_bags)?.into_iter().map(|r| r.into_iter().map(f64::from).collect()).collect();
        Ok((score(world, held, &rows), rows))
    };
    let chart = |ctx: &mut RunCtx, step: usize, s: &Scores| {
        ctx.metric(step, &format!("held-out recall@1 · {arm}"), s.r1);
        ctx.metric(step, &format!("held-out recall@5 · {arm}"), s.r5);
        ctx.metric(step, &format!("near-duplicate confusion · {arm}"), s.confusion);
    };
    let (mut last, mut rows) = evaluate(&enc)?;
    chart(ctx, 0, &last);
    for step in 0..p.steps {
        ctx.check_cancel()?;
        // B distinct training tools, a fresh query for each.
        let mut ids: Vec<usize> = Vec::with_capacity(p.batch);
        while ids.len() < p.batch.min(train.len()) {
            let t = train[rng.below(train.len())];
            if !ids.contains(&t) {
                ids.push(t);
            }
        }
        let mut queries: Vec<String> = ids.iter().map(|&t| query(&world.tools[t], p.synonym_rate, &mut rng)).collect();
        if p.shuffle_pairs {
            rng.shuffle(&mut queries);
        }
        // Candidates: the batch's tools (query i's own is column i), then the hard negatives.
        let mut cands = ids.clone();
        for &t in &ids {
            match extra {
                Extra::None => {}
                Extra::NearDuplicates => {
                    let mut sib: Vec<usize> =
                        neighbours[t].iter().copied().filter(|s| !world.held_out[*s] && !ids.contains(s)).collect();
                    hard_rng.shuffle(&mut sib);
                    cands.extend(sib.into_iter().take(hard));
                }
                Extra::Random => {
                    let mut added = 0;
                    while added < hard {
                        let s = train[hard_rng.below(train.len())];
                        if !ids.contains(&s) {
                            cands.push(s);
                            added += 1;
                        }
                    }
                }
            }
        }
        let q = enc.encode(&vocab.bags(&queries, &dev)?)?;
        let idx = Tensor::from_vec(cands.iter().map(|&c| c as u32).collect::<Vec<_>>(), cands.len(), &dev)?;
        let t = enc.encode(&tool_bags.index_select(&idx, 0)?)?;
        let sims = q.matmul(&t.t()?)?;
        let positive: Vec<u32> = (0..ids.len() as u32).collect();
        let (loss, shown) = match plugged_loss(ctx, &sims, &positive, p.tau)? {
            Some(yours) => yours,
            None => {
                let l = info_nce_loss(&sims, &positive, p.tau)?;
                let v = l.to_scalar::<f32>()? as f64;
                (l, v)
            }
        };
        trainer.step(&loss, "InfoNCE loss")?;
        ctx.metric(step, &format!("InfoNCE loss · {arm}"), ctx.finite("InfoNCE loss", shown, step)?);
        if (step + 1) % eval_every == 0 || step + 1 == p.steps {
            (last, rows) = evaluate(&enc)?;
            chart(ctx, step + 1, &last);
        }
        ctx.progress(step + 1, p.steps, 0);
    }
    Ok(Arm { scores: last, rows })
}

/// The learner's `info_nce` as a loss with the same gradient: each row's
/// derivatives (central differences of the learner's function) times the
/// similarities, averaged over rows; and the mean of the learner's values.
fn plugged_loss(ctx: &RunCtx, sims: &Tensor, positive: &[u32], tau: f64) -> Result<Option<(Tensor, f64)>> {
    let rows = sims.detach().to_vec2::<f32>()?;
    let Some(out) = ctx.plugs.info_nce(&rows, positive, tau) else { return Ok(None) };
    let (values, grads) = out?;
    let b = rows.len().max(1) as f64;
    let c = rows.first().map_or(0, |r| r.len());
    let g: Vec<f32> = grads.iter().flatten().map(|&x| (x as f64 / b) as f32).collect();
    let g = Tensor::from_vec(g, (rows.len(), c), sims.device())?;
    let surrogate = (sims * g)?.sum_all()?;
    Ok(Some((surrogate, values.iter().map(|&v| v as f64).sum::<f64>() / b)))
}

impl TypedDrill for ToolRetrieval {
    const ID: &'static str = "tool-retrieval";
    const CLAIMS: &'static [&'static str] = &[
        "bm25_recall_at_5",
        "hard_negatives_fewer_confusions",
        "hard_negatives_higher_recall_at_1",
        "in_batch_beats_bm25_at_5",
        "in_batch_misses_are_near_duplicates",
        "more_negatives_help",
        "retriever_beats_bm25_at_1",
    ];
    type Params = Params;

    fn validate(p: &Params) -> Result<(), String> {
        let near = p.verbs + p.objects + p.qualifiers - 3;
        if p.hard_negatives > near {
            return Err(crate::t!("setup-tr-hard", hard = p.hard_negatives.to_string(), near = near.to_string()));
        }
        let families = p.verbs * p.objects;
        let held = (families as f64 * p.holdout).round() as usize;
        if held == 0 || held == families {
            return Err(crate::t!("setup-tr-holdout", families = families.to_string(), held = held.to_string()));
        }
        if p.batch > (families - held) * p.qualifiers {
            return Err(crate::t!("setup-tr-batch", batch = p.batch.to_string()));
        }
        Ok(())
    }

    fn run(&self, p: &Params, ctx: &mut RunCtx) -> Result<()> {
        let dev = ctx.device.clone();
        let mut rng = Rng::new(ctx.seed);

        ctx.phase(crate::t!("view-phase-data"));
        let world = ToolWorld::new(p.verbs, p.objects, p.qualifiers, p.holdout, &mut rng.fork(1));
        let vocab = Vocab::new();
        let tool_texts: Vec<String> = world.tools.iter().map(|t| t.text()).collect();
        let tool_bags = vocab.bags(&tool_texts, &dev)?;
        let mut q_rng = rng.fork(2);
        let mut held =
            HeldOut { texts: Vec::new(), target: Vec::new(), bags: Tensor::zeros(1, candle_core::DType::F32, &dev)? };
        for t in world.held_ids() {
            for _ in 0..p.eval_queries {
                held.texts.push(query(&world.tools[t], p.synonym_rate, &mut q_rng));
                held.target.push(t);
            }
        }
        held.bags = vocab.bags(&held.texts, &dev)?;
        world_view(ctx, p, &world, &vocab, &held, &tool_texts);

        ctx.phase(crate::t!("view-tr-phase-bm25"));
        let doc_words: Vec<Vec<&str>> = tool_texts.iter().map(|t| words(t)).collect();
        let bm25 = Bm25::new(&doc_words);
        let bm_rows: Vec<Vec<f64>> = held.texts.iter().map(|q| bm25.scores(&words(q))).collect();
        let bm = score(&world, &held, &bm_rows);

        ctx.phase(crate::t!("view-tr-phase-train"));
        // Three arms at once: hard negatives on this thread (the progress bar), the other two beside it.
        let (hard, (inb, rand)) = pipeline::side_by_side(
            ctx,
            |ctx| train_arm(ctx, p, &world, &vocab, &tool_bags, &held, Extra::NearDuplicates, "hard negatives"),
            |ctx| {
                pipeline::side_by_side(
                    ctx,
                    |ctx| train_arm(ctx, p, &world, &vocab, &tool_bags, &held, Extra::None, "in-batch only"),
                    |ctx| train_arm(ctx, p, &world, &vocab, &tool_bags, &held, Extra::Random, "random extras"),
                )
            },
        )?;
        let evals = (p.steps / (p.steps / p.evals.max(1)).max(1)).max(1);
        for k in 0..=evals {
            let step = (k * (p.steps / p.evals.max(1)).max(1)).min(p.steps);
            ctx.metric(step, "held-out recall@1 · BM25", bm.r1);
            ctx.metric(step, "held-out recall@5 · BM25", bm.r5);
            ctx.metric(step, "near-duplicate confusion · BM25", bm.confusion);
        }

        ctx.phase(crate::t!("view-phase-report"));
        results_view(ctx, &bm, &inb.scores, &rand.scores, &hard.scores);
        misses_view(
            ctx,
            &world,
            &held,
            &[
                ("BM25".to_string(), &bm_rows),
                (crate::t!("view-tr-row-in-batch"), &inb.rows),
                (crate::t!("view-tr-row-random"), &rand.rows),
                (crate::t!("view-tr-row-hard"), &hard.rows),
            ],
        );
        parting_view(ctx, &world, &held, &rand, &hard);
        let misses = 1.0 - inb.scores.r1;
        ctx.log(crate::t!(
            "view-tr-log-report",
            bm1 = format!("{:.3}", bm.r1),
            bm5 = format!("{:.3}", bm.r5),
            i1 = format!("{:.3}", inb.scores.r1),
            i5 = format!("{:.3}", inb.scores.r5),
            ic = format!("{:.3}", inb.scores.confusion),
            r1 = format!("{:.3}", rand.scores.r1),
            r5 = format!("{:.3}", rand.scores.r5),
            rc = format!("{:.3}", rand.scores.confusion),
            h1 = format!("{:.3}", hard.scores.r1),
            h5 = format!("{:.3}", hard.scores.r5),
            hc = format!("{:.3}", hard.scores.confusion)
        ));
        ctx.claim("retriever_beats_bm25_at_1", hard.scores.r1 - bm.r1)?;
        ctx.claim("in_batch_beats_bm25_at_5", inb.scores.r5 - bm.r5)?;
        ctx.claim("hard_negatives_fewer_confusions", rand.scores.confusion - hard.scores.confusion)?;
        ctx.claim("hard_negatives_higher_recall_at_1", hard.scores.r1 - rand.scores.r1)?;
        ctx.claim("more_negatives_help", rand.scores.r1 - inb.scores.r1)?;
        ctx.claim("bm25_recall_at_5", bm.r5)?;
        ctx.claim("in_batch_misses_are_near_duplicates", inb.scores.confusion / misses.max(1e-9))?;
        Ok(())
    }

    fn open_try(p: &Params, run: &KeptRun, device: &Device) -> Result<Box<dyn TrySession>> {
        tried::open(p, run, device)
    }
}

fn world_view(ctx: &mut RunCtx, p: &Params, world: &ToolWorld, vocab: &Vocab, held: &HeldOut, texts: &[String]) {
    ctx.log(crate::t!(
        "view-tr-log-world",
        tools = world.tools.len().to_string(),
        families = (world.tools.len() / world.n_qualifiers.max(1)).to_string(),
        held = world.held_ids().len().to_string(),
        queries = held.texts.len().to_string(),
        words = vocab.len().to_string(),
        syn = p.synonym_rate.to_string()
    ));
    let rows: Vec<Vec<String>> = held
        .texts
        .iter()
        .zip(&held.target)
        .step_by(p.eval_queries.max(1) * 37)
        .take(8)
        .map(|(q, &t)| vec![q.clone(), world.tools[t].name(), texts[t].clone()])
        .collect();
    ctx.view(View::table(
        crate::t!("view-tr-world-title"),
        [crate::t!("view-tr-col-query"), crate::t!("view-tr-col-tool"), crate::t!("view-tr-col-text")],
        rows,
    ));
}

fn results_view(ctx: &mut RunCtx, bm: &Scores, inb: &Scores, rand: &Scores, hard: &Scores) {
    let row = |name: String, s: &Scores| {
        vec![name, format!("{:.3}", s.r1), format!("{:.3}", s.r5), format!("{:.3}", s.confusion)]
    };
    ctx.view(View::table(
        crate::t!("view-tr-results-title"),
        [
            crate::t!("view-tr-col-retriever"),
            "recall@1".to_string(),
            "recall@5".to_string(),
            crate::t!("view-tr-col-confusion"),
        ],
        vec![
            row("BM25".to_string(), bm),
            row(crate::t!("view-tr-row-in-batch"), inb),
            row(crate::t!("view-tr-row-random"), rand),
            row(crate::t!("view-tr-row-hard"), hard),
        ],
    ));
}

/// What each retriever's top-1 misses share with the right tool: which one
/// slot differs (a near-duplicate), or more than one. A tie for the top is
/// broken uniformly in expectation, as recall@k breaks it, so the counts
/// are expected counts (BM25 ties often; a trained encoder almost never).
fn misses_view(ctx: &mut RunCtx, world: &ToolWorld, held: &HeldOut, arms: &[(String, &Vec<Vec<f64>>)]) {
    let rows = arms
        .iter()
        .map(|(name, rows)| {
            let mut kinds = [0.0f64; 5];
            for (row, &t) in rows.iter().zip(&held.target) {
                let a = &world.tools[t];
                let kind = |i: usize| {
                    let b = &world.tools[i];
                    match (a.verb == b.verb, a.object == b.object, a.qualifier == b.qualifier) {
                        (false, true, true) => 1,
                        (true, false, true) => 2,
                        (true, true, false) => 3,
                        _ => 4,
                    }
                };
                kinds[0] += top1_share(row, |i| i != t);
                for (k, slot) in kinds.iter_mut().enumerate().skip(1) {
                    *slot += top1_share(row, |i| i != t && kind(i) == k);
                }
            }
            std::iter::once(name.clone()).chain(kinds.iter().map(|k| format!("{k:.0}"))).collect()
        })
        .collect();
    ctx.view(View::table(
        crate::t!("view-tr-misses-title", queries = held.texts.len().to_string()),
        [
            crate::t!("view-tr-col-retriever"),
            crate::t!("view-tr-col-misses"),
            crate::t!("view-tr-col-verb-off"),
            crate::t!("view-tr-col-object-off"),
            crate::t!("view-tr-col-qualifier-off"),
            crate::t!("view-tr-col-more-off"),
        ],
        rows,
    ));
}

/// Held-out queries where the random-extras arm picks a near-duplicate and
/// the hard-negative arm picks the right tool; then why.
fn parting_view(ctx: &mut RunCtx, world: &ToolWorld, held: &HeldOut, rand: &Arm, hard: &Arm) {
    let (ti, th) = (top1(&rand.rows), top1(&hard.rows));
    let rows: Vec<Vec<String>> = (0..held.texts.len())
        .filter(|&n| th[n] == held.target[n] && world.tools[ti[n]].near_duplicate_of(&world.tools[held.target[n]]))
        .take(8)
        .map(|n| vec![held.texts[n].clone(), world.tools[held.target[n]].name(), world.tools[ti[n]].name()])
        .collect();
    ctx.view(View::table(
        crate::t!("view-tr-parting-title"),
        [crate::t!("view-tr-col-query"), crate::t!("view-tr-col-tool"), crate::t!("view-tr-col-random-pick")],
        rows,
    ));
    ctx.view(View::Text { title: crate::t!("view-tr-why-title"), body: crate::t!("view-tr-why-body") });
}
