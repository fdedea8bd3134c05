"""Every sentence about a game a player reads, each a message of the catalogs: texts (split in the next
commit) and the worded choices of menus and autocomplete (choices). It imports bot.process, bot.words and
bot.games."""
