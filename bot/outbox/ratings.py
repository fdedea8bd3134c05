"""Ratings per server (issue 16): openskill's Plackett–Luce model, updated once at each game's end.

Who is rated, and how:
- A game is rated when it **finished** (R10: a levy reached the winning score, the supply ran out, every
  player but one resigned, or the players agreed to end it, P3) in a server. An **abandoned** game is not.
- The **ranks** are the final ones: the players still in the game by score, highest first, tied scores
  sharing a rank (D9); every player who resigned shares the last rank.
- **Computer players are not rated**: a seat the computer was playing for when the game ended (marked
  absent after a missed deadline at an autoplay table, and not back) is left out, and the others are rated
  among themselves. The pipeline records those users in the game's metadata (``computer_users``) in the
  commit that ends the game, so a recomputation later decides the same way.
- Fewer than two rated players left: the game is not rated.
- A practice game, or a game played with the ``hints`` option, is not rated (issue 29).
- A player forgotten since (forget-me puts a pseudonym in their seat) is kept in a recomputation as an
  anonymous player at the starting rating, so the others' results stay as they were; no rating is kept
  for them. A recomputation knows only the games still stored: purged games no longer count
  (docs/PLAYING.md, "Ratings").

Exactly once: the commit that ends a game also writes a ``rate`` duty (the outbox, bot.outbox.duties). The
delivery worker hands it to ``Ratings.handle``, which calls the store's ``rate_game``: it reads the players'
ratings, applies the model and marks the game rated, all in one transaction, and does nothing for a game
already rated. A crash before the duty is finished only means the duty runs again and finds the game rated;
a crash before the game's commit means neither happened. Rating in the game's own commit would have put
the model inside the engine's hot path and a server-wide lock inside every game's last action.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from openskill.models import PlackettLuce

from engine.rules import active_players
from engine.state import GameState
from storage import Duty, GameRecord, GameStore, NewDuty, PlayerRating, RateFn

from ..games.computers import is_computer
from ..games.seat_rules import is_rated_table
from ..games.tables import Tables

log = logging.getLogger("bot.outbox.ratings")

RATE = "rate"  # the duty kind
META_COMPUTER = "computer_users"  # [user ids] the computer played for when the game ended

MODEL = PlackettLuce()
MU = MODEL.mu
SIGMA = MODEL.sigma


@dataclass(frozen=True)
class Placement:
    """One rated player of one game: rank 1 is first; ``won`` (R10.3, D9)."""

    user_id: int
    rank: int
    won: bool
    # A player forgotten since (forget-me: a pseudonym in the seat): still in the game's model, from the
    # default rating, so the others' results stay what they were; their own rating is not kept.
    forgotten: bool = False


def final_ranks(state: GameState) -> dict[int, int]:
    """Rank by seat: players still in by score (ties share a rank, D9), then every resigned one."""
    playing = active_players(state)
    scores = sorted((state.players[s].score for s in playing), reverse=True)
    ranks = {s: 1 + scores.index(state.players[s].score) for s in playing}
    last = len(playing) + 1
    for seat, p in enumerate(state.players):
        if p.resigned:
            ranks[seat] = last
    return ranks


def placements(record: GameRecord, state: GameState | None, meta: Mapping[str, Any]) -> list[Placement]:
    """The rated players of a game and their ranks; empty when the game is not rated (see the module)."""
    if record.status != "finished" or record.guild_id is None or state is None or not state.over:
        return []
    if not is_rated_table(record.options):
        return []
    computer = {int(u) for u in meta.get(META_COMPUTER) or ()}
    winners = set(state.result.winners) if state.result is not None else set()
    out = [
        Placement(uid, rank, seat in winners, forgotten=uid < 0)
        for seat, rank in sorted(final_ranks(state).items())
        for uid in [dict(record.seats).get(seat)]
        # computer seats have no Discord id, and the computer played for the absent
        if uid is not None and not is_computer(uid) and uid not in computer
    ]
    return out if len(out) >= 2 and any(not p.forgotten for p in out) else []


def rated(
    guild_id: int, places: Sequence[Placement], current: Mapping[int, PlayerRating | None], now: float
) -> list[PlayerRating]:
    """The players' new ratings after one game (openskill Plackett–Luce, ranks as placed)."""
    before = [current.get(p.user_id) for p in places]
    teams = [[MODEL.rating(mu=r.mu if r else MU, sigma=r.sigma if r else SIGMA)] for r in before]
    after = MODEL.rate(teams, ranks=[float(p.rank) for p in places])
    out = []
    for p, r, [new] in zip(places, before, after, strict=True):
        if p.forgotten:
            continue
        games, wins = (r.games, r.wins) if r else (0, 0)
        out.append(PlayerRating(guild_id, p.user_id, new.mu, new.sigma, games + 1, wins + p.won, now))
    return out


def rate_fn(guild_id: int, places: Sequence[Placement], now: float) -> RateFn:
    def rate(current: Mapping[int, PlayerRating | None]) -> list[PlayerRating]:
        return rated(guild_id, places, current, now)

    return rate


def end_duties(record: GameRecord, now: float) -> list[NewDuty]:
    """The duty that rates a game which just ended (written by the commit that ends it). No channel: a
    rating waits for no post, and no failing post waits for it."""
    if record.guild_id is None:
        return []
    return [NewDuty(RATE, now, None, payload={"game": record.id})]


class Ratings:
    """Rates finished games (the ``rate`` duty) and recomputes a server's ratings from its stored games."""

    def __init__(self, tables: Tables) -> None:
        self.tables = tables
        self.store: GameStore = tables.store

    async def _placements(self, record: GameRecord) -> list[Placement]:
        table = await self.tables.load(record)
        return placements(record, table.state, await self.store.get_game_meta(record.id))

    async def handle(self, duty: Duty, now: float) -> str:
        """The ``rate`` duty: rate its game, once."""
        record = await self.store.game_by_id(int(duty.payload["game"]))
        if record is None or record.guild_id is None:
            return "dropped: no such game"
        return await self._rate(record, now)

    async def _rate(self, record: GameRecord, now: float) -> str:
        places = await self._placements(record)
        if not places or record.guild_id is None:
            return "dropped: not rated"
        users = [p.user_id for p in places if not p.forgotten]
        if await self.store.rate_game(
            record.id, record.guild_id, users, rate_fn(record.guild_id, places, now), now
        ):
            log.info("rated game=%s guild=%s players=%s", record.id, record.guild_id, users)
            return "rated"
        return "dropped: already rated"

    async def recompute(self, guild_id: int, now: float) -> tuple[int, int]:
        """Rate every finished game of the server again, in the order they ended; replaces its ratings.

        Safe while the bot runs: a game that ended after the games were listed, and was rated by the bot
        before the ratings were replaced, lost that rating with the replacement; it is rated again here,
        once (``rate_game``). Returns (games rated, players rated)."""
        games = await self.store.list_games("finished", guild_id=guild_id)
        games.sort(key=lambda g: (g.updated_at, g.id))
        current: dict[int, PlayerRating] = {}
        done: list[int] = []
        for record in games:
            places = await self._placements(record)
            if not places:
                continue
            for r in rated(guild_id, places, {p.user_id: current.get(p.user_id) for p in places}, now):
                current[r.user_id] = r
            done.append(record.id)
        await self.store.replace_ratings(guild_id, list(current.values()), done, now)
        listed = {g.id for g in games}
        for record in await self.store.list_games("finished", guild_id=guild_id):
            if record.id not in listed and await self._rate(record, now) == "rated":
                done.append(record.id)
        players = len(await self.store.ratings(guild_id))
        return len(done), players

    async def servers(self) -> list[int]:
        """Every server with a finished game (for recomputing them all)."""
        return sorted({g.guild_id for g in await self.store.list_games("finished") if g.guild_id is not None})
