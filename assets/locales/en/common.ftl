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
