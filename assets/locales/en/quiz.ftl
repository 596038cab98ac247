# The Quiz screen (setup, asking, result).
quiz-level-all = all levels
quiz-level-all-short = all
quiz-level-l1 = concept
quiz-level-l2 = implementation
quiz-level-l3 = research
quiz-title = Quiz
quiz-title-running = Quiz · track { $track } · { $level }
quiz-no-items = track { $track } has no { $level } items yet
quiz-unsaved = { $error }: { $count } rating(s) not saved yet (each later rating tries again)
quiz-nothing-again = every item is ✅: nothing to go over again
quiz-review-is-r = Review is r (as on Home)
quiz-item-badge = item { $pos }/{ $total }
quiz-status = track { $track } { $title } · { $level } { $describe } · { $kind }
quiz-status-pass = pass { $pass } (⚠/❌ items)
quiz-missed-badge = missed item
quiz-missed-status = track { $track } · { $level } · { $kind } · as you answered it
quiz-kind-choice = choice
quiz-kind-numeric = numeric
quiz-kind-order = order
quiz-kind-open = open
quiz-panel-track = 1. Track
quiz-panel-level = 2. Level
quiz-setup-summary = Track { $track } · { $level } · { $items }.
quiz-setup-next = Next: Enter starts the quiz.
quiz-done-title = Quiz done · track { $track } · { $level }
quiz-auto-graded = Auto-graded: { $right }/{ $graded } correct on the first pass.
quiz-auto-graded-open = Auto-graded: { $right }/{ $graded } correct on the first pass ({ $open } you rated yourself).
quiz-open-items = { $count ->
    [one] { $count } open item
   *[other] { $count } open items
}
quiz-ratings = { $count ->
    [one] { $count } rating
   *[other] { $count } ratings
}
quiz-ratings-all = { $items } in all, { $ratings } saved: a ⚠/❌ item is rated again in each pass until it is ✅.
quiz-saved = { $ratings } saved.
quiz-next-review = Next: r opens Review (it brings items back when they are due), p Progress, Esc back.
quiz-next-again = Next: a goes over the { $items } rated ⚠/❌ in this pass again (pass { $pass }) · r opens Review · Esc back.
quiz-none-missed = No item missed: every one was ✅ on the first pass.
quiz-missed-head = Missed on the first pass ({ $count }): ↑↓ choose, Enter reopens one
quiz-now = now { $rating }
quiz-shown = … { $shown } of { $total } shown (↑↓)
quiz-result = Result
