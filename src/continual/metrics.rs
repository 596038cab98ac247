//! Continual-learning metrics from the accuracy matrix (Lopez-Paz & Ranzato,
//! GEM, arXiv:1706.08840). `R[i][j]` is the accuracy on task j after training
//! tasks 0..=i, for T tasks; `b[j]` is the accuracy of the untrained model.
//!
//! ```text
//! AA  = (1/T)     Σ_j      R[T−1][j]
//! BWT = (1/(T−1)) Σ_{j<T−1} R[T−1][j] − R[j][j]      (negative = forgetting)
//! FWT = (1/(T−1)) Σ_{j≥1}   R[j−1][j] − b[j]         (zero-shot help from earlier tasks)
//! ```
//!
//! ```
//! use agentlab::continual::AccuracyMatrix;
//! let r = AccuracyMatrix::new(vec![vec![0.9, 0.1], vec![0.4, 0.95]]);
//! assert!((r.average_accuracy() - 0.675).abs() < 1e-12);
//! assert!((r.backward_transfer() + 0.5).abs() < 1e-12);
//! ```

#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct AccuracyMatrix {
    pub r: Vec<Vec<f64>>,
}

impl AccuracyMatrix {
    /// A square matrix, row i after training task i.
    pub fn new(r: Vec<Vec<f64>>) -> AccuracyMatrix {
        let t = r.len();
        assert!(r.iter().all(|row| row.len() == t), "the accuracy matrix must be T×T");
        AccuracyMatrix { r }
    }

    pub fn tasks(&self) -> usize {
        self.r.len()
    }

    pub fn average_accuracy(&self) -> f64 {
        let t = self.tasks();
        if t == 0 {
            return 0.0;
        }
        self.r[t - 1].iter().sum::<f64>() / t as f64
    }

    pub fn backward_transfer(&self) -> f64 {
        let t = self.tasks();
        if t < 2 {
            return 0.0;
        }
        (0..t - 1).map(|j| self.r[t - 1][j] - self.r[j][j]).sum::<f64>() / (t - 1) as f64
    }

    pub fn forward_transfer(&self, baseline: &[f64]) -> f64 {
        let t = self.tasks();
        if t < 2 {
            return 0.0;
        }
        (1..t).map(|j| self.r[j - 1][j] - baseline[j]).sum::<f64>() / (t - 1) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_task_example_by_hand() {
        let r = AccuracyMatrix::new(vec![vec![0.8, 0.1, 0.2], vec![0.5, 0.9, 0.3], vec![0.4, 0.6, 0.7]]);
        assert!((r.average_accuracy() - (0.4 + 0.6 + 0.7) / 3.0).abs() < 1e-12);
        assert!((r.backward_transfer() - ((0.4 - 0.8) + (0.6 - 0.9)) / 2.0).abs() < 1e-12);
        assert!((r.forward_transfer(&[0.0, 0.1, 0.1]) - ((0.1 - 0.1) + (0.3 - 0.1)) / 2.0).abs() < 1e-12);
    }
}
