# The reader (cheatsheets and drill READMEs).
reader-no-answer = no foldable answer on screen
reader-no-search = no search yet: press /
reader-no-match = no match for "{ $query }"
reader-matches = { $count ->
        [one] { $count } match
       *[other] { $count } matches
    } for "{ $query }" — n/N to move
reader-select-first = select a link or an answer with Tab first
reader-contents = Contents
