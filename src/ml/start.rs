//! The model a drill trains from, and the copies it trains.
//!
//! The default is the lab's tiny GPT (`src/ml/base.rs`): every weight trains,
//! and it reads `BOS text … EOS` in its own 512-token BPE. With a drill's
//! `model` parameter set to `smollm2`, a registered name, a `.gguf` file or a
//! Hugging Face directory, a real pretrained instruct model is loaded
//! instead ([`real`], through `src/ml/gguf.rs`): its weights stay frozen and
//! each copy a drill trains gets its own LoRA adapters on the shared base
//! (`Llama::fork_with_lora`). A chat model reads its own chat template
//! (`src/envs/format.rs`): the drill's instructions as the system message,
//! the task as the user's message, and the agent's whole trajectory as the
//! assistant's message, the environment writing its observations into it (as
//! the ReAct paper's prompts do), ended by the template's end-of-turn token.

use anyhow::{bail, Result};
use candle_core::Device;

use super::gguf::RealModel;
use super::gguf_tokenizer::ChatTemplate;
use super::gpt::Gpt;
use super::llama::{Llama, LoraConfig, LORA_TARGETS};
use super::lm::CausalLm;
use super::tokenizer::{Bpe, Tokenize};

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

    /// A copy that trains on its own from here (an arm from a warm start):
    /// the tiny GPT's weights copied, or the adapters copied into new
    /// trainable ones on the same frozen base.
    pub fn fork(&self, seed: u64) -> Result<Model> {
        Ok(match self {
            Model::Tiny(g) => Model::Tiny(g.fork(seed)?),
            Model::Real(l) => Model::Real(l.trainable_copy()?),
        })
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

/// A real model loaded to start from: the start, its tokenizer and chat
/// format's pieces, and what a log line says about it.
pub struct RealStart {
    pub start: Start,
    pub tokenizer: Bpe,
    pub chat: ChatTemplate,
    pub bos: Option<u32>,
    pub eos: u32,
    /// The model's name, its (frozen) parameter count and vocabulary size.
    pub name: String,
    pub params: usize,
    pub vocab: usize,
    /// LoRA's rank, and the layers it adapts (the top `adapted` of `layers`).
    pub rank: usize,
    pub adapted: usize,
    pub layers: usize,
}

/// Load the real model `name` (anything `agentlab model` resolves) to start
/// from, with LoRA rank `rank` (α = 2·rank) on every projection of the top
/// `layers` layers (0: all).
pub fn real(name: &str, rank: usize, layers: usize, seed: u64, device: &Device) -> Result<RealStart> {
    if rank == 0 {
        bail!(crate::t!("setup-lora-rank"));
    }
    let RealModel { model, tokenizer, chat, bos, eos, name } =
        super::gguf::load_path(&super::models::resolve(name)?, device)?;
    let total = model.cfg.num_hidden_layers;
    let adapted = if layers == 0 { total } else { layers.min(total) };
    let lora = LoraConfig {
        targets: LORA_TARGETS.map(String::from).to_vec(),
        from_layer: total - adapted,
        ..LoraConfig::new(rank, 2.0 * rank as f64, seed)
    };
    let (params, vocab) = (model.num_params(), tokenizer.vocab_size());
    Ok(RealStart {
        start: Start::Real { base: Box::new(model), lora },
        tokenizer,
        chat,
        bos,
        eos,
        name,
        params,
        vocab,
        rank,
        adapted,
        layers: total,
    })
}
