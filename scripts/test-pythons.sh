#!/usr/bin/env bash
# The core tier of the suite on Pythons other than CI's (3.11), each in its own venv
# (.venv-<version>) synced from uv.lock. Not in .ci/run: with the full suite it would pass
# CI's ~10 minute test budget on 2 cores (docs/packaging.md).
# Usage: bash scripts/test-pythons.sh [python3.10 python3.12 python3.13 | /path/to/python ...]
set -euo pipefail
cd "$(dirname "$0")/.."
UV=$(command -v uv || "$(command -v python3)" -c 'import uv; print(uv.find_uv_bin())')

interpreter() {  # a command or path that runs, else pyenv's build of that version
  if "$1" -V >/dev/null 2>&1; then command -v "$1"; return; fi
  local version
  version=$(pyenv versions --bare 2>/dev/null | grep -E "^${1#python}(\.|$)" | tail -1 || true)
  [ -n "$version" ] && echo "$(pyenv root)/versions/$version/bin/python"
}

[ $# -gt 0 ] || set -- python3.10 python3.12 python3.13
status=0
for requested in "$@"; do
  python=$(interpreter "$requested") || { echo "no $requested here" >&2; status=1; continue; }
  version=$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
  UV_PROJECT_ENVIRONMENT=".venv-$version" UV_PYTHON_DOWNLOADS=never \
    "$UV" sync --quiet --locked --all-extras --group dev --python "$python"
  echo "== Python $version ($python)"
  ".venv-$version/bin/python" -m pytest -q -p no:cacheprovider -m core || status=1
done
exit $status
