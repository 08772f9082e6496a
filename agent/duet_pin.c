/*
 * A duet run held on its core without a cpuset (duet_pin.h). The filter
 * looks at the call's architecture first: a 64-bit kernel also takes
 * the 32-bit calls of its compatible architecture (i386 on x86-64, ARM
 * on AArch64), whose sched_setaffinity has another number (241 on both),
 * and x86-64's x32 calls carry a flag bit in theirs.
 */
#define _GNU_SOURCE 1
#include "duet_pin.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#if defined(__x86_64__)
#define PIN_ARCH        AUDIT_ARCH_X86_64
#define PIN_COMPAT_ARCH AUDIT_ARCH_I386
#define PIN_NR_MASK     (~0x40000000u) /* __X32_SYSCALL_BIT */
#elif defined(__aarch64__)
#define PIN_ARCH        AUDIT_ARCH_AARCH64
#define PIN_COMPAT_ARCH AUDIT_ARCH_ARM
#define PIN_NR_MASK     (~0u)
#endif
/* sched_setaffinity of the compatible 32-bit architecture */
#define PIN_COMPAT_NR 241

#ifdef PIN_ARCH
/* sched_setaffinity: EPERM, on either architecture; the rest: allowed. */
static int deny_affinity(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		         offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PIN_ARCH, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		         offsetof(struct seccomp_data, nr)),
		BPF_STMT(BPF_ALU | BPF_AND | BPF_K, PIN_NR_MASK),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_sched_setaffinity, 3,
		         4),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PIN_COMPAT_ARCH, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		         offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PIN_COMPAT_NR, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & 0xffff)),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { (unsigned short)(sizeof(f) / sizeof(f[0])),
		                   f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1L, 0L, 0L, 0L))
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0L, 0L);
}
#endif /* PIN_ARCH */

int bf_duet_pin(int cpu, char *why, size_t whylen)
{
#ifdef PIN_ARCH
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		snprintf(why, whylen, "cannot pin the run to CPU %d (%s)", cpu,
		         strerror(errno));
		return -1;
	}
	if (deny_affinity()) {
		snprintf(why, whylen,
		         "cannot keep the run on its core: no seccomp filter "
		         "(%s) and no cgroup v2 cpuset",
		         strerror(errno));
		return -1;
	}
	return 0;
#else
	(void)cpu;
	snprintf(why, whylen,
	         "cannot keep the run on its core: no cgroup v2 cpuset, and "
	         "no seccomp filter for this architecture");
	return -1;
#endif /* PIN_ARCH */
}
