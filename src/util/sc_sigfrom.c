/* sc_sigfrom: who sent a signal (see sc_sigfrom.h); system calls only. */
#define _GNU_SOURCE /* getsid */
#include "sc_sigfrom.h"

#include "sc_sigsafe.h"

#include <fcntl.h>
#include <unistd.h>

/* The parent of pid, from /proc/PID/stat ("pid (comm) S ppid ..."); -1
 * when it cannot be read. */
static pid_t parent_of(pid_t pid)
{
	char path[48] = "/proc/", digits[24];
	sc_sigsafe_num(digits, (long)pid);
	sc_sigsafe_cat(path, sizeof path, digits);
	sc_sigsafe_cat(path, sizeof path, "/stat");
	const int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	char buf[512];
	const ssize_t got = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (got <= 0)
		return -1;
	ssize_t close_paren = -1;
	for (ssize_t i = 0; i < got; i++)
		if (buf[i] == ')')
			close_paren = i;
	/* ") S ppid" */
	ssize_t i = close_paren + 4;
	if (close_paren < 0 || i >= got)
		return -1;
	long ppid = 0;
	for (; i < got && buf[i] >= '0' && buf[i] <= '9'; i++)
		ppid = ppid * 10 + (buf[i] - '0');
	return (pid_t)ppid;
}

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
	pid_t p = sender;
	for (int hop = 0; hop < 64 && p > 1; hop++) {
		p = parent_of(p);
		if (p == self)
			return 1;
	}
	return 0;
}
