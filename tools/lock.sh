#!/usr/bin/env bash
# Refresh the lock: exact versions, with hashes, of everything the bot and its tests install.
# pyproject.toml's ranges stay the library contract; these files are what a machine installs.
# Run after changing a dependency in pyproject.toml (needs uv: pip install uv), and commit both files.
set -euo pipefail
cd "$(dirname "$0")/.."
common=(--generate-hashes --universal --python-version 3.11 --quiet)
uv pip compile pyproject.toml "${common[@]}" -o requirements/run.lock
uv pip compile pyproject.toml --extra test "${common[@]}" -o requirements/test.lock
echo "locked: $(grep -c '^[a-z]' requirements/run.lock) packages to run, $(grep -c '^[a-z]' requirements/test.lock) to test"
