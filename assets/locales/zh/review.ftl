# 复习页。
review-nothing-more = 没有等待中的 ⚠/❌ 题：已无可复习
review-more-added = 已加入 { $n } 道未到期的 ⚠/❌ 题
review-retention-set = 目标保持率 { $retention }：对之后的评分生效
review-not-saved = { $error }：{ $n } 个评分尚未保存（之后每次评分都会重试）
review-from-more = 未到期（⚠/❌）
review-pass = 第 { $pass } 轮（⚠/❌ 会再出现）
review-due-now = 已到期
review-badge = 复习 { $pos }/{ $total }
review-status = { $what } · 专题 { $track } { $title } · { $level } · 保持率 { $retention }
review-heading = 复习
review-nothing-due = 现在没有到期的题。
review-done = 完成：复习了 { $items } 道题，共 { $ratings } 次评分；最后一轮每道题都是 ✅。
review-again-note = ⚠/❌ 的题每轮都会再评，直到 ✅。
review-more-waiting = 另有 { $count } 道评为 ⚠/❌ 的题尚未到期。下一步：按 m 现在复习。
review-none-waiting = 没有等待中的 ⚠/❌ 题。下一步：Esc 返回；可从首页做测验（z）。
review-retention-note = 目标保持率 { $retention }（+/- 调整）：FSRS 会在你回忆起某题的概率降到这一水平时安排复习。
