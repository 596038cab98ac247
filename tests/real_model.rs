//! SmolLM2-135M-Instruct from its GGUF (fetched by `scripts/get-smollm2.sh`):
//! the f32 model agrees with candle-transformers' own quantized Llama, answers
//! a plain question, and LoRA trains only its adapters.

use std::path::PathBuf;

use agentlab::ml::gguf::{self, RealModel};
use agentlab::ml::llama::LoraConfig;
use agentlab::ml::lm::CausalLm;
use agentlab::ml::loss::masked_cross_entropy;
use agentlab::ml::optim::{AdamW, AdamWConfig};
use agentlab::ml::rng::Rng;
use agentlab::ml::sample::GenConfig;
use agentlab::ml::tokenizer::Tokenize;
use candle_core::{Device, Tensor};

fn gguf_path() -> PathBuf {
    let p = agentlab::ml::models::smollm2_cache_path();
    assert!(p.is_file(), "SmolLM2 GGUF not found at {}: run scripts/get-smollm2.sh", p.display());
    p
}

fn smollm2() -> RealModel {
    gguf::load(&gguf_path(), &Device::Cpu).unwrap()
}

fn france(m: &RealModel) -> Vec<u32> {
    let text = m.chat.render(&[("user", "What is the capital of France?")], true).unwrap();
    m.tokenizer.encode(&text)
}

#[test]
fn loads_the_architecture_from_the_metadata() {
    let m = smollm2();
    let c = &m.model.cfg;
    assert_eq!(
        (c.num_hidden_layers, c.hidden_size, c.num_attention_heads, c.kv_heads(), c.intermediate_size),
        (30, 576, 9, 3, 1536)
    );
    assert_eq!(c.vocab_size, 49152);
    assert!(c.tie_word_embeddings);
    assert!(!c.qkv_bias());
    assert_eq!(c.rope_theta, 100_000.0);
    let n = m.model.num_params();
    assert!((134_000_000..136_000_000).contains(&n), "{n} parameters");
    assert_eq!((m.bos, m.eos), (None, 2), "SmolLM2 adds no BOS; <|im_end|> ends a turn");
}

/// candle-transformers' `quantized_llama` (an independent implementation of
/// the same architecture, reading the same file) at the last position of a
/// chat prompt. `dequantize_all` makes it multiply by the dequantized f32
/// weights (candle's `CANDLE_DEQUANTIZE_ALL`, read once per thread), as ours
/// does; without it, it multiplies by the 4-bit blocks and rounds each
/// activation row to 8 bits for the dot products.
fn reference_logits(ids: &[u32], dequantize_all: bool) -> Vec<f32> {
    let ids = ids.to_vec();
    std::thread::spawn(move || {
        use candle_transformers::models::quantized_llama::ModelWeights;
        if dequantize_all {
            std::env::set_var("CANDLE_DEQUANTIZE_ALL", "1");
        }
        let (content, mut file) = gguf::read_content(&gguf_path()).unwrap();
        let mut model = ModelWeights::from_gguf(content, &mut file, &Device::Cpu).unwrap();
        let x = Tensor::from_vec(ids.clone(), (1, ids.len()), &Device::Cpu).unwrap();
        model.forward(&x, 0).unwrap().squeeze(0).unwrap().to_vec1::<f32>().unwrap()
    })
    .join()
    .unwrap()
}

fn top(v: &[f32], k: usize) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..v.len()).collect();
    idx.sort_by(|&i, &j| v[j].total_cmp(&v[i]));
    idx.truncate(k);
    idx
}

fn max_abs_diff(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0f32, f32::max)
}

/// Same weights, two implementations: our differentiable f32 Llama (with the
/// un-permuted q/k rows and rotate-half RoPE) against `quantized_llama` on the
/// dequantized weights (interleaved RoPE on the file's rows). They may differ
/// only by f32 rounding in a different order of operations: measured max
/// |Δlogit| ≈ 1e-4 on a range of ~34; the bound 1e-2 leaves room for other
/// CPUs' kernels and still catches any architectural slip (a wrong RoPE pairing,
/// ε or θ moves logits by whole units). Against the quantized path (activations
/// rounded to 8 bits) the gap is ~1.4 and the two most likely tokens can swap,
/// which is why that comparison only checks the top five overlap.
#[test]
fn logits_match_candle_transformers_quantized_llama() {
    let m = smollm2();
    let ids = france(&m);
    let t = ids.len();
    let x = Tensor::from_vec(ids.clone(), (1, t), &Device::Cpu).unwrap();
    let ours = m.model.forward(&x).unwrap().get(0).unwrap().get(t - 1).unwrap().to_vec1::<f32>().unwrap();
    // The quantized path first: the environment variable, once set, stays set.
    let quantized = reference_logits(&ids, false);
    let exact = reference_logits(&ids, true);
    let spread = exact.iter().cloned().fold(f32::MIN, f32::max) - exact.iter().cloned().fold(f32::MAX, f32::min);
    let (d_exact, d_quant) = (max_abs_diff(&ours, &exact), max_abs_diff(&ours, &quantized));
    eprintln!(
        "max |Δlogit| vs dequantized reference {d_exact:.2e}, vs quantized {d_quant:.3}, logit range {spread:.2}; top-5 ours {:?}, dequantized {:?}, quantized {:?}",
        top(&ours, 5),
        top(&exact, 5),
        top(&quantized, 5)
    );
    assert!(spread > 10.0, "logits are not trivially flat: range {spread}");
    assert!(d_exact < 1e-2, "max |Δlogit| {d_exact} against the same weights in quantized_llama");
    assert_eq!(top(&ours, 5), top(&exact, 5));
    let shared = top(&ours, 5).iter().filter(|i| top(&quantized, 5).contains(i)).count();
    assert!(shared >= 4, "top-5 overlap with the quantized path: {shared}");
}

#[test]
fn greedy_answer_to_a_plain_question_is_sensible() {
    let m = smollm2();
    let prompt = france(&m);
    let cfg = GenConfig::greedy(16, vec![m.eos]);
    let out = m.model.generate(std::slice::from_ref(&prompt), &cfg, &mut Rng::new(0)).unwrap();
    let text = m.tokenizer.decode(&out[0]);
    assert!(text.contains("Paris"), "{text:?}");
    // A second turn through a memo (the first turn's K/V reused) answers as a fresh start does.
    let turn1 = m.chat.render(&[("user", "Name a colour.")], true).unwrap();
    let prompts = vec![prompt.clone(), m.tokenizer.encode(&turn1)];
    let mut memo = agentlab::ml::lm::Memo::default();
    let first = m.model.generate_with(&prompts, &cfg, &mut Rng::new(0), &mut memo).unwrap();
    let follow = "<|im_end|>\n<|im_start|>user\nAnd in one word?<|im_end|>\n<|im_start|>assistant\n";
    let seconds: Vec<Vec<u32>> =
        prompts.iter().zip(&first).map(|(p, o)| [p.clone(), o.clone(), m.tokenizer.encode(follow)].concat()).collect();
    let cached = m.model.generate_with(&seconds, &cfg, &mut Rng::new(0), &mut memo).unwrap();
    let fresh = m.model.generate(&seconds, &cfg, &mut Rng::new(0)).unwrap();
    assert_eq!(cached, fresh, "{:?} vs {:?}", m.tokenizer.decode(&cached[0]), m.tokenizer.decode(&fresh[0]));
    // The K/V-cached generation equals recomputing the whole sequence each step.
    let mut seq = prompt;
    for &want in out[0].iter().take(6) {
        let x = Tensor::from_vec(seq.clone(), (1, seq.len()), &Device::Cpu).unwrap();
        let logits = m.model.forward(&x).unwrap().get(0).unwrap().get(seq.len() - 1).unwrap();
        let best = logits.argmax(0).unwrap().to_scalar::<u32>().unwrap();
        assert_eq!(best, want);
        seq.push(best);
    }
}

#[test]
fn lora_gets_gradients_and_the_frozen_base_none_and_a_few_steps_lower_the_loss() {
    let m = smollm2();
    let cfg =
        LoraConfig { targets: vec!["q_proj".into(), "v_proj".into(), "o_proj".into()], ..LoraConfig::new(4, 8.0, 3) };
    let model = m.model.fork_with_lora(&cfg).unwrap();
    let text = m.chat.render(&[("user", "Add 17 and 25."), ("assistant", "17 + 25 = 42")], false).unwrap();
    let ids = m.tokenizer.encode(&text);
    let t = ids.len() - 1;
    let x = Tensor::from_vec(ids[..t].to_vec(), (1, t), &Device::Cpu).unwrap();
    let y = Tensor::from_vec(ids[1..].iter().map(|&v| v as i64).collect::<Vec<_>>(), (1, t), &Device::Cpu).unwrap();
    let loss = masked_cross_entropy(&model.forward(&x).unwrap(), &y).unwrap();
    let grads = loss.backward().unwrap();
    let trainable = model.trainable_vars();
    assert_eq!(trainable.len(), 30 * 3 * 2);
    for v in &trainable {
        let g = grads.get(v.as_tensor()).expect("every adapter has a gradient");
        let n = g.abs().unwrap().sum_all().unwrap().to_scalar::<f32>().unwrap();
        // B starts at 0, so A's gradient (∝ Bᵀ) is 0 at the first step; B's is not.
        let is_b = v.as_tensor().dims()[1] == 4;
        assert!(!is_b || n > 0.0, "an adapter B without gradient");
    }
    let base = model.vars();
    for (name, v) in &base {
        if !name.contains("lora_") {
            assert!(grads.get(v.as_tensor()).is_none(), "frozen {name} got a gradient");
        }
    }
    let mut opt = AdamW::new(trainable.clone(), AdamWConfig { lr: 1e-3, ..Default::default() }).unwrap();
    let first = loss.to_scalar::<f32>().unwrap();
    let mut last = first;
    for _ in 0..4 {
        let loss = masked_cross_entropy(&model.forward(&x).unwrap(), &y).unwrap();
        last = loss.to_scalar::<f32>().unwrap();
        opt.step(&loss.backward().unwrap()).unwrap();
    }
    // After a step, A's gradients are non-zero too.
    let loss = masked_cross_entropy(&model.forward(&x).unwrap(), &y).unwrap();
    let grads = loss.backward().unwrap();
    for v in &trainable {
        let n = grads.get(v.as_tensor()).unwrap().abs().unwrap().sum_all().unwrap().to_scalar::<f32>().unwrap();
        assert!(n > 0.0, "an adapter without gradient after training started");
    }
    assert!(last < first * 0.8, "loss {first} → {last}");
    // The twin on the same base is untouched by this training.
    let twin = m.model.fork_with_lora(&cfg).unwrap();
    let l0 = masked_cross_entropy(&twin.forward(&x).unwrap(), &y).unwrap().to_scalar::<f32>().unwrap();
    assert!((l0 - first).abs() < 1e-4, "{l0} vs {first}");
}

#[test]
fn bad_model_files_give_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let err = |p: &std::path::Path| gguf::load(p, &Device::Cpu).err().map(|e| format!("{e:#}")).unwrap_or_default();
    let missing = dir.path().join("nope.gguf");
    let e = err(&missing);
    assert!(e.contains("cannot open") && e.contains("nope.gguf"), "{e}");

    let junk = dir.path().join("junk.gguf");
    std::fs::write(&junk, b"not a model at all").unwrap();
    let e = err(&junk);
    assert!(e.contains("not a readable GGUF"), "{e}");

    // The real file cut short: the header reads, the tensor data is missing.
    let bytes = std::fs::read(gguf_path()).unwrap();
    let cut = dir.path().join("cut.gguf");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let e = err(&cut);
    assert!(e.contains("truncated"), "{e}");

    // Another architecture: the same file with general.architecture rewritten.
    let arch = b"general.architecture";
    let at = bytes.windows(arch.len()).position(|w| w == arch).unwrap() + arch.len();
    // value type (u32) then string length (u64) then the bytes "llama"
    let value = at + 4 + 8;
    assert_eq!(&bytes[value..value + 5], b"llama");
    let mut other = bytes.clone();
    other[value..value + 5].copy_from_slice(b"gemma");
    let odd = dir.path().join("other.gguf");
    std::fs::write(&odd, &other).unwrap();
    let e = err(&odd);
    assert!(e.contains("\"gemma\"") && e.contains("llama"), "{e}");
}

/// Run `drill`'s `real` preset on SmolLM2 (seed 1) with `sets` overriding it;
/// its events and the final report.
fn run_real(drill: &str, sets: &[(&str, &str)]) -> (Vec<agentlab::drills::Event>, agentlab::drills::Report) {
    use agentlab::content::Content;
    use agentlab::drills::Event;
    use agentlab::ml::device::DeviceChoice;
    use agentlab::runner::{self, RunConfig};
    let content = Content::embedded().unwrap();
    let meta = content.drill(drill).unwrap();
    let path = gguf_path().display().to_string();
    let sets: Vec<(String, String)> = std::iter::once(("model", path.as_str()))
        .chain(sets.iter().copied())
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let params = runner::resolve_params(meta, "real", &sets).unwrap();
    let root = tempfile::tempdir().unwrap();
    let config = RunConfig {
        drill: meta.id.clone(),
        preset: "real".into(),
        seed: 1,
        device: DeviceChoice::Cpu,
        params,
        uses: Default::default(),
        keep: true,
    };
    let mut h = runner::start(meta, config, root.path()).unwrap();
    let events: Vec<Event> = h.rx.iter().collect();
    h.join();
    let report = events.iter().find_map(|e| if let Event::Finished(r) = e { Some(r.clone()) } else { None }).unwrap();
    assert!(
        matches!(report.status, agentlab::drills::RunStatus::Passed | agentlab::drills::RunStatus::ClaimsFailed),
        "{:?}",
        report.status
    );
    (events, report)
}

/// The ids of the claims (and observations) a run reported, sorted.
fn claim_ids(report: &agentlab::drills::Report) -> Vec<&str> {
    let mut ids: Vec<&str> = report.claims.iter().map(|c| c.id.as_str()).collect();
    ids.sort();
    ids
}

fn logs(events: &[agentlab::drills::Event]) -> Vec<&str> {
    use agentlab::drills::Event;
    events.iter().filter_map(|e| if let Event::Log(l) = e { Some(l.as_str()) } else { None }).collect()
}

/// The ReAct drill on SmolLM2, cut short (6 LoRA steps a model, 20 held-out
/// questions): it runs end to end through the runner and reports exactly the
/// `real` preset's claims, not the tiny model's. (The full `real` preset takes
/// minutes; its measured claims are in the drill's README.)
#[test]
fn react_drill_runs_the_real_preset_on_smollm2() {
    let (events, report) = run_real(
        "react-tool-call-loop",
        &[("steps", "6"), ("train_tasks", "50"), ("eval_tasks", "20"), ("probes", "1")],
    );
    assert_eq!(claim_ids(&report), ["hallucination_gap", "sft_gain"]);
    let logs = logs(&events);
    assert!(logs.iter().any(|l| l.contains("LoRA r8") && l.contains("134515008 parameters")), "{logs:?}");
}

/// Multi-turn RL on SmolLM2, cut short (8 warm-start steps, 2 RL steps, 8
/// evaluation questions): the model's known places are the real countries it
/// names when asked, the run reports the `real` preset's claims, and the
/// world's observation tokens get no gradient through the real model either.
#[test]
fn turn_credit_drill_runs_the_real_preset_on_smollm2() {
    let (events, report) = run_real(
        "turn-credit-assignment",
        &[("warm_steps", "8"), ("rl_steps", "2"), ("eval_questions", "8"), ("lora_layers", "2")],
    );
    assert_eq!(
        claim_ids(&report),
        ["observation_logit_grad", "reward_gain", "search_decisions_gain", "search_gain_unknown"]
    );
    let grad = report.claims.iter().find(|c| c.id == "observation_logit_grad").unwrap();
    assert!(grad.pass && grad.measured == 0.0, "{grad:?}");
    let logs = logs(&events);
    // Zero at the observations means something only if the agent's tokens got a gradient.
    let probe = logs.iter().find(|l| l.contains("at agent positions")).expect("the gradient probe ran");
    let agent: f64 = probe.rsplit(": ").next().and_then(|v| v.parse().ok()).expect("a number");
    assert!(agent > 0.0, "{probe}");
    let known = logs.iter().find(|l| l.contains("names the capital of")).expect("the known-countries probe ran");
    assert!(known.contains("France"), "{known}");
}

/// Self-Refine and STaR on SmolLM2, cut short (6 LoRA steps, 16 held-out
/// problems, one revision round, a 2-step STaR round): the problem reaches
/// the model through its chat template, the LoRA steps lower the loss, and
/// the run reports the `real` preset's claims.
#[test]
fn self_refine_drill_runs_the_real_preset_on_smollm2() {
    use agentlab::drills::{Event, View};
    let (events, report) = run_real(
        "self-refine-loop",
        &[
            ("steps", "6"),
            ("batch", "8"),
            ("test_size", "16"),
            ("rounds", "1"),
            ("star_problems", "16"),
            ("star_steps", "2"),
            ("lora_layers", "2"),
        ],
    );
    assert_eq!(
        claim_ids(&report),
        ["refine_gain", "self_critic_misses_own_errors", "star_draft_score_gain", "verifier_beats_self_critic"]
    );
    let trace = events
        .iter()
        .find_map(|e| match e {
            Event::View(View::Tokens { tokens, .. }) => {
                Some(tokens.iter().map(|t| t.text.as_str()).collect::<String>())
            }
            _ => None,
        })
        .expect("the trace view");
    assert!(trace.starts_with("<|im_start|>system") && trace.contains("<|im_start|>assistant"), "{trace}");
    let sft: Vec<f64> = events
        .iter()
        .filter_map(|e| match e {
            Event::Metric { name, value, step, .. } if name == "sft loss" && *step < 6 => Some(*value),
            _ => None,
        })
        .collect();
    assert_eq!(sft.len(), 6);
    assert!(sft[5] < sft[0] * 0.6, "the LoRA steps lower the loss: {sft:?}");
}

/// GRPO with a sound and a lenient verifier on SmolLM2, cut short (12
/// warm-start steps, 2 RL steps of 4 prompts × 4 samples, 16 held-out
/// problems): the untrained model is measured first, answers are written as
/// people write sums, an arm's policy leaves the frozen reference when its
/// groups' rewards differ (its KL is 0 on the first, on-policy step and
/// positive after the update), and the run reports every claim.
#[test]
fn grpo_drill_runs_the_real_preset_on_smollm2() {
    use agentlab::drills::Event;
    let (events, report) = run_real(
        "grpo-rlvr",
        &[
            ("sft_steps", "12"),
            ("rl_steps", "2"),
            ("prompts_per_step", "4"),
            ("group", "4"),
            ("test_size", "16"),
            ("lora_layers", "2"),
        ],
    );
    assert_eq!(
        claim_ids(&report),
        [
            "detector_flags_proxy",
            "detector_quiet_on_sound",
            "proxy_exploit_share",
            "proxy_reward_gain",
            "proxy_true_change",
            "sound_single_answer_gain",
            "sound_true_gain"
        ]
    );
    untrained_first_and_sums_as_people_write_them(&events, "Held-out completions");
    let series = |name: String| -> Vec<f64> {
        events
            .iter()
            .filter_map(|e| match e {
                Event::Metric { name: n, value, .. } if *n == name => Some(*value),
                _ => None,
            })
            .collect()
    };
    let mut learned = 0;
    for arm in ["sound", "proxy"] {
        let kl = series(format!("{arm}/kl"));
        assert_eq!(kl.len(), 2, "{arm}");
        assert!(kl[0].abs() < 1e-6, "{arm}: on-policy and at the reference on the first step: {kl:?}");
        // A step whose groups all scored alike has no advantage to learn from.
        if series(format!("{arm}/frac_reward_zero_std"))[0] < 1.0 {
            assert!(kl[1] > 0.0, "{arm}: the update moved the policy away from the frozen reference: {kl:?}");
            learned += 1;
        }
    }
    assert!(learned > 0, "no arm had a group with different rewards: the check above checked nothing");
    // Each arm's rollout rate: 2 steps × 4 prompts × 4 samples.
    for arm in ["sound arm", "proxy arm"] {
        let head = format!("RL rollouts, {arm}: 32 episodes, ");
        let line = logs(&events).into_iter().find(|l| l.starts_with(&head)).unwrap_or_else(|| panic!("{head}…"));
        let sampled: usize = line[head.len()..].split(' ').next().and_then(|n| n.parse().ok()).expect("a count");
        assert!((32..=32 * 12).contains(&sampled), "at least one token each, at most max_new: {line}");
    }
}

/// DPO on SmolLM2's own verifier-ranked answers, cut short (6 SFT steps, 16
/// prompts × 4 samples, 3 steps of each training run, 16 held-out problems):
/// the pairs are the model's answers written as people write sums, the
/// policy starts at the SFT adapters (the first DPO loss is ln 2: policy and
/// reference agree on every pair), and the run reports the `real` preset's
/// claims and observations.
#[test]
fn dpo_drill_runs_the_real_preset_on_smollm2() {
    use agentlab::drills::Event;
    let (events, report) = run_real(
        "dpo-pairs",
        &[
            ("sft_steps", "6"),
            ("prompts", "16"),
            ("steps", "3"),
            ("batch", "4"),
            ("test_size", "16"),
            ("eval_samples", "1"),
            ("evals", "1"),
            ("lora_layers", "2"),
        ],
    );
    assert_eq!(
        claim_ids(&report),
        [
            "chosen_logp_change_small_beta",
            "dpo_minus_sft_on_chosen",
            "heldout_reward_accuracy",
            "higher_beta_stays_closer",
            "pass_rate_gain",
            "sft_on_chosen_gain"
        ]
    );
    // Two of the tiny model's claims are observations on the real model (the README gives their rates).
    let observed: Vec<&str> = report
        .claims
        .iter()
        .filter(|c| c.observation)
        .map(|c| c.id.as_str())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    assert_eq!(
        observed,
        [
            "chosen_logp_change_small_beta",
            "dpo_minus_sft_on_chosen",
            "heldout_reward_accuracy",
            "higher_beta_stays_closer"
        ]
    );
    untrained_first_and_sums_as_people_write_them(&events, "Sampled groups");
    let first = events
        .iter()
        .find_map(|e| match e {
            Event::Metric { name, step: 0, value, .. } if name == "loss" => Some(*value),
            _ => None,
        })
        .expect("a DPO loss");
    assert!((first - std::f64::consts::LN_2).abs() < 1e-3, "first DPO loss {first}, not ln 2");
}

/// The run measured the untrained model first, and the table whose title
/// starts with `table` shows `a+b` with its sum as people write it.
fn untrained_first_and_sums_as_people_write_them(events: &[agentlab::drills::Event], table: &str) {
    use agentlab::drills::{Event, View};
    let logs = logs(events);
    assert!(logs.iter().any(|l| l.contains("untrained instruct model")), "{logs:?}");
    let rows = events
        .iter()
        .find_map(|e| match e {
            Event::View(View::Table { title, rows, .. }) if title.starts_with(table) => Some(rows.clone()),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no table {table:?}"));
    assert!(!rows.is_empty(), "{table}: no rows");
    for r in &rows {
        let (a, b) = r[0].split_once('+').expect("a+b");
        assert_eq!(r[1], (a.parse::<u32>().unwrap() + b.parse::<u32>().unwrap()).to_string(), "{r:?}");
    }
}
