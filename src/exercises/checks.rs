//! The cases each exercise is checked on, and the lab's own implementation
//! that gives the expected answers.
//!
//! Every exercise first runs hand-made edge cases (the ones learners get
//! wrong: an all-equal group, a group of one, a `done` inside a rollout,
//! k > n − c, a huge negative margin, …), then random cases drawn from a
//! fixed seed, so a check is the same every time. The expected value always
//! comes from the Rust code the drills train with (`src/rl`, `src/continual`,
//! `src/eval`, `src/envs`), never from a copy of the formula written here.

use std::collections::BTreeMap;

use candle_core::{Device, Tensor, Var};

use super::script::Value;
use crate::continual::{ewc_penalty, AccuracyMatrix, Fisher};
use crate::envs::kb::FactTable;
use crate::envs::qa_world::{QaConfig, QaSession, QaWorld, Question};
use crate::ml::rng::Rng;
use crate::rl::advantage::{group_advantages, rloo_advantages, GroupNorm, STD_EPS};
use crate::rl::dpo::{dpo_loss, DpoVariant};
use crate::rl::gae::gae;
use crate::rl::kl::kl_k3;
use crate::rl::ppo::clip_objective;
use crate::rl::returns::discounted_returns;

/// What a case must give back.
#[derive(Debug, Clone, PartialEq)]
pub enum Expected {
    Float(f64),
    Floats(Vec<f64>),
}

/// One input to check a function on.
#[derive(Debug, Clone)]
pub struct Case {
    /// "edge: a group of one", "random 7", …
    pub name: String,
    pub args: Vec<Value>,
    pub expected: Expected,
}

fn case(name: impl Into<String>, args: Vec<Value>, expected: Expected) -> Case {
    Case { name: name.into(), args, expected }
}

/// A random number rounded to 3 decimals, so inputs read cleanly in a report.
fn uniform(rng: &mut Rng, lo: f64, hi: f64) -> f64 {
    ((lo + (hi - lo) * rng.f64()) * 1000.0).round() / 1000.0
}

fn uniforms(rng: &mut Rng, n: usize, lo: f64, hi: f64) -> Vec<f64> {
    (0..n).map(|_| uniform(rng, lo, hi)).collect()
}

fn f32s(xs: &[f64]) -> Vec<f32> {
    xs.iter().map(|&x| x as f32).collect()
}

fn f64s(xs: &[f32]) -> Vec<f64> {
    xs.iter().map(|&x| x as f64).collect()
}

/// How many random cases follow the edge cases.
pub const RANDOM_CASES: usize = 40;

// ---------------------------------------------------------------- returns

pub fn discounted_returns_cases() -> Vec<Case> {
    let mk = |name: &str, r: &[f64], gamma: f64| {
        let want = f64s(&discounted_returns(&f32s(r), gamma as f32));
        case(name, vec![Value::floats(r), Value::Float(gamma)], Expected::Floats(want))
    };
    let mut out = vec![
        mk(&crate::t!("exercise-case-ret-last-only"), &[0.0, 0.0, 0.0, 1.0], 0.9),
        mk(&crate::t!("exercise-case-ret-gamma-0"), &[1.0, -2.0, 3.0], 0.0),
        mk(&crate::t!("exercise-case-ret-gamma-1"), &[1.0, -2.0, 3.0], 1.0),
        mk(&crate::t!("exercise-case-one-step"), &[0.5], 0.99),
        mk(&crate::t!("exercise-case-no-steps"), &[], 0.9),
        mk(&crate::t!("exercise-case-ret-search-then-answer"), &[-0.2, -0.2, 1.1], 0.9),
    ];
    let mut rng = Rng::new(0xd15c);
    for i in 0..RANDOM_CASES {
        let n = 1 + rng.below(10);
        let r = uniforms(&mut rng, n, -1.0, 1.0);
        let g = uniform(&mut rng, 0.0, 1.0);
        out.push(mk(&crate::t!("exercise-case-random", n = (i + 1).to_string()), &r, g));
    }
    out
}

pub fn gae_cases() -> Vec<Case> {
    let mk = |name: &str, r: &[f64], v: &[f64], d: &[bool], last: f64, gamma: f64, lambda: f64| {
        let g = gae(&f32s(r), &f32s(v), d, last as f32, gamma as f32, lambda as f32);
        case(
            name,
            vec![
                Value::floats(r),
                Value::floats(v),
                Value::bools(d),
                Value::Float(last),
                Value::Float(gamma),
                Value::Float(lambda),
            ],
            Expected::Floats(f64s(&g.advantages)),
        )
    };
    let (r, v) = ([1.0, 0.0, -0.5, 2.0], [0.3, 0.1, 0.4, -0.2]);
    let mut out = vec![
        mk(&crate::t!("exercise-case-gae-lambda-0"), &r, &v, &[false; 4], 0.7, 0.9, 0.0),
        mk(&crate::t!("exercise-case-gae-lambda-1"), &r, &v, &[false, false, false, true], 5.0, 0.9, 1.0),
        mk(&crate::t!("exercise-case-gae-done-inside"), &r, &v, &[false, true, false, false], 0.5, 0.95, 0.9),
        mk(&crate::t!("exercise-case-gae-done-last"), &r, &v, &[false, false, false, true], 100.0, 0.99, 0.95),
        mk(&crate::t!("exercise-case-gae-not-done"), &r, &v, &[false; 4], 2.0, 0.99, 0.95),
        mk(&crate::t!("exercise-case-one-step"), &[1.0], &[0.5], &[false], 0.25, 0.9, 0.8),
    ];
    let mut rng = Rng::new(0x6ae);
    for i in 0..RANDOM_CASES {
        let n = 1 + rng.below(8);
        let r = uniforms(&mut rng, n, -1.0, 1.0);
        let v = uniforms(&mut rng, n, -1.0, 1.0);
        let d: Vec<bool> = (0..n).map(|_| rng.bool(0.25)).collect();
        let last = uniform(&mut rng, -1.0, 1.0);
        let (gamma, lambda) = (uniform(&mut rng, 0.5, 1.0), uniform(&mut rng, 0.0, 1.0));
        out.push(mk(&crate::t!("exercise-case-random", n = (i + 1).to_string()), &r, &v, &d, last, gamma, lambda));
    }
    out
}

// ------------------------------------------------------------- advantages

/// Rewards of groups: the edge cases every group-baseline function must get right.
fn group_edges() -> Vec<(String, Vec<f64>)> {
    vec![
        (crate::t!("exercise-case-group-of-one"), vec![0.7]),
        (crate::t!("exercise-case-group-all-right"), vec![1.0, 1.0, 1.0, 1.0]),
        (crate::t!("exercise-case-group-all-wrong"), vec![0.0, 0.0, 0.0]),
        (crate::t!("exercise-case-group-one-in-four"), vec![1.0, 0.0, 0.0, 0.0]),
        (crate::t!("exercise-case-group-two-groups"), vec![1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 0.0]),
        (crate::t!("exercise-case-group-negative"), vec![-1.0, -0.5, -2.0]),
    ]
}

fn group_random(seed: u64) -> Vec<(String, Vec<f64>)> {
    let mut rng = Rng::new(seed);
    (0..RANDOM_CASES)
        .map(|i| {
            let g = 2 + rng.below(7);
            let r = if i % 2 == 0 {
                (0..g).map(|_| if rng.bool(0.5) { 1.0 } else { 0.0 }).collect()
            } else {
                uniforms(&mut rng, g, -1.0, 2.0)
            };
            (crate::t!("exercise-case-random", n = (i + 1).to_string()), r)
        })
        .collect()
}

fn group_cases(seed: u64, with_eps: bool, f: impl Fn(&[f32]) -> Vec<f32>) -> Vec<Case> {
    let edges = group_edges().into_iter();
    edges
        .chain(group_random(seed))
        .map(|(name, r)| {
            let mut args = vec![Value::floats(&r)];
            if with_eps {
                args.push(Value::Float(STD_EPS as f64));
            }
            case(name, args, Expected::Floats(f64s(&f(&f32s(&r)))))
        })
        .collect()
}

pub fn grpo_cases() -> Vec<Case> {
    group_cases(0x6790, true, |r| group_advantages(r, GroupNorm::MeanStd))
}

pub fn dr_grpo_cases() -> Vec<Case> {
    group_cases(0xd6, false, |r| group_advantages(r, GroupNorm::MeanOnly))
}

pub fn rloo_cases() -> Vec<Case> {
    group_cases(0x7100, false, rloo_advantages)
}

pub fn ppo_clip_cases() -> Vec<Case> {
    let mk = |name: &str, ratio: f64, adv: f64, eps: f64| {
        case(
            name,
            vec![Value::Float(ratio), Value::Float(adv), Value::Float(eps)],
            Expected::Float(clip_objective(ratio, adv, eps)),
        )
    };
    let mut out = vec![
        mk(&crate::t!("exercise-case-ppo-inside"), 1.1, 2.0, 0.2),
        mk(&crate::t!("exercise-case-ppo-above-pos"), 1.5, 2.0, 0.2),
        mk(&crate::t!("exercise-case-ppo-above-neg"), 1.5, -2.0, 0.2),
        mk(&crate::t!("exercise-case-ppo-below-neg"), 0.5, -1.0, 0.2),
        mk(&crate::t!("exercise-case-ppo-below-pos"), 0.5, 1.0, 0.2),
        mk(&crate::t!("exercise-case-ppo-zero-adv"), 3.0, 0.0, 0.2),
        mk(&crate::t!("exercise-case-ppo-ratio-1"), 1.0, -0.7, 0.1),
    ];
    let mut rng = Rng::new(0x990);
    for i in 0..RANDOM_CASES {
        let ratio = uniform(&mut rng, 0.2, 2.5);
        let adv = uniform(&mut rng, -3.0, 3.0);
        let eps = uniform(&mut rng, 0.05, 0.4);
        out.push(mk(&crate::t!("exercise-case-random", n = (i + 1).to_string()), ratio, adv, eps));
    }
    out
}

pub fn k3_cases() -> Vec<Case> {
    let mk = |name: &str, lp: &[f64], rlp: &[f64]| -> Case {
        let t = |xs: &[f64]| Tensor::new(f32s(xs), &Device::Cpu);
        let want =
            (|| -> candle_core::Result<Vec<f32>> { kl_k3(&t(lp)?, &t(rlp)?)?.to_vec1() })().expect("k3 of two vectors");
        case(name, vec![Value::floats(lp), Value::floats(rlp)], Expected::Floats(f64s(&want)))
    };
    let mut out = vec![
        mk(&crate::t!("exercise-case-k3-same"), &[-0.5, -1.2, -3.0], &[-0.5, -1.2, -3.0]),
        mk(&crate::t!("exercise-case-k3-more-sure"), &[-0.05, -0.1], &[-2.0, -3.0]),
        mk(&crate::t!("exercise-case-k3-less-sure"), &[-4.0, -2.5], &[-0.1, -0.3]),
        mk(&crate::t!("exercise-case-one-token"), &[-1.0], &[-1.5]),
        mk(&crate::t!("exercise-case-no-tokens"), &[], &[]),
    ];
    let mut rng = Rng::new(0x3c3);
    for i in 0..RANDOM_CASES {
        let n = 1 + rng.below(8);
        let lp = uniforms(&mut rng, n, -5.0, -0.01);
        let rlp = uniforms(&mut rng, n, -5.0, -0.01);
        out.push(mk(&crate::t!("exercise-case-random", n = (i + 1).to_string()), &lp, &rlp));
    }
    out
}

pub fn dpo_cases() -> Vec<Case> {
    let mk = |name: &str, pc: f64, pr: f64, rc: f64, rr: f64, beta: f64| -> Case {
        let one = |x: f64| Tensor::new(&[x as f32], &Device::Cpu);
        let want = (|| -> candle_core::Result<f32> {
            dpo_loss(&one(pc)?, &one(pr)?, &one(rc)?, &one(rr)?, beta, DpoVariant::Sigmoid)?.loss.to_scalar()
        })()
        .expect("dpo loss of one pair");
        let args = [pc, pr, rc, rr, beta].iter().map(|&x| Value::Float(x)).collect();
        case(name, args, Expected::Float(want as f64))
    };
    let mut out = vec![
        mk(&crate::t!("exercise-case-dpo-equal"), -12.0, -15.0, -12.0, -15.0, 0.1),
        mk(&crate::t!("exercise-case-dpo-chosen-gained"), -10.0, -20.0, -12.0, -18.0, 0.5),
        mk(&crate::t!("exercise-case-dpo-both-fell"), -30.0, -60.0, -20.0, -30.0, 0.1),
        mk(&crate::t!("exercise-case-dpo-huge-right"), -1.0, -400.0, -10.0, -10.0, 0.5),
        mk(&crate::t!("exercise-case-dpo-huge-wrong"), -400.0, -1.0, -10.0, -10.0, 2.0),
    ];
    let mut rng = Rng::new(0xd90);
    for i in 0..RANDOM_CASES {
        let v: Vec<f64> = uniforms(&mut rng, 4, -60.0, -2.0);
        let beta = uniform(&mut rng, 0.05, 2.0);
        out.push(mk(&crate::t!("exercise-case-random", n = (i + 1).to_string()), v[0], v[1], v[2], v[3], beta));
    }
    out
}

pub fn bradley_terry_cases() -> Vec<Case> {
    let mk = |name: &str, c: f64, r: f64| -> Case {
        let want = crate::rl::reward_model::bt_loss_one(c, r);
        case(name, vec![Value::Float(c), Value::Float(r)], Expected::Float(want))
    };
    let mut out = vec![
        mk(&crate::t!("exercise-case-bt-equal"), 0.7, 0.7),
        mk(&crate::t!("exercise-case-bt-higher"), 1.5, 0.5),
        mk(&crate::t!("exercise-case-bt-wrong-way"), -1.0, 2.0),
        mk(&crate::t!("exercise-case-bt-huge-right"), 400.0, -400.0),
        mk(&crate::t!("exercise-case-bt-huge-wrong"), -400.0, 400.0),
    ];
    let mut rng = Rng::new(0xb7e);
    for i in 0..RANDOM_CASES {
        let v = uniforms(&mut rng, 2, -8.0, 8.0);
        out.push(mk(&crate::t!("exercise-case-random", n = (i + 1).to_string()), v[0], v[1]));
    }
    out
}

pub fn info_nce_cases() -> Vec<Case> {
    let mk = |name: &str, sims: &[f64], pos: usize, tau: f64| -> Case {
        let want = crate::rl::info_nce::info_nce_one(sims, pos, tau);
        case(name, vec![Value::floats(sims), Value::Int(pos as i64), Value::Float(tau)], Expected::Float(want))
    };
    let mut out = vec![
        mk(&crate::t!("exercise-case-nce-equal"), &[0.3, 0.3, 0.3, 0.3], 2, 0.1),
        mk(&crate::t!("exercise-case-nce-one"), &[0.9], 0, 0.05),
        mk(&crate::t!("exercise-case-nce-hand"), &[0.9, 0.1, 0.5], 0, 0.5),
        mk(&crate::t!("exercise-case-nce-not-first"), &[0.2, -0.4, 0.7], 2, 0.25),
        mk(&crate::t!("exercise-case-nce-cold-wrong"), &[0.1, 0.9, -0.5], 0, 1e-3),
        mk(&crate::t!("exercise-case-nce-cold-right"), &[0.9, 0.1, -0.5], 0, 1e-3),
    ];
    let mut rng = Rng::new(0x1ce);
    for i in 0..RANDOM_CASES {
        let n = 2 + rng.below(7);
        let sims = uniforms(&mut rng, n, -1.0, 1.0);
        let pos = rng.below(n);
        let tau = uniform(&mut rng, 0.02, 2.0);
        out.push(mk(&crate::t!("exercise-case-random", n = (i + 1).to_string()), &sims, pos, tau));
    }
    out
}

/// RoPE inverse frequencies under position interpolation and NTK-aware
/// scaling, against `RopeScaling::inv_freq` (the one the models use).
pub fn rope_scaling_cases() -> Vec<Case> {
    use crate::ml::gpt_config::RopeScaling;
    let mk = |name: &str, d: usize, s: f64, ntk: bool| -> Case {
        let scaling =
            if ntk { RopeScaling::Ntk { factor: s as f32 } } else { RopeScaling::Linear { factor: s as f32 } };
        let want = scaling.inv_freq(d).into_iter().map(|x| x as f64).collect();
        case(name, vec![Value::Int(d as i64), Value::Float(s), Value::Bool(ntk)], Expected::Floats(want))
    };
    let mut out = vec![
        mk(&crate::t!("exercise-case-rope-s1"), 8, 1.0, false),
        mk(&crate::t!("exercise-case-rope-s1-ntk"), 8, 1.0, true),
        mk(&crate::t!("exercise-case-rope-pi"), 16, 4.0, false),
        mk(&crate::t!("exercise-case-rope-ntk"), 16, 4.0, true),
        mk(&crate::t!("exercise-case-rope-one-pair"), 2, 2.0, false),
        mk(&crate::t!("exercise-case-rope-drill"), 32, 4.0, true),
    ];
    let mut rng = Rng::new(0x2075);
    for i in 0..RANDOM_CASES {
        let d = 2 * (2 + rng.below(31));
        let s = uniform(&mut rng, 1.0, 16.0);
        out.push(mk(&crate::t!("exercise-case-random", n = (i + 1).to_string()), d, s, rng.below(2) == 1));
    }
    out
}

/// LoRA's forward of one vector, `W₀x + (α/r)·B(Ax)`, against
/// [`lora_linear`](crate::ml::lora_gpt::lora_linear) (the lab's adapter maths).
pub fn lora_forward_cases() -> Vec<Case> {
    let mk = |name: &str, x: &[f64], w0: &[Vec<f64>], a: &[Vec<f64>], b: &[Vec<f64>], alpha: f64| -> Case {
        let t = |m: &[Vec<f64>]| -> candle_core::Result<Tensor> {
            let (rows, cols) = (m.len(), m.first().map_or(0, |r| r.len()));
            Tensor::from_vec(f32s(&m.concat()), (rows, cols), &Device::Cpu)
        };
        let want = (|| -> candle_core::Result<Vec<f32>> {
            let xs = Tensor::from_vec(f32s(x), (1, x.len()), &Device::Cpu)?;
            crate::ml::lora_gpt::lora_linear(&xs, &t(w0)?, &t(a)?, &t(b)?, alpha)?.squeeze(0)?.to_vec1()
        })()
        .expect("lora forward of one vector");
        let args = vec![Value::floats(x), Value::matrix(w0), Value::matrix(a), Value::matrix(b), Value::Float(alpha)];
        case(name, args, Expected::Floats(f64s(&want)))
    };
    let eye = vec![vec![1.0, 0.0], vec![0.0, 1.0]];
    let mut out = vec![
        mk(&crate::t!("exercise-case-lora-sheet"), &[1.0, 0.0], &eye, &[vec![0.5, -0.5]], &[vec![1.0], vec![2.0]], 2.0),
        mk(
            &crate::t!("exercise-case-lora-b-zero"),
            &[0.3, -1.2, 2.0],
            &[vec![1.0, 2.0, 0.5], vec![-1.0, 0.0, 3.0]],
            &[vec![0.2, 0.1, -0.4], vec![1.0, -1.0, 0.5]],
            &[vec![0.0, 0.0], vec![0.0, 0.0]],
            16.0,
        ),
        mk(
            &crate::t!("exercise-case-lora-rank-2"),
            &[1.0, 2.0, -1.0],
            &[vec![0.0, 0.0, 0.0], vec![0.0, 0.0, 0.0]],
            &[vec![1.0, 0.0, 0.0], vec![0.0, 1.0, 0.0]],
            &[vec![1.0, 0.0], vec![0.0, 1.0]],
            4.0,
        ),
        mk(
            &crate::t!("exercise-case-lora-alpha-zero"),
            &[2.0, -1.0],
            &eye,
            &[vec![3.0, 1.0]],
            &[vec![5.0], vec![-2.0]],
            0.0,
        ),
        mk(
            &crate::t!("exercise-case-lora-wide"),
            &[1.0, -1.0],
            &[vec![1.0, 1.0], vec![2.0, 0.0], vec![0.0, -1.0]],
            &[vec![1.0, 2.0]],
            &[vec![0.5], vec![0.0], vec![-1.0]],
            1.0,
        ),
    ];
    let mut rng = Rng::new(0x10a);
    for i in 0..RANDOM_CASES {
        let (d_in, d_out, r) = (1 + rng.below(5), 1 + rng.below(5), 1 + rng.below(3));
        let x = uniforms(&mut rng, d_in, -2.0, 2.0);
        let w0: Vec<Vec<f64>> = (0..d_out).map(|_| uniforms(&mut rng, d_in, -1.0, 1.0)).collect();
        let a: Vec<Vec<f64>> = (0..r).map(|_| uniforms(&mut rng, d_in, -1.0, 1.0)).collect();
        let b: Vec<Vec<f64>> = (0..d_out).map(|_| uniforms(&mut rng, r, -1.0, 1.0)).collect();
        let alpha = [1.0, 2.0, 8.0, 16.0][rng.below(4)];
        out.push(mk(&crate::t!("exercise-case-random", n = (i + 1).to_string()), &x, &w0, &a, &b, alpha));
    }
    out
}

// ------------------------------------------------------------- evaluation

pub fn pass_at_k_cases() -> Vec<Case> {
    let mk = |name: &str, n: usize, c: usize, k: usize| {
        case(
            name,
            vec![Value::Int(n as i64), Value::Int(c as i64), Value::Int(k as i64)],
            Expected::Float(crate::eval::pass_at_k(n, c, k)),
        )
    };
    let mut out = vec![
        mk(&crate::t!("exercise-case-pk-none-correct"), 10, 0, 3),
        mk(&crate::t!("exercise-case-pk-k-1"), 10, 3, 1),
        mk(&crate::t!("exercise-case-pk-k-big"), 10, 8, 3),
        mk(&crate::t!("exercise-case-pk-all-correct"), 5, 5, 2),
        mk(&crate::t!("exercise-case-pk-k-n"), 6, 1, 6),
        mk(&crate::t!("exercise-case-pk-n-200"), 200, 37, 100),
        mk(&crate::t!("exercise-case-pk-small-n"), 5, 1, 3),
    ];
    let mut rng = Rng::new(0x9a55);
    for i in 0..RANDOM_CASES {
        let n = 1 + rng.below(60);
        let c = rng.below(n + 1);
        let k = 1 + rng.below(n);
        out.push(mk(&crate::t!("exercise-case-random", n = (i + 1).to_string()), n, c, k));
    }
    out
}

// ------------------------------------------------------------- continual

pub fn ewc_cases() -> Vec<Case> {
    let mk = |name: &str, theta: &[f64], star: &[f64], fisher: &[f64], lambda: f64| -> Case {
        let want = (|| -> candle_core::Result<f32> {
            let t = |xs: &[f64]| Tensor::new(f32s(xs), &Device::Cpu);
            let vars = BTreeMap::from([("w".to_string(), Var::from_tensor(&t(theta)?)?)]);
            let anchor = BTreeMap::from([("w".to_string(), t(star)?)]);
            let fisher = Fisher { diag: BTreeMap::from([("w".to_string(), t(fisher)?)]), samples: 1 };
            ewc_penalty(&vars, &fisher, &anchor, lambda)?.to_scalar()
        })()
        .expect("ewc penalty of one vector");
        let args = vec![Value::floats(theta), Value::floats(star), Value::floats(fisher), Value::Float(lambda)];
        case(name, args, Expected::Float(want as f64))
    };
    let mut out = vec![
        mk(&crate::t!("exercise-case-ewc-at-anchor"), &[0.3, -1.2, 2.0], &[0.3, -1.2, 2.0], &[1.0, 5.0, 0.1], 10.0),
        mk(&crate::t!("exercise-case-ewc-one-weight"), &[1.0], &[0.0], &[2.0], 1.0),
        mk(&crate::t!("exercise-case-ewc-zero-fisher"), &[5.0, -5.0], &[0.0, 0.0], &[0.0, 0.0], 100.0),
        mk(&crate::t!("exercise-case-ewc-lambda-0"), &[1.0, 2.0], &[0.0, 0.0], &[1.0, 1.0], 0.0),
        mk(&crate::t!("exercise-case-ewc-same-drift"), &[1.0, 1.0], &[0.0, 0.0], &[10.0, 0.01], 2.0),
    ];
    let mut rng = Rng::new(0xe3c);
    for i in 0..RANDOM_CASES {
        let n = 1 + rng.below(12);
        let theta = uniforms(&mut rng, n, -2.0, 2.0);
        let star = uniforms(&mut rng, n, -2.0, 2.0);
        let fisher = uniforms(&mut rng, n, 0.0, 3.0);
        let lambda = uniform(&mut rng, 0.0, 50.0);
        out.push(mk(&crate::t!("exercise-case-random", n = (i + 1).to_string()), &theta, &star, &fisher, lambda));
    }
    out
}

pub fn cl_metrics_cases() -> Vec<Case> {
    let mk = |name: &str, r: Vec<Vec<f64>>, b: Vec<f64>| {
        let m = AccuracyMatrix::new(r.clone());
        let want = vec![m.average_accuracy(), m.backward_transfer(), m.forward_transfer(&b)];
        case(name, vec![Value::matrix(&r), Value::floats(&b)], Expected::Floats(want))
    };
    let mut out = vec![
        mk(&crate::t!("exercise-case-cl-a-forgotten"), vec![vec![0.9, 0.1], vec![0.4, 0.95]], vec![0.1, 0.1]),
        mk(&crate::t!("exercise-case-cl-one-task"), vec![vec![0.8]], vec![0.2]),
        mk(
            &crate::t!("exercise-case-cl-three-tasks"),
            vec![vec![0.9, 0.3, 0.2], vec![0.9, 0.9, 0.4], vec![0.9, 0.9, 0.9]],
            vec![0.1, 0.2, 0.2],
        ),
        mk(
            &crate::t!("exercise-case-cl-positive-bwt"),
            vec![vec![0.5, 0.0, 0.0], vec![0.7, 0.8, 0.0], vec![0.9, 0.8, 0.7]],
            vec![0.0, 0.0, 0.0],
        ),
    ];
    let mut rng = Rng::new(0xc1);
    for i in 0..RANDOM_CASES {
        let t = 1 + rng.below(5);
        let r: Vec<Vec<f64>> = (0..t).map(|_| uniforms(&mut rng, t, 0.0, 1.0)).collect();
        let b = uniforms(&mut rng, t, 0.0, 0.3);
        out.push(mk(&crate::t!("exercise-case-random", n = (i + 1).to_string()), r, b));
    }
    out
}

// ------------------------------------------------------------- the QA world

/// The total reward the search-or-answer world gives an episode that makes
/// `searches` searches and then answers (rightly or not) or runs out of turns.
fn qa_total(answered: bool, correct: bool, searches: usize, w: (f64, f64, f64)) -> f64 {
    let kb = FactTable::world();
    let entity = kb.entities()[0].to_string();
    let truth = kb.get(&entity, "capital").unwrap_or("?").to_string();
    let cfg =
        QaConfig { w_correct: w.0 as f32, w_format: w.1 as f32, search_cost: w.2 as f32, max_turns: searches + 1 };
    let world = QaWorld::new(kb, cfg);
    let mut s = QaSession::new(Question { entity: entity.clone(), truth: truth.clone(), known: false });
    for _ in 0..searches {
        world.apply(&mut s, &format!("search[{entity}]"));
    }
    if answered {
        let a = if correct { truth } else { format!("{truth}x") };
        world.apply(&mut s, &format!("answer[{a}]"));
    } else {
        // The last turn goes by without a valid action: no answer, no reward.
        world.apply(&mut s, "I am not sure");
    }
    s.episode.total_reward() as f64
}

pub fn search_reward_cases() -> Vec<Case> {
    let mk = |name: &str, answered: bool, correct: bool, searches: usize, w: (f64, f64, f64)| {
        let args = vec![
            Value::Bool(answered),
            Value::Bool(correct),
            Value::Int(searches as i64),
            Value::Float(w.0),
            Value::Float(w.1),
            Value::Float(w.2),
        ];
        case(name, args, Expected::Float(qa_total(answered, correct, searches, w)))
    };
    let w = (1.0, 0.1, 0.2);
    let mut out = vec![
        mk(&crate::t!("exercise-case-qa-from-memory"), true, true, 0, w),
        mk(&crate::t!("exercise-case-qa-one-search"), true, true, 1, w),
        mk(&crate::t!("exercise-case-qa-wrong-format"), true, false, 0, w),
        mk(&crate::t!("exercise-case-qa-never-answered"), false, false, 2, w),
        mk(&crate::t!("exercise-case-qa-never-correct"), false, true, 1, w),
        mk(&crate::t!("exercise-case-qa-free-searches"), true, true, 3, (1.0, 0.1, 0.0)),
    ];
    let mut rng = Rng::new(0x5ea);
    for i in 0..RANDOM_CASES {
        let answered = rng.bool(0.7);
        let correct = rng.bool(0.5);
        let searches = rng.below(4);
        let w = (uniform(&mut rng, 0.5, 2.0), uniform(&mut rng, 0.0, 0.3), uniform(&mut rng, 0.0, 0.5));
        out.push(mk(&crate::t!("exercise-case-random", n = (i + 1).to_string()), answered, correct, searches, w));
    }
    out
}

// ------------------------------------------------------------- reservoir

/// Cases where the buffer is not yet full: the item must simply be kept.
pub fn reservoir_cases() -> Vec<Case> {
    let mk = |name: &str, buffer: &[i64], capacity: i64, seen: i64, item: i64| {
        let mut want: Vec<f64> = buffer.iter().map(|&x| x as f64).collect();
        want.push(item as f64);
        case(
            name,
            vec![Value::ints(buffer), Value::Int(capacity), Value::Int(seen), Value::Int(item)],
            Expected::Floats(want),
        )
    };
    vec![
        mk(&crate::t!("exercise-case-res-first"), &[], 3, 0, 7),
        mk(&crate::t!("exercise-case-res-room"), &[0, 1], 3, 2, 2),
        mk(&crate::t!("exercise-case-res-fills"), &[10, 11, 12], 4, 3, 13),
    ]
}

/// Stream `n` items (0, 1, …) through the learner's `reservoir_push` many
/// times and compare how often each item ends in the buffer with `k/n`, the
/// inclusion probability Algorithm R guarantees for every item. Returns
/// the per-item rates, or the first error.
pub fn reservoir_rates(
    script: &super::script::Script,
    function: &str,
    n: usize,
    k: usize,
    trials: usize,
) -> Result<Vec<f64>, String> {
    let mut count = vec![0usize; n];
    for trial in 0..trials {
        script.seed(0x7e5e + trial as u64);
        let mut buf: Vec<i64> = Vec::new();
        for item in 0..n {
            let args = [Value::ints(&buf), Value::Int(k as i64), Value::Int(item as i64), Value::Int(item as i64)];
            let out = script.call(function, &args)?;
            buf = out.as_i64s().ok_or_else(|| {
                crate::t!(
                    "exercise-res-not-buffer-after",
                    item = item.to_string(),
                    function = function,
                    what = out.describe()
                )
            })?;
            if buf.len() > k {
                return Err(crate::t!(
                    "exercise-res-over-capacity",
                    item = item.to_string(),
                    len = buf.len().to_string(),
                    capacity = k.to_string()
                ));
            }
            if buf.len() < k.min(item + 1) {
                return Err(crate::t!(
                    "exercise-res-too-short",
                    item = item.to_string(),
                    len = buf.len().to_string(),
                    want = k.min(item + 1).to_string()
                ));
            }
            if let Some(bad) = buf.iter().find(|&&x| x < 0 || x > item as i64) {
                return Err(crate::t!("exercise-res-never-pushed", item = item.to_string(), bad = bad.to_string()));
            }
        }
        let mut sorted = buf.clone();
        sorted.sort_unstable();
        sorted.dedup();
        if sorted.len() != buf.len() {
            return Err(crate::t!("exercise-res-twice", trial = trial.to_string(), buffer = format!("{buf:?}")));
        }
        for &x in &buf {
            count[x as usize] += 1;
        }
    }
    Ok(count.iter().map(|&c| c as f64 / trials as f64).collect())
}

/// Stream `n` items through the learner's `reservoir_push` and through the
/// lab's [`Reservoir`](crate::continual::Reservoir), both drawing from the
/// same seeded stream. Algorithm R draws one number per item once the buffer
/// is full (`rand_below(seen + 1)`), so the two buffers must hold the same
/// items. `Err` names the first item after which they differ.
pub fn reservoir_same_as_lab(
    script: &super::script::Script,
    function: &str,
    n: usize,
    k: usize,
    seed: u64,
) -> Result<(), String> {
    let mut lab = crate::continual::Reservoir::new(k);
    let mut rng = Rng::new(seed);
    script.seed(seed);
    let mut buf: Vec<i64> = Vec::new();
    for item in 0..n {
        lab.push(item as i64, &mut rng);
        let args = [Value::ints(&buf), Value::Int(k as i64), Value::Int(item as i64), Value::Int(item as i64)];
        let out = script.call(function, &args)?;
        buf = out
            .as_i64s()
            .ok_or_else(|| crate::t!("exercise-res-not-buffer", function = function, what = out.describe()))?;
        let (mut a, mut b) = (buf.clone(), lab.items().to_vec());
        a.sort_unstable();
        b.sort_unstable();
        if a != b {
            return Err(crate::t!(
                "exercise-res-differs",
                item = item.to_string(),
                seed = seed.to_string(),
                yours = format!("{a:?}"),
                lab = format!("{b:?}")
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expected_values_match_hand_computations() {
        // γ = 0.9 on [0, 0, 0, 1]: 0.729, 0.81, 0.9, 1.
        let c = &discounted_returns_cases()[0];
        let Expected::Floats(v) = &c.expected else { panic!() };
        assert!((v[0] - 0.729).abs() < 1e-6);
        // DPO at equal log-probs is ln 2.
        let Expected::Float(l) = dpo_cases()[0].expected else { panic!() };
        assert!((l - std::f64::consts::LN_2).abs() < 1e-6);
        // The wrong-way huge margin: β·m = 2·(−390 − 9) = −798, so the loss is 798, finite.
        let Expected::Float(l) = dpo_cases()[4].expected else { panic!() };
        assert!((l - 798.0).abs() < 1e-2, "{l}");
        // EWC on one weight: λ/2·F·d² = 0.5·2·1 = 1.
        let Expected::Float(p) = ewc_cases()[1].expected else { panic!() };
        assert!((p - 1.0).abs() < 1e-6);
        // The QA world: right after one search = 1 + 0.1 − 0.2.
        let Expected::Float(q) = search_reward_cases()[1].expected else { panic!() };
        assert!((q - 0.9).abs() < 1e-6, "{q}");
        let Expected::Float(q) = search_reward_cases()[3].expected else { panic!() };
        assert!((q + 0.4).abs() < 1e-6, "{q}");
    }

    #[test]
    fn cases_are_the_same_every_time() {
        let a: Vec<String> = gae_cases().iter().map(|c| format!("{:?}", c.args)).collect();
        let b: Vec<String> = gae_cases().iter().map(|c| format!("{:?}", c.args)).collect();
        assert_eq!(a, b);
    }
}
