//! Try on an ewc-replay run: one word to the model after task A (where
//! every method starts) and to the naive, EWC and replay models after each
//! later task, in columns; each answer judged by exact match, the run's
//! measure, under every task's marker.
//!
//! A bare word is asked under every task of the run (`abcde=` lowercase,
//! `abcde!` uppercase, `abcde#` digits where the run has a third task), so
//! a column reads as a row of the run's accuracy matrix for that one word:
//! the naive model after B writes uppercase after `=` too, the forgetting
//! the run measures.

use std::sync::atomic::AtomicBool;

use anyhow::Result;
use candle_core::Device;

use super::{encode, letter, Method, Params, METHODS};
use crate::drills::try_it::{
    self, Arm, KeptRun, TryAnswer, TryColumn, TryKind, TryOpts, TrySample, TrySession, Verdict,
};
use crate::envs::strings::{alphabet, split_words, StringTask, LETTERS};
use crate::ml::gpt::Gpt;
use crate::ml::rng::Rng;
use crate::ml::sample::GenConfig;
use crate::ml::tokenizer::{CharTokenizer, Tokenize, EOS};

/// The model after task A, which every method continues from.
pub(super) const AFTER_A: &str = "after-a";

/// The arm a run keeps for `method` after stage `stage` (`ewc-after-b`).
pub(super) fn arm_id(method: Method, stage: usize) -> String {
    format!("{}-after-{}", method.name(), letter(stage).to_ascii_lowercase())
}

pub(super) fn open(p: &Params, run: &KeptRun, device: &Device) -> Result<Box<dyn TrySession>> {
    let tok = CharTokenizer::new(&alphabet(), &[]);
    // The run's held-out words (phase "data"): never trained on under any marker.
    let (held, _) = split_words(p.word_len, p.holdout, &mut Rng::new(run.seed).fork(1));
    let tasks: Vec<StringTask> = StringTask::ALL[..p.tasks].to_vec();
    let mut arms = vec![(
        Arm { id: AFTER_A.into(), label: crate::t!("try-ewc-after-a", task = tasks[0].name()) },
        run.tiny(AFTER_A, device)?,
    )];
    for stage in 1..tasks.len() {
        for m in METHODS {
            let id = arm_id(m, stage);
            // A cancelled run keeps the stages it finished.
            if run.has(&id) {
                let l = letter(stage).to_string();
                let label = match m {
                    Method::Naive => crate::t!("try-ewc-naive", task = l),
                    Method::Ewc => crate::t!("try-ewc-ewc", task = l),
                    Method::Replay => crate::t!("try-ewc-replay", task = l),
                };
                arms.push((Arm { id: id.clone(), label }, run.tiny(&id, device)?));
            }
        }
    }
    Ok(Box::new(EwcTry { word_len: p.word_len, tok, tasks, held, arms }))
}

struct EwcTry {
    word_len: usize,
    tok: CharTokenizer,
    tasks: Vec<StringTask>,
    held: Vec<String>,
    arms: Vec<(Arm, Gpt)>,
}

impl EwcTry {
    /// The tasks an input asks: its marker's, or every task of the run for a bare word.
    fn asks<'a>(&self, text: &'a str) -> Result<(&'a str, Vec<(usize, StringTask)>)> {
        let marked = self.tasks.iter().enumerate().find(|(_, t)| text.ends_with(t.marker()));
        let (word, asks) = match marked {
            Some((i, t)) => (&text[..text.len() - 1], vec![(i, *t)]),
            None => (text, self.tasks.iter().copied().enumerate().collect()),
        };
        let ok = !word.is_empty() && word.len() <= self.word_len + 1 && word.chars().all(|c| LETTERS.contains(c));
        if !ok {
            let markers: Vec<String> = self.tasks.iter().map(|t| format!("{} {}", t.marker(), t.name())).collect();
            return try_it::refuse(crate::t!(
                "try-ewc-bad-input",
                example = self.held.first().cloned().unwrap_or_default(),
                max = (self.word_len + 1).to_string(),
                markers = markers.join(", ")
            ));
        }
        Ok((word, asks))
    }
}

impl TrySession for EwcTry {
    fn kind(&self) -> TryKind {
        TryKind::Columns
    }

    fn arms(&self) -> Vec<Arm> {
        try_it::arms_of(&self.arms)
    }

    fn examples(&self) -> Vec<String> {
        self.held.iter().take(12).cloned().collect()
    }

    fn prompt_hint(&self) -> String {
        crate::t!(
            "try-ewc-hint",
            len = self.word_len.to_string(),
            example = self.held.first().cloned().unwrap_or_default()
        )
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
        let text = try_it::checked_input(input, self.word_len + 2)?;
        let (word, asks) = self.asks(text)?;
        let seen = match self.held.iter().any(|w| w == word) {
            true => crate::t!("try-ewc-held"),
            false => crate::t!("try-ewc-not-held", len = self.word_len.to_string()),
        };
        let gold: Vec<String> = asks.iter().map(|(_, t)| format!("{} → {}", t.prompt(word), t.answer(word))).collect();
        let notes = vec![crate::t!("try-ewc-note", gold = gold.join(" · "), seen = seen)];
        let mut answer = TryAnswer { input: text.to_string(), notes, columns: Vec::new() };
        let spell = |t: u32| if t == EOS { "⏎".to_string() } else { self.tok.decode(&[t]) };
        for arm in opts.arms(&self.arms()) {
            try_it::check(cancel)?;
            let model = try_it::model_of(&self.arms, &arm.id);
            let mut col = TryColumn::new(arm);
            for &(i, task) in &asks {
                let (prompt, gold, _) = encode(&self.tok, task, word);
                let cfg = GenConfig::new(gold.len(), try_it::decoding(opts.temperature), vec![EOS]);
                let outs = try_it::complete(model, &prompt, &task.prompt(word), &cfg, opts, &spell)?;
                let n = outs.len();
                let mut right = 0;
                for c in outs {
                    let ok = c.ids == gold;
                    right += usize::from(ok);
                    let name = format!("{} {}", letter(i), task.name());
                    let verdicts = vec![Verdict::check(name, ok)];
                    col.samples.push(TrySample { cells: c.cells, lines: Vec::new(), verdicts, pending: false });
                }
                if n > 1 {
                    col.summary.push(Verdict::new(
                        format!("{} {}", letter(i), task.name()),
                        format!("{right}/{n}"),
                        None,
                    ));
                }
            }
            answer.columns.push(col);
            progress(&answer);
        }
        Ok(answer)
    }
}
