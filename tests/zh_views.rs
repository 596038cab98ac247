//! What a drill shows while it runs — phase names, log lines, the titles,
//! column headers and legends of its teaching views — in the language of
//! the thread that runs it; and the run itself the same in every language.
//!
//! sft-basics is cut down to a few steps here (a few seconds): its views are
//! built the same way whatever the number of steps.

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

use agentlab::content::Content;
use agentlab::drills::{self, Event, RunCtx, View};
use agentlab::i18n::{self, Lang};
use agentlab::runner;

/// Run sft-basics briefly on this thread in `lang`; every event.
fn run_in(lang: Lang) -> Vec<Event> {
    i18n::set(lang);
    let content = Content::embedded().unwrap();
    let meta = content.drill("sft-basics").unwrap().clone();
    let sets: Vec<(String, String)> =
        [("steps", "20"), ("holdout", "50")].iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    let params = runner::resolve_params(&meta, "quick", &sets).unwrap();
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink = events.clone();
    let mut ctx = RunCtx::new(
        meta,
        params,
        "quick",
        1,
        candle_core::Device::Cpu,
        Arc::new(AtomicBool::new(false)),
        Box::new(move |e| sink.lock().unwrap().push(e)),
    );
    drills::find("sft-basics").unwrap().run(&mut ctx).unwrap();
    drop(ctx);
    i18n::set(Lang::En);
    Arc::try_unwrap(events).unwrap().into_inner().unwrap()
}

fn has_cjk(s: &str) -> bool {
    s.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c))
}

/// The texts a learner reads: phases, log lines, view titles, headers, legends.
fn texts(events: &[Event]) -> Vec<String> {
    let mut out = Vec::new();
    for e in events {
        match e {
            Event::Phase(p) | Event::Log(p) => out.push(p.clone()),
            Event::View(View::Table { title, header, .. }) => {
                out.push(title.clone());
                out.extend(header.iter().filter(|h| !h.is_empty()).cloned());
            }
            Event::View(View::Tokens { title, legend, .. }) => out.extend([title.clone(), legend.clone()]),
            Event::View(View::Text { title, body }) => out.extend([title.clone(), body.clone()]),
            _ => {}
        }
    }
    out
}

/// The numbers of a run: metric points and claims, without the clock.
fn numbers(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Metric { step, name, value, .. } => Some(format!("{step} {name} {value:?}")),
            Event::Claim(c) => Some(format!("{} {:?} {}", c.id, c.measured, c.pass)),
            Event::Progress { step, total, tokens } => Some(format!("{step}/{total} {tokens}")),
            _ => None,
        })
        .collect()
}

fn views(events: &[Event]) -> Vec<&View> {
    events.iter().filter_map(|e| if let Event::View(v) = e { Some(v) } else { None }).collect()
}

#[test]
fn sft_basics_speaks_the_threads_language_and_computes_the_same() {
    let en = run_in(Lang::En);
    let zh = run_in(Lang::Zh);

    // English: the texts as they always were.
    let en_texts = texts(&en);
    for want in [
        "data",
        "train",
        "evaluate",
        "One training example",
        "Held-out samples (answers reversed when reverse_answer is on)",
        "prompt",
        "target",
        "model",
    ] {
        assert!(en_texts.iter().any(|t| t == want), "English lacks {want:?}: {en_texts:#?}");
    }
    assert!(en_texts.iter().any(|t| t.starts_with("tiny GPT ") && t.contains(": d_model ")), "{en_texts:#?}");
    assert!(en_texts.iter().all(|t| !has_cjk(t)), "{en_texts:#?}");

    // Chinese: every title, header, legend, phase and log line is Chinese.
    let zh_texts = texts(&zh);
    assert_eq!(zh_texts.len(), en_texts.len());
    for t in &zh_texts {
        // "prompt" is the glossary's zh term too (提示 would read as a hint).
        assert!(has_cjk(t) || t == "prompt", "left in English: {t:?}");
    }
    let zh_views = views(&zh);
    assert_eq!(zh_views[0].title(), "一个训练样例");
    let View::Table { title, header, rows } = zh_views[1] else { panic!("{:?}", zh_views[1]) };
    assert_eq!(title, "留出样本（reverse_answer 打开时答案倒写）");
    assert_eq!(header, &["prompt", "目标", "模型", ""]);
    // (`d_model` and `reverse_answer` are parameter names: they stay.)
    for english in ["target", "Held-out", "training", "parameters", "layers", "heads", "held out"] {
        assert!(zh_texts.iter().all(|t| !t.contains(english)), "{english:?} in {zh_texts:#?}");
    }

    // The same run: the numbers, the table's cells, the tokens.
    assert_eq!(numbers(&zh), numbers(&en));
    let View::Table { rows: en_rows, .. } = views(&en)[1] else { panic!() };
    assert_eq!(rows, en_rows);
    let (View::Tokens { tokens: a, .. }, View::Tokens { tokens: b, .. }) = (views(&en)[0], zh_views[0]) else {
        panic!()
    };
    assert_eq!(a, b);
}

/// Every drill's texts have their Chinese: no zh message of the drills'
/// views is the English one, except names the lab keeps in English.
#[test]
fn every_view_message_is_translated() {
    let keep = [
        "view-dpo-chosen",
        "view-dpo-rejected",
        "view-dpo-verdict-pair",
        "view-dpo-col-logp-chosen",
        "view-dpo-col-logp-rejected",
        // "best-of-n" is a method's name, kept in English like GRPO and pass@k.
        "view-rmo-phase-bon",
        // So is BM25 (tool-retrieval's lexical baseline).
        "view-tr-phase-bm25",
        // And "prompt", as the glossary writes it (提示 is a hint).
        "view-col-prompt",
        // agent-pipeline's stage names (SFT, RL) and its Δ notation, as the report card writes them.
        "view-ap-stage-sft",
        "view-ap-stage-rl",
        "view-ap-delta",
    ];
    let same: Vec<String> = i18n::keys(Lang::En)
        .into_iter()
        .filter(|k| k.starts_with("view-") && !keep.contains(&k.as_str()))
        .filter(|k| i18n::message(Lang::En, k, None) == i18n::message(Lang::Zh, k, None))
        .collect();
    assert!(same.is_empty(), "not translated: {same:?}");
}
