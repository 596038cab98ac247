# long-context-rope
view-lc-log-data = 复制：训练时 { $n } 个随机符号、一个分隔符、再写一遍这 { $n } 个符号（{ $short } 个 token）；读长序列时最多 { $long_n } 个符号（{ $long } 个 token）；{ $symbols } 种符号
view-lc-check-learned = 模型在训练长度上学会了复制
view-lc-check-learned-why = 训练长度上的复制准确率只有 { $acc }：低于 0.9，没有多少可以外推的能力。请增大 steps 或 lr。
view-lc-phase-finetune = 在长长度上微调
view-lc-table-title = 各 RoPE 缩放与长度下的复制准确率（随机水平 { $chance }）
view-lc-col-rope = RoPE 缩放
view-lc-col-ft = 微调步数
view-lc-col-len = { $len } 个 token 的准确率
view-lc-log-report = 在 { $long } 个 token 上：训练长度 { $trained }；不微调时 none { $none }、PI { $pi }、NTK { $ntk }、YaRN { $yarn }；微调之后 PI { $pift }、none { $plainft }；整个微调过程的平均（微调前一次，之后每走十分之一一次）PI { $fastpi }、none { $fastplain }
view-lc-freq-title = 每个旋转维度对在最长序列（{ $long } 个 token）上转过的圈数；训练长度为 { $short }
view-lc-col-pair = 维度对 j
view-lc-col-trained-turns = 在 { $short } 上的圈数（训练）
