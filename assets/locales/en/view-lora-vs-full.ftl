# lora-vs-full
view-lora-check-ranks = rank_low ({ $low }) must not exceed rank_high ({ $high })
view-lora-check-holdout = holdout = { $held } is more than half of the { $all } words
view-lora-data-title = The new task: a cipher (held-out words)
view-lora-log-data = cipher over { $symbols } symbols: { $table }; { $held } held-out words; base task: { $seqs } packed sequences of fresh pretraining text
view-lora-log-base = the shipped base ({ $params } parameters): held-out cipher accuracy { $acc }, base-task loss { $loss }
view-lora-phase-arm = fine-tune: { $arm }
view-lora-arms-title = Three fine-tunes of one base ({ $params } parameters; held-out accuracy before: { $acc })
view-lora-col-arm = arm
view-lora-col-trainable = trainable params
view-lora-col-share = share
view-lora-col-adam = AdamW state (KiB)
view-lora-col-acc = held-out accuracy
view-lora-col-rise = base loss rise
view-lora-col-moved = blocks moved ‖ΔW‖/‖W₀‖
view-lora-why-title = Why rank matters here
view-lora-why-body =
    Every arm starts from the same base and sees the same batches. Full fine-tuning moves all { $params } parameters, embeddings included, and AdamW keeps two moments for each. LoRA freezes them all and trains, for each block matrix W₀, two thin matrices A and B whose product is the update: W₀ + (α/r)·B·A. Its trainable parameters and optimizer state are a few percent of full fine-tuning's.
    
    The cipher is a table: each input symbol has its own output. One direction per matrix (rank 1) holds little of ten different rows; eight hold enough, and rank 8 gets as far as full fine-tuning.
    
    Forgetting is measured on the base's own pretraining text. Here LoRA forgets more than full fine-tuning, not less. The last column shows how far each arm moved the block matrices every token passes through: at lora_lr = 1e-2 the adapters move them several times further than full fine-tuning does at full_lr = 1e-3. It is not the frozen embeddings: try full_trains = matrices, full fine-tuning of only the matrices LoRA adapts. Nor is distance the whole story: at lora_lr = 3e-3 LoRA still moves further than full fine-tuning and forgets less, and learns less. Which method forgets more is a matter of settings, not a law.
view-lora-check-symbols = symbols = { $symbols }: digits allow at most { $most }
