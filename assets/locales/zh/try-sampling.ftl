# sft-basics、pass-at-k-harness、dpo-pairs、self-refine-loop、prompt-injection 的试用（各演练的 tried.rs）。

## sft-basics
try-sft-init = 随机初始化（第 1 步之前）
try-sft-trained = SFT 之后
try-sft-hint = 两个小于 100 的数相加（37+45=），或用 ↑↓ 选一道留出题
try-sft-note = 模型读入 { $prompt }，应当写出 { $gold }（即 { $sum }，{ $order }，最后是结束 token ⏎）；{ $seen }
try-sft-reversed = 从低位写到高位
try-sft-plain = 从高位写到低位
try-sft-held-out = 这是留出的加法：这次运行从没在它上面训练过
try-sft-trained-on = 这是这次运行训练过的加法之一
try-sft-reads = 读作
try-sft-no-number = 不是数
try-sft-digits = 对的位数

## pass-at-k-harness
try-pak-init = 随机初始化（SFT 的起点）
try-pak-trained = SFT 之后（评测框架打分的模型）
try-pak-hint = 两个最多 { $digits } 位的数相加，可用评测框架的任一种提示格式（47+38=、47 + 38 =、047+038=），或用 ↑↓ 选一道留出题
try-pak-not-a-sum = 请用评测框架的一种提示格式输入加法：{ $formats }（两个最多 { $digits } 位的整数）
try-pak-format-trained = 训练时的提示格式
try-pak-format-unseen = { $format } 提示格式，模型训练时从没见过
try-pak-note = 模型读入 { $prompt }（{ $how }），应当写出 { $gold }（即 { $sum }，从低位写到高位）；{ $seen }
try-pak-maybe-trained = 不是留出题：SFT 可能在它上面训练过
try-pak-note-estimates = 每个模型下方：{ $n } 个样本中每种抽取器判对的个数 c，再由 strict 的 c 算出：pass@1、pass@{ $k } = 1 − C(n−c, { $k })/C(n, { $k })（无偏）、朴素代入 1 − (1 − c/n)^{ $k }，以及 pass^{ $k }（{ $k } 次全对）
try-pak-plug-in = 朴素 pass@{ $k }
try-pak-read-right = 判对的抽取器
try-pak-none = 没有

## dpo-pairs
try-dpo-sft = SFT（起点，DPO 的参考模型）
try-dpo-note = 验证器只认 { $gold }；SFT 数据里植入的习惯把每个进位都丢掉：{ $habit }
try-dpo-note-no-carry = 验证器只认 { $gold }；这道加法没有进位，植入的习惯（丢掉每个进位）在这里也写得对：换一道有进位的试试
try-dpo-not-held-out = 不是留出题：SFT 数据或偏好对里可能出现过它
try-dpo-note-reward = log π/π_ref：与 SFT 参考模型相比，该模型让这个样本的可能性高了多少（乘以 β 就是 DPO 的隐式奖励）；log p：整个答案的对数概率之和
try-dpo-right = 答对
try-dpo-habit = 丢了进位
try-dpo-logp-gold = log p({ $gold })
try-dpo-logp-habit = log p({ $habit })

## prompt-injection
try-pi-clean = 干净 SFT（各防御的起点）
try-pi-undefended = 无防御（再多训练几步干净数据）
try-pi-hint = 用这个世界的说法问一个需要查询的问题（population of { $place }?、founded of { $place } + 12?），或用 ↑↓ 选一道这次运行评测时被攻击过的题
try-pi-switch-attack = 攻击
try-pi-attack-off = 攻击关闭：工具如实回答
try-pi-attack-runs = 攻击打开：第一次 lookup 的结果带着这道题在运行中遇到的注入 "{ $text }"（它要智能体{ $wants }）
try-pi-attack-drawn = 攻击打开：第一次 lookup 的结果带着 "{ $text }"（它要智能体{ $wants }），按运行抽取留出注入的方式抽出
try-pi-attack-no-lookup = 攻击打开，但这道题不需要查询，而注入（"{ $text }"）附在第一次 lookup 的结果上：只有智能体去查询时才会碰到它
try-pi-allow-list = 无防御 + 白名单
try-pi-allow = 白名单一栏：lookup 和 search 必须提到 { $place }，其他的一律拦下
try-pi-allow-none = 白名单一栏：这道题没有提到可放行的地方，所以什么也不拦
try-pi-followed = 听从了注入
try-pi-yes = 是
try-pi-no = 否
try-pi-not-met = 没碰到注入（没有一次查询查到东西）

## self-refine-loop
try-refine-sft = SFT 之后
try-refine-after-star = STaR 之后（在自己验证过的答案上训练 { $rounds } 轮）
try-refine-hint = 两个最多 { $digits } 位的数相加（347+285=），或用 ↑↓ 选一道留出题（SFT 模型初稿写错的排在前面）
try-refine-switch = 自我评判
try-refine-note = 模型读入 { $prompt }，应当写出 { $gold }（即 { $sum }，从低位写到高位）；循环先写初稿，再批评、修改，最多 { $rounds } 次，保留最好的版本
try-refine-note-verifier = 评判者：验证器，每位一个标记（. 对，^ 偏小，v 偏大，? 缺失）；保留最优和停止都用它的分数
try-refine-note-self = 评判者：模型自己（自我评判打开）；保留最优和停止都相信它的批评，下面逐条与验证器的批评对照
try-refine-not-held-out = 不是留出题：SFT 或 STaR 的数据里可能有它
try-refine-draft = 初稿
try-refine-revision = 第 { $k } 次修改
try-refine-critique = 对{ $version }的批评
try-refine-critique-vs = 它自己的 { $own }，验证器的 { $verifier }
try-refine-kept = 保留
try-refine-approved = 认可了自己的错误
try-refine-drafts-right = 初稿答对
try-refine-kept-right = 保留的答案答对
try-refine-mean-score = 平均分，初稿 → 保留
