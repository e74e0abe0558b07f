#!/usr/bin/env bash
# Set up the virtualenv if needed, lint (ruff, rules in pyproject.toml), then run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
.venv/bin/ruff check mindseed tests bench   # any finding fails the run (set -e)
exec .venv/bin/python -m pytest -n 2 --timeout=900 "$@"
