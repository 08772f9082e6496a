/*
 * libbenchfarm_bench_main: main() for a program that only defines
 * benchmarks. Linked after the program's objects, it is used only when
 * the program has no main of its own.
 */
#include "benchfarm/bench.h"

int main(int argc, char **argv)
{
	return bf_bench_main(argc, argv);
}
