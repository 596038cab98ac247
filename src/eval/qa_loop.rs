//! A model acting in the search-or-answer QA world (`src/envs/qa_world.rs`)
//! on many questions at once: one batched generation per turn, the world
//! writing its replies, and every segment kept as the token ids the model
//! really sampled (so a policy-gradient loss scores exactly those tokens).

use anyhow::Result;

use super::Lm;
use crate::envs::kb::FactTable;
use crate::envs::qa_world::{QaSession, QaWorld, Question};
use crate::envs::Role;
use crate::ml::lm::Memo;
use crate::ml::rng::Rng;
use crate::ml::sample::{Decoding, GenConfig};
use crate::ml::tokenizer::Tokenize;

/// An episode with the token ids of every segment, exactly as sampled (so
/// the loss scores the tokens the policy really produced).
#[derive(Debug, Clone)]
pub struct Rollout {
    pub session: QaSession,
    pub ids: Vec<(Role, Vec<u32>)>,
}

impl Rollout {
    pub fn new(q: Question, lm: &Lm) -> Rollout {
        let session = QaSession::new(q);
        let ids = vec![(Role::Prompt, lm.fmt.encode(lm.tok, Role::Prompt, &session.transcript))];
        Rollout { session, ids }
    }

    /// What the model reads next: BOS (if any) and every segment so far.
    pub fn context(&self, bos: Option<u32>) -> Vec<u32> {
        let mut c: Vec<u32> = bos.into_iter().collect();
        for (_, ids) in &self.ids {
            c.extend(ids);
        }
        c
    }
}

/// Roll every episode forward one turn at a time, one batched generation per turn.
/// `memo` keeps each episode's keys and values from one turn to the next, so
/// a turn computes only the world's reply and the last sampled token, not
/// the whole transcript again.
pub fn rollouts(lm: &Lm, world: &QaWorld, qs: &[Question], decoding: Decoding, rng: &mut Rng) -> Result<Vec<Rollout>> {
    rollouts_with(lm, world, qs, decoding, rng, &mut |_| Ok(()))
}

/// [`rollouts`], calling `after_turn` with every episode after each turn
/// (Try shows the turns as they come; it may stop the rollouts with an error).
pub fn rollouts_with(
    lm: &Lm,
    world: &QaWorld,
    qs: &[Question],
    decoding: Decoding,
    rng: &mut Rng,
    after_turn: &mut dyn FnMut(&[Rollout]) -> Result<()>,
) -> Result<Vec<Rollout>> {
    let (model, tok, fmt) = (lm.model, lm.tok, lm.fmt);
    let mut rs: Vec<Rollout> = qs.iter().map(|q| Rollout::new(q.clone(), lm)).collect();
    let mut memo = Memo::default();
    while rs.iter().any(|r| !r.session.done) {
        let open: Vec<usize> = (0..rs.len()).filter(|&i| !rs[i].session.done).collect();
        let contexts: Vec<Vec<u32>> = open.iter().map(|&i| rs[i].context(fmt.bos)).collect();
        let budget = model.context().saturating_sub(contexts.iter().map(|c| c.len()).max().unwrap_or(0)).min(16);
        if budget == 0 {
            for &i in &open {
                rs[i].session.done = true;
            }
            break;
        }
        let cfg = GenConfig::new(budget, decoding, fmt.stop().to_vec());
        let outs = model.generate_with(&contexts, &cfg, rng, &mut memo)?;
        for (&i, out) in open.iter().zip(outs) {
            let before = rs[i].session.episode.segments.len();
            world.apply(&mut rs[i].session, &fmt.line(tok, &out));
            rs[i].ids.push((Role::Agent, out));
            // The environment's reply, if any, as token ids.
            let replies: Vec<(Role, Vec<u32>)> = rs[i].session.episode.segments[before + 1..]
                .iter()
                .map(|(role, text)| (*role, fmt.encode(tok, *role, text)))
                .collect();
            rs[i].ids.extend(replies);
        }
        after_turn(&rs)?;
    }
    Ok(rs)
}

/// The places of `table` whose capital the model names when asked plainly
/// through its chat template (`What is the capital of X?`, greedy), in the
/// table's order. A model without a chat template is asked nothing.
pub fn known_capitals(lm: &Lm, table: &FactTable) -> Result<Vec<String>> {
    let Some(chat) = &lm.fmt.chat else { return Ok(Vec::new()) };
    let countries = table.entities();
    let prompts: Vec<Vec<u32>> = countries
        .iter()
        .map(|c| Ok(lm.tok.encode(&chat.render(&[("user", &format!("What is the capital of {c}?"))], true)?)))
        .collect::<Result<_>>()?;
    let outs = lm.model.generate(&prompts, &GenConfig::greedy(16, lm.fmt.stop().to_vec()), &mut Rng::new(0))?;
    let names = |c: &str, out: &[u32]| table.get(c, "capital").is_some_and(|cap| lm.tok.decode(out).contains(cap));
    Ok(countries.iter().zip(&outs).filter(|(c, out)| names(c, out)).map(|(c, _)| c.to_string()).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::envs::format::Format;
    use crate::envs::qa_world::QaConfig;
    use crate::ml::gguf_tokenizer::ChatTemplate;

    #[test]
    fn every_episode_ends_and_its_ids_follow_its_segments() {
        let (model, tok) = crate::ml::base::shipped(&candle_core::Device::Cpu).unwrap();
        let fmt = Format::tiny(&tok);
        let lm = Lm { model: &model, tok: &tok, fmt: &fmt };
        let world = QaWorld::new(FactTable::world(), QaConfig::default());
        let place = world.kb.entities()[0].to_string();
        let truth = world.kb.get(&place, "capital").unwrap().to_string();
        let qs = vec![Question { entity: place, truth, known: false }; 2];
        let rs = rollouts(&lm, &world, &qs, Decoding::Greedy, &mut Rng::new(1)).unwrap();
        for r in &rs {
            assert!(r.session.done);
            let roles: Vec<Role> = r.ids.iter().map(|(role, _)| *role).collect();
            let want: Vec<Role> = r.session.episode.segments.iter().map(|(role, _)| *role).collect();
            assert_eq!(roles, want);
            assert_eq!(roles.iter().filter(|x| **x == Role::Agent).count(), r.session.episode.turn_rewards.len());
        }
        // Greedy: the same question gives the same episode.
        assert_eq!(rs[0].ids, rs[1].ids);
    }

    #[test]
    fn a_model_without_a_chat_template_knows_no_capital_and_one_with_names_only_table_places() {
        let (model, tok) = crate::ml::base::shipped(&candle_core::Device::Cpu).unwrap();
        let table = FactTable::parse("France\tcapital\tParis\nZond\tcapital\tBris\n").unwrap();
        let tiny = Format::tiny(&tok);
        assert!(known_capitals(&Lm { model: &model, tok: &tok, fmt: &tiny }, &table).unwrap().is_empty());
        let chat = Format::new(&tok, None, crate::ml::tokenizer::EOS, Some(ChatTemplate::chatml()), "");
        let known = known_capitals(&Lm { model: &model, tok: &tok, fmt: &chat }, &table).unwrap();
        assert!(known.iter().all(|c| table.get(c, "capital").is_some()));
    }
}
