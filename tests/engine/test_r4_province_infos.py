"""R4.4, R4.5: ``province_infos`` (each province's value, symbol spaces, owner and guards, worked out once a
state from shapes it keeps and from the guards on the map) says what the rules' own functions say of each
province, on states of whole games on every shipped map."""

from __future__ import annotations

import dataclasses

import pytest

from engine import rules
from tests.engine.test_r4_1_splits import MAPS, states


@pytest.mark.parametrize("name", MAPS)
def test_r4_4_r4_5_province_infos_agree_with_each_provinces_rules(name: str) -> None:
    owned = 0
    for state in states(name, 3, players=4):
        fresh = dataclasses.replace(state)  # nothing kept from before
        infos = rules.province_infos(fresh)
        assert [i.id for i in infos] == [p.id for p in fresh.provinces]
        for info, p in zip(infos, fresh.provinces, strict=True):
            assert info.spaces == p.spaces
            assert info.value == rules.province_value(fresh, p)
            assert info.symbol_spaces == rules.province_symbol_spaces(fresh, p)
            assert info.owner == rules.province_owner(fresh, p)
            assert info.guards == tuple(sorted(s for s in p.spaces if s in fresh.guard_owner))
            owned += info.owner is not None
    assert owned > 20
