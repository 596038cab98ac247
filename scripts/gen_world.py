#!/usr/bin/env python3
"""Generate assets/world/facts.tsv: a fictional world the drills' tools look up.

The world is invented so that no pretrained knowledge (and no memorised fact)
can answer a question: the lab's tiny models must call the lookup tool. Run once;
the output is committed. Deterministic: the same seed gives the same file.
"""
import random

random.seed(20261122)
onsets = ["b", "d", "f", "g", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z", "br", "dr", "kr", "tr", "st", "sk"]
vowels = ["a", "e", "i", "o", "u", "au", "ei"]
codas = ["", "", "n", "r", "l", "s", "th", "nd", "sk"]


def name(syllables):
    s = "".join(random.choice(onsets) + random.choice(vowels) + random.choice(codas) for _ in range(syllables))
    return s[:9].capitalize()


places = []
seen = set()
while len(places) < 2000:
    n = name(random.choice([2, 2, 3]))
    if 4 <= len(n) <= 8 and n not in seen:
        seen.add(n)
        places.append(n)

cities = []
while len(cities) < 2000:
    n = name(2)
    if 4 <= len(n) <= 7 and n not in seen:
        seen.add(n)
        cities.append(n)

colours = ["red", "blue", "green", "gold", "grey", "white", "black", "violet"]
with open("assets/world/facts.tsv", "w") as f:
    f.write("# entity\tattribute\tvalue — a fictional world for agentlab's tools (scripts/gen_world.py)\n")
    for p, c in zip(places, cities):
        f.write(f"{p}\tcapital\t{c}\n")
        f.write(f"{p}\tpopulation\t{random.randint(1000, 9999)}\n")
        f.write(f"{p}\tfounded\t{random.randint(1000, 1999)}\n")
        f.write(f"{p}\tflag\t{random.choice(colours)}\n")
