# The addition task that grpo-rlvr and rollout-infra share (addition.rs).
view-add-kind-hedge = hedge
view-add-kind-slip = slip
view-add-kind-answer = answer
view-add-data-title-slips = Warm-start data: answers, now and then a hedge, and a dropped top carry (slip)
view-add-data-title = Warm-start data: answers, and now and then a hedge
view-add-log-slips = ; { $pct }% of the others whose sum carries into the top digit drop that carry
view-add-log-data = { $digits }-digit addition, { $how } ({ $prompt } → { $answer }); { $held } held-out problems; { $hedge }% of warm-start answers hedge{ $slips }; vocabulary of { $vocab } tokens
view-add-how-chars = answers least significant digit first
view-add-how-chat = the problem as the user's message of the chat template, answered as people write sums
view-add-phase-untrained = untrained model
view-add-log-untrained = The untrained instruct model on the held-out problems, in its own words (24 tokens at most): greedy, { $greedy_exact } reply with the sum alone (the exact verifier) and { $greedy_last } write it as their last number (an answer extractor's reading); sampled at temperature { $temperature }, { $sampled_exact } and { $sampled_last }. For example { $example }
