#!/usr/bin/env bash
# Makes test/clients/.venv (git-ignored) with the pinned clients of requirements.txt, from PyPI with
# pip's defaults. Quick when it is already there for the same requirements (a stamp file says so).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
venv="$(dirname "$here")/.venv"
requirements="$here/requirements.txt"
stamp="$venv/.requirements.txt"
if [ -x "$venv/bin/python" ] && cmp -s "$requirements" "$stamp"; then
  exit 0
fi
rm -rf "$venv"
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check -r "$requirements"
cp "$requirements" "$stamp"
