"""Proves the offline harness against a small demo bot that uses every discord.py feature the game needs."""

from __future__ import annotations

import asyncio
import io
import logging
import re

import discord
import pytest
from discord import app_commands
from discord.ext import commands

from offline.limits import check_command_tree, check_components, check_message, check_modal
from offline.routes import parse_multipart
from tests.harness import HarnessError, OfflineDiscord, StoredMessage

GUILD_ID = 111_111_111_111_111_111
CHANNEL_ID = 222_222_222_222_222_222
PNG = b"\x89PNG\r\n\x1a\nfake-board"
MOVES = [f"tile-{i}" for i in range(40)]


class JoinButton(discord.ui.DynamicItem[discord.ui.Button], template=r"demo:join:(?P<game>\d+)"):
    """A persistent button whose state lives in its custom_id, so it survives restarts."""

    def __init__(self, game: int) -> None:
        super().__init__(
            discord.ui.Button(label="Join", style=discord.ButtonStyle.success, custom_id=f"demo:join:{game}")
        )
        self.game = game

    @classmethod
    async def from_custom_id(cls, interaction, item, match: re.Match[str]) -> JoinButton:
        return cls(int(match["game"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        bot: DemoBot = interaction.client  # type: ignore[assignment]
        bot.joined.append((self.game, interaction.user.id))
        await interaction.response.send_message(
            f"{interaction.user.mention} joined game {self.game}", ephemeral=True
        )


class BoomButton(discord.ui.DynamicItem[discord.ui.Button], template=r"demo:boom"):
    def __init__(self) -> None:
        super().__init__(discord.ui.Button(label="Boom", custom_id="demo:boom"))

    @classmethod
    async def from_custom_id(cls, interaction, item, match) -> BoomButton:
        return cls()

    async def callback(self, interaction: discord.Interaction) -> None:
        raise RuntimeError("kaboom in a button")


class BrokenButton(discord.ui.Button):
    def __init__(self) -> None:
        super().__init__(label="Broken", custom_id="demo:broken")

    async def callback(self, interaction: discord.Interaction) -> None:
        raise RuntimeError("kaboom in a view")


class ColourSelect(discord.ui.Select):
    def __init__(self) -> None:
        super().__init__(
            custom_id="demo:colour",
            placeholder="Pick a colour",
            options=[discord.SelectOption(label=c, value=c) for c in ("red", "blue", "green")],
        )

    async def callback(self, interaction: discord.Interaction) -> None:
        await interaction.response.edit_message(content=f"colour is {self.values[0]}", view=None)


class NameModal(discord.ui.Modal, title="Name your empire"):
    name = discord.ui.TextInput(label="Name", custom_id="demo:name", max_length=20)

    async def on_submit(self, interaction: discord.Interaction) -> None:
        if self.name.value == "crash":
            raise RuntimeError("kaboom in a modal")
        await interaction.response.send_message(f"Hail, {self.name.value}!")


class PickView(discord.ui.View):
    @discord.ui.select(cls=discord.ui.UserSelect, custom_id="demo:pick")
    async def pick(self, interaction: discord.Interaction, select: discord.ui.UserSelect) -> None:
        await interaction.response.send_message(f"picked {select.values[0].mention}", ephemeral=True)


class RenameModal(discord.ui.Modal, title="Rename"):
    new_name = discord.ui.TextInput(label="New name", custom_id="demo:new-name")

    async def on_submit(self, interaction: discord.Interaction) -> None:
        await interaction.response.edit_message(content=f"renamed to {self.new_name.value}")


class PanelView(discord.ui.View):
    """Component callbacks that defer and edit, edit the message over HTTP, or open a modal."""

    def __init__(self) -> None:
        super().__init__(timeout=None)

    @discord.ui.button(label="Ack", custom_id="demo:ack")
    async def ack(self, interaction: discord.Interaction, button: discord.ui.Button) -> None:
        await interaction.response.defer()
        await interaction.edit_original_response(content="acknowledged")

    @discord.ui.button(label="Edit", custom_id="demo:edit")
    async def edit(self, interaction: discord.Interaction, button: discord.ui.Button) -> None:
        await interaction.response.send_message("editing", ephemeral=True)
        await interaction.message.edit(content="panel (edited)")  # type: ignore[union-attr]

    @discord.ui.button(label="Rename", custom_id="demo:rename")
    async def rename(self, interaction: discord.Interaction, button: discord.ui.Button) -> None:
        await interaction.response.send_modal(RenameModal())


class BoardRow(discord.ui.ActionRow):
    @discord.ui.button(label="Go", custom_id="demo:go")
    async def go(self, interaction: discord.Interaction, button: discord.ui.Button) -> None:
        await interaction.response.send_message("went", ephemeral=True)


class Board(discord.ui.LayoutView):
    """A components-v2 message: text, the board picture, a row of buttons."""

    title = discord.ui.TextDisplay("## Board")
    picture = discord.ui.MediaGallery(discord.MediaGalleryItem("attachment://board.png"))
    row = BoardRow()


class ConfirmView(discord.ui.View):
    value: bool | None = None

    @discord.ui.button(label="Yes", custom_id="demo:yes")
    async def yes(self, interaction: discord.Interaction, button: discord.ui.Button) -> None:
        self.value = True
        await interaction.response.edit_message(content="ok", view=None)
        self.stop()


class Demo(commands.Cog):
    game = app_commands.Group(name="demo", description="Demo game commands")

    def __init__(self, bot: DemoBot) -> None:
        self.bot = bot

    @game.command(name="new", description="Start a game")
    @app_commands.describe(players="How many players")
    async def new(self, interaction: discord.Interaction, players: app_commands.Range[int, 2, 5]) -> None:
        view = discord.ui.View(timeout=None)
        view.add_item(JoinButton(7))
        await interaction.response.send_message(
            f"Game 7 for {players} players",
            embed=discord.Embed(title="Game 7", description="Waiting for players"),
            file=discord.File(io.BytesIO(PNG), filename="board.png", description="the board"),
            view=view,
        )

    @game.command(name="secret", description="An ephemeral reply")
    async def secret(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message("only you can see this", ephemeral=True)

    @game.command(name="move", description="Move to a tile")
    async def move(self, interaction: discord.Interaction, to: str, note: str | None = None) -> None:
        await interaction.response.send_message(f"moved to {to}", ephemeral=True)

    @move.autocomplete("to")
    async def move_to_autocomplete(self, interaction: discord.Interaction, current: str):
        hits = [m for m in MOVES if current in m]
        limit = 30 if interaction.namespace.note == "too-many" else 25
        return [app_commands.Choice(name=m, value=m) for m in hits[:limit]]

    @game.command(name="slow", description="Defer, then edit and follow up")
    async def slow(self, interaction: discord.Interaction) -> None:
        await interaction.response.defer(thinking=True)
        await interaction.edit_original_response(content="done thinking")
        await interaction.followup.send("a followup", ephemeral=True)

    @game.command(name="ping", description="Notify a player")
    async def ping(self, interaction: discord.Interaction, player: discord.Member) -> None:
        await interaction.response.send_message("notifying", ephemeral=True)
        await interaction.channel.send(  # type: ignore[union-attr]
            f"{player.mention}, your turn (<@{interaction.user.id}> is waiting)",
            allowed_mentions=discord.AllowedMentions(users=[player]),
        )

    @game.command(name="colour", description="Choose a colour")
    async def colour(self, interaction: discord.Interaction) -> None:
        view = discord.ui.View()
        view.add_item(ColourSelect())
        await interaction.response.send_message("choose", view=view)

    @game.command(name="name", description="Open a modal")
    async def name(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_modal(NameModal())

    @game.command(name="thread", description="Open a thread and post there")
    async def thread(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message("opening a thread")
        msg = await interaction.original_response()
        thread = await msg.create_thread(name="game-7")
        await thread.send("welcome to the thread")

    @game.command(name="where", description="Where am I")
    async def where(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(f"in {type(interaction.channel).__name__}", ephemeral=True)

    @game.command(name="crash", description="Raise an error")
    async def crash(self, interaction: discord.Interaction) -> None:
        raise ValueError("broken command")

    @game.command(name="silent", description="Never answer")
    async def silent(self, interaction: discord.Interaction) -> None:
        return None

    @game.command(name="long", description="Too long")
    async def long(self, interaction: discord.Interaction) -> None:
        view = discord.ui.View()
        view.add_item(discord.ui.Button(label="x", custom_id="x" * 101))
        await interaction.response.send_message("y" * 2001, view=view)

    @game.command(name="dm", description="Whisper to yourself")
    async def dm(self, interaction: discord.Interaction) -> None:
        await interaction.user.send("psst")
        await interaction.response.send_message("check your DMs", ephemeral=True)

    @game.command(name="pick", description="Pick a player")
    async def pick(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message("pick someone", view=PickView())

    @game.command(name="panel", description="A panel of buttons")
    async def panel(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message("panel", view=PanelView())

    @game.command(name="layout", description="Components v2")
    async def layout(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(
            view=Board(), file=discord.File(io.BytesIO(PNG), filename="board.png")
        )

    @game.command(name="sleepy", description="Answers too late")
    async def sleepy(self, interaction: discord.Interaction) -> None:
        await asyncio.sleep(0.1)
        await interaction.response.send_message("finally")

    @game.command(name="confirm", description="Ask, then wait for the answer")
    async def confirm(self, interaction: discord.Interaction) -> None:
        view = ConfirmView()
        await interaction.response.send_message("sure?", view=view)
        await view.wait()
        await interaction.followup.send(f"confirmed={view.value}")

    @game.command(name="redraw", description="Post a picture, then replace it")
    async def redraw(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message("drawing", ephemeral=True)
        msg = await interaction.channel.send(  # type: ignore[union-attr]
            "board", file=discord.File(io.BytesIO(PNG), filename="board.png")
        )
        await msg.edit(
            content="board v2", attachments=[discord.File(io.BytesIO(b"v2"), filename="board.png")]
        )

    @game.command(name="upload", description="Read an uploaded file")
    async def upload(self, interaction: discord.Interaction, file: discord.Attachment) -> None:
        data = await file.read()  # goes through http.get_from_cdn, not http.request
        await interaction.response.send_message(f"{file.filename}: {len(data)} bytes", ephemeral=True)

    @game.command(name="boom", description="Post a broken button")
    async def boom(self, interaction: discord.Interaction) -> None:
        view = discord.ui.View(timeout=None)
        view.add_item(BoomButton())
        view.add_item(BrokenButton())
        await interaction.response.send_message("press it", view=view)

    @game.command(name="empty", description="Send an empty message")
    async def empty(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message()


class DemoBot(commands.Bot):
    def __init__(self) -> None:
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=discord.Intents.default(),
            allowed_mentions=discord.AllowedMentions.none(),
        )
        self.joined: list[tuple[int, int]] = []
        self.deleted: list[int] = []

    async def on_raw_message_delete(self, event: discord.RawMessageDeleteEvent) -> None:
        self.deleted.append(event.message_id)

    async def setup_hook(self) -> None:
        await self.add_cog(Demo(self))
        self.add_dynamic_items(JoinButton, BoomButton)


def make_harness(**kwargs) -> OfflineDiscord:
    return OfflineDiscord(DemoBot, guild_id=GUILD_ID, channel_id=CHANNEL_ID, **kwargs)


pytest_plugins = ["tests.harness.fixtures"]


@pytest.fixture(autouse=True)
def _always_offline(no_network):
    """Every test here runs with the network blocked; any attempt fails the test."""
    yield


async def test_login_runs_setup_hook_and_collects_tree():
    async with make_harness() as d:
        assert d.bot is not None and d.bot.user.id == d.app_id
        assert d.bot.get_cog("Demo") is not None
        (demo,) = d.tree_payload[None]
        assert demo["name"] == "demo" and demo["id"]
        assert {o["name"] for o in demo["options"]} >= {"new", "move", "slow"}
        assert [r.kind for r in d.requests] == ["login", "app_info"]
        assert d.bot.get_channel(CHANNEL_ID) is not None


async def test_public_reply_with_file_and_persistent_button():
    async with make_harness() as d:
        alice = d.member("alice")
        r = await d.slash(alice, "demo new", players=3)
        assert r.type == 4 and r.callback.callback_name == "message"
        assert not r.ephemeral and r.content == "Game 7 for 3 players"
        assert [(f.filename, f.data) for f in r.files] == [("board.png", PNG)]
        assert r.components[0]["components"][0]["custom_id"] == "demo:join:7"
        assert r.callback.seam == "webhook" and r.callback.path.endswith("/callback")
        assert r.latency is not None and r.latency < 1
        (shown,) = d.channel_messages(CHANNEL_ID)
        assert shown.id == r.response_message.id and shown.attachments[0].data == PNG

        bob = d.member("bob")
        r2 = await d.click(bob, shown.id, "demo:join:7")
        assert r2.ephemeral and r2.content == f"<@{bob.id}> joined game 7"
        assert d.bot.joined == [(7, bob.id)]
        # Ephemeral answers are not part of what the channel shows.
        assert d.channel_messages(CHANNEL_ID) == [shown]
        assert r2.response_message in d.channel_messages(CHANNEL_ID, visible_to=bob)


async def test_dynamic_button_survives_restart():
    async with make_harness() as d:
        alice, bob = d.member("alice"), d.member("bob")
        r = await d.slash(alice, "demo new", players=2)
        message_id = r.response_message.id
        old_bot = d.bot
        await d.restart()
        assert d.bot is not old_bot and old_bot.is_closed()
        assert d.member("bob").id == bob.id  # stable ids
        r2 = await d.click(bob, message_id, "demo:join:7")
        assert r2.content.endswith("joined game 7")
        assert d.bot.joined == [(7, bob.id)] and old_bot.joined == []


async def test_ephemeral_reply_and_flags():
    async with make_harness() as d:
        r = await d.slash(d.member("alice"), "demo.secret")
        assert r.ephemeral and r.flags & 64 and r.callback.ephemeral
        assert r.content == "only you can see this"
        assert d.channel_messages() == []


async def test_autocomplete_returns_choices_and_checks_limits():
    async with make_harness() as d:
        alice = d.member("alice")
        choices = await d.autocomplete(alice, "demo move", focused="to", value="tile-1")
        assert choices[0] == {"name": "tile-1", "value": "tile-1"} and len(choices) == 11
        assert d.history[-1].type == 8

        with pytest.raises(HarnessError, match="30 choices"):
            await d.autocomplete(alice, "demo move", focused="to", options={"to": "", "note": "too-many"})


async def test_deferred_then_edit_original_and_followup():
    async with make_harness() as d:
        r = await d.slash(d.member("alice"), "demo slow")
        assert r.type == 5 and r.deferred
        kinds = [q.kind for q in r.requests]
        assert kinds == ["callback", "edit_original", "followup"]
        assert r.content == "done thinking"  # the response message in its final state
        edit = r.of_kind("edit_original")[0]
        assert edit.method == "PATCH" and edit.path.endswith("/messages/@original")
        assert edit.message_id == r.callback.message_id  # @original keeps the deferred message's id
        (follow,) = r.followups
        assert follow.ephemeral and follow.content == "a followup"
        assert follow.message_id != edit.message_id
        assert [m.content for m in d.channel_messages()] == ["done thinking"]


async def test_the_answer_is_final_at_the_response_or_at_the_edit_after_a_defer():
    """``answered_in``: what the presser waits for their answer (benchmarks/bench_bot.py's "ans"), not the
    "thinking" placeholder of a defer (``latency``, the first answer)."""
    async with make_harness(network_delay=0.01) as d:
        r = await d.slash(d.member("alice"), "demo.secret")
        assert r.answered_in is not None and r.answered_in == r.latency
        r = await d.slash(d.member("alice"), "demo slow")
        assert r.latency is not None and r.answered_in is not None
        assert r.answered_in >= r.latency + 0.01  # the edit: one more request after the defer


async def test_channel_send_with_allowed_mentions():
    async with make_harness() as d:
        alice, bob = d.member("alice"), d.member("bob")
        r = await d.slash(alice, "demo ping", player=bob)
        (sent,) = r.sent
        assert (
            sent.seam == "http" and sent.method == "POST" and sent.path == "/channels/{channel_id}/messages"
        )
        assert sent.allowed_mentions == {"parse": [], "users": [bob.id]}
        assert sent.pinged_user_ids == {bob.id} and r.pings == {bob.id}
        assert d.channel_messages()[-1].content.startswith(bob.mention)


async def test_select_updates_message():
    async with make_harness() as d:
        alice = d.member("alice")
        r = await d.slash(alice, "demo colour")
        msg = r.response_message
        assert msg.component("demo:colour")["options"][1]["value"] == "blue"
        r2 = await d.select(alice, msg.id, "demo:colour", values=["blue"])
        assert r2.type == 7 and r2.content == "colour is blue" and r2.components == []
        assert d.message(msg.id).content == "colour is blue" and d.message(msg.id).components == []
        with pytest.raises(HarnessError, match="has no component"):
            await d.select(alice, msg.id, "demo:colour", values=["red"])  # the select is gone now
        msg2 = (await d.slash(alice, "demo colour")).response_message
        with pytest.raises(HarnessError, match="no option"):
            await d.select(alice, msg2.id, "demo:colour", values=["pink"])


async def test_modal_round_trip():
    async with make_harness() as d:
        alice = d.member("alice")
        r = await d.slash(alice, "demo name")
        assert r.type == 9 and r.modal["title"] == "Name your empire"
        assert d.open_modal(alice)["custom_id"] == r.modal["custom_id"]
        with pytest.raises(HarnessError, match="length"):
            await d.modal_submit(alice, {"demo:name": "x" * 21})
        r2 = await d.modal_submit(alice, {"demo:name": "Macedon"})
        assert r2.content == "Hail, Macedon!" and not r2.ephemeral
        assert d.open_modal(alice) is None


async def test_thread_creation_and_posting_in_thread():
    async with make_harness() as d:
        r = await d.slash(d.member("alice"), "demo thread")
        assert [q.kind for q in r.requests] == ["callback", "get_original", "thread", "channel_message"]
        thread_id = r.of_kind("thread")[0].channel_id
        assert thread_id == r.response_message.id  # a thread started from a message shares its id
        assert [m.content for m in d.channel_messages(thread_id)] == ["welcome to the thread"]

        existing = d.add_thread("lobby")
        r2 = await d.slash(d.member("bob"), "demo where", channel_id=existing)
        assert r2.content == "in Thread" and r2.channel_id == existing


async def test_command_error_is_caught():
    async with make_harness() as d:
        with pytest.raises(HarnessError, match="broken command") as caught:
            await d.slash(d.member("alice"), "demo crash")
        result = caught.value.result
        assert result.errors and "ValueError" in result.errors[0].exc_text
        assert "not answered" in result.violations[0]


async def test_dynamic_item_error_is_caught_and_check_false_returns_it():
    async with make_harness() as d:
        alice = d.member("alice")
        await d.slash(alice, "demo boom")
        r = await d.click(alice, None, "demo:boom", check=False)
        assert not r.answered and "kaboom" in r.errors[0].exc_text


async def test_view_and_modal_errors_are_caught():
    async with make_harness() as d:
        alice = d.member("alice")
        await d.slash(alice, "demo boom")
        with pytest.raises(HarnessError, match="kaboom in a view") as caught:
            await d.click(alice, None, "demo:broken")
        assert caught.value.result.errors[0].logger == "discord.ui.view"
        await d.slash(alice, "demo name")
        with pytest.raises(HarnessError, match="kaboom in a modal") as caught:
            await d.modal_submit(alice, {"demo:name": "crash"})
        assert caught.value.result.errors[0].logger == "discord.ui.modal"


async def test_empty_message_is_a_violation():
    async with make_harness() as d:
        with pytest.raises(HarnessError, match="empty message"):
            await d.slash(d.member("alice"), "demo empty")


async def test_unanswered_interaction_is_flagged():
    async with make_harness() as d:
        r = await d.slash(d.member("alice"), "demo silent", check=False)
        assert not r.answered and r.type is None
        assert r.violations == ["the interaction was not answered (the user sees 'This interaction failed')"]


async def test_limit_violations_are_detected():
    async with make_harness() as d:
        with pytest.raises(HarnessError) as caught:
            await d.slash(d.member("alice"), "demo long")
        text = str(caught.value)
        assert "content is 2001 characters" in text and "is 101 characters" in text


async def test_unreported_errors_fail_at_exit():
    d = make_harness(strict=True)
    with pytest.raises(HarnessError, match="outside any checked interaction"):
        async with d:
            logging.getLogger("discord.client").error("a background failure")
    assert not d._unreported_errors


async def test_client_side_validation_of_options():
    async with make_harness() as d:
        alice = d.member("alice")
        with pytest.raises(HarnessError, match="outside 2..5"):
            await d.slash(alice, "demo new", players=9)
        with pytest.raises(HarnessError, match="required"):
            await d.slash(alice, "demo new")
        with pytest.raises(HarnessError, match="no subcommand"):
            await d.slash(alice, "demo nope")


async def test_double_click_on_same_button_is_answered_twice():
    async with make_harness(network_delay=0.001) as d:
        alice, bob = d.member("alice"), d.member("bob")
        msg_id = (await d.slash(alice, "demo new", players=2)).response_message.id
        r1, r2 = await asyncio.gather(
            d.click(bob, msg_id, "demo:join:7"), d.click(bob, msg_id, "demo:join:7")
        )
        assert r1.answered and r2.answered and r1.interaction_id != r2.interaction_id
        assert {q.interaction_id for q in r1.requests} == {r1.interaction_id}
        assert d.bot.joined == [(7, bob.id), (7, bob.id)]


def test_limit_helpers_directly():
    assert check_message({"content": "a" * 2000}) == []
    assert check_message({"content": "a" * 2001}) == ["content is 2001 characters (max 2000)"]
    rows = [
        {"type": 1, "components": [{"type": 2, "custom_id": f"b{i}{j}", "label": "b"} for j in range(6)]}
        for i in range(6)
    ]
    problems = check_components(rows)
    assert "6 action rows (max 5)" in problems and any("has 6 components" in p for p in problems)
    select = {
        "type": 3,
        "custom_id": "s",
        "options": [{"label": "l" * 101, "value": str(i)} for i in range(26)],
    }
    problems = check_components([{"type": 1, "components": [select]}])
    assert any("26 options" in p for p in problems) and any("is not 1..100" in p for p in problems)
    assert check_modal({"title": "t" * 46, "custom_id": "m", "components": [{"type": 1, "components": []}]})
    bad_tree = [
        {
            "name": "Bad Name",
            "description": "",
            "type": 1,
            "options": [{"name": f"o{i}", "description": "d", "type": 3} for i in range(26)],
        }
    ]
    problems = check_command_tree(bad_tree)
    assert any("lowercase" in p for p in problems) and any("description" in p for p in problems)
    assert any("26 options" in p for p in problems)


def test_multipart_parsing_keeps_bytes_and_descriptions():
    payload, files = parse_multipart(
        [
            {
                "name": "payload_json",
                "value": '{"content": "x", "attachments": [{"id": 0, "description": "d"}]}',
            },
            {"name": "files[0]", "value": io.BytesIO(b"abc"), "filename": "a.png"},
        ]
    )
    assert payload["content"] == "x" and files[0].data == b"abc" and files[0].description == "d"


async def test_network_is_blocked(no_network):
    with pytest.raises(OSError):
        await asyncio.open_connection("discord.com", 443)
    with pytest.raises(OSError):
        await asyncio.open_connection("162.159.128.233", 443)
    assert len(no_network) == 2
    no_network.clear()


def test_stored_message_helpers():
    m = StoredMessage(
        {
            "id": "1",
            "channel_id": "2",
            "content": "c",
            "flags": 64,
            "components": [{"type": 1, "components": [{"type": 2, "custom_id": "a"}]}],
        }
    )
    assert m.ephemeral and m.custom_ids == ["a"] and m.component("a")["type"] == 2


async def test_fixture_factory_and_dm(offline_discord):
    d = await offline_discord(make_harness_factory(), guild_id=GUILD_ID, channel_id=CHANNEL_ID)
    alice = d.member("alice")
    r = await d.slash(alice, "demo dm")
    assert [q.kind for q in r.requests] == ["dm_channel", "channel_message", "callback"]
    dm = d.dm_channel(alice)
    assert [m.content for m in d.channel_messages(dm)] == ["psst"]
    r2 = await d.slash(alice, "demo where", channel_id=dm)
    assert r2.content == "in DMChannel" and "user" in r2.payload and "member" not in r2.payload


def make_harness_factory():
    return DemoBot


async def test_user_select():
    async with make_harness() as d:
        alice, bob = d.member("alice"), d.member("bob")
        msg = (await d.slash(alice, "demo pick")).response_message
        r = await d.select(alice, msg.id, "demo:pick", values=[bob])
        assert r.content == f"picked {bob.mention}"
        assert r.payload["data"]["resolved"]["users"][str(bob.id)]["username"] == "bob"


async def test_component_defer_edit_and_modal_from_button():
    async with make_harness() as d:
        alice = d.member("alice")
        panel = (await d.slash(alice, "demo panel")).response_message

        r = await d.click(alice, panel.id, "demo:ack")
        assert r.type == 6 and [q.kind for q in r.requests] == ["callback", "edit_original"]
        assert r.of_kind("edit_original")[0].message_id == panel.id
        assert d.message(panel.id).content == "acknowledged"

        r = await d.click(alice, panel.id, "demo:edit")
        assert [(q.seam, q.kind) for q in r.requests] == [("webhook", "callback"), ("http", "edit_message")]
        assert d.message(panel.id).content == "panel (edited)" and d.message(panel.id).edits == 2
        assert d.message(panel.id).custom_ids == ["demo:ack", "demo:edit", "demo:rename"]

        r = await d.click(alice, panel.id, "demo:rename")
        assert r.type == 9 and r.modal["title"] == "Rename"
        with pytest.raises(HarnessError, match="no input"):
            await d.modal_submit(alice, {"nope": "x"})
        r = await d.modal_submit(alice, {"demo:new-name": "Pella"})
        assert r.payload["message"]["id"] == str(panel.id)  # a modal opened from a message carries it
        assert r.type == 7 and d.message(panel.id).content == "renamed to Pella"


async def test_components_v2_layout_view():
    async with make_harness() as d:
        alice = d.member("alice")
        r = await d.slash(alice, "demo layout")
        assert r.flags & (1 << 15) and r.content == ""
        types = [c["type"] for c in r.components]
        assert types == [10, 12, 1]  # text display, media gallery, action row
        assert r.response_message.attachments[0].data == PNG
        assert "## Board" in r.response_message.as_text()
        r2 = await d.click(alice, r.response_message.id, "demo:go")
        assert r2.content == "went"


async def test_sync_returns_ids_matching_the_tree():
    async with make_harness() as d:
        synced = await d.bot.tree.sync()
        (req,) = [q for q in d.requests if q.kind == "sync_commands"]
        assert req.method == "PUT" and req.violations == []
        assert synced[0].id == int(d.tree_payload[None][0]["id"])


async def test_late_answer_fails_like_discord():
    async with make_harness(response_deadline=0.05) as d:
        with pytest.raises(HarnessError, match="deadline") as caught:
            await d.slash(d.member("alice"), "demo sleepy")
        errors = caught.value.result.errors
        assert errors and "Unknown interaction" in errors[0].exc_text


async def test_unknown_custom_id_gets_a_hint():
    async with make_harness() as d:
        alice = d.member("alice")
        panel = (await d.slash(alice, "demo panel")).response_message
        await d.restart(lambda: DemoBot())  # the new process never registered PanelView
        r = await d.click(alice, panel.id, "demo:ack", check=False)
        assert not r.answered and "no View or DynamicItem" in r.violations[0]


async def test_handler_waiting_for_a_later_click_needs_wait_false():
    async with make_harness() as d:
        alice = d.member("alice")
        r = await d.slash(alice, "demo confirm", wait=False)
        assert r.type == 4 and r.content == "sure?" and r.followups == []
        await d.click(alice, r.response_message.id, "demo:yes")
        await d.wait_for_tasks("CommandTree-invoker")
        assert [f.content for f in r.followups] == ["confirmed=True"]
        assert d.message(r.response_message.id).content == "ok"


async def test_edit_replaces_the_picture():
    async with make_harness() as d:
        r = await d.slash(d.member("alice"), "demo redraw")
        assert [q.kind for q in r.requests] == ["callback", "channel_message", "edit_message"]
        edit = r.of_kind("edit_message")[0]
        assert [(f.filename, f.data) for f in edit.files] == [("board.png", b"v2")]
        board = d.last_message()
        assert board.content == "board v2" and [(a.filename, a.data) for a in board.attachments] == [
            ("board.png", b"v2")
        ]
        assert board.json["edited_timestamp"] is not None


async def test_background_sends_are_recorded_outside_interactions():
    async with make_harness() as d:
        mark = d.mark()
        await d.bot.get_channel(CHANNEL_ID).send(
            "a reminder", allowed_mentions=discord.AllowedMentions.none()
        )
        (req,) = d.requests_since(mark)
        assert req.kind == "channel_message" and req.interaction_id is None and req.pinged_user_ids == set()
        assert d.last_message().content == "a reminder"


async def test_command_listing_for_a_console():
    async with make_harness() as d:
        assert "demo new" in d.command_paths() and "demo move" in d.command_paths()
        (players,) = d.command_options("demo new")
        assert players["type"] == 4 and players["min_value"] == 2 and players["required"]


async def test_callback_answer_carries_the_response_message_id():
    async with make_harness() as d:
        r = await d.slash(d.member("alice"), "demo secret")
        answer = r.callback.response["interaction"]
        assert answer["response_message_id"] == str(r.response_message.id)
        assert answer["response_message_ephemeral"] is True


async def test_every_recorded_field():
    async with make_harness() as d:
        alice = d.member("alice")
        r = await d.slash(alice, "demo new", players=3)
        cb = r.callback
        assert (cb.seam, cb.method, cb.kind) == ("webhook", "POST", "callback")
        assert cb.path == "/interactions/{webhook_id}/{webhook_token}/callback"
        assert cb.url.endswith(f"/interactions/{r.interaction_id}/{r.payload['token']}/callback")
        assert cb.params == {"with_response": "1"}
        assert cb.interaction_id == r.interaction_id and cb.seq > 0 and cb.at > 0
        assert cb.callback_type == 4 and cb.callback_name == "message"
        assert cb.content == "Game 7 for 3 players" and not cb.ephemeral and cb.flags == 0
        assert cb.embeds == [
            {"title": "Game 7", "description": "Waiting for players", "type": "rich", "flags": 0}
        ]
        assert cb.components == [
            {
                "type": 1,
                "components": [
                    {"type": 2, "style": 3, "label": "Join", "custom_id": "demo:join:7", "disabled": False}
                ],
            }
        ]
        assert cb.allowed_mentions == {"parse": []}  # the bot-wide AllowedMentions.none()
        assert [(f.filename, f.data, f.description) for f in cb.files] == [("board.png", PNG, "the board")]
        assert cb.payload["data"]["attachments"] == [
            {"id": 0, "filename": "board.png", "description": "the board"}
        ]
        assert cb.message_id == r.response_message.id and cb.channel_id == CHANNEL_ID
        assert cb.violations == [] and cb.pinged_user_ids == set() and cb.choices is None and cb.modal is None
        assert cb.response["resource"]["message"]["id"] == str(cb.message_id)
        # The interaction result summarises the same, in the response message's final state.
        assert (r.type, r.ephemeral, r.flags, r.content) == (4, False, 0, "Game 7 for 3 players")
        assert r.embeds == cb.embeds and r.components == cb.components and r.allowed_mentions == {"parse": []}
        assert r.interaction_type == 2 and r.user_id == alice.id and r.channel_id == CHANNEL_ID
        assert r.errors == [] and r.violations == [] and r.message_ids == [cb.message_id]
        shown = d.message(cb.message_id)
        assert shown.json["attachments"][0]["filename"] == "board.png" and shown.json["type"] == 20
        assert shown.json["author"]["id"] == str(d.app_id) and shown.json["webhook_id"] == str(d.app_id)
        assert (
            "[button Join → demo:join:7]" in shown.as_text()
            and "[file board.png, 18 bytes]" in shown.as_text()
        )
        # The raw payload the bot received, with real snowflakes and the member's permissions.
        p = r.payload
        assert p["type"] == 2 and p["version"] == 1 and p["attachment_size_limit"] > 0
        assert p["guild_id"] == str(GUILD_ID) and p["channel"]["id"] == str(CHANNEL_ID)
        assert p["member"]["user"]["id"] == str(alice.id) and int(p["member"]["permissions"]) > 0
        assert p["data"]["options"] == [
            {"name": "new", "type": 1, "options": [{"name": "players", "type": 4, "value": 3}]}
        ]


async def test_typed_command_lines():
    async with make_harness() as d:
        alice, bob = d.member("alice"), d.member("bob")
        assert d.parse_command("/demo new players:3") == ("demo new", {"players": 3})
        assert d.parse_command('demo move to:"tile 1" note:x') == ("demo move", {"to": "tile 1", "note": "x"})
        assert d.parse_command("/demo ping player:@bob") == ("demo ping", {"player": bob})
        assert d.parse_command(f"/demo ping player:<@{bob.id}>") == ("demo ping", {"player": bob.id})
        r = await d.slash_text(alice, "/demo ping player:@bob")
        assert r.pings == {bob.id}
        with pytest.raises(HarnessError, match="no option"):
            d.parse_command("/demo new player:3")


async def test_attachment_option_is_readable_offline():
    async with make_harness() as d:
        r = await d.slash(d.member("alice"), "demo upload", file=("map.txt", b"hello"))
        assert r.content == "map.txt: 5 bytes"


async def test_a_deleted_message_reaches_the_bot_and_cannot_be_clicked():
    async with make_harness() as d:
        alice = d.member("alice")
        board = (await d.slash(alice, "demo new", players=2)).response_message
        await d.delete_message(board)
        assert d.bot.deleted == [board.id] and d.channel_messages() == []
        with pytest.raises(HarnessError, match="deleted"):
            await d.click(alice, board.id, "demo:join:7")


async def test_closed_dms_pins_and_error_codes_are_faked():
    async with make_harness(app_permissions=(1 << 53) - 1 - (1 << 3) - (1 << 51)) as d:
        alice = d.member("alice")
        alice.dms_open = False
        dm = await d.bot.create_dm(discord.Object(alice.id))
        with pytest.raises(discord.Forbidden) as closed:
            await dm.send("psst")
        assert closed.value.code == 50007 and d.channel_messages(d.dm_channel(alice)) == []
        channel = d.bot.get_partial_messageable(CHANNEL_ID)
        msg = await channel.send("status")
        with pytest.raises(discord.Forbidden) as refused:  # no Pin Messages
            await msg.pin()
        assert refused.value.code == 50013 and d.pinned() == []
        d.app_permissions |= 1 << 51
        await msg.pin()
        assert [m.id for m in d.pinned()] == [msg.id]
        await msg.unpin()
        assert d.pinned() == []
        d.fail("edit_message", "400", code=30046)
        with pytest.raises(discord.HTTPException) as capped:
            await msg.edit(content="again")
        assert capped.value.status == 400 and capped.value.code == 30046
