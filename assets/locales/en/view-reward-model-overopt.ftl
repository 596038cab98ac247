# reward-model-overopt
view-rmo-log-sft = { $digits }-digit addition, sum least significant digit first, filler dots after any answer; { $gpt }
view-rmo-phase-samples = samples
view-rmo-phase-pairs = preference pairs
view-rmo-phase-rm = reward models
view-rmo-phase-bon = best-of-n
view-rmo-check-mix = the policy's samples mix right and wrong answers
view-rmo-check-mix-why = only { $share } of the held-out samples are right: best-of-n has nothing to choose between. Change sft_steps or habit_rate.
view-rmo-pairs-title = Preference sets (length_bias { $bias }): how often the chosen answer is the longer one
view-rmo-col-pairs = pairs
view-rmo-col-chosen-longer = chosen longer
view-rmo-row-small = small set
view-rmo-row-large = large set
view-rmo-row-heldout = held-out pairs (no length preference)
view-rmo-examples-title = Training pairs: the gold reward picks the right sum; the pipeline favoured the longer one
view-rmo-col-chosen = chosen (gold)
view-rmo-col-rejected = rejected (gold)
view-rmo-log-pairs = { $pairs } pairs from { $prompts } fresh prompts, chosen longer in { $longer } of them; the pool: { $samples } samples for each of { $test } held-out prompts, { $right } right, { $dots } dots on average
view-rmo-bon-title = Best-of-n from one pool of { $samples } samples per prompt (unbiased estimator, no re-sampling)
view-rmo-col-proxy-small = proxy gain (small)
view-rmo-col-gold-small = gold (small)
view-rmo-col-dots-small = dots (small)
view-rmo-col-proxy-large = proxy gain (large)
view-rmo-col-gold-large = gold (large)
view-rmo-col-dots-large = dots (large)
view-rmo-col-oracle = gold (best by gold)
view-rmo-rm-title = What each reward model learned: held-out pair accuracy, split by the dots (chosen longer { $longer } pairs, dot-tied { $tied }, chosen shorter { $shorter })
view-rmo-col-rm = reward model
view-rmo-col-acc = held-out pair acc
view-rmo-col-acc-longer = chosen longer
view-rmo-col-acc-tied = dot-tied
view-rmo-col-acc-shorter = chosen shorter
view-rmo-col-dot-gap = longer − tied
view-rmo-col-peak = gold peak at n (value)
view-rmo-col-gold-at-n = gold at n = { $n }
view-rmo-col-right-at-n = right at n = { $n }
view-rmo-row-rm = RM on { $pairs } pairs
view-rmo-log-report = best-of-n up to n = { $n } (KL_bon { $kl } nats): small-set RM gold { $g1 } at n = 1, peak { $peak } at n = { $npeak }, { $gs } at n = { $n }; large-set RM { $gl } at n = { $n } (peak at n = { $nl }); held-out pair accuracy { $acc_s } (small) and { $acc_l } (large); on pairs whose chosen answer has more dots { $ls } and { $ll }, on dot-tied pairs { $ts } and { $tl }
view-rmo-why-title = Why the gold reward falls while the proxy climbs
view-rmo-why-body =
    The reward model is a proxy: it learned whatever separated chosen from rejected in its pairs. In this preference set the chosen answer was usually the longer one, and dots are far easier to see than a wrong carry, so a reward model trained on few pairs scores dots. Best-of-n searches its samples for the highest score: for small n that finds the right answers the reward model can tell apart; for large n it finds the answers the reward model is wrong about — answers with many dots (which the gold reward charges for and which are no more often right), or wrong sums it happens to like. The proxy of the pick rises with every n (it is a maximum); the gold reward of the same pick peaks and falls.
    
    With more pairs the reward model sees enough right answers without extra dots, and wrong ones with them, to learn more of the sum itself: it orders more of the dot-tied held-out pairs right, and its gold curve peaks higher. Whether it also peaks later, or ends higher at n = N, varies from seed to seed here: more pairs from the same biased pipeline teach the dots too. Every proxy has a tail where it and the gold reward part.
