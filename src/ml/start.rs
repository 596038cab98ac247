//! The model a drill trains from, and the copies it trains.
//!
//! The default is the lab's tiny GPT (`src/ml/base.rs`): every weight trains.
//! A real pretrained instruct model (`src/ml/gguf.rs`) keeps its weights
//! frozen instead, and each copy a drill trains gets its own LoRA adapters on
//! the shared base (`Llama::fork_with_lora`).

use anyhow::Result;

use super::gpt::Gpt;
use super::llama::{Llama, LoraConfig};
use super::lm::CausalLm;

/// The model the training starts from.
pub enum Start {
    /// The lab's tiny GPT (pretrained base or random): every weight trains.
    Tiny(Gpt),
    /// A real pretrained model: frozen, each trained copy has its own LoRA adapters.
    Real { base: Box<Llama>, lora: LoraConfig },
}

/// A model a drill trains: a tiny GPT, or adapters on a real model's frozen base.
pub enum Model {
    Tiny(Gpt),
    Real(Llama),
}

impl Start {
    pub fn model(&self) -> &dyn CausalLm {
        match self {
            Start::Tiny(g) => g,
            Start::Real { base, .. } => base.as_ref(),
        }
    }

    /// A copy to train: the tiny GPT's weights, or fresh adapters on the shared base.
    pub fn fork(&self, seed: u64) -> Result<Model> {
        Ok(match self {
            Start::Tiny(g) => Model::Tiny(g.fork(seed)?),
            Start::Real { base, lora } => Model::Real(base.fork_with_lora(&LoraConfig { seed, ..lora.clone() })?),
        })
    }
}

impl Model {
    pub fn lm(&self) -> &dyn CausalLm {
        match self {
            Model::Tiny(g) => g,
            Model::Real(l) => l,
        }
    }

    /// A copy that later training steps of this model do not change (a
    /// reference policy): the tiny GPT's weights copied, or the adapters
    /// copied onto the same frozen base.
    pub fn frozen(&self, seed: u64) -> Result<Model> {
        Ok(match self {
            Model::Tiny(g) => Model::Tiny(g.fork(seed)?),
            Model::Real(l) => Model::Real(l.frozen_copy()?),
        })
    }
}
