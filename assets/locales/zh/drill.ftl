# 演练页面（src/tui/screens/drill*，图表、断言、进度条组件）。

## 标签页与面板
drill-tab-charts = 图表
drill-tab-views = 视图
drill-tab-log = 日志
drill-tab-runs = 运行
drill-tab-sweep = 扫描
drill-title = 演练 { $id }
drill-preset-edited = { $preset }，已改：{ $keys }
drill-with-yours = 用你的 { $ids }

## 状态行：当前显示的运行从何而来
drill-src-last-preset = { $last }（{ $preset }）· 按 s 开始新运行
drill-src-last = { $last } · 按 s 开始新运行
drill-src-saved-preset = 已存运行 { $name }（{ $preset }）
drill-src-saved = 已存运行 { $name }
drill-src-live = 运行中
drill-src-last-run = 上次运行
drill-src-reading = 正在读取上次运行…
drill-src-none = 尚无运行：按 s 开始
drill-track-preset = 专题 { $track } · 预设 { $preset }
drill-last-run = 上次运行：{ $when } · { $how }
drill-readme-more = …（r：README）

## 运行状态
drill-status-passed = 通过
drill-status-claim-failed = 断言未通过
drill-status-cancelled = 已取消
drill-status-error = 出错
drill-status-interrupted = 中断
drill-claims-failed = { $count } 条断言未通过
drill-runs-held = { $held }/{ $total } 成立

## 断言面板
drill-claims-title = 断言
drill-claims-title-log = 断言 · 全文见“3 日志”页
drill-claim-was = （原为 { $value }）
drill-claim-observed = { $value } 观察项（{ $threshold }）
drill-claim-not-measured = 未测得：运行已先结束（{ $threshold }）
drill-claim-pending-observation = 待测观察项（{ $threshold }）
drill-claim-pending = 待测（{ $threshold }）
drill-claim-why = 断言说明：{ $why }
drill-claims-hidden = 在回答或跳过本预设的预测之前隐藏（按 s 提问）：断言的文字和阈值会泄露答案
drill-claim-hidden = 断言 { $n }

## 配置面板
drill-seed-label = 种子
drill-sweep-seeds-label = 扫描种子数
drill-function-label = 函数
drill-fn-yours = 你的：{ $id }（u）
drill-fn-lab = 内置实现（u：换成你的）
drill-seed-help = 数据、初始化和采样的随机种子
drill-sweep-seeds-help = S 扫描种子 1–N（N ≤ { $max }）
drill-more-below = ↓ 还有 { $below } 项
drill-more-above = ↑ 上方 { $above } 项
drill-more-both = ↑ 上方 { $above } 项 · ↓ 还有 { $below } 项
drill-config-title = 配置 · { $preset }
drill-config-title-edited = 配置 · { $preset }，改了 { $n } 项
drill-config-seed = 种子 { $seed }

## 图表页
drill-charts-waiting = 等待第一批指标点…
drill-charts-failed = 运行在第一个指标点之前失败：{ $error }
drill-charts-ended = 运行在第一个指标点之前结束（{ $status }）。
drill-charts-empty-saved = 运行 { $name } 没有保存指标点：它在第一步之前就停止了。
drill-charts-none = 尚无运行。按 s 用左侧配置开始演练。
drill-smooth-raw = 原始
drill-smooth-keys = { $smooth }（m，+ -）
drill-x-one = x { $x }（w）
drill-x-per-chart = x 各图不同（w：时间）
drill-page = 第 { $page }/{ $pages } 页（[ ]）
drill-y-log = y 对数（L）
drill-y-linear = y 线性（L）
drill-grey-last-passing-seed = 灰线 = 种子 { $seed } 上次通过的运行
drill-grey-previous = 灰线 = 上一次运行
drill-grey-last-passing = 上次通过的运行
drill-grey-previous-run = 上一次运行
drill-chart-ema = EMA { $shown } · 最新 { $last }
drill-chart-grey = 灰线：{ $what }

## 视图、日志、运行页
drill-views-empty = 演练运行时，教学视图会显示在这里：逐 token 的轨迹、样本表格。
drill-token-prompt = prompt
drill-token-trained = 训练
drill-token-masked = 掩码
drill-token-injected = 注入
drill-log-scrolled = 日志 { $at }/{ $n }（已滚动：↓ 到底部继续跟随）
drill-log-following = 日志（{ $count } 行，跟随中）
drill-runs-empty = 这个演练还没有保存的运行。
drill-runs-title = 运行（↑↓ 选择，Enter 打开）
drill-runs-title-short = 运行（↑↓，Enter）
drill-runs-edited = { $preset }，已改
drill-col-run = 运行
drill-col-preset = 预设
drill-col-seed = 种子
drill-col-status = 状态
drill-col-claims = 断言
drill-col-time = 用时

## 进度条
drill-gauge-finished = 用时 { $secs } 秒完成：{ $failed }
drill-gauge-why = 各断言的说明见其 ✗ 下方
drill-gauge-break = b：故意让一条断言失败
drill-gauge-interrupted = 在第 { $step }/{ $total } 步中断（{ $phase }）
drill-gauge-stopped = 进程在运行结束前停止了
drill-gauge-step = { $phase } · 第 { $step }/{ $total } 步
drill-gauge-eta = 预计还需 { $secs } 秒
drill-gauge-starting = { $phase } · 启动中…
drill-gauge-idle = 空闲 · 按 s 开始运行

## 日志行
drill-log-started = ▶ 开始 · 预设 { $preset } · 种子 { $seed } · { $device }
drill-log-observed = 观察项 { $id }：{ $value } { $op } { $threshold } → 已记录
drill-log-pass = 断言 { $id }：{ $value } { $op } { $threshold } → 通过
drill-log-fail = 断言 { $id }：{ $value } { $op } { $threshold } → 未通过
drill-log-why = ✗ { $id } — 断言说明：{ $why }
drill-log-prediction = 预测 { $id }：{ $verdict }

## 消息（状态行）
drill-busy-use = { $what ->
    [run] 正在运行
   *[other] 正在扫描
}：按 x 取消后，再按 u 选择函数
drill-busy-sweep = { $what ->
    [run] 已有运行
   *[other] 已有扫描
}在进行：按 x 取消后，再按 S 开始扫描
drill-busy = { $what ->
    [run] 已有运行
   *[other] 已有扫描
}在进行：按 x 取消
drill-locked = { $what ->
    [run] 运行
   *[other] 扫描
}进行中，参数已锁定
drill-no-plug = 没有练习能接入这个演练
drill-use-lab = 用内置函数训练
drill-no-data-dir = 没有数据目录：{ $error }
drill-reading-yours = 正在读取你的 { $id }…
drill-reading-yours-wait = 正在读取你的 { $id }… 读完后再开始运行
drill-use-write-first = 请先写好你的 { $id }：在首页按 e 打开练习
drill-use-cannot = 无法用你的 { $id } 训练：{ $error }
drill-use-passes = 它通过了检查
drill-use-fails = 它没通过检查：看看这会造成什么
drill-use-ready = 按 s 用你的 { $id } 开始运行（{ $verdict }）；按 u 换回内置的
drill-reading-last-sweep = 正在读取上次扫描…
drill-job-died = { $what } 未返回结果就停止了
drill-showing-saved = 正在显示已存运行 { $name }（按 s 开始新运行）
drill-pred-not-measured = 你预测了 { $answer } · 未测得：运行在此之前结束（下次再问）
drill-sweep-worker-died = 扫描的工作线程未给出汇总就停止了
drill-sweep-saved = 扫描{ $phase }：已保存到 { $path }
drill-sweep-nothing-saved = 扫描在任何种子完成前被取消：没有保存
drill-sweep-save-failed = 扫描{ $phase }，但保存失败：{ $error }
drill-sweep-stopped = 扫描停止了：{ $error }
drill-not-implemented = { $id } 在这个版本中尚未实现
drill-looking-for-sweep = 正在查找可继续的未完成扫描…
drill-sweep-started = 种子 1–{ $n } 的扫描已开始：逐个运行（x 取消）
drill-sweep-resumed = 种子 1–{ $n } 的扫描已继续：种子 { $seeds } 已完成（{ $done }/{ $n }），其余逐个运行
drill-sweep-cannot-start = 无法开始扫描：{ $error }
drill-pred-edited = 预测针对原样的预设 { $preset }；这里改了：{ $keys }（按 p 换到原样的预设）
drill-no-predictions = 预设 { $preset } 没有预测：按 s 开始运行
drill-started-predictions = 已开始：运行结束时，你的 { $count } 个预测将与实测值对照（x 取消）
drill-no-breakers = { $id } 没有为预设 { $preset } 的断言声明反例设置：改一个参数后按 s 运行
drill-cannot-apply = 无法应用 { $setting }：{ $error }
drill-breaking-with = 用 { $setting } 让 { $claim } 失败（种子 { $seed }）：灰线和“原为”是通过的运行 { $run }
drill-breaking-alone = 用 { $setting } 让 { $claim } 失败（种子 { $seed }）：这个种子还没有可对比的通过运行
drill-reading-run = 正在读取运行 { $name }…
drill-started = 已开始：图表随模型训练更新（x 取消）
drill-cannot-start = 无法开始：{ $error }
drill-cancelling-sweep = 正在取消扫描… 进行中的运行会在下一步停止
drill-cancelling = 正在取消… 运行会在下一步停止
drill-nothing-running = 没有正在进行的运行
drill-sweeps-seeds = S 扫描种子 1–{ $n }
drill-no-such-param = 没有这个参数
drill-nothing-to-export = 还没有可导出的运行：按 s 开始
drill-exporting = 正在把图表导出为 PNG…
drill-exported = 已导出 { $path }
drill-exported-live = 已导出 { $path }（截至目前：运行仍在进行）
drill-exported-partial = 已导出 { $path }（不完整：运行{ $note }）
drill-export-failed = 导出失败：{ $error }
drill-exporting-to = 正在把这次运行导出到 { $engine }…
drill-exported-to = 已导出到 { $engine }：照 { $path } 做
drill-cannot-read = 无法读取 { $path }：{ $error }
drill-sweep-tab-bands = 扫描页：种子区间带（b：表格）
drill-sweep-tab-tables = 扫描页：断言和种子表格（b：区间带）
drill-preset-reset = 预设 { $preset }：参数已重置为其默认值
drill-enter-edits = Enter 编辑参数：按 Tab 把焦点移到配置
drill-run-going-esc = 正在运行：按 x 取消后，再按 Esc 返回
drill-no-bands = 没有种子区间带：扫描完成的运行才会画出

## 运行或扫描进行中退出
drill-quit-sweep-saved = { $id } 的扫描已取消；完成的种子已保存到 { $path }
drill-quit-sweep-nothing = { $id } 的扫描在任何种子完成前被取消：没有保存
drill-quit-sweep-error = { $id } 的扫描：{ $error }
drill-quit-sweep-stuck = { $id } 的扫描已取消；agentlab 退出时它尚未停止
drill-quit-run-cancelled = { $id } 的运行已取消：已保存到 { $dir }
drill-quit-run-ended = { $id } 的运行已结束（{ $status }）：已保存到 { $dir }
drill-quit-run-stuck = { $id } 的运行已取消；agentlab 退出时它尚未停止（{ $dir }）

## 预测与 b 列表
drill-pick-range = 请选 1 到 { $n }
drill-only-number = 只能输入数字：拒绝“{ $c }”（数字 . - e，或分数如 1/16）
drill-your-answer = 你的答案：
drill-number-help = 一个数：0.25、1e-3 或分数如 1/16
drill-ask-keys-choice = ↑↓ 或 1–{ $n } 选择 · Enter 作答 · Tab 跳过 · Esc 全部跳过并运行
drill-ask-keys-number = Enter 作答 · Tab 跳过 · Esc 全部跳过并运行
drill-predict-title = 运行前先预测 · 第 { $at }/{ $n } 题 · { $preset }
drill-outcomes-title = 你的预测 · Enter 关闭
drill-breaking-title = 反例设置 · Enter 运行 · Esc 关闭

## 扫描页
drill-phase-running = 进行中
drill-phase-cancelling = 取消中…
drill-phase-cancelled = 已取消
drill-phase-interrupted = 已中断
drill-phase-done = 已完成
drill-phase-failed = 失败
drill-sweep-intro = 种子扫描会用种子 1–{ $n } 运行这套配置，显示每条断言成立的频率。种子间的差异是强化学习的一部分：对一个种子成立的断言，换个种子可能就不成立。按 S 开始（约为单次运行时间的 { $n } 倍）。
drill-sweep-preset = 预设 { $preset }
drill-sweep-seeds = 种子 { $done }/{ $total }
drill-sweep-elapsed = 已用 { $time }
drill-sweep-median = 每次运行中位 { $secs } 秒
drill-sweep-partial = 不完整：{ $what }
drill-sweep-resumes = S 继续
drill-sweep-saved-name = 已保存 { $name }
drill-col-claim = 断言
drill-col-held = 成立
drill-col-mean = 均值
drill-col-min = 最小
drill-col-max = 最大
drill-col-threshold = 阈值
drill-col-wall = 秒
drill-observation-mark = （观察项）
drill-per-seed-none = 各种子：尚无完成
drill-per-seed = 各种子 · 第 { $from }–{ $to } 个，共 { $n } 个（↑↓ 滚动）
drill-more-columns = 另有 { $n } 列超出边缘
drill-sweep-title-bands = 扫描 · b 区间带
drill-sweep-title-chart-tables = 扫描 · ←→ 图表 · b 表格
drill-sweep-title-tables = 扫描 · b 表格
drill-sweep-title-chart-hide = 扫描 · ←→ 图表 · b 隐藏区间带
drill-sweep-title-hide = 扫描 · b 隐藏区间带
drill-band-chart = 图 { $i }/{ $n }（←→）
drill-band-chart-which = 图 { $which }
drill-band-mean = 线 = 均值
drill-band-sd = ⢕ ±1 标准差（总体）
drill-band-sd-short = ⢕ ±1 标准差
drill-band-range = ⠁ 最小–最大
drill-band-seeds = { $n } 个种子
drill-band-missing = （{ $n } 个无指标）
drill-sweep-gauge = 扫描{ $phase } · 已完成 { $done }/{ $total } 个种子
drill-sweep-left = 约剩 { $time }

## 掌握度条
drill-not-started = 未开始
drill-status-corrupt = 报告无法读取
