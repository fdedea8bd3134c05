"""The tutorial (issue 29): ``/alexandros learn tutorial`` is a private lesson of ten steps
(bot.words.lessons), one ephemeral message whose buttons move it on. Every button names its step
(``alx:tut:<step>:<answer>``, ``alx:tutgo:<step>``), so an old lesson message still works; the learner's next
step is also kept in their settings (``tutorial``), so the command resumes where they left off. The last step
offers a practice game.
"""

from __future__ import annotations

import discord

from engine import rules
from engine.views import view

from ..texts import components as ui
from ..words import i18n, lessons
from ..words.i18n import _
from .answers import defer_private, defer_update, png, show
from .context import Context
from .practice import Practice

SETTING = "tutorial"  # the user setting: the next step to show


class Tutorial:
    def __init__(self, ctx: Context, practice: Practice) -> None:
        self.ctx = ctx
        self.practice = practice

    async def start(self, interaction: discord.Interaction) -> None:
        """The command: the introduction, or the step the learner had reached, with Start over."""

        async def body() -> None:
            await defer_private(interaction)
            step = await self._saved(interaction.user.id)
            if step <= 0:
                buttons = [(ui.cid_button("tutgo", 0), _("Start the lesson"), discord.ButtonStyle.primary)]
                await show(interaction, lessons.intro(), view=ui.buttons_view(buttons))
                return
            await self._show(interaction, step, note=lessons.welcome_back(step))

        await self.ctx.guard(interaction, body)

    async def go(self, interaction: discord.Interaction, step: int) -> None:
        """Next, Start over: show step ``step`` (the end, with a practice game, after the last)."""

        async def body() -> None:
            await defer_update(interaction)
            # A Next an older, longer lesson left counts as the end; none before the start.
            at = min(max(step, 0), len(lessons.steps()))
            await self._save(interaction.user.id, at)
            await self._show(interaction, at)

        await self.ctx.guard(interaction, body)

    async def answer(self, interaction: discord.Interaction, step: int, value: str) -> None:
        """An answer: right moves on (Next), wrong is explained with a picture and asked again."""

        async def body() -> None:
            await defer_update(interaction)
            steps = lessons.steps()
            if not 0 <= step < len(steps):
                await self._show(interaction, 0)
                return
            lesson = steps[step]
            if value not in {v for v, _label in lesson.choices()}:
                # A button an older lesson left (its choices changed since): the step as it is now.
                await self._show(interaction, step)
                return
            picture = await self._picture(lesson, lesson.after)
            if value in lesson.right:
                await self._save(interaction.user.id, step + 1)
                text = f"{lessons.answered_right()} {lesson.explain(value)}"
                nxt = [(ui.cid_button("tutgo", step + 1), _("Next"), discord.ButtonStyle.primary)]
                await show(interaction, text, file=picture, view=ui.buttons_view(nxt))
                return
            text = f"{lesson.text()}\n\n{lessons.answered_wrong()} {lesson.explain(value)}"
            await show(interaction, text, file=picture, view=self._choices(step, lesson))

        await self.ctx.guard(interaction, body)

    async def play(self, interaction: discord.Interaction) -> None:
        """The last step's button: a practice game against one easy computer."""
        await self.practice.open(interaction, "easy", 2)

    # --- showing a step -----------------------------------------------------------------------------------

    async def _show(self, interaction: discord.Interaction, step: int, note: str = "") -> None:
        steps = lessons.steps()
        if step >= len(steps):
            buttons = [
                (ui.cid_button("tutplay", 0), _("Start a practice game"), discord.ButtonStyle.success),
                (ui.cid_button("tutgo", 0), _("Start over"), discord.ButtonStyle.secondary),
            ]
            await show(interaction, lessons.outro(), view=ui.buttons_view(buttons))
            return
        lesson = steps[max(step, 0)]
        text = f"{note}\n{lesson.text()}" if note else lesson.text()
        picture = await self._picture(lesson, lesson.picture)
        await show(
            interaction, text, file=picture, view=self._choices(max(step, 0), lesson, restart=bool(note))
        )

    @staticmethod
    def _choices(step: int, lesson: lessons.Step, restart: bool = False) -> discord.ui.View:
        buttons = [
            (ui.cid_button("tut", step, value), label, discord.ButtonStyle.secondary)
            for value, label in lesson.choices()
        ]
        if restart:
            buttons.append((ui.cid_button("tutgo", 0), _("Start over"), discord.ButtonStyle.danger))
        return ui.buttons_view(buttons)

    async def _picture(self, lesson: lessons.Step, picture: lessons.Picture) -> discord.File:
        """A step's picture, drawn like the game's (the learner is seat 0 of a made-up game)."""
        state, names, pictures = lesson.state, lessons.names(), self.ctx.pictures
        mine = view(state, 0)
        if picture.kind == "move" and picture.symbol is not None:
            targets = rules.allowed_targets(state, picture.symbol)
            data = await pictures.move_preview(mine, targets, picture.symbol, names)
        elif picture.kind == "paths" and picture.corner is not None:
            data = await pictures.path_preview(mine, picture.corner, picture.paths, names)
        elif picture.kind == "province" and picture.province is not None:
            data = await pictures.province_preview(mine, picture.province, picture.plan, names)
        else:
            data = await pictures.board(view(state, None), names, language=i18n.current())
        return png(data, f"tutorial-{lesson.key}.png", _("The lesson's position"))

    # --- the learner's place ------------------------------------------------------------------------------

    async def _saved(self, user_id: int) -> int:
        step = (await self.ctx.store.get_user_settings(user_id)).get(SETTING)
        return int(step) if isinstance(step, int) and 0 <= step <= len(lessons.steps()) else 0

    async def _save(self, user_id: int, step: int) -> None:
        await self.ctx.store.update_user_settings(user_id, {SETTING: step}, self.ctx.clock())
