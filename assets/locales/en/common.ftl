# Shared words and counts, used on several screens.
count-items = { $count ->
    [one] { $count } item
   *[other] { $count } items
}
lang-switched = Language: { $name } (F2 switches)
lang-missing = This content has no { $name } translation.

# Lab links as the reader shows them (after "→ ").
link-drill = drill: { $title }
link-exercise = exercise: { $title }
link-quiz = quiz: { $title }
link-quiz-level = quiz: { $title } ({ $level })
link-sheet = sheet: { $title }
link-section = { $title } § { $section }

# How a drill run ended (the log, the run gauge, the headless CLI).
status-passed = every claim holds
status-claims-failed = a claim failed
status-cancelled = cancelled
status-failed = failed: { $reason }
outcome-finished = finished in { $secs } s: { $status }
outcome-cancelled = cancelled after { $secs } s
outcome-failed = failed after { $secs } s: { $reason }
# Files the lab reads and locks.
fs-not-regular = { $path } is { $what }, not a regular file: the lab reads and writes only regular files there
fs-too-large = { $path } is larger than { $limit } bytes, more than the lab reads
fs-lock-busy = another agentlab kept { $path } locked for { $secs } s (it is saving the same file)
fs-kind-fifo = a FIFO
fs-kind-socket = a socket
fs-kind-device = a device
fs-kind-dir = a directory
fs-kind-other = something else
