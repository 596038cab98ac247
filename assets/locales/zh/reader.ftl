# 阅读器（速查表和演练的 README）。
reader-no-answer = 屏幕上没有可展开的答案
reader-no-search = 还没有搜索：按 /
reader-no-match = 没有找到“{ $query }”
reader-matches = 找到 { $count } 处“{ $query }”— n/N 移动
reader-select-first = 请先用 Tab 选中一个链接或答案
reader-contents = 目录
