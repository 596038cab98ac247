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
