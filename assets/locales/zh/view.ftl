# 演练运行时：几个演练共用的阶段名、日志行和教学视图。各演练自己的文本在 view-<drill>.ftl。

## 阶段（显示在图表上方）。
view-phase-data = 数据
view-phase-train = 训练
view-phase-evaluate = 评估
view-phase-report = 报告
view-phase-sft = SFT
view-phase-warm-start = 热启动（SFT）

## 列标题。
view-col-prompt = prompt
view-col-target = 目标
view-col-model = 模型
view-col-completion = 补全
view-col-gold = 标准答案
view-col-kind = 类型
view-col-measure = 指标
view-col-value = 值

## 日志行。
view-log-tiny-gpt = 微型 GPT { $size }：d_model { $d }，{ $layers } 层，{ $heads } 个头，{ $params } 个参数

## 日志行里列表项之间的分隔符。
view-list-sep = 、

## 检查运行的准备工作是否成功（不是断言）。
view-setup-ok = 准备 ✓ { $what }
view-setup-failed = 准备失败：{ $what }：{ $why }

## 强化学习 rollout 的速度，在一次运行结束时记一次（`who` 是某一臂的名字，或 none）。
view-log-rollouts = { $who ->
        [none] 强化学习 rollout
       *[other] 强化学习 rollout（{ $who }）
    }：{ $episodes } 个回合，{ $sampled } 个采样 token，用时 { $secs } s（每秒 { $eps_rate } 个回合，{ $tok_rate } tokens/s）
