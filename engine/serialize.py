"""JSON for states, actions, events and views, with a schema version.

The codec is driven by the dataclasses' type hints, so a new field needs no codec change. Every object
carries its class name under ``"type"``; tuples and frozensets become lists (frozensets sorted, so the same
value always gives the same text); enums become their values; a map is stored as its whole text, so that
an old save keeps its own map even after the packaged map changes.
"""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from enum import Enum
from functools import cache
from typing import Any, Union

from engine import actions, events, state, views
from engine.maps import Map, parse_map

SCHEMA_VERSION = 1

_CLASSES: dict[str, type] = {}
for _module in (actions, events, state, views):
    for _name, _obj in vars(_module).items():
        if isinstance(_obj, type) and dataclasses.is_dataclass(_obj):
            _CLASSES[_name] = _obj


class SchemaError(ValueError):
    """A document that this version cannot read."""


def to_data(value: Any) -> Any:
    """Any engine value -> plain JSON-able data."""
    if value is None or isinstance(value, bool | int | str):
        return value.value if isinstance(value, Enum) else value
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, Map):
        return {"type": "Map", "text": value.text}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out: dict[str, Any] = {"type": type(value).__name__}
        for f in dataclasses.fields(value):
            item = getattr(value, f.name)
            if f.metadata.get("omit_default") and item == f.default:
                continue  # a field added later, written only when set (engine.state.GameState.undo)
            out[f.name] = to_data(item)
        if isinstance(value, state.UndoTrail):
            # P10's points share the game's map: written once, by the state that holds the trail.
            out["points"] = [{k: v for k, v in p.items() if k != "map"} for p in out["points"]]
        return out
    if isinstance(value, frozenset):
        return sorted((to_data(v) for v in value), key=json.dumps)
    if isinstance(value, tuple | list):
        return [to_data(v) for v in value]
    raise TypeError(f"cannot serialize {type(value).__name__}")


def from_data(data: Any, hint: Any = None) -> Any:
    """Plain data -> engine value, guided by a type hint (or the ``"type"`` tag of an object)."""
    if hint is None or hint is Any:
        if isinstance(data, dict) and "type" in data:
            return _object(data)
        return data
    origin = typing.get_origin(hint)
    if origin in (Union, types.UnionType):
        args = typing.get_args(hint)
        if data is None:
            if type(None) in args:
                return None
            raise SchemaError(f"null where {hint} was expected")
        if isinstance(data, dict) and "type" in data:
            return _object(data)
        for arg in args:
            if arg is type(None):
                continue
            try:
                return from_data(data, arg)
            except (SchemaError, ValueError, TypeError):
                continue
        raise SchemaError(f"{data!r} is not a {hint}")
    if origin is tuple:
        args = typing.get_args(hint)
        if not isinstance(data, list):
            raise SchemaError(f"expected a list for {hint}, got {data!r}")
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(from_data(v, args[0]) for v in data)
        if len(args) != len(data):
            raise SchemaError(f"expected {len(args)} items for {hint}, got {len(data)}")
        return tuple(from_data(v, a) for v, a in zip(data, args, strict=True))
    if origin is frozenset:
        (arg,) = typing.get_args(hint)
        return frozenset(from_data(v, arg) for v in data)
    if hint is Map:
        return parse_map(data["text"])
    if isinstance(hint, type) and issubclass(hint, Enum):
        return hint(data)
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return _object(data, hint)
    if hint in (int, str, bool):
        if not isinstance(data, hint) or (hint is int and isinstance(data, bool)):
            raise SchemaError(f"expected {hint.__name__}, got {data!r}")
        return data
    if hint is object:
        return data
    raise SchemaError(f"unsupported hint {hint}")


@cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def _object(data: dict[str, Any], expected: type | None = None) -> Any:
    if not isinstance(data, dict):
        raise SchemaError(f"expected an object, got {data!r}")
    name = data.get("type")
    cls = _CLASSES.get(name) if isinstance(name, str) else expected
    if name == "Map":
        return parse_map(data["text"])
    if cls is None:
        raise SchemaError(f"unknown type {name!r}")
    if expected is not None and cls is not expected:
        raise SchemaError(f"expected {expected.__name__}, got {name}")
    if cls is state.GameState and isinstance(data.get("undo"), dict) and "map" in data:
        return _with_trail(data)
    hints = _hints(cls)
    kwargs = {}
    for f in dataclasses.fields(cls):
        if f.name in data:
            kwargs[f.name] = from_data(data[f.name], hints[f.name])
        elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            raise SchemaError(f"{cls.__name__} lacks {f.name!r}")
    return cls(**kwargs)


def _with_trail(data: dict[str, Any]) -> state.GameState:
    """A state with P10's undo trail, whose points were written without the map they share with it."""
    outer: state.GameState = _object({k: v for k, v in data.items() if k != "undo"}, state.GameState)
    trail = data["undo"]
    points = tuple(
        _object({**p, "map": data["map"]}, state.GameState) if "map" not in p else _object(p, state.GameState)
        for p in trail.get("points", [])
    )
    points = tuple(dataclasses.replace(p, map=outer.map) for p in points)
    undo = state.UndoTrail(points, bool(trail.get("step_open")), bool(trail.get("revealed")))
    return dataclasses.replace(outer, undo=undo)


def dump(value: Any) -> dict[str, Any]:
    """A state, action, event or view as a JSON-able document with the schema version."""
    return {"schema": SCHEMA_VERSION, "value": to_data(value)}


def load(document: dict[str, Any]) -> Any:
    schema = document.get("schema")
    if not isinstance(schema, int) or schema > SCHEMA_VERSION or schema < 1:
        raise SchemaError(f"unsupported schema version {schema!r} (this engine reads up to {SCHEMA_VERSION})")
    return from_data(document["value"])


def dumps(value: Any) -> str:
    return json.dumps(dump(value), separators=(",", ":"), ensure_ascii=False)


def loads(text: str) -> Any:
    return load(json.loads(text))
