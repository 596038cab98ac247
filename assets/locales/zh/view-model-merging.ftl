# model-merging（任务名以及 TIES、DARE 两种合并保持代码中的写法）
view-mm-tasks-title = 两个任务（每个专家学一个；合并后应两个都会）
view-mm-col-task = 任务
view-mm-col-answer = 答案
view-mm-col-held-out = 留出
view-mm-col-train-pool = 训练池
view-mm-phase-warm-start = 热启动
view-mm-log-permuted = 专家 B 从置换了 MLP 单元和注意力头的基座出发：函数不变（基座在第一个任务 A prompt 后写出 { $before }，置换后的写出 { $after }），‖θ_perm − θ_base‖ = { $norm }
view-mm-check-own = 每个专家都学会了自己的任务
view-mm-check-own-why = 专家 A 在任务 A 上达到 { $a }，专家 B 在任务 B 上达到 { $b }（各需 0.9）：训练更久（steps）或更快（lr）
view-mm-check-other = 两个专家都不会对方的任务
view-mm-check-other-why = 专家 A 在任务 B 上达到 { $a }，专家 B 在任务 A 上达到 { $b }（各至多 0.05）：other_mix 大于 0 时每个专家都在两个任务上训练，合并就没有什么可添加的了
view-mm-phase-expert = 专家 { $arm }（{ $task }）
view-mm-conflicts-title = 各层 τ_A 与 τ_B 的符号冲突（两者都变动的权重；“保留”：两者都在前 { $pct }%）
view-mm-col-layer = 层
view-mm-col-params = 参数量
view-mm-col-conflicts = 冲突
view-mm-col-conflicts-kept = 冲突（保留）
view-mm-col-both-kept = 都保留
view-mm-log-vectors = 任务向量：‖τ_A‖ { $na }，‖τ_B‖ { $nb }，余弦 { $cos }；两者都变动的权重中 { $share }% 符号冲突，修剪后两者都保留的权重中 { $kept }% 冲突
view-mm-phase-sweep = λ 扫描
view-mm-sweep-title = 任务算术 θ₀ + λ(τ_A + τ_B) 随 λ 的变化（每个任务 { $n } 个验证项；λ = 0.5 即简单平均）；λ* = { $tuned } 的最小值最好
view-mm-col-chars = 字符 { $task }
view-mm-col-chars-min = 字符 最小
view-mm-col-exact = 精确 { $task }
view-mm-log-tuned = λ* = { $tuned }，在验证项上选出；任务算术和 DARE 在测试项上使用它
view-mm-row-base = θ₀（热启动）
view-mm-row-expert = 专家 { $arm }
view-mm-merge-average = 平均
view-mm-merge-fixed = 任务算术，固定 λ
view-mm-merge-tuned = 任务算术，λ*
view-mm-heldout-title = 留出准确率（每个任务 { $n } 项）：按位置算的字符正确率，以及整个答案正确率
view-mm-col-weights = 权重
view-mm-samples-title = 每个模型对各任务第一个留出 prompt 写出的答案（贪心）
view-mm-log-shipped = 随附基座：d_model { $d }，{ $layers } 层，{ $heads } 个头，{ $params } 个参数；全部参与微调
view-mm-log-base-acc = 随附基座的字符准确率：A { $sa }，B { $sb }；热启动后的 θ₀：A { $ba }，B { $bb }
view-mm-phase-merge = 合并
view-mm-log-experts = 专家在自己任务上：A { $own_a }，B { $own_b }；在对方任务上：A { $other_a }，B { $other_b }（基座 { $base_a }，{ $base_b }）
view-mm-tokens-title = 每个任务一条序列，每个字符一个 token（训练：答案和 <eos>）
view-mm-tokens-legend = prompt = 仅作上下文；训练 = 计入损失
