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

# Errors for bad input, and loading.
cli-unknown-track = unknown track "{ $track }": use 0–7 or a slug such as agentic-rl
cli-unknown-level = unknown level "{ $level }": use L1, L2, L3 or all
cli-no-sheet = track { $track } has no sheet
cli-unknown-drill = unknown drill "{ $id }" (agentlab drill list shows them)
cli-drill-not-implemented = drill "{ $id }" is not implemented in this build
cli-set-expects = --set expects key=value, got "{ $got }"
cli-cannot-load-content = cannot load content: { $error }
cli-no-translation = this content has no { $lang } translation; English it is

# drill list / drill show
cli-drill-track = track { $track }
cli-drill-not-built = (not in this build)
cli-show-params = parameters (quick preset values):
cli-show-text-max = text ≤ { $max } chars
cli-show-one-of = one of { $choices }
cli-show-presets = presets: { $presets }
cli-show-claims = claims:
cli-show-claim-presets = (preset { $presets })
cli-show-use-head = train with your own function (exercises):
cli-show-use = your { $function } (agentlab exercise show { $id })

# drill run
cli-run-head = { $id } · preset { $preset } · seed { $seed } · { $device }
cli-run-step = step { $step }/{ $total }
cli-run-claim = claim
cli-result-observed = observed
cli-result-pass-caps = PASS
cli-result-pass = pass
cli-result-fail = FAIL
# The columns of the claims table (padded in the code).
cli-table-claim = claim
cli-table-measured = measured
cli-table-threshold = threshold
cli-table-result = result
cli-saved-in = saved in { $path }
cli-run-no-report = the run ended without a report
cli-predict-no-json = --predict asks its questions on the terminal; it does not go with --json
cli-predict-no-sets = --predict asks about preset { $preset } as declared; --set, --model and --use change the run, so its numbers would not answer them (run the preset as it is to predict)
cli-predict-none = { $id } asks no predictions for preset { $preset }
cli-predict-head = Predict before you run ({ $n } questions; Enter skips one, s skips the rest)
cli-predict-choice = your answer (1–{ $n }):
cli-predict-number = your answer (a number):
cli-predict-cancelled = the run was cancelled: your predictions stay open
cli-predict-yours = Your predictions
cli-predict-not-measured = you predicted { $answer } · not measured: the run ended before it
cli-predict-not-saved = predictions NOT saved: { $error }

# drill sweep
cli-sweep-head = sweep of { $id } · preset { $preset } · { $n } seeds ({ $seeds }) · { $jobs } at a time
cli-sweep-no-resume = --resume: no unfinished sweep of { $id } with preset { $preset }, these parameters and seeds { $seeds } (leave --resume out to start one)
cli-sweep-resuming = resuming { $path }: { $what } already done ({ $done } of { $n }); running { $running }
cli-sweep-no-seed = no seed
cli-sweep-one-seed = seed { $seed }
cli-sweep-seeds = seeds { $seeds }
cli-sweep-none = none
cli-sweep-row = seed { $seed } · { $secs } s · { $status } · { $values }

# export
cli-export-not-a-run = { $path } is neither a run directory (no metrics.jsonl) nor a sweep (a .json file under sweeps/<drill>/, or that folder): use a path that `agentlab drill run` or `agentlab drill sweep` printed
cli-export-chart-run = --chart picks among a sweep's band charts; a run's export draws every series
cli-export-incomplete = this run is incomplete ({ $note }); the export shows what was saved
cli-export-png-stdout = a PNG is not written to stdout (--out -): give a file name ending in .png, or use --svg or --csv, which --out - prints
cli-export-cannot-write = cannot write { $path }: { $error }
cli-export-takes = { $error }: export takes a run directory (with metrics.jsonl) or a sweep (a .json record under sweeps/<drill>/, or that folder)
cli-export-newest = the newest sweep in { $dir }: { $file }
cli-export-no-drill = { $file } is a sweep of "{ $drill }", which this lab has no drill of
cli-export-partial = this sweep is partial ({ $what }); the export shows the seeds it finished
cli-export-seeds-missing = seeds { $seeds } are left out: their runs' metrics.jsonl cannot be read
cli-export-no-seed = { $file }: no seed of this sweep finished with its metrics on disk: nothing to draw
cli-export-no-chart = no chart of this sweep matches --chart "{ $chart }" (its charts: { $charts })
cli-export-out-dir = { $path } is a directory: give a file name, e.g. { $example }
cli-export-wrong-ext = { $path } is a .{ $given } name but this writes { $kind }: use { $flag } for a .{ $given } file, or a name ending in .{ $ext }
cli-export-png-name = cannot write a PNG to { $path }: the file name must end in .png (--svg writes SVG, --csv writes CSV, to any name)
cli-export-no-parent = cannot write { $path }: the directory { $dir } does not exist (create it first, or choose another --out)

# model add / list
cli-model-cannot-add = cannot add { $source }: { $error }
cli-model-gguf = GGUF file
cli-model-hf = Hugging Face checkpoint
cli-model-added = added model { $name } ({ $what }, { $size }): { $path }
cli-model-replaced = replaced model { $name } ({ $what }, { $size }): { $path }
cli-model-use = use it: agentlab drill run { $drill } --model { $name }
cli-model-use-any = use it with --model { $name } on a drill that has a `model` parameter
cli-model-none = no models registered (in { $dir }): scripts/get-smollm2.sh downloads and adds SmolLM2-135M-Instruct; agentlab model add FILE.gguf|DIR [--name NAME] adds your own
cli-model-col-name = name
cli-model-col-kind = kind
cli-model-col-size = size
cli-model-col-path = path
cli-model-no-drill-yet = no drill of this content yet
cli-model-tiny-only = drill { $id } runs only the lab's tiny GPT; --model works with: { $with }
cli-model-twice = --model and --set { $param }=… both set the model: give one

# study --plan ($minutes comes padded to three columns where it starts a row)
cli-plan-no-track = no track "{ $track }" (0–7 or a slug, e.g. agentic-rl)
cli-plan-on-all = the tracks in order
cli-plan-on-track = track { $track }
cli-plan-head = A { $minutes }-minute session on { $on } (planned { $planned } min):
cli-plan-nothing = nothing: no review is due and the path is done
cli-plan-review = { $minutes } min  review { $count } due item(s)
cli-plan-left-out = ({ $count } more due item(s) left for later: review takes at most { $share }% of the time)
cli-plan-step = { $minutes } min  { $label } · track { $track }
cli-plan-paths = Study paths (steps done / steps, minutes left, next step):
cli-plan-no-path = no path
cli-plan-done = done
cli-plan-next = next: { $label } ({ $minutes } min)
cli-plan-path = { $done }/{ $total } · { $left } min left · { $next }

# review
cli-retention-not-saved = { $error }. The desired retention is NOT saved.
cli-retention-set = desired retention set to { $retention } (saved)
cli-review-nothing = nothing is due now.
cli-review-weak = { $count ->
    [one] { $count } ⚠️/❌ item is not yet due: `agentlab review --all` reviews it now.
   *[other] { $count } ⚠️/❌ items are not yet due: `agentlab review --all` reviews them now.
}
cli-review-extra = + { $count } ⚠️/❌ not yet due
cli-review-head = review: { $items } due now{ $extra } · desired retention { $retention }
cli-review-label = review
cli-review-more = { $count ->
    [one] { $count } more ⚠️/❌ item is not yet due: `agentlab review --all`.
   *[other] { $count } more ⚠️/❌ items are not yet due: `agentlab review --all`.
}

# Links in a quiz item's explanation, named the way the commands take them.
cli-link-section = sheet { $track }, § { $section }
cli-link-sheet-titled = sheet { $track } ({ $title })
cli-link-sheet = sheet { $track }
cli-link-drill = drill { $id }
cli-link-exercise = exercise { $id }
cli-link-quiz-level = quiz on track { $track }, { $level }
cli-link-quiz = quiz on track { $track }

# progress (column headers are padded in the code)
cli-progress-mastery = mastery = share of items mastered: right the first time or recalled a day or more after a miss, last rated ✅, not due (all: of the track's items, as on Home); a cell reads mastered/learning/items
cli-progress-col-track = track
cli-progress-col-all = all
cli-progress-col-due = due
cli-progress-col-drills = drills
cli-progress-col-exercises = exercises
cli-progress-col-time = time
cli-progress-col-predictions = predictions right
cli-progress-week = { $start } { $sessions } ({ $time })
cli-progress-weeks = study sessions per week (from Monday; { $sessions } in all): { $weeks }
cli-progress-due = due now: { $now } · next 7 days: { $week } (by day: { $days })
cli-progress-per-day = ratings per day (last { $days } days, ✅/⚠️/❌):
cli-progress-none-yet = none yet: `agentlab quiz --track 3 --level L1` is a good start
cli-progress-retention = desired retention { $retention } · state file { $path }

# --help in another language than English: the texts of the commands (cli-help-PATH,
# PATH the subcommand names joined by -) and of their options (cli-help-PATH--ID,
# else cli-help-arg-ID). The English --help is clap's, from the doc comments in
# src/main.rs; these English values only keep the languages' keys the same.
cli-help-heading-usage = Usage:
cli-help-heading-commands = Commands:
cli-help-heading-options = Options:
cli-help-heading-arguments = Arguments:
cli-help-default-value = {"["}default: { $value }]
cli-help = A terminal learning lab for LLM agent post-training
cli-help-help = Print this message or the help of the given subcommand(s)
cli-help-arg-help = Print help
cli-help-arg-version = Print version
cli-help-arg-subcommand = Print help for the subcommand(s)
cli-help-arg-content = Load cheatsheets, quizzes and drills from this directory instead of the embedded copy
cli-help-arg-lang = Language of the screens and the content: en or zh (default: AGENTLAB_LANG, else the language last chosen with F2 in the TUI, else the locale)
cli-help-arg-width = Wrap width, 20 to 1000; defaults to 100
cli-help-arg-device = auto, cpu, cuda or metal
cli-help-arg-json = Print the report as JSON
cli-help-arg-model = The model, for drills that take one: tiny, a name from `agentlab model list`, a FILE.gguf or a Hugging Face DIR (means --set model=SPEC)
cli-help-tui = Open the terminal UI (the default)
cli-help-sheets = List the cheatsheets
cli-help-sheet = Print a cheatsheet as rendered plain text (for pipes and pagers)
cli-help-sheet--track = Track number (0–7) or slug (e.g. `agentic-rl`)
cli-help-validate = Check every content file and report problems
cli-help-drill = List, describe and run drills headless
cli-help-export = Draw a saved run's charts, or a sweep's seed bands (PNG/SVG), or write them as CSV
cli-help-export--run_dir = A run directory (runs/<drill>/<timestamp>, as `drill run` prints), or a sweep: its record (sweeps/<drill>/<timestamp>.json, as `drill sweep` prints) or that folder (its newest)
cli-help-export--out = Output file (default: inside the run directory; beside a sweep's record)
cli-help-export--chart = A sweep: only the charts whose title or series contain this text (default: every chart)
cli-help-export--to = Export the experiment for an engine instead: hf, peft, trl or verl (RUN_DIR or a drill id; --out is a folder)
cli-help-export--force = With --to: replace a non-empty --out folder
cli-help-export--preset = With --to and a drill id: its preset (default quick)
cli-help-export--seed = With --to and a drill id: the seed (default 1)
cli-help-pretrain = Pretrain the lab's base model (shipped in assets/models/base; minutes on a CPU)
cli-help-pretrain--out = Where to write config.json, model.safetensors and tokenizer.json
cli-help-quiz = Take a quiz on stdin/stdout: one answer line per item, then a rating line 1/2/3
cli-help-quiz--track = Track number (0–7) or slug; all tracks when left out
cli-help-quiz--level = L1 (concept), L2 (implementation), L3 (research) or all
cli-help-quiz--limit = At most this many items (1 or more)
cli-help-review = Review the items due now (FSRS); ⚠️/❌ items come back after each pass
cli-help-review--retention = Set the desired retention (0.70–0.99, default 0.9) and save it
cli-help-review--all = Also review every ⚠️/❌ item that is not yet due
cli-help-study = A study session in the TUI: the review items due first, then the next steps of the track's study path that fit the minutes (see README, "Study sessions")
cli-help-study--minutes = Minutes the session may take (5 to 600)
cli-help-study--track = Track number (0–7) or slug; without it the tracks in order, from the first path not done
cli-help-study--plan = Print the plan and each track's next step, and exit (no TUI)
cli-help-progress = Mastery per track and level, drills passed, items due, ratings per day
cli-help-doctor = Report this build's features, the CPU and GPUs it sees, what `--device auto` picks, paths and threads
cli-help-model = Models for drills that take one (`--model`): add a GGUF file or a Hugging Face directory, list them
cli-help-exercise = Exercises: write an algorithm in Rhai, check it against the lab's code, train a drill with it
cli-help-bench = Measure training and generation speed and UI latency (JSON with --json)
cli-help-bench--only = Run one part only: S, M, L, gen-S, gen-M, gen-L or ui (with --model: lora, gen-b1 or gen-b8)
cli-help-bench--model = Bench a real model instead of the tiny GPT configs: LoRA training (batch 4 × 64) and greedy generation with the K/V cache (batch 1 and 8); a name from `agentlab model list`, smollm2, a FILE.gguf or a Hugging Face DIR
cli-help-bench--seconds = Seconds of timed training per config (more than 0, at most 3600)
cli-help-bench--profile = Where a training step of S and M (or --only's config) spends its time, phase by phase (CPU); with --model, a LoRA step and a decoding run of that model
cli-help-exercise-list = The exercises per track, done or pending
cli-help-exercise-show = The task of an exercise and where your file is (written from the stub the first time)
cli-help-exercise-hint = Hints 1 to N (all when N is left out)
cli-help-exercise-check = Check your function against the lab's implementation; exit 0 pass, 1 fail, 2 bad input
cli-help-exercise-check--file = The script to check (default: your file in the data directory)
cli-help-exercise-check--review = On a failed check, add the exercise's quiz items to review
cli-help-exercise-watch = Check your function now and again on every save of the file, until Ctrl-C
cli-help-exercise-watch--file = The script to watch (default: your file in the data directory)
cli-help-exercise-watch--checks = Stop after this many checks (default: never)
cli-help-model-add = Register a model under <data>/models/NAME: a GGUF file, or a Hugging Face directory (config.json, tokenizer.json, *.safetensors). Hard-linked when on the same filesystem, else copied; a model of the same name is replaced
cli-help-model-add--source = A .gguf file or a Hugging Face checkpoint directory
cli-help-model-add--name = The name to use it by (--model NAME); default: the file or directory name, lowercased
cli-help-model-list = The registered models: name, kind (gguf or hf-dir), size, path
cli-help-drill-list = List the drills
cli-help-drill-show = Parameters, presets and claims of a drill
cli-help-drill-run = Run a drill; exit 0 when every claim holds, 1 when one fails, 2 on bad arguments
cli-help-drill-run--preset = quick (CPU, ≤ 45 s) or full (bigger, for a GPU)
cli-help-drill-run--seed = A whole number ≥ 0
cli-help-drill-run--sets = Override a parameter: --set lr=1e-3 (repeatable)
cli-help-drill-run--uses = Train with your own function from an exercise: --use grpo-advantages=my.rhai (repeatable)
cli-help-drill-run--json = Print every event as a JSON line
cli-help-drill-run--predict = Answer the drill's predictions for the preset first (on stdin); after the run, what it measured for each (recorded in your progress)
cli-help-drill-sweep = Run a drill for many seeds; per claim: how often it held, mean, min and max. Exit 0 when every claim held on every seed, 1 otherwise, 2 on bad arguments
cli-help-drill-sweep--seeds = Seeds: a range (1-20), a list (1,4,9) or both
cli-help-drill-sweep--sets = Override a parameter for every seed: --set lr=1e-3 (repeatable)
cli-help-drill-sweep--jobs = Runs at a time, 1 to 64 (they share the CPU threads; results do not depend on it)
cli-help-drill-sweep--json = One JSON line per seed, then the whole sweep as JSON
cli-help-drill-sweep--resume = Continue the unfinished sweep of the same drill, preset, parameters and seeds (the same command without it does too; with it, nothing to continue is an error)
cli-run-models-not-kept = the models were NOT kept ({ $error }): the metrics and report are saved, but Try cannot open this run
cli-run-models-not-kept-either = the models were not kept either ({ $error })
cli-run-not-saved = NOT saved completely in { $path }
cli-validate-warning = warning: { $warning }
cli-validate-too-deep = { $file }: quotes, lists or <details> nested { $depth } levels deep; the reader draws { $max } (deeper levels show as the { $max }th)
cli-export-no-points = { $path } has no metric point this program can read ({ $unread } lines that are not events): nothing to export

## agentlab try, agentlab runs
cli-help-try = Ask a saved run's models something: the trained model(s) beside the one they started from, on the same input, in the drill's own task (one input per stdin line without --input)
cli-help-try--run = A run directory (runs/<drill>/<timestamp>, as `drill run` prints), or a drill id for its newest run
cli-help-try--arm = Only this arm (the ids `runs list` shows: warm-start, after-rl, …); default every arm
cli-help-try--input = The input (a question, a problem, a query); without it, one input per line of stdin
cli-help-try--samples = Samples per arm, 1 to 16 (default: the drill's)
cli-help-try--temperature = Sampling temperature, 0 (greedy) to 5 (default: the drill's)
cli-help-try--seed = A whole number ≥ 0: the same seed gives the same samples
cli-help-try--switches = A drill's switch: --switch attack=off (repeatable; prompt-injection's attack)
cli-help-try--logp = Also print each of the model's tokens with its log-probability
cli-help-try--json = One JSON object per input
cli-help-runs = Saved runs: list them with what they kept, prune older runs' weights, pin one, compare two
cli-help-runs-list = Every saved run (of one drill) with its preset, edits, status and the weights it kept
cli-help-runs-list--drill = Only this drill's runs
cli-help-runs-prune = Drop the weights of runs the keep rule does not keep (the 5 newest of each drill and the pinned ones keep theirs); configs, metrics and reports stay
cli-help-runs-prune--dry_run = Say what would be dropped, drop nothing
cli-help-runs-pin = Keep a run's weights whatever the keep rule says
cli-help-runs-unpin = Let the keep rule drop a pinned run's weights again
cli-help-runs-diff = Two runs side by side: what differs in how they were made, the claims with both values, the last values that differ
cli-try-no-run = { $spec } is neither a run directory nor a drill id
cli-try-no-runs = { $id } has no saved run yet: run it first (agentlab drill run { $id })
cli-try-no-arm = this run has no arm "{ $arm }" (arms: { $arms })
cli-try-bad-switch = --switch { $got }: give KEY=on or KEY=off (switches of this drill: { $keys })
cli-try-temperature = --temperature takes 0 (greedy) to 5, got { $got }
cli-try-head = Try { $run } · { $arms }
cli-try-examples = held-out examples: { $examples }
cli-runs-none = no saved runs in { $dir }
cli-runs-weights = weights: { $arms } ({ $size })
cli-runs-pruned = weights pruned
cli-runs-no-weights = no weights
cli-runs-pinned = pinned { $dir }: its weights are kept
cli-runs-unpinned = unpinned { $dir }: the keep rule may drop its weights
cli-runs-not-a-run = { $dir } is not a run directory
cli-prune-would = would drop { $dir }/models ({ $size })
cli-prune-dropped = dropped { $dir }/models ({ $size })
cli-prune-summary = { $dropped } run(s) dropped their weights ({ $freed }); { $kept } keep theirs ({ $size }): the { $newest } newest of each drill and the pinned ones
cli-help-try--timing = Say on stderr how long the first model token took and the model tokens per second
cli-try-timing = first model token after { $first } ms · { $tokens } model tokens in { $secs } s ({ $rate } tokens/s from Enter to the end; { $stream } tokens/s from the first token to the last, tool calls and observations included)
