/*
 * The noise study's noisy neighbour (bench/noise/record.sh starts it on
 * the other core and stops it with SIGTERM). It runs until killed:
 *   neighbour cpu          a dependent integer chain, no memory traffic
 *   neighbour mem          memcpy between two 128 MiB buffers (DRAM
 *                          bandwidth)
 *   neighbour disk DIR     writes 8 MiB to DIR/neighbour.dat and fsyncs,
 *                          over and over (writeback, journal, interrupts)
 */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static int cpu(void)
{
	volatile uint64_t sink;
	uint64_t x = 88172645463325252u;

	while (!stop) {
		for (int i = 0; i < 1000000; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
		}
		sink = x;
	}
	(void)sink;
	return 0;
}

static int mem(void)
{
	size_t n = (size_t)128 << 20;
	char *a = malloc(n), *b = malloc(n);

	if (!a || !b) {
		fprintf(stderr, "neighbour: out of memory\n");
		return 1;
	}
	memset(a, 1, n);
	memset(b, 2, n);
	while (!stop) {
		memcpy(b, a, n);
		memcpy(a, b, n);
	}
	free(a);
	free(b);
	return 0;
}

static int disk(const char *dir)
{
	static char buf[1 << 20];
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/neighbour.dat", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0) {
		perror(path);
		return 1;
	}
	memset(buf, 0x5a, sizeof(buf));
	while (!stop) {
		if (lseek(fd, 0, SEEK_SET) < 0)
			break;
		for (int i = 0; i < 8 && !stop; i++)
			if (write(fd, buf, sizeof(buf)) !=
			    (ssize_t)sizeof(buf)) {
				perror(path);
				close(fd);
				return 1;
			}
		fsync(fd);
	}
	close(fd);
	unlink(path);
	return 0;
}

int main(int argc, char **argv)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_term;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	if (argc == 2 && !strcmp(argv[1], "cpu"))
		return cpu();
	if (argc == 2 && !strcmp(argv[1], "mem"))
		return mem();
	if (argc == 3 && !strcmp(argv[1], "disk"))
		return disk(argv[2]);
	fprintf(stderr, "usage: neighbour cpu | mem | disk DIR\n");
	return 2;
}
