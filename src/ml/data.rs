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

    /// `prompt` then `answer`: the loss covers the answer only (the prompt is
    /// label-masked).
    pub fn completion(prompt: Vec<u32>, answer: &[u32]) -> Example {
        let train = (0..prompt.len() + answer.len()).map(|i| i >= prompt.len()).collect();
        let mut tokens = prompt;
        tokens.extend(answer);
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

/// Batches of similar lengths: a batch is padded to its longest example, so
/// mixing a 40-token and a 150-token example wastes most of the short row.
/// Examples are sorted by length once; a batch is a random window of that
/// order (a random start, then the next `b`), so lengths in a batch are close
/// while every example stays equally likely over many batches.
#[derive(Debug, Clone)]
pub struct LengthBuckets {
    order: Vec<usize>,
}

impl LengthBuckets {
    pub fn new(examples: &[Example]) -> LengthBuckets {
        let mut order: Vec<usize> = (0..examples.len()).collect();
        order.sort_by_key(|&i| examples[i].len());
        LengthBuckets { order }
    }

    /// Indices of one batch of `b` examples.
    pub fn sample(&self, b: usize, rng: &mut super::rng::Rng) -> Vec<usize> {
        let n = self.order.len();
        if n == 0 {
            return Vec::new();
        }
        let b = b.min(n);
        let start = rng.below(n - b + 1);
        self.order[start..start + b].to_vec()
    }
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
        let c = Example::completion(vec![5], &[6, 7]);
        assert_eq!((c.tokens, c.train), (a.tokens, a.train));
    }

    #[test]
    fn buckets_group_similar_lengths() {
        let ex: Vec<Example> = (0..100).map(|i| Example::all_trained(vec![1; 1 + (i * 37) % 100])).collect();
        let buckets = LengthBuckets::new(&ex);
        let mut rng = super::super::rng::Rng::new(1);
        for _ in 0..20 {
            let idx = buckets.sample(8, &mut rng);
            let lens: Vec<usize> = idx.iter().map(|&i| ex[i].len()).collect();
            assert_eq!(lens.len(), 8);
            assert!(lens.iter().max().unwrap() - lens.iter().min().unwrap() <= 8, "{lens:?}");
        }
    }
}
