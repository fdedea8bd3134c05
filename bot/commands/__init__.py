"""What players and admins do: the slash commands (cog), the buttons and selects (components), the router
that sends each to its handler, the handlers themselves, one module per kind of work (lobby, turns, guided,
provinces, info, practice, hints, tutorial, over_days, seats, privacy, history, watching, dashboard), and how
they answer (answers, context). It may import every room below it; nothing below imports it."""
