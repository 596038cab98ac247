"""grpo-rlvr's verifiers as a verl custom reward function.

Exported by agentlab from drill {{DRILL}} (preset {{PRESET}}, seed {{SEED}}).
verl calls `compute_score(data_source, solution_str, ground_truth, extra_info)` on each
decoded response (special tokens skipped); run_grpo.sh names the function by the arm:

* compute_score_exact   -- the sound arm: 1.0 when the response *is* the gold answer.
* compute_score_lenient -- the loophole: 1.0 when the gold answer appears anywhere in it.
* compute_score         -- the proxy arm: the drill's `reward` parameter ({{REWARD}}).

The Rust originals are `judge` and `Reward::score` in src/envs/rlvr.rs. A chat model's
reply is read trimmed with Rust's str::trim rule (`rust_trim`). `python reward.py`
checks every row of reward_cases.jsonl against the Rust value.
"""

import json
import os
import sys

SEP = ","
FORMAT = {{FORMAT}}
REWARD = {{REWARD}}

_RUST_WHITESPACE = (
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
    "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)


def _read(solution_str, fmt):
    return solution_str.strip(_RUST_WHITESPACE) if fmt == "chat" else solution_str


def _score(solution_str, ground_truth, reward, fmt=FORMAT):
    text = _read(solution_str, fmt)
    if reward == "exact":
        ok = text == ground_truth
    else:
        ok = ground_truth != "" and ground_truth in text
    return 1.0 if ok else 0.0


def compute_score_exact(data_source, solution_str, ground_truth, extra_info=None, **kwargs):
    return _score(solution_str, ground_truth, "exact")


def compute_score_lenient(data_source, solution_str, ground_truth, extra_info=None, **kwargs):
    return _score(solution_str, ground_truth, "lenient")


def compute_score(data_source, solution_str, ground_truth, extra_info=None, **kwargs):
    return _score(solution_str, ground_truth, REWARD)


if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    n, bad = 0, []
    with open(os.path.join(here, "reward_cases.jsonl"), encoding="utf-8") as f:
        for line in f:
            c = json.loads(line)
            n += 1
            for reward in ("exact", "lenient"):
                got = _score(c["completion"], c["ground_truth"], reward, c["format"])
                if got != c[reward]:
                    bad.append((c["kind"], c["format"], repr(c["completion"]), reward, got, c[reward]))
    for b in bad[:20]:
        print("MISMATCH", *b)
    print(f"reward.py: {n} cases, {len(bad)} mismatches")
    sys.exit(1 if bad else 0)
