#!/bin/sh
# Fails when a tracked C file differs from clang-format-14's output
# (the version is pinned because its output changes between versions).
set -eu
cd "$(dirname "$0")/.."
CF=clang-format-14
if ! command -v $CF >/dev/null 2>&1; then
	echo "style-check: $CF not found; run ci/deps.sh" >&2
	exit 2
fi
files=$(git ls-files '*.c' '*.h' 2>/dev/null || true)
[ -z "$files" ] && files=$(find core orchestrator agent plugins tests bench \
	-name '*.[ch]' 2>/dev/null)
# shellcheck disable=SC2086
if ! $CF --dry-run --Werror $files 2>/tmp/bf-style.$$; then
	grep -E '^[^ ]+:[0-9]+:[0-9]+:' /tmp/bf-style.$$ | cut -d: -f1 |
		sort -u | sed 's/^/style-check: not formatted: /' >&2
	echo "style-check: run 'make format'" >&2
	rm -f /tmp/bf-style.$$
	exit 1
fi
rm -f /tmp/bf-style.$$
# Every relative markdown link resolves inside the repository.
ci/check-links.sh >/dev/null
echo "style-check: ok"
