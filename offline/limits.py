"""Discord API limits that discord.py does not check, as pure functions over JSON payloads.

Each ``check_*`` function returns a list of human-readable violations (empty when the payload is fine), so
they can be used on recorded requests, on the command tree payload, or directly in a unit test.
Discord would answer such requests with HTTP 400, or silently truncate; offline we would never notice.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

CONTENT_MAX = 2000
CUSTOM_ID_MAX = 100
ACTION_ROWS_MAX = 5
BUTTONS_PER_ROW_MAX = 5
SELECT_OPTIONS_MAX = 25
SELECT_LABEL_MAX = 100
SELECT_VALUE_MAX = 100
SELECT_DESCRIPTION_MAX = 100
BUTTON_LABEL_MAX = 80
PLACEHOLDER_MAX = 150
MODAL_TITLE_MAX = 45
TEXT_INPUT_LABEL_MAX = 45
CHOICES_MAX = 25
CHOICE_NAME_MAX = 100
CHOICE_STRING_VALUE_MAX = 100
OPTIONS_MAX = 25
COMMANDS_MAX = 100
NAME_RE = re.compile(r"^[-_\w]{1,32}$")
DESCRIPTION_MAX = 100
EMBEDS_MAX = 10
EMBED_TOTAL_MAX = 6000
EMBED_TITLE_MAX = 256
EMBED_DESCRIPTION_MAX = 4096
EMBED_FIELDS_MAX = 25
EMBED_FIELD_NAME_MAX = 256
EMBED_FIELD_VALUE_MAX = 1024
EMBED_FOOTER_MAX = 2048
EMBED_AUTHOR_MAX = 256
ATTACHMENTS_MAX = 10
V2_COMPONENTS_MAX = 40

BUTTON, SELECT_TYPES, TEXT_INPUT, ACTION_ROW, LABEL = 2, {3, 5, 6, 7, 8}, 4, 1, 18


def _len(value: Any) -> int:
    return len(value) if isinstance(value, str) else 0


def check_message(data: dict[str, Any] | None, *, new: bool = False) -> list[str]:
    """Limits of a message body (channel send, edit, interaction message, followup).

    ``new`` adds the rules for creating a message: it must not be empty.
    """
    data = data or {}
    out: list[str] = []
    v2 = bool((data.get("flags") or 0) & (1 << 15))
    if new and not (
        data.get("content")
        or data.get("embeds")
        or data.get("components")
        or data.get("attachments")
        or data.get("poll")
        or data.get("sticker_ids")
    ):
        out.append("empty message (Discord answers 'Cannot send an empty message')")
    if v2 and (data.get("content") or data.get("embeds")):
        out.append("a components-v2 message cannot have content or embeds")
    content = data.get("content")
    if isinstance(content, str) and len(content) > CONTENT_MAX:
        out.append(f"content is {len(content)} characters (max {CONTENT_MAX})")
    out += check_embeds(data.get("embeds") or [])
    out += check_components(data.get("components") or [], v2=v2)
    attachments = data.get("attachments") or []
    if len(attachments) > ATTACHMENTS_MAX:
        out.append(f"{len(attachments)} attachments (max {ATTACHMENTS_MAX})")
    return out


def check_embeds(embeds: list[dict[str, Any]]) -> list[str]:
    out: list[str] = []
    if len(embeds) > EMBEDS_MAX:
        out.append(f"{len(embeds)} embeds (max {EMBEDS_MAX})")
    total = 0
    for i, embed in enumerate(embeds):
        title, desc = _len(embed.get("title")), _len(embed.get("description"))
        footer = _len((embed.get("footer") or {}).get("text"))
        author = _len((embed.get("author") or {}).get("name"))
        total += title + desc + footer + author
        if title > EMBED_TITLE_MAX:
            out.append(f"embed {i} title is {title} characters (max {EMBED_TITLE_MAX})")
        if desc > EMBED_DESCRIPTION_MAX:
            out.append(f"embed {i} description is {desc} characters (max {EMBED_DESCRIPTION_MAX})")
        if footer > EMBED_FOOTER_MAX:
            out.append(f"embed {i} footer is {footer} characters (max {EMBED_FOOTER_MAX})")
        if author > EMBED_AUTHOR_MAX:
            out.append(f"embed {i} author is {author} characters (max {EMBED_AUTHOR_MAX})")
        fields = embed.get("fields") or []
        if len(fields) > EMBED_FIELDS_MAX:
            out.append(f"embed {i} has {len(fields)} fields (max {EMBED_FIELDS_MAX})")
        for f in fields:
            name, value = _len(f.get("name")), _len(f.get("value"))
            total += name + value
            if name > EMBED_FIELD_NAME_MAX:
                out.append(f"embed {i} field name is {name} characters (max {EMBED_FIELD_NAME_MAX})")
            if value > EMBED_FIELD_VALUE_MAX:
                out.append(f"embed {i} field value is {value} characters (max {EMBED_FIELD_VALUE_MAX})")
    if total > EMBED_TOTAL_MAX:
        out.append(f"embeds hold {total} characters in all (max {EMBED_TOTAL_MAX})")
    return out


def _walk(components: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    for c in components:
        yield c
        yield from _walk(c.get("components") or [])
        if isinstance(c.get("component"), dict):
            yield from _walk([c["component"]])
        if isinstance(c.get("accessory"), dict):
            yield from _walk([c["accessory"]])


def _check_item(c: dict[str, Any]) -> list[str]:
    out: list[str] = []
    cid = c.get("custom_id")
    if cid is not None and not 1 <= len(cid) <= CUSTOM_ID_MAX:
        out.append(f"custom_id {cid[:40]!r}… is {len(cid)} characters (1..{CUSTOM_ID_MAX})")
    ctype = c.get("type")
    if ctype == BUTTON:
        if _len(c.get("label")) > BUTTON_LABEL_MAX:
            out.append(f"button label is {_len(c.get('label'))} characters (max {BUTTON_LABEL_MAX})")
        if not c.get("label") and not c.get("emoji"):
            out.append(f"button {cid!r} has neither label nor emoji")
        style = c.get("style")
        if style == 5 and (not c.get("url") or cid is not None):
            out.append("a link button needs a url and no custom_id")
        if style not in (5, 6) and cid is None:
            out.append("a non-link button needs a custom_id")
    if ctype in SELECT_TYPES:
        if _len(c.get("placeholder")) > PLACEHOLDER_MAX:
            out.append(f"select placeholder longer than {PLACEHOLDER_MAX} characters")
        options = c.get("options") or []
        if ctype == 3 and not 1 <= len(options) <= SELECT_OPTIONS_MAX:
            out.append(f"select {cid!r} has {len(options)} options (1..{SELECT_OPTIONS_MAX})")
        for o in options:
            if not 1 <= _len(o.get("label")) <= SELECT_LABEL_MAX:
                out.append(
                    f"select option label {str(o.get('label'))[:40]!r} is not 1..{SELECT_LABEL_MAX} chars"
                )
            if not 1 <= _len(o.get("value")) <= SELECT_VALUE_MAX:
                out.append(
                    f"select option value {str(o.get('value'))[:40]!r} is not 1..{SELECT_VALUE_MAX} chars"
                )
            if _len(o.get("description")) > SELECT_DESCRIPTION_MAX:
                out.append(f"select option description longer than {SELECT_DESCRIPTION_MAX} characters")
        min_values, max_values = c.get("min_values", 1), c.get("max_values", 1)
        if not 0 <= min_values <= max_values <= SELECT_OPTIONS_MAX:
            out.append(f"select {cid!r} needs 0 <= min_values <= max_values <= {SELECT_OPTIONS_MAX}")
        if ctype == 3 and options and max_values > len(options):
            out.append(f"select {cid!r} max_values {max_values} exceeds its {len(options)} options")
    if ctype == TEXT_INPUT and _len(c.get("label")) > TEXT_INPUT_LABEL_MAX:
        out.append(f"text input label is {_len(c.get('label'))} characters (max {TEXT_INPUT_LABEL_MAX})")
    return out


def check_components(components: list[dict[str, Any]], *, v2: bool = False) -> list[str]:
    """Action rows (≤ 5, each ≤ 5 buttons or exactly 1 select), custom ids, select options and labels."""
    out: list[str] = []
    if v2:
        count = sum(1 for _ in _walk(components))
        if count > V2_COMPONENTS_MAX:
            out.append(f"{count} components in a components-v2 message (max {V2_COMPONENTS_MAX})")
    else:
        if len(components) > ACTION_ROWS_MAX:
            out.append(f"{len(components)} action rows (max {ACTION_ROWS_MAX})")
        for i, row in enumerate(components):
            if row.get("type") != ACTION_ROW:
                out.append(f"top-level component {i} is type {row.get('type')}, not an action row")
                continue
            children = row.get("components") or []
            selects = [c for c in children if c.get("type") in SELECT_TYPES]
            if selects and len(children) != 1:
                out.append(f"action row {i} mixes a select with other components")
            if len(children) > BUTTONS_PER_ROW_MAX:
                out.append(f"action row {i} has {len(children)} components (max {BUTTONS_PER_ROW_MAX})")
            if not children:
                out.append(f"action row {i} is empty")
    ids: list[str] = []
    for c in _walk(components):
        out += _check_item(c)
        if c.get("custom_id"):
            ids.append(c["custom_id"])
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    if dupes:
        out.append(f"duplicate custom_id(s) in one message: {dupes}")
    return out


def check_modal(data: dict[str, Any]) -> list[str]:
    out: list[str] = []
    title = data.get("title") or ""
    if not 1 <= len(title) <= MODAL_TITLE_MAX:
        out.append(f"modal title {title[:50]!r} is {len(title)} characters (1..{MODAL_TITLE_MAX})")
    cid = data.get("custom_id") or ""
    if not 1 <= len(cid) <= CUSTOM_ID_MAX:
        out.append(f"modal custom_id is {len(cid)} characters (1..{CUSTOM_ID_MAX})")
    rows = data.get("components") or []
    if not 1 <= len(rows) <= ACTION_ROWS_MAX:
        out.append(f"modal has {len(rows)} top-level components (1..{ACTION_ROWS_MAX})")
    for c in _walk(rows):
        out += _check_item(c)
    return out


def check_choices(choices: list[dict[str, Any]]) -> list[str]:
    """Autocomplete results and static option choices."""
    out: list[str] = []
    if len(choices) > CHOICES_MAX:
        out.append(f"{len(choices)} choices (max {CHOICES_MAX})")
    for ch in choices:
        name = ch.get("name")
        if not 1 <= _len(name) <= CHOICE_NAME_MAX:
            out.append(f"choice name {str(name)[:40]!r} is not 1..{CHOICE_NAME_MAX} characters")
        value = ch.get("value")
        if isinstance(value, str) and len(value) > CHOICE_STRING_VALUE_MAX:
            out.append(
                f"choice value {value[:40]!r} is {len(value)} characters (max {CHOICE_STRING_VALUE_MAX})"
            )
    return out


def _check_name(kind: str, name: Any, *, slash: bool = True) -> list[str]:
    if not isinstance(name, str) or not name:
        return [f"{kind} has no name"]
    if slash and (not NAME_RE.match(name) or name != name.lower()):
        return [f"{kind} name {name!r} must be 1..32 lowercase letters, digits, '-' or '_'"]
    if not slash and not 1 <= len(name) <= 32:
        return [f"{kind} name {name!r} must be 1..32 characters"]
    return []


def _check_description(kind: str, desc: Any) -> list[str]:
    if not isinstance(desc, str) or not 1 <= len(desc) <= DESCRIPTION_MAX:
        return [f"{kind} description must be 1..{DESCRIPTION_MAX} characters, got {len(desc or '')}"]
    return []


def _check_options(path: str, options: list[dict[str, Any]]) -> list[str]:
    out: list[str] = []
    if len(options) > OPTIONS_MAX:
        out.append(f"/{path} has {len(options)} options (max {OPTIONS_MAX})")
    seen_optional = False
    names = [o.get("name") for o in options]
    if len(set(names)) != len(names):
        out.append(f"/{path} has duplicate option names")
    for o in options:
        sub = f"{path} {o.get('name')}"
        out += _check_name(f"option /{sub}", o.get("name"))
        out += _check_description(f"option /{sub}", o.get("description"))
        if o.get("type") in (1, 2):
            out += _check_options(sub, o.get("options") or [])
            continue
        if o.get("required"):
            if seen_optional:
                out.append(f"required option /{sub} comes after an optional one")
        else:
            seen_optional = True
        choices = o.get("choices") or []
        out += [f"/{sub}: {v}" for v in check_choices(choices)]
        if choices and o.get("autocomplete"):
            out.append(f"/{sub} has both choices and autocomplete")
    return out


def check_command_tree(commands: list[dict[str, Any]]) -> list[str]:
    """Limits of a bulk command payload (what ``tree.sync()`` would PUT) for one scope."""
    out: list[str] = []
    slash = [c for c in commands if c.get("type", 1) == 1]
    if len(slash) > COMMANDS_MAX:
        out.append(f"{len(slash)} slash commands (max {COMMANDS_MAX})")
    for c in commands:
        is_slash = c.get("type", 1) == 1
        out += _check_name("command", c.get("name"), slash=is_slash)
        if is_slash:
            out += _check_description(f"command /{c.get('name')}", c.get("description"))
            out += _check_options(str(c.get("name")), c.get("options") or [])
    return out
