//! Try on a lora-vs-full run: one input to the base and to every arm the
//! run fine-tuned from it — full fine-tuning, LoRA of the low and of the
//! high rank (kept merged, `W₀ + (α/r)·B·A`) — in columns, each output
//! judged by the check of the task it belongs to.
//!
//! * A word over the cipher's input letters (`cabd`, `cabd=`) is the new
//!   task: each arm's answer, letter by letter against the cipher (the
//!   run's held-out accuracy counts the same letters).
//! * Any other text is the base task, the base's own pretraining text: each
//!   arm's next-token loss on it (the run's base-task loss, in nats per
//!   token: the higher, the more the arm forgot) and how it goes on.

use std::sync::atomic::AtomicBool;

use anyhow::Result;
use candle_core::Device;

use super::{Cipher, Params};
use crate::drills::events::TokenKind;
use crate::drills::try_it::{
    self, Arm, KeptRun, TryAnswer, TryCell, TryColumn, TryKind, TryOpts, TrySample, TrySession, Verdict,
};
use crate::envs::strings::{answer_ids, prompt_ids};
use crate::ml::base;
use crate::ml::gpt::Gpt;
use crate::ml::rng::Rng;
use crate::ml::sample::GenConfig;
use crate::ml::tokenizer::{Bpe, Tokenize, BOS, EOS};

/// The shipped base every arm starts from.
pub(super) const BASE: &str = "base";
/// The arms in the order the run trains them: full, LoRA at `rank_low`, LoRA at `rank_high`.
pub(super) const TRAINED: [&str; 3] = ["full", "lora-low", "lora-high"];

/// Tokens a continuation of base-task text runs to.
const GO_ON: usize = 24;

pub(super) fn open(p: &Params, run: &KeptRun, device: &Device) -> Result<Box<dyn TrySession>> {
    let (_, tok) = base::shipped(device)?;
    // The cipher, the held-out words and the base-task text, drawn as the run's phase "data" drew them.
    let mut rng = Rng::new(run.seed);
    let cipher = Cipher::new(p.symbols, p.inputs, p.outputs, p.word_len, &mut rng.fork(1));
    let mut held = std::collections::BTreeSet::new();
    let mut wr = rng.fork(2);
    while held.len() < p.holdout {
        held.insert(cipher.word(&mut wr));
    }
    let mut tr = rng.fork(3);
    let text = vec![base::text_line(&mut tr), base::text_line(&mut tr)];
    let labels = [
        crate::t!("try-lora-full"),
        crate::t!("try-lora-rank", r = p.rank_low.to_string()),
        crate::t!("try-lora-rank", r = p.rank_high.to_string()),
    ];
    let mut arms = vec![(Arm { id: BASE.into(), label: crate::t!("try-lora-base") }, run.tiny(BASE, device)?)];
    for (id, label) in TRAINED.into_iter().zip(labels) {
        // A cancelled run keeps the arms it finished.
        if run.has(id) {
            arms.push((Arm { id: id.into(), label }, run.tiny(id, device)?));
        }
    }
    Ok(Box::new(LoraTry { p: p.clone(), tok, cipher, held: held.into_iter().collect(), text, arms }))
}

struct LoraTry {
    p: Params,
    tok: Bpe,
    cipher: Cipher,
    /// The run's held-out words, sorted.
    held: Vec<String>,
    /// Two lines of the run's base-task text.
    text: Vec<String>,
    arms: Vec<(Arm, Gpt)>,
}

impl LoraTry {
    /// The input as a word of the new task, if it is one: the cipher's input
    /// letters only, `=` at the end allowed.
    fn word<'a>(&self, text: &'a str) -> Option<&'a str> {
        let w = text.strip_suffix('=').unwrap_or(text).trim();
        let letters: Vec<char> = (0..self.p.symbols).map(|i| self.p.inputs.char(i)).collect();
        (!w.is_empty() && w.chars().all(|c| letters.contains(&c))).then_some(w)
    }

    fn spell(&self, t: u32) -> String {
        match t {
            EOS => "⏎".to_string(),
            _ => self.tok.decode(&[t]),
        }
    }

    /// Every arm's answer to a word of the new task, letter by letter against the cipher.
    fn cipher_column(&self, model: &Gpt, arm: &Arm, word: &str, opts: &TryOpts) -> Result<TryColumn> {
        let gold = answer_ids(&self.tok, &self.cipher.answer(word));
        let prompt = prompt_ids(&self.tok, &self.cipher.prompt(word));
        let cfg = GenConfig::new(word.chars().count() + 1, try_it::decoding(opts.temperature), vec![EOS]);
        let outs = try_it::complete(model, &prompt, &self.cipher.prompt(word), &cfg, opts, &|t| self.spell(t))?;
        let mut col = TryColumn::new(arm);
        let len = word.chars().count();
        let (mut letters, mut exact) = (0usize, 0usize);
        for c in outs {
            let right = gold.iter().take(len).zip(&c.ids).filter(|(g, o)| g == o).count();
            let whole = c.ids == gold;
            letters += right;
            exact += usize::from(whole);
            let verdicts = vec![
                Verdict::new(crate::t!("try-lora-letters"), format!("{right}/{len}"), Some(right == len)),
                Verdict::check(crate::t!("try-lora-exact"), whole),
            ];
            col.samples.push(TrySample { cells: c.cells, lines: Vec::new(), verdicts, pending: false });
        }
        let n = col.samples.len();
        if n > 1 {
            col.summary = vec![
                Verdict::new(crate::t!("try-lora-letters"), format!("{:.3}", letters as f64 / (n * len) as f64), None),
                Verdict::new(crate::t!("try-lora-exact"), format!("{exact}/{n}"), None),
            ];
        }
        Ok(col)
    }

    /// The base task on typed text: the arm's loss on each of its tokens
    /// (coloured by log-probability on a key), then how it goes on.
    fn text_column(&self, model: &Gpt, arm: &Arm, text: &str, opts: &TryOpts) -> Result<TryColumn> {
        let ids: Vec<u32> = [BOS].into_iter().chain(self.tok.encode(text)).collect();
        let logp = try_it::token_logps(model, &ids, 1)?;
        let nats: Vec<f32> = logp.iter().flatten().map(|l| -l).collect();
        let loss = nats.iter().sum::<f32>() / nats.len().max(1) as f32;
        let read: Vec<TryCell> = ids[1..]
            .iter()
            .zip(&logp[1..])
            .map(|(&t, &l)| TryCell { text: self.tok.decode(&[t]), kind: TokenKind::Prompt, logp: l })
            .collect();
        let cfg = GenConfig::new(GO_ON, try_it::decoding(opts.temperature), vec![EOS]);
        let outs = try_it::complete(model, &ids, "", &cfg, opts, &|t| self.spell(t))?;
        let mut col = TryColumn::new(arm);
        for c in outs {
            let cells: Vec<TryCell> = read.iter().cloned().chain(c.cells.into_iter().skip(1)).collect();
            let verdicts = vec![Verdict::new(crate::t!("try-lora-base-loss"), format!("{loss:.3}"), None)];
            col.samples.push(TrySample { cells, lines: Vec::new(), verdicts, pending: false });
        }
        Ok(col)
    }
}

impl TrySession for LoraTry {
    fn kind(&self) -> TryKind {
        TryKind::Columns
    }

    fn arms(&self) -> Vec<Arm> {
        try_it::arms_of(&self.arms)
    }

    /// Held-out words of the new task, then two lines of the run's base-task text.
    fn examples(&self) -> Vec<String> {
        let step = (self.held.len() / 10).max(1);
        let mut out: Vec<String> = self.held.iter().step_by(step).take(10).cloned().collect();
        out.extend(self.text.iter().cloned());
        out
    }

    fn prompt_hint(&self) -> String {
        let example = self.held.first().cloned().unwrap_or_default();
        let letters: String = (0..self.p.symbols).map(|i| self.p.inputs.char(i)).collect();
        crate::t!("try-lora-hint", example = example, letters = letters)
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
        let text = try_it::checked_input(input, 120)?;
        let word = self.word(text);
        let notes = match word {
            Some(w) => {
                let table: String = w
                    .chars()
                    .map(|c| format!("{c}→{}", self.cipher.answer(&c.to_string())))
                    .collect::<Vec<_>>()
                    .join(" ");
                let seen = match self.held.binary_search(&w.to_string()).is_ok() {
                    true => crate::t!("try-lora-held"),
                    false => crate::t!("try-lora-not-held"),
                };
                vec![crate::t!("try-lora-note-cipher", answer = self.cipher.answer(w), table = table), seen]
            }
            None => vec![crate::t!("try-lora-note-text")],
        };
        let mut answer = TryAnswer { input: text.to_string(), notes, columns: Vec::new() };
        for arm in opts.arms(&self.arms()) {
            try_it::check(cancel)?;
            let model = try_it::model_of(&self.arms, &arm.id);
            let col = match word {
                Some(w) => self.cipher_column(model, arm, w, opts)?,
                None => self.text_column(model, arm, text, opts)?,
            };
            answer.columns.push(col);
            progress(&answer);
        }
        Ok(answer)
    }
}
