//! What a drill needs from a causal language model, whatever its architecture.
//!
//! ```text
//! tokens [B,T] (u32) → forward → logits [B,T,V]      (position t predicts token t+1)
//! ```
//!
//! Both the lab's own tiny [`Gpt`] and a checkpoint brought from the Hugging
//! Face hub ([`Qwen2`](super::qwen2::Qwen2)) implement it, so a training loop
//! written against `&dyn CausalLm` runs on either:
//!
//! ```no_run
//! # use agentlab::ml::lm::CausalLm;
//! # fn step(model: &dyn CausalLm, x: &candle_core::Tensor, y: &candle_core::Tensor) -> anyhow::Result<()> {
//! use agentlab::ml::{loss::masked_cross_entropy, optim::{AdamW, AdamWConfig}};
//! let mut opt = AdamW::new(model.trainable_vars(), AdamWConfig::default())?;
//! let loss = masked_cross_entropy(&model.forward(x)?, y)?;
//! opt.step(&loss.backward()?)?;
//! # Ok(()) }
//! ```

use std::collections::BTreeMap;

use candle_core::{Device, Result, Tensor, Var};

use super::gpt::Gpt;
use super::rng::Rng;
use super::sample::GenConfig;

pub trait CausalLm {
    /// Logits `[B,T,V]` for token ids `[B,T]`, positions `0..T`, causal.
    fn forward(&self, tokens: &Tensor) -> Result<Tensor>;
    /// Every parameter by name (the checkpoint's own names for loaded models).
    fn vars(&self) -> BTreeMap<String, Var>;
    /// The parameters an optimizer should update: all of them, or only the
    /// adapters when the base is frozen (LoRA).
    fn trainable_vars(&self) -> Vec<Var> {
        self.vars().into_values().collect()
    }
    /// Longest sequence the model accepts.
    fn context(&self) -> usize;
    fn vocab(&self) -> usize;
    fn device(&self) -> &Device;
    /// New tokens for each prompt (each row's stop token kept if it stopped).
    fn generate(&self, prompts: &[Vec<u32>], cfg: &GenConfig, rng: &mut Rng) -> Result<Vec<Vec<u32>>>;
}

impl CausalLm for Gpt {
    fn forward(&self, tokens: &Tensor) -> Result<Tensor> {
        Gpt::forward(self, tokens)
    }

    fn vars(&self) -> BTreeMap<String, Var> {
        Gpt::vars(self)
    }

    fn context(&self) -> usize {
        self.cfg.context
    }

    fn vocab(&self) -> usize {
        self.cfg.vocab
    }

    fn device(&self) -> &Device {
        &self.device
    }

    fn generate(&self, prompts: &[Vec<u32>], cfg: &GenConfig, rng: &mut Rng) -> Result<Vec<Vec<u32>>> {
        super::sample::generate(self, prompts, cfg, rng)
    }
}
