//! Recomputing numeric quiz answers with the lab's own code.
//!
//! A numeric item may carry a `[item.check]` table naming a function and its
//! arguments. The value is computed here by calling the same `rl`,
//! `continual`, `eval` and `ml` functions the drills train with, so the
//! content and the code cannot disagree silently: a test recomputes every
//! checked item and compares it with the item's `value ± tolerance`.

use std::collections::BTreeMap;

use candle_core::{Device, Tensor, Var};

use crate::continual::merge::{task_arithmetic, ties_merge};
use crate::continual::{ewc_penalty, AccuracyMatrix, Fisher};
use crate::eval::{pass_at_k, pass_hat_k};
use crate::rl::advantage::{group_advantages, rloo_advantages, GroupNorm};
use crate::rl::dpo::{dpo_loss, grad_weight, DpoOut, DpoVariant};
use crate::rl::gae::gae;
use crate::rl::grpo::{grpo_loss, GrpoVariant};
use crate::rl::kl::kl_k3;
use crate::rl::ppo::clip_objective;
use crate::rl::returns::discounted_returns;

/// Names a `check` table may use (documented in the README's content section).
pub const FUNCTIONS: &[&str] = &[
    "discounted_return",
    "gae_advantage",
    "group_advantage",
    "rloo_advantage",
    "pass_at_k",
    "pass_hat_k",
    "dpo_loss",
    "dpo_grad_weight",
    "bradley_terry",
    "kl_bon",
    "best_of_n",
    "info_nce",
    "ppo_clip_objective",
    "kl_k3",
    "grpo_token_weight",
    "ewc_penalty",
    "average_accuracy",
    "backward_transfer",
    "forward_transfer",
    "lora_params",
    "kv_cache_bytes",
    "entropy",
    "task_arithmetic",
    "ties_merge",
];

struct Args<'a>(&'a toml::Table);

impl Args<'_> {
    fn f(&self, k: &str) -> Result<f64, String> {
        match self.0.get(k) {
            Some(toml::Value::Float(x)) => Ok(*x),
            Some(toml::Value::Integer(i)) => Ok(*i as f64),
            Some(v) => Err(format!("argument `{k}` should be a number, got {v}")),
            None => Err(format!("missing argument `{k}`")),
        }
    }

    fn u(&self, k: &str) -> Result<usize, String> {
        match self.0.get(k) {
            Some(toml::Value::Integer(i)) if *i >= 0 => Ok(*i as usize),
            Some(v) => Err(format!("argument `{k}` should be a non-negative integer, got {v}")),
            None => Err(format!("missing argument `{k}`")),
        }
    }

    fn list(&self, k: &str) -> Result<Vec<f64>, String> {
        match self.0.get(k) {
            Some(toml::Value::Array(a)) => a
                .iter()
                .map(|v| match v {
                    toml::Value::Float(x) => Ok(*x),
                    toml::Value::Integer(i) => Ok(*i as f64),
                    _ => Err(format!("`{k}` must be a list of numbers")),
                })
                .collect(),
            Some(_) => Err(format!("`{k}` must be a list of numbers")),
            None => Err(format!("missing argument `{k}`")),
        }
    }

    fn f32s(&self, k: &str) -> Result<Vec<f32>, String> {
        Ok(self.list(k)?.into_iter().map(|x| x as f32).collect())
    }

    fn matrix(&self, k: &str) -> Result<Vec<Vec<f64>>, String> {
        match self.0.get(k) {
            Some(toml::Value::Array(rows)) => rows
                .iter()
                .map(|r| match r {
                    toml::Value::Array(_) => {
                        Args(&toml::Table::from_iter([("row".to_string(), r.clone())])).list("row")
                    }
                    _ => Err(format!("`{k}` must be a list of rows")),
                })
                .collect(),
            _ => Err(format!("missing or malformed matrix `{k}`")),
        }
    }

    fn index(&self, len: usize) -> Result<usize, String> {
        let i = self.u("index")?;
        if i >= len {
            return Err(format!("index {i} is out of range for {len} values"));
        }
        Ok(i)
    }
}

fn scalar(x: f32) -> Result<Tensor, String> {
    Tensor::new(&[x], &Device::Cpu).map_err(|e| e.to_string())
}

fn too_large() -> String {
    "the arguments are too large: the result does not fit in 64 bits".into()
}

/// `dpo_loss` on one pair given as the four summed log-probs and β.
fn dpo_pair(a: &Args, variant: DpoVariant) -> Result<DpoOut, String> {
    let t = |k: &str| -> Result<Tensor, String> { scalar(a.f(k)? as f32) };
    let beta = a.f("beta")?;
    if !(beta > 0.0 && beta.is_finite()) {
        return Err(format!("beta must be a positive number, got {beta}"));
    }
    dpo_loss(&t("policy_chosen")?, &t("policy_rejected")?, &t("ref_chosen")?, &t("ref_rejected")?, beta, variant)
        .map_err(|e| e.to_string())
}

/// Compute the value a `check` table describes.
pub fn compute(check: &toml::Table) -> Result<f64, String> {
    let name = match check.get("fn") {
        Some(toml::Value::String(s)) => s.as_str(),
        _ => return Err("check table without a `fn` name".into()),
    };
    let a = Args(check);
    let err = |e: candle_core::Error| e.to_string();
    match name {
        "discounted_return" => {
            let r = a.f32s("rewards")?;
            let g = discounted_returns(&r, a.f("gamma")? as f32);
            Ok(g[a.index(g.len())?] as f64)
        }
        "gae_advantage" => {
            let r = a.f32s("rewards")?;
            let v = a.f32s("values")?;
            if v.len() != r.len() {
                return Err("`values` and `rewards` differ in length".into());
            }
            let out = gae(
                &r,
                &v,
                &vec![false; r.len()],
                a.f("last_value")? as f32,
                a.f("gamma")? as f32,
                a.f("lambda")? as f32,
            );
            Ok(out.advantages[a.index(r.len())?] as f64)
        }
        "group_advantage" => {
            let r = a.f32s("rewards")?;
            let norm = match check.get("norm").and_then(|v| v.as_str()) {
                Some("mean_std") | None => GroupNorm::MeanStd,
                Some("mean_only") => GroupNorm::MeanOnly,
                Some(other) => return Err(format!("unknown norm \"{other}\" (mean_std or mean_only)")),
            };
            let adv = group_advantages(&r, norm);
            Ok(adv[a.index(adv.len())?] as f64)
        }
        "rloo_advantage" => {
            let adv = rloo_advantages(&a.f32s("rewards")?);
            Ok(adv[a.index(adv.len())?] as f64)
        }
        "pass_at_k" | "pass_hat_k" => {
            let (n, c, k) = (a.u("n")?, a.u("c")?, a.u("k")?);
            if c > n || k > n || k == 0 {
                return Err("need 1 ≤ k ≤ n and c ≤ n".into());
            }
            // The estimators loop over the samples: keep a typo from hanging `validate`.
            if n > 1_000_000 {
                return Err(format!("n = {n} samples is more than this check computes (at most 1000000)"));
            }
            Ok(if name == "pass_at_k" { pass_at_k(n, c, k) } else { pass_hat_k(n, c, k) })
        }
        "dpo_loss" => {
            // `variant = "ipo"` for IPO's squared loss (β in the role of τ); DPO's sigmoid by default.
            let variant = match check.get("variant").and_then(|v| v.as_str()) {
                Some("sigmoid") | None => DpoVariant::Sigmoid,
                Some("ipo") => DpoVariant::Ipo,
                Some(other) => return Err(format!("unknown variant \"{other}\" (sigmoid or ipo)")),
            };
            let out = dpo_pair(&a, variant)?;
            Ok(out.loss.to_scalar::<f32>().map_err(err)? as f64)
        }
        "dpo_grad_weight" => {
            // σ(−h): the pair's weight in the DPO gradient at these log-probs.
            let out = dpo_pair(&a, DpoVariant::Sigmoid)?;
            Ok(grad_weight(out.margins()[0] as f64))
        }
        "bradley_terry" => {
            // P(chosen ≻ rejected) = σ(r_c − r_r) = exp(−(−log σ(Δ))).
            let delta = scalar((a.f("r_chosen")? - a.f("r_rejected")?) as f32)?;
            let nls = crate::rl::dpo::neg_log_sigmoid(&delta).map_err(err)?.to_vec1::<f32>().map_err(err)?[0];
            Ok((-(nls as f64)).exp())
        }
        "kl_bon" => Ok(crate::rl::reward_model::kl_bon(a.u("n")?)),
        "info_nce" => {
            // One query row: logsumexp(sims/τ) − sims[positive]/τ.
            let sims = a.list("sims")?;
            let pos = a.u("positive")?;
            if pos >= sims.len() {
                return Err(format!("info_nce needs positive < the number of sims ({})", sims.len()));
            }
            Ok(crate::rl::info_nce::info_nce_one(&sims, pos, a.f("tau")?))
        }
        "best_of_n" => {
            // The expected `value` of the highest-`proxy` sample among n drawn without replacement.
            let (proxy, value) = (a.list("proxy")?, a.list("value")?);
            let n = a.u("n")?;
            if proxy.len() != value.len() || n == 0 || n > proxy.len() {
                return Err(format!("best_of_n needs proxy and value of one length ≥ n ≥ 1 (n = {n})"));
            }
            Ok(crate::rl::reward_model::best_of_n_curve(&proxy, &value)[n - 1])
        }
        "ppo_clip_objective" => Ok(clip_objective(a.f("ratio")?, a.f("advantage")?, a.f("eps")?)),
        "kl_k3" => {
            let k = kl_k3(&scalar(a.f("logp")? as f32)?, &scalar(a.f("ref_logp")? as f32)?).map_err(err)?;
            Ok(k.to_vec1::<f32>().map_err(err)?[0] as f64)
        }
        "grpo_token_weight" => {
            // The weight the GRPO objective puts on log π of one token of
            // completion `index`: −∂loss/∂log π, through the drill's own loss
            // at π = π_old = π_ref (ratio 1, KL 0).
            let r = a.f32s("rewards")?;
            let lens: Vec<usize> = a.list("lengths")?.iter().map(|x| x.max(0.0) as usize).collect();
            if lens.len() != r.len() || r.len() < 2 {
                return Err("`rewards` and `lengths` need one entry per completion, at least two".into());
            }
            let max_len = a.u("max_len")?;
            if lens.iter().any(|&l| l == 0 || l > max_len) || max_len > 4096 {
                return Err("every length must be between 1 and max_len (at most 4096)".into());
            }
            let variant = match check.get("variant").and_then(|v| v.as_str()) {
                Some("grpo") | None => GrpoVariant::Grpo,
                Some("dr_grpo") => GrpoVariant::DrGrpo,
                Some(other) => return Err(format!("unknown variant \"{other}\" (grpo or dr_grpo)")),
            };
            let i = a.index(r.len())?;
            let (g, d) = (r.len(), Device::Cpu);
            let adv = variant.advantages(&r);
            let rows = |f: &dyn Fn(usize, usize) -> f32| -> Vec<f32> {
                (0..g).flat_map(|b| (0..max_len).map(move |t| f(b, t))).collect()
            };
            let t = |v: Vec<f32>| Tensor::from_vec(v, (g, max_len), &d).map_err(err);
            let lp = Var::from_tensor(&t(vec![-1.0; g * max_len])?).map_err(err)?;
            let (adv_t, mask) = (t(rows(&|b, _| adv[b]))?, t(rows(&|b, s| f32::from(u8::from(s < lens[b]))))?);
            let same = lp.as_tensor().detach();
            let out =
                grpo_loss(lp.as_tensor(), &same, &same, &adv_t, &mask, variant, 0.2, 0.0, max_len).map_err(err)?;
            let grad = out.loss.backward().map_err(err)?;
            let gl = grad.get(lp.as_tensor()).ok_or("no gradient")?.to_vec2::<f32>().map_err(err)?;
            Ok(-(gl[i][0] as f64))
        }
        "ewc_penalty" => {
            let f = a.f32s("fisher")?;
            let th = a.f32s("theta")?;
            let st = a.f32s("theta_star")?;
            if f.len() != th.len() || th.len() != st.len() {
                return Err("fisher, theta and theta_star must have one length".into());
            }
            let d = Device::Cpu;
            let n = f.len();
            let var = Var::from_vec(th, n, &d).map_err(err)?;
            let vars = BTreeMap::from([("p".to_string(), var)]);
            let fisher = Fisher {
                diag: BTreeMap::from([("p".to_string(), Tensor::from_vec(f, n, &d).map_err(err)?)]),
                samples: 1,
            };
            let anchor = BTreeMap::from([("p".to_string(), Tensor::from_vec(st, n, &d).map_err(err)?)]);
            Ok(ewc_penalty(&vars, &fisher, &anchor, a.f("lambda")?).map_err(err)?.to_scalar::<f32>().map_err(err)?
                as f64)
        }
        "average_accuracy" | "backward_transfer" | "forward_transfer" => {
            let m = a.matrix("matrix")?;
            if m.is_empty() || m.iter().any(|r| r.len() != m.len()) {
                return Err("`matrix` must be square (T rows of T accuracies)".into());
            }
            let am = AccuracyMatrix::new(m);
            Ok(match name {
                "average_accuracy" => am.average_accuracy(),
                "backward_transfer" => am.backward_transfer(),
                _ => {
                    let b = a.list("baseline")?;
                    if b.len() != am.tasks() {
                        return Err("`baseline` needs one accuracy per task".into());
                    }
                    am.forward_transfer(&b)
                }
            })
        }
        "lora_params" => {
            let (r, d_in, d_out) = (a.u("rank")?, a.u("d_in")?, a.u("d_out")?);
            d_in.checked_add(d_out).and_then(|d| d.checked_mul(r)).map(|p| p as f64).ok_or_else(too_large)
        }
        "kv_cache_bytes" => {
            let dims = ["layers", "kv_heads", "head_dim", "seq_len", "batch", "bytes_per_elem"];
            let v: Vec<usize> = dims.iter().map(|k| a.u(k)).collect::<Result<_, _>>()?;
            // The same product as the function, checked first.
            v.iter().try_fold(2usize, |acc, x| acc.checked_mul(*x)).ok_or_else(too_large)?;
            Ok(crate::ml::gpt::kv_cache_bytes(v[0], v[1], v[2], v[3], v[4], v[5]) as f64)
        }
        "entropy" => {
            let p = a.list("probs")?;
            let s: f64 = p.iter().sum();
            if (s - 1.0).abs() > 1e-6 || p.iter().any(|x| *x < 0.0) {
                return Err("`probs` must be a probability distribution".into());
            }
            // Through the same function the drills chart: logits = ln p.
            let logits: Vec<f32> = p.iter().map(|x| if *x > 0.0 { x.ln() as f32 } else { -1e30 }).collect();
            let t = Tensor::new(logits.as_slice(), &Device::Cpu).map_err(err)?;
            Ok(crate::rl::entropy::entropy_from_logits(&t).map_err(err)?.to_scalar::<f32>().map_err(err)? as f64)
        }
        "task_arithmetic" | "ties_merge" => {
            // θ₀ + λ·Σ τᵢ, or θ₀ + λ·ties(τ, keep); one entry of the result.
            let base = a.f32s("base")?;
            let taus: Vec<Vec<f32>> =
                a.matrix("task_vectors")?.into_iter().map(|r| r.into_iter().map(|x| x as f32).collect()).collect();
            if taus.is_empty() || taus.iter().any(|t| t.len() != base.len()) {
                return Err("`task_vectors` must be rows as long as `base`".into());
            }
            let refs: Vec<&[f32]> = taus.iter().map(|t| t.as_slice()).collect();
            let lambda = a.f("lambda")? as f32;
            let merged = if name == "task_arithmetic" {
                task_arithmetic(&base, &refs, lambda)
            } else {
                let keep = a.f("keep")?;
                if !(0.0..=1.0).contains(&keep) {
                    return Err("`keep` is a fraction in [0, 1]".into());
                }
                ties_merge(&base, &refs, keep, lambda)
            };
            Ok(merged[a.index(merged.len())?] as f64)
        }
        other => Err(format!("unknown check function \"{other}\"")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(s: &str) -> f64 {
        compute(&toml::from_str::<toml::Table>(s).unwrap()).unwrap()
    }

    #[test]
    fn known_values() {
        assert!((check("fn='group_advantage'\nrewards=[1,0,0,1]\nindex=0") - 1.0).abs() < 1e-4);
        assert!((check("fn='rloo_advantage'\nrewards=[1,2,3]\nindex=0") + 1.5).abs() < 1e-6);
        assert!((check("fn='pass_at_k'\nn=10\nc=3\nk=1") - 0.3).abs() < 1e-12);
        assert!(
            (check("fn='dpo_loss'\npolicy_chosen=-4\npolicy_rejected=-7\nref_chosen=-5\nref_rejected=-6\nbeta=0.5")
                - 0.31326)
                .abs()
                < 1e-4
        );
        let pair = "policy_chosen=-12\npolicy_rejected=-15\nref_chosen=-13\nref_rejected=-14";
        assert!((check(&format!("fn='dpo_grad_weight'\n{pair}\nbeta=0.1")) - 0.450_166).abs() < 1e-5);
        // IPO with β = 0.5: (2 − 1/(2·0.5))² = 1 for log-ratio margin 2.
        assert!((check(&format!("fn='dpo_loss'\nvariant='ipo'\n{pair}\nbeta=0.5")) - 1.0).abs() < 1e-5);
        assert!((check("fn='bradley_terry'\nr_chosen=1.0\nr_rejected=0.0") - 0.731_058_6).abs() < 1e-6);
        assert!((check("fn='lora_params'\nd_in=4096\nd_out=4096\nrank=8") - 65536.0).abs() < 1e-9);
        assert!((check("fn='entropy'\nprobs=[0.5,0.5]") - std::f64::consts::LN_2).abs() < 1e-6);
        // GRPO: Â = −1/√3 spread over 12 tokens of a group of 4; Dr. GRPO: Â = −0.25 over G·L = 64.
        let g = "fn='grpo_token_weight'\nrewards=[1,0,0,0]\nlengths=[4,4,12,4]\nmax_len=16\nindex=2";
        assert!((check(g) + 1.0 / (3f64.sqrt() * 48.0)).abs() < 1e-5, "{}", check(g));
        assert!((check(&format!("{g}\nvariant='dr_grpo'")) + 0.25 / 64.0).abs() < 1e-6);
        let ties = "fn='ties_merge'\nbase=[1,1,1,1]\ntask_vectors=[[0.5,-0.1,0.3,0],[-0.2,0.4,0.35,-0.05],[0.1,-0.6,-0.25,0.2]]\nkeep=0.5\nlambda=1\nindex=2";
        assert!((check(ties) - 1.325).abs() < 1e-6);
        let ta = "fn='task_arithmetic'\nbase=[2.0]\ntask_vectors=[[0.4],[-0.1]]\nlambda=0.5\nindex=0";
        assert!((check(ta) - 2.15).abs() < 1e-6);
        assert!(
            (check("fn='kv_cache_bytes'\nlayers=2\nkv_heads=2\nhead_dim=4\nseq_len=10\nbatch=3\nbytes_per_elem=2")
                - 1920.0)
                .abs()
                < 1e-9
        );
    }

    #[test]
    fn errors_are_clear() {
        let e = compute(&toml::from_str::<toml::Table>("fn='nope'").unwrap()).unwrap_err();
        assert!(e.contains("unknown check function"));
        let e = compute(&toml::from_str::<toml::Table>("fn='rloo_advantage'\nrewards=[1,2]\nindex=5").unwrap())
            .unwrap_err();
        assert!(e.contains("out of range"));
        let e = compute(
            &toml::from_str::<toml::Table>(
                "fn='dpo_loss'\nvariant='kto'\npolicy_chosen=0\npolicy_rejected=0\nref_chosen=0\nref_rejected=0\nbeta=1",
            )
            .unwrap(),
        )
        .unwrap_err();
        assert!(e.contains("unknown variant"));
    }
}
