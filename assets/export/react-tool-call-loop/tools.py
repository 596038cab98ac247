"""The ReAct loop and its tools, as agentlab runs them: parse -> route -> observe.

Exported by agentlab from drill {{DRILL}} (preset {{PRESET}}, seed {{SEED}}).
The same rules as src/envs/react.rs (the loop), src/envs/calculator.rs and
src/envs/kb.rs (the tools), line for line, so the observations a model sees here
are the ones it was trained on. check_tools.py replays tool_cases.jsonl (the Rust
answers) and every training trajectory through this file.

    Question: population of Zondnaus + 17?      <- prompt   (not trained)
    Action: lookup[population of Zondnaus]      <- agent    (trained)
    Observation: 5665                           <- the tool (not trained)
    Action: calc[5665 + 17]                     <- agent
    Observation: 5682                           <- the tool
    Final Answer: 5682                          <- agent

The observation is written by the environment, never by the model: the loop keeps
the agent's turn up to its step, runs the tool and appends the result. An unknown
tool, a malformed step or a tool error becomes an error observation, never a crash.
"""

import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))

# Rust's whitespace (char::is_whitespace, str::trim, split_whitespace): Unicode White_Space.
WS = "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
_WS_RUN = re.compile("[" + re.escape(WS) + "]+")


def trim(s):
    return s.strip(WS)


def split_ws(s):
    return [w for w in _WS_RUN.split(s) if w]


def lines(s):
    """str::lines: split at \\n, drop one \\r before it, no empty last line."""
    if s == "":
        return []
    parts = s.split("\n")
    if s.endswith("\n"):
        parts.pop()
    return [p[:-1] if p.endswith("\r") else p for p in parts]


def split_inclusive(s):
    """str::split_inclusive('\\n'): pieces that keep their newline."""
    out, start = [], 0
    for i, c in enumerate(s):
        if c == "\n":
            out.append(s[start : i + 1])
            start = i + 1
    if start < len(s):
        out.append(s[start:])
    return out


# ---- the calculator: exact integer arithmetic, errors as text --------------------------------

I128_MAX, I128_MIN = 2**127 - 1, -(2**127)
I64_MAX, I64_MIN = 2**63 - 1, -(2**63)


class ToolError(Exception):
    pass


def _tokens(expr):
    out, i = [], 0
    while i < len(expr):
        c = expr[i]
        if c in WS:
            i += 1
        elif "0" <= c <= "9":
            j = i
            while j < len(expr) and "0" <= expr[j] <= "9":
                j += 1
            n = int(expr[i:j])
            if n > I128_MAX:
                raise ToolError("number too large")
            out.append(n)
            i = j
        elif c in "+-*/()":
            out.append(c)
            i += 1
        elif c in ("x", "\u00d7"):
            out.append("*")
            i += 1
        else:
            raise ToolError(f"unexpected character '{c}'")
    return out


def _checked(v):
    if v > I128_MAX or v < I128_MIN:
        raise ToolError("overflow")
    return v


class _Parser:
    """expr = term (('+'|'-') term)*, term = factor (('*'|'/') factor)*."""

    def __init__(self, tokens):
        self.t, self.pos = tokens, 0

    def peek(self):
        return self.t[self.pos] if self.pos < len(self.t) else None

    def expr(self):
        v = self.term()
        while self.peek() in ("+", "-"):
            op = self.peek()
            self.pos += 1
            r = self.term()
            v = _checked(v + r if op == "+" else v - r)
        return v

    def term(self):
        v = self.factor()
        while self.peek() in ("*", "/"):
            op = self.peek()
            self.pos += 1
            r = self.factor()
            if op == "*":
                v = _checked(v * r)
            else:
                if r == 0:
                    raise ToolError("division by zero")
                if v == I128_MIN and r == -1:
                    raise ToolError("overflow")
                if v % r != 0:
                    raise ToolError(f"{v}/{r} is not a whole number")
                q = abs(v) // abs(r)
                v = q if (v < 0) == (r < 0) else -q
        return v

    def factor(self):
        t = self.peek()
        if isinstance(t, int):
            self.pos += 1
            return t
        if t == "-":
            self.pos += 1
            v = self.factor()
            return _checked(-v)
        if t == "(":
            self.pos += 1
            v = self.expr()
            if self.peek() == ")":
                self.pos += 1
                return v
            raise ToolError("missing ')'")
        if t is None:
            raise ToolError("expression ends too early")
        raise ToolError(f"unexpected '{t}'")


def calc(expr):
    """The value of `expr` as text, or ToolError with the message the agent reads."""
    tokens = _tokens(expr)
    if not tokens:
        raise ToolError("empty expression")
    p = _Parser(tokens)
    v = p.expr()
    if p.pos != len(tokens):
        raise ToolError(f"unexpected '{tokens[p.pos]}'")
    if v > I64_MAX or v < I64_MIN:
        raise ToolError("result too large")
    return str(v)


# ---- the fact table: lookup and search ----------------------------------------------------


class Facts:
    def __init__(self, path=os.path.join(HERE, "world", "facts.tsv")):
        self.facts, self.index = [], {}
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for n, line in enumerate(lines(text)):
            if trim(line) == "" or line.startswith("#"):
                continue
            parts = line.split("\t")
            if len(parts) != 3:
                raise ValueError(f"line {n + 1}: expected entity, attribute and value separated by tabs")
            self.index[(parts[0].lower(), parts[1].lower())] = len(self.facts)
            self.facts.append(tuple(parts))

    def get(self, entity, attribute):
        i = self.index.get((entity.lower(), attribute.lower()))
        return None if i is None else self.facts[i][2]

    def lookup(self, query):
        w = split_ws(query)
        if len(w) == 3 and w[1] == "of":
            attribute, entity = w[0], w[2]
        elif len(w) == 2:
            entity, attribute = w
        else:
            raise ToolError(f'lookup expects "attribute of Place", got "{trim(query)}"')
        v = self.get(entity, attribute)
        if v is None:
            raise ToolError(f"no fact for {attribute} of {entity}")
        return v

    def search(self, query, k=3):
        q = [w.lower() for w in split_ws(query)]
        scored = []
        for i, (e, a, _) in enumerate(self.facts):
            score = sum(1 for w in q if w == e.lower() or w == a.lower())
            if score > 0:
                scored.append((-score, i))
        scored.sort()
        return [self.facts[i] for _, i in scored[:k]]


NAMES = ("calc", "lookup", "search")


class Tools:
    def __init__(self, facts=None):
        self.kb = facts or Facts()

    def call(self, tool, arg):
        """(True, value) or (False, the error message)."""
        try:
            if tool == "calc":
                return True, calc(arg)
            if tool == "lookup":
                return True, self.kb.lookup(arg)
            if tool == "search":
                hits = self.kb.search(arg, 3)
                if not hits:
                    return False, f'nothing found for "{arg}"'
                return True, "; ".join(f"{e} {a} {v}" for e, a, v in hits)
        except ToolError as e:
            return False, str(e)
        return False, f"unknown tool '{tool}' (tools: {', '.join(NAMES)})"


# ---- the loop -------------------------------------------------------------------------------


def parse_step(completion):
    """("action", tool, input) | ("final", answer) | ("incomplete",) | ("invalid", message)."""
    ls = [trim(l) for l in lines(completion)]
    for l in ls:
        if l.startswith("Final Answer:"):
            answer = trim(l[len("Final Answer:") :])
            return ("invalid", "empty Final Answer") if answer == "" else ("final", answer)
    for i, line in enumerate(ls):
        if line.startswith("Observation:"):
            return ("invalid", "observations come from tools: write an Action and wait")
        if not line.startswith("Action:"):
            continue
        rest = trim(line[len("Action:") :])
        if "[" in rest:
            open_ = rest.index("[")
            tool = trim(rest[:open_])
            close = rest[open_ + 1 :].rfind("]")
            if close < 0:
                return ("incomplete",)
            if tool == "":
                return ("invalid", "Action needs a tool name before '['")
            return ("action", tool, trim(rest[open_ + 1 : open_ + 1 + close]))
        nxt = ls[i + 1] if i + 1 < len(ls) else None
        if nxt is not None and nxt.startswith("Action Input:"):
            if rest == "":
                return ("invalid", "Action needs a tool name")
            return ("action", rest, trim(nxt[len("Action Input:") :]))
        return ("incomplete",)
    return ("incomplete",)


def step_end(completion):
    """Length of the prefix up to and including the line that completed the step."""
    if parse_step(completion)[0] == "final":
        end = 0
        for line in split_inclusive(completion):
            end += len(line)
            if line.lstrip(WS).startswith("Final Answer:"):
                return end
    end = 0
    for line in split_inclusive(completion):
        end += len(line)
        if parse_step(completion[:end])[0] != "incomplete":
            return end
    return len(completion)


class Session:
    """One episode: role-tagged segments, the transcript, and what the agent did."""

    def __init__(self, question):
        prompt = f"Question: {question}\n"
        self.segments = [("prompt", prompt)]
        self.answer, self.done = None, False
        self.steps = self.tool_calls = self.valid_calls = self.invalid_steps = self.hallucinated = 0

    def transcript(self):
        return "".join(t for _, t in self.segments)

    def counts(self):
        return [self.steps, self.tool_calls, self.valid_calls, self.invalid_steps, self.hallucinated]

    def apply(self, turn, tools, max_steps):
        """The agent's turn: keep its step, run the tool, append the observation."""
        if self.done:
            return
        self.steps += 1
        if any(l.lstrip(WS).startswith("Observation:") for l in lines(turn)):
            self.hallucinated += 1
        step = parse_step(turn)
        kept = turn[: step_end(turn)]
        if not kept.endswith("\n"):
            kept += "\n"
        self.segments.append(("agent", kept))
        if step[0] == "final":
            self.answer, self.done = step[1], True
            return
        if step[0] == "action":
            self.tool_calls += 1
            if step[1] in NAMES:
                self.valid_calls += 1
            ok, value = tools.call(step[1], step[2])
            obs = f"Observation: {value}\n" if ok else f"Observation: error: {value}\n"
        elif step[0] == "invalid":
            self.invalid_steps += 1
            obs = f"Observation: error: {step[1]}\n"
        else:
            self.invalid_steps += 1
            obs = "Observation: error: write Action: tool[input] or Final Answer: answer\n"
        self.segments.append(("env", obs))
        if self.steps >= max_steps:
            self.done = True
