# long-context-rope
view-lc-log-data = copy: { $n } random symbols, a separator, the same { $n } again ({ $short } tokens) in training; up to { $long_n } symbols ({ $long } tokens) when read long; { $symbols } symbols
view-lc-check-learned = the model learned to copy at the trained length
view-lc-check-learned-why = copy accuracy at the trained length is only { $acc }: below 0.9, so there is not much to extend. Raise steps or lr.
view-lc-phase-finetune = fine-tune at the long length
view-lc-table-title = Copy accuracy by RoPE scaling and length (chance { $chance })
view-lc-col-rope = RoPE scaling
view-lc-col-ft = fine-tune steps
view-lc-col-len = acc at { $len } tokens
view-lc-log-report = at { $long } tokens: trained length { $trained }; without fine-tuning none { $none }, PI { $pi }, NTK { $ntk }, YaRN { $yarn }; after the fine-tune PI { $pift }, none { $plainft }; mean over the fine-tune (before it and every tenth of the way) PI { $fastpi }, none { $fastplain }
view-lc-freq-title = Turns each rotary pair makes over the longest sequence ({ $long } tokens); trained at { $short }
view-lc-col-pair = pair j
view-lc-col-trained-turns = turns over { $short } (trained)
