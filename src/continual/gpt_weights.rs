//! A GPT's weights as one flat vector ([`FlatWeights`]) and back, and the
//! permutation symmetry that makes two models of the same function
//! impossible to merge entry by entry.
//!
//! Permuting the hidden units of an MLP (rows of its first layer, columns of
//! its second) or the heads of an attention layer (rows of q, k and v,
//! columns of the output projection) leaves the function unchanged: the
//! next layer undoes the permutation. Weight i of the permuted model is
//! then not weight i of the original, and averaging the two averages
//! unrelated weights.

use anyhow::{anyhow, Result};
use candle_core::Tensor;

use super::merge::FlatWeights;
use crate::ml::gpt::Gpt;
use crate::ml::rng::Rng;

/// A model's weights, flattened in name order.
pub fn flatten(model: &Gpt) -> Result<FlatWeights> {
    let named: Vec<(String, Vec<f32>)> = model
        .vars()
        .into_iter()
        .map(|(k, v)| Ok((k, v.as_tensor().flatten_all()?.to_vec1::<f32>()?)))
        .collect::<Result<_>>()?;
    Ok(FlatWeights::new(named))
}

/// A copy of `like` holding the weights `w`.
pub fn model_from(like: &Gpt, w: &FlatWeights, seed: u64) -> Result<Gpt> {
    let m = like.fork(seed)?;
    for (name, var) in m.vars() {
        let (_, off, len) =
            w.layout.iter().find(|(n, ..)| *n == name).ok_or_else(|| anyhow!("no weights for {name}"))?;
        let t = Tensor::from_slice(&w.data[*off..off + len], var.shape(), &m.device)?;
        var.set(&t)?;
    }
    Ok(m)
}

/// Rows of a `[rows, cols]` matrix reordered: new row i = old row perm[i].
pub fn permute_rows(w: &[f32], cols: usize, perm: &[usize]) -> Vec<f32> {
    perm.iter().flat_map(|&r| w[r * cols..(r + 1) * cols].iter().copied()).collect()
}

/// Columns of a `[rows, cols]` matrix reordered: new column j = old column perm[j].
pub fn permute_cols(w: &[f32], cols: usize, perm: &[usize]) -> Vec<f32> {
    w.chunks(cols).flat_map(|row| perm.iter().map(move |&c| row[c])).collect()
}

/// The weights `w` of `model` with every MLP's hidden units and every
/// attention layer's heads permuted at random: it computes exactly the same
/// function (the permutation is undone by the next layer), but weight i of
/// this model is not weight i of the original. GELU MLPs only.
pub fn permuted(w: &FlatWeights, model: &Gpt, rng: &mut Rng) -> Result<FlatWeights> {
    let cfg = &model.cfg;
    let (d, h, nh, hd) = (cfg.d_model, cfg.mlp_hidden(), cfg.n_heads, cfg.head_dim());
    let get = |name: &str| -> Result<Vec<f32>> {
        Ok(w.tensor(name).ok_or_else(|| anyhow!("the base has no {name}"))?.to_vec())
    };
    let mut named: Vec<(String, Vec<f32>)> = Vec::new();
    for l in 0..cfg.n_layers {
        let n = |s: &str| format!("blocks.{l}.{s}");
        let mut units: Vec<usize> = (0..h).collect();
        rng.shuffle(&mut units);
        named.push((n("mlp.fc.weight"), permute_rows(&get(&n("mlp.fc.weight"))?, d, &units)));
        named.push((n("mlp.fc.bias"), permute_rows(&get(&n("mlp.fc.bias"))?, 1, &units)));
        named.push((n("mlp.proj.weight"), permute_cols(&get(&n("mlp.proj.weight"))?, h, &units)));
        // Heads: the same head order for q, k and v, undone by the output projection.
        let mut heads: Vec<usize> = (0..nh).collect();
        rng.shuffle(&mut heads);
        let within: Vec<usize> = heads.iter().flat_map(|&g| g * hd..(g + 1) * hd).collect();
        let qkv_rows: Vec<usize> = (0..3).flat_map(|part| within.iter().map(move |&r| part * d + r)).collect();
        named.push((n("attn.qkv.weight"), permute_rows(&get(&n("attn.qkv.weight"))?, d, &qkv_rows)));
        named.push((n("attn.qkv.bias"), permute_rows(&get(&n("attn.qkv.bias"))?, 1, &qkv_rows)));
        named.push((n("attn.proj.weight"), permute_cols(&get(&n("attn.proj.weight"))?, d, &within)));
    }
    let mut out = w.clone();
    for (name, v) in named {
        let (_, off, len) = out.layout.iter().find(|(n, ..)| *n == name).cloned().expect("a name from the layout");
        out.data[off..off + len].copy_from_slice(&v);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ml::gpt::GptConfig;
    use candle_core::Device;

    #[test]
    fn rows_and_columns_permute_by_hand() {
        // [[1, 2, 3], [4, 5, 6]]
        let w = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
        assert_eq!(permute_rows(&w, 3, &[1, 0]), vec![4.0, 5.0, 6.0, 1.0, 2.0, 3.0]);
        assert_eq!(permute_cols(&w, 3, &[2, 0, 1]), vec![3.0, 1.0, 2.0, 6.0, 4.0, 5.0]);
    }

    #[test]
    fn a_permuted_model_computes_the_same_function_with_other_weights() {
        let model = Gpt::new(GptConfig::new(11, 8, 2, 2, 8), 3, &Device::Cpu).unwrap();
        let w = flatten(&model).unwrap();
        assert_eq!(flatten(&model_from(&model, &w, 1).unwrap()).unwrap(), w);
        let p = permuted(&w, &model, &mut Rng::new(5)).unwrap();
        assert!(p.same_layout(&w) && p.data != w.data);
        let x = Tensor::new(&[[1u32, 4, 2, 9, 0]], &Device::Cpu).unwrap();
        let logits = |m: &Gpt| m.forward(&x).unwrap().flatten_all().unwrap().to_vec1::<f32>().unwrap();
        let (a, b) = (logits(&model), logits(&model_from(&model, &p, 1).unwrap()));
        assert!(a.iter().zip(&b).all(|(x, y)| (x - y).abs() < 1e-4), "{a:?} vs {b:?}");
    }
}
