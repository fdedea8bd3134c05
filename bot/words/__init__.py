"""The catalogs and the vocabulary: i18n (gettext catalogs in bot/locales, the language speaking now),
words (names of cards, points, spaces and provinces, counts, refusals by code, event lines, ``Speaker``),
the slash commands' names in every language (translator) and the tutorial's lessons (pure, with their
sentences). Nothing here knows a table or a post: the sentences about a game are in bot.texts. It imports
only bot.process."""
