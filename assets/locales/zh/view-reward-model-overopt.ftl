# reward-model-overopt
view-rmo-log-sft = { $digits } 位数加法，和从最低位开始写，任何答案之后都跟着填充点；{ $gpt }
view-rmo-phase-samples = 样本
view-rmo-phase-pairs = 偏好对
view-rmo-phase-rm = 奖励模型
view-rmo-phase-bon = best-of-n
view-rmo-check-mix = 策略的样本混有对的和错的答案
view-rmo-check-mix-why = 留出样本中只有 { $share } 是对的：best-of-n 没有什么可挑的。请调整 sft_steps 或 habit_rate。
view-rmo-pairs-title = 偏好集（length_bias { $bias }）：被选答案是较长那个的频率
view-rmo-col-pairs = 偏好对
view-rmo-col-chosen-longer = 被选的较长
view-rmo-row-small = 小偏好集
view-rmo-row-large = 大偏好集
view-rmo-row-heldout = 留出偏好对（没有长度偏好）
view-rmo-examples-title = 训练偏好对：黄金奖励挑出正确的和；流程偏爱较长的那个
view-rmo-col-chosen = 被选（黄金奖励）
view-rmo-col-rejected = 被拒（黄金奖励）
view-rmo-log-pairs = 从 { $prompts } 个新 prompt 得到 { $pairs } 个偏好对，其中 { $longer } 的被选答案较长；样本池：{ $test } 个留出 prompt 各 { $samples } 个样本，{ $right } 是对的，平均 { $dots } 个点
view-rmo-bon-title = 从每个 prompt { $samples } 个样本的同一个样本池算出的 best-of-n（无偏估计量，不重新采样）
view-rmo-col-proxy-small = 代理增益（小）
view-rmo-col-gold-small = 黄金（小）
view-rmo-col-dots-small = 点数（小）
view-rmo-col-proxy-large = 代理增益（大）
view-rmo-col-gold-large = 黄金（大）
view-rmo-col-dots-large = 点数（大）
view-rmo-col-oracle = 黄金（按黄金挑最好）
view-rmo-rm-title = 每个奖励模型学到了什么：留出偏好对准确率，按点数拆开（被选较长 { $longer } 对，点数相同 { $tied } 对，被选较短 { $shorter } 对）
view-rmo-col-rm = 奖励模型
view-rmo-col-acc = 留出偏好对准确率
view-rmo-col-acc-longer = 被选较长
view-rmo-col-acc-tied = 点数相同
view-rmo-col-acc-shorter = 被选较短
view-rmo-col-dot-gap = 较长 − 相同
view-rmo-col-peak = 黄金峰值所在 n（值）
view-rmo-col-gold-at-n = n = { $n } 时的黄金
view-rmo-col-right-at-n = n = { $n } 时对的比例
view-rmo-row-rm = 用 { $pairs } 个偏好对训练的奖励模型
view-rmo-log-report = best-of-n 直到 n = { $n }（KL_bon { $kl } nats）：小偏好集奖励模型的黄金奖励在 n = 1 时为 { $g1 }，在 n = { $npeak } 时达到峰值 { $peak }，n = { $n } 时为 { $gs }；大偏好集奖励模型在 n = { $n } 时为 { $gl }（峰值在 n = { $nl }）；留出偏好对准确率 { $acc_s }（小）和 { $acc_l }（大）；在被选答案点更多的偏好对上为 { $ls } 和 { $ll }，在点数相同的偏好对上为 { $ts } 和 { $tl }
view-rmo-why-title = 为什么代理奖励在攀升，黄金奖励却在下降
view-rmo-why-body =
    奖励模型是一个代理：它学到的是在它的偏好对里能把被选和被拒区分开的任何东西。在这个偏好集里，被选答案通常是较长的那个，而点比一个错误的进位容易看出得多，所以只用少量偏好对训练的奖励模型会给点打分。best-of-n 在样本中搜索得分最高的那个：n 小的时候，它找到的是奖励模型能分辨出的对的答案；n 大的时候，它找到的是奖励模型判断错的答案——带着很多点的答案（黄金奖励要为点扣分，而且它们并不更常是对的），或者它恰好喜欢的算错的答案。选中答案的代理奖励随每个 n 上升（它是一个最大值）；同一个选中答案的黄金奖励则先到达峰值，然后下降。
    
    偏好对多了，奖励模型就能见到足够多不带多余点的正确答案和带点的错误答案，从而多学到一些加法本身：点数相同的留出偏好对，它排对的更多，黄金奖励曲线的峰值也更高。至于峰值是否也来得更晚、n = N 时是否也更高，这里因种子而异：同一条有偏流程产出的更多偏好对，也把点教给了它。每个代理都有一段尾部，在那里它和黄金奖励分道扬镳。
