#!/bin/sh
# The fuzz targets (tests/fuzz/): built with clang, libFuzzer, ASan and
# UBSan (make fuzz-build), each run for a few seconds from its seeds after
# replaying the crashers kept in tests/fuzz/regress/. A crash, a leak or
# undefined behaviour fails the check; `make fuzz FUZZ_SECONDS=N` runs
# them longer.
. "$(dirname "$0")/lib.sh"

if ! command -v clang >/dev/null 2>&1; then
	echo "ok 1 # skip no clang (make deps installs it)"
	exit 0
fi
# Its own clang build of the whole tree: on every core the machine has
# (make check itself may run without -j).
if make -s -j"$(nproc)" -C "$BF_SRC" fuzz-build >"$T/build.log" 2>&1; then
	t_ok "the fuzz targets build (clang, libFuzzer, ASan, UBSan)"
else
	tail -20 "$T/build.log" | sed 's/^/#   /'
	t_fail "the fuzz targets build"
	exit 0
fi
BF_FUZZ_BUILD="$BF_SRC/build/fuzz" "$BF_SRC/tests/fuzz/run.sh" \
	"${BF_FUZZ_SECONDS:-2}" config proto serve agentconn parse analyze trace \
	report sysfs
