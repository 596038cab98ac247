# Exercises: the list, one exercise, and the check's report (TUI and CLI).
exercise-list-title = Exercises · { $done } of { $total } done
exercise-list-intro = Write the algorithm in Rhai; it is checked against the lab's own code, and { $plugs } of them can train a drill. In a shell: agentlab exercise check ID (the ID is the first column).
exercise-track-head = track { $track } · { $title }
exercise-trains = → trains { $drill }
exercise-title = exercise { $id }
exercise-check-running = a check is already under way
exercise-no-checker = this build has no checker for this exercise
exercise-last-hint = that was the last hint: S shows a solution
exercise-solution-locked = the solution opens after the last hint ({ $shown } of { $total } shown) or once you pass
exercise-no-drill = this exercise is checked only: no drill trains with it
exercise-r-after-fail = R adds the quiz items to review after a failed check
# Markdown: [{ $sheet }] and [drill:…] are links.
exercise-taught-in = Taught in [{ $sheet }].
exercise-trains-drill = Trains [drill:{ $drill }] when you press `t`.
exercise-hint-head = Hint { $n }/{ $total }.
exercise-solution = A solution
exercise-checking = checking your file…
exercise-not-checked-hint = not checked yet: c checks your file (e edits it)
exercise-state-done = ✓ done
exercise-state-failed = ✗ not passed yet
exercise-state-unchecked = not checked yet
exercise-pane-title = { $title } · track { $track }
exercise-more-lines = ↓ { $count } more { $count ->
    [one] line
   *[other] lines
} (PgDn)
exercise-file = file: { $path }
exercise-your-code = your code (e edits it)
exercise-check = check
exercise-more = more: agentlab exercise check { $id }
exercise-pass = PASS  { $id }: all { $total } cases agree with the lab's implementation
exercise-fail = FAIL  { $id }: { $passed } of { $total } cases passed
exercise-first-failing = first failing case: { $case }
exercise-expected = expected: { $value }
exercise-got = got:      { $value }
exercise-printed = printed:
