# The addition task that grpo-rlvr and rollout-infra share (addition.rs).
view-add-kind-hedge = hedge
view-add-kind-slip = slip
view-add-kind-answer = answer
view-add-data-title-slips = Warm-start data: answers, now and then a hedge, and a dropped top carry (slip)
view-add-data-title = Warm-start data: answers, and now and then a hedge
view-add-log-slips = ; { $pct }% of the others whose sum carries into the top digit drop that carry
view-add-log-data = { $digits }-digit addition, answers least significant digit first ({ $prompt } → { $answer }); { $held } held-out problems; { $hedge }% of warm-start answers hedge{ $slips }; vocabulary of { $vocab } tokens
