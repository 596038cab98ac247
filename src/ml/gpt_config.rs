//! The tiny GPT's shape: sizes, position encoding, MLP kind, head tying.
//! Below both the composed model (`gpt.rs`) and the fused CPU op
//! (`fused/`), which read it; `gpt` re-exports it.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum PosEncoding {
    #[default]
    Learned,
    Rope,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum MlpKind {
    #[default]
    Gelu,
    SwiGlu,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GptConfig {
    pub vocab: usize,
    pub d_model: usize,
    pub n_layers: usize,
    pub n_heads: usize,
    /// Maximum sequence length (learned position table size).
    pub context: usize,
    #[serde(default)]
    pub pos: PosEncoding,
    #[serde(default)]
    pub mlp: MlpKind,
    /// Share the token embedding with the LM head.
    #[serde(default = "yes")]
    pub tied: bool,
    /// How RoPE's angles are rescaled for a context longer than the one
    /// trained on (none by default: saved configs read as before).
    #[serde(default)]
    pub rope_scaling: RopeScaling,
}

/// RoPE's base: pair `j` of a head of dimension `d` turns by `p · BASE^(−2j/d)` at position `p`.
pub const ROPE_BASE: f32 = 10000.0;

/// Rescaling RoPE for a longer context (`factor` s = new length / trained length).
///
/// - `Linear`: position interpolation (Chen et al., arXiv:2306.15595), every
///   angle divided by s, so position `s·L` turns like `L` did.
/// - `Ntk`: "NTK-aware" scaling (bloc97, Reddit, 2023): the base becomes
///   `b·s^(d/(d−2))`, which leaves the fastest pair as it was and divides the
///   slowest by exactly s.
/// - `Yarn`: YaRN (Peng et al., arXiv:2309.00071): pairs that turn more than
///   `beta` times over the `original` length keep their frequency, pairs that
///   turn less than `alpha` times are interpolated by s, a linear ramp between;
///   and the attention logits are sharpened by `(0.1·ln s + 1)²`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase", tag = "kind")]
pub enum RopeScaling {
    #[default]
    None,
    Linear {
        factor: f32,
    },
    Ntk {
        factor: f32,
    },
    Yarn {
        factor: f32,
        /// The trained context length.
        original: usize,
        alpha: f32,
        beta: f32,
    },
    /// The `d/2` inverse frequencies given outright (a learner's
    /// `rope_inv_freq`, `--use rope-scaling=FILE`).
    Given {
        inv_freq: Vec<f32>,
    },
}

impl RopeScaling {
    /// Inverse frequencies θ_j of the `d/2` pairs of a head of dimension `d`:
    /// pair `j` at position `p` is turned by the angle `p·θ_j`. The one place
    /// both the composed model (`gpt.rs`) and the fused op (`fused/rope.rs`) read.
    pub fn inv_freq(&self, d: usize) -> Vec<f32> {
        let half = d / 2;
        // In f32 exactly as before scaling existed, so unscaled models keep their numbers.
        let plain = |base: f32| -> Vec<f32> { (0..half).map(|j| 1.0 / base.powf(2.0 * j as f32 / d as f32)).collect() };
        match *self {
            RopeScaling::None => plain(ROPE_BASE),
            RopeScaling::Given { ref inv_freq } => inv_freq.clone(),
            RopeScaling::Linear { factor } => plain(ROPE_BASE).into_iter().map(|t| t / factor).collect(),
            RopeScaling::Ntk { factor } => {
                let base = ROPE_BASE as f64 * (factor as f64).powf(d as f64 / (d as f64 - 2.0));
                plain(base as f32)
            }
            RopeScaling::Yarn { factor, original, alpha, beta } => plain(ROPE_BASE)
                .into_iter()
                .map(|t| {
                    // Turns this pair makes over the trained length.
                    let r = original as f32 * t / (2.0 * std::f32::consts::PI);
                    let keep = ((r - alpha) / (beta - alpha)).clamp(0.0, 1.0);
                    (1.0 - keep) * t / factor + keep * t
                })
                .collect(),
        }
    }

    /// The factor cos and sin are multiplied by (so q·k by its square):
    /// YaRN's `0.1·ln s + 1`, 1 for the others.
    pub fn attention_scale(&self) -> f32 {
        match *self {
            RopeScaling::Yarn { factor, .. } if factor > 1.0 => 0.1 * factor.ln() + 1.0,
            _ => 1.0,
        }
    }
}

fn yes() -> bool {
    true
}

impl GptConfig {
    pub fn new(vocab: usize, d_model: usize, n_layers: usize, n_heads: usize, context: usize) -> GptConfig {
        GptConfig {
            vocab,
            d_model,
            n_layers,
            n_heads,
            context,
            pos: PosEncoding::Learned,
            mlp: MlpKind::Gelu,
            tied: true,
            rope_scaling: RopeScaling::None,
        }
    }

    pub fn validate(&self) -> std::result::Result<(), String> {
        if self.vocab == 0 || self.d_model == 0 || self.n_layers == 0 || self.n_heads == 0 || self.context == 0 {
            return Err("every model dimension must be positive".into());
        }
        if !self.d_model.is_multiple_of(self.n_heads) {
            return Err(format!("d_model {} is not divisible by n_heads {}", self.d_model, self.n_heads));
        }
        if self.pos == PosEncoding::Rope && !(self.d_model / self.n_heads).is_multiple_of(2) {
            return Err("RoPE needs an even head dimension".into());
        }
        if let RopeScaling::Given { inv_freq } = &self.rope_scaling {
            if inv_freq.len() != self.head_dim() / 2 || inv_freq.iter().any(|f| !f.is_finite()) {
                return Err(format!(
                    "RoPE needs {} finite inverse frequencies, one per pair of the head, not {}",
                    self.head_dim() / 2,
                    inv_freq.len()
                ));
            }
        }
        Ok(())
    }

    pub fn head_dim(&self) -> usize {
        self.d_model / self.n_heads
    }

    /// Hidden width of the MLP (SwiGLU uses 2/3 of 4d per branch to keep the parameter count).
    pub fn mlp_hidden(&self) -> usize {
        match self.mlp {
            MlpKind::Gelu => 4 * self.d_model,
            MlpKind::SwiGlu => (8 * self.d_model).div_ceil(3),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rope_scalings_give_the_documented_frequencies() {
        let d = 16;
        let plain = RopeScaling::None.inv_freq(d);
        assert_eq!(plain.len(), 8);
        assert_eq!(plain[0], 1.0);
        assert!((plain[1] - 10000f32.powf(-2.0 / 16.0)).abs() < 1e-7);
        // Interpolation divides every frequency by s.
        let pi = RopeScaling::Linear { factor: 4.0 }.inv_freq(d);
        for (a, b) in pi.iter().zip(&plain) {
            assert!((a - b / 4.0).abs() < 1e-7);
        }
        // NTK keeps the fastest pair and divides the slowest by exactly s.
        let ntk = RopeScaling::Ntk { factor: 4.0 }.inv_freq(d);
        assert_eq!(ntk[0], 1.0);
        assert!((ntk[7] / (plain[7] / 4.0) - 1.0).abs() < 1e-4, "{} vs {}", ntk[7], plain[7] / 4.0);
        assert!(ntk.iter().zip(&plain).all(|(a, b)| a <= b));
        // YaRN keeps pairs that turn often over the trained length, interpolates the slow ones.
        let yarn = RopeScaling::Yarn { factor: 4.0, original: 32, alpha: 1.0, beta: 4.0 };
        let y = yarn.inv_freq(d);
        assert_eq!(y[0], plain[0]); // 32/(2π) ≈ 5.1 turns > beta
        assert!((y[7] - plain[7] / 4.0).abs() < 1e-9); // far below alpha
        assert!((yarn.attention_scale() - (0.1 * 4f32.ln() + 1.0)).abs() < 1e-6);
        assert_eq!(RopeScaling::Ntk { factor: 4.0 }.attention_scale(), 1.0);
    }

    #[test]
    fn a_saved_config_without_rope_scaling_reads_as_none() {
        let cfg: GptConfig =
            serde_json::from_str(r#"{"vocab":5,"d_model":8,"n_layers":1,"n_heads":2,"context":4,"pos":"rope"}"#)
                .unwrap();
        assert_eq!(cfg.rope_scaling, RopeScaling::None);
        let round: GptConfig = serde_json::from_str(
            &serde_json::to_string(&GptConfig { rope_scaling: RopeScaling::Ntk { factor: 2.0 }, ..cfg }).unwrap(),
        )
        .unwrap();
        assert_eq!(round.rope_scaling, RopeScaling::Ntk { factor: 2.0 });
    }
}
