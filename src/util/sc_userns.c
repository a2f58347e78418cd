/* sc_userns: the relay (see sc_userns.h). */
#define _GNU_SOURCE /* unshare, CLONE_NEWUSER */
#include "sc_userns.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static int write_file(const char *path, const char *text)
{
	const int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	const size_t n = strlen(text);
	const ssize_t w = write(fd, text, n);
	close(fd);
	return w == (ssize_t)n ? 0 : -1;
}

/* The calling process into a user namespace of its own (uid and gid the
 * same numbers inside) and its next child into a pid namespace in it. */
static int make_namespaces(uid_t uid, gid_t gid)
{
	if (unshare(CLONE_NEWUSER | CLONE_NEWPID) != 0)
		return -1;
	char map[64];
	snprintf(map, sizeof map, "%lu %lu 1\n", (unsigned long)uid, (unsigned long)uid);
	if (write_file("/proc/self/uid_map", map) != 0)
		return -1;
	if (write_file("/proc/self/setgroups", "deny\n") != 0 && errno != ENOENT)
		return -1;
	snprintf(map, sizeof map, "%lu %lu 1\n", (unsigned long)gid, (unsigned long)gid);
	return write_file("/proc/self/gid_map", map);
}

static volatile sig_atomic_t relay_init; /* the relay's init, once forked */

static void relay_term(int sig)
{
	(void)sig;
	if (relay_init > 0)
		kill((pid_t)relay_init, SIGKILL); /* the kernel then kills the namespace */
}

/* Waits for init (the namespace empty once it is reaped), then ends as it
 * did. */
static __attribute__((noreturn)) void relay_wait(pid_t init)
{
	int status = 0;
	while (waitpid(init, &status, 0) < 0)
		if (errno != EINTR)
			_exit(127);
	if (WIFSIGNALED(status)) {
		const int sig = WTERMSIG(status);
		signal(sig, SIG_DFL);
		sigset_t one;
		sigemptyset(&one);
		sigaddset(&one, sig);
		sigprocmask(SIG_UNBLOCK, &one, NULL);
		kill(getpid(), sig);
		_exit(128 + sig);
	}
	_exit(WEXITSTATUS(status));
}

static __attribute__((noreturn)) void relay_main(void (*init_fn)(const void *), const void *arg, uid_t uid, gid_t gid,
						 pid_t starter)
{
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			signal(sig, SIG_DFL); /* the starter's handlers are not the relay's */
	sigset_t term, none;
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &term, NULL); /* SIGTERM waits until init is known */
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = relay_term;
	sigaction(SIGTERM, &sa, NULL);
	prctl(PR_SET_PDEATHSIG, SIGTERM); /* the starter killed: so is the namespace */
	if (getppid() != starter)
		_exit(1);
	setsid(); /* the terminal's signals go to the starter, which ends its children */
	if (make_namespaces(uid, gid) != 0)
		_exit(127);
	const pid_t init = fork();
	if (init < 0)
		_exit(127);
	if (init == 0) {
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGTERM, SIG_DFL);
		init_fn(arg);
		_exit(1);
	}
	relay_init = init;
	sigprocmask(SIG_SETMASK, &none, NULL);
	relay_wait(init);
}

pid_t sc_userns_spawn(void (*init_fn)(const void *), const void *arg)
{
	const uid_t uid = geteuid();
	const gid_t gid = getegid();
	const pid_t starter = getpid();
	const pid_t p = fork();
	if (p == 0)
		relay_main(init_fn, arg, uid, gid, starter);
	return p;
}

void sc_userns_end(pid_t relay)
{
	kill(relay, SIGTERM);
}

static __attribute__((noreturn)) void probe_init(const void *arg)
{
	(void)arg;
	_exit(getpid() == 1 ? 0 : 1);
}

int sc_userns_works(void)
{
	static pid_t looked; /* the process that looked (a fork looks again) */
	static int works;
	if (looked == getpid())
		return works;
	looked = getpid();
	works = 0;
	fflush(NULL);
	const pid_t p = sc_userns_spawn(probe_init, NULL);
	if (p < 0)
		return 0;
	int status = 0;
	while (waitpid(p, &status, 0) < 0)
		if (errno != EINTR)
			return 0;
	works = WIFEXITED(status) && WEXITSTATUS(status) == 0;
	return works;
}
