"""tools.py is agentlab's loop and tools: every case of tool_cases.jsonl and every training trajectory.

Exported by agentlab from drill {{DRILL}} (preset {{PRESET}}, seed {{SEED}}).
A "call" case is one tool call and the Rust tool's value or error; a "turn" case is
one agent turn applied to a fresh episode (what the loop keeps, the observation it
appends, what it counts). Then each of the {{TRAIN_TASKS}} oracle trajectories of data/train.jsonl
is replayed: its agent lines go through tools.Session, which must write the same
observations the Rust loop wrote.

    python check_tools.py
"""

import json
import os
import sys

import tools

HERE = os.path.dirname(os.path.abspath(__file__))
world = tools.Tools()
n = bad = 0
for line in open(os.path.join(HERE, "tool_cases.jsonl"), encoding="utf-8"):
    c = json.loads(line)
    n += 1
    if c["case"] == "call":
        got = world.call(c["tool"], c["input"])
        want = (True, c["ok"]) if "ok" in c else (False, c["err"])
    else:
        s = tools.Session(c["question"])
        s.apply(c["turn"], world, 2)
        got = ([list(x) for x in s.segments[1:]], s.done, s.answer, s.counts())
        want = (c["added"], c["done"], c["answer"], c["counts"])
    if got != want:
        bad += 1
        if bad <= 5:
            print(f"differs: {c}\n  here: {got}")
episodes = differ = 0
for line in open(os.path.join(HERE, "data/train.jsonl"), encoding="utf-8"):
    r = json.loads(line)
    segs = r["segments"]
    s = tools.Session(r["question"])
    for seg in segs:
        if seg["role"] == "agent":
            s.apply(seg["text"], world, 6)
    episodes += 1
    if [list(x) for x in s.segments] != [[x["role"], x["text"]] for x in segs]:
        differ += 1
        if differ <= 3:
            print(f"trajectory differs: {r['question']}\n  here:     {s.segments}\n  agentlab: {segs}")
print(f"{n} tool cases: {n - bad} equal, {bad} differ; {episodes} training trajectories: {episodes - differ} replayed identically")
sys.exit(0 if bad == 0 and differ == 0 else 1)
