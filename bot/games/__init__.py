"""A game as the bot keeps it: the table (tables: finding, loading, a bounded cache, per-game locks), the
facts of a game's options (seat_rules: pauses, vacations, hints, rated or not), its timing (schedule:
reminders and deadlines), computer seats (computers) and where they think (thinking), and its pictures
drawn off the event loop (pictures). It imports bot.process and bot.words; it says nothing and sends
nothing itself."""
