# One quiz item being answered, graded and rated (Quiz and Review).
question-choose-letter = choose a letter a–{ $last }
question-select-one = select at least one choice with its letter, then Enter
question-only-number = only a number: '{ $char }' refused (digits . - e, or a fraction such as 1/16)
question-wrong-no-know = the answer was wrong, so it cannot be ✅: rate 2 ⚠ or 3 ❌
question-no-sheet = this item has no cheatsheet link
question-no-drill = this item has no drill
question-first-pass = First pass
question-pass-again = Pass { $pass } (⚠/❌ again)
question-pass-line = { $what }: { $items } · ✅ { $know } know · ⚠ { $fuzzy } fuzzy · ❌ { $dont } don't
question-rating-know = know
question-rating-fuzzy = fuzzy
question-rating-dont = don't
question-several = Several are correct: toggle with the letters, then Enter.
# $answer is empty while it is being typed (the field follows).
question-your-answer = Your answer: { $answer }
question-expected = Expected: { $value } (± { $tolerance })
question-order-prompt = Put the steps in order (first at the top):
question-your-order = Your order:
question-correct-order = Correct order:
# $notes is always empty: the notes follow in another style.
question-your-notes = Your notes: { $notes }
question-reference = Reference answer
question-correct = ✓ Correct
question-not-quite = ✗ Not quite
question-compare = Compare with your own answer, then rate yourself.
question-why = Why
# $links is always empty: the links follow.
question-see = See: { $links }
question-drill-fallback = drill: { $id }
question-you-rated = You rated it { $emoji } { $word } (saved).
question-back-to-result = back to the result
# $keys is always empty: the rating keys follow.
question-rate-yourself = Rate yourself: { $keys }
question-wrong-short = (wrong: no ✅)
question-toggle-choices = Toggle the correct choices (a–{ $last }), then Enter.
question-press-letter = Press the letter of your answer (a–{ $last }).
question-type-number = Type a number (0.25, 1/16, 1e-3) and press Enter.
question-order-help = ↑↓ select a step, J/K move it, Enter when the order is right.
question-open-help = Think (or type notes), then Enter to reveal the reference answer.
