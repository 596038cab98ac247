//! The Qwen2 loader on a tiny random checkpoint written in the exact Hugging
//! Face layout: it loads, matches candle-transformers' own Qwen2, trains (every
//! parameter gets a gradient), generates, takes LoRA adapters, and explains a
//! broken directory instead of panicking.

use std::collections::HashMap;
use std::path::Path;

use agentlab::ml::llama::{self as qwen2, Llama as Qwen2};
use agentlab::ml::lm::{CausalLm, Scored};
use agentlab::ml::loss::masked_cross_entropy;
use agentlab::ml::optim::{AdamW, AdamWConfig};
use agentlab::ml::rng::Rng;
use agentlab::ml::sample::GenConfig;
use agentlab::ml::tokenizer::{train_bpe, Tokenize};
use candle_core::{DType, Device, Tensor};

const VOCAB: usize = 300;

fn config_json(tied: bool) -> String {
    serde_json::json!({
        "architectures": ["Qwen2ForCausalLM"],
        "model_type": "qwen2",
        "vocab_size": VOCAB,
        "hidden_size": 32,
        "intermediate_size": 64,
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "max_position_embeddings": 128,
        "max_window_layers": 2,
        "sliding_window": 128,
        "use_sliding_window": false,
        "tie_word_embeddings": tied,
        "rope_theta": 1000000.0,
        "rms_norm_eps": 1e-6,
        "hidden_act": "silu",
        "bos_token_id": 1,
        "eos_token_id": [2],
        "torch_dtype": "float32"
    })
    .to_string()
}

/// config.json, model.safetensors (random weights) and tokenizer.json in `dir`.
fn write_checkpoint(dir: &Path, tied: bool, seed: u64) {
    std::fs::write(dir.join("config.json"), config_json(tied)).unwrap();
    let cfg: qwen2::LlamaConfig = serde_json::from_str(&config_json(tied)).unwrap();
    let mut rng = Rng::new(seed);
    let mut tensors = HashMap::new();
    for (name, shape) in cfg.expected_tensors() {
        let n: usize = shape.iter().product();
        let data: Vec<f32> = if name.ends_with("layernorm.weight") || name == "model.norm.weight" {
            (0..n).map(|_| 1.0 + 0.1 * rng.normal()).collect()
        } else {
            (0..n).map(|_| 0.08 * rng.normal()).collect()
        };
        tensors.insert(name, Tensor::from_vec(data, shape, &Device::Cpu).unwrap());
    }
    candle_core::safetensors::save(&tensors, dir.join("model.safetensors")).unwrap();
    let corpus: Vec<String> =
        (0..100).map(|i| format!("Thought: look up item {i}. Action: search[item {}]", i % 9)).collect();
    std::fs::write(dir.join("tokenizer.json"), train_bpe(&corpus, VOCAB).unwrap().to_json().unwrap()).unwrap();
}

/// A tiny checkpoint (tied embeddings) written to a temporary directory and
/// loaded; the directory is returned too, so it outlives the test's use of it.
fn load_tiny(seed: u64) -> (tempfile::TempDir, qwen2::Loaded) {
    let dir = tempfile::tempdir().unwrap();
    write_checkpoint(dir.path(), true, seed);
    let loaded = qwen2::load_dir(dir.path(), &Device::Cpu).unwrap();
    (dir, loaded)
}

fn batch(tok: &dyn Tokenize) -> (Tensor, Tensor) {
    let texts = ["Thought: look up item 3. Action: search[item 3]", "Action: search[item 7] Thought: look up"];
    let ids: Vec<Vec<u32>> = texts.iter().map(|t| tok.encode(t)).collect();
    let t = ids.iter().map(|r| r.len()).min().unwrap() - 1;
    let x: Vec<u32> = ids.iter().flat_map(|r| r[..t].to_vec()).collect();
    let y: Vec<i64> = ids.iter().flat_map(|r| r[1..=t].iter().map(|&v| v as i64).collect::<Vec<_>>()).collect();
    (Tensor::from_vec(x, (2, t), &Device::Cpu).unwrap(), Tensor::from_vec(y, (2, t), &Device::Cpu).unwrap())
}

#[test]
fn loads_trains_and_every_parameter_gets_a_gradient() {
    let dir = tempfile::tempdir().unwrap();
    write_checkpoint(dir.path(), false, 1);
    let loaded = qwen2::load_dir(dir.path(), &Device::Cpu).unwrap();
    let (model, tok) = (loaded.model, loaded.tokenizer);
    assert_eq!(model.vocab(), VOCAB);
    assert_eq!(model.context(), 128);
    assert_eq!(model.cfg.eos_ids(), vec![2]);
    assert_eq!(model.vars().len(), 1 + 2 * 12 + 1 + 1, "untied: lm_head is its own tensor");
    assert!(model.vars().contains_key("model.layers.1.self_attn.k_proj.bias"));

    let (x, y) = batch(&tok);
    let logits = model.forward(&x).unwrap();
    assert_eq!(logits.dims(), &[2, x.dim(1).unwrap(), VOCAB]);
    let loss = masked_cross_entropy(&logits, &y).unwrap();
    let first = loss.to_scalar::<f32>().unwrap();
    assert!(first.is_finite(), "loss {first}");
    let grads = loss.backward().unwrap();
    for (name, var) in model.vars() {
        let g = grads.get(var.as_tensor()).unwrap_or_else(|| panic!("{name} got no gradient"));
        let norm = g.sqr().unwrap().sum_all().unwrap().to_scalar::<f32>().unwrap();
        assert!(norm > 0.0 && norm.is_finite(), "{name}: |grad|² = {norm}");
    }

    let mut opt = AdamW::new(model.trainable_vars(), AdamWConfig { lr: 3e-3, ..Default::default() }).unwrap();
    let mut last = first;
    for _ in 0..8 {
        let loss = masked_cross_entropy(&model.forward(&x).unwrap(), &y).unwrap();
        last = loss.to_scalar::<f32>().unwrap();
        opt.step(&loss.backward().unwrap()).unwrap();
    }
    assert!(last < first * 0.9, "loss {first} → {last}");
}

#[test]
fn forward_matches_candle_transformers_qwen2() {
    use candle_transformers::models::qwen2 as reference;
    let dir = tempfile::tempdir().unwrap();
    write_checkpoint(dir.path(), true, 2);
    let ours = Qwen2::load(dir.path(), &Device::Cpu, DType::F32).unwrap();
    assert!(!ours.vars().contains_key("lm_head.weight"), "tied: the head is embed_tokens");

    let cfg: reference::Config = serde_json::from_str(&config_json(true)).unwrap();
    let weights = candle_core::safetensors::load(dir.path().join("model.safetensors"), &Device::Cpu).unwrap();
    let vb = candle_nn::VarBuilder::from_tensors(weights.clone(), DType::F32, &Device::Cpu);
    let mut theirs = reference::Model::new(&cfg, vb).unwrap();

    let ids: Vec<u32> = (0..2 * 11).map(|i| (i * 37 % VOCAB) as u32).collect();
    let x = Tensor::from_vec(ids, (2, 11), &Device::Cpu).unwrap();
    let hidden = theirs.forward(&x, 0, None).unwrap();
    let embed = &weights["model.embed_tokens.weight"];
    let expected = hidden.broadcast_matmul(&embed.t().unwrap()).unwrap();
    let got = ours.forward(&x).unwrap();
    let diff = (got - &expected).unwrap().abs().unwrap().max_all().unwrap().to_scalar::<f32>().unwrap();
    let scale = expected.abs().unwrap().max_all().unwrap().to_scalar::<f32>().unwrap();
    assert!(diff < 1e-4, "max |Δlogit| = {diff} (logits up to {scale})");
    assert!(scale > 0.1, "logits are not trivially small: {scale}");
}

#[test]
fn batched_left_padded_generation_matches_one_prompt_at_a_time() {
    let dir = tempfile::tempdir().unwrap();
    write_checkpoint(dir.path(), true, 3);
    let model = Qwen2::load(dir.path(), &Device::Cpu, DType::F32).unwrap();
    let prompts = vec![vec![5u32, 9, 14, 20, 7], vec![11u32, 3], vec![40u32, 41, 42]];
    let cfg = GenConfig::greedy(6, vec![]);
    let together = model.generate(&prompts, &cfg, &mut Rng::new(0)).unwrap();
    for (p, got) in prompts.iter().zip(&together) {
        let alone = model.generate(std::slice::from_ref(p), &cfg, &mut Rng::new(0)).unwrap();
        assert_eq!(got, &alone[0], "prompt {p:?}");
        assert_eq!(got.len(), 6);
    }
    // A stop token ends a row and is kept.
    let stop = together[0][1];
    let cut = model.generate(&prompts[..1], &GenConfig::greedy(6, vec![stop]), &mut Rng::new(0)).unwrap();
    assert_eq!(cut[0].last(), Some(&stop));
    assert!(cut[0].len() <= 2);
}

#[test]
fn lora_trains_adapters_only() {
    let (_dir, loaded) = load_tiny(4);
    let (mut model, tok) = (loaded.model, loaded.tokenizer);
    let (x, y) = batch(&tok);
    // Frozen, as after add_lora: the same (fused) path computes both.
    let before = model.detached().forward(&x).unwrap();
    model.add_lora(&qwen2::LoraConfig::new(4, 8.0, 7)).unwrap();
    let same = (model.forward(&x).unwrap() - &before).unwrap().abs().unwrap().max_all().unwrap();
    assert_eq!(same.to_scalar::<f32>().unwrap(), 0.0, "B = 0: adapters start as a no-op");
    let trainable = model.trainable_vars();
    assert_eq!(trainable.len(), 2 * 2 * 2, "A and B on q and v of 2 layers");
    let base = model.vars()["model.layers.0.self_attn.q_proj.weight"].as_tensor().copy().unwrap();

    let mut opt = AdamW::new(trainable, AdamWConfig { lr: 1e-2, ..Default::default() }).unwrap();
    let first = masked_cross_entropy(&model.forward(&x).unwrap(), &y).unwrap().to_scalar::<f32>().unwrap();
    let mut last = first;
    for _ in 0..10 {
        let loss = masked_cross_entropy(&model.forward(&x).unwrap(), &y).unwrap();
        last = loss.to_scalar::<f32>().unwrap();
        opt.step(&loss.backward().unwrap()).unwrap();
    }
    assert!(last < first, "loss {first} → {last}");
    let after = model.vars()["model.layers.0.self_attn.q_proj.weight"].as_tensor().clone();
    let moved = (after - base).unwrap().abs().unwrap().max_all().unwrap().to_scalar::<f32>().unwrap();
    assert_eq!(moved, 0.0, "the base stays frozen");
}

/// The RL path's log-probabilities skip the LM head where nothing is scored:
/// at the kept positions they, their entropies and their gradients equal
/// those of the full logits; elsewhere they are 0.
#[test]
fn scored_logprobs_skip_unkept_positions_and_keep_values_and_gradients() {
    let dir = tempfile::tempdir().unwrap();
    write_checkpoint(dir.path(), true, 5);
    let mut model = Qwen2::load(dir.path(), &Device::Cpu, DType::F32).unwrap();
    model.add_lora(&qwen2::LoraConfig::new(4, 8.0, 9)).unwrap();
    let ids: Vec<u32> = (0..2 * 9).map(|i| (i * 53 % VOCAB) as u32).collect();
    let x = Tensor::from_vec(ids, (2, 9), &Device::Cpu).unwrap();
    let targets = x.narrow(1, 1, 8).unwrap();
    let keep_rows = [[0f32, 1., 1., 0., 0., 1., 1., 1.], [1., 0., 0., 0., 1., 1., 0., 0.]];
    let keep = Tensor::new(&keep_rows, &Device::Cpu).unwrap();

    let logits = model.forward(&x).unwrap().narrow(1, 0, 8).unwrap();
    let full = Scored::from_logits(&logits, &targets, true).unwrap();
    let ours = model.scored_logprobs(&x, &targets, &keep, true).unwrap();
    let rows = |t: &Tensor| t.to_vec2::<f32>().unwrap();
    let (fl, ol) = (rows(&full.logp), rows(&ours.logp));
    let (fe, oe) = (rows(full.entropy.as_ref().unwrap()), rows(ours.entropy.as_ref().unwrap()));
    for (b, kr) in keep_rows.iter().enumerate() {
        for (t, &k) in kr.iter().enumerate() {
            if k > 0.0 {
                assert!((fl[b][t] - ol[b][t]).abs() < 1e-5, "logp at {b},{t}: {} vs {}", fl[b][t], ol[b][t]);
                assert!((fe[b][t] - oe[b][t]).abs() < 1e-5, "entropy at {b},{t}");
                assert!(ol[b][t] < 0.0 && oe[b][t] > 0.0);
            } else {
                assert_eq!((ol[b][t], oe[b][t]), (0.0, 0.0), "skipped position {b},{t}");
            }
        }
    }

    // The same loss through either path gives every adapter the same gradient.
    let loss = |logp: &Tensor| (logp * &keep).unwrap().sum_all().unwrap();
    let (gf, go) = (loss(&full.logp).backward().unwrap(), loss(&ours.logp).backward().unwrap());
    let trainable = model.trainable_vars();
    assert!(!trainable.is_empty());
    for v in &trainable {
        let (a, b) = (gf.get(v.as_tensor()).unwrap(), go.get(v.as_tensor()).unwrap());
        let diff = (a - b).unwrap().abs().unwrap().max_all().unwrap().to_scalar::<f32>().unwrap();
        let scale = a.abs().unwrap().max_all().unwrap().to_scalar::<f32>().unwrap();
        assert!(diff <= 1e-5 * scale.max(1.0), "gradient differs by {diff} (scale {scale})");
    }
    let some_grad = trainable
        .iter()
        .any(|v| go.get(v.as_tensor()).unwrap().abs().unwrap().max_all().unwrap().to_scalar::<f32>().unwrap() > 0.0);
    assert!(some_grad, "the adapters get a gradient through the kept positions");

    let none = model.scored_logprobs(&x, &targets, &keep.zeros_like().unwrap(), false).unwrap();
    assert_eq!(none.logp.abs().unwrap().sum_all().unwrap().to_scalar::<f32>().unwrap(), 0.0);
    assert!(none.entropy.is_none());
}

fn load_err(dir: &Path) -> String {
    match qwen2::load_dir(dir, &Device::Cpu) {
        Ok(_) => panic!("{} loaded", dir.display()),
        Err(e) => format!("{e:#}"),
    }
}

#[test]
fn broken_directories_give_clear_errors() {
    let root = tempfile::tempdir().unwrap();
    let e = load_err(&root.path().join("nope"));
    assert!(e.contains("does not exist") && e.contains("nope"), "{e}");

    let empty = root.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let e = load_err(&empty);
    assert!(e.contains("config.json"), "{e}");

    let dir = root.path().join("ok");
    std::fs::create_dir(&dir).unwrap();
    write_checkpoint(&dir, true, 5);

    std::fs::write(dir.join("config.json"), "{\"hidden_size\": 32").unwrap();
    let e = load_err(&dir);
    assert!(e.contains("config.json") && e.contains("not a Llama or Qwen2 config"), "{e}");
    std::fs::write(dir.join("config.json"), config_json(true).replace("\"qwen2\"", "\"mistral\"")).unwrap();
    let e = load_err(&dir);
    assert!(e.contains("mistral"), "{e}");
    std::fs::write(dir.join("config.json"), config_json(true)).unwrap();

    std::fs::rename(dir.join("model.safetensors"), dir.join("weights.bin")).unwrap();
    let e = load_err(&dir);
    assert!(e.contains("no *.safetensors"), "{e}");
    std::fs::rename(dir.join("weights.bin"), dir.join("model.safetensors")).unwrap();

    // A wrong-shaped tensor is named, with both shapes.
    let mut ts = candle_core::safetensors::load(dir.join("model.safetensors"), &Device::Cpu).unwrap();
    let good = ts["model.layers.1.mlp.up_proj.weight"].clone();
    ts.insert("model.layers.1.mlp.up_proj.weight".into(), Tensor::zeros((32, 64), DType::F32, &Device::Cpu).unwrap());
    candle_core::safetensors::save(&ts, dir.join("model.safetensors")).unwrap();
    let e = load_err(&dir);
    assert!(e.contains("shape mismatch for tensor model.layers.1.mlp.up_proj.weight"), "{e}");
    assert!(e.contains("[32, 64]") && e.contains("[64, 32]"), "{e}");

    // A missing tensor is named.
    ts.insert("model.layers.1.mlp.up_proj.weight".into(), good);
    ts.remove("model.norm.weight");
    candle_core::safetensors::save(&ts, dir.join("model.safetensors")).unwrap();
    let e = load_err(&dir);
    assert!(e.contains("model.norm.weight is missing"), "{e}");

    std::fs::write(dir.join("model.safetensors"), b"not safetensors").unwrap();
    let e = load_err(&dir);
    assert!(e.contains("model.safetensors") && e.contains("not a readable safetensors"), "{e}");
}

#[test]
fn missing_tokenizer_is_named() {
    let dir = tempfile::tempdir().unwrap();
    write_checkpoint(dir.path(), true, 6);
    std::fs::remove_file(dir.path().join("tokenizer.json")).unwrap();
    let e = load_err(dir.path());
    assert!(e.contains("tokenizer.json"), "{e}");
}

/// The fused CPU stack (`src/ml/fused/llama.rs`) against the composed candle
/// layers it replaces: the same logits, and every adapter the same gradient,
/// with adapters on every projection or on q and v of the top layer only
/// (the backward stops below it), batches of 1, 2 and 3 (one shard or two),
/// sequences longer than one causal block, and q/k/v biases (Qwen2).
#[test]
fn fused_stack_matches_the_composed_layers_in_values_and_adapter_gradients() {
    let dir = tempfile::tempdir().unwrap();
    write_checkpoint(dir.path(), false, 6);
    let all: Vec<String> = qwen2::LORA_TARGETS.iter().map(|s| s.to_string()).collect();
    let qv = vec!["q_proj".to_string(), "v_proj".to_string()];
    for (targets, from_layer, b, t) in [(all.clone(), 0, 3, 37), (qv, 1, 1, 40), (all, 1, 2, 9)] {
        let mut model = Qwen2::load(dir.path(), &Device::Cpu, DType::F32).unwrap();
        let cfg = qwen2::LoraConfig { rank: 4, alpha: 8.0, targets, from_layer, seed: 3 };
        model.add_lora(&cfg).unwrap();
        // B = 0 at the start would hide half the adapter's gradient paths.
        randomize_lora_b(&model, 11, 0.1);
        let mut composed = model.clone();
        composed.fused = false;
        let ids: Vec<u32> = (0..b * t).map(|i| ((i * 37 + 5) % VOCAB) as u32).collect();
        let x = Tensor::from_vec(ids, (b, t), &Device::Cpu).unwrap();
        let weights: Vec<f32> = (0..b * t * VOCAB).map(|i| ((i * 13 % 29) as f32 - 14.0) / 14.0).collect();
        let weights = Tensor::from_vec(weights, (b, t, VOCAB), &Device::Cpu).unwrap();
        let (lf, lc) = (model.forward(&x).unwrap(), composed.forward(&x).unwrap());
        let max = |t: &Tensor| t.abs().unwrap().max_all().unwrap().to_scalar::<f32>().unwrap();
        let (diff, lc_max) = (max(&(&lf - &lc).unwrap()), max(&lc).max(1.0));
        assert!(diff < 1e-4 * lc_max, "logits differ by {diff} (b {b}, t {t})");
        // Not bit-equal: the two are different code (the fused op did run).
        assert!(diff > 0.0, "the fused stack did not run");
        let gf = (lf * &weights).unwrap().sum_all().unwrap().backward().unwrap();
        let gc = (lc * &weights).unwrap().sum_all().unwrap().backward().unwrap();
        let trainable = model.trainable_vars();
        assert!(!trainable.is_empty());
        for v in &trainable {
            let (a, c) = (gf.get(v.as_tensor()).unwrap(), gc.get(v.as_tensor()).unwrap());
            let diff = max(&(a - c).unwrap());
            let scale = max(c);
            assert!(scale > 0.0, "an adapter got no gradient");
            assert!(diff <= 1e-4 * scale, "adapter gradient differs by {diff} (scale {scale}, b {b}, t {t})");
        }
        // A frozen reference policy (no gradient anywhere) reads the same.
        let reference = model.frozen_copy().unwrap();
        let diff = max(&(reference.forward(&x).unwrap() - &composed.forward(&x).unwrap()).unwrap());
        assert!(diff < 1e-4 * lc_max, "reference logits differ by {diff}");
    }
}

/// The fused stack gives the same numbers, bit for bit, on 1 thread and on 3:
/// the batch splits into shards by its size alone, and their adapter
/// gradients add in shard order.
#[test]
fn fused_stack_is_the_same_on_any_number_of_threads() {
    let dir = tempfile::tempdir().unwrap();
    write_checkpoint(dir.path(), true, 8);
    let mut model = Qwen2::load(dir.path(), &Device::Cpu, DType::F32).unwrap();
    model.add_lora(&qwen2::LoraConfig::new(4, 8.0, 5)).unwrap();
    let ids: Vec<u32> = (0..3 * 40).map(|i| ((i * 41 + 3) % VOCAB) as u32).collect();
    let x = Tensor::from_vec(ids, (3, 40), &Device::Cpu).unwrap();
    let run = |threads: usize| -> Vec<Vec<f32>> {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| {
            let logits = model.forward(&x).unwrap();
            let loss = logits.sqr().unwrap().mean_all().unwrap();
            let grads = loss.backward().unwrap();
            let mut out = vec![logits.flatten_all().unwrap().to_vec1::<f32>().unwrap()];
            for v in model.trainable_vars() {
                out.push(grads.get(v.as_tensor()).unwrap().flatten_all().unwrap().to_vec1::<f32>().unwrap());
            }
            out
        })
    };
    assert_eq!(run(1), run(3));
}

/// Generation through the fused decoder (every weight frozen, adapters
/// included) against the composed layers: the same greedy tokens, batched
/// and left-padded, and across turns that reuse the memo's K/V.
#[test]
fn fused_decoding_generates_what_the_composed_layers_generate() {
    let (_dir, model) = tiny_with_adapters_everywhere(12);
    let mut composed = model.clone();
    composed.fused = false;
    let prompts = vec![vec![5u32, 9, 14, 20, 7], vec![11u32, 3], vec![40u32, 41, 42]];
    let cfg = GenConfig::greedy(8, vec![]);
    let (mut mf, mut mc) = (agentlab::ml::memo::Memo::default(), agentlab::ml::memo::Memo::default());
    let first = model.generate_with(&prompts, &cfg, &mut Rng::new(0), &mut mf).unwrap();
    assert_eq!(first, composed.generate_with(&prompts, &cfg, &mut Rng::new(0), &mut mc).unwrap());
    // A second turn: each row continues its sequence (the memo's K/V reused).
    let next: Vec<Vec<u32>> =
        prompts.iter().zip(&first).map(|(p, o)| p.iter().chain(o).copied().chain([17, 18]).collect()).collect();
    let second = model.generate_with(&next, &cfg, &mut Rng::new(0), &mut mf).unwrap();
    assert_eq!(second, composed.generate_with(&next, &cfg, &mut Rng::new(0), &mut mc).unwrap());
    assert!(second.iter().all(|o| o.len() == 8));
}

/// Every LoRA `B` matrix set to `scale`·N(0, 1) (they start at 0).
/// A tiny checkpoint (tied embeddings, weights from `seed`) with rank-4
/// adapters on every projection whose `B` is random, so they matter.
fn tiny_with_adapters_everywhere(seed: u64) -> (tempfile::TempDir, Qwen2) {
    let dir = tempfile::tempdir().unwrap();
    write_checkpoint(dir.path(), true, seed);
    let mut model = Qwen2::load(dir.path(), &Device::Cpu, DType::F32).unwrap();
    let all: Vec<String> = qwen2::LORA_TARGETS.iter().map(|s| s.to_string()).collect();
    model.add_lora(&qwen2::LoraConfig { rank: 4, alpha: 8.0, targets: all, from_layer: 0, seed: 2 }).unwrap();
    randomize_lora_b(&model, 13, 0.2);
    (dir, model)
}

fn randomize_lora_b(model: &Qwen2, seed: u64, scale: f32) {
    let mut rng = Rng::new(seed);
    for (name, var) in model.vars() {
        if name.ends_with("lora_B.weight") {
            let data: Vec<f32> = (0..var.elem_count()).map(|_| scale * rng.normal()).collect();
            var.set(&Tensor::from_vec(data, var.shape(), &Device::Cpu).unwrap()).unwrap();
        }
    }
}

/// Prompts that start with the same 20 tokens (a group's system prompt)
/// read that prefix once and share its K/V: each row still generates what
/// it generates alone.
#[test]
fn a_shared_prompt_prefix_is_read_once_and_changes_no_answer() {
    let dir = tempfile::tempdir().unwrap();
    write_checkpoint(dir.path(), true, 14);
    let model = Qwen2::load(dir.path(), &Device::Cpu, DType::F32).unwrap().detached();
    let prefix: Vec<u32> = (0..20).map(|i| (i * 7 + 3) % VOCAB as u32).collect();
    let prompts: Vec<Vec<u32>> =
        [vec![5u32, 9], vec![11u32], vec![40u32, 41, 42]].iter().map(|tail| [&prefix[..], tail].concat()).collect();
    let cfg = GenConfig::greedy(6, vec![]);
    let together = model.generate(&prompts, &cfg, &mut Rng::new(0)).unwrap();
    for (p, got) in prompts.iter().zip(&together) {
        let alone = model.generate(std::slice::from_ref(p), &cfg, &mut Rng::new(0)).unwrap();
        assert_eq!(got, &alone[0], "prompt {p:?}");
    }
}

/// Two arms from one warm start: `trainable_copy` starts where the warm
/// adapters are (the same logits), and training it moves neither the warm
/// model nor a second copy.
#[test]
fn a_trainable_copy_starts_at_the_adapters_and_trains_on_its_own() {
    let (_dir, loaded) = load_tiny(4);
    let (mut warm, tok) = (loaded.model, loaded.tokenizer);
    warm.add_lora(&qwen2::LoraConfig::new(4, 8.0, 7)).unwrap();
    randomize_lora_b(&warm, 3, 0.05);
    let (x, y) = batch(&tok);
    let logits = |m: &Qwen2| m.forward(&x).unwrap().flatten_all().unwrap().to_vec1::<f32>().unwrap();
    let start = logits(&warm);
    let (a, b) = (warm.trainable_copy().unwrap(), warm.trainable_copy().unwrap());
    assert_eq!(logits(&a), start, "a copy starts at the warm adapters");
    assert_eq!(a.trainable_vars().len(), warm.trainable_vars().len());
    let mut opt = AdamW::new(a.trainable_vars(), AdamWConfig { lr: 1e-2, ..Default::default() }).unwrap();
    for _ in 0..3 {
        let loss = masked_cross_entropy(&a.forward(&x).unwrap(), &y).unwrap();
        opt.step(&loss.backward().unwrap()).unwrap();
    }
    assert_ne!(logits(&a), start, "the copy trains");
    assert_eq!(logits(&warm), start, "the warm model does not move with it");
    assert_eq!(logits(&b), start, "nor does a second copy");
}

/// Projection weights made of 4-bit blocks (`w = q·d + m` per 32 along a
/// row, as a dequantised Q4_1 GGUF holds them) are packed for decoding when
/// the base is frozen under LoRA, and the model computes the same bits as on
/// its f32 weights: logits of a short batch (few rows take the decoding
/// kernels) and sampled tokens. (Without AVX-512 nothing is packed and both
/// models take the f32 path.)
#[test]
fn packed_base_weights_give_the_f32_weights_bits() {
    use agentlab::ml::sample::Decoding;
    use std::sync::{Arc, OnceLock};
    let dir = tempfile::tempdir().unwrap();
    write_checkpoint(dir.path(), true, 5);
    let file = dir.path().join("model.safetensors");
    let mut tensors = candle_core::safetensors::load(&file, &Device::Cpu).unwrap();
    for (name, t) in tensors.iter_mut().filter(|(n, _)| n.ends_with("_proj.weight")) {
        let (rows, cols) = t.dims2().unwrap();
        let mut w: Vec<f32> = t.flatten_all().unwrap().to_vec1().unwrap();
        for block in w.chunks_mut(32) {
            let lo = block.iter().copied().fold(f32::INFINITY, f32::min);
            let hi = block.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            let d = (hi - lo) / 15.0;
            block.iter_mut().for_each(|v| *v = ((*v - lo) / d).round() * d + lo);
        }
        *t = Tensor::from_vec(w, (rows, cols), &Device::Cpu).unwrap();
        assert!(name.contains("layers"));
    }
    candle_core::safetensors::save(&tensors, &file).unwrap();
    let base = qwen2::load_dir(dir.path(), &Device::Cpu).unwrap().model;
    let lora = qwen2::LoraConfig {
        rank: 4,
        alpha: 8.0,
        targets: vec!["q_proj".into(), "down_proj".into()],
        from_layer: 0,
        seed: 3,
    };
    let packed = base.fork_with_lora(&lora).unwrap();
    let mut plain = base.clone();
    for l in &mut plain.layers {
        for p in [&mut l.q, &mut l.k, &mut l.v, &mut l.o, &mut l.gate, &mut l.up, &mut l.down] {
            p.packed = Arc::new(OnceLock::from(None));
        }
    }
    let plain = plain.fork_with_lora(&lora).unwrap();
    if agentlab::ml::fused::packed::fast() {
        for l in &packed.layers {
            for p in [&l.q, &l.k, &l.v, &l.o, &l.gate, &l.up, &l.down] {
                assert!(matches!(p.packed.get(), Some(Some(_))), "every projection packs");
            }
        }
    }
    assert!(plain.layers.iter().all(|l| matches!(l.q.packed.get(), Some(None))));
    let x = Tensor::new(&[[5u32, 9, 14, 20, 7, 11, 3, 40, 41, 42]], &Device::Cpu).unwrap();
    let bits = |m: &Qwen2| -> Vec<u32> {
        m.forward(&x).unwrap().flatten_all().unwrap().to_vec1::<f32>().unwrap().iter().map(|v| v.to_bits()).collect()
    };
    let (a, b) = (bits(&packed), bits(&plain));
    let first = a.iter().zip(&b).position(|(x, y)| x != y);
    assert_eq!(first, None, "logits differ (first at this index of {})", a.len());
    let prompts = vec![vec![5u32, 9, 14, 20, 7], vec![11u32, 3], vec![40u32, 41, 42]];
    let cfg = GenConfig {
        max_new: 12,
        decoding: Decoding::Sample { temperature: 1.0, top_k: None, top_p: None },
        stop: vec![],
        use_cache: true,
        compact: false,
    };
    let a = packed.generate(&prompts, &cfg, &mut Rng::new(9)).unwrap();
    let b = plain.generate(&prompts, &cfg, &mut Rng::new(9)).unwrap();
    assert_eq!(a, b, "sampled tokens");
}

/// What compacting relies on, bit for bit: rows taken out of a 40-row batch
/// (`KvCache::rows`), reading their prompts or their next token with
/// `KvCache::batch` set to 40, get the logits and keys/values they get in the
/// full batch; without it (`batch` 0) some rows' bits change, because gemm's
/// kernels for few rows round differently.
#[test]
fn rows_left_in_a_batch_keep_their_bits() {
    use agentlab::ml::kv::KvCache;
    let (_dir, model) = tiny_with_adapters_everywhere(23);
    let model = model.detached();
    let (b, t) = (40usize, 6usize);
    let prompt = |i: usize| -> Vec<u32> { (0..t).map(|p| ((i * 37 + p * 11 + 3) % VOCAB) as u32).collect() };
    let positions = |rows: &[usize]| -> Vec<u32> { rows.iter().flat_map(|_| 0..t as u32).collect() };
    let every: Vec<usize> = (0..b).collect();
    let read = |rows: &[usize], cache: &mut KvCache| {
        let tokens: Vec<u32> = rows.iter().flat_map(|&i| prompt(i)).collect();
        model.step_logits(tokens, positions(rows), &vec![vec![false; t]; rows.len()], cache).unwrap()
    };
    let mut full = KvCache::default();
    let first = read(&every, &mut full);
    let next = |rows: &[usize]| -> Vec<u32> { rows.iter().map(|&i| (i * 7 % VOCAB) as u32).collect() };
    let mut full_after = full.clone();
    let second =
        model.step_logits(next(&every), vec![t as u32; b], &vec![vec![false; t + 1]; b], &mut full_after).unwrap();
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    let kv_bits = |c: &KvCache, layer: usize, row: usize| {
        let (k, v) = c.layers[layer].as_ref().unwrap();
        let row = |x: &Tensor| x.narrow(0, row, 1).unwrap().flatten_all().unwrap().to_vec1::<f32>().unwrap();
        (bits(&row(k)), bits(&row(v)))
    };
    let subsets: Vec<Vec<usize>> =
        vec![vec![7], vec![0, 39], (0..b).step_by(5).collect(), (3..b).step_by(2).collect(), (0..b - 1).collect()];
    let mut changed_without = 0;
    for batch in [b, 0] {
        for rows in &subsets {
            // Reading the prompts of these rows only, from an empty cache.
            let mut alone = KvCache { batch, ..KvCache::default() };
            let got = read(rows, &mut alone);
            // The next token after the full batch's prompts, these rows left.
            let mut left = full.rows(rows).unwrap();
            left.batch = batch;
            let pads = vec![vec![false; t + 1]; rows.len()];
            let got2 = model.step_logits(next(rows), vec![t as u32; rows.len()], &pads, &mut left).unwrap();
            let mut same = true;
            for (j, &i) in rows.iter().enumerate() {
                same &= bits(&got[j]) == bits(&first[i]) && bits(&got2[j]) == bits(&second[i]);
                for layer in 0..2 {
                    same &= kv_bits(&alone, layer, j) == kv_bits(&full, layer, i);
                    same &= kv_bits(&left, layer, j) == kv_bits(&full_after, layer, i);
                }
            }
            if batch == b {
                assert!(same, "rows {rows:?} changed with batch = {b}");
            } else if !same {
                changed_without += 1;
            }
        }
    }
    assert!(changed_without > 0, "without KvCache::batch some subset should change its bits");
}

/// A compacted batch (`GenConfig::compact`: twins read once, finished rows
/// dropped) samples what the full batch samples, token for token from the
/// same seed, also when rows stop at different steps and when a second turn
/// continues from the memo. With 40 rows the full batch's products go
/// through gemm, whose kernels for few rows round differently (the rank-4
/// adapters' and the 16-wide K/V projections' most of all): without
/// `KvCache::batch` the rows left would drift from what they sample in the
/// full batch.
#[test]
fn a_compacted_batch_samples_what_the_full_batch_samples() {
    use agentlab::ml::memo::Memo;
    use agentlab::ml::sample::Decoding;
    let (_dir, model) = tiny_with_adapters_everywhere(21);
    let prefix: Vec<u32> = (0..20).map(|i| (i * 11 + 5) % VOCAB as u32).collect();
    // Eight different tails, each five times (a group of five per prompt).
    let tails: Vec<Vec<u32>> = (0..40u32).map(|i| vec![(i % 8) * 13 % 97, i % 8 + 100]).collect();
    let prompts: Vec<Vec<u32>> = tails.iter().map(|t| [&prefix[..], t].concat()).collect();
    // Stop on a fifth of the vocabulary: rows end after different numbers of tokens.
    let stop: Vec<u32> = (0..VOCAB as u32).filter(|t| t % 5 == 0).collect();
    let sample = Decoding::Sample { temperature: 1.0, top_k: None, top_p: None };
    // Compacting is on by default: the full batch is the one with it off.
    let plain = GenConfig { decoding: sample, compact: false, ..GenConfig::greedy(10, stop) };
    let compact = GenConfig { compact: true, ..plain.clone() };
    let (mut m1, mut m2) = (Memo::default(), Memo::default());
    let a = model.generate_with(&prompts, &plain, &mut Rng::new(0), &mut m1).unwrap();
    let b = model.generate_with(&prompts, &compact, &mut Rng::new(0), &mut m2).unwrap();
    assert_eq!(a, b);
    // Sampled tokens seldom show a rounding change; the memo shows every
    // bit: each row's tokens and the K/V of every position it read, in order.
    let memo_bits = |m: &mut Memo| -> Vec<(Vec<u32>, Vec<u32>)> {
        let bits = |t: &Tensor| -> Vec<u32> {
            t.flatten_all().unwrap().to_vec1::<f32>().unwrap().iter().map(|x| x.to_bits()).collect()
        };
        let seen: &mut Vec<qwen2::Remembered> = m.state();
        seen.iter()
            .map(|r| (r.tokens.clone(), r.kv.iter().flat_map(|(k, v)| [bits(k), bits(v)].concat()).collect()))
            .collect()
    };
    assert_eq!(memo_bits(&mut m1), memo_bits(&mut m2), "the memo after the first turn");
    let lengths: std::collections::BTreeSet<usize> = a.iter().map(Vec::len).collect();
    assert!(lengths.len() > 3, "rows of different lengths, so some leave the batch early: {a:?}");
    assert!(lengths.contains(&1) && lengths.contains(&10), "down to few rows: {lengths:?}");
    // A second turn continues each row from the memo.
    let next: Vec<Vec<u32>> = prompts.iter().zip(&a).map(|(p, o)| [&p[..], o, &[7, 8]].concat()).collect();
    let a2 = model.generate_with(&next, &plain, &mut Rng::new(1), &mut m1).unwrap();
    let b2 = model.generate_with(&next, &compact, &mut Rng::new(1), &mut m2).unwrap();
    assert_eq!(a2, b2, "second turn");
    assert_eq!(memo_bits(&mut m1), memo_bits(&mut m2), "the memo after the second turn");
}
