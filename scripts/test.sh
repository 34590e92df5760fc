#!/usr/bin/env bash
# Install what the tests need (Python packages; Debian's chromium for the browser tests), then run them.
# Used by the README and by CI.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  fi
fi
python -m pip install --quiet -r requirements-dev.txt
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
# The tests start many `python -m memory` processes: let Python keep their compiled modules.
unset PYTHONDONTWRITEBYTECODE
# Every core, each test file on one worker (module-scoped fixtures, such as the browser tests' app server,
# are built once), files in collection order: tests/conftest.py starts the longest first (xdist would
# otherwise start the files with the most tests first and leave a long one-test file for last).
# `bash scripts/test.sh -n 0` runs everything in one process.
python -m pytest -n auto --dist loadfile --no-loadscope-reorder "$@"
