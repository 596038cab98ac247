//! A learner's Rhai script, compiled once and called like a function.
//!
//! The engine is sandboxed: it is built with [`Engine::new_raw`] and only the
//! standard packages (arithmetic, logic, maths, arrays, strings), so there is
//! no module loading, no `eval` and no way to reach files or the network;
//! `print` and `debug` are captured (shown with the check results) instead of
//! writing over the terminal. Every call has a wall-clock deadline and an
//! operation budget, and the depth of calls, expressions, arrays and strings
//! is bounded: an endless loop or a runaway recursion stops with a message
//! in about [`CALL_DEADLINE`] instead of hanging the TUI or a drill. All the
//! calls of one check, or of one drill run, share a total time budget
//! ([`Script::set_budget`]); `sleep` (which would block past every deadline)
//! is an error, and a script defines at most [`MAX_FUNCTIONS`] functions.
//!
//! Values cross the boundary as plain Rust values ([`Value`]): floats (Rhai's
//! FLOAT is f64), integers, booleans and arrays of them. A script may return
//! an integer where a float is expected (`0` for `0.0`).
//!
//! One built-in function is registered for exercises that need randomness:
//! `rand_below(n)`, a uniform integer in `[0, n)` from the script's own
//! seeded [`Rng`], so a check or a drill run stays reproducible.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rhai::packages::{Package, StandardPackage};
use rhai::{Array, CallFnOptions, Dynamic, Engine, EvalAltResult, Scope, AST, INT};

use crate::ml::rng::Rng;

/// How long one call may run before it is stopped.
pub const CALL_DEADLINE: Duration = Duration::from_millis(1500);

/// Most scripted functions a script may define (more is not an exercise,
/// and compiling hundreds of thousands takes minutes).
pub const MAX_FUNCTIONS: usize = 1000;

/// Upper bound on operations of one call (a second, independent stop).
const MAX_OPERATIONS: u64 = 400_000_000;

/// Most characters of `print` output kept per script.
const MAX_PRINTED: usize = 4000;

/// A value passed to or returned from a script.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Float(f64),
    Int(i64),
    Bool(bool),
    Array(Vec<Value>),
}

impl Value {
    pub fn floats(xs: &[f64]) -> Value {
        Value::Array(xs.iter().map(|&x| Value::Float(x)).collect())
    }

    pub fn ints(xs: &[i64]) -> Value {
        Value::Array(xs.iter().map(|&x| Value::Int(x)).collect())
    }

    pub fn bools(xs: &[bool]) -> Value {
        Value::Array(xs.iter().map(|&x| Value::Bool(x)).collect())
    }

    pub fn matrix(rows: &[Vec<f64>]) -> Value {
        Value::Array(rows.iter().map(|r| Value::floats(r)).collect())
    }

    fn to_dynamic(&self) -> Dynamic {
        match self {
            Value::Float(x) => Dynamic::from_float(*x),
            Value::Int(i) => Dynamic::from_int(*i),
            Value::Bool(b) => Dynamic::from_bool(*b),
            Value::Array(xs) => Dynamic::from_array(xs.iter().map(Value::to_dynamic).collect()),
        }
    }

    fn from_dynamic(d: &Dynamic) -> Result<Value, String> {
        if let Ok(x) = d.as_float() {
            return Ok(Value::Float(x));
        }
        if let Ok(i) = d.as_int() {
            return Ok(Value::Int(i));
        }
        if let Ok(b) = d.as_bool() {
            return Ok(Value::Bool(b));
        }
        if d.is_array() {
            let arr = d.read_lock::<Array>().ok_or_else(|| crate::t!("exercise-value-unreadable-array"))?;
            return arr.iter().map(Value::from_dynamic).collect::<Result<_, _>>().map(Value::Array);
        }
        Err(crate::t!("exercise-value-of-type", type_name = d.type_name()))
    }

    /// The value as a number (an integer counts).
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Float(x) => Some(*x),
            Value::Int(i) => Some(*i as f64),
            _ => None,
        }
    }

    /// The value as an array of numbers.
    pub fn as_f64s(&self) -> Option<Vec<f64>> {
        match self {
            Value::Array(xs) => xs.iter().map(Value::as_f64).collect(),
            _ => None,
        }
    }

    /// The value as an array of integers.
    pub fn as_i64s(&self) -> Option<Vec<i64>> {
        match self {
            Value::Array(xs) => xs
                .iter()
                .map(|x| match x {
                    Value::Int(i) => Some(*i),
                    _ => None,
                })
                .collect(),
            _ => None,
        }
    }

    /// How the value reads in a check report (floats with up to 6 significant digits).
    pub fn show(&self) -> String {
        match self {
            Value::Float(x) => crate::numbers::fmt_value(*x),
            Value::Int(i) => i.to_string(),
            Value::Bool(b) => b.to_string(),
            Value::Array(xs) => {
                let inner: Vec<String> = xs.iter().map(Value::show).collect();
                format!("[{}]", inner.join(", "))
            }
        }
    }

    /// A short description of the value's shape, for "expected …, got …".
    pub fn describe(&self) -> String {
        match self {
            Value::Float(_) => crate::t!("exercise-value-float"),
            Value::Int(_) => crate::t!("exercise-value-int"),
            Value::Bool(_) => crate::t!("exercise-value-bool"),
            Value::Array(xs) => crate::t!("exercise-value-array", len = xs.len().to_string()),
        }
    }
}

/// Shared state the engine's callbacks read: the deadline of the call under
/// way (and what to say when it passes), the captured output and the
/// script's random stream.
struct Shared {
    deadline: Mutex<Option<(Instant, String)>>,
    printed: Mutex<String>,
    rng: Mutex<Rng>,
    /// The time all calls together may take ([`Script::set_budget`]), and how much they took.
    budget: Mutex<(Option<Duration>, Duration)>,
}

/// A compiled script and the engine that runs it.
pub struct Script {
    engine: Engine,
    ast: AST,
    shared: Arc<Shared>,
    source: String,
}

impl std::fmt::Debug for Script {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Script").field("chars", &self.source.len()).finish()
    }
}

fn engine(shared: &Arc<Shared>) -> Engine {
    let mut e = Engine::new_raw();
    e.register_global_module(StandardPackage::new().as_shared_module());
    e.set_max_operations(MAX_OPERATIONS);
    e.set_max_call_levels(64);
    e.set_max_expr_depths(64, 64);
    e.set_max_string_size(100_000);
    e.set_max_array_size(1_000_000);
    e.set_max_map_size(10_000);
    e.set_max_functions(MAX_FUNCTIONS);
    e.disable_symbol("eval");
    // `sleep` would block the thread past every deadline (the operation count stands still meanwhile).
    e.register_fn("sleep", |_: rhai::FLOAT| -> Result<(), Box<EvalAltResult>> {
        Err(crate::t!("exercise-no-sleep").into())
    });
    e.register_fn("sleep", |_: INT| -> Result<(), Box<EvalAltResult>> { Err(crate::t!("exercise-no-sleep").into()) });
    let s = shared.clone();
    e.on_progress(move |ops| {
        if ops % 2048 != 0 {
            return None;
        }
        let d = s.deadline.lock().ok()?;
        let (at, why) = d.as_ref()?;
        (Instant::now() > *at).then(|| Dynamic::from(why.clone()))
    });
    let s = shared.clone();
    // What a script prints is shown later: its control characters as text, never sent to the terminal.
    e.on_print(move |text| {
        if let Ok(mut p) = s.printed.lock() {
            if p.len() < MAX_PRINTED {
                p.push_str(&crate::textsafe::escape_controls(text));
                p.push('\n');
            }
        }
    });
    let s = shared.clone();
    e.on_debug(move |text, _, pos| {
        if let Ok(mut p) = s.printed.lock() {
            if p.len() < MAX_PRINTED {
                p.push_str(&format!("{pos}: {}\n", crate::textsafe::escape_controls(text)));
            }
        }
    });
    let s = shared.clone();
    e.register_fn("rand_below", move |n: INT| -> Result<INT, Box<EvalAltResult>> {
        if n <= 0 {
            return Err(crate::t!("exercise-rand-below-n", n = n.to_string()).into());
        }
        let mut rng = s.rng.lock().map_err(|_| crate::t!("exercise-rand-poisoned"))?;
        Ok(rng.below(n as usize) as INT)
    });
    e
}

impl Script {
    /// Compile `source`. The error says where, as `line L, column C: …`.
    pub fn compile(source: &str) -> Result<Script, String> {
        let shared = Arc::new(Shared {
            deadline: Mutex::new(None),
            printed: Mutex::new(String::new()),
            rng: Mutex::new(Rng::new(0)),
            budget: Mutex::new((None, Duration::ZERO)),
        });
        let engine = engine(&shared);
        let ast = engine.compile(source).map_err(|e| {
            let pos = e.position();
            // The error may quote the script's text: its control characters are shown, not sent.
            let e = crate::textsafe::escape_controls(&e.err_type().to_string()).into_owned();
            match (pos.line(), pos.position()) {
                (Some(l), Some(c)) => {
                    crate::t!("exercise-at-line-column", line = l.to_string(), column = c.to_string(), error = e)
                }
                (Some(l), None) => crate::t!("exercise-at-line", line = l.to_string(), error = e),
                _ => e,
            }
        })?;
        Ok(Script { engine, ast, shared, source: source.to_string() })
    }

    pub fn source(&self) -> &str {
        &self.source
    }

    /// The parameter names of `name` when the script defines it.
    pub fn params_of(&self, name: &str) -> Option<Vec<String>> {
        self.ast.iter_functions().find(|f| f.name == name).map(|f| f.params.iter().map(|p| p.to_string()).collect())
    }

    /// Check that the script defines `name` with `arity` parameters.
    pub fn require(&self, name: &str, arity: usize) -> Result<(), String> {
        match self.params_of(name) {
            None => Err(crate::t!("exercise-no-function", name = name, arity = arity.to_string())),
            Some(p) if p.len() != arity => Err(crate::t!(
                "exercise-wrong-arity",
                name = name,
                count = p.len().to_string(),
                params = p.join(", "),
                arity = arity.to_string()
            )),
            Some(_) => Ok(()),
        }
    }

    /// Give all calls from now on `total` time together (each call still
    /// stops at [`CALL_DEADLINE`]): a call that would run past it stops,
    /// and later calls fail at once, saying so. An exercise check has one
    /// budget, a drill run trained with the script another.
    pub fn set_budget(&self, total: Duration) {
        if let Ok(mut b) = self.shared.budget.lock() {
            *b = (Some(total), Duration::ZERO);
        }
    }

    /// Restart the stream `rand_below` draws from.
    pub fn seed(&self, seed: u64) {
        if let Ok(mut r) = self.shared.rng.lock() {
            *r = Rng::new(seed);
        }
    }

    /// Call `name(args…)`. Errors are messages for the learner (a runtime
    /// error with its line, a call that ran past the deadline, a value of a
    /// type that cannot come back).
    pub fn call(&self, name: &str, args: &[Value]) -> Result<Value, String> {
        let args: Vec<Dynamic> = args.iter().map(Value::to_dynamic).collect();
        let (total, used) = self.shared.budget.lock().map(|b| *b).unwrap_or((None, Duration::ZERO));
        let left = total.map(|t| t.saturating_sub(used));
        let spent =
            || crate::t!("exercise-budget-spent", secs = format!("{:.0}", total.unwrap_or_default().as_secs_f64()));
        if left == Some(Duration::ZERO) {
            return Err(spent());
        }
        let start = Instant::now();
        // The call's own deadline, or the end of the budget when that comes first.
        let deadline = match left {
            Some(l) if l < CALL_DEADLINE => (start + l, spent()),
            _ => (
                start + CALL_DEADLINE,
                crate::t!("exercise-stopped-after", secs = format!("{:.1}", CALL_DEADLINE.as_secs_f64())),
            ),
        };
        if let Ok(mut d) = self.shared.deadline.lock() {
            *d = Some(deadline);
        }
        let mut scope = Scope::new();
        let options = CallFnOptions::new().eval_ast(false).rewind_scope(true);
        let out = self.engine.call_fn_with_options::<Dynamic>(options, &mut scope, &self.ast, name, args);
        if let Ok(mut d) = self.shared.deadline.lock() {
            *d = None;
        }
        if let Ok(mut b) = self.shared.budget.lock() {
            b.1 += start.elapsed();
        }
        // A thrown string (or a name in the error) may hold control characters: shown as text.
        let out = out.map_err(|e| crate::textsafe::escape_controls(&describe_error(&e)).into_owned())?;
        Value::from_dynamic(&out).map_err(|what| crate::t!("exercise-returned-other", name = name, what = what))
    }

    /// Call and expect one number back.
    pub fn call_f64(&self, name: &str, args: &[Value]) -> Result<f64, String> {
        let v = self.call(name, args)?;
        v.as_f64().ok_or_else(|| crate::t!("exercise-must-return-number", name = name, what = v.describe()))
    }

    /// Call and expect `len` numbers back (any length when `len` is `None`).
    pub fn call_f64s(&self, name: &str, args: &[Value], len: Option<usize>) -> Result<Vec<f64>, String> {
        let v = self.call(name, args)?;
        let xs =
            v.as_f64s().ok_or_else(|| crate::t!("exercise-must-return-numbers", name = name, what = v.describe()))?;
        match len {
            Some(n) if xs.len() != n => {
                Err(crate::t!("exercise-wrong-length", name = name, len = xs.len().to_string(), want = n.to_string()))
            }
            _ => Ok(xs),
        }
    }

    /// What the script printed so far (and forget it).
    pub fn take_printed(&self) -> String {
        self.shared.printed.lock().map(|mut p| std::mem::take(&mut *p)).unwrap_or_default()
    }
}

/// A runtime error as the learner should read it: the innermost cause and
/// where it happened.
fn describe_error(e: &EvalAltResult) -> String {
    match e {
        EvalAltResult::ErrorInFunctionCall(_, _, inner, _) => describe_error(inner),
        EvalAltResult::ErrorTerminated(token, _) => {
            token.clone().into_string().unwrap_or_else(|_| crate::t!("exercise-stopped-too-long"))
        }
        EvalAltResult::ErrorTooManyOperations(_) => crate::t!("exercise-stopped-operations"),
        EvalAltResult::ErrorStackOverflow(_) => crate::t!("exercise-stopped-recursion"),
        other => {
            let pos = other.position();
            let mut msg = other.to_string();
            // The message already names the position in Rhai's words; say it plainly.
            if let Some(i) = msg.rfind(" (line ") {
                msg.truncate(i);
            }
            match (pos.line(), pos.position()) {
                (Some(l), Some(c)) => {
                    crate::t!("exercise-at-line-column", line = l.to_string(), column = c.to_string(), error = msg)
                }
                _ => msg,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_with_floats_and_arrays() {
        let s = Script::compile("fn f(xs, k) { let out = []; for x in xs { out.push(x * k); } out }").unwrap();
        assert_eq!(
            s.call_f64s("f", &[Value::floats(&[1.0, 2.0]), Value::Float(0.5)], Some(2)).unwrap(),
            vec![0.5, 1.0]
        );
        s.require("f", 2).unwrap();
        assert!(s.require("f", 3).unwrap_err().contains("must take 3"));
        assert!(s.require("g", 1).unwrap_err().contains("does not define"));
    }

    #[test]
    fn integers_count_as_floats_and_mixed_arithmetic_works() {
        let s = Script::compile("fn f(x) { if x > 1.0 { 0 } else { x + 1 } }").unwrap();
        assert_eq!(s.call_f64("f", &[Value::Float(2.0)]).unwrap(), 0.0);
        assert_eq!(s.call_f64("f", &[Value::Float(0.5)]).unwrap(), 1.5);
    }

    #[test]
    fn an_endless_loop_stops_within_the_deadline() {
        let s = Script::compile("fn f() { let i = 0; loop { i += 1; } }").unwrap();
        let t = Instant::now();
        let e = s.call("f", &[]).unwrap_err();
        assert!(t.elapsed() < CALL_DEADLINE * 3, "took {:?}", t.elapsed());
        assert!(e.contains("stopped"), "{e}");
        let r = Script::compile("fn f(n) { f(n + 1) }").unwrap();
        assert!(r.call("f", &[Value::Int(0)]).unwrap_err().contains("stopped"));
    }

    #[test]
    fn errors_say_where() {
        let e = Script::compile("fn f(x) {\n  let y = ;\n}").unwrap_err();
        assert!(e.starts_with("line 2"), "{e}");
        let s = Script::compile("fn f(xs) {\n  xs[10]\n}").unwrap();
        let e = s.call("f", &[Value::floats(&[1.0])]).unwrap_err();
        assert!(e.contains("line 2"), "{e}");
    }

    #[test]
    fn no_eval_no_import_and_print_is_captured() {
        assert!(Script::compile("fn f() { eval(\"1\") }").is_err());
        let s = Script::compile("fn f() { import \"x\" as m; 1 }");
        if let Ok(s) = s {
            assert!(s.call("f", &[]).is_err());
        }
        let s = Script::compile("fn f() { print(\"hi\"); 1 }").unwrap();
        s.call("f", &[]).unwrap();
        assert_eq!(s.take_printed(), "hi\n");
    }

    #[test]
    fn rand_below_is_seeded() {
        let s = Script::compile("fn f() { let a = []; for i in 0..5 { a.push(rand_below(100)); } a }").unwrap();
        s.seed(7);
        let a = s.call("f", &[]).unwrap();
        s.seed(7);
        assert_eq!(s.call("f", &[]).unwrap(), a);
        assert!(s.call("f", &[]).unwrap() != a);
    }
}
