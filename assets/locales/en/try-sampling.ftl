# Try on sft-basics, pass-at-k-harness, dpo-pairs, self-refine-loop and prompt-injection (each drill's tried.rs).

## sft-basics
try-sft-init = random init (before step 1)
try-sft-trained = after SFT
try-sft-hint = a sum of two numbers below 100 (37+45=), or ↑↓ for a held-out one
try-sft-note = the model reads { $prompt } and should write { $gold } ({ $sum }, { $order }, then the end token ⏎); { $seen }
try-sft-reversed = least significant digit first
try-sft-plain = most significant digit first
try-sft-held-out = a held-out sum: the run never trained on it
try-sft-trained-on = one of the sums the run trained on
try-sft-reads = reads
try-sft-no-number = no number
try-sft-digits = digits right

## pass-at-k-harness
try-pak-init = random init (where the SFT started)
try-pak-trained = after SFT (the model the harness scores)
try-pak-hint = a sum of two numbers of at most { $digits } digits in any of the harness's prompt formats (47+38=, 47 + 38 =, 047+038=), or ↑↓ for a held-out one
try-pak-not-a-sum = type a sum in one of the harness's prompt formats: { $formats } (two whole numbers of at most { $digits } digits)
try-pak-format-trained = the trained prompt format
try-pak-format-unseen = the { $format } prompt format, one the model never saw in training
try-pak-note = the model reads { $prompt } ({ $how }) and should write { $gold } ({ $sum }, least significant digit first); { $seen }
try-pak-maybe-trained = not a held-out sum: the SFT may have trained on it
try-pak-note-estimates = below each arm: c of the { $n } samples right under each extractor, then from strict c: pass@1, pass@{ $k } = 1 − C(n−c, { $k })/C(n, { $k }) (unbiased), the plug-in 1 − (1 − c/n)^{ $k }, and pass^{ $k } (all { $k } right)
try-pak-plug-in = plug-in pass@{ $k }
try-pak-read-right = read right by
try-pak-none = no extractor

## dpo-pairs
try-dpo-sft = SFT (the start, DPO's reference)
try-dpo-note = the verifier wants { $gold } and nothing else; the habit planted in the SFT data drops every carry: { $habit }
try-dpo-note-no-carry = the verifier wants { $gold } and nothing else; this sum has no carry, so the planted habit (every carry dropped) writes the right answer here: try one with a carry
try-dpo-not-held-out = not a held-out sum: the SFT data or the pairs may have had it
try-dpo-note-reward = log π/π_ref: how much more likely than the SFT reference an arm made its sample (β times it is DPO's implicit reward); log p: the whole answer's summed log-probability
try-dpo-right = right
try-dpo-habit = carries dropped
try-dpo-logp-gold = log p({ $gold })
try-dpo-logp-habit = log p({ $habit })

## prompt-injection
try-pi-clean = clean SFT (where the defences start)
try-pi-undefended = undefended (more clean steps)
try-pi-hint = a question in the world's words that looks something up (population of { $place }?, founded of { $place } + 12?), or ↑↓ for one the run's evaluation attacked
try-pi-switch-attack = attack
try-pi-attack-off = attack off: the tools answer honestly
try-pi-attack-runs = attack on: the first lookup result carries the injection this question met in the run, "{ $text }" (it asks to { $wants })
try-pi-attack-drawn = attack on: the first lookup result carries "{ $text }" (it asks to { $wants }), drawn as the run drew its held-out injections
try-pi-attack-no-lookup = attack on, but this question needs no lookup, and the injection ("{ $text }") rides on the first lookup result: it reaches an agent only if it looks something up
try-pi-allow-list = undefended behind an allow-list
try-pi-allow = the allow-list column: lookups and searches must name { $place }, any other is blocked
try-pi-allow-none = the allow-list column: this question names no place to allow, so nothing is blocked
try-pi-followed = followed the injection
try-pi-yes = yes
try-pi-no = no
try-pi-not-met = never met it (no lookup found anything)

## self-refine-loop
try-refine-sft = after SFT
try-refine-after-star = after STaR ({ $rounds } round(s) on its own verified answers)
try-refine-hint = a sum of two numbers of at most { $digits } digits (347+285=), or ↑↓ for a held-out one (those the SFT model drafts wrong first)
try-refine-switch = self-critic
try-refine-note = the model reads { $prompt } and should write { $gold } ({ $sum }, least significant digit first); the loop drafts, then critiques and revises up to { $rounds } times, keeping the best version
try-refine-note-verifier = critic: the verifier, one mark per digit (. right, ^ too low, v too high, ? missing); keep-best and stopping use its score
try-refine-note-self = critic: the model itself (self-critic on); keep-best and stopping trust its critique, each checked against the verifier's below
try-refine-not-held-out = not a held-out sum: the SFT or STaR data may have had it
try-refine-draft = draft
try-refine-revision = revision { $k }
try-refine-critique = critique of the { $version }
try-refine-critique-vs = its own { $own }, the verifier's { $verifier }
try-refine-kept = kept
try-refine-approved = approved its own error
try-refine-drafts-right = first drafts right
try-refine-kept-right = kept answers right
try-refine-mean-score = mean score, draft → kept
