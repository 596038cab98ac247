# grpo-rlvr 与 rollout-infra 共用的加法任务（addition.rs）。
view-add-kind-hedge = 含糊
view-add-kind-slip = 漏进位
view-add-kind-answer = 答案
view-add-data-title-slips = 热启动数据：答案，偶尔含糊，以及漏掉最高位进位（漏进位）
view-add-data-title = 热启动数据：答案，偶尔含糊
view-add-log-slips = ；其余和向最高位进位的答案中 { $pct }% 漏掉这个进位
view-add-log-data = { $digits } 位加法，{ $how }（{ $prompt } → { $answer }）；{ $held } 道留出题；热启动答案中 { $hedge }% 含糊{ $slips }；词表 { $vocab } 个 token
view-add-how-chars = 答案从最低位写起
view-add-how-chat = 题目作为聊天模板中的用户消息，答案按人们平常的写法
view-add-phase-untrained = 未训练的模型
view-add-log-untrained = 未训练的指令模型在留出题目上用自己的话作答（最多 24 个 token）：贪心解码时，{ $greedy_exact } 只回答和本身（精确验证器），{ $greedy_last } 写出的最后一个数是和（答案抽取器的读法）；以温度 { $temperature } 采样时分别为 { $sampled_exact } 和 { $sampled_last }。例如 { $example }
