# Shared words and counts, used on several screens.
count-items = { $count ->
    [one] { $count } item
   *[other] { $count } items
}
lang-switched = Language: { $name } (F2 switches)
lang-missing = This content has no { $name } translation.
