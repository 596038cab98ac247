# grpo-rlvr 与 rollout-infra 共用的加法任务（addition.rs）。
view-add-kind-hedge = 含糊
view-add-kind-slip = 漏进位
view-add-kind-answer = 答案
view-add-data-title-slips = 热启动数据：答案，偶尔含糊，以及漏掉最高位进位（漏进位）
view-add-data-title = 热启动数据：答案，偶尔含糊
view-add-log-slips = ；其余和向最高位进位的答案中 { $pct }% 漏掉这个进位
view-add-log-data = { $digits } 位加法，答案从最低位写起（{ $prompt } → { $answer }）；{ $held } 道留出题；热启动答案中 { $hedge }% 含糊{ $slips }；词表 { $vocab } 个 token
