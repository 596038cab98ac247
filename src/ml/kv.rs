//! The K/V cache of the composed models (the tiny [`Gpt`](super::gpt::Gpt)
//! and [`Llama`](super::llama::Llama)): for every layer, the keys and values
//! of the positions read so far, `[B, kv_heads, S, head_dim]` (for Llama,
//! before grouped heads are repeated). Reading `t` new positions appends
//! them along `S`, so a new token costs one position of attention instead
//! of a re-run of the prompt.
//!
//! (The fused CPU decoder, `fused::decode`, keeps the same keys and values
//! in preallocated flat buffers instead of tensors.)

use candle_core::{Result, Tensor};

#[derive(Debug, Clone, Default)]
pub struct KvCache {
    /// Per layer: keys and values, `None` until the layer has read a position.
    pub layers: Vec<Option<(Tensor, Tensor)>>,
    /// The rows of the batch this cache was started for, when finished rows
    /// have left it (0: the rows it holds). The fused decoder then computes
    /// its products as that batch would, so a row's bits do not depend on
    /// which rows are left ([`crate::ml::fused::linalg::matmul_as`]).
    pub batch: usize,
}

impl KvCache {
    pub fn new(n_layers: usize) -> KvCache {
        KvCache { layers: vec![None; n_layers], batch: 0 }
    }

    /// Positions held.
    pub fn len(&self) -> usize {
        self.layers.first().and_then(|l| l.as_ref()).map_or(0, |(k, _)| k.dim(2).unwrap_or(0))
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes the cache tensors hold: keys and values of every layer.
    pub fn bytes(&self) -> usize {
        self.layers.iter().flatten().map(|(k, v)| (k.elem_count() + v.elem_count()) * k.dtype().size_in_bytes()).sum()
    }

    /// Append the new positions' keys and values `[B, heads, t, hd]` to
    /// `layer` (the cache grows to hold it) and return the layer's keys and
    /// values of every position so far.
    pub fn append(&mut self, layer: usize, k: Tensor, v: Tensor) -> Result<(Tensor, Tensor)> {
        if self.layers.len() <= layer {
            self.layers.resize(layer + 1, None);
        }
        let slot = &mut self.layers[layer];
        let (k, v) = match slot.as_ref() {
            Some((pk, pv)) => (Tensor::cat(&[pk, &k], 2)?, Tensor::cat(&[pv, &v], 2)?),
            None => (k, v),
        };
        *slot = Some((k.clone(), v.clone()));
        Ok((k, v))
    }

    /// The cache of batch rows `rows` (in the order given; a row may repeat).
    pub fn rows(&self, rows: &[usize]) -> Result<KvCache> {
        let Some((first, _)) = self.layers.iter().flatten().next() else {
            return Ok(self.clone());
        };
        let rows = Tensor::new(rows.iter().map(|&r| r as u32).collect::<Vec<_>>(), first.device())?;
        let pick = |(k, v): &(Tensor, Tensor)| -> Result<(Tensor, Tensor)> {
            Ok((k.contiguous()?.index_select(&rows, 0)?, v.contiguous()?.index_select(&rows, 0)?))
        };
        let layers = self.layers.iter().map(|l| l.as_ref().map(pick).transpose()).collect::<Result<_>>()?;
        Ok(KvCache { layers, batch: self.batch })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::{DType, Device};

    #[test]
    fn bytes_count_keys_and_values() {
        let mut c = KvCache::new(2);
        let kv = || Tensor::zeros((1, 2, 3, 4), DType::F32, &Device::Cpu).unwrap();
        c.append(0, kv(), kv()).unwrap();
        assert_eq!((c.len(), c.bytes()), (3, 2 * 24 * 4));
        c.append(1, kv(), kv()).unwrap();
        c.append(0, kv(), kv()).unwrap();
        assert_eq!((c.len(), c.bytes()), (6, (48 + 24) * 2 * 4));
    }

    #[test]
    fn rows_pick_and_repeat_batch_rows() {
        let mut c = KvCache::new(1);
        let k = Tensor::arange(0f32, 6.0, &Device::Cpu).unwrap().reshape((3, 1, 2, 1)).unwrap();
        c.append(0, k.clone(), (k * 10.0).unwrap()).unwrap();
        c.batch = 3;
        let r = c.rows(&[2, 0, 2]).unwrap();
        assert_eq!(r.batch, 3, "the batch it was started for stays");
        let (k, v) = r.layers[0].as_ref().unwrap();
        assert_eq!(k.flatten_all().unwrap().to_vec1::<f32>().unwrap(), [4.0, 5.0, 0.0, 1.0, 4.0, 5.0]);
        assert_eq!(v.flatten_all().unwrap().to_vec1::<f32>().unwrap(), [40.0, 50.0, 0.0, 10.0, 40.0, 50.0]);
        assert_eq!(r.len(), 2);
    }
}
