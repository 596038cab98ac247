//! SmolLM2-135M-Instruct's tokenizer and chat template, rebuilt from its real
//! GGUF file: byte-level round trips, one token per digit, the ChatML control
//! tokens as single ids, the exact rendered chat, and known vocabulary entries.
//!
//! The file comes from `scripts/get-smollm2.sh`; `AGENTLAB_SMOLLM2_GGUF`
//! overrides its default place, `~/.cache/agentlab/smollm2/`.

use std::path::PathBuf;
use std::sync::OnceLock;

use agentlab::ml::gguf_tokenizer::{
    bpe_from_gguf, read_gguf_content, special_tokens, tokenizer_and_template, ChatTemplate,
};
use agentlab::ml::tokenizer::{Bpe, Tokenize};

const FILE_NAME: &str = "SmolLM2-135M-Instruct.Q4_1.gguf";

fn gguf_path() -> PathBuf {
    let path = match std::env::var_os("AGENTLAB_SMOLLM2_GGUF") {
        Some(p) => PathBuf::from(p),
        None => {
            let home = std::env::var_os("HOME").map(PathBuf::from).unwrap_or_default();
            home.join(".cache/agentlab/smollm2").join(FILE_NAME)
        }
    };
    if !path.is_file() {
        panic!("SmolLM2 GGUF not found at {}: run scripts/get-smollm2.sh", path.display());
    }
    path
}

/// Built once for all tests (49,152 tokens and 48,900 merges).
fn loaded() -> &'static (Bpe, ChatTemplate) {
    static LOADED: OnceLock<(Bpe, ChatTemplate)> = OnceLock::new();
    LOADED.get_or_init(|| tokenizer_and_template(&gguf_path()).expect("SmolLM2's tokenizer builds from its GGUF"))
}

fn bpe() -> &'static Bpe {
    &loaded().0
}

fn template() -> &'static ChatTemplate {
    &loaded().1
}

/// The vocabulary strings of `ids`.
fn pieces(ids: &[u32]) -> Vec<String> {
    ids.iter().map(|&id| bpe().tokenizer().id_to_token(id).expect("id in the vocabulary")).collect()
}

#[test]
fn vocabulary_size_and_special_ids() {
    assert_eq!(bpe().vocab_size(), 49152);
    let content = read_gguf_content(&gguf_path()).unwrap();
    let sp = special_tokens(&content).unwrap();
    assert_eq!((sp.bos, sp.eos, sp.unk, sp.pad, sp.add_bos), (Some(1), Some(2), Some(0), Some(2), false));
    assert_eq!(bpe().token_id("<|endoftext|>"), Some(0));
    assert_eq!(bpe().token_id("<|im_start|>"), Some(1));
    assert_eq!(bpe().token_id("<|im_end|>"), Some(2));
    // Building again from the same metadata gives the same tokenizer.
    let again = bpe_from_gguf(&content).unwrap();
    assert_eq!(again.encode("Hello there, 42 worlds!"), bpe().encode("Hello there, 42 worlds!"));
}

#[test]
fn round_trips_digits_punctuation_newlines_and_unicode() {
    let texts = [
        "Hello, world! 3.14159 + 42 = 45.14159; (a) [b] {c} <d> \"e\" 'f' #g @h $9.99 100% x_y-z/w\\v",
        "line one\nline two\n\n\tindented\r\nwindows line\n",
        "  leading spaces, double  spaces and trailing   ",
        "café, naïve, Ünïcödé, señor, Ærøskøbing, ß — “quotes” … ‘single’",
        "日本語のテキスト、中文文本，한국어 텍스트",
        "emoji: 🦀🚀👍🏽 👨‍👩‍👧 ❤️ and ✓",
        "Year 2024, phone 555-0199, ½ ² ٣",
        "<|im_start|>user\nHi<|im_end|> is special only as the exact string: <|im_start |>",
    ];
    for text in texts {
        let ids = bpe().encode(text);
        assert!(!ids.is_empty());
        let expected = text.replace("<|im_start|>", "").replace("<|im_end|>", "");
        assert_eq!(bpe().decode(&ids), expected, "{text:?} → {:?}", pieces(&ids));
    }
}

#[test]
fn digits_are_one_token_each() {
    let ids = bpe().encode("12345");
    assert_eq!(ids.len(), 5, "{:?}", pieces(&ids));
    for (id, digit) in ids.iter().zip(["1", "2", "3", "4", "5"]) {
        assert_eq!(bpe().decode(&[*id]), digit);
    }
    // A space before a number stays a token of its own.
    assert_eq!(pieces(&bpe().encode(" 2024")), ["Ġ", "2", "0", "2", "4"]);
    assert_eq!(pieces(&bpe().encode("x=10")), ["x", "=", "1", "0"]);
}

#[test]
fn chatml_control_tokens_are_single_ids() {
    assert_eq!(bpe().encode("<|im_start|>"), vec![1]);
    assert_eq!(bpe().encode("<|im_end|>"), vec![2]);
    assert_eq!(bpe().encode("<|endoftext|>"), vec![0]);
    // Decoding leaves them out.
    assert_eq!(bpe().decode(&[1, 2, 0]), "");
}

#[test]
fn common_words_are_single_known_tokens() {
    let the = bpe().encode(" the");
    assert_eq!(the.len(), 1);
    assert_eq!(pieces(&the), ["Ġthe"]);
    assert_eq!(bpe().token_id("Ġthe"), Some(the[0]));
    for (text, piece) in [(" and", "Ġand"), (" of", "Ġof"), ("The", "The"), ("\n", "Ċ"), (" is", "Ġis")] {
        let ids = bpe().encode(text);
        assert_eq!(pieces(&ids), [piece], "{text:?}");
    }
    assert_eq!(pieces(&bpe().encode("Hello world")), ["Hello", "Ġworld"]);
}

#[test]
fn rendered_chat_is_exact_chatml_and_encodes_with_control_ids() {
    let prompt = template().render(&[("system", "You are terse."), ("user", "What is 2+2?")], true).unwrap();
    assert_eq!(
        prompt,
        "<|im_start|>system\nYou are terse.<|im_end|>\n<|im_start|>user\nWhat is 2+2?<|im_end|>\n<|im_start|>assistant\n"
    );
    let ids = bpe().encode(&prompt);
    assert_eq!(ids[0], 1, "{:?}", pieces(&ids));
    let starts: Vec<usize> = ids.iter().enumerate().filter(|(_, &id)| id == 1).map(|(i, _)| i).collect();
    let ends: Vec<usize> = ids.iter().enumerate().filter(|(_, &id)| id == 2).map(|(i, _)| i).collect();
    assert_eq!(starts.len(), 3);
    assert_eq!(ends.len(), 2, "one <|im_end|> per finished turn");
    let newline = bpe().token_id("Ċ").unwrap();
    for &e in &ends {
        // Each turn ends with <|im_end|> then a newline, and the next turn opens.
        assert_eq!(ids[e + 1], newline);
        assert_eq!(ids[e + 2], 1);
    }
    // The text between the control tokens is the turn's own.
    assert_eq!(bpe().decode(&ids[starts[1] + 1..ends[1]]), "user\nWhat is 2+2?");
    assert_eq!(bpe().decode(&ids[starts[2] + 1..]), "assistant\n");
}

#[test]
fn default_system_message_when_none_is_given() {
    let prompt = template().render(&[("user", "Hi!")], true).unwrap();
    assert_eq!(
        prompt,
        "<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n\
         <|im_start|>user\nHi!<|im_end|>\n<|im_start|>assistant\n"
    );
    let no_prompt = template().render(&[("user", "Hi!")], false).unwrap();
    assert!(no_prompt.ends_with("<|im_start|>user\nHi!<|im_end|>\n"));
    assert!(template().source().contains("SmolLM"));
}
