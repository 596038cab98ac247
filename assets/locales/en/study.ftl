# The study session: plan, stops, summary.
study-review-stop = Review { $count } due { $count ->
        [one] item
       *[other] items
    }
study-stop-with-track = { $label } · track { $track }
study-title-plan = Study session · plan
study-title-going = Study session · { $k } of { $n }
study-title-summary = Study session · summary
study-bar = session · step { $k } of { $n } · { $used } of { $of } min
study-bar-narrow = step { $k }/{ $n } · { $used }/{ $of } min
study-nothing-to-plan = nothing to plan: no review is due and the path is done
study-skipped = skipped: { $label }
study-done = done: { $label }
study-not-done = not done yet: Enter goes back to it, n skips it
study-all-tracks = the tracks in order
study-track = track { $track }
study-plan-head = { $minutes } min on { $on } · planned { $planned } min
study-left-out = { $count } more due { $count ->
        [one] item
       *[other] items
    } left for later (the review takes at most { $share }% of the time)
study-nothing-to-do = Nothing to do: no review is due and this path is done. Try another track.
study-min = min
study-plan-keys = Enter starts · + / - change the minutes · Esc back
study-going-keys = Enter opens the current stop; come back with Esc and the session moves on when it is done · n skips · x ends
study-minutes-used = { $n } min used
study-over = Session over · { $took } of { $planned } min planned
study-steps = Steps: { $done } done, { $skipped } skipped
study-rated = Quiz and review: { $count ->
        [one] { $count } item
       *[other] { $count } items
    } rated
study-exercises-passed = Exercises passed: { $n }
study-drills-none = Drills run: none
study-drills-run = Drills run:
study-drill-held = { $id } · { $held } of { $total } claims held
study-predictions-none = Predictions: none made
study-predictions = Predictions: { $right } of { $n } right
study-track-time = track { $track } { $time }
study-time = Time: { $list }
study-saved = Saved to your progress (p shows sessions per week). Enter: Home.
# Study-path steps.
study-step-read = Read §{ $title }
study-step-quiz = { $level } quiz ({ $count } { $count ->
        [one] item
       *[other] items
    })
study-step-exercise = Exercise: { $title }
study-step-drill = Drill: { $id } (quick preset)
# Issue 56: sessions that fill their time and follow the reading.
study-step-quiz-read = { $level } quiz ({ $count } of { $all } items: the sections read)
study-offer-one = Planned steps done, { $left } min left · Enter continues: { $first } · x ends
study-offer = Planned steps done, { $left } min left · Enter continues: { $first } and { $more } more · x ends
study-untouched-before = Not started yet: tracks { $tracks }, which track { $track } builds on
