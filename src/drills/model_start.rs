//! Where a drill's model comes from, and how its text becomes that model's tokens.
//!
//! The default is the lab's tiny GPT (`src/ml/base.rs`): every weight trains,
//! and it reads `BOS text … EOS` in its own 512-token BPE. With a drill's
//! `model` parameter set to `smollm2`, a registered name, a `.gguf` file or a
//! Hugging Face directory, a real pretrained instruct model is loaded
//! instead (`src/ml/gguf.rs`): its weights stay frozen and each copy the
//! drill trains gets its own LoRA adapters on the shared base
//! (`Llama::fork_with_lora`). A chat model reads its own chat template: the
//! drill's instructions as the system message, the task as the user's message,
//! and the agent's whole trajectory as the assistant's message, the
//! environment writing its observations into it (as the ReAct paper's prompts
//! do), ended by the template's end-of-turn token.

use anyhow::{bail, Result};

use super::RunCtx;
use crate::envs::Role;
use crate::ml::gguf_tokenizer::ChatTemplate;
use crate::ml::gpt::Gpt;
use crate::ml::llama::{Llama, LoraConfig, LORA_TARGETS};
use crate::ml::lm::CausalLm;
use crate::ml::tokenizer::{Bpe, Tokenize, BOS, EOS};

/// How a trajectory becomes token ids for one model.
pub(crate) struct Format {
    pub bos: Option<u32>,
    pub eos: u32,
    pub chat: Option<ChatTemplate>,
    /// The system message a chat model reads before each task.
    system: String,
    /// Tokens that end a turn: any whose text contains a newline, and `eos`.
    stop: Vec<u32>,
}

impl Format {
    /// The lab's tiny GPT and its BPE.
    pub fn tiny(tok: &Bpe) -> Format {
        Format::new(tok, Some(BOS), EOS, None, "")
    }

    pub fn new(tok: &Bpe, bos: Option<u32>, eos: u32, chat: Option<ChatTemplate>, system: &str) -> Format {
        let mut stop: Vec<u32> =
            (0..tok.vocab_size() as u32).filter(|&i| i != eos && tok.decode(&[i]).contains('\n')).collect();
        stop.push(eos);
        Format { bos, eos, chat, system: system.to_string(), stop }
    }

    /// One segment's ids: the prompt through the chat template when there is one.
    pub fn encode(&self, tok: &Bpe, role: Role, text: &str) -> Vec<u32> {
        match (&self.chat, role) {
            (Some(chat), Role::Prompt) => {
                let question = text.trim_end();
                let rendered = chat
                    .render(&[("system", self.system.as_str()), ("user", question)], true)
                    .unwrap_or_else(|_| text.into());
                tok.encode(&rendered)
            }
            _ => tok.encode(text),
        }
    }

    /// Tokens that end an agent's turn.
    pub fn stop(&self) -> &[u32] {
        &self.stop
    }

    /// A sampled turn as text for the environment: a chat model's end-of-turn
    /// token is not part of its line.
    pub fn line(&self, tok: &Bpe, ids: &[u32]) -> String {
        match (&self.chat, ids.strip_suffix(&[self.eos])) {
            (Some(_), Some(line)) => tok.decode(line),
            _ => tok.decode(ids),
        }
    }
}

/// The model the training starts from.
pub(crate) enum Start {
    /// The lab's tiny GPT (pretrained base or random): every weight trains.
    Tiny(Gpt),
    /// A real pretrained model: frozen, each trained copy has its own LoRA adapters.
    Real { base: Box<Llama>, lora: LoraConfig },
}

/// A model a drill trains: a tiny GPT, or adapters on a real model's frozen base.
pub(crate) enum Model {
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

/// Load the real model `name` (anything `agentlab model` resolves) with LoRA
/// rank `rank` (α = 2·rank) on every projection of the top `layers` layers
/// (0: all), and its chat format with `system` as the system message.
pub(crate) fn real_start(
    name: &str,
    rank: usize,
    layers: usize,
    system: &str,
    ctx: &mut RunCtx,
) -> Result<(Start, Bpe, Format)> {
    if rank == 0 {
        bail!("lora_rank must be at least 1 for a real model");
    }
    let real = crate::ml::gguf::load_path(&crate::ml::models::resolve(name)?, &ctx.device)?;
    let total = real.model.cfg.num_hidden_layers;
    let adapted = if layers == 0 { total } else { layers.min(total) };
    let lora = LoraConfig {
        targets: LORA_TARGETS.map(String::from).to_vec(),
        from_layer: total - adapted,
        ..LoraConfig::new(rank, 2.0 * rank as f64, ctx.seed)
    };
    let fmt = Format::new(&real.tokenizer, real.bos, real.eos, Some(real.chat), system);
    ctx.log(format!(
        "starting from {} ({} parameters, frozen; BPE vocabulary of {}): LoRA rank {rank} on every projection of the top {adapted} of {total} layers",
        real.name,
        real.model.num_params(),
        real.tokenizer.vocab_size(),
    ));
    Ok((Start::Real { base: Box::new(real.model), lora }, real.tokenizer, fmt))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chat_format_wraps_the_prompt_and_ends_a_line_at_its_end_of_turn() {
        let (_, tok) = crate::ml::base::shipped(&candle_core::Device::Cpu).unwrap();
        let chat = Format::new(&tok, None, EOS, Some(ChatTemplate::chatml()), "Use tools.");
        let prompt = tok.decode(&chat.encode(&tok, Role::Prompt, "Q: capital of Vesk?\n"));
        let (system, user, assistant) = (
            prompt.find("Use tools.").unwrap(),
            prompt.find("Q: capital of Vesk?").unwrap(),
            prompt.rfind("assistant"),
        );
        assert!(system < user && assistant.unwrap() > user, "{prompt}");
        // Agent and world text is the model's plain tokens, inside the assistant's message.
        assert_eq!(chat.encode(&tok, Role::Env, "Obs: x\n"), tok.encode("Obs: x\n"));
        let mut line = tok.encode("answer[Tolbri]");
        line.push(EOS);
        assert_eq!(chat.line(&tok, &line), "answer[Tolbri]");
        assert!(chat.stop().contains(&EOS) && chat.stop().len() > 1);
        // The tiny format reads the prompt as it is.
        let tiny = Format::tiny(&tok);
        assert_eq!(tiny.encode(&tok, Role::Prompt, "Q: capital of Vesk?\n"), tok.encode("Q: capital of Vesk?\n"));
        assert_eq!(tiny.bos, Some(BOS));
    }
}
