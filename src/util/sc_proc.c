/* sc_proc: another program, run to its end (see the header). */
#define _GNU_SOURCE /* pipe2, O_CLOEXEC */
#include "sc_proc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sc_clock.h"

int sc_proc_self(char *path, size_t n)
{
	const ssize_t k = n ? readlink("/proc/self/exe", path, n - 1) : -1;
	if (n)
		path[k > 0 ? k : 0] = '\0';
	return k > 0 ? 0 : -1;
}

int sc_proc_find(const char *name, const char *const *dirs, char *path, size_t n)
{
	const char *env = getenv("PATH");
	char buf[4096];
	snprintf(buf, sizeof buf, "%s", env ? env : "/usr/bin:/bin");
	for (char *save = NULL, *d = strtok_r(buf, ":", &save); d; d = strtok_r(NULL, ":", &save))
		if ((size_t)snprintf(path, n, "%s/%s", *d ? d : ".", name) < n && access(path, X_OK) == 0)
			return 0;
	for (int i = 0; dirs && dirs[i]; i++)
		if ((size_t)snprintf(path, n, "%s/%s", dirs[i], name) < n && access(path, X_OK) == 0)
			return 0;
	return -1;
}

/* Keeps the last max bytes of what came (a ring would do; a shift is
 * enough for the few reads of a report). */
static int keep(char **buf, size_t *len, size_t *cap, size_t max, const char *add, size_t n, int *cut)
{
	if (*len + n + 1 > *cap) {
		size_t nc = *cap ? *cap : 4096;
		while (nc < *len + n + 1)
			nc *= 2;
		char *nb = realloc(*buf, nc);
		if (!nb)
			return -1;
		*buf = nb;
		*cap = nc;
	}
	memcpy(*buf + *len, add, n);
	*len += n;
	if (*len > max) {
		memmove(*buf, *buf + (*len - max), max);
		*len = max;
		*cut = 1;
	}
	(*buf)[*len] = '\0';
	return 0;
}

enum sc_status sc_proc_run(char *const argv[], double timeout, size_t max_bytes, char **out, int *cut, int *code,
			   struct sc_err *e)
{
	int fd[2];
	*out = NULL;
	*cut = 0;
	*code = -1;
	if (pipe2(fd, O_CLOEXEC) != 0)
		return SC_ERR(e, SC_E_IO, "%s: cannot make a pipe: %s", argv[0], strerror(errno));
	fflush(NULL);
	const pid_t pid = fork();
	if (pid < 0) {
		close(fd[0]);
		close(fd[1]);
		return SC_ERR(e, SC_E_IO, "%s: cannot fork: %s", argv[0], strerror(errno));
	}
	if (pid == 0) {
		setpgid(0, 0);
		const int in = open("/dev/null", O_RDONLY);
		if (in >= 0)
			dup2(in, 0);
		dup2(fd[1], 1);
		dup2(fd[1], 2);
		signal(SIGPIPE, SIG_DFL);
		execvp(argv[0], argv);
		dprintf(2, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid);
	close(fd[1]);
	char *buf = NULL;
	size_t len = 0, cap = 0;
	const double deadline = timeout > 0 ? sc_clock_now() + timeout : 0;
	int timed_out = 0, failed = 0;
	for (;;) {
		int wait_ms = -1;
		if (deadline > 0) {
			const double left = deadline - sc_clock_now();
			if (left <= 0) {
				timed_out = 1;
				break;
			}
			wait_ms = (int)(left * 1000) + 1;
		}
		struct pollfd p = {fd[0], POLLIN, 0};
		const int k = poll(&p, 1, wait_ms);
		if (k < 0 && errno == EINTR)
			continue;
		if (k == 0)
			continue;
		char chunk[8192];
		const ssize_t got = read(fd[0], chunk, sizeof chunk);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		if (keep(&buf, &len, &cap, max_bytes, chunk, (size_t)got, cut)) {
			failed = 1;
			break;
		}
	}
	close(fd[0]);
	if (timed_out || failed)
		kill(-pid, SIGKILL);
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
	}
	if (failed) {
		free(buf);
		return SC_ERR(e, SC_E_NOMEM, "out of memory for %s's output", argv[0]);
	}
	if (!buf && keep(&buf, &len, &cap, max_bytes, "", 0, cut)) {
		free(buf);
		return SC_ERR(e, SC_E_NOMEM, "out of memory");
	}
	*out = buf;
	*code = timed_out ? -1 : WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : -1;
	if (!timed_out && WIFEXITED(status) && WEXITSTATUS(status) == 127 && strstr(buf, "cannot run ")) {
		free(buf);
		*out = NULL;
		return SC_ERR(e, SC_E_IO, "cannot run %s", argv[0]);
	}
	return SC_OK;
}
