# 试用（src/drills/try_it.rs、试用标签页、`agentlab try`）与保留的模型（src/runner/kept.rs、`agentlab runs`）。

## 保留的模型
run-log-kept = 已在 models/ 保留模型 { $arms }（{ $size }）：按 6（试用）向它们提问
run-log-keep-failed = 无法保留模型：{ $error }
run-log-attach-failed = 无法写入本次运行的成绩单：{ $error }
run-log-prune-failed = 无法删除旧运行的权重：{ $error }

## 试用为何打不开某次运行
try-none = { $id } 没有试用：它测的是一个系统，不是它训练的模型（README 说明了该运行什么）
try-no-config = { $dir } 没有可读的 config.toml：不是运行目录
try-pruned = 这次运行的权重已被清理（每个演练只有最新 5 次运行和被固定的运行保留权重）；重新运行即可找回，在这台 CPU 上数字完全相同：{ $command }
try-kept-none = 这次运行没有保留模型（由保留模型之前的 agentlab 生成）；重新运行：{ $command }
try-kept-none-interrupted = 这次运行在保存模型之前就结束了；重新运行：{ $command }
try-newer = 这次运行的模型由更新版本的 agentlab 保存（格式 { $format }）：请更新 agentlab 后再读取

## 输入有误
try-empty-input = 先输入内容（或用 ↑↓ 选一个留出样例）
try-too-long = { $chars } 个字符超出了这个模型一次能读的长度（最多 { $max }）
try-over-context = { $tokens } 个 token 加上还要生成的 { $room } 个，超出了模型的上下文 { $context }

## 两次运行对比（`agentlab runs diff`、运行标签页）
runs-diff-same-config = 两次运行的设置相同（预设、种子、参数、函数）
runs-diff-changed = 不同之处
runs-diff-claims = 断言（✓ 成立，✗ 未通过，· 观察项）
runs-diff-observation = 观察项
runs-diff-finals = 最终值不同的序列

## turn-credit-assignment
try-tca-hint = 问一个地方的首都（capital of Nilbu?），或用 ↑↓ 选这次运行的评测问题
try-tca-known = { $place }：热启动背下来的地方（首都 { $truth }）：在这里搜索是多余的
try-tca-needs-search = { $place }：热启动从没学过的地方（首都 { $truth }）：只有搜索才能知道
try-tca-not-in-world = { $place }：不是这个世界里的地方：搜索什么也找不到，也没有正确答案
try-tca-answer = 回答
try-tca-no-answer = 无
try-tca-reward = 奖励
try-tca-reward-parts = { $total } = 正确 { $correct } + 格式 { $format } − { $searches } 次搜索 { $search }
try-tca-right = 答对
try-tca-mean-reward = 平均奖励
try-tca-searches = 每个 episode 的搜索次数

## 加法任务（grpo-rlvr、pass-at-k-harness）
try-add-hint = 两个最多 { $digits } 位的数相加（47+38），或用 ↑↓ 选一道留出题
try-add-not-a-sum = 请输入像 47+38 这样的加法：两个最多 { $digits } 位的整数（这次运行的模型学的就是这种加法）
try-add-note-chars = 小模型读的是 { $prompt }，按从低位到高位写出和的各位：{ $gold } 就是 { $sum }
try-add-note-chat = 和是 { $sum }：精确验证器只认这个答案，宽松验证器只要回复里含有它就给奖励
try-add-hedge = 对冲
try-add-hedged = 对冲

## react-tool-call-loop
try-react-hint = 用这个世界的说法提问（population of Vesk?、417 + 38?、founded of Vesk + 12?、repeat Vesk），或用 ↑↓ 选一道留出题
try-react-base = 未训练的模型
try-react-masked = 带掩码的 SFT
try-react-unmasked = 不带掩码的 SFT
try-react-truth = 正确答案：{ $truth }（来自世界的事实表和计算器）
try-react-no-truth = 不是这个世界的问题格式：智能体会回答，但没有东西能核对
try-react-calls = 工具调用
try-react-wrote-obs = 自己写了 Observation:

## 试用标签页
drill-tab-try = 试用
try-title = 试用 · { $name }
try-title-none = 试用
try-opening = 正在加载这次运行的模型…
try-no-run = 还没有可试用的运行：先开始一次（s），或在运行标签页（4）打开一次已完成的运行
try-wait-run = 运行还在进行：结束后试用就会打开它（或在运行标签页打开一次已完成的运行）
try-input-empty = i 或 Enter：输入内容 · ↑↓：留出样例
try-ask-first = Enter 把上面的输入同时交给每个模型，并排显示
try-samples = { $n } 个样本
try-temperature = T { $t }
try-seed = 种子 { $seed }
try-colour-writer = 颜色：谁写的
try-colour-logp = 颜色：log p（绿色概率高，红色概率低）
try-answering = 正在回答…（Esc 停止）
try-busy = 还在回答：Esc 可停止
try-stopped = 已停止
try-stopping = 正在停止…
try-no-examples = 这次运行没有留出样例：请输入内容
try-switch = { $label }：{ $state }
try-failed = 试用失败：{ $error }
try-open-failed = 无法加载这次运行的模型：{ $error }
try-thread-died = 试用的后台线程没有给出回答就停止了

## 运行标签页：每次运行改了什么、保留了什么、两次对比
drill-col-mark = ·
drill-col-weights = 权重
drill-runs-pruned = 已清理
drill-runs-diff-title = A { $a } · B { $b }：不同之处
drill-runs-compared = 显示的是 A，B 是它图表下的灰线（1）；不同之处在本标签页
drill-runs-unmarked = 取消标记 { $name }
drill-runs-marked-one = 已把 { $name } 标为 A：用空格标记 B，或按 c 与光标所在的运行对比
drill-runs-marked-two = 已标记两次运行：按 c 对比
drill-runs-mark-two = 先用空格标记两次运行（或标记一次，再把光标放在另一次上），然后按 c
drill-runs-comparing = 正在对比 { $a } 与 { $b }…
drill-runs-pinning = 正在固定…
drill-runs-pinned = 已固定 { $name }：无论保留规则如何都保留它的权重
drill-runs-unpinned = 已取消固定 { $name }：只要它还在最新 5 次运行之内就会保留
drill-runs-pin-failed = 无法固定：{ $error }
drill-grey-run-b = 灰线：B { $name }
drill-grey-compared = A { $a } 对比 B { $b }（灰线）
