"""The web face (issue 30): a page per game with a live board, its history and scores, and the host's
``/healthz`` and ``/metrics``, served by the bot's own process (aiohttp, which discord.py runs on).

``server.WebFace`` is the server; ``links`` the per-game secret links; ``history`` and ``pages`` what a page
reads (public views only); ``live`` the watchers and their updates; ``words`` the page's words.
"""

from .server import WebFace

__all__ = ["WebFace"]
