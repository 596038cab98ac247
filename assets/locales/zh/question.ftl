# 正在作答、评分、自评的一道测验题（测验和复习共用）。
question-choose-letter = 请选字母 a–{ $last }
question-select-one = 至少用字母选一项，再按 Enter
question-only-number = 只能输入数字：“{ $char }”无效（数字 . - e，或分数如 1/16）
question-wrong-no-know = 答错了，不能评 ✅：请评 2 ⚠ 或 3 ❌
question-no-sheet = 这道题没有速查表链接
question-no-drill = 这道题没有演练
question-first-pass = 第一轮
question-pass-again = 第 { $pass } 轮（⚠/❌ 重做）
question-pass-line = { $what }：{ $items } · ✅ 会 { $know } · ⚠ 模糊 { $fuzzy } · ❌ 不会 { $dont }
question-rating-know = 会
question-rating-fuzzy = 模糊
question-rating-dont = 不会
question-several = 有多个正确项：用字母勾选，再按 Enter。
# 输入时 $answer 为空（后面跟着输入框）。
question-your-answer = 你的答案：{ $answer }
question-expected = 正确答案：{ $value }（± { $tolerance }）
question-order-prompt = 把步骤排好顺序（第一步在最上面）：
question-your-order = 你的顺序：
question-correct-order = 正确顺序：
# $notes 总为空：笔记以另一种样式跟在后面。
question-your-notes = 你的笔记：{ $notes }
question-reference = 参考答案
question-correct = ✓ 正确
question-not-quite = ✗ 不太对
question-compare = 对照你自己的答案，然后自评。
question-why = 解析
# $links 总为空：链接跟在后面。
question-see = 参见：{ $links }
question-drill-fallback = 演练：{ $id }
question-you-rated = 你的自评：{ $emoji } { $word }（已保存）。
question-back-to-result = 返回结果
# $keys 总为空：评分键跟在后面。
question-rate-yourself = 自评：{ $keys }
question-wrong-short = （答错：不能评 ✅）
question-toggle-choices = 勾选正确选项（a–{ $last }），再按 Enter。
question-press-letter = 按下答案的字母（a–{ $last }）。
question-type-number = 输入一个数（0.25、1/16、1e-3），按 Enter。
question-order-help = ↑↓ 选步骤，J/K 移动，顺序对了按 Enter。
question-open-help = 先想一想（或记笔记），再按 Enter 显示参考答案。
