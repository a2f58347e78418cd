/* sc_sandbox: fork, confine, wait, kill the group, tell how it ended. */
#define _GNU_SOURCE /* MAP_ANONYMOUS, strsignal, wait4 */
#include "sc_sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sc_clock.h"

/* Written by the child, read by the parent after it ended. */
struct page {
	volatile int done;        /* fn returned */
	volatile int exit_called; /* atexit ran before fn returned */
	volatile int tag;
	volatile int sanitizer;   /* a sanitizer's report ended it */
	volatile size_t base;  /* address space mapped at the fork */
	volatile size_t added; /* the peak beyond it, when fn returned or exit ran */
};

static _Thread_local int thread_tag = -1;
static struct page *child_page; /* set in the child only */

void sc_sandbox_tag(int tag) { thread_tag = tag; }

static size_t peak_mapped(void);

/* In a sanitized build, the runtime's death callback tells a sanitizer's
 * report (which ends the process with exit status 1) from an exit. */
extern void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));

static void on_sanitizer_death(void)
{
	if (child_page) {
		child_page->sanitizer = 1;
		child_page->tag = thread_tag;
	}
}

static void on_exit_hook(void)
{
	if (child_page && !child_page->done) {
		const size_t peak = peak_mapped();
		child_page->added = peak > child_page->base ? peak - child_page->base : 0;
		child_page->tag = thread_tag;
		child_page->exit_called = 1;
	}
}

size_t sc_sandbox_default_memory(void)
{
	const long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
	if (pages <= 0 || psize <= 0)
		return (size_t)8 << 30;
	return (size_t)pages * (size_t)psize / 2;
}

/* Address space mapped now, from /proc (no stdio: a child of a fork). */
static size_t mapped_now(void)
{
	char buf[128];
	int fd = open("/proc/self/statm", O_RDONLY);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return (size_t)strtoull(buf, NULL, 10) * (size_t)sysconf(_SC_PAGESIZE);
}

/* VmPeak of /proc/self/status, in bytes. */
static size_t peak_mapped(void)
{
	char buf[4096];
	int fd = open("/proc/self/status", O_RDONLY);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	const char *p = strstr(buf, "VmPeak:");
	return p ? (size_t)strtoull(p + 7, NULL, 10) * 1024 : 0;
}

static void child_setup(struct page *pg, const struct sc_sandbox_opts *o)
{
	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGKILL); /* shardcheck killed: so is the child */
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGALRM, SIGPIPE, SIGCHLD};
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		signal(sigs[i], SIG_DFL); /* shardcheck's handlers are not the child's */
	alarm(0);
	dup2(2, 1);
	child_page = pg;
	atexit(on_exit_hook);
	if (__sanitizer_set_death_callback)
		__sanitizer_set_death_callback(on_sanitizer_death);
	pg->base = mapped_now();
	if (o->memory) {
		const rlim_t lim = (rlim_t)(pg->base + o->memory);
		struct rlimit rl = {lim, lim};
		setrlimit(RLIMIT_AS, &rl);
	}
}

/* Kills what is left of the child's group and reaps it (orphans come to
 * this process, a subreaper). Returns whether anything was left. */
static int kill_group(pid_t pgid)
{
	if (kill(-pgid, 0) != 0)
		return 0;
	kill(-pgid, SIGKILL);
	const double t0 = sc_clock_now();
	while (kill(-pgid, 0) == 0 && sc_clock_now() - t0 < 2.0) {
		while (waitpid(-pgid, NULL, WNOHANG) > 0)
			;
		struct timespec ts = {0, 1000000};
		nanosleep(&ts, NULL);
	}
	return 1;
}

enum sc_status sc_sandbox_run(int (*fn)(void *), void *arg, const struct sc_sandbox_opts *o,
			      struct sc_sandbox_result *out, struct sc_err *e)
{
	static int subreaper;
	if (!subreaper) {
		prctl(PR_SET_CHILD_SUBREAPER, 1);
		subreaper = 1;
	}
	struct page *pg = mmap(NULL, sizeof *pg, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (pg == MAP_FAILED)
		return SC_ERR(e, SC_E_NOMEM, "sandbox: mmap: %s", strerror(errno));
	memset((void *)pg, 0, sizeof *pg);
	pg->tag = -1;
	fflush(NULL);
	const double t0 = sc_clock_now();
	pid_t pid = fork();
	if (pid < 0) {
		munmap(pg, sizeof *pg);
		return SC_ERR(e, SC_E_INTERNAL, "fork failed: %s", strerror(errno));
	}
	if (pid == 0) {
		child_setup(pg, o);
		const int rc = fn(arg);
		const size_t peak = peak_mapped();
		pg->added = peak > pg->base ? peak - pg->base : 0;
		pg->done = 1;
		_exit(rc & 0xff);
	}
	setpgid(pid, pid); /* either side may win the race; both ask the same */
	struct sc_sandbox_result r = {.end = SC_SANDBOX_RETURNED, .tag = -1};
	struct rusage ru;
	memset(&ru, 0, sizeof ru);
	long nap = 20000; /* ns */
	int status = 0;
	/* the child's end wakes this process at once through a pidfd; without
	 * one (an old kernel), waits back off from 20 us to 2 ms */
	const int pfd = (int)syscall(SYS_pidfd_open, pid, 0);
	for (;;) {
		pid_t w = wait4(pid, &status, WNOHANG, &ru);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR) {
			kill_group(pid);
			if (pfd >= 0)
				close(pfd);
			munmap(pg, sizeof *pg);
			return SC_ERR(e, SC_E_INTERNAL, "waitpid: %s", strerror(errno));
		}
		if (o->timeout > 0 && sc_clock_now() - t0 > o->timeout) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			wait4(pid, &status, 0, &ru);
			r.end = SC_SANDBOX_TIMEOUT;
			break;
		}
		if (pfd >= 0) {
			const double left = o->timeout > 0 ? o->timeout - (sc_clock_now() - t0) : 1.0;
			struct pollfd pf = {pfd, POLLIN, 0};
			poll(&pf, 1, left >= 1.0 ? 1000 : left <= 0 ? 0 : (int)(left * 1000) + 1);
			continue;
		}
		struct timespec ts = {0, nap};
		nanosleep(&ts, NULL);
		if (nap < 2000000)
			nap *= 2;
	}
	if (pfd >= 0)
		close(pfd);
	r.seconds = sc_clock_now() - t0;
	r.peak_rss = (size_t)ru.ru_maxrss * 1024;
	r.peak_added = pg->added;
	r.leftovers = kill_group(pid);
	if (r.end != SC_SANDBOX_TIMEOUT) {
		if (WIFSIGNALED(status)) {
			r.end = SC_SANDBOX_SIGNAL;
			r.code = WTERMSIG(status);
		} else {
			r.code = WEXITSTATUS(status);
			r.end = pg->done	  ? SC_SANDBOX_RETURNED
				: pg->sanitizer	  ? SC_SANDBOX_SANITIZER
				: pg->exit_called ? SC_SANDBOX_EXIT
						  : SC_SANDBOX_EXITED;
			r.tag = pg->exit_called || pg->sanitizer ? pg->tag : -1;
		}
	}
	munmap(pg, sizeof *pg);
	*out = r;
	return SC_OK;
}

void sc_sandbox_describe(const struct sc_sandbox_result *r, const char *tag_name, char *buf, size_t n)
{
	char on[48] = "";
	if (r->tag >= 0 && tag_name)
		snprintf(on, sizeof on, " on %s %d", tag_name, r->tag);
	switch (r->end) {
	case SC_SANDBOX_RETURNED:
		snprintf(buf, n, "returned %d", r->code);
		break;
	case SC_SANDBOX_EXIT:
		snprintf(buf, n, "called exit(%d)%s", r->code, on);
		break;
	case SC_SANDBOX_EXITED:
		snprintf(buf, n, "ended its process with status %d without returning (_exit, or a sanitizer's report on stderr)",
			 r->code);
		break;
	case SC_SANDBOX_SANITIZER:
		snprintf(buf, n, "was stopped by a sanitizer's report%s (on stderr)", on);
		break;
	case SC_SANDBOX_SIGNAL:
		snprintf(buf, n, "crashed: signal %d (%s)", r->code, strsignal(r->code));
		break;
	case SC_SANDBOX_TIMEOUT:
		snprintf(buf, n, "hung: no result after %.0f s; killed", r->seconds);
		break;
	}
}
