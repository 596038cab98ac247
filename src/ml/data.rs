//! Turning token sequences into training batches.
//!
//! An [`Example`] is a token sequence with a per-token flag saying whether the
//! model is trained to produce that token. Batches are right-padded; labels
//! are the next token where its flag is set, −100 elsewhere (so prompt,
//! padding and environment tokens contribute nothing to the loss).

use candle_core::{Device, Result, Tensor};

use super::loss::next_token_labels;
use super::tokenizer::PAD;

#[derive(Debug, Clone, PartialEq)]
pub struct Example {
    pub tokens: Vec<u32>,
    /// `train[t]`: the loss includes predicting `tokens[t]` (from position t−1).
    pub train: Vec<bool>,
}

impl Example {
    pub fn new(tokens: Vec<u32>, train: Vec<bool>) -> Example {
        assert_eq!(tokens.len(), train.len(), "one train flag per token");
        Example { tokens, train }
    }

    /// Every token trained except the first (which nothing predicts).
    pub fn all_trained(tokens: Vec<u32>) -> Example {
        let n = tokens.len();
        Example { tokens, train: vec![true; n] }
    }

    pub fn len(&self) -> usize {
        self.tokens.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tokens.is_empty()
    }

    /// Number of tokens the loss counts.
    pub fn trained_tokens(&self) -> usize {
        self.train.iter().skip(1).filter(|t| **t).count()
    }
}

/// `(inputs [B,T] u32, labels [B,T] i64)` for a batch, `T` = longest example.
pub fn batch(examples: &[&Example], device: &Device) -> Result<(Tensor, Tensor)> {
    let t = examples.iter().map(|e| e.len()).max().unwrap_or(1).max(1);
    let mut x = Vec::with_capacity(examples.len() * t);
    for e in examples {
        x.extend_from_slice(&e.tokens);
        x.extend(std::iter::repeat_n(PAD, t - e.len()));
    }
    let seqs: Vec<Vec<u32>> = examples.iter().map(|e| e.tokens.clone()).collect();
    let flags: Vec<Vec<bool>> = examples.iter().map(|e| e.train.clone()).collect();
    let y = next_token_labels(&seqs, &flags, t);
    Ok((Tensor::from_vec(x, (examples.len(), t), device)?, Tensor::from_vec(y, (examples.len(), t), device)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pads_and_masks() {
        let a = Example::new(vec![5, 6, 7], vec![false, true, true]);
        let b = Example::new(vec![8, 9], vec![false, false]);
        let (x, y) = batch(&[&a, &b], &Device::Cpu).unwrap();
        assert_eq!(x.to_vec2::<u32>().unwrap(), vec![vec![5, 6, 7], vec![8, 9, PAD]]);
        assert_eq!(y.to_vec2::<i64>().unwrap(), vec![vec![6, 7, -100], vec![-100, -100, -100]]);
        assert_eq!(a.trained_tokens(), 2);
    }
}
