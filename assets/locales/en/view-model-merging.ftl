# model-merging (task names and the merges TIES and DARE stay as the code spells them)
view-mm-tasks-title = The two tasks (each expert learns one; the merge should do both)
view-mm-col-task = task
view-mm-col-answer = answer
view-mm-col-held-out = held out
view-mm-col-train-pool = train pool
view-mm-phase-warm-start = warm start
view-mm-log-permuted = expert B starts from the base with permuted MLP units and heads: same function (the base writes { $before } after the first task-A prompt, the permuted one { $after }), ‖θ_perm − θ_base‖ = { $norm }
view-mm-check-own = each expert has learned its own task
view-mm-check-own-why = expert A reaches { $a } on task A and expert B { $b } on task B (each needs 0.9): train them longer (steps) or faster (lr)
view-mm-check-other = neither expert can do the other's task
view-mm-check-other-why = expert A reaches { $a } on task B and expert B { $b } on task A (at most 0.05 each): with other_mix above 0 each expert trains on both tasks, and a merge has nothing to add
view-mm-phase-expert = expert { $arm } ({ $task })
view-mm-conflicts-title = Sign conflicts between τ_A and τ_B per layer (where both moved; 'kept': both in the top { $pct }%)
view-mm-col-layer = layer
view-mm-col-params = params
view-mm-col-conflicts = conflicts
view-mm-col-conflicts-kept = conflicts, kept
view-mm-col-both-kept = both kept
view-mm-log-vectors = task vectors: ‖τ_A‖ { $na }, ‖τ_B‖ { $nb }, cosine { $cos }; signs conflict on { $share }% of the weights both moved, { $kept }% of those both keep after the trim
view-mm-phase-sweep = λ sweep
view-mm-sweep-title = Task arithmetic θ₀ + λ(τ_A + τ_B) over λ ({ $n } validation items per task; λ = 0.5 is the plain average); λ* = { $tuned } has the best min
view-mm-col-chars = chars { $task }
view-mm-col-chars-min = chars min
view-mm-col-exact = exact { $task }
view-mm-log-tuned = λ* = { $tuned }, chosen on validation items; task arithmetic and DARE use it on the test items
view-mm-row-base = θ₀ (warm start)
view-mm-row-expert = expert { $arm }
view-mm-merge-average = average
view-mm-merge-fixed = task arithmetic, λ fixed
view-mm-merge-tuned = task arithmetic, λ*
view-mm-heldout-title = Held-out accuracy ({ $n } items per task): characters right by position, and whole answers right
view-mm-col-weights = weights
view-mm-samples-title = What each model writes for the first held-out prompt of each task (greedy)
view-mm-log-shipped = the shipped base: d_model { $d }, { $layers } layers, { $heads } heads, { $params } parameters; every one is fine-tuned
view-mm-log-base-acc = character accuracy of the shipped base: A { $sa }, B { $sb }; of θ₀ after the warm start: A { $ba }, B { $bb }
view-mm-phase-merge = merge
view-mm-log-experts = experts on their own task: A { $own_a }, B { $own_b }; on the other task: A { $other_a }, B { $other_b } (base { $base_a }, { $base_b })
view-mm-tokens-title = One sequence per task, one token per character (trained: the answer and <eos>)
view-mm-tokens-legend = prompt = context only; trained = in the loss
