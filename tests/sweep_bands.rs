//! Seed bands (mean, ±1 population sd, min–max over a sweep's seeds) and
//! sweeps that survive a crash: the band against numbers computed by hand,
//! the grouping into a drill's charts, `agentlab export SWEEP`, the Sweep
//! tab at 60×16 and 120×40, and a sweep that resumes with the seeds it lacks.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

use agentlab::content::{Content, DrillMeta};
use agentlab::drills::{Event, RunStatus};
use agentlab::plot::band::{band, band_charts};
use agentlab::runner::sweep::{self, ClaimValue, SeedResult, Sweep, SweepConfig};
use agentlab::runner::Point;
use agentlab::tui::screens::Screen;
use agentlab::tui::App;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

/// Three tiny streams; by hand, at each x they share (0, 10, 20; 25 is only in b):
/// x = 0:  1, 3, 2 → mean 2, sd √((1 + 1 + 0)/3) = √(2/3), min 1, max 3
/// x = 10: 2, 4, 6 → mean 4, sd √((4 + 0 + 4)/3) = √(8/3), min 2, max 6
/// x = 20: 3, 5, 1 → mean 3, sd √((0 + 4 + 4)/3) = √(8/3), min 1, max 5
#[test]
fn the_band_is_the_mean_population_sd_min_and_max_at_the_shared_xs() {
    let a = vec![(0.0, 1.0), (10.0, 2.0), (20.0, 3.0)];
    let b = vec![(0.0, 3.0), (10.0, 4.0), (20.0, 5.0), (25.0, 9.0)];
    let c = vec![(0.0, 2.0), (10.0, 6.0), (20.0, 1.0)];
    let got = band(&[a, b, c]);
    let want = [
        (0.0, 2.0, (2.0f64 / 3.0).sqrt(), 1.0, 3.0),
        (10.0, 4.0, (8.0f64 / 3.0).sqrt(), 2.0, 6.0),
        (20.0, 3.0, (8.0f64 / 3.0).sqrt(), 1.0, 5.0),
    ];
    assert_eq!(got.len(), want.len(), "x = 25 is in one stream only: {got:?}");
    for (p, (x, mean, sd, min, max)) in got.iter().zip(want) {
        assert!(close(p.x, x) && close(p.mean, mean) && close(p.sd, sd), "{p:?}");
        assert!(close(p.min, min) && close(p.max, max) && p.n == 3, "{p:?}");
    }
    // ddof 0: two seeds 0 and 2 have sd 1 (the sample sd would be √2).
    assert!(close(band(&[vec![(0.0, 0.0)], vec![(0.0, 2.0)]])[0].sd, 1.0));
    // One seed: no spread.
    let one = band(&[vec![(5.0, 0.7)]]);
    assert_eq!((one[0].sd, one[0].min, one[0].max, one[0].n), (0.0, 0.7, 0.7, 1));
}

const META: &str = r#"
id = "arms"
title = "Arms"
track = 0
objective = "o"
[presets.quick]

[[claim]]
id = "keeps_a"
text = "task A accuracy after B"
op = ">="
threshold = 0.5

[[chart]]
title = "task A accuracy"
series = ["acc A · *"]
x = "step"
"#;

fn pts(values: &[(u64, f64)]) -> Vec<Point> {
    values.iter().map(|&(step, value)| Point { step: step as f64, t: 0.0, value }).collect()
}

#[test]
fn arms_of_a_chart_are_banded_together_and_lone_series_alone() {
    let meta = DrillMeta::parse(META, "# arms").unwrap();
    let seed = |naive: f64, ewc: f64, loss: f64| {
        vec![
            ("acc A · naive".to_string(), pts(&[(0, 0.9), (100, naive)])),
            ("acc A · ewc".to_string(), pts(&[(0, 0.9), (100, ewc)])),
            ("loss".to_string(), pts(&[(1, loss)])),
        ]
    };
    let charts = band_charts(&meta, &[seed(0.1, 0.7, 2.0), seed(0.3, 0.5, 4.0)]);
    assert_eq!(charts.len(), 2, "{charts:?}");
    let acc = &charts[0];
    assert_eq!((acc.title.as_str(), acc.x.as_str(), acc.seeds), ("task A accuracy", "step", 2));
    let labels: Vec<&str> = acc.arms.iter().map(|a| a.label.as_str()).collect();
    assert_eq!(labels, ["naive", "ewc"]);
    let end = acc.arms[0].points[1];
    assert!(close(end.mean, 0.2) && close(end.sd, 0.1) && close(end.min, 0.1) && close(end.max, 0.3), "{end:?}");
    assert_eq!(charts[1].title, "loss");
    assert!(charts[1].matches("LOSS") && acc.matches("ewc") && !acc.matches("loss"));
}

// ------------------------------------------------------------------ on disk

fn agentlab(home: &Path, args: &[&str]) -> Output {
    common::agentlab(home).args(args).output().unwrap()
}

fn text(o: &Output) -> (String, String) {
    (String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned())
}

/// An sft-basics run of seed `seed` under `runs`: loss falls from 3 to
/// 3 − seed/10 over steps 1–3, held-out accuracy 0.5 + seed/10 at step 3.
fn seed_run(runs: &Path, seed: u64) -> PathBuf {
    let dir = runs.join("sft-basics").join(format!("2026-01-01T00-00-0{seed}"));
    std::fs::create_dir_all(&dir).unwrap();
    let mut events: Vec<Event> = (1..=3)
        .map(|step| Event::Metric {
            step,
            name: "loss".into(),
            value: 3.0 - (step - 1) as f64 * seed as f64 / 20.0,
            t: step as f64,
        })
        .collect();
    events.push(Event::Metric { step: 3, name: "heldout_acc".into(), value: 0.5 + seed as f64 / 10.0, t: 3.0 });
    let text: String = events.iter().map(|e| serde_json::to_string(e).unwrap() + "\n").collect();
    std::fs::write(dir.join("metrics.jsonl"), text).unwrap();
    dir
}

/// A saved sft-basics sweep of seeds 1–3 (their runs under `home/runs`);
/// `done` of them finished, and the record says whether it was left mid-sweep.
fn saved_sweep(home: &Path, done: u64, in_progress: bool) -> (PathBuf, Sweep) {
    let content = Content::embedded().unwrap();
    let meta = content.drill("sft-basics").unwrap();
    let config = SweepConfig {
        drill: "sft-basics".into(),
        preset: "quick".into(),
        params: meta.preset_values("quick").unwrap(),
        seeds: vec![1, 2, 3],
        device: agentlab::ml::device::DeviceChoice::Cpu,
    };
    let results = (1..=done)
        .map(|s| SeedResult {
            seed: s,
            status: RunStatus::Passed,
            wall_s: 1.0,
            claims: meta.claims.iter().map(|c| ClaimValue { id: c.id.clone(), measured: 0.5, pass: true }).collect(),
            run_dir: seed_run(&home.join("runs"), s),
        })
        .collect();
    let mut sw = Sweep::summarise(meta, config, results, 3.0);
    sw.in_progress = in_progress;
    let path = sweep::save(&sw, &home.join("sweeps")).unwrap();
    (path, sw)
}

#[test]
fn export_of_a_sweep_writes_its_bands_as_csv_png_and_svg() {
    let home = tempfile::tempdir().unwrap();
    let (file, _) = saved_sweep(home.path(), 3, false);
    let csv = agentlab(home.path(), &["export", file.to_str().unwrap(), "--csv", "--out", "-"]);
    let (out, err) = text(&csv);
    assert!(csv.status.success(), "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "chart,x,arm,mean,sd,min,max,n");
    // Step 3 of the loss: 2.9, 2.8, 2.7 → mean 2.8, population sd √(0.02/3), min 2.7, max 2.9.
    let row: Vec<&str> = lines.iter().find(|l| l.starts_with("loss,3,")).unwrap().split(',').collect();
    let num = |i: usize| row[i].parse::<f64>().unwrap();
    assert!((num(3) - 2.8).abs() < 1e-9 && (num(4) - (0.02f64 / 3.0).sqrt()).abs() < 1e-9, "{row:?}");
    assert!((num(5) - 2.7).abs() < 1e-9 && (num(6) - 2.9).abs() < 1e-9 && row[7] == "3", "{row:?}");
    let acc: Vec<f64> = lines
        .iter()
        .find(|l| l.starts_with("heldout_acc,3,heldout_acc,"))
        .unwrap()
        .split(',')
        .skip(3)
        .map(|v| v.parse().unwrap())
        .collect();
    assert!((acc[0] - 0.7).abs() < 1e-9 && (acc[2] - 0.6).abs() < 1e-9 && (acc[3] - 0.8).abs() < 1e-9, "{out}");

    // The folder of a drill's sweeps means its newest; the PNG lands beside the record.
    let png = agentlab(home.path(), &["export", file.parent().unwrap().to_str().unwrap()]);
    let (out, err) = text(&png);
    assert!(png.status.success() && err.contains("the newest sweep"), "{err}");
    assert_eq!(out.trim(), file.with_extension("png").display().to_string());
    assert!(std::fs::read(file.with_extension("png")).unwrap().starts_with(b"\x89PNG"));

    // One chart by name, as SVG: the x axis is named, the legend says what the band is.
    let svg = agentlab(home.path(), &["export", file.to_str().unwrap(), "--svg", "--out", "-", "--chart", "acc"]);
    let (out, err) = text(&svg);
    assert!(svg.status.success(), "{err}");
    assert!(out.contains("heldout_acc") && !out.contains(">loss"), "only the chosen chart");
    assert!(out.contains("step") && out.contains("band: ±1 sd") && out.contains("lighter: min–max"));
    let none = agentlab(home.path(), &["export", file.to_str().unwrap(), "--chart", "nope"]);
    let (_, err) = text(&none);
    assert!(!none.status.success() && err.contains("\"loss\"") && err.contains("\"heldout_acc\""), "{err}");
}

#[test]
fn export_says_what_a_path_is_not_and_what_a_partial_sweep_lacks() {
    let home = tempfile::tempdir().unwrap();
    let empty = home.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    for bad in [empty.clone(), home.path().join("missing.json"), home.path().join("nothing")] {
        let o = agentlab(home.path(), &["export", bad.to_str().unwrap()]);
        let (_, err) = text(&o);
        assert!(!o.status.success() && err.contains("run directory") && !err.contains("panicked"), "{err}");
    }
    let junk = home.path().join("junk.json");
    std::fs::write(&junk, "{\"not\": \"a sweep\"}").unwrap();
    let (_, err) = text(&agentlab(home.path(), &["export", junk.to_str().unwrap()]));
    assert!(err.contains("is not a sweep record"), "{err}");

    // A killed sweep: two seeds of three. The data folder moved since: the runs are found beside the record.
    let old = tempfile::tempdir().unwrap();
    let (file, _) = saved_sweep(old.path(), 2, true);
    let moved = home.path().join("moved");
    std::fs::rename(old.path(), &moved).unwrap();
    let file = moved.join("sweeps").join("sft-basics").join(file.file_name().unwrap());
    let o = agentlab(home.path(), &["export", file.to_str().unwrap(), "--csv", "--out", "-"]);
    let (out, err) = text(&o);
    assert!(o.status.success() && err.contains("partial (2 of 3 seeds, interrupted)"), "{err}");
    assert!(out.lines().any(|l| l.starts_with("loss,1,loss,3,0,3,3,2")), "{out}");
}

// ------------------------------------------------------------------ the Sweep tab

fn isolated_home() {
    static HOME: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    HOME.get_or_init(|| {
        let d = tempfile::tempdir().unwrap();
        std::env::set_var("AGENTLAB_HOME", d.path());
        d
    });
}

fn drill_app(home: &Path) -> App {
    isolated_home();
    let mut a = App::new(Content::embedded().unwrap());
    a.runs_root = home.join("runs");
    a.sweeps_root = home.join("sweeps");
    common::screen_lines(&mut a, 80, 24);
    let s = a.drill_screen("sft-basics").unwrap();
    a.stack.push(s);
    // The newest saved sweep is read off the UI thread: shown after a tick.
    common::settle(&mut a);
    a
}

fn key(a: &mut App, code: KeyCode) {
    a.on_key(KeyEvent::new(code, KeyModifiers::NONE));
}

#[test]
fn the_sweep_tab_draws_bands_with_a_legend_and_a_partial_sweep_as_partial() {
    let home = tempfile::tempdir().unwrap();
    saved_sweep(home.path(), 2, true);
    // The screen opens on the newest saved sweep.
    let mut a = drill_app(home.path());
    if let Some(Screen::Drill(d)) = a.stack.last_mut() {
        d.sweep_seeds = 3; // the saved sweep's seeds: `S` would continue it
    }
    key(&mut a, KeyCode::Char('5'));
    for (w, h) in [(120, 40), (60, 16)] {
        let lines = common::screen_lines(&mut a, w, h);
        let s = lines.join("\n");
        assert!(s.contains("━ loss") && s.contains("±1 sd"), "{w}×{h}: the legend\n{s}");
        assert!(s.contains("←→"), "{w}×{h}: the key that picks the chart\n{s}");
        assert!(s.contains("2 of 3 seeds") && s.contains("interrupted"), "{w}×{h}: partial\n{s}");
        // At 60×16 the chart's four rows are all plot: the title names x.
        let x = if w == 60 { "x step" } else { "step 3" };
        assert!(s.contains(x), "{w}×{h}: the x axis says what it counts\n{s}");
        assert!(lines.iter().any(|l| l.contains('⢕') || l.contains('⠁') || l.contains('⣿')), "{w}×{h}: a band\n{s}");
    }
    // At 120×40 the tables are there too, and `S` would resume this sweep.
    let s = common::screen_lines(&mut a, 120, 40).join("\n");
    assert!(s.contains("per seed") && s.contains("S resumes"), "{s}");
    // → shows the next chart; b switches to the tables where both do not fit.
    key(&mut a, KeyCode::Right);
    let s = common::screen_lines(&mut a, 120, 40).join("\n");
    assert!(s.contains("━ heldout_acc") && s.contains("chart 2/2"), "{s}");
    key(&mut a, KeyCode::Char('b'));
    let s = common::screen_lines(&mut a, 60, 16).join("\n");
    assert!(!s.contains("━ heldout_acc") && s.contains("b bands"), "{s}");
    let Some(Screen::Drill(d)) = a.stack.last() else { panic!("not on the drill screen") };
    assert!(!d.sweep_bands);
}

// ------------------------------------------------------------------ resuming

/// A sweep whose record lost its last seed (as a sweep killed after seed 1
/// leaves it) is continued by the same command: only the missing seed runs.
#[test]
fn the_same_sweep_command_continues_an_interrupted_sweep() {
    let home = tempfile::tempdir().unwrap();
    let args = ["drill", "sweep", "sft-basics", "--seeds", "1-2", "--set", "steps=2", "--set", "holdout=50"];
    let first = agentlab(home.path(), &args);
    assert!(first.status.code().is_some_and(|c| c <= 1), "{:?}", text(&first));
    let (file, mut sw) = sweep::list(&home.path().join("sweeps"), "sft-basics").remove(0);
    assert!(sw.complete && !sw.in_progress);
    // Cut the record back to seed 1, mid-sweep.
    sw.results.retain(|r| r.seed == 1);
    sw.complete = false;
    sw.in_progress = true;
    std::fs::write(&file, serde_json::to_vec(&sw).unwrap()).unwrap();
    let runs_before = std::fs::read_dir(home.path().join("runs/sft-basics")).unwrap().count();

    let again = agentlab(home.path(), &[&args[..], &["--resume"]].concat());
    let (out, err) = text(&again);
    assert!(out.contains("resuming") && out.contains("seed 1 already done (1 of 2); running 2"), "{out}{err}");
    assert!(out.contains("[2/2] seed   2") && !out.contains("seed   1 "), "only seed 2 runs:\n{out}");
    let runs_after = std::fs::read_dir(home.path().join("runs/sft-basics")).unwrap().count();
    assert_eq!(runs_after, runs_before + 1, "one new run");
    let all = sweep::list(&home.path().join("sweeps"), "sft-basics");
    assert_eq!(all.len(), 1, "the same record, completed");
    let (path, done) = &all[0];
    assert_eq!(path, &file);
    assert!(done.complete && !done.in_progress);
    assert_eq!(done.results.iter().map(|r| r.seed).collect::<Vec<_>>(), [1, 2]);

    // Nothing left to continue: --resume says so (exit 2), without it a new sweep starts.
    let o = agentlab(home.path(), &[&args[..], &["--resume"]].concat());
    assert_eq!(o.status.code(), Some(2), "{:?}", text(&o));
    assert!(text(&o).1.contains("no unfinished sweep of sft-basics"), "{:?}", text(&o));
}
