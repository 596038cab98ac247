# Try on reward-model-overopt, tool-retrieval, long-context-rope, lora-vs-full, model-merging, ewc-replay
# (src/drills/<drill>/tried.rs), and why rollout-infra has none.

## reward-model-overopt (a scorer)
try-rmo-hint = a problem alone for best-of-n from the policy (47+85=), or a problem and an answer to score, digits least significant first ({ $example }), or ↑↓ for a held-out one
try-rmo-not-a-problem = type a problem like 47+85= (two whole numbers of at most { $digits } digits), with or without an answer after the =
try-rmo-bad-answer = an answer is digits, least significant first, then any dots: { $example }
try-rmo-policy = policy (SFT) · gold reward
try-rmo-rm-start = RM before training
try-rmo-rm = RM on { $pairs } pairs
try-rmo-note-problem = { $prompt } is { $sum }: the right answer is { $gold } (least significant digit first), dropping every carry gives { $dropped }; gold reward = 1 if right, minus { $cost } per dot
try-rmo-note-variants = your answer beside the right one and the carry-dropped one, each bare and with { $dots } dots: a reward model that learned the dots scores them up whatever the sum
try-rmo-note-bon = best-of-{ $n }: { $n } answers sampled from the policy; each reward model picks the one it scores highest, and the gold reward says what its pick is worth
try-rmo-right = right
try-rmo-dots = dots
try-rmo-gold = gold
try-rmo-logp = log p under the policy
try-rmo-score = score
try-rmo-rank = rank
try-rmo-pick = pick
try-rmo-gold-pick = the gold reward's pick
try-rmo-dot-gain = what { $dots } dots add (right / carry-dropped)
try-rmo-right-first = every right answer above every wrong one

## tool-retrieval (retrieval)
try-tr-hint = a request for a tool in the world's words or their synonyms ({ $example }), or ↑↓ for a held-out query
try-tr-start = encoder before training
try-tr-in-batch = in-batch negatives only
try-tr-random = { $n } random extras
try-tr-hard = { $n } hard negatives
try-tr-rank = rank of the named tool
try-tr-named-held = the query names { $tool }: a held-out tool (its family never trained on); ✓ marks it, ≈ a tool one slot off
try-tr-named-trained = the query names { $tool }: a tool of the training families; ✓ marks it, ≈ a tool one slot off
try-tr-named-none = the query does not name one verb, one object and one qualifier: no tool is the right one
try-tr-held-query = one of the run's held-out queries
try-tr-unknown = words no retriever reads (not in the world): { $words }
try-tr-no-known-word = none of these words is in the tool world: every retriever would read an empty query; try one like { $example }
try-tr-flat = every tool scores { $score }: none of the query's words is in a tool's name, so there is no ranking (the tie counts against the named tool)

## long-context-rope (columns)
try-lc-hint = a length to copy ({ $n } is the trained one, { $max } the longest), or the symbols themselves (a to { $last }), or ↑↓
try-lc-bad-input = type a length (1 to { $max }) or a sequence of the run's { $symbols } symbols (a to { $last }), like { $example }
try-lc-too-long = { $len } symbols is more than the run's model reads: { $max } at most ({ $context } tokens, the sequence twice and a separator)
try-lc-trained = trained at { $n } (no scaling)
try-lc-pi = PI ÷{ $s }
try-lc-ntk = NTK-aware ×{ $s }
try-lc-yarn = YaRN ×{ $s }
try-lc-pi-ft = PI + { $steps } fine-tune steps
try-lc-none-ft = no scaling + { $steps } fine-tune steps
try-lc-note-length = { $len } symbols, { $tokens } tokens: the copy reads { $len } positions back, { $times }× the distance training showed ({ $n })
try-lc-note-read = each copy position is predicted from the true symbols before it, as the run scores it; capitals (or *) mark the wrong ones
try-lc-source = src
try-lc-copy = copy
try-lc-right = right
try-lc-first-wrong = first wrong at
try-lc-none = none
try-lc-accuracy = accuracy

## lora-vs-full (columns)
try-lora-hint = a word over { $letters } for the cipher ({ $example }), or any text for the base task (how much each arm forgot), or ↑↓
try-lora-base = base (shipped)
try-lora-full = full fine-tuning
try-lora-rank = LoRA r={ $r }
try-lora-note-cipher = the cipher's answer: { $answer } ({ $table })
try-lora-held = a held-out word: no arm trained on it
try-lora-not-held = not a held-out word: the arms may have trained on it
try-lora-note-text = base-task text: each arm's loss on it in nats per token (higher: more forgotten), then how it goes on
try-lora-letters = letters
try-lora-exact = exact
try-lora-base-loss = base-task loss

## model-merging (columns)
try-mm-hint = a word asks both tasks ({ $a } without its marker), or a word with its marker asks one ({ $a }, { $b }), or ↑↓
try-mm-bad-input = type a word of at most { $max } letters: a–h asks both tasks, with ! task A ({ $a }), with # task B in { $b_letters } ({ $b })
try-mm-warm = θ₀ warm start
try-mm-expert = expert { $arm }
try-mm-note = { $task }: { $prompt } → { $gold } ({ $seen })
try-mm-held = held out
try-mm-val = a validation word: held out from training, λ* was chosen on it
try-mm-train = in the experts' training pool
try-mm-chars = chars
try-mm-weights = weights

## ewc-replay (columns)
try-ewc-hint = a word of { $len } letters a–h asks every task ({ $example }); end it with a task's marker to ask one; or ↑↓
try-ewc-bad-input = type a word of letters a–h (at most { $max }), like { $example }, alone or with a marker: { $markers }
try-ewc-after-a = after task A ({ $task })
try-ewc-naive = naive after { $task }
try-ewc-ewc = EWC after { $task }
try-ewc-replay = replay after { $task }
try-ewc-note = { $gold } ({ $seen })
try-ewc-held = a held-out word: never trained on under any marker
try-ewc-not-held = not a held-out word: trained on, or not { $len } letters long

## rollout-infra (no Try)
try-ri-none = rollout-infra has no Try: it measures this machine (tokens/s with and without the KV cache, padding, KV bytes, the cost of stale rollouts), and a timing is not an answer the same seed gives twice. Its report and charts hold what it measured; agentlab bench measures generation speed at other sizes; its model is made as grpo-rlvr's warm start is, and grpo-rlvr's Try samples that one.
