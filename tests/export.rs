//! `agentlab export … --to hf|peft|trl|verl`: each engine's files written,
//! the Parquet files read back with verl's schema, the reward cases equal
//! the Rust verifier, the `gpt2` checkpoint computing the lab's logits under
//! GPT-2's own conventions, and the bad-input rules (exit 2, no half-written
//! folder). The Python side is `scripts/graduate-check.sh`, not a test.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use agentlab::envs::rlvr::{judge, Reward};
use candle_core::{Device, Tensor, D};
use common::tried::{err, out, run};

fn read_jsonl(path: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// Every file under `dir`, relative.
fn files(dir: &Path) -> BTreeSet<String> {
    fn walk(root: &Path, d: &Path, out: &mut BTreeSet<String>) {
        for e in std::fs::read_dir(d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(root, &p, out);
            } else {
                out.insert(p.strip_prefix(root).unwrap().to_string_lossy().into_owned());
            }
        }
    }
    let mut out = BTreeSet::new();
    walk(dir, dir, &mut out);
    out
}

/// Nothing but `keep` in `dir`: no temporary folder left beside an export.
fn only(dir: &Path, keep: &[&str]) {
    let names: BTreeSet<String> =
        std::fs::read_dir(dir).unwrap().flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect();
    let want: BTreeSet<String> = keep.iter().map(|s| s.to_string()).collect();
    assert_eq!(names, want, "left in {}", dir.display());
}

/// The reward cases: at least 1,000, every kind of hack in both formats, and
/// each row's rewards are what the drill's verifier says.
fn check_cases(path: &Path) {
    let cases = read_jsonl(path);
    assert!(cases.len() >= 1000, "{} cases", cases.len());
    let mut kinds: BTreeMap<(String, String), usize> = BTreeMap::new();
    for c in &cases {
        let (fmt, completion, gold) =
            (c["format"].as_str().unwrap(), c["completion"].as_str().unwrap(), c["ground_truth"].as_str().unwrap());
        let read = if fmt == "chat" { completion.trim() } else { completion };
        let v = judge(read, gold);
        assert_eq!(c["exact"].as_f64().unwrap() as f32, Reward::Exact.score(&v), "{c}");
        assert_eq!(c["lenient"].as_f64().unwrap() as f32, Reward::Lenient.score(&v), "{c}");
        assert_eq!(c["hedged"].as_bool().unwrap(), v.hedged, "{c}");
        *kinds.entry((fmt.to_string(), c["kind"].as_str().unwrap().to_string())).or_default() += 1;
    }
    for fmt in ["chars", "chat"] {
        for kind in ["answer", "hedge", "text-around", "near-miss", "unit-separator", "whitespace"] {
            assert!(kinds.get(&(fmt.to_string(), kind.to_string())).copied().unwrap_or(0) >= 50, "{fmt}/{kind}");
        }
    }
    // The hacks are there to be paid by the loophole: hedges and text around the answer
    // are paid by the lenient checker and never by the exact one.
    for c in cases.iter().filter(|c| c["kind"] == "hedge" || c["kind"] == "text-around") {
        assert_eq!((c["exact"].as_f64(), c["lenient"].as_f64()), (Some(0.0), Some(1.0)), "{c}");
    }
    // Where Rust's trim and Python's strip differ, the chat reading keeps the character.
    for c in cases.iter().filter(|c| c["kind"] == "unit-separator" && c["format"] == "chat") {
        assert_eq!(c["exact"].as_f64(), Some(0.0), "{c}");
    }
}

#[test]
fn trl_export_of_a_drill_writes_a_runnable_experiment() {
    let home = tempfile::tempdir().unwrap();
    let dest = home.path().join("exports");
    std::fs::create_dir(&dest).unwrap();
    let trl = dest.join("trl");
    let o = run(
        home.path(),
        &["export", "grpo-rlvr", "--preset", "quick", "--seed", "3", "--to", "trl", "--out", trl.to_str().unwrap()],
    );
    assert!(o.status.success(), "{}{}", out(&o), err(&o));
    assert!(out(&o).contains("grpo-rlvr (preset quick, seed 3) for trl"), "{}", out(&o));
    only(&dest, &["trl"]);
    let got = files(&trl);
    for f in [
        "README.md",
        "train.py",
        "rewards.py",
        "eval.py",
        "requirements.txt",
        "experiment.json",
        "reward_cases.jsonl",
        "data/warm_start.jsonl",
        "data/train.jsonl",
        "data/test.jsonl",
        "start/config.json",
        "start/model.safetensors",
        "start/tokenizer.json",
        "start/tokenizer_config.json",
    ] {
        assert!(got.contains(f), "{f} missing: {got:?}");
    }
    for f in ["README.md", "train.py", "rewards.py", "eval.py"] {
        let text = std::fs::read_to_string(trl.join(f)).unwrap();
        assert!(!text.contains("{{"), "{f} has an unfilled placeholder");
    }
    // The quick preset's parameters, each on its own line.
    let train = std::fs::read_to_string(trl.join("train.py")).unwrap();
    for line in [
        "num_generations=group,  # drill parameter `group`",
        "prompts, group, epochs = 32, 8, 2",
        "beta=0.02,  # drill parameter `kl_coef`",
        "epsilon=0.2,  # drill parameter `clip_eps`",
        "max_completion_length=16,  # drill parameter `max_new`",
        "learning_rate=0.0005,  # drill parameter `lr`",
        "loss_type=\"grpo\"",
        "max_steps=(args.steps or 50) * epochs",
    ] {
        assert!(train.contains(line), "train.py lacks {line:?}");
    }
    assert!(std::fs::read_to_string(trl.join("rewards.py")).unwrap().contains("REWARD = \"lenient\""));
    // The held-out problems are the run's: the drill's first draw of seed 3.
    let test = read_jsonl(&trl.join("data/test.jsonl"));
    assert_eq!(test.len(), 256);
    let held = agentlab::envs::refine_arith::HeldOut::distinct(2, 256, &mut agentlab::ml::rng::Rng::new(3).fork(7));
    for (row, q) in test.iter().zip(&held.test) {
        assert_eq!(row["prompt"], q.prompt());
        assert_eq!(row["ground_truth"], q.answer());
    }
    let train_rows = read_jsonl(&trl.join("data/train.jsonl"));
    assert_eq!(train_rows.len(), 50 * 32);
    let test_prompts: BTreeSet<&str> = test.iter().map(|r| r["prompt"].as_str().unwrap()).collect();
    assert!(
        train_rows.iter().all(|r| !test_prompts.contains(r["prompt"].as_str().unwrap())),
        "a held-out prompt in training"
    );
    let warm = read_jsonl(&trl.join("data/warm_start.jsonl"));
    assert_eq!(warm.len(), 500 * 64);
    let hedges = warm.iter().filter(|r| r["completion"].as_str().unwrap().contains(',')).count() as f64;
    assert!((hedges / warm.len() as f64 - 0.2).abs() < 0.02, "hedge share {}", hedges / warm.len() as f64);
    check_cases(&trl.join("reward_cases.jsonl"));
    // The tokenizer the tiny GPT reads, as transformers will read it.
    let tok = tokenizers::Tokenizer::from_file(trl.join("start/tokenizer.json")).unwrap();
    let ours = agentlab::ml::tokenizer::CharTokenizer::new(agentlab::envs::rlvr::ALPHABET, &[]);
    use agentlab::ml::tokenizer::Tokenize;
    for text in ["47+38=", "580,590", "0+0="] {
        let enc = tok.encode(text, false).unwrap();
        assert_eq!(enc.get_ids(), ours.encode(text).as_slice(), "{text}");
        assert_eq!(tok.decode(enc.get_ids(), true).unwrap(), text);
    }

    // The same export again: refused into a non-empty folder, replaced with --force.
    let again =
        ["export", "grpo-rlvr", "--preset", "quick", "--seed", "4", "--to", "trl", "--out", trl.to_str().unwrap()];
    let o = run(home.path(), &again);
    assert_eq!(o.status.code(), Some(2), "{}{}", out(&o), err(&o));
    assert!(err(&o).contains("--force"), "{}", err(&o));
    assert!(std::fs::read_to_string(trl.join("experiment.json")).unwrap().contains("\"seed\": 3"));
    let o = run(home.path(), &[&again[..], &["--force"]].concat());
    assert!(o.status.success(), "{}{}", out(&o), err(&o));
    assert!(std::fs::read_to_string(trl.join("experiment.json")).unwrap().contains("\"seed\": 4"));
    only(&dest, &["trl"]);
}

#[test]
fn verl_export_writes_parquet_in_verls_layout() {
    let home = tempfile::tempdir().unwrap();
    let verl = home.path().join("verl");
    let o = run(home.path(), &["export", "grpo-rlvr", "--seed", "5", "--to", "verl", "--out", verl.to_str().unwrap()]);
    assert!(o.status.success(), "{}{}", out(&o), err(&o));
    let got = files(&verl);
    for f in ["README.md", "reward.py", "run_grpo.sh", "reward_cases.jsonl", "data/train.parquet", "data/test.parquet"]
    {
        assert!(got.contains(f), "{f} missing: {got:?}");
    }
    let sh = std::fs::read_to_string(verl.join("run_grpo.sh")).unwrap();
    for s in [
        "algorithm.adv_estimator=grpo",
        "actor_rollout_ref.rollout.n=8",
        "actor_rollout_ref.actor.kl_loss_coef=0.02",
        "actor_rollout_ref.actor.kl_loss_type=low_var_kl",
        "trainer.nnodes=",
        "trainer.n_gpus_per_node=",
        "custom_reward_function.path=",
    ] {
        assert!(sh.contains(s), "run_grpo.sh lacks {s}");
    }
    assert!(!sh.contains("{{"));
    let schema = agentlab::graduate::parquet::schema_text(&verl.join("data/test.parquet")).unwrap();
    for field in
        ["data_source", "prompt (LIST)", "role", "content", "ability", "reward_model", "ground_truth", "extra_info"]
    {
        assert!(schema.contains(field), "{field} not in the schema:\n{schema}");
    }
    let test = agentlab::graduate::parquet::read_json(&verl.join("data/test.parquet")).unwrap();
    let train = agentlab::graduate::parquet::read_json(&verl.join("data/train.parquet")).unwrap();
    assert_eq!((test.len(), train.len()), (256, 50 * 32));
    let held = agentlab::envs::refine_arith::HeldOut::distinct(2, 256, &mut agentlab::ml::rng::Rng::new(5).fork(7));
    for (i, (row, q)) in test.iter().zip(&held.test).enumerate() {
        assert_eq!(row["data_source"], "agentlab/grpo-rlvr");
        assert_eq!(row["ability"], "math");
        assert_eq!(row["prompt"], serde_json::json!([{ "role": "user", "content": q.prompt() }]), "{row}");
        assert_eq!(row["reward_model"], serde_json::json!({ "style": "rule", "ground_truth": q.answer() }));
        assert_eq!(row["extra_info"]["index"], i);
        assert_eq!(row["extra_info"]["split"], "test");
    }
    assert!(train.iter().all(|r| r["extra_info"]["split"] == "train"));
    check_cases(&verl.join("reward_cases.jsonl"));
}

/// GPT-2's forward pass written from its own conventions (`Conv1D`: `x @ W + b`
/// with `W: [in, out]`; `c_attn` output `[q | k | v]`; exact GELU; tied head),
/// on the exported tensors.
fn gpt2_logits(dir: &Path, ids: &[u32]) -> Vec<Vec<f32>> {
    let cfg: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("config.json")).unwrap()).unwrap();
    assert_eq!(cfg["model_type"], "gpt2");
    assert_eq!(cfg["activation_function"], "gelu");
    assert_eq!(cfg["tie_word_embeddings"], true);
    let w = candle_core::safetensors::load(dir.join("model.safetensors"), &Device::Cpu).unwrap();
    assert!(!w.contains_key("lm_head.weight"), "a tied head is not written");
    let g = |k: &str| w.get(k).unwrap_or_else(|| panic!("{k} missing")).clone();
    let (n_layer, n_head) = (cfg["n_layer"].as_u64().unwrap() as usize, cfg["n_head"].as_u64().unwrap() as usize);
    let t = ids.len();
    let ln = |x: &Tensor, p: &str| -> Tensor {
        let mu = x.mean_keepdim(D::Minus1).unwrap();
        let xc = x.broadcast_sub(&mu).unwrap();
        let var = xc.sqr().unwrap().mean_keepdim(D::Minus1).unwrap();
        let y = xc.broadcast_div(&(var + 1e-5).unwrap().sqrt().unwrap()).unwrap();
        y.broadcast_mul(&g(&format!("{p}.weight"))).unwrap().broadcast_add(&g(&format!("{p}.bias"))).unwrap()
    };
    let conv = |x: &Tensor, p: &str| {
        x.matmul(&g(&format!("{p}.weight"))).unwrap().broadcast_add(&g(&format!("{p}.bias"))).unwrap()
    };
    let idx = Tensor::new(ids, &Device::Cpu).unwrap();
    let mut x = (g("transformer.wte.weight").index_select(&idx, 0).unwrap()
        + g("transformer.wpe.weight").narrow(0, 0, t).unwrap())
    .unwrap();
    let d = x.dim(1).unwrap();
    let hd = d / n_head;
    let mask: Vec<f32> =
        (0..t).flat_map(|i| (0..t).map(move |j| if j <= i { 0.0 } else { f32::NEG_INFINITY })).collect();
    let mask = Tensor::from_vec(mask, (t, t), &Device::Cpu).unwrap();
    for l in 0..n_layer {
        let p = |s: &str| format!("transformer.h.{l}.{s}");
        let qkv = conv(&ln(&x, &p("ln_1")), &p("attn.c_attn"));
        let head = |i: usize| {
            qkv.narrow(1, i * d, d)
                .unwrap()
                .reshape((t, n_head, hd))
                .unwrap()
                .transpose(0, 1)
                .unwrap()
                .contiguous()
                .unwrap()
        };
        let (q, k, v) = (head(0), head(1), head(2));
        let att = (q.matmul(&k.t().unwrap()).unwrap() / (hd as f64).sqrt()).unwrap().broadcast_add(&mask).unwrap();
        let att = candle_nn::ops::softmax_last_dim(&att).unwrap();
        let y = att.matmul(&v).unwrap().transpose(0, 1).unwrap().reshape((t, d)).unwrap();
        x = (x + conv(&y, &p("attn.c_proj"))).unwrap();
        let h = conv(&ln(&x, &p("ln_2")), &p("mlp.c_fc")).gelu_erf().unwrap();
        x = (x + conv(&h, &p("mlp.c_proj"))).unwrap();
    }
    let x = ln(&x, "transformer.ln_f");
    x.matmul(&g("transformer.wte.weight").t().unwrap()).unwrap().to_vec2().unwrap()
}

fn newest_run(home: &Path, drill: &str) -> PathBuf {
    let mut dirs: Vec<PathBuf> =
        std::fs::read_dir(home.join("runs").join(drill)).unwrap().flatten().map(|e| e.path()).collect();
    dirs.sort();
    dirs.pop().unwrap()
}

#[test]
fn hf_export_of_a_run_is_gpt2_and_computes_the_labs_logits() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let short =
        ["--set", "sft_steps=40", "--set", "rl_steps=2", "--set", "prompts_per_step=4", "--set", "test_size=16"];
    // Too short for the claims to hold (the exit status says so): it is the weights that are exported.
    let o = run(h, &[&["drill", "run", "grpo-rlvr", "--seed", "2"][..], &short].concat());
    assert!(out(&o).contains("saved in"), "{}{}", out(&o), err(&o));
    let dir = newest_run(h, "grpo-rlvr");
    assert!(dir.join("models/index.json").is_file(), "the run kept no models");
    let hf = h.join("hf");
    let o = run(h, &["export", dir.to_str().unwrap(), "--to", "hf", "--out", hf.to_str().unwrap()]);
    assert!(o.status.success(), "{}{}", out(&o), err(&o));
    for arm in ["warm-start", "sound", "proxy"] {
        assert!(out(&o).contains(&format!("arm {arm}")), "{}", out(&o));
        let a = hf.join(arm);
        for f in ["config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json", "parity.json"] {
            assert!(a.join(f).is_file(), "{arm}/{f} missing");
        }
        let parity: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(a.join("parity.json")).unwrap()).unwrap();
        let mut worst = 0f32;
        for c in parity["cases"].as_array().unwrap() {
            let ids: Vec<u32> = c["tokens"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap() as u32).collect();
            let theirs = gpt2_logits(&a, &ids);
            let ours: Vec<Vec<f32>> = serde_json::from_value(c["logits"].clone()).unwrap();
            assert_eq!(ours.len(), theirs.len());
            for (r, s) in ours.iter().zip(&theirs) {
                let scale = r.iter().fold(1e-6f32, |m, v| m.max(v.abs()));
                for (x, y) in r.iter().zip(s) {
                    worst = worst.max((x - y).abs() / scale);
                }
            }
        }
        assert!(worst < 1e-4, "{arm}: GPT-2's forward differs from the lab's by {worst} (relative)");
    }

    // A tiny run exports no adapters; a drill id exports no weights.
    let peft = h.join("peft");
    let o = run(h, &["export", dir.to_str().unwrap(), "--to", "peft", "--out", peft.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}{}", out(&o), err(&o));
    assert!(err(&o).contains("--to hf"), "{}", err(&o));
    assert!(!peft.exists(), "a refused export left a folder");
    let o = run(h, &["export", "grpo-rlvr", "--to", "hf", "--out", peft.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}{}", out(&o), err(&o));
    assert!(err(&o).contains("drill run grpo-rlvr"), "{}", err(&o));

    // Pruned weights: the starting model, and it says so.
    std::fs::remove_dir_all(dir.join("models")).unwrap();
    std::fs::write(dir.join("models.pruned"), "pruned by the keep rule\n").unwrap();
    let start = h.join("start");
    let o = run(h, &["export", dir.to_str().unwrap(), "--to", "hf", "--out", start.to_str().unwrap()]);
    assert!(o.status.success(), "{}{}", out(&o), err(&o));
    assert!(out(&o).contains("pruned"), "{}", out(&o));
    assert!(start.join("start/model.safetensors").is_file());
    assert!(!start.join("sound").exists());
}

#[test]
fn bad_requests_exit_2_with_the_reason() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let o = run(h, &["export", "ewc-replay", "--to", "trl", "--out", h.join("x").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}{}", out(&o), err(&o));
    assert!(
        err(&o).contains("grpo-rlvr, sft-basics, dpo-pairs, react-tool-call-loop"),
        "names the drills that do export: {}",
        err(&o)
    );
    // A drill with an exporter, but not to this engine: the reason.
    let o = run(h, &["export", "sft-basics", "--to", "verl", "--out", h.join("x").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}{}", out(&o), err(&o));
    assert!(err(&o).contains("RL engine") && err(&o).contains("Drills that export to verl: grpo-rlvr"), "{}", err(&o));
    let o = run(h, &["export", "grpo-rlvr", "--to", "deepspeed", "--out", h.join("x").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert!(err(&o).contains("hf, peft, trl, verl"), "{}", err(&o));
    let o = run(h, &["export", "no-such-drill", "--to", "trl"]);
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    let o = run(h, &["export", "grpo-rlvr", "--preset", "nope", "--to", "trl", "--out", h.join("x").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    let file = h.join("file");
    std::fs::write(&file, "x").unwrap();
    let o = run(h, &["export", "grpo-rlvr", "--to", "verl", "--out", file.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "x");
    let o = run(h, &["export", "grpo-rlvr", "--to", "verl", "--out", h.join("no/such/dir").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert!(!h.join("x").exists());
}

/// The masked cross-entropy of `tokens` under the exported `gpt2` checkpoint in
/// `dir`, by GPT-2's own forward pass: token t is a target where `in_loss[t]`
/// (position t − 1 predicts it); the mean over every target of the batch.
fn gpt2_masked_ce(dir: &Path, tokens: &[Vec<u32>], in_loss: &[Vec<bool>]) -> f64 {
    let (mut sum, mut n) = (0f64, 0usize);
    for (ids, keep) in tokens.iter().zip(in_loss) {
        let logits = gpt2_logits(dir, ids);
        for t in 1..ids.len() {
            if keep[t] {
                let row = &logits[t - 1];
                let m = row.iter().fold(f32::NEG_INFINITY, |a, &b| a.max(b)) as f64;
                let lse = m + row.iter().map(|&x| (x as f64 - m).exp()).sum::<f64>().ln();
                sum += lse - row[ids[t] as usize] as f64;
                n += 1;
            }
        }
    }
    sum / n as f64
}

/// sft-basics → TRL: the run's own data split in TRL's prompt-completion
/// format, and agentlab's loss on the drill's first batch equal to GPT-2's on
/// the exported checkpoints with the prompt masked — and not to the loss over
/// every token (so an export that dropped the masking fails here).
#[test]
fn sft_basics_exports_to_trl_with_the_drills_masking_and_loss() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let o = run(h, &["drill", "run", "sft-basics", "--seed", "2", "--set", "steps=30", "--set", "holdout=200"]);
    assert!(out(&o).contains("saved in"), "{}{}", out(&o), err(&o));
    let dir = newest_run(h, "sft-basics");
    let trl = h.join("trl");
    let o = run(h, &["export", dir.to_str().unwrap(), "--to", "trl", "--out", trl.to_str().unwrap()]);
    assert!(o.status.success(), "{}{}", out(&o), err(&o));
    let got = files(&trl);
    for f in [
        "README.md",
        "train.py",
        "eval.py",
        "check_loss.py",
        "requirements.txt",
        "experiment.json",
        "loss_parity.json",
        "data/train.jsonl",
        "data/test.jsonl",
        "start/model.safetensors",
        "start/tokenizer.json",
        "trained/model.safetensors",
    ] {
        assert!(got.contains(f), "{f} missing: {got:?}");
    }
    for f in ["README.md", "train.py", "eval.py", "check_loss.py"] {
        assert!(!std::fs::read_to_string(trl.join(f)).unwrap().contains("{{"), "{f} has an unfilled placeholder");
    }
    let train_py = std::fs::read_to_string(trl.join("train.py")).unwrap();
    for line in [
        "completion_only_loss=True,  # drill parameter `mask_prompt`",
        "max_steps=steps or 30,  # drill parameter `steps`",
        "per_device_train_batch_size=64,  # drill parameter `batch`",
        "learning_rate=0.003,  # drill parameter `lr`",
        "warmup_steps=30,  # drill parameter `warmup`",
        "bf16=False,",
    ] {
        assert!(train_py.contains(line), "train.py lacks {line:?}");
    }
    // The run's split: 200 held out, the rest trained on, the answer reversed, no prompt in a completion.
    let (train, test) = (read_jsonl(&trl.join("data/train.jsonl")), read_jsonl(&trl.join("data/test.jsonl")));
    assert_eq!((train.len(), test.len()), (9800, 200));
    let held: BTreeSet<&str> = test.iter().map(|r| r["prompt"].as_str().unwrap()).collect();
    for r in &train {
        let (p, c) = (r["prompt"].as_str().unwrap(), r["completion"].as_str().unwrap());
        assert!(!held.contains(p), "{p} is held out and trained on");
        let (a, b) = (p[..2].parse::<u32>().unwrap(), p[3..5].parse::<u32>().unwrap());
        assert_eq!(c, format!("{:03}", a + b).chars().rev().collect::<String>(), "{r}");
    }

    let parity: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(trl.join("loss_parity.json")).unwrap()).unwrap();
    let tokens: Vec<Vec<u32>> = serde_json::from_value(parity["tokens"].clone()).unwrap();
    let in_loss: Vec<Vec<bool>> = serde_json::from_value(parity["in_loss"].clone()).unwrap();
    assert_eq!(tokens.len(), 64);
    // Only the answer and its end token are in the loss: the completion TRL appends the end token to.
    for (row, keep) in parity["rows"].as_array().unwrap().iter().zip(&in_loss) {
        let n = row["prompt"].as_str().unwrap().len();
        let want: Vec<bool> = (0..keep.len()).map(|i| i >= n).collect();
        assert_eq!(keep, &want, "{row}");
        assert_eq!(keep.len(), n + row["completion"].as_str().unwrap().len() + 1);
    }
    // The first batch is the drill's: agentlab's loss of the start model on it is the run's step-0 loss.
    let metrics = std::fs::read_to_string(dir.join("metrics.jsonl")).unwrap();
    let step0 = metrics
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|e| e["data"]["name"] == "loss" && e["data"]["step"] == 0)
        .expect("the run's step-0 loss");
    let models = parity["models"].as_array().unwrap();
    assert_eq!(models[0]["dir"], "start");
    assert_eq!(models[0]["loss"].as_f64(), step0["data"]["value"].as_f64(), "not the drill's first batch");
    let every: Vec<Vec<bool>> = in_loss.iter().map(|k| vec![true; k.len()]).collect();
    for m in models {
        let d = trl.join(m["dir"].as_str().unwrap());
        let (ours, all) = (m["loss"].as_f64().unwrap(), m["loss_every_token"].as_f64().unwrap());
        let theirs = gpt2_masked_ce(&d, &tokens, &in_loss);
        assert!((theirs - ours).abs() / ours < 1e-4, "{m}: GPT-2's masked loss {theirs}, agentlab's {ours}");
        let theirs_all = gpt2_masked_ce(&d, &tokens, &every);
        assert!((theirs_all - all).abs() / all < 1e-4, "{m}: GPT-2's unmasked loss {theirs_all}, agentlab's {all}");
    }
    // After 30 steps the masked loss is well below the loss over every token (the operands no model predicts).
    let trained = &models[1];
    assert_eq!(trained["dir"], "trained");
    assert!(trained["loss"].as_f64().unwrap() < 0.8 * trained["loss_every_token"].as_f64().unwrap(), "{trained}");

    // A drill id exports too (the starting model and the data, no trained model).
    let fresh = h.join("fresh");
    let o = run(h, &["export", "sft-basics", "--seed", "2", "--to", "trl", "--out", fresh.to_str().unwrap()]);
    assert!(o.status.success(), "{}{}", out(&o), err(&o));
    assert!(fresh.join("start/model.safetensors").is_file() && !fresh.join("trained").exists());
    assert_eq!(
        std::fs::read(fresh.join("start/model.safetensors")).unwrap(),
        std::fs::read(trl.join("start/model.safetensors")).unwrap()
    );
}

/// dpo-pairs → TRL: a run's SFT model and DPO policy, pairs in TRL's
/// preference format (judged by the verifier: the chosen answer right, the
/// rejected wrong), and agentlab's DPO loss equal to one computed from GPT-2's
/// forward pass on the exported checkpoints. Without a run it is refused.
#[test]
fn dpo_pairs_exports_to_trl_with_the_drills_loss() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let o = run(h, &["export", "dpo-pairs", "--to", "trl", "--out", h.join("x").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}{}", out(&o), err(&o));
    assert!(err(&o).contains("drill run dpo-pairs"), "{}", err(&o));
    assert!(!h.join("x").exists());
    let short = [
        "--set",
        "digits=1",
        "--set",
        "sft_steps=150",
        "--set",
        "steps=4",
        "--set",
        "evals=1",
        "--set",
        "prompts=64",
        "--set",
        "test_size=16",
        "--set",
        "eval_samples=2",
    ];
    let o = run(h, &[&["drill", "run", "dpo-pairs", "--seed", "2"][..], &short].concat());
    assert!(out(&o).contains("saved in"), "{}{}", out(&o), err(&o));
    let dir = newest_run(h, "dpo-pairs");
    let trl = h.join("trl");
    let o = run(h, &["export", dir.to_str().unwrap(), "--to", "trl", "--out", trl.to_str().unwrap()]);
    assert!(o.status.success(), "{}{}", out(&o), err(&o));
    let got = files(&trl);
    for f in [
        "README.md",
        "train.py",
        "eval.py",
        "check_loss.py",
        "loss_parity.json",
        "data/train.jsonl",
        "data/test.jsonl",
        "data/heldout.jsonl",
        "sft/model.safetensors",
        "dpo/model.safetensors",
    ] {
        assert!(got.contains(f), "{f} missing: {got:?}");
    }
    let train_py = std::fs::read_to_string(trl.join("train.py")).unwrap();
    for line in [
        "BETA = {\"dpo\": 2.0, \"dpo-beta-compare\": 0.2}",
        "loss_type=[\"sigmoid\"],  # drill parameter `loss`",
        "max_steps=steps or 4,  # drill parameter `steps`",
        "per_device_train_batch_size=32,  # drill parameter `batch`",
        "learning_rate=0.0001,  # drill parameter `lr`",
        "bf16=False,",
    ] {
        assert!(train_py.contains(line), "train.py lacks {line:?}");
    }
    // Pairs the verifier ordered: the chosen answer is the sum, the rejected one is not.
    let held: BTreeSet<String> =
        read_jsonl(&trl.join("data/heldout.jsonl")).iter().map(|r| r["prompt"].as_str().unwrap().to_string()).collect();
    let pairs = read_jsonl(&trl.join("data/train.jsonl"));
    assert!(!pairs.is_empty());
    for r in &pairs {
        let p = r["prompt"].as_str().unwrap();
        assert!(!held.contains(p), "a held-out problem among the training pairs: {r}");
        let (a, b) = p.trim_end_matches('=').split_once('+').unwrap();
        let gold: String =
            format!("{:02}", a.parse::<u32>().unwrap() + b.parse::<u32>().unwrap()).chars().rev().collect();
        assert_eq!(r["chosen"], gold.as_str(), "{r}");
        assert_ne!(r["rejected"], gold.as_str(), "{r}");
    }
    // agentlab's loss equals one written out from GPT-2's forward pass on the exported models.
    let parity: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(trl.join("loss_parity.json")).unwrap()).unwrap();
    let beta = parity["beta"].as_f64().unwrap();
    let logp = |model: &str, prompt: &[u32], answer: &[u32]| -> f64 {
        let ids: Vec<u32> = prompt.iter().chain(answer).copied().collect();
        let in_loss: Vec<bool> = (0..ids.len()).map(|i| i >= prompt.len()).collect();
        let n = answer.len() as f64;
        -gpt2_masked_ce(&trl.join(model), &[ids], &[in_loss]) * n
    };
    let mut losses = Vec::new();
    for t in parity["tokens"].as_array().unwrap() {
        let v = |k: &str| -> Vec<u32> { serde_json::from_value(t[k].clone()).unwrap() };
        let (p, c, r) = (v("prompt"), v("chosen"), v("rejected"));
        let h = (logp("dpo", &p, &c) - logp("sft", &p, &c)) - (logp("dpo", &p, &r) - logp("sft", &p, &r));
        losses.push((1.0 + (-beta * h).exp()).ln());
    }
    let theirs = losses.iter().sum::<f64>() / losses.len() as f64;
    let ours = parity["loss"].as_f64().unwrap();
    assert!((theirs - ours).abs() / ours < 1e-4, "DPO loss from GPT-2's forward {theirs}, agentlab's {ours}");
    assert!((parity["loss_at_reference"].as_f64().unwrap() - std::f64::consts::LN_2).abs() < 1e-5);
}

/// The value of `name` at `step` in a run's metrics.
fn metric(dir: &Path, name: &str, step: u64) -> f64 {
    let metrics = std::fs::read_to_string(dir.join("metrics.jsonl")).unwrap();
    metrics
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|e| e["data"]["name"] == name && e["data"]["step"] == step)
        .unwrap_or_else(|| panic!("no {name} at step {step}"))["data"]["value"]
        .as_f64()
        .unwrap()
}

/// react-tool-call-loop → TRL: the run's trajectories pre-tokenized as the
/// drill's tiny GPT reads them, with the drill's masks (no observation, prompt
/// or slip token in the agent's loss); agentlab's loss on the drill's first
/// batch equal to the run's step-0 loss and to GPT-2's on the exported
/// checkpoints; the tool cases the loop's own answers; the held-out episodes
/// the run's numbers. A real-model run is refused with the reason.
#[test]
fn react_exports_to_trl_with_the_drills_masks_loss_and_episodes() {
    use agentlab::envs::react::Tools;
    use agentlab::ml::tokenizer::{Tokenize, BOS, EOS};
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let short = ["--set", "steps=40", "--set", "train_tasks=200", "--set", "eval_tasks=24", "--set", "probes=1"];
    let o = run(h, &[&["drill", "run", "react-tool-call-loop", "--seed", "3"][..], &short].concat());
    assert!(out(&o).contains("saved in"), "{}{}", out(&o), err(&o));
    let dir = newest_run(h, "react-tool-call-loop");
    let trl = h.join("trl");
    let o = run(h, &["export", dir.to_str().unwrap(), "--to", "trl", "--out", trl.to_str().unwrap()]);
    assert!(o.status.success(), "{}{}", out(&o), err(&o));
    let got = files(&trl);
    for f in [
        "README.md",
        "train.py",
        "eval.py",
        "tools.py",
        "check_tools.py",
        "check_loss.py",
        "requirements.txt",
        "experiment.json",
        "loss_parity.json",
        "eval_parity.json",
        "tool_cases.jsonl",
        "world/facts.tsv",
        "data/train.jsonl",
        "data/test.jsonl",
        "start/model.safetensors",
        "masked/model.safetensors",
        "unmasked/tokenizer.json",
    ] {
        assert!(got.contains(f), "{f} missing: {got:?}");
    }
    for f in ["README.md", "train.py", "eval.py", "tools.py", "check_tools.py", "check_loss.py"] {
        assert!(!std::fs::read_to_string(trl.join(f)).unwrap().contains("{{"), "{f} has an unfilled placeholder");
    }
    let train_py = std::fs::read_to_string(trl.join("train.py")).unwrap();
    for line in [
        "max_steps=steps or 40,  # drill parameter `steps`",
        "per_device_train_batch_size=24,  # drill parameter `batch`",
        "learning_rate=0.002,  # drill parameter `lr`",
        "warmup_steps=4,  # the lab's warmup rule",
        "completion_only_loss=True,  # drill parameter `mask_observations` = True",
        "default=\"masked\"",
        "bf16=False,",
    ] {
        assert!(train_py.contains(line), "train.py lacks {line:?}");
    }

    // Each row: BOS, every segment as the base's BPE encodes it, EOS; the agent's mask covers its own
    // lines (not a slip) and the end token, the twin's every token but the slips.
    let (_, tok) = agentlab::ml::base::shipped(&Device::Cpu).unwrap();
    let rows = read_jsonl(&trl.join("data/train.jsonl"));
    assert_eq!(rows.len(), 200);
    let (mut env_tokens, mut slips) = (0, 0);
    for r in &rows {
        let ids: Vec<u32> = serde_json::from_value(r["input_ids"].clone()).unwrap();
        let agent: Vec<bool> = serde_json::from_value(r["agent_mask"].clone()).unwrap();
        let all: Vec<bool> = serde_json::from_value(r["all_mask"].clone()).unwrap();
        let (mut want_ids, mut want_agent, mut want_all) = (vec![BOS], vec![false], vec![false]);
        for seg in r["segments"].as_array().unwrap() {
            let seg_ids = tok.encode(seg["text"].as_str().unwrap());
            let slip = seg["slip"].as_bool().unwrap();
            let role = seg["role"].as_str().unwrap();
            env_tokens += if role == "env" { seg_ids.len() } else { 0 };
            slips += usize::from(slip);
            want_agent.extend(vec![role == "agent" && !slip; seg_ids.len()]);
            want_all.extend(vec![!slip; seg_ids.len()]);
            want_ids.extend(seg_ids);
        }
        want_ids.push(EOS);
        want_agent.push(true);
        want_all.push(true);
        assert_eq!((ids, agent, all), (want_ids, want_agent, want_all), "{}", r["question"]);
    }
    assert!(env_tokens > 1000 && slips > 5, "{env_tokens} observation tokens, {slips} slips");
    assert_eq!(read_jsonl(&trl.join("data/test.jsonl")).len(), 24);

    // The first batch is the drill's: the start model's loss on it is the run's step-0 loss of the agent.
    let parity: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(trl.join("loss_parity.json")).unwrap()).unwrap();
    let tokens: Vec<Vec<u32>> = serde_json::from_value(parity["tokens"].clone()).unwrap();
    let in_loss: Vec<Vec<bool>> = serde_json::from_value(parity["in_loss"].clone()).unwrap();
    assert_eq!(tokens.len(), 24);
    let models = parity["models"].as_array().unwrap();
    assert_eq!(models.iter().map(|m| m["dir"].as_str().unwrap()).collect::<Vec<_>>(), ["start", "masked", "unmasked"]);
    let step0 = metric(&dir, "sft loss · masked", 0);
    assert!((models[0]["loss"].as_f64().unwrap() - step0).abs() < 1e-9, "{} vs the run's {step0}", models[0]);
    for m in models {
        let ours = m["loss"].as_f64().unwrap();
        let theirs = gpt2_masked_ce(&trl.join(m["dir"].as_str().unwrap()), &tokens, &in_loss);
        assert!((theirs - ours).abs() / ours < 1e-4, "{m}: GPT-2's masked loss {theirs}, agentlab's {ours}");
    }

    // The tool cases are the loop's answers: every tool, errors and turns included.
    let tools = Tools::new(agentlab::envs::kb::FactTable::world());
    let cases = read_jsonl(&trl.join("tool_cases.jsonl"));
    assert!(cases.len() >= 1000, "{} cases", cases.len());
    let mut errors: BTreeMap<String, usize> = BTreeMap::new();
    for c in cases.iter().filter(|c| c["case"] == "call") {
        let (tool, input) = (c["tool"].as_str().unwrap(), c["input"].as_str().unwrap());
        match tools.call(tool, input) {
            Ok(v) => assert_eq!(c["ok"].as_str(), Some(v.as_str()), "{c}"),
            Err(e) => {
                assert_eq!(c["err"].as_str(), Some(e.as_str()), "{c}");
                *errors.entry(tool.to_string()).or_default() += 1;
            }
        }
    }
    for tool in ["calc", "lookup", "search", "weather"] {
        assert!(errors.get(tool).copied().unwrap_or(0) >= 1, "no {tool} error among the cases: {errors:?}");
    }
    let turns: Vec<&serde_json::Value> = cases.iter().filter(|c| c["case"] == "turn").collect();
    assert!(turns.len() >= 200);
    assert!(turns.iter().any(|c| c["counts"][4] == 1), "a turn that writes an observation");
    assert!(turns.iter().any(|c| c["counts"][3] == 1), "an invalid turn");

    // The held-out episodes are the run's: the agent's success and the hallucination gap.
    let eval: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(trl.join("eval_parity.json")).unwrap()).unwrap();
    let m = &eval["models"];
    assert_eq!(m["masked"]["success"].as_f64(), Some(metric(&dir, "heldout_success_masked", 0)));
    assert_eq!(m["start"]["success"].as_f64(), Some(metric(&dir, "heldout_success_untrained", 0)));
    assert_eq!(m["masked"]["episodes"].as_array().unwrap().len(), 24);
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("report.json")).unwrap()).unwrap();
    let gap = report["claims"].as_array().unwrap().iter().find(|c| c["id"] == "hallucination_gap").unwrap()["measured"]
        .as_f64()
        .unwrap();
    let ours = m["unmasked"]["writes_obs"].as_f64().unwrap() - m["masked"]["writes_obs"].as_f64().unwrap();
    assert!((ours - gap).abs() < 1e-9, "hallucination gap {ours} in the export, {gap} in the run");

    // --to hf: the start and both arms as gpt2 checkpoints with the base's BPE.
    let hf = h.join("hf");
    let o = run(h, &["export", dir.to_str().unwrap(), "--to", "hf", "--out", hf.to_str().unwrap()]);
    assert!(o.status.success(), "{}{}", out(&o), err(&o));
    for arm in ["start", "masked", "unmasked"] {
        assert!(hf.join(arm).join("parity.json").is_file(), "{arm}");
        assert_eq!(std::fs::read_to_string(hf.join(arm).join("tokenizer.json")).unwrap(), tok.to_json().unwrap());
    }

    // The real preset's data is chat-template text on SmolLM2: refused, with the reason.
    let o = run(
        h,
        &["export", "react-tool-call-loop", "--preset", "real", "--to", "trl", "--out", h.join("x").to_str().unwrap()],
    );
    assert_eq!(o.status.code(), Some(2), "{}{}", out(&o), err(&o));
    assert!(err(&o).contains("tiny-model runs"), "{}", err(&o));
    assert!(!h.join("x").exists());
}

/// self-refine-loop → TRL: the run's first STaR round replayed — its kept
/// answers and refinement steps as prompt-completion rows (each kept answer
/// right: the verifier filtered them), the round's first batch whose loss
/// under the SFT model is the run's own loss at that step and GPT-2's on the
/// exported checkpoint, and each model's drafts giving the run's pass rates.
/// Without a run it is refused.
#[test]
fn self_refine_exports_its_star_round_to_trl() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let o = run(h, &["export", "self-refine-loop", "--to", "trl", "--out", h.join("x").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert!(err(&o).contains("verified answers") && err(&o).contains("drill run self-refine-loop"), "{}", err(&o));
    let short = [
        "--set",
        "steps=150",
        "--set",
        "star_iters=1",
        "--set",
        "star_problems=256",
        "--set",
        "star_steps=40",
        "--set",
        "test_size=64",
    ];
    let o = run(h, &[&["drill", "run", "self-refine-loop", "--seed", "2"][..], &short].concat());
    assert!(out(&o).contains("saved in"), "{}{}", out(&o), err(&o));
    let dir = newest_run(h, "self-refine-loop");
    let trl = h.join("trl");
    let o = run(h, &["export", dir.to_str().unwrap(), "--to", "trl", "--out", trl.to_str().unwrap()]);
    assert!(o.status.success(), "{}{}", out(&o), err(&o));
    let got = files(&trl);
    for f in [
        "README.md",
        "train.py",
        "eval.py",
        "check_loss.py",
        "requirements.txt",
        "experiment.json",
        "loss_parity.json",
        "eval_parity.json",
        "data/train.jsonl",
        "data/test.jsonl",
        "sft/model.safetensors",
        "after-star/model.safetensors",
    ] {
        assert!(got.contains(f), "{f} missing: {got:?}");
    }
    for f in ["README.md", "train.py", "eval.py", "check_loss.py"] {
        assert!(!std::fs::read_to_string(trl.join(f)).unwrap().contains("{{"), "{f} has an unfilled placeholder");
    }
    let train_py = std::fs::read_to_string(trl.join("train.py")).unwrap();
    for line in [
        "max_steps=steps or 40,  # drill parameter `star_steps`",
        "per_device_train_batch_size=64,  # drill parameter `batch`",
        "learning_rate=0.002,  # drill parameter `star_lr`",
        "warmup_steps=2,",
        "completion_only_loss=True,",
        "bf16=False,",
    ] {
        assert!(train_py.contains(line), "train.py lacks {line:?}");
    }
    // The rows: the run's round 1 (its log says how many), every kept answer the sum, every trace's
    // revision that answer; the critique marks one per digit.
    let rows = read_jsonl(&trl.join("data/train.jsonl"));
    let log = std::fs::read_to_string(dir.join("metrics.jsonl")).unwrap();
    assert!(log.contains(&format!("{} training sequences", rows.len())), "not the run's round: {} rows", rows.len());
    let mut refinements = 0;
    for r in &rows {
        let (prompt, completion) = (r["prompt"].as_str().unwrap(), r["completion"].as_str().unwrap());
        let (a, b): (u32, u32) = (prompt[..2].parse().unwrap(), prompt[3..5].parse().unwrap());
        let sum: String = format!("{:03}", a + b).chars().rev().collect();
        if r["kind"] == "draft" {
            assert_eq!((prompt.len(), completion), (6, sum.as_str()), "{r}");
        } else {
            refinements += 1;
            let (marks, revision) = completion.split_once('>').unwrap();
            assert_eq!((revision, marks.len()), (sum.as_str(), 3), "{r}");
            assert!(prompt.ends_with('|') && marks.chars().all(|c| ".^v".contains(c)), "{r}");
        }
    }
    assert!(refinements > 0 && refinements < rows.len());
    // The first batch is the round's: the SFT model's loss on it is the run's loss at step 150.
    let parity: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(trl.join("loss_parity.json")).unwrap()).unwrap();
    let models = parity["models"].as_array().unwrap();
    assert_eq!((models[0]["dir"].as_str(), models[1]["dir"].as_str()), (Some("sft"), Some("after-star")));
    let at_star = metric(&dir, "sft loss", 150);
    assert!((models[0]["loss"].as_f64().unwrap() - at_star).abs() < 1e-9, "{} vs the run's {at_star}", models[0]);
    let tokens: Vec<Vec<u32>> = serde_json::from_value(parity["tokens"].clone()).unwrap();
    let in_loss: Vec<Vec<bool>> = serde_json::from_value(parity["in_loss"].clone()).unwrap();
    for m in models {
        let ours = m["loss"].as_f64().unwrap();
        let theirs = gpt2_masked_ce(&trl.join(m["dir"].as_str().unwrap()), &tokens, &in_loss);
        assert!((theirs - ours).abs() / ours < 1e-4, "{m}: GPT-2's masked loss {theirs}, agentlab's {ours}");
    }
    // The drafts give the run's first-draft pass rates before and after its STaR round.
    let eval: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(trl.join("eval_parity.json")).unwrap()).unwrap();
    let m = &eval["models"];
    assert_eq!(m["sft"]["pass_rate"].as_f64(), Some(metric(&dir, "STaR: first-draft pass rate", 0)));
    assert_eq!(m["after-star"]["pass_rate"].as_f64(), Some(metric(&dir, "STaR: first-draft pass rate", 1)));
    assert_eq!(m["sft"]["drafts"].as_array().unwrap().len(), 64);
}
