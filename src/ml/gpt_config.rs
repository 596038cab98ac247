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
