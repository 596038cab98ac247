# The review screen.
review-nothing-more = no ⚠/❌ item is waiting: nothing more to review
review-more-added = { $n } ⚠/❌ item(s) not yet due added
review-retention-set = desired retention { $retention }: applies to the next ratings
review-not-saved = { $error }: { $n } rating(s) not saved yet (each later rating tries again)
review-from-more = not yet due (⚠/❌)
review-pass = pass { $pass } (⚠/❌ come back)
review-due-now = due now
review-badge = review { $pos }/{ $total }
review-status = { $what } · track { $track } { $title } · { $level } · retention { $retention }
review-heading = Review
review-nothing-due = Nothing is due now.
review-done = Done: { $items ->
        [one] { $items } item
       *[other] { $items } items
    } reviewed, { $ratings ->
        [one] { $ratings } rating
       *[other] { $ratings } ratings
    }; every item of the last pass is ✅.
review-again-note = A ⚠/❌ item is rated again in each pass until it is ✅.
review-more-waiting = { $count ->
        [one] { $count } item rated ⚠/❌ is not due yet.
       *[other] { $count } items rated ⚠/❌ are not due yet.
    } Next: m reviews them now.
review-none-waiting = No ⚠/❌ item is waiting. Next: Esc goes back; take a quiz from Home (z).
review-retention-note = Desired retention { $retention } (+/- to change): FSRS schedules each item for when your chance of recalling it falls to this level.
