//! The drills, run for real on the CPU.
//!
//! * Every drill's quick preset on one seed: every claim must hold. (How often
//!   each claim holds over seeds 1–20 is measured with `agentlab drill sweep`
//!   and quoted in the drill's README; sweeps are measurements, not tests.)
//! * Same seed → the same run, metric for metric.
//! * Claims can fail: each drill's README names the setting that breaks each
//!   claim; where a short run shows it, a test here runs it and checks that
//!   the claim reads FAIL there while the default setting holds.

use agentlab::content::Content;
use agentlab::drills::{ClaimResult, Event, Report, RunStatus};
use agentlab::ml::device::DeviceChoice;
use agentlab::runner::{self, RunConfig};

mod common;

/// Run a drill's quick preset with overrides (and learner scripts); every
/// event, and the `config.toml` the run saved.
fn run_events(
    id: &str,
    seed: u64,
    sets: &[(&str, &str)],
    uses: std::collections::BTreeMap<String, agentlab::exercises::plug::UsedScript>,
) -> (Vec<Event>, String) {
    let content = Content::embedded().unwrap();
    let meta = content.drill(id).unwrap();
    let sets: Vec<(String, String)> = sets.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    let params = runner::resolve_params(meta, "quick", &sets).unwrap();
    let root = tempfile::tempdir().unwrap();
    let config = RunConfig { uses, ..RunConfig::new(id, "quick", seed, DeviceChoice::Cpu, params) };
    let mut h = runner::start(meta, config, root.path()).unwrap();
    let events: Vec<Event> = h.rx.iter().collect();
    h.join();
    let saved = std::fs::read_to_string(h.dir.join("config.toml")).unwrap();
    (events, saved)
}

/// Run a drill's quick preset with overrides; every event and the report.
fn run_with(id: &str, seed: u64, sets: &[(&str, &str)]) -> (Vec<Event>, Report) {
    let (events, _) = run_events(id, seed, sets, Default::default());
    let report =
        events.iter().find_map(|e| if let Event::Finished(r) = e { Some(r.clone()) } else { None }).expect("a report");
    for c in &report.claims {
        eprintln!(
            "{id} seed {seed} {sets:?}: {} = {:.4} ({} {}) {}",
            c.id,
            c.measured,
            c.op.symbol(),
            c.threshold,
            if c.pass { "pass" } else { "FAIL" }
        );
    }
    eprintln!("{id} seed {seed}: {} · {:.1} s", report.status, report.wall_s);
    (events, report)
}

fn claim<'a>(r: &'a Report, id: &str) -> &'a ClaimResult {
    r.claims.iter().find(|c| c.id == id).unwrap_or_else(|| panic!("no claim {id} in {:?}", r.claims))
}

fn quick_passes(id: &str, seed: u64) {
    let (_, r) = run_with(id, seed, &[]);
    assert_eq!(r.status, RunStatus::Passed, "{id} seed {seed}: {:?}\n{:#?}", r.status, r.claims);
}

#[test]
fn sft_basics_quick_passes() {
    quick_passes("sft-basics", 1);
}

#[test]
fn ewc_replay_quick_passes() {
    quick_passes("ewc-replay", 1);
}

#[test]
fn react_tool_call_loop_quick_passes() {
    quick_passes("react-tool-call-loop", 1);
}

#[test]
fn turn_credit_assignment_quick_passes() {
    quick_passes("turn-credit-assignment", 1);
}

#[test]
fn self_refine_loop_quick_passes() {
    quick_passes("self-refine-loop", 1);
}

/// Every metric point (step, name, value) and every claim value of a run;
/// wall-clock times left out.
fn numbers(events: &[Event]) -> Vec<(String, u64, f64)> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Metric { step, name, value, .. } => Some((name.clone(), *step, *value)),
            Event::Claim(c) => Some((format!("claim {}", c.id), 0, c.measured)),
            _ => None,
        })
        .collect()
}

/// The agent drill on the shipped base model: threaded matrix products and
/// the fused model's parallel reductions in the forward and backward pass,
/// sampling, RL updates. Two runs, bit for bit the same numbers.
#[test]
fn same_seed_gives_the_same_numbers() {
    let short = [("warm_steps", "100"), ("rl_steps", "4"), ("questions_per_step", "4"), ("group", "4")];
    let (a, _) = run_with("turn-credit-assignment", 7, &short);
    let (b, _) = run_with("turn-credit-assignment", 7, &short);
    let (na, nb) = (numbers(&a), numbers(&b));
    assert!(na.len() > 100, "{} numbers", na.len());
    for (x, y) in na.iter().zip(&nb) {
        // Bitwise: the same f64, not merely close.
        assert!(x.0 == y.0 && x.1 == y.1 && x.2.to_bits() == y.2.to_bits(), "{x:?} vs {y:?}");
    }
    assert_eq!(na.len(), nb.len());
    // A different seed is a different run.
    let (c, _) = run_with("turn-credit-assignment", 8, &short);
    assert_ne!(numbers(&c), na);
}

/// `mask_observations = false`: the policy-gradient loss covers the tokens
/// the world wrote, and their logits get a gradient. A few RL steps show it.
#[test]
fn unmasked_observations_get_a_gradient() {
    let short = [("warm_steps", "100"), ("rl_steps", "3"), ("questions_per_step", "4"), ("group", "4")];
    let (_, masked) = run_with("turn-credit-assignment", 3, &short);
    assert!(claim(&masked, "observation_logit_grad").pass);
    let mut off = short.to_vec();
    off.push(("mask_observations", "false"));
    let (_, unmasked) = run_with("turn-credit-assignment", 3, &off);
    let c = claim(&unmasked, "observation_logit_grad");
    assert!(!c.pass && c.measured > 1e-6, "{c:?}");
}

/// Run `id`'s quick preset on `seed` with one breaking setting and check that
/// each listed claim reads FAIL there (the default run of the same seed is
/// covered by the `*_quick_passes` tests).
fn breaks(id: &str, seed: u64, setting: (&str, &str), claims: &[&str]) {
    let (_, r) = run_with(id, seed, &[setting]);
    assert_ne!(r.status, RunStatus::Passed, "{id} with {setting:?}");
    for c in claims {
        let c = claim(&r, c);
        assert!(!c.pass, "{id} with {setting:?}: {c:?} should fail");
    }
}

/// Without the prompt mask the loss also averages over the operands, which
/// no model can predict: the loss cannot fall to a quarter of its start.
#[test]
fn sft_loss_drop_fails_without_the_prompt_mask() {
    breaks("sft-basics", 1, ("mask_prompt", "false"), &["loss_drop"]);
}

/// λ = 0 makes EWC plain fine-tuning: task A is forgotten like naive's, and
/// its important weights drift exactly as far.
#[test]
fn ewc_claims_fail_without_the_penalty() {
    breaks("ewc-replay", 1, ("lambda", "0"), &["ewc_keeps_a", "ewc_anchors_important_weights"]);
}

/// The model as its own critic approves its own mistakes: refining with its
/// critiques gains nothing, nothing over the self-critic probe, and a STaR
/// round collects only drafts that were already right.
#[test]
fn self_refine_gains_nothing_with_the_model_as_critic() {
    breaks("self-refine-loop", 1, ("critic", "self"), &["refine_gain", "verifier_beats_self_critic", "star_gain"]);
}

/// Nearly greedy rollouts: a group repeats one episode, every advantage is
/// 0, and RL neither closes the reward gap nor drops the needless searches.
#[test]
fn turn_credit_learns_nothing_from_near_greedy_groups() {
    breaks("turn-credit-assignment", 1, ("temperature", "0.05"), &["reward_gap_closed", "needless_search_drop"]);
}

/// A search that costs more than a right answer pays: RL learns to guess
/// even where the agent cannot know.
#[test]
fn turn_credit_stops_searching_when_a_search_costs_too_much() {
    breaks("turn-credit-assignment", 1, ("search_cost", "1.5"), &["needed_searches_kept"]);
}

/// Trained on every token, the agent writes observations itself like its
/// unmasked twin: the hallucination gap closes.
#[test]
fn react_hallucination_gap_closes_without_the_mask() {
    breaks("react-tool-call-loop", 1, ("mask_observations", "false"), &["hallucination_gap"]);
}

/// The same run with 1 and with 3 threads: the fused model's reductions add
/// fixed blocks in a fixed order, so the thread count changes nothing.
#[test]
fn the_number_of_threads_does_not_change_a_run() {
    let run = |threads: &str| -> Vec<(String, u64, u64)> {
        let home = tempfile::tempdir().unwrap();
        let out = common::agentlab(home.path())
            .args(["drill", "run", "turn-credit-assignment", "--seed", "5", "--json"])
            .args([
                "--set",
                "warm_steps=40",
                "--set",
                "rl_steps=3",
                "--set",
                "questions_per_step=4",
                "--set",
                "group=4",
            ])
            .env("RAYON_NUM_THREADS", threads)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| serde_json::from_str::<Event>(l).ok())
            .filter_map(|e| match e {
                Event::Metric { step, name, value, .. } => Some((name, step, value.to_bits())),
                Event::Claim(c) => Some((c.id, 0, c.measured.to_bits())),
                _ => None,
            })
            .collect()
    };
    let one = run("1");
    assert!(one.len() > 50, "{} numbers", one.len());
    assert_eq!(one, run("3"));
}

/// Seed 2: on seed 1 `proxy_reward_gain` reads 0.049 against 0.05, the one
/// miss of seeds 1–20 (19/20, drills/grpo-rlvr/README.md).
#[test]
fn grpo_rlvr_quick_passes() {
    quick_passes("grpo-rlvr", 2);
}

/// Paid by the exact verifier, the proxy arm is a second sound arm: it stops
/// hedging, its true accuracy rises, and the gap detector has nothing to flag.
#[test]
fn grpo_rlvr_hacking_claims_fail_with_the_exact_reward() {
    breaks("grpo-rlvr", 1, ("reward", "exact"), &["proxy_true_change", "proxy_exploit_share", "detector_flags_proxy"]);
}

/// lr = 0: neither policy moves. No gain, and the sound arm keeps the warm
/// start's hedges, so its gap stays where the warm start's was.
#[test]
fn grpo_rlvr_claims_fail_when_nothing_is_learned() {
    breaks("grpo-rlvr", 1, ("lr", "0"), &["sound_true_gain", "proxy_reward_gain", "detector_quiet_on_sound"]);
}

#[test]
fn dpo_pairs_quick_passes() {
    quick_passes("dpo-pairs", 1);
}

/// Chosen and rejected swapped in the training pairs (a labelling bug): DPO
/// learns to prefer the wrong answers, so the implicit reward orders the
/// true held-out pairs the wrong way and the pass rate falls.
#[test]
fn dpo_pairs_claims_fail_with_swapped_labels() {
    breaks("dpo-pairs", 1, ("swap_labels", "true"), &["heldout_reward_accuracy", "pass_rate_gain"]);
}

/// A learning rate far too small: the policy barely leaves the reference, so
/// the pass rate does not rise and the two β end equally close to it.
#[test]
fn dpo_pairs_claims_fail_with_a_tiny_learning_rate() {
    breaks("dpo-pairs", 1, ("lr", "1e-7"), &["pass_rate_gain", "higher_beta_stays_closer"]);
}

#[test]
fn model_merging_quick_passes() {
    quick_passes("model-merging", 1);
}

/// Experts trained for 20 steps have not learned their tasks: the run stops
/// at its setup check and reports no claims — a merge of experts without
/// their skills says nothing about merging.
#[test]
fn model_merging_stops_at_its_setup_check_when_the_experts_have_not_learned() {
    let (_, r) = run_with("model-merging", 1, &[("steps", "20")]);
    match &r.status {
        RunStatus::Failed(m) => assert!(m.contains("setup failed: each expert has learned its own task"), "{m}"),
        other => panic!("model-merging with steps = 20: {other:?}"),
    }
    assert!(r.claims.is_empty(), "{:?}", r.claims);
}

/// DARE that drops 99% of each task vector and multiplies the rest by 100
/// adds noise far larger than the update it keeps: the DARE merge loses a
/// task (0.000 on seeds 1–4; at 95% it fails on only two of them).
#[test]
fn model_merging_dare_fails_when_it_drops_almost_everything() {
    breaks("model-merging", 1, ("dare_p", "0.99"), &["dare_keeps_both"]);
}

/// Expert B fine-tuned from the same network with its MLP units and heads
/// permuted (the same function in other coordinates): weight i of B is not
/// weight i of A, and the merges keep at most one task.
#[test]
fn model_merging_fails_across_permuted_bases() {
    breaks(
        "model-merging",
        1,
        ("init_b", "permuted"),
        &["merge_beats_both_experts", "task_arithmetic_keeps_both", "dare_keeps_both"],
    );
}

#[test]
fn pass_at_k_harness_quick_passes() {
    quick_passes("pass-at-k-harness", 1);
}

/// A Monte-Carlo check that draws its k completions with replacement is the
/// plug-in estimator in disguise: it sits on the naive curve, away from the
/// unbiased one, and the two estimator claims fail.
#[test]
fn pass_at_k_harness_estimator_claims_fail_when_drawing_with_replacement() {
    breaks(
        "pass-at-k-harness",
        1,
        ("mc_draw", "with-replacement"),
        &["unbiased_matches_monte_carlo", "naive_below_monte_carlo"],
    );
}

/// Without the planted slip the model's most likely answer is right on every
/// problem: 16 samples at the lowest temperature already solve them all, and
/// more temperature has no coverage left to add.
#[test]
fn pass_at_k_harness_crossover_needs_problems_the_model_is_wrong_about() {
    breaks("pass-at-k-harness", 1, ("slip_rate", "0"), &["pass_at_n_rises_with_temperature"]);
}

/// Every counted claim holds; the wall-clock ones (time ratios, which a
/// loaded test machine may squeeze) are only checked to be measured.
#[test]
fn rollout_infra_quick_passes() {
    let (_, r) = run_with("rollout-infra", 1, &[]);
    let wall_clock = ["cache_speedup", "batching_speedup", "async_speedup", "bucketed_forward_speedup"];
    assert_eq!(r.claims.len(), 10, "{:#?}", r.claims);
    for c in &r.claims {
        if wall_clock.contains(&c.id.as_str()) {
            assert!(c.measured.is_finite() && c.measured > 0.0, "{c:?}");
        } else {
            assert!(c.pass || c.observation, "{c:?}");
        }
    }
}

/// Sorting within a window of one batch changes no batch's membership:
/// bucketing removes no padded token.
#[test]
fn rollout_infra_bucketing_needs_a_window_wider_than_a_batch() {
    breaks("rollout-infra", 1, ("sort_window", "16"), &["bucketing_cuts_padding"]);
}

/// With lr = 0 the policy never moves: the policy of k updates ago is the
/// policy, every ratio is 1, and staleness costs nothing.
#[test]
fn rollout_infra_staleness_needs_a_moving_policy() {
    let (_, r) = run_with("rollout-infra", 1, &[("lr", "0")]);
    for id in ["clip_grows_with_staleness", "kl_grows_with_staleness"] {
        let c = claim(&r, id);
        assert!(!c.pass && c.measured.abs() < 1e-9, "{c:?}");
    }
}

/// Run with a learner script plugged in (`--use ID=FILE`) from an exercise's
/// own content: its solution or one of its listed mistakes.
fn run_using(id: &str, seed: u64, sets: &[(&str, &str)], exercise: &str, source: &str) -> Report {
    let used = agentlab::exercises::plug::UsedScript { file: "my.rhai".into(), source: source.into() };
    let (events, saved) = run_events(id, seed, sets, [(exercise.to_string(), used)].into());
    assert!(saved.contains(exercise) && saved.contains("my.rhai"), "the run records the script:\n{saved}");
    assert!(
        events.iter().any(|e| matches!(e, Event::Log(l) if l.contains(&format!("training with your {exercise}")))),
        "the log says which function trains"
    );
    events.iter().find_map(|e| if let Event::Finished(r) = e { Some(r.clone()) } else { None }).expect("a report")
}

/// A reservoir that favours recent items (it always lets the new item in)
/// holds only task B's examples after B: replay then cannot keep A. The
/// correct Algorithm R, written as the exercise's solution, keeps it.
#[test]
fn your_reservoir_decides_whether_replay_keeps_task_a() {
    let content = Content::embedded().unwrap();
    let x = content.exercise("reservoir").unwrap();
    let recency = x.mistakes.iter().find(|m| m.name.contains("capacity")).expect("the capacity-draw mistake");
    let r = run_using("ewc-replay", 1, &[], "reservoir", &recency.script);
    assert!(!claim(&r, "replay_keeps_a").pass, "{:?}", claim(&r, "replay_keeps_a"));
    let r = run_using("ewc-replay", 1, &[], "reservoir", &x.solution);
    assert_eq!(r.status, RunStatus::Passed, "{:#?}", r.claims);
}

/// GRPO advantages without ε in the denominator give NaN on an all-equal
/// group; the run stops at once and names the learner's function and inputs.
#[test]
fn a_nan_from_your_advantages_stops_the_run_and_names_your_function() {
    let content = Content::embedded().unwrap();
    let x = content.exercise("grpo-advantages").unwrap();
    let no_eps = x.mistakes.iter().find(|m| m.name.contains("eps")).expect("the no-eps mistake");
    let short = [("sft_steps", "50"), ("rl_steps", "3")];
    let r = run_using("grpo-rlvr", 1, &short, "grpo-advantages", &no_eps.script);
    let RunStatus::Failed(why) = &r.status else { panic!("{:?}", r.status) };
    assert!(why.contains("your grpo_advantages(") && why.contains("not a finite number"), "{why}");
}

/// Every claim holds on seed 2 (as on every seed of 1–20 since the arms'
/// further steps went from 100 to 200), and the token views colour exactly
/// the injected sentence: the purple cells, joined, are one wording with its
/// payload.
#[test]
fn prompt_injection_quick_passes() {
    let (events, r) = run_with("prompt-injection", 2, &[]);
    assert!(claim(&r, "undefended_follows").pass, "{:#?}", r.claims);
    assert_eq!(r.status, RunStatus::Passed, "{:#?}", r.claims);
    let token_views: Vec<&Vec<agentlab::drills::TokenCell>> = events
        .iter()
        .filter_map(|e| match e {
            Event::View(agentlab::drills::View::Tokens { tokens, .. }) => Some(tokens),
            _ => None,
        })
        .collect();
    assert_eq!(token_views.len(), 2, "a defence trajectory and the undefended agent's reaction");
    for tokens in token_views {
        let injected: String = tokens
            .iter()
            .filter(|t| t.kind == agentlab::drills::TokenKind::Injected)
            .map(|t| t.text.as_str())
            .collect();
        let injected = injected.trim();
        assert!(injected.contains("repeat ") && injected.split(' ').count() >= 3, "{injected:?}");
        let whole: String = tokens.iter().map(|t| t.text.as_str()).collect();
        let obs = whole.lines().find(|l| l.contains(injected)).expect("inside a line");
        assert!(obs.starts_with("Observation: "), "the injection rides on a tool result: {obs}");
    }
}

/// A defence arm whose data holds no injection is the control again: the
/// attack success rate does not fall, while the undefended agent still obeys.
#[test]
fn prompt_injection_defence_needs_injections_in_its_data() {
    let (_, r) = run_with("prompt-injection", 2, &[("defence_inject_rate", "0")]);
    assert!(claim(&r, "undefended_follows").pass, "{:?}", r.claims);
    assert!(!claim(&r, "training_cuts_asr").pass, "{:?}", r.claims);
}

/// Without questions whose user changes the instruction mid-sentence, the
/// agent never learned that the last instruction wins: the injection mostly
/// fails on the undefended agent.
#[test]
fn prompt_injection_obedience_is_learned_from_instruction_tasks() {
    let (_, r) = run_with("prompt-injection", 1, &[("instructions", "none")]);
    assert!(!claim(&r, "undefended_follows").pass, "{:?}", r.claims);
}

/// Replay with nothing from the replay buffer in the loss (alpha = 0) is
/// plain fine-tuning: task A is forgotten.
#[test]
fn ewc_replay_keeps_a_needs_replay_in_the_loss() {
    breaks("ewc-replay", 1, ("replay_alpha", "0"), &["replay_keeps_a"]);
}

/// A loss made only of replayed examples (alpha = 1) never trains on B's
/// stream; with the buffer filled at a task's end it holds no B example
/// while B trains, so B is not learned.
#[test]
fn ewc_replay_learns_b_needs_the_current_task_in_the_loss() {
    let (_, r) = run_with("ewc-replay", 1, &[("replay_alpha", "1"), ("buffer_fill", "task-end")]);
    assert!(!claim(&r, "replay_learns_b").pass, "{:?}", r.claims);
}

/// Online buffer filling draws from its own seeded stream: two runs of one
/// seed give the same numbers, bit for bit.
#[test]
fn ewc_replay_online_fill_is_reproducible() {
    let short = [("steps_per_task", "40"), ("evals_per_task", "2"), ("fisher_samples", "20")];
    let (a, _) = run_with("ewc-replay", 5, &short);
    let (b, _) = run_with("ewc-replay", 5, &short);
    let (na, nb) = (numbers(&a), numbers(&b));
    assert!(na.len() > 20, "{} numbers", na.len());
    assert_eq!(na.len(), nb.len());
    for (x, y) in na.iter().zip(&nb) {
        assert!(x.0 == y.0 && x.1 == y.1 && x.2.to_bits() == y.2.to_bits(), "{x:?} vs {y:?}");
    }
}

/// The injection drill end to end on a short run (sampling of tasks and
/// payloads, three arms, the batched loop behind each harness): one seed,
/// the same numbers bit for bit, twice.
#[test]
fn prompt_injection_same_seed_same_numbers() {
    let short = [("steps", "30"), ("defence_steps", "10"), ("train_tasks", "300"), ("eval_tasks", "40")];
    let (a, _) = run_with("prompt-injection", 4, &short);
    let (b, _) = run_with("prompt-injection", 4, &short);
    let (na, nb) = (numbers(&a), numbers(&b));
    assert!(na.len() > 50, "{} numbers", na.len());
    assert_eq!(na.len(), nb.len());
    for (x, y) in na.iter().zip(&nb) {
        assert!(x.0 == y.0 && x.1 == y.1 && x.2.to_bits() == y.2.to_bits(), "{x:?} vs {y:?}");
    }
}

#[test]
fn reward_model_overopt_quick_passes() {
    quick_passes("reward-model-overopt", 1);
}

/// Best-of-2 at most (KL_bon 0.19 nats): the selection stops before the
/// reward models' errors in the tail decide the pick, so the gold reward has
/// not fallen from its peak.
#[test]
fn reward_model_overopt_gold_does_not_fall_before_the_tail() {
    breaks(
        "reward-model-overopt",
        1,
        ("samples", "2"),
        &["large_gold_falls_after_peak", "small_gold_falls_after_peak"],
    );
}

/// Both reward models trained on the same 16 pairs are the same model: the
/// larger set's advantage reads exactly 0, and neither learns the sums.
#[test]
fn reward_model_overopt_remedy_needs_more_pairs() {
    let (_, r) = run_with("reward-model-overopt", 1, &[("pairs_large", "16")]);
    let c = claim(&r, "large_set_higher_peak");
    assert!(!c.pass && c.measured.abs() < 1e-12, "{c:?}");
    assert!(!claim(&r, "large_rm_heldout_accuracy").pass, "{:?}", r.claims);
    // Best-of-n against an RM that learned little barely beats a random pick.
    assert!(!claim(&r, "large_gold_rises_first").pass, "{:?}", claim(&r, "large_gold_rises_first"));
}

/// The learner's `bradley_terry` trains the reward models: with chosen and
/// rejected swapped in the loss, the large-set model ranks held-out pairs
/// the wrong way.
#[test]
fn your_bradley_terry_trains_the_reward_models() {
    let content = Content::embedded().unwrap();
    let x = content.exercise("bradley-terry").unwrap();
    let swapped = x.mistakes.iter().find(|m| m.name.contains("swapped")).expect("the swapped mistake");
    let r = run_using("reward-model-overopt", 1, &[], "bradley-terry", &swapped.script);
    assert!(!claim(&r, "large_rm_heldout_accuracy").pass, "{:?}", claim(&r, "large_rm_heldout_accuracy"));
}

#[test]
fn tool_retrieval_quick_passes() {
    quick_passes("tool-retrieval", 1);
}

/// Queries paired with the wrong tools teach the encoder nothing about
/// tools: it retrieves worse than BM25 (the reference lines read below 0).
#[test]
fn tool_retrieval_learns_nothing_from_shuffled_pairs() {
    let (_, r) = run_with("tool-retrieval", 1, &[("shuffle_pairs", "true")]);
    for id in ["retriever_beats_bm25_at_1", "in_batch_beats_bm25_at_5"] {
        let c = claim(&r, id);
        assert!(c.observation && c.measured < 0.0, "{c:?}");
    }
}

/// At τ = 5 the softmax over cosines is nearly flat: every negative gets
/// about the same weight, so near-duplicates help no more than random tools.
#[test]
fn tool_retrieval_hard_negatives_stop_mattering_at_a_high_temperature() {
    breaks(
        "tool-retrieval",
        1,
        ("tau", "5"),
        &["hard_negatives_fewer_confusions", "hard_negatives_higher_recall_at_1"],
    );
}

/// With 127 in-batch negatives every arm retrieves every held-out tool:
/// extra negatives, random or hard, have nothing left to add.
#[test]
fn tool_retrieval_extra_negatives_stop_mattering_at_a_large_batch() {
    breaks(
        "tool-retrieval",
        1,
        ("batch", "128"),
        &["more_negatives_help", "hard_negatives_fewer_confusions", "hard_negatives_higher_recall_at_1"],
    );
}

/// Queries that share no word with their tool leave BM25 nothing to match:
/// its recall@5 is chance, 5 of 3840, while the encoders still learn.
#[test]
fn tool_retrieval_bm25_fails_without_shared_words() {
    let (_, r) = run_with("tool-retrieval", 1, &[("synonym_rate", "1")]);
    let c = claim(&r, "bm25_recall_at_5");
    assert!(c.observation && c.measured < 0.01, "{c:?}");
    assert!(claim(&r, "retriever_beats_bm25_at_1").measured > 0.5, "{:?}", r.claims);
}

/// The learner's `info_nce` trains the retrievers: the lab's own formula,
/// written as the exercise's solution, gives the same first loss and, after a
/// short run, about the same recall as the built-in loss.
#[test]
fn your_info_nce_trains_the_retrievers() {
    let content = Content::embedded().unwrap();
    let x = content.exercise("info-nce").unwrap();
    let sets = [("steps", "30"), ("evals", "1")];
    let first = |events: &[Event], name: &str| {
        events
            .iter()
            .find_map(|e| match e {
                Event::Metric { name: n, value, .. } if n == name => Some(*value),
                _ => None,
            })
            .unwrap()
    };
    let (built_in, rb) = run_with("tool-retrieval", 1, &sets);
    let used = agentlab::exercises::plug::UsedScript { file: "my.rhai".into(), source: x.solution.clone() };
    let (yours, _) = run_events("tool-retrieval", 1, &sets, [("info-nce".to_string(), used)].into());
    let ry = yours.iter().find_map(|e| if let Event::Finished(r) = e { Some(r.clone()) } else { None }).unwrap();
    let name = "InfoNCE loss · hard negatives";
    assert!(
        (first(&built_in, name) - first(&yours, name)).abs() < 1e-4,
        "{} vs {}",
        first(&built_in, name),
        first(&yours, name)
    );
    assert!(yours.iter().any(|e| matches!(e, Event::Log(l) if l.contains("training with your info-nce"))));
    let b = claim(&rb, "retriever_beats_bm25_at_1").measured;
    let y = claim(&ry, "retriever_beats_bm25_at_1").measured;
    assert!((b - y).abs() < 0.05, "built-in {b} vs yours {y}");
}

#[test]
fn long_context_rope_quick_passes() {
    quick_passes("long-context-rope", 1);
}

/// factor = 1: the "long" sequences are the trained length, so reading them
/// with the trained angles loses nothing, and interpolation only squeezes
/// neighbours apart that NTK keeps: NTK reads better there.
#[test]
fn long_context_rope_nothing_collapses_at_the_trained_length() {
    breaks("long-context-rope", 1, ("factor", "1"), &["long_collapses", "pi_beats_ntk_zero_shot"]);
}

/// scale = 1: interpolation divides the angles by 1, so the interpolated arm
/// is the plain one (and NTK by 1 is no rescaling either): no gain without
/// fine-tuning, the same fine-tune to the last bit, and the fine-tune alone
/// does not teach the new distance.
#[test]
fn long_context_rope_interpolation_needs_a_scale() {
    let (_, r) = run_with("long-context-rope", 1, &[("scale", "1")]);
    for id in ["pi_finetune_faster", "pi_zero_shot_beats_none", "pi_beats_ntk_zero_shot", "pi_finetune_beats_plain"] {
        let c = claim(&r, id);
        assert!(!c.pass && c.measured.abs() < 1e-12, "{c:?}");
    }
    assert!(!claim(&r, "pi_finetune_recovers").pass, "{:?}", r.claims);
    assert_ne!(r.status, RunStatus::Passed);
}

/// The learner's `rope_inv_freq` gives the interpolated arm its angles:
/// multiplying by s instead of dividing sends the long context further out
/// of range, and interpolation gains nothing over the angles as trained.
#[test]
fn your_rope_inv_freq_decides_the_interpolated_arm() {
    let content = Content::embedded().unwrap();
    let x = content.exercise("rope-scaling").unwrap();
    let times = x.mistakes.iter().find(|m| m.name.contains("multiplies")).expect("the multiplying mistake");
    let r = run_using("long-context-rope", 1, &[], "rope-scaling", &times.script);
    assert!(!claim(&r, "pi_zero_shot_beats_none").pass, "{:?}", r.claims);
}

#[test]
fn lora_vs_full_quick_passes() {
    quick_passes("lora-vs-full", 1);
}

/// At a third of the LoRA learning rate the adapters move less: rank-8 LoRA
/// keeps the base's text better than full fine-tuning and learns far less,
/// and neither rank gets far enough for rank to be what limits it.
#[test]
fn lora_vs_full_claims_fail_at_a_low_lora_lr() {
    breaks("lora-vs-full", 1, ("lora_lr", "3e-3"), &["lora_gain_share", "rank1_falls_short", "lora_forgets_more_here"]);
}
