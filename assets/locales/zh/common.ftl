# 多个界面共用的词和计数。
count-items = { $count } 道题
lang-switched = 语言：{ $name }（F2 切换）
lang-missing = 这份内容没有{ $name }译本。

# 阅读器里显示的项目内链接（跟在“→ ”之后）。
link-drill = 演练：{ $title }
link-exercise = 练习：{ $title }
link-quiz = 测验：{ $title }
link-quiz-level = 测验：{ $title }（{ $level }）
link-sheet = 速查表：{ $title }
link-section = { $title } § { $section }

# 演练运行的结局（日志、进度条、命令行）。
status-passed = 所有断言成立
status-claims-failed = 有断言未成立
status-cancelled = 已取消
status-failed = 失败：{ $reason }
outcome-finished = 用时 { $secs } 秒完成：{ $status }
outcome-cancelled = 运行 { $secs } 秒后取消
outcome-failed = 运行 { $secs } 秒后失败：{ $reason }
# agentlab 读取和加锁的文件。
fs-not-regular = { $path } 是{ $what }，不是普通文件：agentlab 在那里只读写普通文件
fs-too-large = { $path } 超过 { $limit } 字节，超出 agentlab 读取的上限
fs-lock-busy = 另一个 agentlab 锁住 { $path } 已 { $secs } 秒（它正在保存同一个文件）
fs-kind-fifo = 命名管道（FIFO）
fs-kind-socket = 套接字
fs-kind-device = 设备文件
fs-kind-dir = 目录
fs-kind-other = 其他类型的文件
