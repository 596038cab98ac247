# pass-at-k-harness（温度、抽取器名和格式名保持参数中的写法）
view-pak-phase-sample = 采样
view-pak-phase-estimate = 估计
view-pak-phase-harness = 评测框架
view-pak-log-sampled = 在 { $temps } 下为 { $problems } 道题各采样 { $samples } 个补全，并在 { $t } 下用 { $format } 格式采样
view-pak-log-summary = { $t }：pass@1 { $p1 }，pass@{ $n } { $pn }，pass^{ $n } { $hat }；pass@1 从 { $tlow } 的 { $low1 } 降到 { $thigh } 的 { $high1 }，而 pass@{ $n } 从 { $lown } 升到 { $highn }
view-pak-draw-without = k 元子集（无放回）
view-pak-draw-with = k 次有放回抽取
view-pak-log-mc = 蒙特卡洛（每道题每个 k 抽 { $draws } 次 { $how }）：|无偏 − MC| 最大 { $off }（区间半宽的 { $off_hw } 倍）；MC − 朴素 最大 { $below }，在 k = { $k }（{ $below_hw } 个半宽）
view-pak-estimators-title = { $t } 下的 pass@k，每题 n = { $n } 个样本：无偏（{ $problems } 道题上的 95% bootstrap 区间）、plug-in 估计、蒙特卡洛；pass^k
view-pak-col-unbiased = 无偏 pass@k [95%]
view-pak-col-naive = 朴素 1−(1−c/n)^k
view-pak-col-naive-mc = 朴素 − MC
view-pak-temperature-title = 温度：pass@1 下降，pass@n 上升（strict 匹配，训练格式）
view-pak-col-temperature = 温度
view-pak-col-hedged = 含糊
view-pak-row-trained = { $extractor } · 训练格式
view-pak-row-format = { $extractor } · { $format } 格式
view-pak-harness-title = 同一模型、同一组样本（{ $t }，n = { $n }）：各答案抽取器与 prompt 格式下的 pass@1（{ $trained } → `{ $trained_ex }`，{ $alt } → `{ $alt_ex }`）
view-pak-col-extractor = 抽取器 · prompt 格式
view-pak-col-width = 宽度
view-pak-col-delta = 相对 strict 的 Δ [95% 配对]
view-pak-col-delta-widths = Δ（以宽度计）
view-pak-log-harness = 评测框架：strict pass@1 { $base }（宽度 { $width }）；any number { $any }（{ $any_shift } 个宽度）；{ $format } 格式下 strict { $alt }（{ $alt_shift } 个宽度）
view-pak-col-format = { $format } 格式 { $t }
view-pak-col-first-samples = { $t } 下的前几个样本
view-pak-problems-title = 从总是错到总是对的题目：每种设置下 n 个中对 c 个
