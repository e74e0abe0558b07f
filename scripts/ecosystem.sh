#!/usr/bin/env bash
# Install the MindSpore ecosystem packages of tests/ecosystem/packages.txt, each with `pip install --no-deps`
# into its own directory of the cache ($MINDSEED_ECO_CACHE, default ~/.cache/mindseed-eco/<name>-<version>),
# as a user would next to mindseed, together with the third-party packages its line lists after it (the ones it
# imports itself). Already installed ones are kept (reinstalled when that list changed). A package that fails to install is
# reported and its tests skip; the script then exits 1.
set -uo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-.venv/bin/python}
cache=${MINDSEED_ECO_CACHE:-$HOME/.cache/mindseed-eco}
status=0
while read -r spec extras; do
  case "$spec" in ''|'#'*) continue ;; esac
  extras=${extras%%#*}
  extras=$(echo $extras)
  dir="$cache/${spec/==/-}"
  if [ ! -f "$dir/.installed" ] || [ "$(cat "$dir/.installed")" != "$extras" ]; then
    rm -rf "$dir"
    # shellcheck disable=SC2086
    if "$PY" -m pip install -q --disable-pip-version-check --no-deps --no-compile --target "$dir" "$spec" $extras 2>&1 \
        | grep -v "is ignored: it is neither a file nor a directory"; [ "${PIPESTATUS[0]}" -eq 0 ]; then
      printf '%s' "$extras" > "$dir/.installed"
    else
      echo "ecosystem.sh: could not install $spec; its tests in tests/ecosystem will skip" >&2
      status=1
      continue
    fi
  fi
  # the bytecode, compiled here once (up-to-date files are skipped): with PYTHONDONTWRITEBYTECODE set, as in CI, the
  # tests would otherwise compile every module of a package and its third-party packages at each import
  "$PY" -m compileall -q -j 0 "$dir" > /dev/null 2>&1 || true
done < tests/ecosystem/packages.txt
exit $status
