//! Try on a tool-retrieval run: a query the learner types, and the top five
//! tools of every retriever over the whole catalogue, with their scores —
//! the encoder before training, the three trained arms (in-batch negatives
//! only, random extras, hard negatives) and BM25.
//!
//! Every word of the world means one thing (a verb, an object, a qualifier,
//! a synonym of one, or a filler), so a query that names one verb, one
//! object and one qualifier names one tool: that tool is marked `✓` in
//! every list, its near-duplicates (one slot off) `≈`. Words the world does
//! not have are read by no retriever; the answer says which.

use std::collections::HashMap;
use std::sync::atomic::AtomicBool;

use anyhow::{anyhow, Result};
use candle_core::{Device, Tensor, Var};

use super::{Encoder, Params, Vocab};
use crate::drills::keep::{ArmKind, Keepable};
use crate::drills::try_it::{
    self, Arm, KeptRun, TryAnswer, TryColumn, TryKind, TryOpts, TrySample, TrySession, Verdict,
};
use crate::envs::tool_world::{query, words, Slot, ToolWorld, OBJECTS, QUALIFIERS, VERBS};
use crate::eval::retrieval::Bm25;
use crate::ml::rng::Rng;

/// The encoder before training: rebuilt from the run's seed (every arm started from it).
const START: &str = "start";
/// The trained arms, as the run keeps them (its chart names with `-` for spaces).
const TRAINED: [&str; 3] = ["in-batch-only", "random-extras", "hard-negatives"];
const BM25: &str = "bm25";
/// Tools listed per retriever.
const TOP: usize = 5;

impl Keepable for Encoder {
    fn keep_parts(&self) -> Result<(ArmKind, Vec<(String, Tensor)>)> {
        let parts = [("emb", &self.emb), ("w1", &self.w1), ("b1", &self.b1), ("w2", &self.w2)];
        Ok((ArmKind::Tensors, parts.into_iter().map(|(n, v)| (n.to_string(), v.as_tensor().clone())).collect()))
    }
}

impl Encoder {
    /// An encoder from its kept tensors, checked against the shapes `p` gives.
    fn from_kept(mut t: HashMap<String, Tensor>, vocab: usize, p: &Params, arm: &str) -> Result<Encoder> {
        let mut take = |name: &str, dims: &[usize]| -> Result<Var> {
            let x = t.remove(name).ok_or_else(|| anyhow!("{arm}: tensor {name} is missing"))?;
            if x.dims() != dims {
                anyhow::bail!("{arm}: tensor {name} has shape {:?}, the run's parameters imply {dims:?}", x.dims());
            }
            Ok(Var::from_tensor(&x)?)
        };
        Ok(Encoder {
            emb: take("emb", &[vocab, p.d_embed])?,
            w1: take("w1", &[p.d_embed, p.hidden])?,
            b1: take("b1", &[p.hidden])?,
            w2: take("w2", &[p.hidden, p.d_embed])?,
        })
    }
}

pub(super) fn open(p: &Params, run: &KeptRun, device: &Device) -> Result<Box<dyn TrySession>> {
    // The world and the held-out queries, drawn as the run's phase "data" drew them.
    let mut rng = Rng::new(run.seed);
    let world = ToolWorld::new(p.verbs, p.objects, p.qualifiers, p.holdout, &mut rng.fork(1));
    let mut q_rng = rng.fork(2);
    let mut held = Vec::new();
    for t in world.held_ids() {
        for _ in 0..p.eval_queries {
            held.push((query(&world.tools[t], p.synonym_rate, &mut q_rng), t));
        }
    }
    let vocab = Vocab::new();
    let texts: Vec<String> = world.tools.iter().map(|t| t.text()).collect();
    let tool_bags = vocab.bags(&texts, device)?;
    let doc_words: Vec<Vec<&str>> = texts.iter().map(|t| words(t)).collect();
    let bm25 = Bm25::new(&doc_words);
    let labels = [
        crate::t!("try-tr-in-batch"),
        crate::t!("try-tr-random", n = p.hard_negatives.to_string()),
        crate::t!("try-tr-hard", n = p.hard_negatives.to_string()),
    ];
    let mut encoders = vec![(
        Arm { id: START.into(), label: crate::t!("try-tr-start") },
        Encoder::new(vocab.len(), p.d_embed, p.hidden, run.seed ^ 0xe7c, device)?,
    )];
    for (id, label) in TRAINED.into_iter().zip(labels) {
        let enc = Encoder::from_kept(run.named(id, device)?, vocab.len(), p, id)?;
        encoders.push((Arm { id: id.into(), label }, enc));
    }
    Ok(Box::new(RetrievalTry { world, vocab, tool_bags, bm25, encoders, held }))
}

struct RetrievalTry {
    world: ToolWorld,
    vocab: Vocab,
    tool_bags: Tensor,
    bm25: Bm25,
    encoders: Vec<(Arm, Encoder)>,
    /// The run's held-out queries and the tool each asks for.
    held: Vec<(String, usize)>,
}

/// Which slot a word names: its list and the index in it.
fn slot_of(word: &str) -> Option<(usize, usize)> {
    let lists: [&[Slot]; 3] = [VERBS, OBJECTS, QUALIFIERS];
    lists
        .iter()
        .enumerate()
        .find_map(|(k, list)| list.iter().position(|(w, syn)| *w == word || syn.contains(&word)).map(|i| (k, i)))
}

impl RetrievalTry {
    /// The tool a query names: one verb, one object, one qualifier (by
    /// their words or synonyms), the three a tool of this world.
    fn named_tool(&self, ws: &[&str]) -> Option<usize> {
        let mut picked: [Vec<usize>; 3] = Default::default();
        for w in ws {
            if let Some((k, i)) = slot_of(w) {
                if !picked[k].contains(&i) {
                    picked[k].push(i);
                }
            }
        }
        if picked.iter().any(|p| p.len() != 1) {
            return None;
        }
        let (verb, object, qualifier) = (picked[0][0], picked[1][0], picked[2][0]);
        self.world.tools.iter().position(|t| t.verb == verb && t.object == object && t.qualifier == qualifier)
    }

    /// One retriever's answer: its top five, the named tool marked, and where that tool ranks.
    fn column(&self, arm: &Arm, scores: &[f64], target: Option<usize>) -> TryColumn {
        let mut order: Vec<usize> = (0..scores.len()).collect();
        order.sort_by(|&i, &j| scores[j].total_cmp(&scores[i]).then(i.cmp(&j)));
        let mark = |i: usize| match target {
            Some(t) if t == i => " ✓",
            Some(t) if self.world.tools[i].near_duplicate_of(&self.world.tools[t]) => " ≈",
            _ => "",
        };
        // Every tool scoring the same (BM25 on words no tool name has) is no ranking at all.
        let flat = scores.iter().all(|&x| x == scores[0]);
        let lines = match flat {
            true => vec![crate::t!("try-tr-flat", score = format!("{:.3}", scores[0]))],
            false => order
                .iter()
                .take(TOP)
                .enumerate()
                .map(|(r, &i)| format!("{}. {} {:.3}{}", r + 1, self.world.tools[i].name(), scores[i], mark(i)))
                .collect(),
        };
        let mut verdicts = Vec::new();
        if let Some(t) = target {
            // A tie counts against the named tool: its rank is how many tools score at least as high.
            let rank = scores.iter().filter(|&&x| x >= scores[t]).count();
            let value = format!("{rank}/{}", scores.len());
            verdicts.push(Verdict::new(crate::t!("try-tr-rank"), value, Some(rank == 1)));
        }
        let mut col = TryColumn::new(arm);
        col.samples.push(TrySample { cells: Vec::new(), lines, verdicts, pending: false });
        col
    }
}

impl TrySession for RetrievalTry {
    fn kind(&self) -> TryKind {
        TryKind::Retrieval
    }

    fn arms(&self) -> Vec<Arm> {
        let mut out = try_it::arms_of(&self.encoders);
        out.push(Arm { id: BM25.into(), label: "BM25".into() });
        out
    }

    /// Held-out queries, spread over the held-out families.
    fn examples(&self) -> Vec<String> {
        let step = (self.held.len() / 12).max(1);
        self.held.iter().step_by(step).take(12).map(|(q, _)| q.clone()).collect()
    }

    fn prompt_hint(&self) -> String {
        let (q, _) = self.held.first().cloned().unwrap_or_default();
        crate::t!("try-tr-hint", example = q)
    }

    fn defaults(&self) -> TryOpts {
        TryOpts::new(1, 0.0)
    }

    fn answer(
        &mut self,
        input: &str,
        opts: &TryOpts,
        progress: &mut dyn FnMut(&TryAnswer),
        cancel: &AtomicBool,
    ) -> Result<TryAnswer> {
        let text = try_it::checked_input(input, 200)?.to_lowercase();
        let ws = words(&text);
        let (known, unknown): (Vec<&str>, Vec<&str>) = ws.iter().partition(|w| self.vocab.ids.contains_key(*w));
        if known.is_empty() {
            let example = self.held.first().map(|(q, _)| q.clone()).unwrap_or_default();
            return try_it::refuse(crate::t!("try-tr-no-known-word", example = example));
        }
        let target = self.named_tool(&known);
        let mut notes = Vec::new();
        if let Some(t) = target {
            let tool = &self.world.tools[t];
            notes.push(match self.world.held_out[t] {
                true => crate::t!("try-tr-named-held", tool = tool.name()),
                false => crate::t!("try-tr-named-trained", tool = tool.name()),
            });
        } else {
            notes.push(crate::t!("try-tr-named-none"));
        }
        if self.held.iter().any(|(q, _)| *q == text) {
            notes.push(crate::t!("try-tr-held-query"));
        }
        if !unknown.is_empty() {
            notes.push(crate::t!("try-tr-unknown", words = unknown.join(" ")));
        }
        let mut answer = TryAnswer { input: text.clone(), notes, columns: Vec::new() };
        let bag = self.vocab.bags(std::slice::from_ref(&text), self.tool_bags.device())?;
        for arm in opts.arms(&self.arms()) {
            try_it::check(cancel)?;
            let scores: Vec<f64> = match self.encoders.iter().find(|(a, _)| a.id == arm.id) {
                Some((_, enc)) => enc.sims(&bag, &self.tool_bags)?.remove(0).into_iter().map(f64::from).collect(),
                None => self.bm25.scores(&known),
            };
            answer.columns.push(self.column(arm, &scores, target));
            progress(&answer);
        }
        Ok(answer)
    }
}
