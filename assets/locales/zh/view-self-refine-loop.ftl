# self-refine-loop
view-refine-phase-refine = 自我改进
view-refine-phase-probe = 自我评判探测
view-refine-phase-star = STaR 第 { $round } 轮
view-refine-critic-verifier = 验证器
view-refine-critic-self = 模型自身
view-refine-log-refine = 自我改进（评判者：{ $critic }，{ $rounds } 轮），{ $n } 道留出题：平均分 { $first } → { $kept }（最新版本 { $latest }），通过率 { $pass0 } → { $pass1 }
view-refine-episodes-title = Self-Refine 回合（SFT 模型）
view-refine-log-report = { $n } 道留出题的初稿通过率：STaR 前 { $before }，第 1 轮后 { $first }，第 { $rounds } 轮后 { $last }
view-refine-log-trace = 一条改进轨迹共 { $n } 个 token，其中 { $prompt } 个是对话模板、系统消息和题目
view-refine-trace-title = SFT 数据中的一条改进轨迹
view-refine-trace-legend = prompt · 合成初稿 | 评判（. 正确，^ 偏小，v 偏大）> 修改稿；亮 = 计入损失
view-refine-log-real = { $digits } 位加法，题目作为用户消息
view-refine-log-tiny = { $digits } 位加法；{ $gpt }
view-refine-log-star = STaR 第 { $round } 轮：{ $problems } 道新题，初稿正确 { $drafts } 道，保留最终答案 { $kept } 个（其中 { $wrong } 个错误），{ $seqs } 条训练序列
view-refine-log-skip = 没有可训练的数据：跳过本轮
view-refine-log-after-star = STaR 第 { $round } 轮后：初稿通过率 { $after }（平均分 { $score }，STaR 前为 { $before }），改进后 { $refined }
view-refine-col-problem = 题目
view-refine-col-versions = 各版本 [评判]
view-refine-col-score = 得分
view-refine-log-self-critic = 自我评判：{ $wrong } 个错误初稿中认可 { $approved } 个；真实得分 { $first } → { $self_final }（验证器评判：→ { $ver_final }）；{ $n } 个回合中有 { $fall } 个保留的答案变差
view-refine-self-critic-title = 模型自己当评判者（回路中没有验证器）
view-refine-row-approves = 认可的错误初稿（附和自己的错误）
view-refine-row-flags = 误判的正确初稿（误报）
view-refine-row-first = 平均真实得分：初稿
view-refine-row-kept-self = 平均真实得分：保留版，自我评判
view-refine-row-kept-verifier = 平均真实得分：保留版，验证器评判
view-refine-row-worse = 保留答案变差的回合
