"""The process's plumbing, which knows no game: settings (config), health and the heartbeat, the run lock a
restore respects (runlock), backups and restores, Discord's limits on a message (limits), what Prometheus
reads (metrics) and the worker processes pictures and computers run in (render_pool). It imports no other
room of the bot, so every room may lean on it; a new setting goes in config.py."""
