# turn-credit-assignment
view-tca-warm-start = warm start
view-tca-after-rl = after RL
view-tca-phase-rl = RL
view-tca-phase-probe = probe
view-tca-log-closed = mean reward on the evaluation questions: { $before } → { $after } of a best possible { $best }: RL closed { $closed }% of the gap
view-tca-known-real = whose capital the model already knows
view-tca-known-learned = the warm start learns by heart
view-tca-log-data = { $known } places { $which }, { $unknown } that need a search; reward = { $correct }·correct + { $format } format − { $cost }·searches
view-tca-log-real-known = asked plainly, the untrained model names the capital of { $known } of { $total } real countries: { $list }
view-tca-known = known
view-tca-needs-search = needs a search
view-tca-log-example = { $when }, { $what } ({ $entity }, truth { $truth }): { $text }
view-tca-describe = { $when }: mean reward { $reward }, accuracy { $accuracy } (from memory on known places { $memory }), searches per episode { $known } on known places and { $unknown } on the others
view-tca-before-after-title = Before and after RL ({ $episodes } sampled episodes each)
view-tca-col-reward = mean reward
view-tca-col-accuracy = accuracy
view-tca-col-memory = memory
view-tca-col-searches-known = searches, known
view-tca-col-searches-others = searches, others
view-tca-log-grad = largest |∂loss/∂logit| at observation positions: { $obs }; at agent positions: { $agent }
view-tca-episode-title = An RL episode: per-token advantage
view-tca-episode-legend = agent tokens coloured by their advantage (green > 0, red < 0); observation tokens struck through: masked, no gradient
