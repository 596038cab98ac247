# 练习：列表、单个练习和检查报告（TUI 与命令行）。
exercise-list-title = 练习 · 已完成 { $done }/{ $total }
exercise-list-intro = 用 Rhai 写出算法，它会与内置代码对照检查；其中 { $plugs } 个可用来训练演练。在终端里：agentlab exercise check ID（ID 在第一列）。
exercise-track-head = 专题 { $track } · { $title }
exercise-trains = → 训练 { $drill }
exercise-title = 练习 { $id }
exercise-check-running = 已有一次检查在进行
exercise-no-checker = 此版本没有这个练习的检查器
exercise-last-hint = 这是最后一条提示：按 S 查看解答
exercise-solution-locked = 看完最后一条提示（已看 { $shown }/{ $total }）或通过后才能看解答
exercise-no-drill = 这个练习只做检查：没有演练用它训练
exercise-r-after-fail = 检查未通过后，R 会把相关测验题加入复习
# Markdown：[{ $sheet }] 和 [drill:…] 是链接。
exercise-taught-in = 讲解见 [{ $sheet }]。
exercise-trains-drill = 按 `t` 用它训练 [drill:{ $drill }]。
exercise-hint-head = 提示 { $n }/{ $total }。
exercise-solution = 一种解答
exercise-checking = 正在检查你的文件…
exercise-not-checked-hint = 尚未检查：c 检查文件（e 编辑）
exercise-state-done = ✓ 已完成
exercise-state-failed = ✗ 尚未通过
exercise-state-unchecked = 尚未检查
exercise-pane-title = { $title } · 专题 { $track }
exercise-more-lines = ↓ 还有 { $count } 行（PgDn）
exercise-file = 文件：{ $path }
exercise-your-code = 你的代码（e 编辑）
exercise-check = 检查
exercise-more = 完整报告：agentlab exercise check { $id }
exercise-pass = 通过  { $id }：全部 { $total } 个用例与内置实现一致
exercise-fail = 未通过  { $id }：{ $total } 个用例通过了 { $passed } 个
exercise-fail-at = 未通过  { $id }：{ $total } 个用例通过了 { $passed } 个 · 第一个失败：第 { $n } 个用例
exercise-first-failing = 第一个失败的用例：{ $case }
exercise-expected = 期望：{ $value }
exercise-got = 实际：{ $value }
exercise-printed = 输出：

# 检查器的用例：每组输入测什么（作为“第一个失败的用例”显示）。
exercise-case-random = 随机 { $n }
exercise-case-ret-last-only = 边界：只有最后一步有奖励
exercise-case-ret-gamma-0 = 边界：γ = 0（每步只保留自己的奖励）
exercise-case-ret-gamma-1 = 边界：γ = 1（其后奖励之和）
exercise-case-one-step = 边界：只有一步
exercise-case-no-steps = 边界：没有任何一步
exercise-case-ret-search-then-answer = 边界：先付搜索成本，再作答
exercise-case-gae-lambda-0 = 边界：λ = 0（单步 TD 误差）
exercise-case-gae-lambda-1 = 边界：λ = 1 且末步结束（蒙特卡洛回报减 V）
exercise-case-gae-done-inside = 边界：rollout 中途有 done（下一回合不得往回泄漏）
exercise-case-gae-done-last = 边界：最后一步 done（必须忽略 last_value）
exercise-case-gae-not-done = 边界：末步未结束（用 last_value 自举）
exercise-case-group-of-one = 边界：只有一个答案的组
exercise-case-group-all-right = 边界：全部答对（组内奖励全相同）
exercise-case-group-all-wrong = 边界：全部答错（组内奖励全相同）
exercise-case-group-one-in-four = 边界：四个答案中只有一个正确
exercise-case-group-two-groups = 边界：相当于两组的 0/1 奖励
exercise-case-group-negative = 边界：负奖励
exercise-case-ppo-inside = 边界：比率在裁剪范围内
exercise-case-ppo-above-pos = 边界：比率高于 1 + ε，优势 > 0（被裁剪）
exercise-case-ppo-above-neg = 边界：比率高于 1 + ε，优势 < 0（不裁剪）
exercise-case-ppo-below-neg = 边界：比率低于 1 − ε，优势 < 0（被裁剪）
exercise-case-ppo-below-pos = 边界：比率低于 1 − ε，优势 > 0（不裁剪）
exercise-case-ppo-zero-adv = 边界：优势为零
exercise-case-ppo-ratio-1 = 边界：比率恰为 1
exercise-case-k3-same = 边界：策略相同（每个 token 的 KL 都是 0）
exercise-case-k3-more-sure = 边界：策略比参考模型更确定
exercise-case-k3-less-sure = 边界：策略不如参考模型确定
exercise-case-one-token = 边界：只有一个 token
exercise-case-no-tokens = 边界：没有 token
exercise-case-dpo-equal = 边界：策略等于参考模型（损失为 ln 2）
exercise-case-dpo-chosen-gained = 边界：选中的回答概率升高，被拒的降低
exercise-case-dpo-both-fell = 边界：两个对数概率都下降，被拒的降得更多
exercise-case-dpo-huge-right = 边界：方向正确的巨大差值（损失 ≈ 0）
exercise-case-dpo-huge-wrong = 边界：方向错误的巨大差值（β·margin = −798：需要数值稳定的写法）
exercise-case-pk-none-correct = 边界：没有正确的样本
exercise-case-pk-k-1 = 边界：k = 1 即正确样本的比例
exercise-case-pk-k-big = 边界：k > n − c（每个 k 元子集都含正确样本）
exercise-case-pk-all-correct = 边界：样本全部正确
exercise-case-pk-k-n = 边界：k = n
exercise-case-pk-n-200 = 边界：n = 200（二项式系数会溢出：请用连乘形式）
exercise-case-pk-small-n = 边界：n 较小，朴素的 1 − (1 − c/n)^k 有偏
exercise-case-ewc-at-anchor = 边界：位于锚点（没有拉力）
exercise-case-ewc-one-weight = 边界：只有一个权重（注意 ½）
exercise-case-ewc-zero-fisher = 边界：Fisher 为零（任务 A 不在乎）
exercise-case-ewc-lambda-0 = 边界：λ = 0（朴素微调）
exercise-case-ewc-same-drift = 边界：相同的偏移，不同的 Fisher 权重
exercise-case-cl-a-forgotten = 边界：两个任务，A 被遗忘
exercise-case-cl-one-task = 边界：一个任务（没有迁移可测）
exercise-case-cl-three-tasks = 边界：三个任务，没有遗忘，有一些前向帮助
exercise-case-cl-positive-bwt = 边界：后来的任务提升了先前的任务（BWT 为正）
exercise-case-qa-from-memory = 边界：凭记忆答对
exercise-case-qa-one-search = 边界：搜索一次后答对
exercise-case-qa-wrong-format = 边界：答错仍得格式奖励
exercise-case-qa-never-answered = 边界：始终未作答（没有格式奖励，搜索仍有成本）
exercise-case-qa-never-correct = 边界：始终未作答，无论 `correct` 是什么
exercise-case-qa-free-searches = 边界：搜索免费
exercise-case-res-first = 边界：第一个元素
exercise-case-res-room = 边界：缓冲区还有空位
exercise-case-res-fills = 边界：填满缓冲区的那个元素

# 蓄水池的统计检查与逐次比对。
exercise-res-not-buffer-after = 推入元素 { $item } 后，{ $function } 返回了{ $what }；它必须返回缓冲区（由元素组成的数组）
exercise-res-over-capacity = 推入元素 { $item } 后，缓冲区有 { $len } 个元素；容量只有 { $capacity }
exercise-res-too-short = 推入元素 { $item } 后，缓冲区有 { $len } 个元素；应有 { $want } 个（只有见过的元素少于容量时，缓冲区才能不满）
exercise-res-never-pushed = 推入元素 { $item } 后，缓冲区里有 { $bad }，但它从未被推入
exercise-res-twice = 第 { $trial } 次试验：缓冲区里有重复的元素：{ $buffer }
exercise-res-not-buffer = { $function } 返回了{ $what }；它必须返回缓冲区
exercise-res-differs = 推入元素 { $item } 后（种子 { $seed }），你的缓冲区是 { $yours }；用同样随机数的算法 R 得到 { $lab }
exercise-res-same-draws = 40 个元素流经容量为 6 的缓冲区，随机数与内置实现的相同（第 { $stream } 条流）
exercise-res-lab-buffer = 本项目的缓冲区（缓冲区满后，每个元素调用一次 rand_below(seen + 1)）
exercise-res-streaming = 让 { $n } 个元素流经容量为 { $k } 的缓冲区，重复 { $trials } 次
exercise-res-want-rate = 每个元素以概率 { $k }/{ $n } = { $want } 被保留
exercise-res-got-rate = 元素 { $item } 在 { $rate } 的试验中被保留；前十个元素平均 { $first }，后十个 { $last }

# 运行学习者的脚本：失败的用例及原因。
exercise-compiling = 编译脚本
exercise-finding = 查找函数
exercise-error = 错误：{ $error }
exercise-creating = 创建 { $path }
exercise-reading = 读取 { $path }

# $error 是 Rhai 自己的错误信息，原样保留。
exercise-at-line-column = 第 { $line } 行第 { $column } 列：{ $error }
exercise-at-line = 第 { $line } 行：{ $error }
exercise-no-function = 脚本没有定义带 { $arity } 个参数的 fn { $name }(…)
exercise-wrong-arity = fn { $name } 有 { $count } 个参数（{ $params }）；它必须有 { $arity } 个

# 脚本返回的值，用在“返回了{ $what }”里。
exercise-value-float = 一个浮点数
exercise-value-int = 一个整数
exercise-value-bool = 一个布尔值
exercise-value-array = 长度为 { $len } 的数组
exercise-value-of-type = 一个 { $type_name } 类型的值
exercise-value-unreadable-array = 一个无法读取的数组
exercise-returned-other = { $name } 返回了{ $what }，既不是数字也不是数组
exercise-must-return-number = { $name } 返回了{ $what }；它必须返回一个数字
exercise-must-return-numbers = { $name } 返回了{ $what }；它必须返回数字数组
exercise-wrong-length = { $name } 返回了长度为 { $len } 的数组；长度必须是 { $want }
exercise-stopped-after = 运行 { $secs } 秒后被停止（死循环？）
exercise-stopped-too-long = 已停止：调用运行太久
exercise-stopped-operations = 已停止：操作次数太多（死循环？）
exercise-stopped-recursion = 已停止：调用嵌套太深（无限递归？）
exercise-rand-below-n = rand_below({ $n })：n 至少为 1
exercise-rand-poisoned = 随机数流已损坏

# 用学习者的函数训练演练（--use，或在演练界面按 u）。
exercise-plug-unknown = 没有练习“{ $id }”
exercise-plug-other-drill = 练习 { $id } 用于演练 { $plugs }，不是 { $drill }
exercise-plug-checked-only = 没有演练用练习 { $id } 训练（它只做检查）
exercise-plug-both-grpo = grpo-advantages 和 dr-grpo-advantages 只能用一个，不能同时用
exercise-your = 你的 { $name }：{ $error }
exercise-plug-not-finite = 你的 { $name }({ $inputs }) 返回了 { $values }：其中有不是有限数的值（除以了为零的标准差？）
exercise-plug-res-not-buffer = 你的 reservoir_push 返回了{ $what }；它必须返回缓冲区
exercise-plug-res-over-capacity = 你的 reservoir_push 返回了 { $len } 个元素；容量只有 { $capacity }
exercise-plug-res-never-pushed = 你的 reservoir_push 返回了元素 { $bad }，但它从未被推入

# agentlab exercise show|hint|check，以及演练运行的 --use。
exercise-cli-unknown = 没有练习“{ $id }”（agentlab exercise list 会列出全部练习）
exercise-cli-show-head = { $title } · 专题 { $track } · 练习 { $id }
exercise-cli-your-file = 你的文件：{ $path }
exercise-cli-check-it = 检查：agentlab exercise check { $id }
exercise-cli-train-with = 用它训练：agentlab drill run { $drill } --use { $id }={ $path }
exercise-cli-hints = 共 { $count } 条提示：在 TUI 里（练习，h）查看，或：agentlab exercise hint { $id } [N]
exercise-cli-hint = 提示 { $n }/{ $total }：{ $hint }
exercise-cli-no-checker = 此版本没有 { $id } 的检查器
exercise-cli-checking = 正在检查 { $path }
exercise-cli-watching = 正在监视 { $path }：每次保存都会检查 · Ctrl-C 停止
exercise-cli-waiting = — 等待 { $path } 的下一次保存 —
exercise-cli-now-train = 现在用它训练：agentlab drill run { $drill } --use { $id }={ $path }
exercise-cli-flagged = 已加入复习：{ $items }
exercise-cli-stuck = 卡住了？agentlab exercise hint { $id } 1 · 加 --review 会把相关测验题加入复习
exercise-cli-not-saved = 进度未保存：{ $error }
exercise-cli-use-form = --use 的格式是 EXERCISE=FILE，收到的是“{ $arg }”
exercise-cli-why = { $case }：实际为 { $got }
exercise-cli-fails-anyway = 注意：你的 { $id } 没有通过检查（{ $why }）；仍用它训练

## bradley-terry
exercise-case-bt-equal = 边界：两个分数相等（损失为 ln 2）
exercise-case-bt-higher = 边界：被选回答的分数高 1
exercise-case-bt-wrong-way = 边界：偏好对的顺序反了
exercise-case-bt-huge-right = 边界：方向正确的巨大差值（损失 ≈ 0）
exercise-case-bt-huge-wrong = 边界：方向错误的巨大差值（h = −800：需要数值稳定的写法）
exercise-case-rope-s1 = 边界：s = 1，插值（原始频率）
exercise-case-rope-s1-ntk = 边界：s = 1，NTK（基数不变）
exercise-case-rope-pi = 插值：d = 16，s = 4（每个频率都除以 4）
exercise-case-rope-ntk = NTK：d = 16，s = 4（第 0 对不变，最后一对除以 4）
exercise-case-rope-one-pair = 边界：只有一对（d = 2），插值，s = 2
exercise-case-rope-drill = 演练中的形状下的 NTK：d = 32，s = 4
exercise-case-lora-sheet = 边界：速查表的算例（W₀ = I，r = 1，α = 2）
exercise-case-lora-b-zero = 边界：起点 B = 0（y 恰好等于 W₀x）
exercise-case-lora-rank-2 = 边界：W₀ = 0，秩 2（只有更新量）
exercise-case-lora-alpha-zero = 边界：α = 0（适配器关闭）
exercise-case-lora-wide = 边界：out ≠ in（3 × 2）
exercise-plug-bt-not-finite = 你的 bradley_terry({ $c }, { $r }) 返回了 { $v }：不是有限数（顺序反了且差值很大的偏好对会让 e^(−h) 溢出）
exercise-case-nce-equal = 边界：所有相似度相等（损失为 ln C）
exercise-case-nce-one = 边界：只有一个候选（损失为 0）
exercise-case-nce-hand = 手算：相似度 0.9、0.1、0.5，τ 0.5
exercise-case-nce-not-first = 正例不是第一个候选
exercise-case-nce-cold-wrong = 边界：τ 0.001，一个负例得分更高（损失 800；e^(s/τ) 会溢出）
exercise-case-nce-cold-right = 边界：τ 0.001，正例得分最高（损失 ≈ 0）
exercise-plug-nce-not-finite = 你的 info_nce(…, { $pos }, { $tau }) 返回了 { $v }：不是有限数（τ 很小时，若不先减去这一行的最大值，e^(s/τ) 会溢出）
exercise-no-sleep = 这里不能用 sleep：检查和训练运行都有时间限制
exercise-budget-spent = 已停止：对你的函数的调用合计用完了 { $secs } 秒（它是否比必要的慢得多？）
exercise-plug-too-large = 你的 { $name }({ $inputs }) 返回了 { $value }：是有限数，但超出了训练所用 f32 的范围（约 3.4e38）
