# self-refine-loop
view-refine-phase-refine = self-refine
view-refine-phase-probe = self-critic probe
view-refine-phase-star = STaR round { $round }
view-refine-critic-verifier = verifier
view-refine-critic-self = self
view-refine-log-refine = self-refine ({ $critic } critic, { $rounds } rounds) on { $n } held-out problems: mean score { $first } → { $kept } (latest version { $latest }), pass { $pass0 } → { $pass1 }
view-refine-episodes-title = Self-Refine episodes (SFT model)
view-refine-log-report = first-draft pass rate on { $n } held-out problems: { $before } before STaR, { $first } after round 1, { $last } after round { $rounds }
view-refine-log-trace = one refinement trace is { $n } tokens, { $prompt } of them the chat template, the system message and the problem
view-refine-trace-title = One refinement trace of the SFT data
view-refine-trace-legend = prompt · synthetic draft | critique (. right, ^ too low, v too high) > revision; bright = in the loss
view-refine-log-real = { $digits }-digit addition, the problem as the user's message
view-refine-log-tiny = { $digits }-digit addition; { $gpt }
view-refine-log-star = STaR round { $round }: { $problems } fresh problems, { $drafts } first drafts right, { $kept } final answers kept ({ $wrong } of them wrong), { $seqs } training sequences
view-refine-log-skip = nothing to train on: the round is skipped
view-refine-log-after-star = after STaR round { $round }: first-draft pass rate { $after } (mean score { $score }, was { $before } before STaR), after refine { $refined }
view-refine-col-problem = problem
view-refine-col-versions = versions [critique]
view-refine-col-score = score
view-refine-log-self-critic = self-critic: approves { $approved } of { $wrong } wrong first drafts; true score { $first } → { $self_final } (verifier critic: → { $ver_final }); the kept answer got worse in { $fall } of { $n } episodes
view-refine-self-critic-title = The model as its own critic (no verifier in the loop)
view-refine-row-approves = wrong drafts it approves (agrees with its mistake)
view-refine-row-flags = right drafts it flags (false alarm)
view-refine-row-first = mean true score: first draft
view-refine-row-kept-self = mean true score: kept, self critic
view-refine-row-kept-verifier = mean true score: kept, verifier critic
view-refine-row-worse = episodes whose kept answer got worse
