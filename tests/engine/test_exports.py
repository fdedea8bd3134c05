"""The engine package exports what others build on: every event class and every part of the state."""

from __future__ import annotations

import dataclasses
import enum

import engine
from engine import events, state


def _public_types(module: object) -> set[str]:
    return {
        name
        for name, obj in vars(module).items()
        if isinstance(obj, type)
        and obj.__module__ == getattr(module, "__name__", "")
        and (dataclasses.is_dataclass(obj) or issubclass(obj, enum.Enum))
    }


def test_every_event_class_and_state_type_is_exported() -> None:
    for name in _public_types(events) | _public_types(state):
        defined = getattr(events, name, None) or getattr(state, name)
        assert name in engine.__all__ and getattr(engine, name, None) is defined, name
    assert set(engine.EVENT_TYPES) == {getattr(events, n) for n in _public_types(events)}


def test_everything_in_all_exists() -> None:
    assert all(hasattr(engine, name) for name in engine.__all__)
