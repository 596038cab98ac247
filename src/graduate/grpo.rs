//! grpo-rlvr as a TRL experiment and as a verl experiment.
//!
//! The held-out problems are the run's own (the drill's first draw,
//! `Rng::new(seed).fork(7)`); the warm-start and RL training prompts are
//! fresh problems outside them drawn here, from the same distribution as
//! the drill draws them online, but not the same draws (the drill draws them
//! step by step from a stream the exporter does not replay). The tiny
//! model's starting weights are the drill's: `Gpt::new(config, seed)`.
//!
//! `reward_cases.jsonl` holds (prompt, completion, Rust reward) rows: for
//! each of 100 problems, twelve completions — the answer, a near miss, a
//! hedge, the answer last in a hedge, text around the answer, the answer
//! twice, a trailing separator, a prefix, nothing, whitespace around it, and
//! two characters where Python's `str.strip` and Rust's `str::trim` differ —
//! in the tiny format (read as written) and the chat format (trimmed).

use std::path::Path;

use anyhow::{anyhow, Result};
use candle_core::Device;
use serde_json::json;

use super::{fill, write, Source};
use crate::drills::grpo_rlvr::{Params, SYSTEM};
use crate::drills::pipeline::ModelChoice;
use crate::envs::refine_arith::{corrupt, HeldOut, Problem};
use crate::envs::rlvr::{hedge, judge, Reward, ALPHABET, SEP};
use crate::ml::rng::Rng;
use crate::ml::tokenizer::CharTokenizer;
use crate::rl::grpo::GrpoVariant;

const REWARDS_PY: &str = include_str!("../../assets/export/grpo-rlvr/rewards.py");
const TRAIN_PY: &str = include_str!("../../assets/export/grpo-rlvr/train.py");
const EVAL_PY: &str = include_str!("../../assets/export/grpo-rlvr/eval.py");
const TRL_README: &str = include_str!("../../assets/export/grpo-rlvr/README.trl.md");
const REWARD_PY: &str = include_str!("../../assets/export/grpo-rlvr/reward.py");
const RUN_GRPO_SH: &str = include_str!("../../assets/export/grpo-rlvr/run_grpo.sh");
const VERL_README: &str = include_str!("../../assets/export/grpo-rlvr/README.verl.md");
/// The versions `scripts/graduate-check.sh` installs and checks.
pub const REQUIREMENTS: &str = include_str!("../../assets/export/requirements.txt");

/// How a problem and its answers are written for the exported model.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Fmt {
    /// The tiny GPT: `47+38=` answered `580` (digits least significant first).
    Chars,
    /// A chat model: `47+38` as the user's message, answered `85`.
    Chat,
}

impl Fmt {
    pub fn name(self) -> &'static str {
        match self {
            Fmt::Chars => "chars",
            Fmt::Chat => "chat",
        }
    }

    pub fn user(self, q: &Problem) -> String {
        match self {
            Fmt::Chars => q.prompt(),
            Fmt::Chat => format!("{}+{}", q.a, q.b),
        }
    }

    pub fn gold(self, q: &Problem) -> String {
        match self {
            Fmt::Chars => q.answer(),
            Fmt::Chat => (q.a + q.b).to_string(),
        }
    }

    /// An answer of the tiny format (`580,590`) as this format writes it (`85,95`).
    pub fn written(self, answer: &str) -> String {
        match self {
            Fmt::Chars => answer.to_string(),
            Fmt::Chat => answer
                .split(SEP)
                .map(|c| c.chars().rev().collect::<String>().parse::<u64>().map_or(c.to_string(), |n| n.to_string()))
                .collect::<Vec<_>>()
                .join(","),
        }
    }

    /// The prompt as TRL's dataset holds it: text, or chat messages.
    fn prompt(self, q: &Problem) -> serde_json::Value {
        match self {
            Fmt::Chars => json!(self.user(q)),
            Fmt::Chat => {
                json!([{ "role": "system", "content": SYSTEM }, { "role": "user", "content": self.user(q) }])
            }
        }
    }

    /// The prompt as chat messages (verl renders every prompt through the chat template).
    fn messages(self, q: &Problem) -> Vec<(&'static str, String)> {
        match self {
            Fmt::Chars => vec![("user", self.user(q))],
            Fmt::Chat => vec![("system", SYSTEM.to_string()), ("user", self.user(q))],
        }
    }

    /// The completion as the drill's verifiers read it: a chat model's reply is trimmed.
    pub fn read(self, completion: &str) -> &str {
        match self {
            Fmt::Chars => completion,
            Fmt::Chat => completion.trim(),
        }
    }
}

fn params(src: &Source) -> Result<(Params, Fmt)> {
    let p: Params = crate::drills::parse_params(&src.params).map_err(|e| anyhow!(e))?;
    let fmt = if p.model == ModelChoice::Tiny { Fmt::Chars } else { Fmt::Chat };
    Ok((p, fmt))
}

/// The run's held-out problems (the drill's first draw).
pub fn held_out(p: &Params, seed: u64) -> HeldOut {
    HeldOut::distinct(p.digits, p.test_size, &mut Rng::new(seed).fork(7))
}

/// One reward case: the Rust verdict of `completion` for `q`.
fn case(fmt: Fmt, q: &Problem, kind: &str, completion: String) -> serde_json::Value {
    let gold = fmt.gold(q);
    let v = judge(fmt.read(&completion), &gold);
    json!({
        "prompt": fmt.user(q),
        "completion": completion,
        "ground_truth": gold,
        "format": fmt.name(),
        "kind": kind,
        "exact": Reward::Exact.score(&v),
        "lenient": Reward::Lenient.score(&v),
        "hedged": v.hedged,
    })
}

/// The reward cases (see the module doc): 100 problems × 12 completions × 2 formats.
pub fn reward_cases(p: &Params, seed: u64) -> Vec<serde_json::Value> {
    let ho = held_out(p, seed);
    let mut rng = Rng::new(seed).fork(13);
    let mut qs: Vec<Problem> = ho.test.iter().take(50).copied().collect();
    while qs.len() < 100 {
        qs.push(ho.fresh(&mut rng));
    }
    let mut out = Vec::new();
    for fmt in [Fmt::Chars, Fmt::Chat] {
        for q in &qs {
            let tiny = q.answer();
            let g = fmt.gold(q);
            let wrong = fmt.written(&corrupt(&tiny, &mut rng));
            let prefix: String = g.chars().take(g.chars().count().saturating_sub(1)).collect();
            for (kind, c) in [
                ("answer", g.clone()),
                ("near-miss", wrong.clone()),
                ("hedge", fmt.written(&hedge(&tiny, &mut rng))),
                ("hedge-gold-last", format!("{wrong}{SEP}{g}")),
                ("text-around", format!("The answer is {g}.")),
                ("repeated", format!("{g}{g}")),
                ("trailing-separator", format!("{g}{SEP}")),
                ("prefix", prefix),
                ("empty", String::new()),
                ("whitespace", format!(" {g}\n")),
                ("no-break-space", format!("\u{a0}{g}")),
                ("unit-separator", format!("\u{1f}{g}")),
            ] {
                out.push(case(fmt, q, kind, c));
            }
        }
    }
    out
}

fn jsonl(rows: impl IntoIterator<Item = serde_json::Value>) -> String {
    rows.into_iter().map(|r| r.to_string() + "\n").collect()
}

/// The drill's starting model for the exported experiment: the tiny GPT as
/// the drill initialises it, or the real base.
fn write_start(src: &Source, p: &Params, dir: &Path) -> Result<()> {
    match &p.model {
        ModelChoice::Tiny => super::hf::write_gpt2(
            &super::tiny::start(src)?,
            &super::tiny::char_tokenizer_json(&CharTokenizer::new(ALPHABET, &[]))?,
            &dir.join("start"),
        ),
        ModelChoice::Real(name) => {
            let m = crate::ml::gguf::load_path(&crate::ml::models::resolve(name)?, &Device::Cpu)?;
            super::hf::write_llama(&m, &dir.join("start"))
        }
    }
}

/// The data both engines share: the warm-start SFT pairs, the RL prompts, the held-out problems.
struct Data {
    warm: Vec<(Problem, String)>,
    train: Vec<Problem>,
    test: Vec<Problem>,
}

fn data(p: &Params, seed: u64, fmt: Fmt) -> Data {
    let ho = held_out(p, seed);
    let mut rng = Rng::new(seed).fork(11);
    let warm = (0..p.sft_steps * p.sft_batch)
        .map(|_| {
            let q = ho.fresh(&mut rng);
            let a = if rng.bool(p.hedge_rate) { hedge(&q.answer(), &mut rng) } else { q.answer() };
            (q, fmt.written(&a))
        })
        .collect();
    let train = (0..p.rl_steps * p.prompts_per_step).map(|_| ho.fresh(&mut rng)).collect();
    Data { warm, train, test: ho.test }
}

/// The template values both engines' files share.
fn vars(src: &Source, p: &Params, fmt: Fmt) -> Result<Vec<(&'static str, String)>> {
    let py = |k: &str| super::py_value(&src.params, k);
    let dr = p.variant == GrpoVariant::DrGrpo;
    Ok(vec![
        ("DRILL", src.drill.clone()),
        ("PRESET", src.preset.clone()),
        ("SEED", src.seed.to_string()),
        ("FORMAT", format!("{:?}", fmt.name())),
        ("REWARD", format!("{:?}", p.reward.name())),
        ("VARIANT", format!("{:?}", if dr { "dr-grpo" } else { "grpo" })),
        ("LR", py("lr")?),
        ("LR_SFT", py("lr_sft")?),
        ("SFT_STEPS", py("sft_steps")?),
        ("SFT_BATCH", py("sft_batch")?),
        ("SFT_WARMUP", (p.sft_steps / 20).to_string()),
        ("RL_STEPS", py("rl_steps")?),
        ("PROMPTS", py("prompts_per_step")?),
        ("GROUP", py("group")?),
        ("MAX_NEW", py("max_new")?),
        ("TEMPERATURE", py("temperature")?),
        ("KL", py("kl_coef")?),
        ("PPO_EPOCHS", py("ppo_epochs")?),
        ("WARMUP", (5 * p.ppo_epochs).to_string()),
        ("CLIP", py("clip_eps")?),
        ("LOSS_TYPE", format!("{:?}", if dr { "dr_grpo" } else { "grpo" })),
        ("SCALE_REWARDS", format!("{:?}", if dr { "none" } else { "group" })),
        ("VERL_LOSS_AGG", if dr { "seq-mean-token-sum-norm" } else { "seq-mean-token-mean" }.to_string()),
        ("VERL_NORM_STD", if dr { "False" } else { "True" }.to_string()),
        ("REAL", if fmt == Fmt::Chat { "True" } else { "False" }.to_string()),
        ("LORA_RANK", py("lora_rank")?),
        ("LORA_ALPHA", (2 * p.lora_rank).to_string()),
        ("LORA_LAYERS", py("lora_layers")?),
        ("TEST_SIZE", py("test_size")?),
        ("HEDGE_RATE", py("hedge_rate")?),
        ("MODEL", format!("{:?}", model_name(p))),
    ])
}

fn model_name(p: &Params) -> String {
    match &p.model {
        ModelChoice::Tiny => "tiny".into(),
        ModelChoice::Real(n) => n.clone(),
    }
}

fn common(src: &Source, dir: &Path, notes: &mut Vec<String>) -> Result<(Params, Fmt, Data)> {
    let (p, fmt) = params(src)?;
    let d = data(&p, src.seed, fmt);
    write(dir, "reward_cases.jsonl", jsonl(reward_cases(&p, src.seed)))?;
    write_start(src, &p, dir)?;
    super::write_experiment(src, dir)?;
    notes.push(crate::t!("export-start-model", dir = "start/"));
    notes.push(crate::t!("export-draws"));
    Ok((p, fmt, d))
}

pub fn export_trl(src: &Source, dir: &Path, notes: &mut Vec<String>) -> Result<()> {
    let (p, fmt, d) = common(src, dir, notes)?;
    let warm = d.warm.iter().map(|(q, a)| json!({ "prompt": fmt.prompt(q), "completion": completion(fmt, a) }));
    write(dir, "data/warm_start.jsonl", jsonl(warm))?;
    let rows =
        |qs: &[Problem]| jsonl(qs.iter().map(|q| json!({ "prompt": fmt.prompt(q), "ground_truth": fmt.gold(q) })));
    write(dir, "data/train.jsonl", rows(&d.train))?;
    write(dir, "data/test.jsonl", rows(&d.test))?;
    let v = vars(src, &p, fmt)?;
    write(dir, "rewards.py", fill(REWARDS_PY, &v)?)?;
    write(dir, "train.py", fill(TRAIN_PY, &v)?)?;
    write(dir, "eval.py", fill(EVAL_PY, &v)?)?;
    write(dir, "README.md", fill(TRL_README, &v)?)?;
    write(dir, "requirements.txt", REQUIREMENTS)
}

/// An SFT completion as TRL's prompt-completion format holds it.
fn completion(fmt: Fmt, answer: &str) -> serde_json::Value {
    match fmt {
        Fmt::Chars => json!(answer),
        Fmt::Chat => json!([{ "role": "assistant", "content": answer }]),
    }
}

pub fn export_verl(src: &Source, dir: &Path, notes: &mut Vec<String>) -> Result<()> {
    let (p, fmt, d) = common(src, dir, notes)?;
    let rows = |qs: &[Problem], split: &str| -> Vec<super::parquet::Row> {
        qs.iter()
            .enumerate()
            .map(|(i, q)| super::parquet::Row {
                data_source: format!("agentlab/{}", src.drill),
                prompt: fmt.messages(q).into_iter().map(|(r, c)| (r.to_string(), c)).collect(),
                ability: "math".into(),
                style: "rule".into(),
                ground_truth: fmt.gold(q),
                split: split.into(),
                index: i as i64,
                question: fmt.user(q),
            })
            .collect()
    };
    super::parquet::write(&dir.join("data/train.parquet"), &rows(&d.train, "train"))?;
    super::parquet::write(&dir.join("data/test.parquet"), &rows(&d.test, "test"))?;
    let v = vars(src, &p, fmt)?;
    write(dir, "reward.py", fill(REWARD_PY, &v)?)?;
    write(dir, "run_grpo.sh", fill(RUN_GRPO_SH, &v)?)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir.join("run_grpo.sh"), std::fs::Permissions::from_mode(0o755))?;
    }
    write(dir, "README.md", fill(VERL_README, &v)?)
}
