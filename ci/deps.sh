#!/bin/sh
# Installs the Debian packages benchfarm's build and tests need, only the
# ones missing, so it is cheap to call before every `make check`/`demo`.
set -eu

# chromium, nodejs and npm: the HTML reports are checked in headless
# Chromium driven by playwright-core from npm (tests/browser/). npm is
# asked for only when no npm is on PATH: a nodejs that ships its own
# (NodeSource's) conflicts with Debian's npm package.
# libclang-rt-14-dev holds libFuzzer and clang's sanitizer runtimes (the
# fuzz targets of t0090); it is only a recommendation of clang, which
# --no-install-recommends below leaves out, so it is named here.
# postgresql-15 and libpq-dev: the store's PostgreSQL backend links
# libpq, and its tests run a real server (ci/pg.sh).
# bubblewrap: each build of a side runs in a bwrap sandbox
# (orchestrator/git/sandbox.c; t0122).

PKGS="gcc make pkg-config git
libgit2-dev libssh2-1-dev libjansson-dev libyaml-dev libsqlite3-dev
libcmocka-dev libbenchmark-dev g++ locales
openssh-server openssh-client hyperfine sqlite3 jq bc clang-format-14 clang
libxml2-utils chromium nodejs uftrace valgrind python3-jsonschema
libclang-rt-14-dev cmark-gfm postgresql-15 libpq-dev libelf-dev bubblewrap"
# BF_DEPS_BENCH=1 (make bench): Google Benchmark's compare.py and the
# scipy its U test runs on, the peer bench/verdict-power judges beside.
[ "${BF_DEPS_BENCH:-}" = 1 ] && PKGS="$PKGS libbenchmark-tools python3-scipy"

missing=
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
		grep -q 'install ok installed'; then
		missing="$missing $p"
	fi
done
command -v npm >/dev/null 2>&1 || missing="$missing npm"
[ -z "$missing" ] && exit 0

echo "deps: installing:$missing" >&2
SUDO=
if [ "$(id -u)" != 0 ]; then
	if command -v sudo >/dev/null 2>&1; then
		SUDO=sudo
	else
		echo "deps: need root to install:$missing" >&2
		echo "deps: run 'apt-get install$missing' as root" >&2
		exit 3
	fi
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
