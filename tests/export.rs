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
    let o = run(h, &["export", "sft-basics", "--to", "trl", "--out", h.join("x").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}{}", out(&o), err(&o));
    assert!(err(&o).contains("grpo-rlvr"), "names the drills that do export: {}", err(&o));
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
