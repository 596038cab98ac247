# The learner-facing commands' text output (sheets, quiz, review, exercise).
cli-sheet-stub = (being written)
# $sections and $items come padded to two columns.
cli-sheet-counts = { $sections } sections  { $items } quiz items
cli-item-head = { $header } · track { $track } · { $level } { $describe }
cli-item-label = item
cli-answer-several = answer (several are correct: letters such as a,c; a–{ $last })
cli-answer-letter = answer (a letter a–{ $last })
cli-answer-number = answer (a number)
cli-order-prompt = Put these steps in order:
cli-answer-order = order (the step numbers first to last, e.g. { $example })
cli-answer-open = your answer (any line; then the reference is shown)
cli-correct = ✓ correct
cli-wrong-answer = ✗ wrong: the answer is { $answer }
cli-wrong-order = ✗ wrong: the order is
cli-reference = reference answer:
cli-why = why: { $why }
cli-see = see: { $links }
cli-rate-wrong = rate yourself: 2 ⚠️ fuzzy · 3 ❌ don't (a wrong answer cannot be ✅)
cli-rate = rate yourself: 1 ✅ know · 2 ⚠️ fuzzy · 3 ❌ don't
cli-rate-no-know = the answer was wrong, so it cannot be ✅: type 2 or 3
cli-rate-keys = type 1, 2 or 3
cli-not-saved-yet = { $error }. Not saved yet: { $count } rating(s); each later save tries again
cli-pass-head = pass { $pass }: { $items } rated ⚠️/❌ come back
cli-ratings = { $count ->
    [one] { $count } rating
   *[other] { $count } ratings
}
cli-input-ended-saved = input ended: { $ratings } saved.
cli-input-ended-after = input ended after { $ratings }.
cli-score = score: { $right }/{ $graded } auto-graded correct · ✅ { $know } · ⚠️ { $fuzzy } · ❌ { $dont } · { $items }
cli-score-pass = pass { $pass }: ✅ { $know } · ⚠️ { $fuzzy } · ❌ { $dont }
cli-score-passes = score: { $right }/{ $graded } auto-graded correct on the first pass · { $items }, { $ratings } over { $passes } passes ({ $per })
cli-score-all = in all: ✅ { $know } · ⚠️ { $fuzzy } · ❌ { $dont } (a ⚠️/❌ item is rated again in each pass until it is ✅)
cli-progress-saved = progress saved in { $path }
cli-progress-not-saved = progress NOT saved: { $unsaved } of { $ratings } could not be written to { $path }{ $why }
cli-what-track-level = track { $track } · { $level }
cli-what-track = track { $track } · all levels
cli-what-level = all tracks · { $level }
cli-what-all = all tracks · all levels
cli-quiz-none = no quiz items match ({ $what })
cli-quiz-head = quiz: { $what } · { $items }. Answer each, then rate yourself 1/2/3.
cli-quiz-again = { $items } rated ⚠️/❌: `agentlab review --all` brings { $count ->
    [one] it
   *[other] them
} back now.
cli-ex-done = ✓ done
cli-ex-not-yet = ✗ not yet
cli-ex-pending = · pending
cli-ex-trains = (trains { $drill })
cli-ex-list-foot = { $done } of { $total } done · agentlab exercise show ID · agentlab exercise check ID
