# 面向学习者的命令的文字输出（sheets、quiz、review、exercise）。
cli-sheet-stub = （编写中）
# $sections 和 $items 已补齐到两列。
cli-sheet-counts = { $sections } 节  { $items } 道测验题
cli-item-head = { $header } · 专题 { $track } · { $level } { $describe }
cli-item-label = 题
cli-answer-several = 答案（多选：如 a,c；a–{ $last }）
cli-answer-letter = 答案（字母 a–{ $last }）
cli-answer-number = 答案（一个数）
cli-order-prompt = 把这些步骤排好顺序：
cli-answer-order = 顺序（从先到后写步骤编号，如 { $example }）
cli-answer-open = 你的答案（写一行即可，随后显示参考答案）
cli-correct = ✓ 正确
cli-wrong-answer = ✗ 错误：答案是 { $answer }
cli-wrong-order = ✗ 错误：正确顺序是
cli-reference = 参考答案：
cli-why = 解析：{ $why }
cli-see = 参见：{ $links }
cli-rate-wrong = 自评：2 ⚠️ 模糊 · 3 ❌ 不会（答错不能评 ✅）
cli-rate = 自评：1 ✅ 会 · 2 ⚠️ 模糊 · 3 ❌ 不会
cli-rate-no-know = 答错了，不能评 ✅：请输入 2 或 3
cli-rate-keys = 请输入 1、2 或 3
cli-not-saved-yet = { $error }。尚未保存：{ $count } 条评分；之后每次保存都会重试
cli-pass-head = 第 { $pass } 轮：评为 ⚠️/❌ 的 { $items }再来一遍
cli-ratings = { $count } 条评分
cli-input-ended-saved = 输入结束：已保存 { $ratings }。
cli-input-ended-after = 输入在 { $ratings }后结束。
cli-score = 得分：自动评分答对 { $right }/{ $graded } · ✅ { $know } · ⚠️ { $fuzzy } · ❌ { $dont } · { $items }
cli-score-pass = 第 { $pass } 轮：✅ { $know } · ⚠️ { $fuzzy } · ❌ { $dont }
cli-score-passes = 得分：第一轮自动评分答对 { $right }/{ $graded } · { $items }，{ $passes } 轮共 { $ratings }（{ $per }）
cli-score-all = 合计：✅ { $know } · ⚠️ { $fuzzy } · ❌ { $dont }（⚠️/❌ 的题每轮都会再评，直到 ✅）
cli-progress-saved = 进度已保存到 { $path }
cli-progress-not-saved = 进度未保存：{ $ratings }中有 { $unsaved } 条无法写入 { $path }{ $why }
cli-what-track-level = 专题 { $track } · { $level }
cli-what-track = 专题 { $track } · 全部级别
cli-what-level = 全部专题 · { $level }
cli-what-all = 全部专题 · 全部级别
cli-quiz-none = 没有符合条件的测验题（{ $what }）
cli-quiz-head = 测验：{ $what } · { $items }。逐题作答，然后自评 1/2/3。
cli-quiz-again = { $items }评为 ⚠️/❌：`agentlab review --all` 可以马上再做。
cli-ex-done = ✓ 已完成
cli-ex-not-yet = ✗ 未通过
cli-ex-pending = · 待做
cli-ex-trains = （训练 { $drill }）
cli-ex-list-foot = 已完成 { $done }/{ $total } · agentlab exercise show ID · agentlab exercise check ID

# 输入有误时的报错，以及加载。
cli-unknown-track = 没有专题“{ $track }”：请用 0–7 或 slug，如 agentic-rl
cli-unknown-level = 没有级别“{ $level }”：请用 L1、L2、L3 或 all
cli-no-sheet = 专题 { $track } 没有速查表
cli-unknown-drill = 没有演练“{ $id }”（agentlab drill list 可列出全部演练）
cli-drill-not-implemented = 此版本未实现演练“{ $id }”
cli-set-expects = --set 需要 key=value，收到的是“{ $got }”
cli-cannot-load-content = 无法加载内容：{ $error }
cli-no-translation = 这份内容没有{ $lang }译本，改用英文

# drill list / drill show
cli-drill-track = 专题 { $track }
cli-drill-not-built = （此版本未包含）
cli-show-params = 参数（quick 预设的取值）：
cli-show-text-max = 文本 ≤ { $max } 字符
cli-show-one-of = 可选：{ $choices }
cli-show-presets = 预设：{ $presets }
cli-show-claims = 断言：
cli-show-claim-presets = （预设 { $presets }）
cli-show-use-head = 用你自己的函数训练（练习）：
cli-show-use = 你的 { $function }（agentlab exercise show { $id }）

# drill run
cli-run-head = { $id } · 预设 { $preset } · 种子 { $seed } · { $device }
cli-run-step = 第 { $step }/{ $total } 步
cli-run-claim = 断言
cli-result-observed = 观察项
cli-result-pass-caps = 通过
cli-result-pass = 通过
cli-result-fail = 未通过
# 断言表的列名（代码里按显示宽度补齐）。
cli-table-claim = 断言
cli-table-measured = 实测值
cli-table-threshold = 阈值
cli-table-result = 结果
cli-saved-in = 已保存到 { $path }
cli-run-no-report = 运行结束，但没有报告
cli-predict-no-json = --predict 要在终端里提问，不能与 --json 同用
cli-predict-no-sets = --predict 问的是按声明运行的预设 { $preset }；--set、--model 和 --use 会改变运行，测出的数就回答不了这些问题（要预测，请按原样运行预设）
cli-predict-none = { $id } 的预设 { $preset } 没有预测题
cli-predict-head = 运行前先预测（共 { $n } 题；回车跳过一题，s 跳过其余）
cli-predict-choice = 你的答案（1–{ $n }）：
cli-predict-number = 你的答案（一个数）：
cli-predict-cancelled = 运行已取消：你的预测仍未揭晓
cli-predict-yours = 你的预测
cli-predict-not-measured = 你预测的是 { $answer } · 未测到：运行在此之前就结束了
cli-predict-not-saved = 预测未保存：{ $error }

# drill sweep
cli-sweep-head = { $id } 的种子扫描 · 预设 { $preset } · { $n } 个种子（{ $seeds }）· 同时运行 { $jobs } 个
cli-sweep-no-resume = --resume：没有可继续的扫描（{ $id }，预设 { $preset }，这些参数和种子 { $seeds }）；去掉 --resume 即可开始新的扫描
cli-sweep-resuming = 继续 { $path }：已完成 { $what }（{ $done }/{ $n }）；这次运行 { $running }
cli-sweep-no-seed = 0 个种子
cli-sweep-one-seed = 种子 { $seed }
cli-sweep-seeds = 种子 { $seeds }
cli-sweep-none = 无
cli-sweep-row = 种子 { $seed } · { $secs } 秒 · { $status } · { $values }

# export
cli-export-not-a-run = { $path } 既不是运行目录（没有 metrics.jsonl），也不是扫描（sweeps/<drill>/ 下的 .json 文件或该文件夹）：请用 `agentlab drill run` 或 `agentlab drill sweep` 打印出的路径
cli-export-chart-run = --chart 用于在扫描的区间图中挑选；导出一次运行会画出全部序列
cli-export-incomplete = 这次运行{ $note }；导出的是已保存的部分
cli-export-png-stdout = PNG 不写到标准输出（--out -）：请给一个以 .png 结尾的文件名，或改用 --svg 或 --csv（它们可以用 --out - 打印）
cli-export-cannot-write = 无法写入 { $path }：{ $error }
cli-export-takes = { $error }：export 接受运行目录（含 metrics.jsonl）或扫描（sweeps/<drill>/ 下的 .json 记录或该文件夹）
cli-export-newest = { $dir } 中最新的扫描：{ $file }
cli-export-no-drill = { $file } 是“{ $drill }”的扫描，但本项目没有这个演练
cli-export-partial = 这次扫描不完整（{ $what }）；导出的是已完成的种子
cli-export-seeds-missing = 种子 { $seeds } 未计入：读不到它们运行的 metrics.jsonl
cli-export-no-seed = { $file }：这次扫描没有一个种子完成并把指标存到磁盘，无可绘制
cli-export-no-chart = 这次扫描没有图表匹配 --chart “{ $chart }”（它的图表：{ $charts }）
cli-export-out-dir = { $path } 是目录：请给一个文件名，如 { $example }
cli-export-wrong-ext = { $path } 是 .{ $given } 文件名，但这里写的是 { $kind }：.{ $given } 文件请用 { $flag }，或用以 .{ $ext } 结尾的文件名
cli-export-png-name = 无法把 PNG 写到 { $path }：文件名必须以 .png 结尾（--svg 写 SVG、--csv 写 CSV，文件名不限）
cli-export-no-parent = 无法写入 { $path }：目录 { $dir } 不存在（请先创建，或换一个 --out）

# model add / list
cli-model-cannot-add = 无法添加 { $source }：{ $error }
cli-model-gguf = GGUF 文件
cli-model-hf = Hugging Face 检查点
cli-model-added = 已添加模型 { $name }（{ $what }，{ $size }）：{ $path }
cli-model-replaced = 已替换模型 { $name }（{ $what }，{ $size }）：{ $path }
cli-model-use = 用法：agentlab drill run { $drill } --model { $name }
cli-model-use-any = 在带 `model` 参数的演练上用 --model { $name } 即可
cli-model-none = 尚未注册模型（目录 { $dir }）：scripts/get-smollm2.sh 会下载并添加 SmolLM2-135M-Instruct；agentlab model add FILE.gguf|DIR [--name NAME] 可添加你自己的模型
cli-model-col-name = 名称
cli-model-col-kind = 类型
cli-model-col-size = 大小
cli-model-col-path = 路径
cli-model-no-drill-yet = 这份内容里还没有
cli-model-tiny-only = 演练 { $id } 只运行本项目的微型 GPT；支持 --model 的演练：{ $with }
cli-model-twice = --model 和 --set { $param }=… 都设置了模型：只能给一个

# study --plan（开头一列的 $minutes 已补齐到三列）
cli-plan-no-track = 没有专题“{ $track }”（0–7 或 slug，如 agentic-rl）
cli-plan-on-all = 按顺序学各专题
cli-plan-on-track = 专题 { $track }
cli-plan-head = { $minutes } 分钟学习：{ $on }（已排 { $planned } 分钟）：
cli-plan-nothing = 无：没有到期的复习，路径也已完成
cli-plan-review = { $minutes } 分钟  复习 { $count } 道到期题
cli-plan-left-out = （另有 { $count } 道到期题留待以后：复习最多占 { $share }% 的时间）
cli-plan-step = { $minutes } 分钟  { $label } · 专题 { $track }
cli-plan-paths = 学习路径（已完成步数/总步数，剩余分钟，下一步）：
cli-plan-no-path = 无路径
cli-plan-done = 已完成
cli-plan-next = 下一步：{ $label }（{ $minutes } 分钟）
cli-plan-path = { $done }/{ $total } · 剩 { $left } 分钟 · { $next }

# review
cli-retention-not-saved = { $error }。期望记忆保持率未保存。
cli-retention-set = 期望记忆保持率已设为 { $retention }（已保存）
cli-review-nothing = 现在没有到期的题。
cli-review-weak = { $count } 道 ⚠️/❌ 题尚未到期：`agentlab review --all` 可以马上复习。
cli-review-extra = + { $count } 道未到期的 ⚠️/❌ 题
cli-review-head = 复习：{ $items }现已到期{ $extra } · 期望记忆保持率 { $retention }
cli-review-label = 复习
cli-review-more = 另有 { $count } 道 ⚠️/❌ 题尚未到期：`agentlab review --all`。

# 测验解析里的链接，按命令的叫法写出。
cli-link-section = 速查表 { $track }，§ { $section }
cli-link-sheet-titled = 速查表 { $track }（{ $title }）
cli-link-sheet = 速查表 { $track }
cli-link-drill = 演练 { $id }
cli-link-exercise = 练习 { $id }
cli-link-quiz-level = 专题 { $track } 的测验，{ $level }
cli-link-quiz = 专题 { $track } 的测验

# progress（列名在代码里补齐）
cli-progress-mastery = 掌握度 = 已掌握的题所占比例：首次即答对，或答错后隔一天以上再次答对，最后评为 ✅ 且未到期（全部：占该专题全部题目，与主页相同）；格中为 已掌握/学习中/题数
cli-progress-col-track = 专题
cli-progress-col-all = 全部
cli-progress-col-due = 到期
cli-progress-col-drills = 演练
cli-progress-col-exercises = 练习
cli-progress-col-time = 时长
cli-progress-col-predictions = 预测正确
cli-progress-week = { $start } { $sessions } 次（{ $time }）
cli-progress-weeks = 每周学习次数（从周一算起；共 { $sessions } 次）：{ $weeks }
cli-progress-due = 现已到期：{ $now } · 未来 7 天：{ $week }（逐日：{ $days }）
cli-progress-per-day = 每日评分（最近 { $days } 天，✅/⚠️/❌）：
cli-progress-none-yet = 还没有：不妨从 `agentlab quiz --track 3 --level L1` 开始
cli-progress-retention = 期望记忆保持率 { $retention } · 状态文件 { $path }

# 非英文的 --help：命令（cli-help-PATH）和选项（cli-help-PATH--ID，否则 cli-help-arg-ID）的说明。
cli-help-heading-usage = 用法：
cli-help-heading-commands = 命令：
cli-help-heading-options = 选项：
cli-help-heading-arguments = 参数：
cli-help-default-value = （默认：{ $value }）
cli-help = agentlab：在终端里学习 LLM 智能体后训练
cli-help-help = 打印本帮助，或给定子命令的帮助
cli-help-arg-help = 打印帮助
cli-help-arg-version = 打印版本
cli-help-arg-subcommand = 打印这些子命令的帮助
cli-help-arg-content = 从这个目录加载速查表、测验和演练，而不用内置的副本
cli-help-arg-lang = 界面和内容的语言：en 或 zh（默认：AGENTLAB_LANG，否则用 TUI 里最近按 F2 选的语言，否则按系统区域设置）
cli-help-arg-width = 换行宽度，20 到 1000；默认 100
cli-help-arg-device = auto、cpu、cuda 或 metal
cli-help-arg-json = 以 JSON 打印报告
cli-help-arg-model = 模型（用于需要模型的演练）：tiny、`agentlab model list` 中的名称、FILE.gguf 或 Hugging Face 目录（等同 --set model=SPEC）
cli-help-tui = 打开终端界面（默认）
cli-help-sheets = 列出速查表
cli-help-sheet = 把速查表打印成纯文本（便于管道和分页器）
cli-help-sheet--track = 专题编号（0–7）或 slug（如 `agentic-rl`）
cli-help-validate = 检查每个内容文件并报告问题
cli-help-drill = 无界面地列出、查看和运行演练
cli-help-export = 绘制已保存运行的图表，或扫描的种子区间图（PNG/SVG），或写成 CSV
cli-help-export--run_dir = 运行目录（runs/<drill>/<timestamp>，即 `drill run` 打印的路径），或扫描：它的记录（sweeps/<drill>/<timestamp>.json，即 `drill sweep` 打印的路径）或该文件夹（取最新的）
cli-help-export--out = 输出文件（默认：运行目录内；扫描记录旁）
cli-help-export--chart = 扫描：只导出标题或序列包含此文本的图表（默认：全部图表）
cli-help-export--to = 改为把实验导出给训练引擎：hf、peft、trl 或 verl（RUN_DIR 或演练 id；--out 是文件夹）
cli-help-export--force = 与 --to 一起用：替换非空的 --out 文件夹
cli-help-export--preset = 与 --to 和演练 id 一起用：它的预设（默认 quick）
cli-help-export--seed = 与 --to 和演练 id 一起用：种子（默认 1）
cli-help-pretrain = 预训练本项目的基础模型（随附于 assets/models/base；CPU 上需几分钟）
cli-help-pretrain--out = config.json、model.safetensors 和 tokenizer.json 的写入位置
cli-help-quiz = 在标准输入/输出上做测验：每题一行答案，然后一行自评 1/2/3
cli-help-quiz--track = 专题编号（0–7）或 slug；不给则为全部专题
cli-help-quiz--level = L1（概念）、L2（实现）、L3（研究）或 all
cli-help-quiz--limit = 最多这么多道题（1 或以上）
cli-help-review = 复习现已到期的题（FSRS）；⚠️/❌ 的题每轮之后再来
cli-help-review--retention = 设置期望记忆保持率（0.70–0.99，默认 0.9）并保存
cli-help-review--all = 也复习所有尚未到期的 ⚠️/❌ 题
cli-help-study = 在 TUI 中学习：先做到期的复习题，再按分钟数安排专题学习路径的后续步骤（见 README“Study sessions”）
cli-help-study--minutes = 本次学习的分钟数（5 到 600）
cli-help-study--track = 专题编号（0–7）或 slug；不给则按顺序，从第一条未完成的路径开始
cli-help-study--plan = 打印计划和各专题的下一步，然后退出（不开 TUI）
cli-help-progress = 各专题、各级别的掌握度，通过的演练，到期的题，每日评分
cli-help-doctor = 报告此版本的功能、看到的 CPU 和 GPU、`--device auto` 的选择、路径和线程
cli-help-model = 供需要模型的演练（`--model`）使用的模型：添加 GGUF 文件或 Hugging Face 目录，列出模型
cli-help-exercise = 练习：用 Rhai 写一个算法，与内置代码对照检查，再用它训练演练
cli-help-bench = 测量训练和生成速度以及界面延迟（--json 输出 JSON）
cli-help-bench--only = 只运行一部分：S、M、L、gen-S、gen-M、gen-L 或 ui（配合 --model：lora、gen-b1 或 gen-b8）
cli-help-bench--model = 测真实模型而不是微型 GPT 配置：LoRA 训练（批量 4 × 64）和带 K/V 缓存的贪心生成（批量 1 和 8）；`agentlab model list` 中的名称、smollm2、FILE.gguf 或 Hugging Face 目录
cli-help-bench--seconds = 每个配置计时训练的秒数（大于 0，最多 3600）
cli-help-bench--profile = S 和 M（或 --only 的配置）的一个训练步逐阶段的耗时（CPU）；加 --model 时，是该模型的一个 LoRA 训练步和一次解码
cli-help-exercise-list = 各专题的练习，已完成或待做
cli-help-exercise-show = 练习的任务和你的文件位置（第一次会从模板写出）
cli-help-exercise-hint = 提示 1 到 N（不给 N 则全部）
cli-help-exercise-check = 把你的函数与内置实现对照检查；退出码 0 通过，1 未通过，2 输入有误
cli-help-exercise-check--file = 要检查的脚本（默认：数据目录里你的文件）
cli-help-exercise-check--review = 检查未通过时，把该练习的测验题加入复习
cli-help-exercise-watch = 立即检查你的函数，之后文件每保存一次就再检查一次，直到 Ctrl-C
cli-help-exercise-watch--file = 要监视的脚本（默认：数据目录里你的文件）
cli-help-exercise-watch--checks = 检查这么多次后停止（默认：不停止）
cli-help-model-add = 把模型注册到 <data>/models/NAME：GGUF 文件，或 Hugging Face 目录（config.json、tokenizer.json、*.safetensors）。同一文件系统上用硬链接，否则复制；同名模型会被替换
cli-help-model-add--source = .gguf 文件或 Hugging Face 检查点目录
cli-help-model-add--name = 使用时的名称（--model NAME）；默认：文件名或目录名的小写
cli-help-model-list = 已注册的模型：名称、类型（gguf 或 hf-dir）、大小、路径
cli-help-drill-list = 列出演练
cli-help-drill-show = 演练的参数、预设和断言
cli-help-drill-run = 运行一个演练；所有断言成立时退出码为 0，有断言不成立为 1，参数有误为 2
cli-help-drill-run--preset = quick（CPU，≤ 45 秒）或 full（更大，适合 GPU）
cli-help-drill-run--seed = 一个 ≥ 0 的整数
cli-help-drill-run--sets = 覆盖一个参数：--set lr=1e-3（可重复）
cli-help-drill-run--uses = 用你在练习里写的函数训练：--use grpo-advantages=my.rhai（可重复）
cli-help-drill-run--json = 把每个事件打印成一行 JSON
cli-help-drill-run--predict = 先回答该预设的预测题（从标准输入）；运行后给出每题的实测结果（记入你的进度）
cli-help-drill-sweep = 用多个种子运行一个演练；逐个断言给出成立的比例、均值、最小值和最大值。每个种子上所有断言都成立时退出码为 0，否则为 1，参数有误为 2
cli-help-drill-sweep--seeds = 种子：范围（1-20）、列表（1,4,9）或两者兼有
cli-help-drill-sweep--sets = 为每个种子覆盖一个参数：--set lr=1e-3（可重复）
cli-help-drill-sweep--jobs = 同时运行的个数，1 到 64（它们共享 CPU 线程；结果与此无关）
cli-help-drill-sweep--json = 每个种子一行 JSON，最后是整个扫描的 JSON
cli-help-drill-sweep--resume = 继续同一演练、预设、参数和种子的未完成扫描（不加它的同一命令也会继续；加了它，没有可继续的就报错）
cli-run-models-not-kept = 模型没有保留（{ $error }）：指标和报告已保存，但 Try 打不开这次运行
cli-run-models-not-kept-either = 模型也没有保留（{ $error }）
cli-run-not-saved = 未能完整保存到 { $path }
cli-validate-warning = 警告：{ $warning }
cli-validate-too-deep = { $file }：引用、列表或 <details> 嵌套了 { $depth } 层；阅读器只画 { $max } 层（更深的按第 { $max } 层显示）
cli-export-no-points = { $path } 里没有本程序能读的指标点（{ $unread } 行不是事件）：没有可导出的内容

## agentlab try、agentlab runs
cli-help-try = 向已保存运行的模型提问：训练后的模型与它的起点模型并排回答同一个输入，用演练自己的任务（不给 --input 时，标准输入每行一个输入）
cli-help-try--run = 运行目录（runs/<drill>/<timestamp>，即 `drill run` 打印的路径），或演练 id（取它最新的运行）
cli-help-try--arm = 只用这一组（`runs list` 显示的 id：warm-start、after-rl 等）；默认每一组
cli-help-try--input = 输入（一个问题、一道题、一个查询）；不给则从标准输入每行读一个
cli-help-try--samples = 每组的采样数，1 到 16（默认：演练自己的）
cli-help-try--temperature = 采样温度，0（贪心）到 5（默认：演练自己的）
cli-help-try--seed = 一个 ≥ 0 的整数：同一种子给出同样的样本
cli-help-try--switches = 演练的开关：--switch attack=off（可重复；prompt-injection 的攻击）
cli-help-try--logp = 同时打印模型每个 token 的对数概率
cli-help-try--json = 每个输入一个 JSON 对象
cli-help-runs = 已保存的运行：列出它们保留了什么、清理旧运行的权重、固定一次运行、对比两次运行
cli-help-runs-list = 每次已保存的运行（某个演练的）：预设、改动、状态和保留的权重
cli-help-runs-list--drill = 只列这个演练的运行
cli-help-runs-prune = 删除保留规则不保留的运行的权重（每个演练最新 5 次和被固定的运行保留）；配置、指标和报告都留着
cli-help-runs-prune--dry_run = 只说会删除什么，不删除
cli-help-runs-pin = 无论保留规则如何都保留这次运行的权重
cli-help-runs-unpin = 让保留规则可以再次删除被固定运行的权重
cli-help-runs-diff = 两次运行并排：设置上的不同、两边的断言值、最终值不同的序列
cli-try-no-run = { $spec } 既不是运行目录也不是演练 id
cli-try-no-runs = { $id } 还没有已保存的运行：先运行它（agentlab drill run { $id }）
cli-try-no-arm = 这次运行没有名为“{ $arm }”的组（共有：{ $arms }）
cli-try-bad-switch = --switch { $got }：请写 KEY=on 或 KEY=off（这个演练的开关：{ $keys }）
cli-try-temperature = --temperature 取 0（贪心）到 5，收到的是 { $got }
cli-try-head = 试用 { $run } · { $arms }
cli-try-examples = 留出样例：{ $examples }
cli-runs-none = { $dir } 里没有已保存的运行
cli-runs-weights = 权重：{ $arms }（{ $size }）
cli-runs-pruned = 权重已清理
cli-runs-no-weights = 没有权重
cli-runs-pinned = 已固定 { $dir }：它的权重会被保留
cli-runs-unpinned = 已取消固定 { $dir }：保留规则可能删除它的权重
cli-runs-not-a-run = { $dir } 不是运行目录
cli-prune-would = 将删除 { $dir }/models（{ $size }）
cli-prune-dropped = 已删除 { $dir }/models（{ $size }）
cli-prune-summary = { $dropped } 次运行删除了权重（{ $freed }）；{ $kept } 次保留（{ $size }）：每个演练最新的 { $newest } 次和被固定的运行
cli-help-try--timing = 在 stderr 上报告第一个模型 token 用了多久、每秒生成多少模型 token
cli-try-timing = 第一个模型 token 用时 { $first } ms · { $tokens } 个模型 token 用时 { $secs } s（从回车到结束 { $rate } token/s；从第一个 token 到最后一个 { $stream } token/s，含工具调用和观察）
