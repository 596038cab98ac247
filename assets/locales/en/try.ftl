# Try (src/drills/try_it.rs, the Try tab, `agentlab try`) and kept models (src/runner/kept.rs, `agentlab runs`).

## Kept models
run-log-kept = kept the models { $arms } ({ $size }) in models/: press 6 (Try) to ask them something
run-log-keep-failed = could not keep the models: { $error }
run-log-attach-failed = could not write the run's report card: { $error }
run-log-prune-failed = could not drop older runs' weights: { $error }

## Why Try cannot open a run
try-none = { $id } has no Try: it measures a system, not a model it trains (its README says what to run instead)
try-no-config = { $dir } has no readable config.toml: not a run directory
try-pruned = this run's weights were pruned (only the 5 newest runs of a drill and the pinned ones keep theirs); rerun it to get them back, the same numbers on this CPU: { $command }
try-kept-none = this run kept no models (made by an agentlab before runs kept them); rerun it: { $command }
try-kept-none-interrupted = this run ended before it saved its models; rerun it: { $command }
try-newer = this run's models were saved by a newer agentlab (format { $format }): update agentlab to read them

## Bad input
try-empty-input = type something first (or pick a held-out example with ↑↓)
try-too-long = { $chars } characters is more than this model reads at once ({ $max } at most)
try-over-context = { $tokens } tokens and { $room } more to generate do not fit the model's context of { $context }

## Two runs compared (`agentlab runs diff`, the Runs tab)
runs-diff-same-config = made the same way (preset, seed, parameters, functions)
runs-diff-changed = what differs
runs-diff-claims = claims (✓ held, ✗ failed, · observation)
runs-diff-observation = observation
runs-diff-finals = last values that differ

## turn-credit-assignment
try-tca-hint = a question about a place (capital of Nilbu?), or ↑↓ for one of the run's evaluation questions
try-tca-known = { $place }: a place the warm start learned by heart (capital { $truth }): a search there is needless
try-tca-needs-search = { $place }: a place the warm start never learned (capital { $truth }): only a search can tell
try-tca-not-in-world = { $place }: not a place of this world: a search finds nothing, and no answer is right
try-tca-answer = answer
try-tca-no-answer = none
try-tca-reward = reward
try-tca-reward-parts = { $total } = correct { $correct } + format { $format } − { $searches } search(es) { $search }
try-tca-right = right
try-tca-mean-reward = mean reward
try-tca-searches = searches per episode

## The addition task (grpo-rlvr, pass-at-k-harness)
try-add-hint = a sum of two numbers of at most { $digits } digits (47+38), or ↑↓ for a held-out one
try-add-not-a-sum = type a sum like 47+38: two whole numbers of at most { $digits } digits each (the sums this run's model learned)
try-add-note-chars = the tiny model reads { $prompt } and writes the sum's digits least significant first: { $gold } is { $sum }
try-add-note-chat = the sum is { $sum }: the exact verifier wants exactly that, the lenient one pays any reply that contains it
try-add-hedge = a hedge
try-add-hedged = hedged

## react-tool-call-loop
try-react-hint = a question in the world's words (population of Vesk?, 417 + 38?, founded of Vesk + 12?, repeat Vesk), or ↑↓ for a held-out one
try-react-base = the untrained model
try-react-masked = SFT with the mask
try-react-unmasked = SFT without the mask
try-react-truth = the true answer: { $truth } (from the world's facts and the calculator)
try-react-no-truth = not one of the world's question forms: the agents answer, nothing checks them
try-react-calls = tool calls
try-react-wrote-obs = wrote Observation: itself

## The Try tab
drill-tab-try = Try
try-title = Try · { $name }
try-title-none = Try
try-opening = loading the run's models…
try-no-run = no run to try yet: start one (s), or open a finished one on the Runs tab (4)
try-wait-run = the run is still going: Try opens on it when it ends (or open a finished run on the Runs tab)
try-input-empty = i or Enter: type an input · ↑↓: a held-out example
try-ask-first = Enter asks every model the input above, side by side
try-samples = { $n } sample(s)
try-temperature = T { $t }
try-seed = seed { $seed }
try-colour-writer = colour: who wrote it
try-colour-logp = colour: log p (green likely, red unlikely)
try-answering = answering… (Esc stops)
try-busy = still answering: Esc stops it
try-stopped = stopped
try-stopping = stopping…
try-no-examples = this run has no held-out examples: type an input
try-switch = { $label }: { $state }
try-failed = Try failed: { $error }
try-open-failed = could not load the run's models: { $error }
try-thread-died = Try's worker stopped without an answer

## The Runs tab: what each run changed, what it kept, two compared
drill-col-mark = ·
drill-col-weights = weights
drill-runs-pruned = pruned
drill-runs-diff-title = A { $a } · B { $b }: what differs
drill-runs-compared = A is shown, B is the grey under its charts (1); what differs is on this tab
drill-runs-unmarked = unmarked { $name }
drill-runs-marked-one = marked { $name } as A: mark B with Space, or press c to compare it with the run under the cursor
drill-runs-marked-two = two runs marked: c compares them
drill-runs-mark-two = mark two runs with Space (or one, and put the cursor on the other), then c
drill-runs-comparing = comparing { $a } with { $b }…
drill-runs-pinning = pinning…
drill-runs-pinned = pinned { $name }: its weights are kept whatever the keep rule says
drill-runs-unpinned = unpinned { $name }: kept while it is among the 5 newest runs
drill-runs-pin-failed = could not pin: { $error }
drill-grey-run-b = grey: B { $name }
drill-grey-compared = A { $a } vs B { $b } (grey)
