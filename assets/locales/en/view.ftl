# Drills while they run: phase names, log lines and teaching views shared by
# several drills. A drill's own texts are in view-<drill>.ftl.

## Phases (shown above the charts).
view-phase-data = data
view-phase-train = train
view-phase-evaluate = evaluate
view-phase-report = report
view-phase-sft = sft
view-phase-warm-start = warm start (SFT)

## Column headers.
view-col-prompt = prompt
view-col-target = target
view-col-model = model
view-col-completion = completion
view-col-gold = gold
view-col-kind = kind
view-col-measure = measure
view-col-value = value

## Log lines.
view-log-tiny-gpt = tiny GPT { $size }: d_model { $d }, { $layers } layers, { $heads } heads, { $params } parameters

## Between the items of a list in a log line.
view-list-sep = {", "}

## A check that a run's setup worked (not a claim).
view-setup-ok = setup ✓ { $what }
view-setup-failed = setup failed: { $what }: { $why }

## RL rollout speed, logged once at the end of a run (`who` is an arm's name, or none).
view-log-rollouts = { $who ->
        [none] RL rollouts
       *[other] RL rollouts, { $who }
    }: { $episodes } episodes, { $sampled } sampled tokens in { $secs } s ({ $eps_rate } episodes/s, { $tok_rate } tokens/s)
