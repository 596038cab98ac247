# reward-model-overopt、tool-retrieval、long-context-rope、lora-vs-full、model-merging、ewc-replay 的试用
# （src/drills/<drill>/tried.rs），以及 rollout-infra 为什么没有试用。

## reward-model-overopt（打分）
try-rmo-hint = 只输入题目，从策略做 best-of-n（47+85=）；或输入题目和答案来打分，数字从最低位写起（{ $example }）；或用 ↑↓ 选一道留出题
try-rmo-not-a-problem = 请输入像 47+85= 这样的题目（两个最多 { $digits } 位的整数），= 后面可以带答案，也可以不带
try-rmo-bad-answer = 答案是从最低位写起的数字，后面可以跟若干个点：{ $example }
try-rmo-policy = 策略（SFT）· 黄金奖励
try-rmo-rm-start = 训练前的奖励模型
try-rmo-rm = 用 { $pairs } 个偏好对训练的奖励模型
try-rmo-note-problem = { $prompt } 等于 { $sum }：正确答案是 { $gold }（从最低位写起），丢掉所有进位得到 { $dropped }；黄金奖励 = 对则 1，每个点扣 { $cost }
try-rmo-note-variants = 你的答案旁边是正确答案和丢掉进位的答案，各自不带点和带 { $dots } 个点：学到了点的奖励模型，不管和对不对都会给带点的打高分
try-rmo-note-bon = best-of-{ $n }：从策略采样 { $n } 个答案；每个奖励模型挑出自己打分最高的那个，黄金奖励说明它挑的值多少
try-rmo-right = 对
try-rmo-dots = 点数
try-rmo-gold = 黄金
try-rmo-logp = 策略下的 log p
try-rmo-score = 分数
try-rmo-rank = 名次
try-rmo-pick = 挑中
try-rmo-gold-pick = 黄金奖励挑中的
try-rmo-dot-gain = { $dots } 个点加了多少分（正确 / 丢进位）
try-rmo-right-first = 每个对的答案都排在每个错的答案前面

## tool-retrieval（检索）
try-tr-hint = 用这个世界的词或它们的同义词请求一个工具（{ $example }），或用 ↑↓ 选一条留出查询
try-tr-start = 训练前的编码器
try-tr-in-batch = 仅批内负例
try-tr-random = { $n } 个随机额外负例
try-tr-hard = { $n } 个难负例
try-tr-rank = 所指工具的名次
try-tr-named-held = 查询指的是 { $tool }：一个留出工具（它的族从未参与训练）；✓ 标出它，≈ 标出只差一个槽位的工具
try-tr-named-trained = 查询指的是 { $tool }：训练族里的一个工具；✓ 标出它，≈ 标出只差一个槽位的工具
try-tr-named-none = 查询没有恰好说出一个动词、一个对象和一个限定词：没有哪个工具算是正确的
try-tr-held-query = 这是本次运行的一条留出查询
try-tr-unknown = 没有检索器会读的词（不在这个世界里）：{ $words }
try-tr-no-known-word = 这些词都不在工具世界里：每个检索器读到的都是空查询；试试像 { $example } 这样的
try-tr-flat = 每个工具的得分都是 { $score }：查询里没有一个词出现在工具名里，所以没有排序（并列时按对点名工具不利的方式计名次）

## long-context-rope（分栏）
try-lc-hint = 输入要复制的长度（{ $n } 是训练长度，{ $max } 是最长），或直接输入符号（a 到 { $last }），或用 ↑↓
try-lc-bad-input = 请输入一个长度（1 到 { $max }），或由本次运行的 { $symbols } 种符号（a 到 { $last }）组成的序列，比如 { $example }
try-lc-too-long = { $len } 个符号超出了本次运行的模型能读的长度：最多 { $max } 个（{ $context } 个 token：序列写两遍加一个分隔符）
try-lc-trained = 在 { $n } 上训练（不缩放）
try-lc-pi = PI ÷{ $s }
try-lc-ntk = NTK-aware ×{ $s }
try-lc-yarn = YaRN ×{ $s }
try-lc-pi-ft = PI + { $steps } 步微调
try-lc-none-ft = 不缩放 + { $steps } 步微调
try-lc-note-length = { $len } 个符号，{ $tokens } 个 token：复制要往回读 { $len } 个位置，是训练时距离（{ $n }）的 { $times } 倍
try-lc-note-read = 每个复制位置都由它之前的真实符号来预测，和运行的计分方式相同；大写字母（或 *）标出错的位置
try-lc-source = 原文
try-lc-copy = 复制
try-lc-right = 对
try-lc-first-wrong = 第一个错在
try-lc-none = 无
try-lc-accuracy = 准确率

## lora-vs-full（分栏）
try-lora-hint = 输入由 { $letters } 组成的词做替换密码（{ $example }），或输入任意文本做基座任务（看每组忘了多少），或用 ↑↓
try-lora-base = 基座（发布版）
try-lora-full = 全量微调
try-lora-rank = LoRA r={ $r }
try-lora-note-cipher = 密码的答案：{ $answer }（{ $table }）
try-lora-held = 留出词：没有哪一组训练过它
try-lora-not-held = 不是留出词：各组可能训练过它
try-lora-note-text = 基座任务文本：每组在它上面的损失（nats/token，越高忘得越多），以及接着往下写的内容
try-lora-letters = 字母
try-lora-exact = 完全正确
try-lora-base-loss = 基座任务损失

## model-merging（分栏）
try-mm-hint = 一个词同时问两个任务（{ $a } 去掉标记），带标记的词只问一个任务（{ $a }、{ $b }），或用 ↑↓
try-mm-bad-input = 请输入最多 { $max } 个字母的词：a–h 同时问两个任务，带 ! 问任务 A（{ $a }），带 # 问用 { $b_letters } 书写的任务 B（{ $b }）
try-mm-warm = θ₀ 热启动
try-mm-expert = 专家 { $arm }
try-mm-note = { $task }：{ $prompt } → { $gold }（{ $seen }）
try-mm-held = 留出
try-mm-val = 验证词：不参与训练，λ* 就是在它上面选出的
try-mm-train = 在专家的训练池里
try-mm-chars = 字符
try-mm-weights = 权重

## ewc-replay（分栏）
try-ewc-hint = 一个由 a–h 组成、{ $len } 个字母的词会问每个任务（{ $example }）；词尾加上某个任务的标记就只问那一个；或用 ↑↓
try-ewc-bad-input = 请输入由字母 a–h 组成的词（最多 { $max } 个），比如 { $example }，可以单独输入，也可以带一个标记：{ $markers }
try-ewc-after-a = 任务 A（{ $task }）之后
try-ewc-naive = 任务 { $task } 之后的 naive
try-ewc-ewc = 任务 { $task } 之后的 EWC
try-ewc-replay = 任务 { $task } 之后的 replay
try-ewc-note = { $gold }（{ $seen }）
try-ewc-held = 留出词：在任何标记下都没训练过
try-ewc-not-held = 不是留出词：训练过，或者长度不是 { $len } 个字母

## rollout-infra（没有试用）
try-ri-none = rollout-infra 没有试用：它测的是这台机器（有无 KV cache 时的 tokens/s、填充、KV 字节数、陈旧 rollout 的代价），而计时不是同一个种子能给出两遍的答案。它测到的内容在报告和图表里；agentlab bench 可以测其他规模下的生成速度；它的模型与 grpo-rlvr 的热启动做法相同，grpo-rlvr 的试用会对那个模型采样。
