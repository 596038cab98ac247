# dpo-pairs
view-dpo-phase-pairs = pairs
view-dpo-phase-baseline = SFT on chosen (baseline)
view-dpo-verdict-pair = chosen { $chosen } · rejected { $rejected }
view-dpo-dropped-right = dropped: all right
view-dpo-dropped-wrong = dropped: all wrong
view-dpo-log-report = { $loss } β = { $beta }: held-out pass rate { $pass0 } → { $pass1 } (greedy { $greedy0 } → { $greedy1 }); held-out implicit-reward accuracy { $acc }; KL to the reference { $kl } nats (β = { $beta2 }: { $kl2 }); logps/chosen { $c0 } → { $c1 }, logps/rejected { $r0 } → { $r1 }; SFT on chosen: pass rate { $base }
view-dpo-log-sft = { $digits }-digit addition, sum written least significant digit first; { $gpt }
view-dpo-pairs-title = Preference pairs from the SFT model's own samples ({ $samples } per prompt)
view-dpo-col-prompts = prompts
view-dpo-col-samples-right = samples right
view-dpo-col-pairs = pairs
view-dpo-row-training = training
view-dpo-row-heldout = held-out
view-dpo-groups-title = Sampled groups and the pair the verifier picks
view-dpo-groups-title-swapped = Sampled groups and the pair the verifier picks (labels swapped for training!)
view-dpo-col-samples = samples (✓ right, ✗ wrong)
view-dpo-col-pair = pair
view-dpo-log-pairs = pairs: { $pairs } of { $prompts } training prompts ({ $right } all right, { $wrong } all wrong: dropped); { $held } held-out pairs; { $pass } of the samples right
view-dpo-compare-title = Held-out: the SFT model and what { $steps } steps made of it
view-dpo-col-pass-sampled = pass (sampled)
view-dpo-col-pass-greedy = pass (greedy)
view-dpo-col-kl = KL to ref
view-dpo-col-reward-acc = reward acc
view-dpo-col-logp-chosen = logp chosen
view-dpo-col-logp-rejected = logp rejected
view-dpo-row-reference = SFT (reference)
view-dpo-row-sft-chosen = SFT on chosen
# Token labels before each answer (the code adds the spaces around them).
view-dpo-chosen = chosen
view-dpo-rejected = rejected
view-dpo-pair-title = A held-out pair after DPO ({ $chosen } right, { $rejected } wrong)
view-dpo-pair-legend = answer tokens coloured by log π − log π_ref (green: DPO raised it, red: lowered it); the sums are the implicit rewards / β
view-dpo-both-fell = both fell
view-dpo-chosen-rose = chosen rose, rejected fell
view-dpo-chosen-fell = chosen fell, rejected rose
view-dpo-both-rose = both rose
view-dpo-why-line = β = { $beta }: chosen { $c0 } → { $c1 }, rejected { $r0 } → { $r1 } ({ $verdict }); held-out pass rate { $pass }, KL to the reference { $kl }
view-dpo-why-title = Why logps/chosen can fall too
view-dpo-why-intro = Mean summed log-prob of the training pairs' answers, SFT model → after DPO:
view-dpo-why-body = The DPO loss sees only the margin h = β[(log π(y_w) − log π_ref(y_w)) − (log π(y_l) − log π_ref(y_l))]. Any move that widens it lowers the loss, including one that lowers both log-probs, the rejected faster. A chosen and a rejected answer share the prompt and most of their digits, so the gradient that pushes a wrong answer down also pushes down what it shares with right ones, and probability mass flows to answers in neither set. Each pair's weight in the gradient is σ(−h): with a large β a pair is switched off after a small move (h grows fast), with a small β every pair keeps weight ≈ ½ until the log-ratio margin is huge, and the push goes on — the policy drifts far from the reference (KL) and its right answers lose probability with its wrong ones.
view-dpo-log-sft-real = { $digits }-digit addition, the problem as the user's message of the chat template, answered as people write sums; LoRA SFT on answers of which some drop the carries
