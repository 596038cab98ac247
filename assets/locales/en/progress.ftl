# The Progress screen (and the review screen's messages, prefix review-, in review.ftl).
progress-l1-wide = L1 concept
progress-l2-wide = L2 impl.
progress-l3-wide = L3 research
progress-l1-mid = L1 conc.
progress-l2-mid = L2 impl.
progress-l3-mid = L3 res.
progress-l1-narrow = L1 conc
progress-l2-narrow = L2 impl
progress-l3-narrow = L3 res.
progress-col-track = track
progress-col-all = all
progress-col-due = due
progress-col-drills = drills
progress-col-exercises = exer.
progress-col-time = time
progress-col-pred-right = pred. right
progress-mastery-scroll = Mastery · tracks { $first }–{ $last } of { $total } (↑↓ scroll)
progress-mastery-title = Mastery (█ mastered ▒ learning ░ not seen; all: the whole track, as on Home) · drills passed · exercises done
progress-sessions-title = Study sessions
progress-sessions-title-tab = Study sessions · Tab: due
progress-week = { $count ->
        [one] { $count } session
       *[other] { $count } sessions
    } · { $time }
progress-sessions-per-week = Sessions per week:
progress-none-yet = — none yet
progress-sessions-per-week-monday = Sessions per week (from Monday)
progress-due-now = Due now:
progress-next-7-days = Next 7 days: { $n }
progress-due-title = Due
progress-due-title-tab = Due · Tab: study
progress-ratings-title = Ratings per day (✅/⚠/❌)
progress-footer = Desired retention { $retention } · state file { $path }
progress-not-started = not started
progress-mastered = { $mastered } of { $items } items mastered ({ $pct }) · { $learning } learning · { $unseen } not seen
progress-counts = { $mastered } mastered · { $learning } learning · { $unseen } not seen
# The progress file: why it was refused (after its name), and what happens then.
progress-store-not-json = is corrupt (not valid JSON: { $error })
progress-store-newer = was written by a newer agentlab (format { $version }; this build reads { $reads })
progress-store-bad-format = is corrupt (it does not match the progress format: { $error })
progress-store-out-of-range = is corrupt (a value is out of range: { $error })
progress-store-unreadable = cannot read { $path }: { $error }. It is left as it is, and ratings given in this session are saved to { $side } instead (make the file readable again to go on with it)
progress-store-set-aside = { $why }. It was kept as { $aside } and a fresh one starts.
progress-store-not-moved = { $why }, and it could not be moved aside ({ $error }): this session saves to { $elsewhere }
progress-store-saving = saving progress to { $path }
progress-store-cannot-merge = cannot read it to add this session's answers ({ $error }); it is left as it is
progress-store-changed = { $why } (it changed after this session opened it); it is left as it is
progress-store-newer-kept = { $why }. It is left as it is, and this build writes nothing to it: use the newer agentlab (answers given here are not saved)
progress-store-read-only = not saved: { $why }
progress-store-refused = a change was refused because the file would then fail its own check ({ $why }); nothing on disk was lost
progress-store-record-repaired = { $why } → repaired: { $how }
progress-store-record-left-out = { $why } → left out
progress-store-records-more = and { $count } more
progress-store-repaired = { $file }: { $count ->
    [one] one record
   *[other] { $count } records
} did not pass the check ({ $records }); the rest of your history loaded. The records as they were are kept in { $side }.
progress-store-repaired-unwritten = { $file }: { $count ->
    [one] one record
   *[other] { $count } records
} did not pass the check ({ $records }); the rest of your history loaded and the records as they were are kept in { $side }, but the repaired file could not be written ({ $error }): the next save tries again.
progress-store-repair-not-kept = { $file }: { $count ->
    [one] one record
   *[other] { $count } records
} did not pass the check ({ $records }). They could not be kept aside ({ $error }), so the file is left as it is; this session shows the rest of your history, and each save tries again.
# Answers that cannot be graded (quiz and review input).
progress-grade-type-letter = type a letter a–{ $last } (several: a,c)
progress-grade-not-a-choice-number = { $k } is not a choice: use a–{ $last } or 1–{ $n }
progress-grade-not-a-choice-letter = "{ $c }" is not a choice: use letters a–{ $last }
progress-grade-type-number = type a number, e.g. 0.5
progress-grade-not-a-number = "{ $input }" is not a number: type e.g. 0.5, -1, 1e-3 or a fraction such as 1/16
progress-grade-finite = the answer is a finite number
progress-grade-no-percent = write the number without %, e.g. 0.25 rather than 25%
progress-grade-divides-by-zero = "{ $input }" divides by 0
progress-grade-order-hint = give all { $n } steps in order, e.g. { $digits } or { $letters }
progress-grade-not-a-step-number = { $k } is not a step number (1–{ $n }); { $hint }
progress-grade-not-a-step = "{ $p }" is not a step; { $hint }
progress-grade-twice = step { $k } appears twice; { $hint }
progress-grade-count = { $given } of { $n } steps given; { $hint }
progress-rating-know = know
progress-rating-fuzzy = fuzzy
progress-rating-dont = don't
progress-retention-range = desired retention must be between { $low } and { $high }, got { $got }
