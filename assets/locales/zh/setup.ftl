# 演练的设置：学习者输入的参数值（--set、配置面板）、各演练参数之间的约束、
# 运行起点的模型，以及运行无法开始的原因。

## 值与参数的类型和范围
setup-kind-float = 一个数
setup-kind-int = 一个整数
setup-kind-bool = true 或 false
setup-kind-choice = 可选项之一（一个词）
setup-kind-text = 文本
setup-range = （{ $key } 的范围是 { $lo } … { $hi }）
setup-unsupported = { $key }：不支持的值 { $value }
setup-expected = { $key }：应为{ $kind }，得到的是 { $value }
setup-not-finite = { $key }：{ $value } 不是有限数
setup-below-min = { $key }：{ $value } 低于最小值 { $min }
setup-above-max = { $key }：{ $value } 高于最大值 { $max }
setup-not-choice = { $key }：“{ $value }”不在可选项 { $choices } 之中
setup-text-too-long = { $key }：文本长 { $n } 个字符；{ $key } 最多 { $max } 个
setup-text-one-line = { $key }：文本必须是一行（不含制表符、换行或其他控制字符）
setup-out-of-range = { $key }：{ $value } 超出范围
setup-not-whole = { $key }：“{ $value }”不是整数
setup-not-bool = { $key }：“{ $value }”不是 true/false（或 on/off、yes/no、1/0）
setup-not-a-finite-number = { $key }：“{ $value }”不是有限数
setup-not-a-number = { $key }：“{ $value }”不是数

## 演练参数之间的约束
setup-heads = n_heads（{ $heads }）必须整除 d_model（{ $d_model }）
setup-max-new = max_new（{ $max_new }）必须容得下 { $digits } 位的答案和结束符
setup-held-half = { $key }（{ $held }）最多只能留出 { $digits } 位数的 { $all } 道题中的一半
setup-evals-steps = evals（{ $evals }）不能超过 steps（{ $steps }）
setup-dpo-beta = beta_compare（{ $compare }）必须不同于 beta（{ $beta }）：本演练比较两个 β
setup-probe-holdout = probe（{ $probe }）不能超过 holdout（{ $holdout }）
setup-mm-mix = mix（{ $mix }）+ other_mix（{ $other }）给专家自己任务留下的太少（两者合计至多 0.9）
setup-mm-sweep-holdout = sweep_holdout（{ $sweep }）不能超过 holdout（{ $holdout }）
setup-mm-holdout-words = holdout（{ $holdout }）超过了 { $letters } 个字母的 { $words } 个单词的一半
setup-pak-temps = temp_low（{ $low }）必须低于 temp_high（{ $high }）
setup-ri-window = sort_window（{ $window }）必须是 batch（{ $batch }）的倍数
setup-tca-known = known_places（{ $known }）必须留下需要搜索的地点
setup-lora-rank = 真实模型的 lora_rank 至少为 1
setup-random-real = start_from = random 只适用于小模型；真实模型从它自己的预训练权重开始

## 运行的起点模型
setup-real-start = 从 { $name } + LoRA r{ $rank } 开始（{ $params } 个参数，冻结；BPE 词表 { $vocab }；LoRA 加在顶部 { $adapted } 层（共 { $total } 层）的每个投影上）

## 运行无法继续的原因
setup-no-pairs = 没有偏好对：在全部 { $prompts } 个 prompt 上，SFT 模型的 { $samples } 个样本要么全对、要么全错（{ $right } 个全对，{ $wrong } 个全错）。请修改 sft_steps、temperature 或 samples。
setup-no-held-pairs = 没有留出的偏好对：增大 test_size 或 samples，或修改 sft_steps
setup-too-long = 最长的轨迹（{ $longest } 个 token）超出了基础模型 { $context } 的上下文长度
setup-no-rl-step = 没有执行任何 RL 步（rl_steps = 0）
setup-no-capitals = 模型一个真实首都也说不出，因此没有可凭记忆回答的已知地点

## 学习者输入的整数（种子、种子个数、命令行选项的值）
setup-whole-at-least = ≥ { $min }
setup-whole-between = { $min } 到 { $max }
setup-whole-got = { $what }应为 { $range } 的整数，实际为 { $got }
setup-whole-got-text = { $what }应为 { $range } 的整数，实际为“{ $got }”
setup-whole-overflow = { $what }应为 { $range } 的整数，{ $got } 超出范围（最大为 { $max }）
setup-what-seed = 种子
setup-what-sweep-seeds = 扫描的种子数
setup-what-seeds-seed = 种子列表中的种子

## reward-model-overopt
setup-rm-pairs = pairs_small（{ $small }）不能超过 pairs_large（{ $large }）：小集合是大集合的开头部分
setup-rm-dots = dot_cost × max_dots（{ $product }）必须小于 1：无论带多少个点，对的答案都必须胜过错的
setup-rm-evals = evals（{ $evals }）不能超过 rm_steps（{ $steps }）
setup-rm-few-pairs = 从 { $prompts } 个 prompt 中只得到 { $got } 个偏好对（pairs_large = { $want }）：SFT 模型的样本几乎全对或全错。请修改 sft_steps、habit_rate 或 pair_samples。
setup-rm-no-held-pairs = 没有留出的偏好对：没有哪个留出 prompt 同时有对的和错的样本
setup-tr-hard = hard_negatives（{ $hard }）超过了一个工具的近似重复工具数（{ $near }：verbs + objects + qualifiers − 3）
setup-tr-holdout = 按 holdout，{ $families } 个“动词-对象”族中有 { $held } 个被留出：必须既有用于测试的族，也有用于训练的族
setup-tr-batch = batch（{ $batch }）超过了训练工具的数量：一个批次里的工具互不相同
setup-lc-even-head = RoPE 需要偶数的头维度（d_model / n_heads 为 { $hd }）
