"""react-tool-call-loop's held-out metric: success in the ReAct loop, with the real tools.

Exported by agentlab from drill {{DRILL}} (preset {{PRESET}}, seed {{SEED}}).
As the drill's evaluate phase (src/eval/react_loop.rs): each of the {{EVAL_TASKS}} held-out
questions of data/test.jsonl (about places no training trajectory names) is played in
the loop of tools.py. A turn is the model's greedy continuation of the transcript (BOS,
then each segment tokenized on its own, as in training), at most {{MAX_TURN}} tokens, ended by
the first token whose text holds a newline or by the end token; the loop keeps the step,
runs the tool and appends its observation. An episode ends at a Final Answer, after
{{MAX_STEPS}} turns, or when the transcript no longer fits the model's context. Success: the
final answer is the truth, exactly. The drill's hallucination probe is here too: after the
question and the right first action, does the model write `Observation:` itself?

    python eval.py out/{{ARM}} start     # success, valid calls, steps, written-out observations per model
    python eval.py --check             # the exported models: every episode as agentlab played it
"""

import argparse
import json
import os
import sys

import torch
from tokenizers import Tokenizer
from transformers import AutoModelForCausalLM

import tools

HERE = os.path.dirname(os.path.abspath(__file__))
MAX_STEPS = {{MAX_STEPS}}  # drill parameter `max_steps`
MAX_TURN = {{MAX_TURN}}  # the longest agent turn, in tokens (src/eval/react_loop.rs)


class Agent:
    def __init__(self, path):
        self.tok = Tokenizer.from_file(os.path.join(path, "tokenizer.json"))
        self.model = AutoModelForCausalLM.from_pretrained(path, dtype=torch.float32).eval()
        self.bos, self.eos = self.tok.token_to_id("<bos>"), self.tok.token_to_id("<eos>")
        self.context = self.model.config.n_positions
        # Tokens that end a turn: any whose text holds a newline, and the end token.
        self.stop = [i for i in range(self.tok.get_vocab_size()) if i != self.eos and "\n" in self.tok.decode([i])]
        self.stop.append(self.eos)

    def ids(self, session):
        out = [self.bos]
        for _, text in session.segments:
            out += self.tok.encode(text, add_special_tokens=False).ids
        return out

    def turn(self, ids):
        x = torch.tensor([ids])
        with torch.no_grad():
            out = self.model.generate(
                x, attention_mask=torch.ones_like(x), do_sample=False, max_new_tokens=MAX_TURN,
                eos_token_id=self.stop, pad_token_id=self.eos,
            )
        return self.tok.decode(out[0, len(ids) :].tolist(), skip_special_tokens=True)

    def play(self, question, world):
        s = tools.Session(question)
        while not s.done:
            ids = self.ids(s)
            if len(ids) + MAX_TURN >= self.context:
                break  # no room for another turn: unanswered
            s.apply(self.turn(ids), world, MAX_STEPS)
        return s


def writes_observations(agent, tasks):
    """The drill's probe: after the question and the right first action, where the tool should
    answer, the share of greedy continuations that start with `Observation` (the model writing
    the tool's answer itself)."""
    probes = [t for t in tasks if t["first_action"] is not None]
    wrote = 0
    for t in probes:
        s = tools.Session(t["question"])
        s.segments.append(("agent", t["first_action"]))
        wrote += agent.turn(agent.ids(s)).startswith("Observation")
    return wrote / len(probes) if probes else 0.0


def evaluate(path, tasks, world):
    agent = Agent(path)
    sessions = [agent.play(t["question"], world) for t in tasks]
    right = sum(s.answer == t["truth"] for s, t in zip(sessions, tasks))
    calls = sum(s.tool_calls for s in sessions)
    valid = sum(s.valid_calls for s in sessions)
    return {
        "success": right / len(tasks),
        "validity": valid / calls if calls else 0.0,
        "steps": sum(s.steps for s in sessions) / len(tasks),
        "writes_obs": writes_observations(agent, tasks),
        "sessions": sessions,
    }


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("models", nargs="*", help="checkpoint folders (default: out/{{ARM}})")
    ap.add_argument("--check", action="store_true", help="play the exported models and compare with eval_parity.json")
    args = ap.parse_args()
    torch.manual_seed(0)
    with open(os.path.join(HERE, "data/test.jsonl"), encoding="utf-8") as f:
        tasks = [json.loads(l) for l in f]
    world = tools.Tools()
    if not args.check:
        for path in args.models or [os.path.join(HERE, "out/{{ARM}}")]:
            e = evaluate(path, tasks, world)
            print(
                f"{path}: held-out success {e['success']:.3f}, valid calls {e['validity']:.2f}, steps {e['steps']:.2f}, "
                f"writes the observation itself {e['writes_obs']:.2f}, on {len(tasks)} questions"
            )
        sys.exit(0)
    want = json.load(open(os.path.join(HERE, "eval_parity.json")))
    differ = 0
    for name, ours in want["models"].items():
        e = evaluate(os.path.join(HERE, name), tasks, world)
        same = sum(s.transcript() == o["transcript"] for s, o in zip(e["sessions"], ours["episodes"]))
        differ += len(tasks) - same + (e["writes_obs"] != ours["writes_obs"])
        print(
            f"{name}: success {e['success']:.3f} here, {ours['success']:.3f} in agentlab; {same}/{len(tasks)} episodes identical; "
            f"writes the observation itself {e['writes_obs']:.3f} here, {ours['writes_obs']:.3f} in agentlab"
        )
        for s, o in zip(e["sessions"], ours["episodes"]):
            if s.transcript() != o["transcript"]:
                print(f"  first different episode:\n  here:     {s.transcript()!r}\n  agentlab: {o['transcript']!r}")
                break
    sys.exit(0 if differ == 0 else 1)
