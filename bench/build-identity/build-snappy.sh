#!/bin/sh
# The build benchfarm runs in each exported commit of google/snappy
# (bench/build-identity/record.sh names this file by its absolute path
# in project.build, so no build command comes from the project). It
# stands in for snappy's CMake build with fixed inputs: the headers
# CMake would generate (config.h from cmake/config.h.in,
# snappy-stubs-public.h from its .in) written here for x86-64 Linux with
# no -march flag (no SSSE3, BMI2 or CRC32 code paths, no zlib, LZO or
# LZ4 comparisons), then the library and snappy_benchmark compiled with
# one fixed set of flags and linked against Debian's libbenchmark.
# C++17, not the C++11 of snappy's CMakeLists.txt: under C++11 two
# commits of the range (9758c9d, d644ca8) do not compile
# (std::string::data() is const there; 974fcc4 and 984b191 fixed it).
#
# Output: out/snappy_benchmark and out/testdata (a copy of the commit's
# testdata/, which the benchmark reads from $srcdir/testdata), nothing
# else: the generated headers (gen/) and objects (obj/) stay outside the
# artifact, so that a header that differs without changing the code (the
# version number of a release commit) is not part of what is shipped.
#
# -ffile-prefix-map maps the export's directory to ".", so where a
# commit was exported does not enter the binary (__FILE__ in CHECK
# messages); without -g nothing else names it.
#
# Usage: build-snappy.sh   (in the root of a snappy checkout)
set -eu
case ${1:-} in
-h | --help)
	sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'
	exit 0
	;;
esac
for f in snappy.cc snappy_benchmark.cc cmake/config.h.in; do
	if [ ! -f "$f" ]; then
		echo "$0: not a snappy tree with snappy_benchmark.cc (no $f): $(pwd)" >&2
		exit 2
	fi
done
CXX=${BF_SNAPPY_CXX:-g++}
here=$(pwd)
rm -rf out gen obj
mkdir -p out gen obj

# config.h: every #cmakedefine01 of the commit's template 1 for what
# this machine has and 0 for the rest, every #cmakedefine (the template
# before cbb83a1) defined as 1 or left undefined; a name this list does
# not know is off, as CMake leaves an unset variable.
awk '
BEGIN {
	split("HAVE_ATTRIBUTE_ALWAYS_INLINE HAVE_BUILTIN_CTZ HAVE_BUILTIN_EXPECT " \
	    "HAVE_BUILTIN_PREFETCH HAVE_FUNC_MMAP HAVE_FUNC_SYSCONF " \
	    "HAVE_SYS_MMAN_H HAVE_SYS_RESOURCE_H HAVE_SYS_TIME_H HAVE_SYS_UIO_H " \
	    "HAVE_UNISTD_H", on, " ")
	for (i in on)
		yes[on[i]] = 1
}
$1 == "#cmakedefine01" { print "#define " $2 " " ($2 in yes ? 1 : 0); next }
$1 == "#cmakedefine" {
	print ($2 in yes ? "#define " $2 " 1" : "/* #undef " $2 " */")
	next
}
{ print }
' cmake/config.h.in >gen/config.h

# snappy-stubs-public.h: the version from CMakeLists.txt's project().
ver=$(sed -n 's/^project(Snappy VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
[ -n "$ver" ] || { echo "$0: no project(Snappy VERSION ...) in CMakeLists.txt" >&2; exit 2; }
major=${ver%%.*}
rest=${ver#*.}
minor=${rest%%.*}
patch=${rest#*.}
# shellcheck disable=SC2016 # CMake's ${VAR}, replaced literally
sed -e 's/\${HAVE_SYS_UIO_H_01}/1/g' \
	-e "s/\${PROJECT_VERSION_MAJOR}/$major/g" \
	-e "s/\${PROJECT_VERSION_MINOR}/$minor/g" \
	-e "s/\${PROJECT_VERSION_PATCH}/$patch/g" \
	snappy-stubs-public.h.in >gen/snappy-stubs-public.h

FLAGS="-std=c++17 -O2 -DNDEBUG -DHAVE_CONFIG_H -fno-exceptions -Wno-sign-compare
	-ffile-prefix-map=$here=. -Igen -I."
objs=
for f in snappy.cc snappy-sinksource.cc snappy-stubs-internal.cc snappy-c.cc \
	snappy-test.cc snappy_test_data.cc snappy_benchmark.cc; do
	o=obj/${f%.cc}.o
	# shellcheck disable=SC2086
	$CXX $FLAGS -c -o "$o" "$f"
	objs="$objs $o"
done
# shellcheck disable=SC2086
$CXX -o out/snappy_benchmark $objs -lbenchmark_main -lbenchmark -lpthread
cp -R testdata out/testdata
