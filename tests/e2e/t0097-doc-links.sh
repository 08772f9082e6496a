#!/bin/sh
# Every relative link of the repository's markdown files resolves to a
# file inside the repository (and its #anchor to a heading), and the
# checker (ci/check-links.sh) finds each kind of broken link.
. "$(dirname "$0")/lib.sh"

expect_exit 0 "every markdown link of the repository resolves" \
	sh "$BF_SRC/ci/check-links.sh" "$BF_SRC"
[ -s "$ERR" ] && t_fail "no complaint about the repository's links" ||
	t_ok "no complaint about the repository's links"

D="$T/docs-repo"
mkdir -p "$D/docs" "$T/outside"
echo "# Elsewhere" >"$T/outside/ARCHITECTURE.md"
cat >"$D/README.md" <<'X'
# Project

## The build cache

- [fine](docs/a.md), [fine anchor](docs/a.md#usage), [self](#the-build-cache)
- [missing](docs/missing.md)
- [bad anchor](docs/a.md#nowhere)
- `../outside/ARCHITECTURE.md`: data flow
- [outside](../outside/ARCHITECTURE.md)
- [web](https://example.invalid/x.md), `code [not](a-link.md)`

[ref]: docs/gone.md

```
[in a block](not/a/link.md)
```
X
printf '# A\n\n## Usage\n\nBack to [the top](../README.md).\n' >"$D/docs/a.md"
expect_exit 1 "broken links fail the check" sh "$BF_SRC/ci/check-links.sh" "$D"
grep_file "a missing file, with file and line" "README.md:6: 'docs/missing.md' does not exist" "$ERR"
grep_file "an anchor with no heading" "README.md:7: 'docs/a.md#nowhere': no heading '#nowhere'" "$ERR"
grep_file "a code span naming a file up the tree" "README.md:8: '../outside/ARCHITECTURE.md' is outside the repository" "$ERR"
grep_file "a link outside the repository" "README.md:9: '../outside/ARCHITECTURE.md' is outside the repository" "$ERR"
grep_file "a reference definition" "README.md:12: 'docs/gone.md' does not exist" "$ERR"
n=$(grep -c '^check-links: ' "$ERR")
[ "$n" -eq 5 ] && t_ok "nothing else is reported (web links, code, good links)" ||
	t_fail "nothing else is reported (got $n complaints)"
