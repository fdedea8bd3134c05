"""The one path of every change and what it owes the outside world: the pipeline (find, seat and version,
parse, apply, one commit), the duties a commit writes, and the worker that delivers them (deliveries, with
interaction lanes), the timers (reminders, deadlines, a computer's turn), direct-message notices, ratings and
replays. It imports bot.process, bot.words, bot.games and bot.texts, never the commands."""
