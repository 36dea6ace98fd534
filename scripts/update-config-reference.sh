#!/usr/bin/env bash
# Rewrites docs/config-reference.md (between the config-reference markers)
# from the declarations, via `trainer config --reference`.
# A test fails when the file and the declarations disagree.
set -euo pipefail
cd "$(dirname "$0")/.."
trainer=${1:-build/trainer}
reference=$(mktemp)
trap 'rm -f "$reference"' EXIT
"$trainer" config --reference > "$reference"
/usr/bin/python3 - "$reference" <<'PY'
import sys
begin, end = "<!-- config-reference:begin -->\n", "<!-- config-reference:end -->"
readme = open("docs/config-reference.md").read()
head, rest = readme.split(begin, 1)
tail = rest.split(end, 1)[1]
open("docs/config-reference.md.tmp", "w").write(head + begin + open(sys.argv[1]).read() + end + tail)
PY
mv docs/config-reference.md.tmp docs/config-reference.md
echo "docs/config-reference.md: updated"
