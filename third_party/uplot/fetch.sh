#!/bin/sh
# Re-fetch uPlot from the npm registry and verify the vendored copy:
# the tarball's SHA-256 against SHA256SUMS, and each kept file against
# the tarball's. --update replaces the kept files and SHA256SUMS instead
# (after a change of VERSION).
set -eu
VERSION=1.6.32
DIR=$(cd "$(dirname "$0")" && pwd)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/uplot-vendor.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
KEPT="LICENSE uPlot.iife.min.js uPlot.min.css"

(cd "$TMP" && npm pack --silent "uplot@$VERSION" >/dev/null)
TGZ="uplot-$VERSION.tgz"
[ -f "$TMP/$TGZ" ] || {
	echo "vendor-check: npm pack uplot@$VERSION wrote no $TGZ" >&2
	exit 1
}
tar -xzf "$TMP/$TGZ" -C "$TMP"
src() {
	case $1 in
	LICENSE) echo "$TMP/package/LICENSE" ;;
	*) echo "$TMP/package/dist/$1" ;;
	esac
}
if [ "${1:-}" = --update ]; then
	for f in $KEPT; do cp "$(src "$f")" "$DIR/$f"; done
	(cd "$TMP" && sha256sum "$TGZ") >"$DIR/SHA256SUMS"
	(cd "$DIR" && sha256sum $KEPT) >>"$DIR/SHA256SUMS"
	echo "vendor-check: updated $DIR to uplot $VERSION; review the diff"
	exit 0
fi
# the tarball as the registry serves it now, then the kept files
grep " $TGZ\$" "$DIR/SHA256SUMS" >"$TMP/tgz.sum" || {
	echo "vendor-check: SHA256SUMS has no line for $TGZ" >&2
	exit 1
}
(cd "$TMP" && sha256sum -c --quiet tgz.sum) || {
	echo "vendor-check: the registry's $TGZ differs from SHA256SUMS" >&2
	exit 1
}
grep -v " $TGZ\$" "$DIR/SHA256SUMS" >"$TMP/kept.sum"
(cd "$DIR" && sha256sum -c --quiet "$TMP/kept.sum") || {
	echo "vendor-check: a file in $DIR differs from SHA256SUMS" >&2
	exit 1
}
for f in $KEPT; do
	cmp -s "$(src "$f")" "$DIR/$f" || {
		echo "vendor-check: $DIR/$f is not the one in $TGZ" >&2
		exit 1
	}
done
echo "vendor-check: uplot $VERSION verified ($TGZ and $KEPT)"
