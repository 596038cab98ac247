//! Where a drill's model comes from, and how its text becomes that model's tokens.
//!
//! The default is the lab's tiny GPT (`src/ml/base.rs`): every weight trains,
//! and it reads `BOS text … EOS` in its own 512-token BPE. With a drill's
//! `model` parameter set to `smollm2`, a registered name, a `.gguf` file or a
//! Hugging Face directory, a real pretrained instruct model is loaded
//! instead (`src/ml/gguf.rs`): its weights stay frozen and each copy the
//! drill trains gets its own LoRA adapters on the shared base
//! (`src/ml/start.rs`). A chat model reads its own chat template
//! (`src/envs/format.rs`): the drill's instructions as the system message,
//! the task as the user's message, and the agent's whole trajectory as the
//! assistant's message, the environment writing its observations into it (as
//! the ReAct paper's prompts do), ended by the template's end-of-turn token.

use anyhow::{bail, Result};

use super::RunCtx;
use crate::envs::format::Format;
use crate::ml::llama::{LoraConfig, LORA_TARGETS};
use crate::ml::start::Start;
use crate::ml::tokenizer::{Bpe, Tokenize};

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
