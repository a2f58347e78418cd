/* sc_sigfrom: who sent a signal (see sc_sigfrom.h); system calls only. */
#define _GNU_SOURCE /* getsid */
#include "sc_sigfrom.h"

#include "sc_sigsafe.h"

#include <unistd.h>

int sc_sigfrom_contained(const siginfo_t *si)
{
	if (!si || si->si_code > 0 || si->si_code == SI_KERNEL)
		return 0; /* the kernel's */
	const pid_t self = getpid(), sender = si->si_pid;
	if (sender <= 1 || sender == self)
		return 0;
	const pid_t sid = getsid(sender);
	if (sid < 0 || sid == getsid(0))
		return 0;
	long p = sender;
	char state;
	for (int hop = 0; hop < 64 && p > 1; hop++) {
		if (sc_sigsafe_proc_stat(p, &state, &p) != 0)
			return 0;
		if (p == (long)self)
			return 1;
	}
	return 0;
}
