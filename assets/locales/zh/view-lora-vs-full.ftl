# lora-vs-full
view-lora-check-ranks = rank_low（{ $low }）不能大于 rank_high（{ $high }）
view-lora-check-holdout = holdout = { $held } 超过了全部 { $all } 个词的一半
view-lora-check-symbols = symbols = { $symbols }：用数字时最多 { $most } 个
view-lora-data-title = 新任务：替换密码（留出词）
view-lora-log-data = { $symbols } 个符号的替换密码：{ $table }；{ $held } 个留出词；基座任务：{ $seqs } 条打包的全新预训练文本序列
view-lora-log-base = 发布的基座模型（{ $params } 个参数）：留出密码准确率 { $acc }，基座任务损失 { $loss }
view-lora-phase-arm = 微调：{ $arm }
view-lora-arms-title = 同一个基座的三种微调（{ $params } 个参数；微调前的留出准确率：{ $acc }）
view-lora-col-arm = 组
view-lora-col-trainable = 可训练参数
view-lora-col-share = 占比
view-lora-col-adam = AdamW 状态（KiB）
view-lora-col-acc = 留出准确率
view-lora-col-rise = 基座损失上升
view-lora-col-moved = 块矩阵移动量 ‖ΔW‖/‖W₀‖
view-lora-why-title = 为什么秩在这里很重要
view-lora-why-body =
    每一组都从同一个基座出发，看到同样的批次。全量微调移动全部 { $params } 个参数（包括嵌入），AdamW 为每个参数保存两个矩。LoRA 把它们全部冻结，只为每个块矩阵 W₀ 训练两个窄矩阵 A 和 B，它们的乘积就是更新量：W₀ + (α/r)·B·A。它的可训练参数和优化器状态只有全量微调的百分之几。
    
    这个密码是一张表：每个输入符号都有自己的输出。每个矩阵只有一个方向（秩 1）只装得下十个不同行的一小部分；八个方向就够了，秩 8 走得和全量微调一样远。
    
    遗忘是在基座自己的预训练文本上测的。在这里 LoRA 遗忘得比全量微调更多，而不是更少。最后一列是每一组把每个 token 都要经过的块矩阵移动了多远：在 lora_lr = 1e-2 时，适配器把它们移得比 full_lr = 1e-3 的全量微调远好几倍。原因不在冻结的嵌入：试试 full_trains = matrices，即只对 LoRA 所适配的那些矩阵做全量微调。移动距离也不是全部：在 lora_lr = 3e-3 时，LoRA 仍比全量微调移得更远，却遗忘得更少，学到的也更少。哪种方法遗忘更多取决于设置，而不是一条定律。
