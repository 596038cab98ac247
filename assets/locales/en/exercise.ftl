# Exercises: the list, one exercise, and the check's report (TUI and CLI).
exercise-list-title = Exercises · { $done } of { $total } done
exercise-list-intro = Write the algorithm in Rhai; it is checked against the lab's own code, and { $plugs } of them can train a drill. In a shell: agentlab exercise check ID (the ID is the first column).
exercise-track-head = track { $track } · { $title }
exercise-trains = → trains { $drill }
exercise-title = exercise { $id }
exercise-check-running = a check is already under way
exercise-no-checker = this build has no checker for this exercise
exercise-last-hint = that was the last hint: S shows a solution
exercise-solution-locked = the solution opens after the last hint ({ $shown } of { $total } shown) or once you pass
exercise-no-drill = this exercise is checked only: no drill trains with it
exercise-r-after-fail = R adds the quiz items to review after a failed check
# Markdown: [{ $sheet }] and [drill:…] are links.
exercise-taught-in = Taught in [{ $sheet }].
exercise-trains-drill = Trains [drill:{ $drill }] when you press `t`.
exercise-hint-head = Hint { $n }/{ $total }.
exercise-solution = A solution
exercise-checking = checking your file…
exercise-not-checked-hint = not checked yet: c checks your file (e edits it)
exercise-state-done = ✓ done
exercise-state-failed = ✗ not passed yet
exercise-state-unchecked = not checked yet
exercise-pane-title = { $title } · track { $track }
exercise-more-lines = ↓ { $count } more { $count ->
    [one] line
   *[other] lines
} (PgDn)
exercise-file = file: { $path }
exercise-your-code = your code (e edits it)
exercise-check = check
exercise-more = more: agentlab exercise check { $id }
exercise-pass = PASS  { $id }: all { $total } cases agree with the lab's implementation
exercise-fail = FAIL  { $id }: { $passed } of { $total } cases passed
exercise-fail-at = FAIL  { $id }: passed { $passed } of { $total } · first failure: case { $n }
exercise-first-failing = first failing case: { $case }
exercise-expected = expected: { $value }
exercise-got = got:      { $value }
exercise-printed = printed:

# The checker's cases: what each input tests (shown as the first failing case).
exercise-case-random = random { $n }
exercise-case-ret-last-only = edge: a reward only at the last step
exercise-case-ret-gamma-0 = edge: γ = 0 (each step keeps its own reward)
exercise-case-ret-gamma-1 = edge: γ = 1 (sum of what follows)
exercise-case-one-step = edge: one step
exercise-case-no-steps = edge: no steps
exercise-case-ret-search-then-answer = edge: a search cost then an answer
exercise-case-gae-lambda-0 = edge: λ = 0 (one-step TD errors)
exercise-case-gae-lambda-1 = edge: λ = 1 and done at the end (Monte Carlo minus V)
exercise-case-gae-done-inside = edge: a done inside the rollout (the next episode must not leak back)
exercise-case-gae-done-last = edge: done at the last step (last_value must be ignored)
exercise-case-gae-not-done = edge: not done at the end (bootstrap from last_value)
exercise-case-group-of-one = edge: a group of one
exercise-case-group-all-right = edge: every answer right (all-equal group)
exercise-case-group-all-wrong = edge: every answer wrong (all-equal group)
exercise-case-group-one-in-four = edge: one right answer in four
exercise-case-group-two-groups = edge: two groups' worth of 0/1 rewards
exercise-case-group-negative = edge: negative rewards
exercise-case-ppo-inside = edge: ratio inside the clip range
exercise-case-ppo-above-pos = edge: ratio above 1 + ε, advantage > 0 (clipped)
exercise-case-ppo-above-neg = edge: ratio above 1 + ε, advantage < 0 (not clipped)
exercise-case-ppo-below-neg = edge: ratio below 1 − ε, advantage < 0 (clipped)
exercise-case-ppo-below-pos = edge: ratio below 1 − ε, advantage > 0 (not clipped)
exercise-case-ppo-zero-adv = edge: zero advantage
exercise-case-ppo-ratio-1 = edge: ratio exactly 1
exercise-case-k3-same = edge: the same policy (KL 0 on every token)
exercise-case-k3-more-sure = edge: the policy more sure than the reference
exercise-case-k3-less-sure = edge: the policy less sure than the reference
exercise-case-one-token = edge: one token
exercise-case-no-tokens = edge: no tokens
exercise-case-dpo-equal = edge: the policy equals the reference (loss ln 2)
exercise-case-dpo-chosen-gained = edge: the chosen answer gained, the rejected lost
exercise-case-dpo-both-fell = edge: both log-probs fell, the rejected one more
exercise-case-dpo-huge-right = edge: a huge margin the right way (loss ≈ 0)
exercise-case-dpo-huge-wrong = edge: a huge margin the wrong way (β·margin = −798: needs a stable form)
exercise-case-pk-none-correct = edge: no correct sample
exercise-case-pk-k-1 = edge: k = 1 is the share correct
exercise-case-pk-k-big = edge: k > n − c (every k-subset holds a correct one)
exercise-case-pk-all-correct = edge: every sample correct
exercise-case-pk-k-n = edge: k = n
exercise-case-pk-n-200 = edge: n = 200 (binomials overflow: use the product form)
exercise-case-pk-small-n = edge: small n where the naive 1 − (1 − c/n)^k is biased
exercise-case-ewc-at-anchor = edge: at the anchor (no pull)
exercise-case-ewc-one-weight = edge: one weight (mind the ½)
exercise-case-ewc-zero-fisher = edge: zero Fisher (task A does not care)
exercise-case-ewc-lambda-0 = edge: λ = 0 (naive fine-tuning)
exercise-case-ewc-same-drift = edge: the same drift weighted by different Fisher entries
exercise-case-cl-a-forgotten = edge: two tasks, A forgotten
exercise-case-cl-one-task = edge: one task (no transfer to measure)
exercise-case-cl-three-tasks = edge: three tasks, no forgetting, some forward help
exercise-case-cl-positive-bwt = edge: later tasks improved an earlier one (positive BWT)
exercise-case-qa-from-memory = edge: a right answer from memory
exercise-case-qa-one-search = edge: a right answer after one search
exercise-case-qa-wrong-format = edge: a wrong answer still earns the format reward
exercise-case-qa-never-answered = edge: never answered (no format reward, searches still cost)
exercise-case-qa-never-correct = edge: never answered, whatever `correct` says
exercise-case-qa-free-searches = edge: free searches
exercise-case-res-first = edge: the first item
exercise-case-res-room = edge: a buffer with room
exercise-case-res-fills = edge: the item that fills the buffer

# The reservoir's statistical and draw-by-draw checks.
exercise-res-not-buffer-after = after item { $item }, { $function } returned { $what }; it must return the buffer (an array of the items)
exercise-res-over-capacity = after item { $item } the buffer holds { $len } items; the capacity is { $capacity }
exercise-res-too-short = after item { $item } the buffer holds { $len } items; it should hold { $want } (it only stays short of the capacity while fewer items were seen)
exercise-res-never-pushed = after item { $item } the buffer holds { $bad }, which was never pushed
exercise-res-twice = trial { $trial }: the buffer holds an item twice: { $buffer }
exercise-res-not-buffer = { $function } returned { $what }; it must return the buffer
exercise-res-differs = after item { $item } (seed { $seed }) your buffer holds { $yours }; Algorithm R with the same draws holds { $lab }
exercise-res-same-draws = 40 items through a buffer of 6, the same random draws as the lab (stream { $stream })
exercise-res-lab-buffer = the lab's buffer (one rand_below(seen + 1) per item once the buffer is full)
exercise-res-streaming = streaming { $n } items through a buffer of { $k }, { $trials } times
exercise-res-want-rate = every item kept with probability { $k }/{ $n } = { $want }
exercise-res-got-rate = item { $item } kept in { $rate } of the trials; the first ten items { $first } on average, the last ten { $last }

# Running the learner's script: the case that failed and why.
exercise-compiling = compiling the script
exercise-finding = finding the function
exercise-error = error: { $error }
exercise-creating = creating { $path }
exercise-reading = reading { $path }

# Rhai's own error text comes in $error unchanged.
exercise-at-line-column = line { $line }, column { $column }: { $error }
exercise-at-line = line { $line }: { $error }
exercise-no-function = the script does not define fn { $name }(…) with { $arity } parameter(s)
exercise-wrong-arity = fn { $name } takes { $count } parameter(s) ({ $params }); it must take { $arity }

# What a script returned, as in "returned { $what }".
exercise-value-float = a float
exercise-value-int = an integer
exercise-value-bool = a boolean
exercise-value-array = an array of { $len }
exercise-value-of-type = a value of type { $type_name }
exercise-value-unreadable-array = an array that could not be read
exercise-returned-other = { $name } returned { $what }, which is not a number or an array
exercise-must-return-number = { $name } returned { $what }; it must return a number
exercise-must-return-numbers = { $name } returned { $what }; it must return an array of numbers
exercise-wrong-length = { $name } returned an array of { $len }; it must have { $want }
exercise-stopped-after = stopped after { $secs } s (an endless loop?)
exercise-stopped-too-long = stopped: the call ran too long
exercise-stopped-operations = stopped: too many operations (an endless loop?)
exercise-stopped-recursion = stopped: calls nested too deep (endless recursion?)
exercise-rand-below-n = rand_below({ $n }): n must be at least 1
exercise-rand-poisoned = the random stream is poisoned

# A drill trained with the learner's function (--use, or u on the drill screen).
exercise-plug-unknown = there is no exercise "{ $id }"
exercise-plug-other-drill = exercise { $id } plugs into drill { $plugs }, not { $drill }
exercise-plug-checked-only = no drill trains with exercise { $id } (it is checked only)
exercise-plug-both-grpo = use either grpo-advantages or dr-grpo-advantages, not both
exercise-your = your { $name }: { $error }
exercise-plug-not-finite = your { $name }({ $inputs }) returned { $values }: a value that is not a finite number (a division by a zero std?)
exercise-plug-res-not-buffer = your reservoir_push returned { $what }; it must return the buffer
exercise-plug-res-over-capacity = your reservoir_push returned { $len } items; the capacity is { $capacity }
exercise-plug-res-never-pushed = your reservoir_push returned item { $bad }, which was never pushed

# agentlab exercise show|hint|check, and --use for drill runs.
exercise-cli-unknown = unknown exercise "{ $id }" (agentlab exercise list shows them)
exercise-cli-show-head = { $title } · track { $track } · exercise { $id }
exercise-cli-your-file = your file: { $path }
exercise-cli-check-it = check it:  agentlab exercise check { $id }
exercise-cli-train-with = train with it: agentlab drill run { $drill } --use { $id }={ $path }
exercise-cli-hints = { $count ->
    [one] { $count } hint
   *[other] { $count } hints
} in the TUI (Exercises, h), or: agentlab exercise hint { $id } [N]
exercise-cli-hint = hint { $n }/{ $total }: { $hint }
exercise-cli-no-checker = this build has no checker for { $id }
exercise-cli-checking = checking { $path }
exercise-cli-watching = watching { $path }: every save is checked · Ctrl-C stops
exercise-cli-waiting = — waiting for the next save of { $path } —
exercise-cli-now-train = now train with it: agentlab drill run { $drill } --use { $id }={ $path }
exercise-cli-flagged = added to review: { $items }
exercise-cli-stuck = stuck? agentlab exercise hint { $id } 1 · --review adds its quiz items to review
exercise-cli-not-saved = progress NOT saved: { $error }
exercise-cli-use-form = --use expects EXERCISE=FILE, got "{ $arg }"
exercise-cli-why = { $case }: got { $got }
exercise-cli-fails-anyway = note: your { $id } fails its check ({ $why }); training with it anyway

## bradley-terry
exercise-case-bt-equal = edge: equal scores (loss ln 2)
exercise-case-bt-higher = edge: the chosen one scored higher by 1
exercise-case-bt-wrong-way = edge: the pair ordered the wrong way
exercise-case-bt-huge-right = edge: a huge margin the right way (loss ≈ 0)
exercise-case-bt-huge-wrong = edge: a huge margin the wrong way (h = −800: needs a stable form)
exercise-case-rope-s1 = edge: s = 1, interpolation (the plain frequencies)
exercise-case-rope-s1-ntk = edge: s = 1, NTK (the base unchanged)
exercise-case-rope-pi = interpolation: d = 16, s = 4 (every frequency divided by 4)
exercise-case-rope-ntk = NTK: d = 16, s = 4 (pair 0 kept, the last pair divided by 4)
exercise-case-rope-one-pair = edge: one pair (d = 2), interpolation with s = 2
exercise-case-rope-drill = NTK at the drill's shape: d = 32, s = 4
exercise-case-lora-sheet = edge: the sheet's worked example (W₀ = I, r = 1, α = 2)
exercise-case-lora-b-zero = edge: B = 0 at the start (y = W₀x exactly)
exercise-case-lora-rank-2 = edge: W₀ = 0, rank 2 (the update alone)
exercise-case-lora-alpha-zero = edge: α = 0 (the adapter switched off)
exercise-case-lora-wide = edge: out ≠ in (3 × 2)
exercise-plug-bt-not-finite = your bradley_terry({ $c }, { $r }) returned { $v }: a value that is not a finite number (e^(−h) overflows for a pair ordered the wrong way by a wide margin)
exercise-case-nce-equal = edge: all similarities equal (loss ln C)
exercise-case-nce-one = edge: a single candidate (loss 0)
exercise-case-nce-hand = by hand: sims 0.9, 0.1, 0.5, τ 0.5
exercise-case-nce-not-first = the positive is not the first candidate
exercise-case-nce-cold-wrong = edge: τ 0.001, a negative scores higher (loss 800; e^(s/τ) overflows)
exercise-case-nce-cold-right = edge: τ 0.001, the positive scores highest (loss ≈ 0)
exercise-plug-nce-not-finite = your info_nce(…, { $pos }, { $tau }) returned { $v }: a value that is not a finite number (e^(s/τ) overflows for a small τ unless the row's maximum is subtracted first)
exercise-no-sleep = sleep is not available here: a check and a drill run have a time limit
exercise-budget-spent = stopped: the calls to your function used up their { $secs } s together (is it much slower than it needs to be?)
exercise-plug-too-large = your { $name }({ $inputs }) returned { $value }: a finite number, but larger than the f32 the drill trains in holds (about 3.4e38)
