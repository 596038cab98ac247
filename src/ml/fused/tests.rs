//! The fused op against the composed candle model: same logits, same
//! gradient for every parameter, on odd shapes.

use candle_core::{Device, Tensor};

use crate::ml::gpt::Gpt;
use crate::ml::gpt_config::{GptConfig, PosEncoding};
use crate::ml::loss::masked_cross_entropy;
use crate::ml::rng::Rng;

fn compare(cfg: GptConfig, b: usize, t: usize) {
    let model = Gpt::new(cfg.clone(), 7, &Device::Cpu).unwrap();
    // Move the weights away from the init so every term of the backward matters.
    let mut rng = Rng::new(3);
    for (_, v) in model.vars() {
        let n = v.elem_count();
        let noise: Vec<f32> = (0..n).map(|_| rng.normal() * 0.3).collect();
        let t = (v.as_tensor() + Tensor::from_vec(noise, v.shape(), &Device::Cpu).unwrap()).unwrap();
        v.set(&t).unwrap();
    }
    let toks: Vec<u32> = (0..b * t).map(|_| rng.below(cfg.vocab) as u32).collect();
    let labels: Vec<i64> = (0..b * t).map(|i| if i % 4 == 1 { -100 } else { rng.below(cfg.vocab) as i64 }).collect();
    let x = Tensor::from_vec(toks, (b, t), &Device::Cpu).unwrap();
    let y = Tensor::from_vec(labels, (b, t), &Device::Cpu).unwrap();

    let fused = model.forward(&x).unwrap();
    let composed = model.forward_composed(&x).unwrap();
    let a = fused.flatten_all().unwrap().to_vec1::<f32>().unwrap();
    let c = composed.flatten_all().unwrap().to_vec1::<f32>().unwrap();
    let scale = c.iter().fold(0f32, |m, v| m.max(v.abs()));
    for (p, q) in a.iter().zip(&c) {
        assert!((p - q).abs() <= 1e-4 * scale.max(1.0), "logits differ: {p} vs {q}");
    }

    let gf = masked_cross_entropy(&fused, &y).unwrap().backward().unwrap();
    let gc = masked_cross_entropy(&composed, &y).unwrap().backward().unwrap();
    for (name, var) in model.vars() {
        let f = gf.get(var.as_tensor()).unwrap_or_else(|| panic!("fused: no gradient for {name}"));
        let r = gc.get(var.as_tensor()).unwrap_or_else(|| panic!("composed: no gradient for {name}"));
        let f = f.flatten_all().unwrap().to_vec1::<f32>().unwrap();
        let r = r.flatten_all().unwrap().to_vec1::<f32>().unwrap();
        let norm = r.iter().map(|v| v * v).sum::<f32>().sqrt();
        let diff = f.iter().zip(&r).map(|(p, q)| (p - q) * (p - q)).sum::<f32>().sqrt();
        assert!(norm > 0.0, "{name}: zero reference gradient");
        assert!(diff <= 1e-4 * norm, "{name}: relative gradient error {}", diff / norm);
    }
}

#[test]
fn fused_matches_composed_on_odd_shapes() {
    compare(GptConfig::new(11, 24, 2, 3, 9), 3, 7);
}

#[test]
fn fused_matches_composed_untied_and_full_context() {
    let mut cfg = GptConfig::new(13, 32, 1, 4, 12);
    cfg.tied = false;
    compare(cfg, 2, 12);
}

#[test]
fn fused_matches_composed_at_bench_width() {
    compare(GptConfig::new(64, 128, 2, 4, 64), 2, 33);
}

#[test]
fn fused_matches_composed_with_rope() {
    let mut cfg = GptConfig::new(17, 32, 2, 4, 12);
    cfg.pos = PosEncoding::Rope;
    compare(cfg, 3, 11);
}

#[test]
fn fused_matches_composed_over_several_causal_blocks_and_uneven_shards() {
    // t = 70: attention blocks of 32, 32 and 6 queries; b = 3: shards of 2 and 1 sequences.
    let mut cfg = GptConfig::new(19, 32, 2, 4, 80);
    cfg.pos = PosEncoding::Rope;
    compare(cfg, 3, 70);
    compare(GptConfig::new(19, 32, 1, 2, 70), 5, 70);
}

#[test]
fn fused_matches_composed_with_each_rope_scaling() {
    use crate::ml::gpt_config::RopeScaling;
    for scaling in [
        RopeScaling::Linear { factor: 4.0 },
        RopeScaling::Ntk { factor: 4.0 },
        RopeScaling::Yarn { factor: 4.0, original: 8, alpha: 1.0, beta: 32.0 },
    ] {
        let mut cfg = GptConfig::new(17, 32, 2, 2, 40);
        cfg.pos = PosEncoding::Rope;
        cfg.rope_scaling = scaling;
        compare(cfg, 2, 37);
    }
}
