# turn-credit-assignment
view-tca-warm-start = 热启动
view-tca-after-rl = 强化学习后
view-tca-phase-rl = 强化学习
view-tca-phase-probe = 探测
view-tca-log-closed = 评估问题上的平均奖励：{ $before } → { $after }，最好可达 { $best }：强化学习缩小了 { $closed }% 的差距
view-tca-known-real = （模型已知其首都）
view-tca-known-learned = （由热启动死记）
view-tca-log-data = { $known } 个地点{ $which }，{ $unknown } 个需要搜索；奖励 = { $correct }·正确 + { $format } 格式 − { $cost }·搜索次数
view-tca-log-real-known = 直接提问时，未训练的模型能说出 { $total } 个真实国家中 { $known } 个的首都：{ $list }
view-tca-known = 已知
view-tca-needs-search = 需要搜索
view-tca-log-example = { $when }，{ $what }（{ $entity }，真实答案 { $truth }）：{ $text }
view-tca-describe = { $when }：平均奖励 { $reward }，准确率 { $accuracy }（已知地点凭记忆 { $memory }），每回合搜索次数：已知地点 { $known }，其他地点 { $unknown }
view-tca-before-after-title = 强化学习前后（各 { $episodes } 个采样回合）
view-tca-col-reward = 平均奖励
view-tca-col-accuracy = 准确率
view-tca-col-memory = 凭记忆
view-tca-col-searches-known = 搜索，已知
view-tca-col-searches-others = 搜索，其他
view-tca-log-grad = 观测位置上最大的 |∂loss/∂logit|：{ $obs }；智能体位置上：{ $agent }
view-tca-episode-title = 一个强化学习回合：每个 token 的优势
view-tca-episode-legend = 智能体 token 按优势着色（绿 > 0，红 < 0）；观测 token 加删除线：被掩码，无梯度
