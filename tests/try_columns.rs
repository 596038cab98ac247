//! Try on reward-model-overopt (a scorer), tool-retrieval (retrieval),
//! long-context-rope, lora-vs-full, model-merging and ewc-replay (arms in
//! columns): each drill runs once (quick, seed 1) and its Try is asked
//! headless and in-process; every test checks something that wrong or
//! untrained weights would break, most against what the run itself
//! measured. rollout-infra has no Try and says why.

mod common;

use common::tried::{drill_state, err, key, out, run, wait};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::OnceLock;

use agentlab::content::Content;
use agentlab::drills::try_it::{TryAnswer, TryOpts, TrySession};
use agentlab::drills::Report;
use agentlab::envs::refine_arith::Problem;
use agentlab::ml::rng::Rng;
use agentlab::tui::screens::drill;
use agentlab::tui::screens::Screen;
use agentlab::tui::App;
use crossterm::event::KeyCode;

const DRILLS: [&str; 6] =
    ["reward-model-overopt", "tool-retrieval", "long-context-rope", "lora-vs-full", "model-merging", "ewc-replay"];

/// The run directory of a quick seed-1 run of `drill`, run once for the whole binary.
fn run_of(drill: &str) -> PathBuf {
    static RUNS: [OnceLock<PathBuf>; 6] = [const { OnceLock::new() }; 6];
    let i = DRILLS.iter().position(|d| *d == drill).expect("one of this file's drills");
    RUNS[i]
        .get_or_init(|| {
            let home = common::isolated_home();
            let o = run(home, &["drill", "run", drill, "--seed", "1"]);
            assert!(o.status.success(), "{drill}: {}{}", out(&o), err(&o));
            assert!(out(&o).contains("kept the models"), "{}", out(&o));
            let root = home.join("runs").join(drill);
            let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root).unwrap().flatten().map(|e| e.path()).collect();
            dirs.sort();
            dirs.pop().unwrap()
        })
        .clone()
}

/// `agentlab try DIR ARGS… --json` on one input, parsed.
fn ask(dir: &Path, input: &str, args: &[&str]) -> TryAnswer {
    let d = dir.to_str().unwrap();
    let o = run(common::isolated_home(), &[&["try", d, "--input", input, "--json"], args].concat());
    assert!(o.status.success(), "{input}: {}", err(&o));
    serde_json::from_str(out(&o).trim()).unwrap()
}

/// `agentlab try DIR --input INPUT` refused: exit 2, and what stderr says.
fn refused(dir: &Path, input: &str) -> String {
    let o = run(common::isolated_home(), &["try", dir.to_str().unwrap(), "--input", input]);
    assert_eq!(o.status.code(), Some(2), "{input:?} was not refused: {}", out(&o));
    err(&o)
}

/// The Try session of a run, in this process.
fn session(dir: &Path) -> Box<dyn TrySession> {
    let content = Content::embedded().unwrap();
    let record = agentlab::runner::load_run(dir);
    let meta = content.drill(&record.config.as_ref().unwrap().drill).unwrap().clone();
    agentlab::cli::runs::open_session(&meta, &record).unwrap()
}

fn answer(s: &mut Box<dyn TrySession>, input: &str, opts: &TryOpts) -> TryAnswer {
    s.answer(input, opts, &mut |_| {}, &AtomicBool::new(false)).unwrap_or_else(|e| panic!("{input}: {e:#}"))
}

fn report(dir: &Path) -> Report {
    serde_json::from_str(&std::fs::read_to_string(dir.join("report.json")).unwrap()).unwrap()
}

fn claim(r: &Report, id: &str) -> f64 {
    r.claims.iter().find(|c| c.id == id).unwrap_or_else(|| panic!("no claim {id}")).measured
}

/// Greedy, one sample, only `arm`.
fn greedy(arm: Option<&str>) -> TryOpts {
    let mut o = TryOpts::new(1, 0.0);
    o.arm = arm.map(str::to_string);
    o
}

/// A verdict's value on a sample, by name.
fn verdict<'a>(s: &'a agentlab::drills::try_it::TrySample, name: &str) -> &'a agentlab::drills::try_it::Verdict {
    s.verdicts.iter().find(|v| v.name == name).unwrap_or_else(|| panic!("no verdict {name}: {s:?}"))
}

/// reward-model-overopt: on held-out problems the reward model trained on
/// the large set scores the right answer above the carry-dropped one more
/// often than the reward model before training; best-of-n samples the same
/// answers twice; bad input is refused with the form to type.
#[test]
fn reward_model_overopt_scores_typed_answers_and_picks_among_samples() {
    let dir = run_of("reward-model-overopt");
    let mut s = session(&dir);
    let arms: Vec<String> = s.arms().into_iter().map(|a| a.id).collect();
    assert_eq!(arms, ["policy", "rm-start", "rm-small", "rm-large"]);
    // The run's held-out problems (its phase "data"), those with a carry to drop.
    let mut test_rng = Rng::new(1).fork(7);
    let mut seen = BTreeSet::new();
    let mut held = Vec::new();
    while held.len() < 40 {
        let q = Problem::random(2, &mut test_rng);
        if seen.insert((q.a, q.b)) && q.has_carry() {
            held.push(q);
        }
    }
    let mut ordered = [0usize; 2];
    for q in &held {
        // The candidates: the answer typed (a bare 0), the right one and the carry-dropped one, bare and with dots.
        let a = answer(&mut s, &format!("{}0", q.prompt()), &TryOpts::new(1, 0.0));
        for (k, arm) in ["rm-start", "rm-large"].iter().enumerate() {
            let col = a.columns.iter().find(|c| c.arm == *arm).unwrap();
            let score = |text: String| -> f64 {
                let s = col.samples.iter().find(|s| s.lines[0] == format!("{}{text}", q.prompt())).unwrap();
                verdict(s, "score").value.parse().unwrap()
            };
            ordered[k] += usize::from(score(q.answer()) > score(q.carry_dropped()));
        }
    }
    assert!(
        ordered[1] >= 28 && ordered[1] >= ordered[0] + 8,
        "the large-set RM orders right above carry-dropped on {} of 40 held-out problems, the untrained one on {}",
        ordered[1],
        ordered[0]
    );
    let problems: Vec<String> = s.examples().into_iter().filter(|e| e.ends_with('=')).collect();
    assert!(problems.len() >= 6, "{problems:?}");

    // Best-of-n: n policy samples, each RM's pick among them; the same twice.
    let d = dir.to_str().unwrap();
    let args = ["try", d, "--input", &problems[0], "--samples", "4"];
    let (x, y) = (run(common::isolated_home(), &args), run(common::isolated_home(), &args));
    assert!(x.status.success(), "{}", err(&x));
    assert_eq!(out(&x), out(&y));
    let a = ask(&dir, &problems[0], &["--samples", "4"]);
    assert_eq!(a.columns[0].samples.len(), 4);
    for col in &a.columns[1..] {
        let picks = col.samples.iter().filter(|s| s.verdicts.iter().any(|v| v.name == "pick")).count();
        assert_eq!(picks, 1, "one pick per reward model: {col:?}");
    }
    assert!(refused(&dir, "hello").contains("type a problem like 47+85="));
    assert!(refused(&dir, "47+85=2x1").contains("an answer is digits"));
}

/// tool-retrieval: on the run's held-out queries the hard-negative encoder
/// ranks the named tool first more often than the encoder before training;
/// every retriever lists five tools; a query of unknown words is refused.
#[test]
fn tool_retrieval_lists_each_retrievers_top_five() {
    let dir = run_of("tool-retrieval");
    let mut s = session(&dir);
    let arms: Vec<String> = s.arms().into_iter().map(|a| a.id).collect();
    assert_eq!(arms, ["start", "in-batch-only", "random-extras", "hard-negatives", "bm25"]);
    let mut first = std::collections::BTreeMap::<String, usize>::new();
    let examples = s.examples();
    assert!(examples.len() >= 8, "{examples:?}");
    for q in &examples {
        let a = answer(&mut s, q, &TryOpts::new(1, 0.0));
        assert!(a.notes.iter().any(|n| n.contains("a held-out tool")), "{:?}", a.notes);
        for col in &a.columns {
            let flat = col.arm == "bm25" && col.samples[0].lines[0].starts_with("every tool scores");
            assert!(flat || col.samples[0].lines.len() == 5, "{col:?}");
            let rank = verdict(&col.samples[0], "rank of the named tool");
            *first.entry(col.arm.clone()).or_default() += usize::from(rank.good == Some(true));
        }
    }
    assert!(first["hard-negatives"] > first["start"], "{first:?}");
    // Synonyms only: BM25 reads no tool's name, and its tie is not a ranking.
    let a = ask(&dir, "fetch my climate outlook please", &[]);
    let bm25 = a.columns.iter().find(|c| c.arm == "bm25").unwrap();
    assert!(bm25.samples[0].lines[0].starts_with("every tool scores 0.000"), "{bm25:?}");
    assert_eq!(verdict(&bm25.samples[0], "rank of the named tool").good, Some(false), "{bm25:?}");
    assert!(refused(&dir, "xyzzy plugh").contains("none of these words is in the tool world"));
}

/// long-context-rope: at the trained length every arm that was not
/// fine-tuned copies; at the longest, the model as trained fails where the
/// interpolated fine-tune copies (the run's claims, on the learner's own
/// sequences); too long a sequence is refused with the limit.
#[test]
fn long_context_rope_shows_each_scalings_copy() {
    let dir = run_of("long-context-rope");
    let mut s = session(&dir);
    let arms: Vec<String> = s.arms().into_iter().map(|a| a.id).collect();
    assert_eq!(arms, ["trained", "pi", "ntk", "yarn", "pi-ft", "none-ft"]);
    let lengths: Vec<String> = s.examples().into_iter().filter(|e| e.parse::<usize>().is_ok()).collect();
    let (short, long) = (lengths.first().unwrap().clone(), lengths.last().unwrap().clone());
    let acc = |a: &TryAnswer, arm: &str| -> f64 {
        let col = a.columns.iter().find(|c| c.arm == arm).unwrap();
        col.summary[0].value.parse().unwrap()
    };
    let a = answer(&mut s, &short, &TryOpts::new(8, 0.0));
    assert!(acc(&a, "trained") >= 0.9, "{}", acc(&a, "trained"));
    let a = answer(&mut s, &long, &TryOpts::new(8, 0.0));
    assert!(acc(&a, "pi-ft") > acc(&a, "trained") + 0.3, "{} vs {}", acc(&a, "pi-ft"), acc(&a, "trained"));
    // A typed sequence: one sample, the wrong positions in capitals.
    let typed = s.examples().into_iter().find(|e| e.parse::<usize>().is_err()).unwrap();
    let a = ask(&dir, &typed, &[]);
    let copy = &a.columns[0].samples[0].lines[1];
    assert!(copy.starts_with("copy "), "{copy}");
    let too_long = (long.parse::<usize>().unwrap() + 1).to_string();
    assert!(refused(&dir, &too_long).contains("symbols is more than the run's model reads"));
    assert!(refused(&dir, "a9!").contains("type a length"));
}

/// The held-out words of lora-vs-full as its phase "data" draws them
/// (sorted): the run's probe is the first 64.
fn lora_held_words(seed: u64, symbols: usize, len: usize, n: usize) -> Vec<String> {
    let mut rng = Rng::new(seed);
    rng.fork(1); // the cipher
    let mut wr = rng.fork(2);
    let mut held = BTreeSet::new();
    while held.len() < n {
        held.insert((0..len).map(|_| (b'a' + wr.below(symbols) as u8) as char).collect::<String>());
    }
    held.into_iter().collect()
}

/// lora-vs-full: each arm's letters right on the run's 64 probe words are
/// the held-out accuracy the run charted last for that arm (the kept arms
/// are the trained ones, LoRA merged); the base gets the cipher wrong;
/// base-task text gets each arm's loss.
#[test]
fn lora_vs_full_answers_match_what_the_run_measured() {
    let dir = run_of("lora-vs-full");
    let r = report(&dir);
    let mut s = session(&dir);
    let arms: Vec<String> = s.arms().into_iter().map(|a| a.id).collect();
    assert_eq!(arms, ["base", "full", "lora-low", "lora-high"]);
    let probe = lora_held_words(1, 10, 4, 256)[..64].to_vec();
    for (arm, series) in [
        ("base", None),
        ("full", Some("held-out accuracy · full")),
        ("lora-low", Some("held-out accuracy · LoRA r=1")),
        ("lora-high", Some("held-out accuracy · LoRA r=8")),
    ] {
        let mut right = 0usize;
        for w in &probe {
            let a = answer(&mut s, w, &greedy(Some(arm)));
            let v = verdict(&a.columns[0].samples[0], "letters");
            right += v.value.split('/').next().unwrap().parse::<usize>().unwrap();
        }
        let acc = right as f64 / (64 * 4) as f64;
        match series {
            None => assert!(acc < 0.3, "the base reads the cipher ({acc})"),
            // Batched or one at a time, a near tie may fall the other way: two letters of slack.
            Some(name) => {
                assert!((acc - r.finals[name]).abs() <= 2.0 / 256.0, "{arm}: {acc} vs the run's {}", r.finals[name])
            }
        }
    }
    let text = s.examples().last().unwrap().clone();
    let a = answer(&mut s, &text, &TryOpts::new(1, 0.0));
    let losses: Vec<f64> =
        a.columns.iter().map(|c| verdict(&c.samples[0], "base-task loss").value.parse().unwrap()).collect();
    assert!(losses.iter().all(|l| l.is_finite() && *l > 0.0), "{losses:?}");
    assert_ne!(losses[0], losses[1]);
}

/// model-merging: the experts and the DARE merge, asked every held-out
/// word of both tasks, give the run's own retention of DARE (made again
/// from θ₀ and the experts, its drops from the run's random stream, λ*
/// from the validation sweep); an expert answers only its own task.
#[test]
fn model_merging_makes_the_runs_merges_again() {
    use agentlab::envs::strings::StringTask;
    let dir = run_of("model-merging");
    let r = report(&dir);
    let mut s = session(&dir);
    let arms: Vec<String> = s.arms().into_iter().map(|a| a.id).collect();
    assert_eq!(arms, ["warm-start", "expert-a", "expert-b", "average", "ta-fixed", "ta-tuned", "ties", "dare"]);
    let mut rng = Rng::new(1);
    let a = StringTask::Upper.pairs(5, 300, 100, false, &mut rng.fork(1));
    let b = StringTask::Digits.pairs(5, 300, 100, true, &mut rng.fork(2));
    let chars = |s: &mut Box<dyn TrySession>, arm: &str, items: &[(String, String)]| -> f64 {
        let mut total = 0.0;
        for (q, _) in items {
            let ans = answer(s, q, &greedy(Some(arm)));
            let v = &ans.columns[0].samples[0].verdicts[0];
            total += v.value.parse::<f64>().unwrap();
        }
        total / items.len() as f64
    };
    let own = [chars(&mut s, "expert-a", &a.test), chars(&mut s, "expert-b", &b.test)];
    let dare = [chars(&mut s, "dare", &a.test), chars(&mut s, "dare", &b.test)];
    let retention = (dare[0] / own[0]).min(dare[1] / own[1]);
    let theirs = claim(&r, "dare_keeps_both");
    assert!((retention - theirs).abs() < 0.01, "DARE keeps {retention:.4} here, {theirs:.4} in the run");
    // A bare word held out under both tasks asks both: each expert gets its own task only.
    let both = s.examples().into_iter().next().unwrap();
    let ans = answer(&mut s, &both, &TryOpts::new(1, 0.0));
    let ok = |arm: &str, k: usize| ans.columns.iter().find(|c| c.arm == arm).unwrap().samples[k].verdicts[0].good;
    assert_eq!(ans.columns[0].samples.len(), 2);
    assert_eq!((ok("expert-a", 0), ok("expert-b", 1)), (Some(true), Some(true)), "{ans:#?}");
    assert_eq!((ok("expert-a", 1), ok("expert-b", 0)), (Some(false), Some(false)), "{ans:#?}");
    assert!(refused(&dir, "abz!").contains("type a word of at most"));
}

/// ewc-replay: asked every held-out word under task A's marker, the model
/// after A and the naive and replay models after B give the run's own
/// forgetting and replay gain (exact match, as the run scores).
#[test]
fn ewc_replay_columns_give_the_runs_accuracy_matrix() {
    use agentlab::envs::strings::split_words;
    let dir = run_of("ewc-replay");
    let r = report(&dir);
    let mut s = session(&dir);
    let arms: Vec<String> = s.arms().into_iter().map(|a| a.id).collect();
    assert_eq!(arms, ["after-a", "naive-after-b", "ewc-after-b", "replay-after-b"]);
    let (held, _) = split_words(5, 300, &mut Rng::new(1).fork(1));
    let exact = |s: &mut Box<dyn TrySession>, arm: &str| -> f64 {
        let right = held
            .iter()
            .filter(|w| {
                answer(s, &format!("{w}="), &greedy(Some(arm))).columns[0].samples[0].verdicts[0].good == Some(true)
            })
            .count();
        right as f64 / held.len() as f64
    };
    let (a, naive, replay) =
        (exact(&mut s, "after-a"), exact(&mut s, "naive-after-b"), exact(&mut s, "replay-after-b"));
    let close = |x: f64, id: &str| assert!((x - claim(&r, id)).abs() <= 2.0 / 300.0, "{id}: {x} vs {}", claim(&r, id));
    close(a - naive, "naive_forgets_a");
    close(replay - naive, "replay_keeps_a");
    // A bare word asks both tasks: two samples per column, each judged.
    let w = s.examples()[0].clone();
    let ans = answer(&mut s, &w, &TryOpts::new(1, 0.0));
    assert!(ans.columns.iter().all(|c| c.samples.len() == 2), "{ans:#?}");
    assert!(refused(&dir, "abcxyz").contains("type a word of letters a–h"));
}

/// rollout-infra has no Try, and says why before it looks for models.
#[test]
fn rollout_infra_says_why_it_has_no_try() {
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join("runs/rollout-infra/2026-12-07T10-00-00");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("config.toml"),
        "drill = \"rollout-infra\"\npreset = \"quick\"\nseed = 1\ndevice = \"cpu\"\n\n[params]\n",
    )
    .unwrap();
    let o = run(home.path(), &["try", dir.to_str().unwrap(), "--input", "47+38"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("rollout-infra has no Try: it measures this machine"), "{}", err(&o));
}

/// The Try tab on `drill`'s run: `6`, type `input`, Enter; the screen at
/// 120×40 once answered (and 60×16 drawn too).
fn try_tab(drill: &str, input: &str) -> String {
    run_of(drill);
    let home = common::isolated_home();
    let mut app = App::new(Content::embedded().unwrap());
    let meta = app.content.drill(drill).unwrap().clone();
    let state = drill::State::new(&meta, home.join("runs"), home.join("sweeps"), Default::default());
    app.stack.push(Screen::Drill(Box::new(state)));
    wait(&mut app, 180, |d| d.shown_dir.is_some());
    key(&mut app, KeyCode::Char('6'));
    wait(&mut app, 180, |d| d.try_tab.info.is_some() || d.try_tab.error.is_some());
    assert!(drill_state(&mut app).try_tab.error.is_none(), "{:?}", drill_state(&mut app).try_tab.error);
    key(&mut app, KeyCode::Char('i'));
    for c in input.chars() {
        key(&mut app, KeyCode::Char(c));
    }
    key(&mut app, KeyCode::Enter);
    wait(&mut app, 180, |d| !d.try_tab.answering && d.try_tab.answer.is_some());
    let small = common::screen_lines(&mut app, 60, 16).join("\n");
    assert!(small.contains("Try"), "{small}");
    common::screen_lines(&mut app, 120, 40).join("\n")
}

/// The Try tab, one test per kind these drills add: a scorer, a retrieval, arms in columns.
#[test]
fn the_try_tab_shows_scores_rankings_and_columns() {
    let screen = try_tab("reward-model-overopt", "47+85=231..");
    for want in ["policy (SFT)", "RM before training", "pairs", "score", "47+85=231.."] {
        assert!(screen.contains(want), "scorer: {want} missing:\n{screen}");
    }
    let screen = try_tab("tool-retrieval", "get the weather forecast");
    for want in ["encoder before training", "hard negatives", "BM25", "1. ", "5. ", "✓"] {
        assert!(screen.contains(want), "retrieval: {want} missing:\n{screen}");
    }
    let screen = try_tab("lora-vs-full", "abcd");
    for want in ["base (shipped)", "full fine-tuning", "LoRA r=1", "LoRA r=8", "letters", "the cipher's answer"] {
        assert!(screen.contains(want), "columns: {want} missing:\n{screen}");
    }
}
