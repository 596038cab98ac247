# 多个界面共用的词和计数。
count-items = { $count } 道题
lang-switched = 语言：{ $name }（F2 切换）
lang-missing = 这份内容没有{ $name }译本。
