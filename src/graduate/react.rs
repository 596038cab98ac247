//! react-tool-call-loop as a TRL experiment: the run's oracle trajectories
//! pre-tokenized with the drill's loss mask, `SFTTrainer` with every drill
//! parameter mapped, the ReAct loop and its tools in plain Python, and the
//! drill's held-out metric played in that loop.
//!
//! **The data.** A training row is one trajectory the oracle played in the
//! real loop (`envs::react_tasks::solve`): its segments (prompt, agent lines,
//! tool observations, a planted misspelt lookup marked `slip`), its token ids
//! as the drill's tiny GPT reads them (BOS, each segment encoded on its own,
//! EOS: `envs::format::example`) and two loss masks: `agent_mask`, the
//! agent's lines and the end token (the drill's `mask_observations = true`),
//! and `all_mask`, every token but the slips (the unmasked twin). TRL takes a
//! pre-tokenized row as it is; `train.py` hands it the arm's mask as
//! `completion_mask` with `completion_only_loss=True`, so the labels of every
//! other token are -100 — the drill's masking, observations included, not an
//! approximation of it through a chat template.
//!
//! **The loop.** `tools.py` is `envs::react` (parse → route → observe),
//! `envs::calculator` and `envs::kb` written again in Python; `eval.py` plays
//! the held-out questions with greedy turns of at most [`MAX_TURN`] tokens,
//! each ended by a token that writes a newline, as `eval::react_loop` does.
//! `tool_cases.jsonl` holds ≥ 1,000 tool calls and agent turns (errors,
//! malformed steps and written-out observations included) with the Rust
//! result, and `eval_parity.json` each exported model's held-out episodes as
//! agentlab played them; `check_tools.py` and `eval.py --check` compare.

use std::path::Path;

use anyhow::{anyhow, Result};
use candle_core::Device;
use serde_json::{json, Value};

use super::{fill, masked_loss, write, Refused, Source};
use crate::drills::pipeline::ModelChoice;
use crate::drills::react_tool_call_loop::{self as react, Params};
use crate::envs::format::{example, Format};
use crate::envs::kb::FactTable;
use crate::envs::react::{Session, Tools};
use crate::envs::react_tasks::{misspell, oracle_turn, Kind, Task};
use crate::envs::{joined, Role};
use crate::eval::react_loop::{evaluate, hallucination_rate, MAX_TURN};
use crate::eval::Lm;
use crate::ml::data::{Example, LengthBuckets};
use crate::ml::gpt::Gpt;
use crate::ml::rng::Rng;
use crate::ml::tokenizer::Bpe;

const TRAIN_PY: &str = include_str!("../../assets/export/react-tool-call-loop/train.py");
const EVAL_PY: &str = include_str!("../../assets/export/react-tool-call-loop/eval.py");
const TOOLS_PY: &str = include_str!("../../assets/export/react-tool-call-loop/tools.py");
const CHECK_TOOLS_PY: &str = include_str!("../../assets/export/react-tool-call-loop/check_tools.py");
const CHECK_LOSS_PY: &str = include_str!("../../assets/export/react-tool-call-loop/check_loss.py");
const README: &str = include_str!("../../assets/export/react-tool-call-loop/README.md");

/// The run's arms an export carries, as the run kept them.
const ARMS: [&str; 2] = ["masked", "unmasked"];

fn role_name(r: Role) -> &'static str {
    match r {
        Role::Prompt => "prompt",
        Role::Agent => "agent",
        Role::Env => "env",
    }
}

fn kind_name(k: Kind) -> &'static str {
    match k {
        Kind::Lookup => "lookup",
        Kind::Calc => "calc",
        Kind::Both => "lookup+calc",
        Kind::Direct => "no tool",
    }
}

/// The held-out questions played greedily in the loop by `model`, as the drill's evaluate phase plays them.
fn episodes(model: &Gpt, tok: &Bpe, fmt: &Format, tasks: &[Task], tools: &Tools, max_steps: usize) -> Result<Value> {
    let lm = Lm { model, tok, fmt };
    let e = evaluate(&lm, tasks, tools, max_steps)?;
    let writes_obs = hallucination_rate(&lm, tasks)?;
    let rows: Vec<Value> = e
        .sessions
        .iter()
        .map(|s| json!({ "answer": s.episode.answer, "steps": s.episode.steps, "transcript": joined(&s.episode.segments) }))
        .collect();
    Ok(
        json!({ "success": e.success, "validity": e.validity, "steps": e.steps, "writes_obs": writes_obs, "episodes": rows }),
    )
}

pub fn export_trl(src: &Source, dir: &Path, notes: &mut Vec<String>) -> Result<()> {
    let p: Params = crate::drills::parse_params(&src.params).map_err(|e| anyhow!(e))?;
    if p.model != ModelChoice::Tiny {
        return Err(anyhow!(Refused(crate::t!("export-react-real"))));
    }
    let w = react::trajectories(&p, src.seed);
    let (start, tok) = react::tiny_start(&p, src.seed, &Device::Cpu)?;
    let fmt = Format::tiny(&tok);
    let tok_json = tok.to_json()?;

    // Training rows: the trajectory, its ids and both loss masks.
    let mut masked = Vec::with_capacity(w.solved.len());
    let mut unmasked = Vec::with_capacity(w.solved.len());
    let mut train = String::new();
    for (task, s) in w.train_tasks.iter().zip(&w.solved) {
        let segs = &s.session.episode.segments;
        let m = example(&tok, &fmt, segs, true, &s.mistakes);
        let u = example(&tok, &fmt, segs, false, &s.mistakes);
        let segments: Vec<Value> = segs
            .iter()
            .enumerate()
            .map(|(k, (r, t))| json!({ "role": role_name(*r), "text": t, "slip": s.mistakes.contains(&k) }))
            .collect();
        let row = json!({
            "question": task.question, "truth": task.truth, "kind": kind_name(task.kind),
            "segments": segments, "input_ids": m.tokens, "agent_mask": m.train, "all_mask": u.train,
        });
        train.push_str(&(row.to_string() + "\n"));
        masked.push(m);
        unmasked.push(u);
    }
    write(dir, "data/train.jsonl", train)?;
    let test: String = w
        .eval_tasks
        .iter()
        .map(|t| {
            // The oracle's first action: the probe of whether a model writes the observation itself.
            let first = (t.kind != Kind::Direct).then(|| oracle_turn(t, &Session::new(&t.question).transcript));
            json!({ "question": t.question, "truth": t.truth, "kind": kind_name(t.kind), "first_action": first })
                .to_string()
                + "\n"
        })
        .collect();
    write(dir, "data/test.jsonl", test)?;
    write(dir, "world/facts.tsv", crate::envs::kb::FACTS)?;
    write(dir, "tool_cases.jsonl", tool_cases(&w.tools, src.seed))?;

    // The models: the start, and the run's two arms where it kept them.
    super::hf::write_gpt2(&start, &tok_json, &dir.join("start"))?;
    notes.push(crate::t!("export-start-model", dir = "start/"));
    let mut models = vec![("start", start)];
    let kept = super::hf::kept_if_any(src, notes)?;
    if let Some(run) = kept {
        for arm in ARMS {
            let gpt = run.tiny(arm, &Device::Cpu)?;
            super::hf::write_gpt2(&gpt, &tok_json, &dir.join(arm))?;
            notes.push(crate::t!("export-hf-arm", arm = arm, dir = format!("{arm}/")));
            models.push((arm, gpt));
        }
    }

    // The drill's first batch of the agent's fit (`fit`: the stream `seed ^ 0xda7a`, length buckets).
    let agent_data = if p.mask_observations { &masked } else { &unmasked };
    let mut rng = Rng::new(src.seed ^ 0xda7a);
    let first: Vec<usize> = LengthBuckets::new(agent_data).sample(p.batch, &mut rng);
    let picks: Vec<&Example> = first.iter().map(|&i| &agent_data[i]).collect();
    let every: Vec<&Example> = first.iter().map(|&i| &unmasked[i]).collect();
    let mut losses = Vec::new();
    let mut evals = serde_json::Map::new();
    for (name, m) in &models {
        losses.push(json!({ "dir": name, "loss": masked_loss(m, &picks)?, "loss_unmasked": masked_loss(m, &every)? }));
        evals.insert(name.to_string(), episodes(m, &tok, &fmt, &w.eval_tasks, &w.tools, p.max_steps)?);
    }
    let parity = json!({
        "what": "agentlab's masked cross-entropy of the drill's first batch (step 0 of the agent's fit), per model",
        "mask_observations": p.mask_observations,
        "rows": first,
        "tokens": picks.iter().map(|e| &e.tokens).collect::<Vec<_>>(),
        "in_loss": picks.iter().map(|e| &e.train).collect::<Vec<_>>(),
        "models": losses,
    });
    write(dir, "loss_parity.json", serde_json::to_string_pretty(&parity)?)?;
    let eval = json!({
        "what": "each model's held-out episodes as agentlab played them: greedy turns, the real tools",
        "max_steps": p.max_steps, "max_turn": MAX_TURN, "models": evals,
    });
    write(dir, "eval_parity.json", serde_json::to_string(&eval)?)?;

    super::write_experiment(src, dir)?;
    let py = |k: &str| super::py_value(&src.params, k);
    let longest = masked.iter().map(|e| e.len()).max().unwrap_or(0);
    let mut v = super::header_vars(src);
    v.extend([
        ("STEPS", py("steps")?),
        ("BATCH", py("batch")?),
        ("LR", py("lr")?),
        ("WARMUP", crate::drills::pipeline::warmup(p.steps).to_string()),
        ("MASK", py("mask_observations")?),
        ("ARM", if p.mask_observations { "masked" } else { "unmasked" }.to_string()),
        ("START_FROM", py("start_from")?),
        ("SLIP_RATE", py("slip_rate")?),
        ("MAX_STEPS", py("max_steps")?),
        ("MAX_TURN", MAX_TURN.to_string()),
        ("TRAIN_TASKS", w.train_tasks.len().to_string()),
        ("EVAL_TASKS", w.eval_tasks.len().to_string()),
        ("PLACES", w.places.len().to_string()),
        ("HELD_OUT", w.held_out.len().to_string()),
        ("LONGEST", longest.to_string()),
        ("CONTEXT", models[0].1.cfg.context.to_string()),
    ]);
    write(dir, "train.py", fill(TRAIN_PY, &v)?)?;
    write(dir, "eval.py", fill(EVAL_PY, &v)?)?;
    write(dir, "tools.py", fill(TOOLS_PY, &v)?)?;
    write(dir, "check_tools.py", fill(CHECK_TOOLS_PY, &v)?)?;
    write(dir, "check_loss.py", fill(CHECK_LOSS_PY, &v)?)?;
    write(dir, "README.md", fill(README, &v)?)?;
    write(dir, "requirements.txt", super::grpo::REQUIREMENTS)
}

/// Tool calls and agent turns with the Rust loop's answers: what
/// `check_tools.py` replays through `tools.py`. Calls cover every tool,
/// both lookup word orders, misspelt and unknown places, arithmetic with
/// every error the calculator reports, and unknown tools; turns cover both
/// action forms, thoughts, answers, written-out observations and text that
/// is no step at all.
pub fn tool_cases(tools: &Tools, seed: u64) -> String {
    let mut rng = Rng::new(seed).fork(0x7001);
    let kb: &FactTable = &tools.kb;
    let places: Vec<String> = kb.entities().iter().map(|s| s.to_string()).collect();
    let attrs = ["population", "founded", "capital", "flag", "Population", "area"];
    let mut calls: Vec<(String, String)> = Vec::new();
    for _ in 0..240 {
        let place = rng.choose(&places).clone();
        let attr = *rng.choose(&attrs);
        let input = match rng.below(7) {
            0 => format!("{attr} of {place}"),
            1 => format!("{place} {attr}"),
            2 => format!("{attr} of {}", misspell(&place, &mut rng)),
            3 => format!("  {attr}   of {}  ", place.to_lowercase()),
            4 => place.clone(),
            5 => format!("the {attr} of {place}"),
            _ => format!("{attr} of {place}?"),
        };
        calls.push(("lookup".into(), input));
    }
    let ops = ["+", "-", "*", "/", " x ", "×", "%", ","];
    for _ in 0..360 {
        let n = |rng: &mut Rng| -> String {
            match rng.below(10) {
                0 => "0".into(),
                1 => "170141183460469231731687303715884105727".into(),
                2 => "99999999999999999999".into(),
                3 => format!("-{}", rng.range(1, 999)),
                _ => rng.range(0, 9999).to_string(),
            }
        };
        let (a, b, c) = (n(&mut rng), n(&mut rng), n(&mut rng));
        let (o1, o2) = (*rng.choose(&ops[..6]), *rng.choose(&ops));
        let input = match rng.below(8) {
            0 => format!("{a} {o1} {b}"),
            1 => format!("({a}{o1}{b}){o2}{c}"),
            2 => format!("{a}{o1}({b}{o2}{c})"),
            3 => format!("{a} {o2} {b}"),
            4 => format!("({a}{o1}{b}"),
            5 => format!("{a}{o1}"),
            6 => format!("-({a}) {o1} -{b}"),
            _ => format!("{a} {b}"),
        };
        calls.push(("calc".into(), input));
    }
    for _ in 0..120 {
        let words = [
            rng.choose(&places).clone(),
            rng.choose(&attrs).to_string(),
            rng.choose(&places).to_lowercase(),
            "of".to_string(),
            "nothing".to_string(),
        ];
        let k = 1 + rng.below(3);
        let q: Vec<String> = (0..k).map(|_| rng.choose(&words).clone()).collect();
        calls.push(("search".into(), q.join(" ")));
    }
    // Every error the calculator has, and the edges of its integers.
    for e in [
        "",
        "2+",
        "1,250",
        "(1+2",
        "1/0",
        "7/2",
        "-7/2",
        "abc",
        "5 5",
        "12 x 3",
        "2 × 21",
        "99999999999999999999*99999999999999999999",
        "9223372036854775807+1",
        "-9223372036854775808",
        "170141183460469231731687303715884105728",
        "(-170141183460469231731687303715884105727-1)/-1",
        "-(-170141183460469231731687303715884105727-1)",
        "((((2))))*-(-3)",
        "1 2 3",
        ")",
    ] {
        calls.push(("calc".into(), e.to_string()));
    }
    for tool in ["weather", "Lookup", "calculator", "", "search "] {
        calls.push((tool.to_string(), "population of Vesk".into()));
    }
    let mut out = String::new();
    for (tool, input) in &calls {
        let r = tools.call(tool, input);
        let row = match r {
            Ok(v) => json!({ "case": "call", "tool": tool, "input": input, "ok": v }),
            Err(e) => json!({ "case": "call", "tool": tool, "input": input, "err": e }),
        };
        out.push_str(&(row.to_string() + "\n"));
    }
    // Agent turns applied to a fresh episode: what the loop keeps, what it observes, what it counts.
    let mut turns: Vec<String> = Vec::new();
    for _ in 0..300 {
        let place = rng.choose(&places).clone();
        let task = crate::envs::react_tasks::make_task(&mut rng, kb, &places);
        let s = Session::new(&task.question);
        let oracle = oracle_turn(&task, &s.transcript);
        let turn = match rng.below(12) {
            0 => oracle,
            1 => format!("Thought: I need a tool\n{oracle}"),
            2 => format!("{oracle}Observation: 42\n"),
            3 => format!("Action: lookup\nAction Input: capital of {place}\n"),
            4 => "Action: lookup\n".to_string(),
            5 => format!("Action: [capital of {place}]\n"),
            6 => format!("Action: calc[{}", rng.range(1, 99)),
            7 => "Final Answer:\n".to_string(),
            8 => format!("  Final Answer:  {place} \r\nAction: calc[1+1]\n"),
            9 => format!("gibberish {place}"),
            10 => format!("Observation: {}\n", rng.range(1, 9999)),
            _ => format!("{}\n", oracle.trim_end().replace('[', " [")),
        };
        turns.push(format!("{}\u{0}{turn}", task.question));
    }
    for t in &turns {
        let (question, turn) = t.split_once('\u{0}').expect("joined above");
        let mut s = Session::new(question);
        s.apply(turn, tools, 2);
        let e = &s.episode;
        let added: Vec<Value> = e.segments[1..].iter().map(|(r, t)| json!([role_name(*r), t])).collect();
        let row = json!({
            "case": "turn", "question": question, "turn": turn, "added": added, "done": s.done, "answer": e.answer,
            "counts": [e.steps, e.tool_calls, e.valid_calls, e.invalid_steps, e.hallucinated_observations],
        });
        out.push_str(&(row.to_string() + "\n"));
    }
    out
}
