"""What a message says and carries, about a game: the public posts a game's channel reads (posts, in the
game's language), what one person reads (private: answers to their interactions and their direct
messages, in their language), the worded choices of menus and autocomplete (choices) and the buttons and
menus a message carries (components, whose clicks go to bot.commands.router). Every sentence is a message
of the catalogs. It imports bot.process, bot.words and bot.games; the outbox and the commands use it."""
