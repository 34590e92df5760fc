#!/usr/bin/env bash
# Install what the tests need, then run them. Used by the README and by CI.
set -euo pipefail
cd "$(dirname "$0")/.."
python -m pip install --quiet torch==2.13.0
python -m pip install --quiet -r requirements-dev.txt
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
python -m pytest "$@"
