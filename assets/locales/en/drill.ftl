# The drill screen (src/tui/screens/drill*, widgets chart, claims, bar).

## Tabs and panes
drill-tab-charts = Charts
drill-tab-views = Views
drill-tab-log = Log
drill-tab-runs = Runs
drill-tab-sweep = Sweep
drill-title = drill { $id }
drill-preset-edited = { $preset }, edited: { $keys }
drill-with-yours = with your { $ids }

## Status line: where the shown run comes from
drill-src-last-preset = { $last } ({ $preset }) · s starts a new one
drill-src-last = { $last } · s starts a new one
drill-src-saved-preset = saved run { $name } ({ $preset })
drill-src-saved = saved run { $name }
drill-src-live = live run
drill-src-last-run = last run
drill-src-reading = reading the last run…
drill-src-none = no run yet: s starts one
drill-track-preset = track { $track } · preset { $preset }
drill-last-run = last run: { $when } · { $how }
drill-readme-more = … (r: README)

## Run status words
drill-status-passed = passed
drill-status-claim-failed = claim failed
drill-runs-held = { $held }/{ $total } held
drill-status-cancelled = cancelled
drill-status-error = error
drill-status-interrupted = interrupted
drill-claims-failed = { $count ->
    [one] 1 claim failed
   *[other] { $count } claims failed
}

## Claims panel
drill-claims-title = Claims
drill-claims-title-log = Claims · all in 3 Log
drill-claim-was = (was { $value })
drill-claim-observed = { $value } observed ({ $threshold })
drill-claim-not-measured = not measured: the run ended first ({ $threshold })
drill-claim-pending-observation = pending observation ({ $threshold })
drill-claim-pending = pending ({ $threshold })
drill-claim-why = what the claim shows: { $why }
drill-claims-hidden = hidden until this preset's predictions are answered or skipped (s asks them): their texts and thresholds would give the answers away
drill-claim-hidden = claim { $n }

## Config panel
drill-seed-label = seed
drill-sweep-seeds-label = sweep seeds
drill-function-label = function
drill-fn-yours = yours: { $id } (u)
drill-fn-lab = the lab's (u: yours)
drill-seed-help = random seed of data, init and sampling
drill-sweep-seeds-help = S sweeps seeds 1–N (N ≤ { $max })
drill-more-below = ↓ { $below } more
drill-more-above = ↑ { $above } above
drill-more-both = ↑ { $above } above · ↓ { $below } more
drill-config-title = Config · { $preset }
drill-config-title-edited = Config · { $preset }, { $n } edited
drill-config-seed = seed { $seed }

## Charts tab
drill-charts-waiting = waiting for the first metric points…
drill-charts-failed = The run failed before its first metric point: { $error }
drill-charts-ended = The run ended ({ $status }) before its first metric point.
drill-charts-empty-saved = Run { $name } saved no metric points: it was stopped before its first step.
drill-charts-none = No run yet. Press s to start the drill with the configuration on the left.
drill-smooth-raw = raw
drill-smooth-keys = { $smooth } (m, + -)
drill-x-one = x { $x } (w)
drill-x-per-chart = x per chart (w: time)
drill-page = page { $page }/{ $pages } ([ ])
drill-y-log = y log (L)
drill-y-linear = y linear (L)
drill-grey-last-passing-seed = grey = last passing run of seed { $seed }
drill-grey-previous = grey = previous run
drill-grey-last-passing = last passing run
drill-grey-previous-run = previous run
drill-chart-ema = EMA { $shown } · last { $last }
drill-chart-grey = grey: { $what }

## Views, log, runs tabs
drill-views-empty = Teaching views appear here while the drill runs: trajectories token by token, sample tables.
drill-token-prompt = prompt
drill-token-trained = trained
drill-token-masked = masked
drill-token-injected = injected
drill-log-scrolled = Log { $at }/{ $n } (scrolled: ↓ to the end to follow)
drill-log-following = Log ({ $count ->
    [one] { $count } line
   *[other] { $count } lines
}, following)
drill-runs-empty = No saved runs of this drill yet.
drill-runs-title = Runs (↑↓ choose, Enter opens)
drill-runs-title-short = Runs (↑↓, Enter)
drill-runs-edited = { $preset }, edited
drill-col-run = run
drill-col-preset = preset
drill-col-seed = seed
drill-col-status = status
drill-col-claims = claims
drill-col-time = time

## Gauge
drill-gauge-finished = finished in { $secs } s: { $failed }
drill-gauge-why = what each claim shows under its ✗
drill-gauge-break = b: break a claim on purpose
drill-gauge-interrupted = interrupted at step { $step } of { $total } ({ $phase })
drill-gauge-stopped = the process stopped before the run ended
drill-gauge-step = { $phase } · step { $step }/{ $total }
drill-gauge-eta = ETA { $secs } s
drill-gauge-starting = { $phase } · starting…
drill-gauge-idle = idle · s starts a run

## Log lines
drill-log-started = ▶ started · preset { $preset } · seed { $seed } · { $device }
drill-log-observed = observation { $id }: { $value } { $op } { $threshold } → observed
drill-log-pass = claim { $id }: { $value } { $op } { $threshold } → pass
drill-log-fail = claim { $id }: { $value } { $op } { $threshold } → FAIL
drill-log-why = ✗ { $id } — what the claim shows: { $why }
drill-log-prediction = prediction { $id }: { $verdict }

## Messages (status line)
drill-busy-use = a { $what } is going: x cancels it, then u picks the function
drill-busy-sweep = a { $what } is already going: x cancels it, then S starts a sweep
drill-busy = a { $what } is already going: x cancels it
drill-locked = parameters are locked while a { $what } is going
drill-no-plug = no exercise plugs into this drill
drill-use-lab = training with the lab's own functions
drill-no-data-dir = no data directory: { $error }
drill-reading-yours = reading your { $id }…
drill-reading-yours-wait = reading your { $id }… start the run once it is read
drill-use-write-first = write your { $id } first: e on Home opens the exercises
drill-use-cannot = cannot train with your { $id }: { $error }
drill-use-passes = it passes its check
drill-use-fails = it FAILS its check: watch what that does
drill-use-ready = s starts a run with your { $id } ({ $verdict }); u switches back to the lab's
drill-reading-last-sweep = reading the last sweep…
drill-job-died = { $what } stopped without a result
drill-showing-saved = showing saved run { $name } (s starts a new run)
drill-pred-not-measured = you predicted { $answer } · not measured: the run ended before it (asked again next time)
drill-sweep-worker-died = the sweep's worker stopped without a summary
drill-sweep-saved = sweep { $phase }: saved in { $path }
drill-sweep-nothing-saved = sweep cancelled before a seed finished: nothing saved
drill-sweep-save-failed = sweep { $phase }, but saving it failed: { $error }
drill-sweep-stopped = the sweep stopped: { $error }
drill-not-implemented = { $id } is not implemented in this build yet
drill-looking-for-sweep = looking for an unfinished sweep to continue…
drill-sweep-started = sweep of seeds 1–{ $n } started: one run after another (x cancels)
drill-sweep-resumed = sweep of seeds 1–{ $n } resumed: seeds { $seeds } already done ({ $done } of { $n }), the rest one after another
drill-sweep-cannot-start = cannot start the sweep: { $error }
drill-pred-edited = predictions are about preset { $preset } as declared; edited here: { $keys } (p switches to a preset as declared)
drill-no-predictions = no predictions for preset { $preset }: s starts the run
drill-started-predictions = started: your { $count ->
    [one] prediction
   *[other] { $count } predictions
} meet the measured values when the run ends (x cancels)
drill-no-breakers = { $id } declares no breaking settings for its claims (preset { $preset }): edit a parameter and s runs it
drill-cannot-apply = cannot apply { $setting }: { $error }
drill-breaking-with = breaking { $claim } with { $setting } (seed { $seed }): grey and "was" are the passing run { $run }
drill-breaking-alone = breaking { $claim } with { $setting } (seed { $seed }): no passing run of this seed to compare with yet
drill-reading-run = reading run { $name }…
drill-started = started: charts update as the model trains (x cancels)
drill-cannot-start = cannot start: { $error }
drill-cancelling-sweep = cancelling the sweep… the run under way stops at its next step
drill-cancelling = cancelling… the run stops at the next step
drill-nothing-running = nothing is running
drill-sweeps-seeds = S sweeps seeds 1–{ $n }
drill-no-such-param = no such parameter
drill-nothing-to-export = no run to export yet: s starts one
drill-exporting = exporting the charts to PNG…
drill-exported = exported { $path }
drill-exported-live = exported { $path } (so far: the run is going)
drill-exported-partial = exported { $path } (partial: { $note })
drill-export-failed = export failed: { $error }
drill-exporting-to = exporting the run for { $engine }…
drill-exported-to = exported for { $engine }: follow { $path }
drill-cannot-read = cannot read { $path }: { $error }
drill-sweep-tab-bands = Sweep tab: seed bands (b: tables)
drill-sweep-tab-tables = Sweep tab: claim and seed tables (b: bands)
drill-preset-reset = preset { $preset }: parameters reset to its values
drill-enter-edits = Enter edits a parameter: Tab moves the focus to the config
drill-run-going-esc = a run is going: x cancels it, then Esc goes back
drill-no-bands = no seed bands: a sweep's finished runs draw them

## Quitting with a run or sweep under way
drill-quit-sweep-saved = sweep of { $id } cancelled; the seeds done are saved in { $path }
drill-quit-sweep-nothing = sweep of { $id } cancelled before a seed finished: nothing saved
drill-quit-sweep-error = sweep of { $id }: { $error }
drill-quit-sweep-stuck = sweep of { $id } cancelled; it had not stopped when agentlab quit
drill-quit-run-cancelled = run of { $id } cancelled: saved in { $dir }
drill-quit-run-ended = run of { $id } ended ({ $status }): saved in { $dir }
drill-quit-run-stuck = run of { $id } cancelled; it had not stopped when agentlab quit ({ $dir })

## Predictions and the `b` list
drill-pick-range = pick 1 to { $n }
drill-only-number = only a number: '{ $c }' refused (digits . - e, or a fraction such as 1/16)
drill-your-answer = your answer:
drill-number-help = a number: 0.25, 1e-3 or a fraction such as 1/16
drill-ask-keys-choice = ↑↓ or 1–{ $n } choose · Enter answers · Tab skips · Esc skips all and runs
drill-ask-keys-number = Enter answers · Tab skips · Esc skips all and runs
drill-predict-title = Predict before you run · { $at } of { $n } · { $preset }
drill-outcomes-title = Your predictions · Enter closes
drill-breaking-title = Break a claim · Enter runs it · Esc closes

## Sweep tab
drill-phase-running = running
drill-phase-cancelling = cancelling…
drill-phase-cancelled = cancelled
drill-phase-interrupted = interrupted
drill-phase-done = done
drill-phase-failed = failed
drill-sweep-intro = A sweep runs this configuration for seeds 1–{ $n } and shows how often each claim holds. Variance across seeds is part of RL: a claim that holds for one seed may fail for the next. Press S to start (about { $n } × the run time).
drill-sweep-preset = preset { $preset }
drill-sweep-seeds = seeds { $done }/{ $total }
drill-sweep-elapsed = { $time } elapsed
drill-sweep-median = median { $secs } s a run
drill-sweep-partial = partial: { $what }
drill-sweep-resumes = S resumes
drill-sweep-saved-name = saved { $name }
drill-col-claim = claim
drill-col-held = held
drill-col-mean = mean
drill-col-min = min
drill-col-max = max
drill-col-threshold = threshold
drill-col-wall = wall s
drill-observation-mark = (observation)
drill-per-seed-none = per seed: none finished yet
drill-per-seed = per seed · { $from }–{ $to } of { $n } (↑↓ scroll)
drill-more-columns = { $n } more column(s) off the edge
drill-sweep-title-bands = Sweep · b bands
drill-sweep-title-chart-tables = Sweep · ←→ chart · b tables
drill-sweep-title-tables = Sweep · b tables
drill-sweep-title-chart-hide = Sweep · ←→ chart · b hide bands
drill-sweep-title-hide = Sweep · b hide bands
drill-band-chart = chart { $i }/{ $n } (←→)
drill-band-chart-which = chart { $which }
drill-band-mean = line mean
drill-band-sd = ⢕ ±1 sd (population)
drill-band-sd-short = ⢕ ±1 sd (pop.)
drill-band-range = ⠁ min–max
drill-band-seeds = { $n } seeds
drill-band-missing = ({ $n } without metrics)
drill-sweep-gauge = sweep { $phase } · { $done }/{ $total } seeds done
drill-sweep-left = about { $time } left

## Mastery bar
drill-not-started = not started
drill-status-corrupt = report unreadable
