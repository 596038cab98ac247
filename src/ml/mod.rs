//! Machine learning on candle: the tiny GPT, tokenizers, losses, the
//! optimizer, decoding, checkpoints and device choice. Nothing here knows
//! about drills or the UI.

pub mod base;
pub mod checkpoint;
pub mod data;
pub mod device;
pub mod fused;
pub mod gguf;
pub mod gguf_tokenizer;
pub mod gpt;
pub mod gpt_config;
pub mod gpu;
pub mod kv;
pub mod llama;
pub mod lm;
pub mod lora_gpt;
pub mod loss;
pub mod memo;
pub mod models;
pub mod ops;
pub mod optim;
pub mod rng;
pub mod sample;
pub mod start;
pub mod tokenizer;
pub mod train;

pub use gpt::{Gpt, GptConfig};
