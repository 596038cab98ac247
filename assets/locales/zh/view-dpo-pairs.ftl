# dpo-pairs
view-dpo-phase-pairs = 偏好对
view-dpo-phase-baseline = 在 chosen 上 SFT（基线）
view-dpo-verdict-pair = chosen { $chosen } · rejected { $rejected }
view-dpo-dropped-right = 丢弃：全对
view-dpo-dropped-wrong = 丢弃：全错
view-dpo-log-report = { $loss } β = { $beta }：留出通过率 { $pass0 } → { $pass1 }（贪心 { $greedy0 } → { $greedy1 }）；留出隐式奖励准确率 { $acc }；到参考模型的 KL { $kl } nats（β = { $beta2 }：{ $kl2 }）；logps/chosen { $c0 } → { $c1 }，logps/rejected { $r0 } → { $r1 }；在 chosen 上 SFT：通过率 { $base }
view-dpo-log-sft = { $digits } 位加法，和从最低位写起；{ $gpt }
view-dpo-pairs-title = 来自 SFT 模型自身样本的偏好对（每个提示 { $samples } 个样本）
view-dpo-col-prompts = prompt 数
view-dpo-col-samples-right = 样本正确率
view-dpo-col-pairs = 偏好对
view-dpo-row-training = 训练
view-dpo-row-heldout = 留出
view-dpo-groups-title = 采样组与验证器选出的偏好对
view-dpo-groups-title-swapped = 采样组与验证器选出的偏好对（训练时标签已对调！）
view-dpo-col-samples = 样本（✓ 对，✗ 错）
view-dpo-col-pair = 偏好对
view-dpo-log-pairs = 偏好对：{ $prompts } 个训练 prompt 中得到 { $pairs } 对（{ $right } 个全对、{ $wrong } 个全错：丢弃）；{ $held } 个留出偏好对；样本正确率 { $pass }
view-dpo-compare-title = 留出集：SFT 模型与 { $steps } 步训练后的结果
view-dpo-col-pass-sampled = 通过率（采样）
view-dpo-col-pass-greedy = 通过率（贪心）
view-dpo-col-kl = 到参考的 KL
view-dpo-col-reward-acc = 奖励准确率
view-dpo-col-logp-chosen = logp chosen
view-dpo-col-logp-rejected = logp rejected
view-dpo-row-reference = SFT（参考模型）
view-dpo-row-sft-chosen = 在 chosen 上 SFT
# 每个答案前的 token 标签（两侧空格由代码加）。
view-dpo-chosen = chosen
view-dpo-rejected = rejected
view-dpo-pair-title = DPO 后的一个留出偏好对（{ $chosen } 对，{ $rejected } 错）
view-dpo-pair-legend = 答案 token 按 log π − log π_ref 着色（绿：DPO 提高了它，红：降低了它）；总和即隐式奖励 / β
view-dpo-both-fell = 都下降
view-dpo-chosen-rose = chosen 上升，rejected 下降
view-dpo-chosen-fell = chosen 下降，rejected 上升
view-dpo-both-rose = 都上升
view-dpo-why-line = β = { $beta }：chosen { $c0 } → { $c1 }，rejected { $r0 } → { $r1 }（{ $verdict }）；留出通过率 { $pass }，到参考模型的 KL { $kl }
view-dpo-why-title = 为什么 logps/chosen 也会下降
view-dpo-why-intro = 训练偏好对答案的平均对数概率总和，SFT 模型 → DPO 后：
view-dpo-why-body = DPO 损失只看间隔 h = β[(log π(y_w) − log π_ref(y_w)) − (log π(y_l) − log π_ref(y_l))]。任何拉大间隔的变化都会降低损失，包括让两个对数概率都下降、只是 rejected 降得更快的变化。chosen 和 rejected 答案共享 prompt 和大部分数字，所以把错误答案往下压的梯度，也会压低它与正确答案共有的部分，概率质量流向两组之外的答案。每个偏好对在梯度中的权重是 σ(−h)：β 大时，一个偏好对稍有变化就被关掉（h 增长快）；β 小时，每个偏好对的权重一直约为 ½，直到对数比间隔变得很大，推动不停——策略远离参考模型（KL），正确答案与错误答案一起失去概率。
view-dpo-log-sft-real = { $digits } 位加法，题目作为聊天模板中的用户消息，答案按人们平常的写法；在部分答案丢掉进位的数据上做 LoRA SFT
