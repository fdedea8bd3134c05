"""Hidden stays hidden on the web (R2.5): whole games are played through the offline Discord while pages
are loaded and live streams listen in English and German; then every byte the web face sent (headers,
pages, data, events, scripts, health and metrics, 404s) is searched for every hidden card fact of those
games: each card drawn from the supply with its drawer and symbol, every supply order, every hand, the
random state and the seed. 0 found. The search itself is shown to find those facts where they are (the
full events), so it cannot pass by looking for nothing."""

from __future__ import annotations

import json
import random
import re

import pytest

from engine import ai, serialize
from engine.actions import CardSource
from engine.events import CardTaken, FirstPlayerChosen, GameCreated, SupplyShuffled
from engine.game import evolve
from engine.symbols import SYMBOLS
from tests.bot.driver import NAMES, POINTS_MAP, WALLS_MAP, Game
from tests.web.helpers import Client, link, live, web_bot

SEED = 8_123_456_789_012  # long enough that its digits appear nowhere by chance
DREW = (re.compile(rb"drew a card \("), re.compile(rb"hat eine Karte gezogen \("))
FIVE = re.compile(rb"\[(\d+), ?(\d+), ?(\d+), ?(\d+), ?(\d+)\]")


def hidden_facts(bodies: list[dict]) -> dict[str, set[bytes] | set[tuple[int, ...]]]:
    """Every hidden card fact of a game, from its stored (unredacted) events."""
    texts: set[bytes] = set()
    hands: set[tuple[int, ...]] = set()
    state = None
    for body in bodies:
        e = serialize.load(body)
        if isinstance(e, GameCreated):
            texts.add(str(e.seed).encode())
        if isinstance(e, SupplyShuffled) and e.order is not None:
            letters = "".join(s.letter for s in e.order)
            if len(e.order) >= 8:
                texts.add(letters.encode())  # the order as the lean snapshot writes it
                texts.add(json.dumps([s.value for s in e.order[:6]]).replace(" ", "").encode()[:-1])
                texts.add(json.dumps([s.value for s in e.order[:6]]).encode()[:-1])
            texts.add(str(e.rng).encode())
        if isinstance(e, FirstPlayerChosen) and e.rng is not None:
            texts.add(str(e.rng).encode())
        if isinstance(e, CardTaken) and e.source is CardSource.SUPPLY and e.symbol is not None:
            texts.add(json.dumps({"source": "supply", "slot": None, "symbol": e.symbol.value})[1:-1].encode())
            texts.add(b'"source":"supply","slot":null,"symbol":"' + e.symbol.value.encode())
        state = evolve(state, e)
        for p in state.players:
            if sum(p.hand) > 0:
                hands.add(tuple(p.hand))
        if state.rng and state.rng > 10**6:
            texts.add(str(state.rng).encode())
    return {"texts": texts, "hands": hands}


def found(facts: dict, blob: bytes) -> list[str]:
    out = [f"text {t[:40]!r}" for t in facts["texts"] if t in blob]
    out += [f"drawn card ({p.pattern!r})" for p in DREW if p.search(blob)]
    for m in FIVE.finditer(blob):
        counts = tuple(int(x) for x in m.groups())
        if counts in facts["hands"]:
            out.append(f"a hand {counts}")
    return out


async def _play_and_watch(tmp_path, game_map, players: int, ai_seed: int) -> tuple[bytes, list[dict]]:
    async with web_bot(str(tmp_path / f"{game_map.name}.db"), game_map=game_map, seed=SEED) as d:
        users = [d.member(n) for n in NAMES[:players]]
        g = Game(d, users)
        await g.open()
        path = await link(d, g.game_id)
        en, de = Client(d), Client(d)
        rng = random.Random(ai_seed)
        try:
            await en.get(path)
            await de.get(path, **{"Accept-Language": "de"})
            steps = len((await en.json(path + "/game.json"))["steps"])
            async with (
                live(en, path, steps) as s_en,
                live(de, path, steps, **{"Accept-Language": "de"}) as s_de,
            ):
                for n in range(400):
                    st = await g.state()
                    if st.over:
                        break
                    await g.play(ai.greedy_player(st, rng), n)
                    if n % 25 == 0:  # pages loaded along the way, as spectators come and go
                        await en.json(path + "/game.json")
                        await de.json(path + "/game.json", **{"Accept-Language": "de-DE"})
                assert (await g.state()).over, "the game did not end"
                await d.bot.web.hub.look()
                for stream in (s_en, s_de):  # drain what was sent, until the stream is quiet
                    try:
                        while True:
                            await stream.next(timeout=1.0)
                    except TimeoutError:
                        pass
            for c in (en, de):
                for extra in (
                    "/static/app.js",
                    "/static/app.css",
                    "/healthz",
                    "/metrics",
                    "/g/x",
                    path + "/x",
                ):
                    await c.get(extra)
                await c.json(path + "/game.json")
        finally:
            await en.close()
            await de.close()
        bodies = [b for _, b in await d.bot.store.events(g.game_id)]
        return b"".join(en.received + de.received), bodies


@pytest.mark.parametrize(("game_map", "players", "ai_seed"), [(WALLS_MAP, 2, 4), (POINTS_MAP, 3, 7)])
async def test_no_byte_the_web_sent_holds_a_hidden_card_fact(tmp_path, game_map, players, ai_seed):
    sent, bodies = await _play_and_watch(tmp_path, game_map, players, ai_seed)
    facts = hidden_facts(bodies)
    # Not vacuous: there are facts to hide, and the search finds them where they are.
    draws = sum(1 for b in bodies if '"source":"supply"' in json.dumps(b, separators=(",", ":")))
    assert draws >= 2 and len(facts["hands"]) > 3 and len(facts["texts"]) > 5
    private = json.dumps(bodies, separators=(",", ":")).encode()
    assert len(found(facts, private)) > 5
    assert found(facts, b"alice drew a card (horse).")
    assert found(facts, b"[" + b",".join(str(x).encode() for x in next(iter(facts["hands"]))) + b"]")
    assert len(sent) > 100_000  # pages, data and streams of a whole game
    assert b"news" in sent and b"moved Alexander" in sent and b"hat Alexander nach" in sent
    assert found(facts, sent) == []
    assert set(SYMBOLS)  # the five symbols exist, so a drawn card always has a name to leak
