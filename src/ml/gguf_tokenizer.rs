//! The tokenizer and the chat template of a pretrained model, rebuilt from the
//! metadata of its GGUF file.
//!
//! # How a GGUF carries a byte-level BPE
//!
//! A GGUF file is a header of key/value metadata followed by the weights. A
//! model converted from Hugging Face keeps its whole tokenizer in that header,
//! under `tokenizer.ggml.*`, so one file is enough to run it:
//!
//! * `tokenizer.ggml.model` names the algorithm. `"gpt2"` means a *byte-level
//!   BPE*, the kind GPT-2 introduced and most small chat models (SmolLM2,
//!   Qwen, Llama 3) use. Another value, such as `"llama"` (SentencePiece), is
//!   a different algorithm that this module does not build.
//! * `tokenizer.ggml.tokens` is the vocabulary: the string of every id, in id
//!   order (49,152 of them for SmolLM2). Byte-level means the text is first
//!   turned into UTF-8 bytes and every byte is shown as one printable
//!   character: a space becomes `Ġ`, a newline `Ċ`. So the token for " the" is
//!   written `"Ġthe"`, and any text at all, emoji included, can be spelled
//!   with the 256 one-byte tokens: nothing is ever "unknown".
//! * `tokenizer.ggml.merges` lists the learned merges in priority order, as
//!   `"Ġ t"` (glue `Ġ` and `t` into `Ġt`). Encoding a word starts from its
//!   bytes and keeps applying the highest-priority merge that fits, until
//!   none does; what is left are the tokens.
//! * `tokenizer.ggml.token_type` says what each id is: 1 normal, 3 *control*
//!   (4 user-defined). Control tokens such as `<|im_start|>` and `<|im_end|>`
//!   are the structure of a chat; they become *special added tokens*: found
//!   whole in the text before any BPE runs (so `"<|im_start|>"` is the single
//!   id 1, never the pieces `<`, `|`, `im`…) and left out of decoded text.
//! * `tokenizer.ggml.pre` names the *pre-tokenizer*: the rules that cut text
//!   into words before BPE sees it, so that no merge ever crosses a word
//!   boundary. Its name stands for a set of regular expressions in llama.cpp;
//!   here `"smollm"` is rebuilt exactly as SmolLM2's own `tokenizer.json` does
//!   it (see below), and any other name falls back to plain GPT-2 byte-level
//!   splitting, which is right for many models but not all (a model whose
//!   pre-tokenizer differs will then encode some texts differently from its
//!   training, with no error: add its rules here first).
//! * `tokenizer.ggml.bos_token_id`, `eos_token_id`, … point at the special
//!   ids; `add_bos_token` says whether a prompt starts with BOS (not for
//!   SmolLM2: its chat template starts every turn with `<|im_start|>`).
//!
//! # Digit splitting
//!
//! SmolLM2's pre-tokenizer first isolates every digit (`Digits` with
//! `individual_digits`), then applies GPT-2's byte-level splitting. So
//! `"12345"` is always the five tokens `1 2 3 4 5`, and `" 2024"` is `Ġ 2 0 2 4`.
//! Without it, numbers would be cut into whatever chunks were frequent in the
//! training text (`"123"` one token, `"1234"` two arbitrary pieces), and the
//! model would have to learn arithmetic over an inconsistent spelling of
//! numbers. One token per digit costs a few more tokens but gives every
//! number the same, place-by-place shape.
//!
//! # The chat template
//!
//! A chat model was fine-tuned on conversations laid out in one exact text
//! format; it answers well only when prompted in that same format. The model
//! ships that format as a Jinja template, `tokenizer.chat_template`, that
//! turns a list of `{role, content}` messages into the prompt string. SmolLM2
//! uses *ChatML*:
//!
//! ```text
//! <|im_start|>system
//! You are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>
//! <|im_start|>user
//! Hi!<|im_end|>
//! <|im_start|>assistant
//! ```
//!
//! Its template adds that default system message when the conversation has
//! none, and `add_generation_prompt` appends the opening of the assistant's
//! turn so that the model's next tokens are its answer (it ends it with
//! `<|im_end|>`, id 2, the EOS). [`ChatTemplate`] renders it with `minijinja`,
//! configured like Hugging Face's own renderer (`trim_blocks`,
//! `lstrip_blocks`, a `raise_exception` function, `bos_token`/`eos_token` in
//! the context); without the key, it falls back to plain ChatML
//! ([`CHATML_TEMPLATE`]).

use std::path::Path;

use anyhow::{anyhow, bail, Context, Result};
use candle_core::quantized::gguf_file::{Content, Value};

use super::tokenizer::Bpe;

/// Plain ChatML, used when a GGUF has no `tokenizer.chat_template`: the same
/// turns as SmolLM2's template, without its default system message.
pub const CHATML_TEMPLATE: &str = "{% for message in messages %}\
{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n' }}\
{% endfor %}\
{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";

/// llama.cpp's token types (`tokenizer.ggml.token_type`).
const TOKEN_TYPE_CONTROL: i64 = 3;
const TOKEN_TYPE_USER_DEFINED: i64 = 4;

/// Read only the metadata and tensor index of a GGUF file (not the weights).
pub fn read_gguf_content(path: &Path) -> Result<Content> {
    let file = std::fs::File::open(path).with_context(|| format!("opening the GGUF file {}", path.display()))?;
    let mut reader = std::io::BufReader::new(file);
    Content::read(&mut reader).map_err(|e| anyhow!("reading the GGUF header of {}: {e}", path.display()))
}

/// The tokenizer and chat template of the GGUF file at `path`.
pub fn tokenizer_and_template(path: &Path) -> Result<(Bpe, ChatTemplate)> {
    let content = read_gguf_content(path)?;
    let bpe = bpe_from_gguf(&content).with_context(|| format!("the tokenizer of {}", path.display()))?;
    let template =
        ChatTemplate::from_gguf(&content).with_context(|| format!("the chat template of {}", path.display()))?;
    Ok((bpe, template))
}

/// Build the byte-level BPE tokenizer a GGUF describes (`tokenizer.ggml.*`).
///
/// Needs `tokenizer.ggml.model` = `"gpt2"` (any other model is an error that
/// names it), `tokens`, `token_type` and `merges`. The pre-tokenizer follows
/// `tokenizer.ggml.pre`: `"smollm"` is digits split one by one, then GPT-2
/// byte-level splitting; any other value, or none, gets plain GPT-2
/// byte-level splitting (`ByteLevel`, no prefix space), which may differ from
/// what that model was trained with. Control tokens (type 3) become special
/// added tokens and user-defined ones (type 4) plain added tokens: both are
/// matched whole in the input before BPE runs.
pub fn bpe_from_gguf(content: &Content) -> Result<Bpe> {
    use tokenizers::decoders::byte_level::ByteLevel as ByteLevelDecoder;
    use tokenizers::models::bpe::{Vocab, BPE};
    use tokenizers::pre_tokenizers::byte_level::ByteLevel;
    use tokenizers::pre_tokenizers::digits::Digits;
    use tokenizers::pre_tokenizers::sequence::Sequence;
    use tokenizers::pre_tokenizers::PreTokenizerWrapper;
    use tokenizers::AddedToken;

    let model = get_str(content, "tokenizer.ggml.model")?;
    if model != "gpt2" {
        bail!(
            "unsupported GGUF tokenizer model {model:?} (tokenizer.ggml.model): only \"gpt2\" (byte-level BPE) is built here"
        );
    }
    let tokens = get_str_array(content, "tokenizer.ggml.tokens")?;
    let types = get_int_array(content, "tokenizer.ggml.token_type")?;
    if types.len() != tokens.len() {
        bail!(
            "GGUF metadata: tokenizer.ggml.token_type has {} entries but tokenizer.ggml.tokens has {}",
            types.len(),
            tokens.len()
        );
    }
    let merge_lines = get_str_array(content, "tokenizer.ggml.merges")?;
    let pre = match content.metadata.get("tokenizer.ggml.pre") {
        None => None,
        Some(_) => Some(get_str(content, "tokenizer.ggml.pre")?),
    };

    let mut vocab = Vocab::default();
    for (id, token) in tokens.iter().enumerate() {
        if let Some(first) = vocab.insert(token.to_string(), id as u32) {
            bail!("GGUF metadata: token {token:?} appears twice in tokenizer.ggml.tokens (ids {first} and {id})");
        }
    }
    let merges = merge_lines
        .iter()
        .enumerate()
        .map(|(i, line)| match line.split_once(' ') {
            Some((a, b)) if !a.is_empty() && !b.is_empty() && !b.contains(' ') => Ok((a.to_string(), b.to_string())),
            _ => Err(anyhow!("GGUF metadata: merge {i} ({line:?}) is not two tokens separated by one space")),
        })
        .collect::<Result<Vec<_>>>()?;
    let model = BPE::builder()
        .vocab_and_merges(vocab, merges)
        .build()
        .map_err(|e| anyhow!("building the BPE from the GGUF's tokens and merges: {e}"))?;

    let byte_level = ByteLevel::new(false, true, true);
    let pre_tokenizer: PreTokenizerWrapper = match pre {
        Some("smollm") => Sequence::new(vec![Digits::new(true).into(), byte_level.into()]).into(),
        _ => byte_level.into(),
    };
    let mut tokenizer = tokenizers::Tokenizer::new(model);
    tokenizer.with_pre_tokenizer(Some(pre_tokenizer));
    tokenizer.with_decoder(Some(ByteLevelDecoder::default()));
    let added: Vec<AddedToken> = tokens
        .iter()
        .zip(&types)
        .filter_map(|(token, &ty)| match ty {
            TOKEN_TYPE_CONTROL => Some(AddedToken::from(token.to_string(), true)),
            TOKEN_TYPE_USER_DEFINED => Some(AddedToken::from(token.to_string(), false).normalized(false)),
            _ => None,
        })
        .collect();
    tokenizer.add_special_tokens(added).map_err(|e| anyhow!("adding the GGUF's control tokens: {e}"))?;
    Ok(Bpe::from_tokenizer(tokenizer))
}

/// The special ids a GGUF names (`tokenizer.ggml.*_token_id`) and whether a
/// prompt should start with BOS.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GgufSpecialTokens {
    pub bos: Option<u32>,
    pub eos: Option<u32>,
    pub unk: Option<u32>,
    pub pad: Option<u32>,
    /// `tokenizer.ggml.add_bos_token`, false when absent.
    pub add_bos: bool,
}

/// Read the special ids of a GGUF; absent keys are `None`, mistyped ones errors.
pub fn special_tokens(content: &Content) -> Result<GgufSpecialTokens> {
    let id = |key: &str| -> Result<Option<u32>> {
        match content.metadata.get(key) {
            None => Ok(None),
            Some(v) => as_int(v)
                .and_then(|i| u32::try_from(i).ok())
                .map(Some)
                .ok_or_else(|| anyhow!("GGUF metadata `{key}` should be a token id, found {}", describe(v))),
        }
    };
    let add_bos = match content.metadata.get("tokenizer.ggml.add_bos_token") {
        None => false,
        Some(Value::Bool(b)) => *b,
        Some(v) => bail!("GGUF metadata `tokenizer.ggml.add_bos_token` should be a bool, found {}", describe(v)),
    };
    Ok(GgufSpecialTokens {
        bos: id("tokenizer.ggml.bos_token_id")?,
        eos: id("tokenizer.ggml.eos_token_id")?,
        unk: id("tokenizer.ggml.unknown_token_id")?,
        pad: id("tokenizer.ggml.padding_token_id")?,
        add_bos,
    })
}

/// A model's chat template: Jinja that turns `(role, content)` messages into
/// the prompt text the model was fine-tuned on.
#[derive(Debug)]
pub struct ChatTemplate {
    env: minijinja::Environment<'static>,
    source: String,
    bos_token: String,
    eos_token: String,
}

const TEMPLATE_NAME: &str = "chat_template";

impl ChatTemplate {
    /// Compile a Hugging Face style chat template (an error if it does not parse).
    pub fn new(source: &str) -> Result<ChatTemplate> {
        let mut env = minijinja::Environment::new();
        // As transformers' apply_chat_template renders: a block tag eats the
        // newline after it and the indentation before it.
        env.set_trim_blocks(true);
        env.set_lstrip_blocks(true);
        env.add_function("raise_exception", |message: String| -> Result<String, minijinja::Error> {
            Err(minijinja::Error::new(minijinja::ErrorKind::InvalidOperation, message))
        });
        env.add_template_owned(TEMPLATE_NAME, source.to_string())
            .map_err(|e| anyhow!("the chat template does not parse: {}", error_chain(&e)))?;
        Ok(ChatTemplate { env, source: source.to_string(), bos_token: String::new(), eos_token: String::new() })
    }

    /// Plain ChatML ([`CHATML_TEMPLATE`]).
    pub fn chatml() -> ChatTemplate {
        ChatTemplate::new(CHATML_TEMPLATE).expect("the built-in ChatML template parses")
    }

    /// The GGUF's `tokenizer.chat_template`, or plain ChatML when it has none;
    /// `bos_token`/`eos_token` are the strings of its BOS/EOS ids when it names them.
    pub fn from_gguf(content: &Content) -> Result<ChatTemplate> {
        let template = match content.metadata.get("tokenizer.chat_template") {
            None => ChatTemplate::chatml(),
            Some(_) => ChatTemplate::new(get_str(content, "tokenizer.chat_template")?)?,
        };
        let specials = special_tokens(content)?;
        let token = |id: Option<u32>| -> Result<String> {
            let Some(id) = id else { return Ok(String::new()) };
            let tokens = get_str_array(content, "tokenizer.ggml.tokens")?;
            tokens.get(id as usize).map(|s| s.to_string()).ok_or_else(|| {
                anyhow!("GGUF metadata: special token id {id} is past the vocabulary ({} tokens)", tokens.len())
            })
        };
        Ok(template.with_special_tokens(&token(specials.bos)?, &token(specials.eos)?))
    }

    /// Set the `bos_token`/`eos_token` strings some templates print (empty by default).
    pub fn with_special_tokens(mut self, bos_token: &str, eos_token: &str) -> ChatTemplate {
        self.bos_token = bos_token.to_string();
        self.eos_token = eos_token.to_string();
        self
    }

    /// The Jinja source.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// Render `messages` (`(role, content)`, e.g. `("user", "Hi!")`) into the
    /// prompt text; `add_generation_prompt` opens the assistant's turn at the end.
    pub fn render(&self, messages: &[(&str, &str)], add_generation_prompt: bool) -> Result<String> {
        let messages: Vec<minijinja::Value> =
            messages.iter().map(|(role, content)| minijinja::context! { role => role, content => content }).collect();
        let ctx = minijinja::context! {
            messages => messages,
            add_generation_prompt => add_generation_prompt,
            bos_token => self.bos_token.as_str(),
            eos_token => self.eos_token.as_str(),
        };
        let template = self.env.get_template(TEMPLATE_NAME).map_err(|e| anyhow!("{}", error_chain(&e)))?;
        template.render(ctx).map_err(|e| anyhow!("rendering the chat template: {}", error_chain(&e)))
    }
}

/// A minijinja error with its causes (the message of `raise_exception` is one).
fn error_chain(e: &minijinja::Error) -> String {
    let mut out = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(cause) = source {
        out.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    out
}

fn get<'a>(content: &'a Content, key: &str) -> Result<&'a Value> {
    content.metadata.get(key).ok_or_else(|| anyhow!("GGUF metadata has no `{key}` (the tokenizer needs it)"))
}

fn get_str<'a>(content: &'a Content, key: &str) -> Result<&'a str> {
    match get(content, key)? {
        Value::String(s) => Ok(s),
        other => bail!("GGUF metadata `{key}` should be a string, found {}", describe(other)),
    }
}

fn get_array<'a>(content: &'a Content, key: &str) -> Result<&'a [Value]> {
    match get(content, key)? {
        Value::Array(items) => Ok(items),
        other => bail!("GGUF metadata `{key}` should be an array, found {}", describe(other)),
    }
}

fn get_str_array<'a>(content: &'a Content, key: &str) -> Result<Vec<&'a str>> {
    get_array(content, key)?
        .iter()
        .enumerate()
        .map(|(i, v)| match v {
            Value::String(s) => Ok(s.as_str()),
            other => Err(anyhow!("GGUF metadata `{key}`[{i}] should be a string, found {}", describe(other))),
        })
        .collect()
}

fn get_int_array(content: &Content, key: &str) -> Result<Vec<i64>> {
    get_array(content, key)?
        .iter()
        .enumerate()
        .map(|(i, v)| {
            as_int(v).ok_or_else(|| anyhow!("GGUF metadata `{key}`[{i}] should be an integer, found {}", describe(v)))
        })
        .collect()
}

fn as_int(v: &Value) -> Option<i64> {
    match *v {
        Value::U8(x) => Some(x.into()),
        Value::I8(x) => Some(x.into()),
        Value::U16(x) => Some(x.into()),
        Value::I16(x) => Some(x.into()),
        Value::U32(x) => Some(x.into()),
        Value::I32(x) => Some(x.into()),
        Value::U64(x) => i64::try_from(x).ok(),
        Value::I64(x) => Some(x),
        _ => None,
    }
}

/// A value's type for an error message (an array with its first element's type).
fn describe(v: &Value) -> String {
    match v {
        Value::Array(items) => match items.first() {
            Some(first) => format!("an array of {:?}", first.value_type()),
            None => "an empty array".to_string(),
        },
        other => format!("{:?}", other.value_type()),
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::ml::tokenizer::Tokenize;

    /// Metadata keys → values, as a [`Content`] built by hand (no file).
    fn content_from(metadata: HashMap<String, Value>) -> Content {
        Content {
            magic: candle_core::quantized::gguf_file::VersionedMagic::GgufV3,
            metadata,
            tensor_infos: HashMap::new(),
            tensor_data_offset: 0,
        }
    }

    /// SmolLM2-135M-Instruct's `tokenizer.chat_template`, as its GGUF carries it.
    const SMOLLM2_TEMPLATE: &str = "{% for message in messages %}{% if loop.first and messages[0]['role'] != 'system' %}{{ '<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n' }}{% endif %}{{'<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}";

    fn s(x: &str) -> Value {
        Value::String(x.to_string())
    }

    /// A tiny GPT-2 style vocabulary: 3 control tokens, the 256 byte symbols,
    /// and a few merges (`Ġthe`, `he`, `12`).
    fn tiny_metadata(pre: Option<&str>) -> HashMap<String, Value> {
        let mut tokens: Vec<String> = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"].map(String::from).to_vec();
        let mut types = vec![3i32; 3];
        let mut alphabet: Vec<char> =
            tokenizers::pre_tokenizers::byte_level::ByteLevel::alphabet().into_iter().collect();
        alphabet.sort();
        for c in alphabet {
            tokens.push(c.to_string());
            types.push(1);
        }
        let merges = ["Ġ t", "h e", "Ġt he", "1 2"];
        for m in merges {
            tokens.push(m.replace(' ', ""));
            types.push(1);
        }
        let mut md = HashMap::new();
        md.insert("tokenizer.ggml.model".to_string(), s("gpt2"));
        if let Some(pre) = pre {
            md.insert("tokenizer.ggml.pre".to_string(), s(pre));
        }
        md.insert("tokenizer.ggml.tokens".to_string(), Value::Array(tokens.iter().map(|t| s(t)).collect()));
        md.insert("tokenizer.ggml.token_type".to_string(), Value::Array(types.into_iter().map(Value::I32).collect()));
        md.insert("tokenizer.ggml.merges".to_string(), Value::Array(merges.iter().map(|m| s(m)).collect()));
        md.insert("tokenizer.ggml.bos_token_id".to_string(), Value::U32(1));
        md.insert("tokenizer.ggml.eos_token_id".to_string(), Value::U32(2));
        md
    }

    fn tiny(pre: Option<&str>) -> Bpe {
        bpe_from_gguf(&content_from(tiny_metadata(pre))).unwrap()
    }

    fn err_of(md: HashMap<String, Value>) -> String {
        match bpe_from_gguf(&content_from(md)) {
            Ok(_) => panic!("expected an error"),
            Err(e) => format!("{e:#}"),
        }
    }

    #[test]
    fn tiny_vocabulary_merges_specials_and_round_trips() {
        let bpe = tiny(Some("smollm"));
        assert_eq!(bpe.vocab_size(), 3 + 256 + 4);
        let the = bpe.token_id("Ġthe").unwrap();
        assert_eq!(bpe.encode(" the"), vec![the]);
        assert_eq!(bpe.encode("<|im_start|>"), vec![1]);
        assert_eq!(bpe.encode("<|im_end|>"), vec![2]);
        let ids = bpe.encode("<|im_start|>user the<|im_end|>");
        assert_eq!(ids.first(), Some(&1));
        assert_eq!(ids.last(), Some(&2));
        assert!(ids.contains(&the));
        // Special tokens are left out of decoded text.
        assert_eq!(bpe.decode(&ids), "user the");
        for text in ["héllo wörld 42!\n\tok", "日本 🦀 the end", "  two  spaces "] {
            assert_eq!(bpe.decode(&bpe.encode(text)), text, "{text:?}");
        }
    }

    #[test]
    fn smollm_splits_digits_but_plain_byte_level_does_not() {
        // The vocabulary has a "12" token: plain byte-level uses it, smollm never does.
        let smollm = tiny(Some("smollm"));
        assert_eq!(smollm.encode("123").len(), 3);
        assert_eq!(smollm.encode(" 12").len(), 3, "Ġ 1 2");
        let plain = tiny(Some("some-other-pre"));
        assert_eq!(plain.encode("123"), vec![plain.token_id("12").unwrap(), plain.token_id("3").unwrap()]);
        let none = tiny(None);
        assert_eq!(none.encode("123").len(), 2);
    }

    #[test]
    fn other_models_are_named_in_the_error() {
        let mut md = tiny_metadata(None);
        md.insert("tokenizer.ggml.model".to_string(), s("llama"));
        let e = err_of(md);
        assert!(e.contains("\"llama\"") && e.contains("tokenizer.ggml.model"), "{e}");
    }

    #[test]
    fn missing_and_mistyped_keys_are_errors() {
        for key in
            ["tokenizer.ggml.model", "tokenizer.ggml.tokens", "tokenizer.ggml.token_type", "tokenizer.ggml.merges"]
        {
            let mut md = tiny_metadata(None);
            md.remove(key);
            let e = err_of(md);
            assert!(e.contains(key) && e.contains("no `"), "{key}: {e}");
        }
        let mut md = tiny_metadata(None);
        md.insert("tokenizer.ggml.tokens".to_string(), Value::U32(7));
        let e = err_of(md);
        assert!(e.contains("tokenizer.ggml.tokens") && e.contains("array"), "{e}");

        let mut md = tiny_metadata(None);
        md.insert("tokenizer.ggml.merges".to_string(), Value::Array(vec![Value::U32(1)]));
        let e = err_of(md);
        assert!(e.contains("tokenizer.ggml.merges`[0]") && e.contains("string"), "{e}");

        let mut md = tiny_metadata(None);
        md.insert("tokenizer.ggml.model".to_string(), Value::Bool(true));
        let e = err_of(md);
        assert!(e.contains("should be a string"), "{e}");

        let mut md = tiny_metadata(None);
        md.insert("tokenizer.ggml.pre".to_string(), Value::U8(1));
        assert!(err_of(md).contains("tokenizer.ggml.pre"));

        let mut md = tiny_metadata(None);
        md.insert("tokenizer.ggml.token_type".to_string(), Value::Array(vec![Value::I32(1)]));
        assert!(err_of(md).contains("entries"));

        let mut md = tiny_metadata(None);
        md.insert("tokenizer.ggml.merges".to_string(), Value::Array(vec![s("Ġthe")]));
        assert!(err_of(md).contains("two tokens"));

        let mut md = tiny_metadata(None);
        md.insert("tokenizer.ggml.merges".to_string(), Value::Array(vec![s("x yz")]));
        assert!(err_of(md).contains("merges"));
    }

    #[test]
    fn special_ids_are_read_and_checked() {
        let mut md = tiny_metadata(None);
        let sp = special_tokens(&content_from(md.clone())).unwrap();
        assert_eq!((sp.bos, sp.eos, sp.unk, sp.pad, sp.add_bos), (Some(1), Some(2), None, None, false));
        md.insert("tokenizer.ggml.eos_token_id".to_string(), s("2"));
        let e = special_tokens(&content_from(md)).unwrap_err().to_string();
        assert!(e.contains("eos_token_id") && e.contains("String"), "{e}");
    }

    #[test]
    fn smollm2_template_renders_chatml_with_its_default_system() {
        let t = ChatTemplate::new(SMOLLM2_TEMPLATE).unwrap();
        assert_eq!(
            t.render(&[("system", "Be brief."), ("user", "Hi!")], true).unwrap(),
            "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi!<|im_end|>\n<|im_start|>assistant\n"
        );
        assert_eq!(
            t.render(&[("user", "Hi!"), ("assistant", "Hello.")], false).unwrap(),
            "<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n\
             <|im_start|>user\nHi!<|im_end|>\n<|im_start|>assistant\nHello.<|im_end|>\n"
        );
        assert_eq!(t.source(), SMOLLM2_TEMPLATE);
    }

    #[test]
    fn fallback_is_plain_chatml_and_from_gguf_reads_the_key() {
        let none = ChatTemplate::from_gguf(&content_from(tiny_metadata(None))).unwrap();
        assert_eq!(none.source(), CHATML_TEMPLATE);
        assert_eq!(
            none.render(&[("user", "2+2?")], true).unwrap(),
            "<|im_start|>user\n2+2?<|im_end|>\n<|im_start|>assistant\n"
        );
        let mut md = tiny_metadata(None);
        md.insert("tokenizer.chat_template".to_string(), s("{{ bos_token }}{{ messages[0].content }}{{ eos_token }}"));
        let t = ChatTemplate::from_gguf(&content_from(md.clone())).unwrap();
        assert_eq!(t.render(&[("user", "x")], false).unwrap(), "<|im_start|>x<|im_end|>");
        md.insert("tokenizer.chat_template".to_string(), Value::U32(0));
        let e = ChatTemplate::from_gguf(&content_from(md)).unwrap_err().to_string();
        assert!(e.contains("tokenizer.chat_template") && e.contains("string"), "{e}");
    }

    #[test]
    fn hugging_face_rendering_conventions() {
        // trim_blocks + lstrip_blocks: block tags leave no blank lines or indentation.
        let t = ChatTemplate::new("{% for m in messages %}\n    {% if m.role == 'user' %}\n[{{ m.content }}]\n    {% endif %}\n{% endfor %}\n").unwrap();
        assert_eq!(t.render(&[("user", "a"), ("assistant", "b"), ("user", "c")], false).unwrap(), "[a]\n[c]\n");
        // raise_exception reports the template's own message.
        let t = ChatTemplate::new(
            "{% if messages[0]['role'] != 'user' %}{{ raise_exception('Conversations must start with the user') }}{% endif %}ok",
        )
        .unwrap();
        assert_eq!(t.render(&[("user", "a")], false).unwrap(), "ok");
        let e = t.render(&[("assistant", "a")], false).unwrap_err().to_string();
        assert!(e.contains("Conversations must start with the user"), "{e}");
        // No HTML escaping of the content.
        let t = ChatTemplate::chatml();
        assert!(t.render(&[("user", "<b>&\"'</b>")], false).unwrap().contains("<b>&\"'</b>"));
    }

    #[test]
    fn a_broken_template_is_an_error_not_a_panic() {
        let e = ChatTemplate::new("{% for m in messages %}{{ m.content }}").unwrap_err().to_string();
        assert!(e.contains("does not parse"), "{e}");
    }
}
