# Runs and sweeps (src/runner): what `agentlab drill run/sweep` and the drill screen tell the learner.

## Parameters and runs
run-no-param = drill { $id } has no parameter "{ $key }" (parameters: { $keys })
run-log-device = device: { $error }
run-log-your-function = your function: { $error }
run-log-training-with = training with your { $id } from { $file } (not the lab's built-in function)
run-ended-without-measuring = the drill ended without measuring: { $names }
run-panicked = the drill panicked: { $msg }
# $how is one of: interrupted, cancelled, failed (the zh text chooses by it).
run-incomplete-at = { $how ->
    [corrupt] its report.json cannot be read (corrupt; its metrics end at step { $step } of { $total })
   *[other] { $how } at step { $step } of { $total }
}
run-incomplete-start = { $how ->
    [corrupt] its report.json cannot be read (corrupt)
   *[other] { $how } before its first step
}
run-phase = ({ $phase })

## Predictions
run-choice = choice { $n }
run-verdict-right = you predicted { $answer } · measured { $measured } — right
run-verdict-wrong = you predicted { $answer } · measured { $measured } — wrong

## Sweeps
run-seeds-backwards = seeds: the range { $a }-{ $b } runs backwards
run-seeds-range-too-long = seeds: { $a }-{ $b } is more than 1000 seeds
run-seeds-none = seeds: give at least one seed, e.g. 1-20
run-seeds-too-many = seeds: { $n } seeds is more than 1000
# $how is one of: interrupted, cancelled.
run-sweep-partial = { $done } of { $total } seeds, { $how }
run-sweep-head = { $drill } · preset { $preset } · seeds { $seeds } · median { $median } s a run · { $total } s in all
run-sweep-incomplete = INCOMPLETE: { $what }
run-col-claim = claim
run-col-held = held
run-col-mean = mean
run-col-min = min
run-col-max = max
run-col-threshold = threshold
run-observation = (observation)
run-seed-status = seed { $seed }: { $status }
run-not-finished = runs that did not finish: { $runs }
run-cannot-write = cannot write { $path }
run-write-failed = writing { $path } failed: { $error }
run-not-saved = the run could not be saved completely ({ $why })
