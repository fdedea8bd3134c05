"""The maps shipped inside the package, each with a one-line description, for a choice at game creation.

Load one with ``engine.maps.packaged_map(name)``. Every map here is generated and documented by
tools/design_map.py, and its figures come from ``python -m engine simulate`` (docs/PLAYING.md, "Default map").
"""

from __future__ import annotations

DEFAULT_MAP = "empire"

PACKAGED_MAPS: dict[str, str] = {
    "empire": "Alexander's Empire: from Macedonia to the Indus, for 2 to 4 players (about 35 turns).",
    "aegean": "The Aegean: a small map for a quick game of 2 or 3 players (about 17 turns).",
}
