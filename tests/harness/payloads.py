"""Moved to ``bot.offline.payloads`` so that ``python -m bot console`` works from an installed package; this
name stays an alias of that module (the very same module object), so existing imports keep working."""

import sys

from bot.offline import payloads as _moved

sys.modules[__name__] = _moved
