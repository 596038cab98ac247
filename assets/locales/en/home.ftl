# Home: the tracks, the drills and the details pane.
home-resume-reading = reading track { $track }{ $title }
home-resume-drill = drill { $id }
home-resume-quiz = the track { $track } { $level } quiz
home-all-levels = all-levels
home-continue = Continue: { $place }
home-due = { $n } due
home-tracks-title = Tracks · % mastered
home-tracks-title-due = Tracks · % mastered · { $n } due for review (r)
home-drills = Drills
home-details = Details
home-track-heading = Track { $track } · { $title }
home-next-step = Next step (n):
home-step-minutes = { $label } · { $minutes } min
home-path = Path: { $done } of { $total } { $total ->
        [one] step
       *[other] steps
    } done · about { $left } min left · S: a { $session }-min session
home-path-done = Path done: all { $total } steps. S plans a review session.
home-cheatsheet-sections = Cheatsheet: { $count } sections
home-cheatsheet-stub = Cheatsheet: being written
home-no-cheatsheet = No cheatsheet yet.
home-start-here = New here? n starts track 0's first step; S plans a 30-minute session
home-mastery = Mastery: { $mastery } · { $levels }
home-study-time = Study time: { $time } · predictions right: { $right }
home-drills-none = Drills: none yet
home-drills-passed = Drills: { $passed } of { $total } passed
home-exercises-done = Exercises: { $done } of { $total } done (e opens them)
home-quiz-items = Quiz: { $count } items (L1 { $l1 } · L2 { $l2 } · L3 { $l3 })
home-quiz-none = Quiz: none yet
home-track-keys = Enter reads the cheatsheet; z takes its quiz; Tab moves to its drills.
home-claims = { $count ->
        [one] { $count } claim
       *[other] { $count } claims
    }
home-observations = { $count ->
        [one] { $count } observation
       *[other] { $count } observations
    }
home-drill-line = Track { $track } · { $counts } · { $params } parameters
home-observation = observation
home-presets = { $presets } { $count ->
        [one] preset
       *[other] presets
    }
home-drill-next = Next: Enter opens the drill.
