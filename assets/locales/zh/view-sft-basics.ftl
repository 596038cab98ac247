# sft-basics
view-sft-log-data = { $train } 个训练对，{ $held } 个留出；词表 { $vocab } 个 token
view-sft-example-title = 一个训练样例
view-sft-example-legend = 暗 = prompt（标签 −100，不计损失）· 亮 = 损失所训练的答案 token
view-sft-log-heldout = 留出集 { $n } 对上的精确匹配率：{ $acc }
view-sft-samples-title = 留出样本（reverse_answer 打开时答案倒写）
