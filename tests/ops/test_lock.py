"""The lock (requirements/*.lock) stays true to pyproject.toml: every dependency and test extra is pinned
exactly, within its range, with hashes; and the README, the Dockerfile and CI install from it."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def pins(lock: str) -> dict[str, tuple[str, list[str]]]:
    """name -> (version, hashes) of a lock written by uv pip compile --generate-hashes."""
    text = (ROOT / "requirements" / lock).read_text(encoding="utf-8")
    found: dict[str, tuple[str, list[str]]] = {}
    for entry in re.split(r"\n(?=[A-Za-z0-9])", text):
        first = entry.split("\\", 1)[0].strip()
        if first.startswith("#") or not first:
            continue
        m = re.match(r"([A-Za-z0-9_.-]+)==([^\s;]+)", first)
        assert m, f"{lock}: not an exact pin: {first!r}"
        found[canonicalize_name(m[1])] = (m[2], re.findall(r"--hash=sha256:([0-9a-f]{64})", entry))
    return found


@pytest.mark.parametrize(
    ("lock", "requirements"),
    [
        ("run.lock", PROJECT["dependencies"]),
        ("test.lock", PROJECT["dependencies"] + PROJECT["optional-dependencies"]["test"]),
    ],
)
def test_every_dependency_is_pinned_within_its_range_with_hashes(lock: str, requirements: list[str]) -> None:
    locked = pins(lock)
    for line in requirements:
        req = Requirement(line)
        if req.marker is not None and not req.marker.evaluate():
            continue
        name = canonicalize_name(req.name)
        assert name in locked, f"{req.name} is in pyproject.toml but not in {lock}: run tools/lock.sh"
        version, _ = locked[name]
        assert req.specifier.contains(version, prereleases=True), f"{lock}: {name}=={version} is not {req}"
    for name, (version, hashes) in locked.items():
        assert hashes, f"{lock}: {name}=={version} has no hash"


def test_the_run_lock_is_the_test_locks_runtime_part() -> None:
    run, test = pins("run.lock"), pins("test.lock")
    assert {n: v for n, (v, _) in run.items()} == {n: test[n][0] for n in run}


def test_readme_dockerfile_and_ci_install_from_the_lock() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "pip install --require-hashes -r requirements/run.lock && pip install --no-deps ." in readme
    test_command = "-r requirements/test.lock && pip install --no-deps -e . && pytest"
    assert "pip install --require-hashes " + test_command in readme
    dockerfile = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    assert "--require-hashes -r requirements/run.lock" in dockerfile and "--no-deps ." in dockerfile
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "requirements/test\\.lock" in ci and "python3 -m venv" in ci
