# pass-at-k-harness (temperatures, extractor names and format names stay as the parameters spell them)
view-pak-phase-sample = sample
view-pak-phase-estimate = estimate
view-pak-phase-harness = harness
view-pak-log-sampled = sampled { $samples } completions per problem for { $problems } problems at { $temps }, and at { $t } in the { $format } format
view-pak-log-summary = { $t }: pass@1 { $p1 }, pass@{ $n } { $pn }, pass^{ $n } { $hat }; pass@1 falls from { $low1 } at { $tlow } to { $high1 } at { $thigh } while pass@{ $n } goes from { $lown } to { $highn }
view-pak-draw-without = k-subsets (without replacement)
view-pak-draw-with = k picks WITH replacement
view-pak-log-mc = Monte Carlo ({ $draws } draws of { $how } per problem and k): largest |unbiased − MC| { $off } ({ $off_hw } of the interval's half-width); largest MC − naive { $below } at k = { $k } ({ $below_hw } half-widths)
view-pak-estimators-title = pass@k at { $t } from n = { $n } samples per problem: unbiased (95% bootstrap interval over { $problems } problems), plug-in, Monte Carlo; pass^k
view-pak-col-unbiased = unbiased pass@k [95%]
view-pak-col-naive = naive 1−(1−c/n)^k
view-pak-col-naive-mc = naive − MC
view-pak-temperature-title = Temperature: pass@1 falls, pass@n rises (strict match, trained format)
view-pak-col-temperature = temperature
view-pak-col-hedged = hedged
view-pak-row-trained = { $extractor } · trained format
view-pak-row-format = { $extractor } · { $format } format
view-pak-harness-title = One model, one set of samples ({ $t }, n = { $n }): pass@1 under each answer extractor and prompt format ({ $trained } → `{ $trained_ex }`, { $alt } → `{ $alt_ex }`)
view-pak-col-extractor = extractor · prompt format
view-pak-col-width = width
view-pak-col-delta = Δ vs strict [95% paired]
view-pak-col-delta-widths = Δ in widths
view-pak-log-harness = harness: strict pass@1 { $base } (width { $width }); any number { $any } ({ $any_shift } widths); strict in the { $format } format { $alt } ({ $alt_shift } widths)
view-pak-col-format = { $format } format { $t }
view-pak-col-first-samples = first samples at { $t }
view-pak-problems-title = Problems from always wrong to always right: c correct of n, per setting
