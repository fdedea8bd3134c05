"""Safe to host: commands declared for servers only, syncs that follow Discord's rules (global sync for the
application's owner only, a server sync that never duplicates), permissions read from the channel, and
every answer within Discord's limits however long the values users send."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.process import limits
from tests.bot.driver import GUILD, WALLS_MAP, Game, abandon, bot_factory, harness

pytest_plugins = ["tests.harness.fixtures"]

ROOT = Path(__file__).resolve().parents[2]
MANAGE_CHANNELS = 1 << 4
ADMINISTRATOR = 1 << 3
MANAGE_GUILD = 1 << 5


@pytest.fixture(autouse=True)
def _offline(no_network):
    yield


async def test_commands_are_for_server_channels_of_a_server_install_only(tmp_path):
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1)) as d:
        for scope, payload in d.tree_payload.items():
            for command in payload:
                assert command["contexts"] == [0], (scope, command["name"])  # guild channels only
                assert command["integration_types"] == [0], (scope, command["name"])  # server install
                assert command["dm_permission"] is False


async def test_global_sync_is_for_the_owner_and_a_server_sync_never_duplicates(tmp_path):
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1)) as d:
        admin = d.member("admin", permissions=MANAGE_GUILD | ADMINISTRATOR)
        r = await d.slash(admin, "alexandros-admin sync", everywhere=True)
        assert r.ephemeral and "Only the bot's owner" in r.content
        assert None not in d.synced, "nothing was synced globally"
        r = await d.slash(admin, "alexandros-admin sync")
        assert r.ephemeral and d.synced.get(d.guild_id) == [], "a server's copies are removed, none added"
        r = await d.slash(d.owner, "alexandros-admin sync", everywhere=True)
        assert r.ephemeral and "everywhere" in r.content
        names = [c["name"] for c in d.synced[None]]
        assert sorted(names) == sorted(set(names)) and "alexandros" in names, "each command once"
        for scope, commands in d.synced.items():
            others = [c["name"] for s, cs in d.synced.items() if s != scope for c in cs]
            assert not {c["name"] for c in commands} & set(others), f"a command in two scopes: {scope}"


async def test_the_test_server_gets_its_copies(tmp_path):
    from bot.client import make_bot

    db = str(tmp_path / "g.db")
    async with harness(lambda: make_bot(db, map_provider=lambda: WALLS_MAP)) as d:
        d.bot.get_cog("AdminCog").test_guild = d.guild_id
        admin = d.member("admin", permissions=MANAGE_GUILD)
        await d.slash(admin, "alexandros-admin sync")
        names = [c["name"] for c in d.synced[d.guild_id]]
        assert sorted(names) == sorted(set(names)) and "alexandros" in names
        guild = d.bot.get_guild(d.guild_id) or __import__("discord").Object(d.guild_id)
        assert "alexandros" not in [c.name for c in d.bot.tree.get_commands(guild=guild)]


async def test_a_test_servers_copies_are_removed_by_a_sync_there_once_the_setting_is_gone(tmp_path):
    """docs/HOSTING.md, "From a test server to every server": a sync with ALEXANDROS_TEST_GUILD, then a
    global one, shows every command twice in the test server, until /alexandros-admin sync there (in a bot
    started without the setting) removes the copies."""
    from bot.client import make_bot

    db = str(tmp_path / "g.db")
    start = {"sync": True, "sync_guild": GUILD}  # python -m bot --sync with ALEXANDROS_TEST_GUILD

    def factory():
        return make_bot(db, map_provider=lambda: WALLS_MAP, **start)

    async with harness(factory) as d:
        copies = {c["name"] for c in d.synced[d.guild_id]}
        assert "alexandros" in copies and None not in d.synced, "the test server's copies, nothing global"
        start.update(sync_guild=None)  # the setting removed: python -m bot --sync, then the bot
        await d.restart()
        everywhere = {c["name"] for c in d.synced[None]}
        assert copies & everywhere == copies, "the test server now shows every command twice"
        start.update(sync=False)
        await d.restart()
        admin = d.member("admin", permissions=MANAGE_GUILD)
        r = await d.slash(admin, "alexandros-admin sync")
        assert r.ephemeral and "no copies of the commands left" in r.content
        assert d.synced[d.guild_id] == [] and "alexandros" in {c["name"] for c in d.synced[None]}, "each once"
        hosting = (ROOT / "docs" / "HOSTING.md").read_text(encoding="utf-8")
        assert r.content in hosting, "the doc quotes the answer"


async def forged(d, user, command: str, **options):
    """The interaction Discord sends when the server's Integrations settings open a command to ``user``
    (or one made by hand): what ``slash`` builds, without its check of the default permissions."""
    channel = d._channel(None)
    root, leaf, chain, scope = d._resolve_command(command, channel)
    resolved: dict = {}
    opts = d._build_options(leaf, options, resolved, in_guild=True, strict=True)
    payload = d._interaction_payload(
        2, user, int(channel["id"]), d._command_data(root, chain, opts, scope, resolved)
    )
    return await d.dispatch(payload, user)


@pytest.mark.parametrize(
    ("command", "options"),
    [
        ("alexandros-admin sync", {}),
        ("alexandros-admin sync", {"everywhere": True}),
        ("alexandros-admin recompute-ratings", {}),
        ("alexandros-admin purge", {"days": 1}),
    ],
)
async def test_every_admin_command_checks_manage_server_itself(tmp_path, command, options):
    """Discord's default permissions only hide the group; a member it is opened to (Integrations settings),
    or a forged interaction, must still be refused by the bot, with one ephemeral sentence."""
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1)) as d:
        member = d.member("member", permissions=MANAGE_CHANNELS)
        with pytest.raises(Exception, match="lacks the permissions"):
            await d.slash(member, command, **options)  # Discord's menu hides it from them
        mark = len(d.requests)
        r = await forged(d, member, command, **options)
        assert r.ephemeral and r.content == (
            "Only a member with Manage Server can use the bot's admin commands in this server."
        )
        assert not d.synced, "nothing was synced"
        assert [q.kind for q in d.requests_since(mark)] == ["callback"], "nothing else was done"
        # The same forged interaction from a member with Manage Server is answered as the command.
        admin = d.member("admin", permissions=MANAGE_GUILD)
        r = await forged(d, admin, command, **options)
        assert r.ephemeral and "Manage Server" not in r.content


async def test_abandon_reads_the_permissions_of_the_channel(tmp_path):
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1)) as d:
        g = Game(d, [d.member("alice"), d.member("bob")])
        await g.open()
        # A moderator role that grants Manage Channels in the server, overridden in this channel: the
        # interaction's permissions (resolved for the channel) say no.
        role = d.add_role("mods", permissions=MANAGE_CHANNELS)
        mod = d.member("mod", roles=[role], permissions=0)
        r = await d.slash(mod, "alexandros abandon")
        assert r.ephemeral and "Manage Channels" in r.content
        assert (await g.table()).record.status == "playing"
        helper = d.member("helper", permissions=MANAGE_CHANNELS)
        r = await abandon(d, helper)
        assert "You abandoned" in r.content and (await g.table()).record.status == "abandoned"


async def test_a_creator_who_left_cannot_start(tmp_path):
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1)) as d:
        ann, bob, cat = d.member("ann"), d.member("bob"), d.member("cat")
        r = await d.slash(ann, "alexandros new")
        lobby = r.response_message
        gid = int(lobby.custom_ids[0].split(":")[2])
        for u in (bob, cat):
            await d.click(u, lobby.id, f"alx:join:{gid}")
        await d.click(ann, lobby.id, f"alx:leave:{gid}")
        r = await d.click(ann, lobby.id, f"alx:start:{gid}")
        assert r.ephemeral and "You left this table" in r.content
        r = await d.slash(ann, "alexandros table start")
        assert r.ephemeral and "You left this table" in r.content
        r = await d.slash(bob, "alexandros table start")
        assert r.ephemeral and "Only ann" in r.content
        assert "Turn " not in d.message(lobby.id).content


@pytest.mark.parametrize(
    ("command", "options"),
    [
        ("alexandros take", {"card": "x" * 300}),
        ("alexandros levy", {"card": "ἀ" * 300}),
        ("alexandros occupy", {"province": "9" * 300}),
        ("alexandros takeover", {"province": "P" + "1" * 299}),
        ("alexandros takeback", {"guard": "A1" * 150}),
        ("alexandros move", {"card": "n1" * 150}),
        ("alexandros move", {"card": "n1", "to": "Z" * 300}),
        ("alexandros move", {"card": "n1", "to": "B2", "path": "9" * 300}),
        ("alexandros me reminders", {"quiet": "2" * 300}),
        ("alexandros me reminders", {"time_zone": "Europe/" + "x" * 290}),
    ],
)
async def test_long_values_get_a_short_sentence(tmp_path, command, options):
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1)) as d:
        g = Game(d, [d.member("alice"), d.member("bob")])
        await g.open()
        table = await g.table()
        me = g.user_of_seat(table, table.state.current)
        r = await d.slash(me, command, **options)
        assert r.ephemeral and 0 < len(r.content) <= limits.MAX_CONTENT
        assert "Something went wrong" not in r.content
        longest = max(map(len, r.content.split()))
        assert longest <= limits.MAX_ECHO + 4, "a long value is shortened (quotes aside)"


async def test_time_zones_are_offered_and_a_folder_of_the_zone_database_is_refused(tmp_path):
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1)) as d:
        ann = d.member("ann")
        got = await d.autocomplete(ann, "alexandros me reminders", focused="time_zone", value="paris")
        assert [c["value"] for c in got] == ["Europe/Paris"]
        got = await d.autocomplete(ann, "alexandros me reminders", focused="time_zone", value="")
        assert len(got) == 25
        for value in ("Europe", "../../etc/passwd", "Mars/Olympus", "x" * 300):
            r = await d.slash(ann, "alexandros me reminders", time_zone=value)
            assert r.ephemeral and "is not a time zone name" in r.content and len(r.content) < 300
        r = await d.slash(ann, "alexandros me reminders", time_zone="Europe/Paris")
        assert "Europe/Paris" in r.content and "Saved" in r.content


async def test_issue_15_abandon_asks_for_confirmation_and_the_button_checks_its_presser(tmp_path):
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1)) as d:
        g = Game(d, [d.member("alice"), d.member("bob")])
        await g.open()
        helper = d.member("helper", permissions=MANAGE_CHANNELS)
        r = await d.slash(helper, "alexandros abandon")
        # Nothing happens yet: an ephemeral prompt with one button.
        prompt = r.response_message
        assert r.ephemeral and "cannot be undone" in r.content
        assert "Abandon the game" in str(prompt.components)
        assert (await g.table()).record.status == "playing"
        button = next(c for c in prompt.custom_ids if c.startswith("alx:abandon:"))
        # The button checks its presser again: the right was lost since the prompt; nothing changes.
        helper.permissions = 0
        refused = await d.click(helper, prompt.id, button)
        assert refused.ephemeral and "Manage Channels" in refused.content
        assert (await g.table()).record.status == "playing"
        helper.permissions = MANAGE_CHANNELS
        done = await d.click(helper, prompt.id, button)
        assert "You abandoned" in done.content and (await g.table()).record.status == "abandoned"
        assert "was abandoned by helper" in d.last_message().content and not d.last_message().ephemeral
        assert not d.message(prompt.id).custom_ids  # the prompt lost its button
