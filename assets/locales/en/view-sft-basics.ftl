# sft-basics
view-sft-log-data = { $train } training pairs, { $held } held out; vocabulary of { $vocab } tokens
view-sft-example-title = One training example
view-sft-example-legend = dim = prompt (label −100, no loss) · bright = answer tokens the loss trains
view-sft-log-heldout = held-out exact match on { $n } pairs: { $acc }
view-sft-samples-title = Held-out samples (answers reversed when reverse_answer is on)
