//! How a trajectory becomes one model's token ids.
//!
//! The lab's tiny GPT reads `BOS text … EOS` in its own BPE. A real chat
//! model reads its chat template: the drill's instructions as the system
//! message, the task as the user's message, and the agent's whole trajectory
//! as the assistant's message, the environment writing its observations into
//! it (as the ReAct paper's prompts do), ended by the template's end-of-turn
//! token. [`example`] turns a trajectory into a training example whose loss
//! covers the agent's tokens only.

use super::Role;
use crate::ml::data::Example;
use crate::ml::gguf_tokenizer::ChatTemplate;
use crate::ml::tokenizer::{Bpe, Tokenize, BOS, EOS};

/// How a trajectory becomes token ids for one model.
pub struct Format {
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

    /// Token ids as the model sees a trajectory: BOS (if any), then each segment
    /// encoded on its own (as in training, so token boundaries match at segment edges).
    pub fn encode_segments(&self, tok: &Bpe, segments: &[(Role, String)]) -> Vec<u32> {
        let mut ids: Vec<u32> = self.bos.into_iter().collect();
        for (role, text) in segments {
            ids.extend(self.encode(tok, *role, text));
        }
        ids
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

/// Tokens of a trajectory and which ones the loss trains: agent text only when
/// `mask` is on, everything when off (the first token is never a target).
/// Segments listed in `skip` are never trained.
pub fn example(tok: &Bpe, fmt: &Format, segments: &[(Role, String)], mask: bool, skip: &[usize]) -> Example {
    let mut tokens: Vec<u32> = fmt.bos.into_iter().collect();
    let mut train = vec![false; tokens.len()];
    for (k, (role, text)) in segments.iter().enumerate() {
        let ids = fmt.encode(tok, *role, text);
        let trained = (!mask || *role == Role::Agent) && !skip.contains(&k);
        train.extend(std::iter::repeat_n(trained, ids.len()));
        tokens.extend(ids);
    }
    tokens.push(fmt.eos);
    train.push(true);
    Example::new(tokens, train)
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

    #[test]
    fn a_masked_example_trains_the_agent_and_the_end_token_only() {
        let (_, tok) = crate::ml::base::shipped(&candle_core::Device::Cpu).unwrap();
        let fmt = Format::tiny(&tok);
        let segs = vec![
            (Role::Prompt, "Q: x?\n".to_string()),
            (Role::Agent, "Action: a\n".to_string()),
            (Role::Env, "Observation: b\n".to_string()),
            (Role::Agent, "Final Answer: c\n".to_string()),
        ];
        let ids: Vec<Vec<u32>> = segs.iter().map(|(r, t)| fmt.encode(&tok, *r, t)).collect();
        let masked = example(&tok, &fmt, &segs, true, &[1]);
        let mut want = vec![false; 1 + ids[0].len() + ids[1].len() + ids[2].len()];
        want.extend(vec![true; ids[3].len() + 1]);
        assert_eq!(masked.train, want);
        assert_eq!(masked.tokens[..masked.tokens.len() - 1], fmt.encode_segments(&tok, &segs)[..]);
        // Unmasked, everything after BOS but the skipped segment is trained.
        let all = example(&tok, &fmt, &segs, false, &[]);
        assert_eq!(all.train.iter().filter(|t| **t).count(), all.tokens.len() - 1);
    }
}
