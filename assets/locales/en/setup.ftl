# A drill's setup: parameter values a learner types (--set, the config
# panel), each drill's own rules between its parameters, the model a run
# starts from, and why a run could not begin (src/content/drill_meta.rs,
# src/numbers.rs, src/drills/*).

## A value against its parameter's type and range
setup-kind-float = a number
setup-kind-int = a whole number
setup-kind-bool = true or false
setup-kind-choice = one of the choices (a word)
setup-kind-text = text
setup-range = {" "}({ $key } takes { $lo } … { $hi })
setup-unsupported = { $key }: unsupported value { $value }
setup-expected = { $key }: expected { $kind }, got { $value }
setup-not-finite = { $key }: { $value } is not finite
setup-below-min = { $key }: { $value } is below the minimum { $min }
setup-above-max = { $key }: { $value } is above the maximum { $max }
setup-not-choice = { $key }: "{ $value }" is not one of { $choices }
setup-text-too-long = { $key }: the text is { $n } characters long; { $key } takes at most { $max }
setup-text-one-line = { $key }: the text must be one line (no tabs, newlines or other control characters)
setup-out-of-range = { $key }: { $value } is out of range
setup-not-whole = { $key }: "{ $value }" is not a whole number
setup-not-bool = { $key }: "{ $value }" is not true/false (or on/off, yes/no, 1/0)
setup-not-a-finite-number = { $key }: "{ $value }" is not a finite number
setup-not-a-number = { $key }: "{ $value }" is not a number

## Rules between a drill's parameters
setup-heads = n_heads ({ $heads }) must divide d_model ({ $d_model })
setup-max-new = max_new ({ $max_new }) must leave room for an answer of { $digits } digits and the end token
setup-held-half = { $key } ({ $held }) must hold out at most half of the { $all } problems with { $digits } digits
setup-evals-steps = evals ({ $evals }) cannot exceed steps ({ $steps })
setup-dpo-beta = beta_compare ({ $compare }) must differ from beta ({ $beta }): the drill compares two β
setup-probe-holdout = probe ({ $probe }) cannot exceed holdout ({ $holdout })
setup-mm-mix = mix ({ $mix }) + other_mix ({ $other }) leave too little of the expert's own task (at most 0.9 together)
setup-mm-sweep-holdout = sweep_holdout ({ $sweep }) cannot exceed holdout ({ $holdout })
setup-mm-holdout-words = holdout ({ $holdout }) is more than half of the { $words } words of { $letters } letters
setup-pak-temps = temp_low ({ $low }) must be below temp_high ({ $high })
setup-ri-window = sort_window ({ $window }) must be a multiple of batch ({ $batch })
setup-tca-known = known_places ({ $known }) must leave places that need a search
setup-lora-rank = lora_rank must be at least 1 for a real model
setup-random-real = start_from = random works with the tiny model only; a real model starts from its own pretrained weights

## The model a run starts from
setup-real-start = starting from { $name } + LoRA r{ $rank } ({ $params } parameters, frozen; BPE vocabulary of { $vocab }; LoRA on every projection of the top { $adapted } of { $total } layers)

## Why a run could not go on
setup-no-pairs = no preference pairs: on all { $prompts } prompts the SFT model's { $samples } samples were all right or all wrong ({ $right } all right, { $wrong } all wrong). Change sft_steps, temperature or samples.
setup-no-held-pairs = no held-out pairs: raise test_size or samples, or change sft_steps
setup-too-long = the longest trajectory ({ $longest } tokens) does not fit the base model's context of { $context }
setup-no-rl-step = no RL step ran (rl_steps = 0)
setup-no-capitals = the model names none of the real capitals, so it has no known places to answer from memory

## A whole number a learner types (a seed, how many seeds, a flag's value)
setup-whole-at-least = ≥ { $min }
setup-whole-between = from { $min } to { $max }
setup-whole-got = { $what } is a whole number { $range }, got { $got }
setup-whole-got-text = { $what } is a whole number { $range }, got "{ $got }"
setup-whole-overflow = { $what } is a whole number { $range }, and { $got } is out of range (the largest is { $max })
setup-what-seed = a seed
setup-what-sweep-seeds = sweep seeds
setup-what-seeds-seed = seeds: a seed

## reward-model-overopt
setup-rm-pairs = pairs_small ({ $small }) cannot exceed pairs_large ({ $large }): the small set is the start of the large one
setup-rm-dots = dot_cost × max_dots ({ $product }) must stay below 1: a right answer must beat a wrong one whatever its dots
setup-rm-evals = evals ({ $evals }) cannot exceed rm_steps ({ $steps })
setup-rm-few-pairs = only { $got } preference pairs from { $prompts } prompts (pairs_large = { $want }): the SFT model's samples are almost all right or all wrong. Change sft_steps, habit_rate or pair_samples.
setup-rm-no-held-pairs = no held-out pairs: no held-out prompt has both a right and a wrong sample
setup-tr-hard = hard_negatives ({ $hard }) is more than a tool has near-duplicates ({ $near }: verbs + objects + qualifiers − 3)
setup-tr-holdout = holdout leaves { $held } of { $families } verb-object families held out: there must be some to test on and some to train on
setup-tr-batch = batch ({ $batch }) is more than there are training tools: a batch holds distinct tools
setup-lc-even-head = RoPE needs an even head dimension (d_model / n_heads is { $hd })
