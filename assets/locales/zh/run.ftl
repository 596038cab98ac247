# 运行与种子扫描（src/runner）：`agentlab drill run/sweep` 和演练页面给学习者看的话。

## 参数与运行
run-no-param = 演练 { $id } 没有参数“{ $key }”（参数有：{ $keys }）
run-log-device = 设备：{ $error }
run-log-your-function = 你的函数：{ $error }
run-log-training-with = 用你的 { $id }（{ $file }）训练，而不是内置函数
run-ended-without-measuring = 演练结束时没有测得：{ $names }
run-panicked = 演练崩溃了：{ $msg }
run-incomplete-at = { $how ->
    [corrupt] 的 report.json 无法读取（已损坏；指标止于第 { $step }/{ $total } 步）
    [cancelled] 在第 { $step }/{ $total } 步取消
    [failed] 在第 { $step }/{ $total } 步失败
   *[other] 在第 { $step }/{ $total } 步中断
}
run-incomplete-start = { $how ->
    [corrupt] 的 report.json 无法读取（已损坏）
    [cancelled] 在第一步之前取消
    [failed] 在第一步之前失败
   *[other] 在第一步之前中断
}
run-phase = （{ $phase }）

## 预测
run-choice = 选项 { $n }
run-verdict-right = 你预测 { $answer } · 实测 { $measured } — 正确
run-verdict-wrong = 你预测 { $answer } · 实测 { $measured } — 错误

## 种子扫描
run-seeds-backwards = 种子：范围 { $a }-{ $b } 是倒序的
run-seeds-range-too-long = 种子：{ $a }-{ $b } 超过 1000 个种子
run-seeds-none = 种子：至少给一个种子，例如 1-20
run-seeds-too-many = 种子：{ $n } 个种子超过了 1000 个
run-sweep-partial = { $total } 个种子完成 { $done } 个，{ $how ->
    [interrupted] 已中断
   *[other] 已取消
}
run-sweep-head = { $drill } · 预设 { $preset } · 种子 { $seeds } · 每次运行中位 { $median } 秒 · 共 { $total } 秒
run-sweep-incomplete = 不完整：{ $what }
run-col-claim = 断言
run-col-held = 成立
run-col-mean = 均值
run-col-min = 最小
run-col-max = 最大
run-col-threshold = 阈值
run-observation = （观察项）
run-seed-status = 种子 { $seed }：{ $status }
run-not-finished = 未完成的运行：{ $runs }
run-cannot-write = 无法写入 { $path }
run-write-failed = 写入 { $path } 失败：{ $error }
run-not-saved = 这次运行未能完整保存（{ $why }）
