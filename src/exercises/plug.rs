//! Learner functions a drill run trains with (`--use ID=FILE`, or `u` on
//! the drill screen).
//!
//! A drill asks [`Plugs`] for the function of an exercise at the one place
//! it would call the lab's own: `turn-credit-assignment` for each episode's
//! returns-to-go, `grpo-rlvr` for each group's advantages, `ewc-replay` for
//! each push into its replay buffer. When no script is plugged the drill
//! calls its built-in function, so a run without `--use` is unchanged.
//!
//! A plugged function is *not* required to pass its check: training with a
//! wrong one is how a learner sees what the mistake does to learning. What
//! it returns is still checked for shape (an array of the right length, a
//! buffer within its capacity): a value the drill cannot use ends the run
//! with a message that names the function and the call.

use std::collections::BTreeMap;
use std::sync::Arc;

use anyhow::{anyhow, Result};
use serde::{Deserialize, Serialize};

use super::script::{Script, Value};
use super::spec;
use crate::continual::replay::{ReplayBuffer, Reservoir};
use crate::ml::rng::Rng;

/// A script a run was asked to train with, as the run's `config.toml`
/// records it (the file it came from and its whole text).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UsedScript {
    pub file: String,
    pub source: String,
}

/// The time all the calls of a plugged function may take in one run (each
/// call still stops after `script::CALL_DEADLINE`): far more than a correct
/// function takes in a `full` preset, far less than a hang.
pub const RUN_BUDGET: std::time::Duration = std::time::Duration::from_secs(120);

/// The compiled scripts of one run, by exercise id.
#[derive(Debug, Clone, Default)]
pub struct Plugs {
    scripts: BTreeMap<String, Arc<Script>>,
}

impl Plugs {
    /// Compile the scripts a run of `drill` should use. `Err` is a message
    /// for the learner: an unknown exercise, one this drill cannot train
    /// with, a script that does not compile or lacks the function.
    pub fn new(drill: &str, uses: &BTreeMap<String, UsedScript>) -> Result<Plugs, String> {
        let mut scripts = BTreeMap::new();
        for (id, used) in uses {
            let spec = spec(id).ok_or_else(|| crate::t!("exercise-plug-unknown", id = id.as_str()))?;
            if spec.plug_drill != Some(drill) {
                return Err(match spec.plug_drill {
                    Some(d) => crate::t!("exercise-plug-other-drill", id = id.as_str(), plugs = d, drill = drill),
                    None => crate::t!("exercise-plug-checked-only", id = id.as_str()),
                });
            }
            let script = Script::compile(&used.source).map_err(|e| format!("{}: {e}", used.file))?;
            script.require(spec.function, spec.params.len()).map_err(|e| format!("{}: {e}", used.file))?;
            // All its calls in the run together: a slow function ends the run in bounded time.
            script.set_budget(RUN_BUDGET);
            scripts.insert(id.clone(), Arc::new(script));
        }
        if scripts.contains_key("grpo-advantages") && scripts.contains_key("dr-grpo-advantages") {
            return Err(crate::t!("exercise-plug-both-grpo"));
        }
        Ok(Plugs { scripts })
    }

    pub fn is_empty(&self) -> bool {
        self.scripts.is_empty()
    }

    /// The exercise ids plugged in.
    pub fn ids(&self) -> Vec<String> {
        self.scripts.keys().cloned().collect()
    }

    fn get(&self, id: &str) -> Option<&Script> {
        self.scripts.get(id).map(|s| s.as_ref())
    }

    /// Returns-to-go `G_t` of one episode, from the learner's
    /// `discounted_returns` when it is plugged in.
    pub fn discounted_returns(&self, rewards: &[f32], gamma: f32) -> Option<Result<Vec<f32>>> {
        let s = self.get("discounted-returns")?;
        let args = [Value::floats(&to_f64(rewards)), Value::Float(gamma as f64)];
        Some(floats(s, "discounted_returns", &args, rewards.len()))
    }

    /// Advantages of one group, from the learner's `grpo_advantages` or
    /// `dr_grpo_advantages` when one is plugged in (with its name, for logs).
    pub fn group_advantages(&self, rewards: &[f32]) -> Option<Result<Vec<f32>>> {
        let r = Value::floats(&to_f64(rewards));
        if let Some(s) = self.get("grpo-advantages") {
            let eps = Value::Float(crate::rl::advantage::STD_EPS as f64);
            return Some(floats(s, "grpo_advantages", &[r, eps], rewards.len()));
        }
        let s = self.get("dr-grpo-advantages")?;
        Some(floats(s, "dr_grpo_advantages", &[r], rewards.len()))
    }

    /// RoPE inverse frequencies of a head of dimension `d` rescaled by `s`
    /// (position interpolation, or NTK-aware when `ntk`), from the learner's
    /// `rope_inv_freq` when it is plugged in: one per pair, `d / 2`.
    pub fn rope_inv_freq(&self, d: usize, s: f32, ntk: bool) -> Option<Result<Vec<f32>>> {
        let script = self.get("rope-scaling")?;
        let args = [Value::Int(d as i64), Value::Float(s as f64), Value::Bool(ntk)];
        Some(floats(script, "rope_inv_freq", &args, d / 2))
    }

    /// The learner's `bradley_terry(r_chosen, r_rejected)` on each pair of a
    /// batch, when plugged in: every pair's loss and its derivatives with
    /// respect to both scores (central differences of the learner's function,
    /// step `1e-3`), so a reward model can train on it.
    #[allow(clippy::type_complexity)]
    pub fn bradley_terry(&self, chosen: &[f32], rejected: &[f32]) -> Option<Result<(Vec<f32>, Vec<f32>, Vec<f32>)>> {
        let s = self.get("bradley-terry")?;
        Some((|| {
            let call = |c: f64, r: f64| -> Result<f64> {
                let args = [Value::Float(c), Value::Float(r)];
                let v = s
                    .call_f64("bradley_terry", &args)
                    .map_err(|e| anyhow!(crate::t!("exercise-your", name = "bradley_terry", error = e.to_string())))?;
                if v.is_finite() && !(v as f32).is_finite() {
                    return Err(anyhow!(too_large("bradley_terry", &format!("{c:.4}, {r:.4}"), v)));
                }
                if !v.is_finite() {
                    return Err(anyhow!(crate::t!(
                        "exercise-plug-bt-not-finite",
                        c = format!("{c:.4}"),
                        r = format!("{r:.4}"),
                        v = v.to_string()
                    )));
                }
                Ok(v)
            };
            const H: f64 = 1e-3;
            let (mut values, mut dc, mut dr) = (Vec::new(), Vec::new(), Vec::new());
            for (&c, &r) in chosen.iter().zip(rejected) {
                let (c, r) = (c as f64, r as f64);
                values.push(call(c, r)? as f32);
                dc.push(((call(c + H, r)? - call(c - H, r)?) / (2.0 * H)) as f32);
                dr.push(((call(c, r + H)? - call(c, r - H)?) / (2.0 * H)) as f32);
            }
            Ok((values, dc, dr))
        })())
    }

    /// The learner's `info_nce(sims, positive, tau)` on each row of a batch,
    /// when plugged in: every row's loss and its derivatives with respect to
    /// each similarity (central differences of the learner's function, step
    /// `1e-4`), so a retriever can train on it. `2C + 1` calls per row of `C`
    /// candidates: a plugged run is slower.
    #[allow(clippy::type_complexity)]
    pub fn info_nce(&self, rows: &[Vec<f32>], positive: &[u32], tau: f64) -> Option<Result<(Vec<f32>, Vec<Vec<f32>>)>> {
        let s = self.get("info-nce")?;
        Some((|| {
            let call = |sims: &[f64], pos: usize| -> Result<f64> {
                let args = [Value::floats(sims), Value::Int(pos as i64), Value::Float(tau)];
                let v = s
                    .call_f64("info_nce", &args)
                    .map_err(|e| anyhow!(crate::t!("exercise-your", name = "info_nce", error = e.to_string())))?;
                if v.is_finite() && !(v as f32).is_finite() {
                    return Err(anyhow!(too_large("info_nce", &format!("…, {pos}, {tau}"), v)));
                }
                if !v.is_finite() {
                    return Err(anyhow!(crate::t!(
                        "exercise-plug-nce-not-finite",
                        tau = tau.to_string(),
                        pos = pos.to_string(),
                        v = v.to_string()
                    )));
                }
                Ok(v)
            };
            const H: f64 = 1e-4;
            let (mut values, mut grads) = (Vec::new(), Vec::new());
            for (row, &pos) in rows.iter().zip(positive) {
                let mut x: Vec<f64> = row.iter().map(|&v| v as f64).collect();
                values.push(call(&x, pos as usize)? as f32);
                let mut g = Vec::with_capacity(x.len());
                for j in 0..x.len() {
                    let keep = x[j];
                    x[j] = keep + H;
                    let up = call(&x, pos as usize)?;
                    x[j] = keep - H;
                    let down = call(&x, pos as usize)?;
                    x[j] = keep;
                    g.push(((up - down) / (2.0 * H)) as f32);
                }
                grads.push(g);
            }
            Ok((values, grads))
        })())
    }

    /// A replay buffer run by the learner's `reservoir_push`, when plugged in.
    pub fn reservoir<T: Clone>(&self, capacity: usize, seed: u64) -> Option<ScriptReservoir<T>> {
        let s = self.scripts.get("reservoir")?.clone();
        s.seed(seed);
        Some(ScriptReservoir { script: s, capacity: capacity.max(1), seen: Vec::new(), buffer: Vec::new() })
    }

    /// The replay buffer a run fills: the learner's [`reservoir`](Plugs::reservoir)
    /// when plugged in, the lab's [`Reservoir`] otherwise.
    pub fn replay_buffer<T: Clone + 'static>(&self, capacity: usize, seed: u64) -> Box<dyn ReplayBuffer<T>> {
        match self.reservoir(capacity, seed) {
            Some(yours) => Box::new(yours),
            None => Box::new(Reservoir::new(capacity)),
        }
    }
}

fn to_f64(xs: &[f32]) -> Vec<f64> {
    xs.iter().map(|&x| x as f64).collect()
}

/// Call the learner's function; a value that is not a finite number stops
/// the run with the inputs that produced it (a NaN would otherwise surface
/// steps later as a diverged loss, far from its cause).
fn floats(s: &Script, name: &str, args: &[Value], len: usize) -> Result<Vec<f32>> {
    let out =
        s.call_f64s(name, args, Some(len)).map_err(|e| anyhow!(crate::t!("exercise-your", name = name, error = e)))?;
    let inputs = || args.iter().map(Value::show).collect::<Vec<String>>().join(", ");
    if out.iter().any(|x| !x.is_finite()) {
        return Err(anyhow!(crate::t!(
            "exercise-plug-not-finite",
            name = name,
            inputs = inputs(),
            values = Value::floats(&out).show()
        )));
    }
    // Finite as f64 but not as the f32 the drill trains in (1e300): said as such, not as a diverged loss later.
    if let Some(x) = out.iter().find(|x| !(**x as f32).is_finite()) {
        return Err(anyhow!(too_large(name, &inputs(), *x)));
    }
    Ok(out.into_iter().map(|x| x as f32).collect())
}

/// "your f(…) returned 1e300: larger than an f32 holds".
fn too_large(name: &str, inputs: &str, x: f64) -> String {
    crate::t!("exercise-plug-too-large", name = name, inputs = inputs, value = format!("{x:e}"))
}

/// A replay buffer whose every push goes through the learner's
/// `reservoir_push(buffer, capacity, seen, item)`. Items are handed to the
/// script as their index in the stream; the buffer it returns is checked
/// (at most `capacity` items, each one pushed before) and mapped back.
pub struct ScriptReservoir<T> {
    script: Arc<Script>,
    capacity: usize,
    seen: Vec<T>,
    buffer: Vec<i64>,
}

impl<T: Clone> ScriptReservoir<T> {
    pub fn push(&mut self, item: T) -> Result<()> {
        let index = self.seen.len() as i64;
        self.seen.push(item);
        let args = [Value::ints(&self.buffer), Value::Int(self.capacity as i64), Value::Int(index), Value::Int(index)];
        let out = self
            .script
            .call("reservoir_push", &args)
            .map_err(|e| anyhow!(crate::t!("exercise-your", name = "reservoir_push", error = e)))?;
        let buf =
            out.as_i64s().ok_or_else(|| anyhow!(crate::t!("exercise-plug-res-not-buffer", what = out.describe())))?;
        if buf.len() > self.capacity {
            return Err(anyhow!(crate::t!(
                "exercise-plug-res-over-capacity",
                len = buf.len().to_string(),
                capacity = self.capacity.to_string()
            )));
        }
        if let Some(bad) = buf.iter().find(|&&i| i < 0 || i > index) {
            return Err(anyhow!(crate::t!("exercise-plug-res-never-pushed", bad = bad.to_string())));
        }
        self.buffer = buf;
        Ok(())
    }

    pub fn len(&self) -> usize {
        self.buffer.len()
    }

    pub fn is_empty(&self) -> bool {
        self.buffer.is_empty()
    }

    /// How many items were pushed.
    pub fn seen(&self) -> usize {
        self.seen.len()
    }

    /// The items in the buffer.
    pub fn items(&self) -> Vec<T> {
        self.buffer.iter().map(|&i| self.seen[i as usize].clone()).collect()
    }

    /// The stream positions of the items in the buffer.
    pub fn positions(&self) -> &[i64] {
        &self.buffer
    }

    /// `m` items drawn uniformly with replacement from the buffer.
    pub fn sample(&self, m: usize, rng: &mut Rng) -> Vec<T> {
        if self.buffer.is_empty() {
            return Vec::new();
        }
        (0..m).map(|_| self.seen[*rng.choose(&self.buffer) as usize].clone()).collect()
    }
}

impl<T: Clone> ReplayBuffer<T> for ScriptReservoir<T> {
    fn push(&mut self, item: T, _: &mut Rng) -> Result<()> {
        ScriptReservoir::push(self, item)
    }

    fn sample(&self, m: usize, rng: &mut Rng) -> Vec<T> {
        ScriptReservoir::sample(self, m, rng)
    }

    fn items(&self) -> Vec<T> {
        ScriptReservoir::items(self)
    }

    fn len(&self) -> usize {
        ScriptReservoir::len(self)
    }

    fn seen(&self) -> usize {
        ScriptReservoir::seen(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn used(source: &str) -> UsedScript {
        UsedScript { file: "my.rhai".into(), source: source.into() }
    }

    #[test]
    fn plugs_are_refused_for_the_wrong_drill_and_broken_scripts() {
        let uses = BTreeMap::from([("reservoir".to_string(), used("fn reservoir_push(b, c, s, i) { b }"))]);
        assert!(Plugs::new("grpo-rlvr", &uses).unwrap_err().contains("plugs into drill ewc-replay"));
        assert!(Plugs::new("ewc-replay", &uses).is_ok());
        let bad = BTreeMap::from([("reservoir".to_string(), used("fn reservoir_push(b) { b }"))]);
        assert!(Plugs::new("ewc-replay", &bad).unwrap_err().contains("must take 4"));
        let gae = BTreeMap::from([("gae".to_string(), used("fn gae(a,b,c,d,e,f) { a }"))]);
        assert!(Plugs::new("turn-credit-assignment", &gae).unwrap_err().contains("checked only"));
    }

    #[test]
    fn a_plugged_function_replaces_the_built_in_one() {
        let src = "fn discounted_returns(r, g) { let out = []; for x in r { out.push(x * 2.0); } out }";
        let uses = BTreeMap::from([("discounted-returns".to_string(), used(src))]);
        let p = Plugs::new("turn-credit-assignment", &uses).unwrap();
        assert_eq!(p.discounted_returns(&[1.0, 2.0], 0.9).unwrap().unwrap(), vec![2.0, 4.0]);
        assert!(Plugs::default().discounted_returns(&[1.0], 0.9).is_none());
    }

    #[test]
    fn a_nan_from_a_plugged_function_names_the_function_and_its_inputs() {
        let src = "fn grpo_advantages(r, eps) { let m = 0.0; for x in r { m += x; } m /= r.len(); let out = []; for x in r { out.push((x - m) / 0.0); } out }";
        let uses = BTreeMap::from([("grpo-advantages".to_string(), used(src))]);
        let p = Plugs::new("grpo-rlvr", &uses).unwrap();
        let e = p.group_advantages(&[1.0, 1.0]).unwrap().unwrap_err().to_string();
        assert!(e.contains("your grpo_advantages([1.0000, 1.0000]") && e.contains("not a finite number"), "{e}");
    }

    #[test]
    fn a_script_reservoir_checks_what_comes_back() {
        let keep_first = "fn reservoir_push(b, c, s, i) { if b.len() < c { b.push(i); } b }";
        let uses = BTreeMap::from([("reservoir".to_string(), used(keep_first))]);
        let p = Plugs::new("ewc-replay", &uses).unwrap();
        let mut r = p.reservoir::<&str>(2, 1).unwrap();
        for x in ["a", "b", "c"] {
            r.push(x).unwrap();
        }
        assert_eq!(r.items(), vec!["a", "b"]);
        let grow = "fn reservoir_push(b, c, s, i) { b.push(i); b }";
        let uses = BTreeMap::from([("reservoir".to_string(), used(grow))]);
        let p = Plugs::new("ewc-replay", &uses).unwrap();
        let mut r = p.reservoir::<u8>(1, 1).unwrap();
        r.push(0).unwrap();
        assert!(r.push(1).unwrap_err().to_string().contains("capacity is 1"));
    }
}
