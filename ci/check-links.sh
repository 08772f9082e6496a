#!/bin/sh
# Fails when a relative link in a markdown file of the repository does
# not resolve to a file inside it: [text](path), [text](path#anchor),
# [ref]: path, and an anchor must name a heading of the target
# (GitHub's slugs). Links with a scheme (https:, mailto:) are not
# followed; links inside code (fenced blocks, `spans`) are not links,
# but a code span naming a markdown file up the tree (`../x/Y.md`) is
# checked like one: a reader follows it all the same.
# Usage: ci/check-links.sh [ROOT] (default: this repository; the files
# are the tracked *.md files, or every *.md below ROOT outside git).
set -u
root=$(cd "${1:-$(dirname "$0")/..}" && pwd -P) || exit 2
cd "$root" || exit 2
files=$(git ls-files --cached --others --exclude-standard '*.md' 2>/dev/null)
[ -z "$files" ] && files=$(find . -name '*.md' -not -path './build/*' \
	-not -path './.git/*' | sed 's|^\./||' | sort)

# file<TAB>line<TAB>target for every link outside code.
links() {
	awk '
	/^[ \t]*(```|~~~)/ { fence = !fence; next }
	fence { next }
	{
		line = $0
		rest = line
		while (match(rest, /`\.\.\/[^` ]*\.md`/)) {
			print FILENAME "\t" FNR "\t" substr(rest, RSTART + 1, RLENGTH - 2)
			rest = substr(rest, RSTART + RLENGTH)
		}
		gsub(/`[^`]*`/, "", line)
		if (match(line, /^ ? ? ?\[[^]]+\]:[ \t]+[^ \t]+/)) {
			t = substr(line, RSTART, RLENGTH)
			sub(/^ ? ? ?\[[^]]+\]:[ \t]+/, "", t)
			print FILENAME "\t" FNR "\t" t
		}
		while (match(line, /\]\([^) \t]+/)) {
			print FILENAME "\t" FNR "\t" substr(line, RSTART + 2, RLENGTH - 2)
			line = substr(line, RSTART + RLENGTH)
		}
	}' "$@"
}

# The GitHub anchors of a markdown file's headings, one a line.
anchors() {
	awk '/^[ \t]*(```|~~~)/ { fence = !fence; next }
	!fence && /^#+ / { sub(/^#+ +/, ""); print }' "$1" |
		tr 'A-Z' 'a-z' | sed -e 's/[^a-z0-9 _-]//g' -e 's/ /-/g'
}

bad=0
tab=$(printf '\t')
# shellcheck disable=SC2086
links $files >"${TMPDIR:-/tmp}/bf-links.$$"
while IFS="$tab" read -r file line target; do
	case $target in
	*:*) continue ;; # a scheme: https:, mailto:
	esac
	path=${target%%#*}
	anchor=
	case $target in *#*) anchor=${target#*#} ;; esac
	dir=$(dirname "$file")
	if [ -z "$path" ]; then
		dest=$file
	else
		case $path in
		/*) dest=.$path ;;
		*) dest=$dir/$path ;;
		esac
	fi
	if [ ! -e "$dest" ]; then
		echo "check-links: $file:$line: '$target' does not exist" >&2
		bad=1
		continue
	fi
	real=$(cd "$(dirname "$dest")" && pwd -P)/$(basename "$dest")
	case $real in
	"$root" | "$root"/*) ;;
	*)
		echo "check-links: $file:$line: '$target' is outside the repository" >&2
		bad=1
		continue
		;;
	esac
	if [ -n "$anchor" ] && [ -f "$dest" ] &&
		! anchors "$dest" | grep -qxF -- "$anchor"; then
		echo "check-links: $file:$line: '$target': no heading '#$anchor' in $dest" >&2
		bad=1
	fi
done <"${TMPDIR:-/tmp}/bf-links.$$"
rm -f "${TMPDIR:-/tmp}/bf-links.$$"
[ "$bad" -eq 0 ] && echo "check-links: ok"
exit "$bad"
