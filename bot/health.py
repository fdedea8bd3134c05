"""``python -m bot.health``, kept for hosts whose own compose files still run it (the image's health check
before issue 31); the check itself is bot.process.health, which the image and compose files now run."""

from __future__ import annotations

import sys

from .process.health import main

if __name__ == "__main__":
    sys.exit(main())
