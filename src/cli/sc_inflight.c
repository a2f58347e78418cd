/* sc_inflight: handlers that may only call async-signal-safe functions;
 * hence one file-scope block of state, filled before a case runs. */
#include "sc_inflight.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sc_casefile.h"
#include "sc_fs.h"

static struct {
	char path[1024], tmp[1100];
	char text[4096];
	volatile sig_atomic_t len;
	int leader, rank, err_fd;
	pid_t pid; /* the process that armed the handlers (not a plugin's child) */
	double seconds;
} fl = {.err_fd = 2};

/* In a forked child (a plugin's sandbox), the signal is the child's own. */
static int not_ours(int sig)
{
	if (getpid() == fl.pid)
		return 0;
	signal(sig, SIG_DFL);
	raise(sig);
	return 1;
}

static void put(const char *s)
{
	ssize_t w = write(fl.err_fd, s, strlen(s));
	(void)w;
}

static void num(char *buf, long v) /* no snprintf in a handler */
{
	char t[24];
	int k = 0;
	do
		t[k++] = (char)('0' + v % 10);
	while ((v /= 10) > 0 && k < 23);
	while (k)
		*buf++ = t[--k];
	*buf = '\0';
}

static const char *sig_name(int sig)
{
	switch (sig) {
	case SIGSEGV: return "SIGSEGV";
	case SIGBUS: return "SIGBUS";
	case SIGFPE: return "SIGFPE";
	case SIGILL: return "SIGILL";
	case SIGABRT: return "SIGABRT";
	case SIGTERM: return "SIGTERM";
	case SIGINT: return "SIGINT";
	case SIGHUP: return "SIGHUP";
	case SIGALRM: return "SIGALRM";
	}
	return "a signal";
}

/* The case with a first line "# WHAT", saved atomically; 0 when no case runs. */
static int save(const char *what1, const char *what2)
{
	if (fl.len <= 0)
		return 0;
	int fd = open(fl.tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return 0;
	ssize_t w = write(fd, "# ", 2);
	w = write(fd, what1, strlen(what1));
	w = write(fd, what2, strlen(what2));
	w = write(fd, "\n", 1);
	w = write(fd, fl.text, (size_t)fl.len);
	(void)w;
	close(fd);
	return rename(fl.tmp, fl.path) == 0;
}

/* A rank's crash is already on disk (mpirun then terminated the others). */
static int crash_saved(void)
{
	char head[128] = "";
	int fd = open(fl.path, O_RDONLY);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, head, sizeof head - 1);
	close(fd);
	head[n > 0 ? n : 0] = '\0';
	return strstr(head, " crashed") != NULL;
}

static void tell(const char *msg, int with_case)
{
	put(msg);
	if (fl.len > 0) {
		put(" saved to ");
		put(fl.path);
		put("\n");
		if (with_case) {
			ssize_t w = write(fl.err_fd, fl.text, (size_t)fl.len);
			(void)w;
		}
	} else {
		put("\n");
	}
}

static void on_alarm(int sig)
{
	if (not_ours(sig))
		return;
	save("aborted: the case ran longer than --timeout (a rank hung)", "");
	if (fl.leader)
		tell("\nshardcheck: aborting: the running case exceeded --timeout (a rank hung or crashed);", 1);
	_exit(2);
}

static void on_crash(int sig)
{
	if (not_ours(sig))
		return;
	char r[24], who[64] = "rank ";
	num(r, fl.rank);
	strcat(who, r);
	strcat(who, " crashed: ");
	save(who, sig_name(sig));
	put("\nshardcheck: aborting: the running case crashed rank ");
	put(r);
	put(" (");
	put(sig_name(sig));
	tell(");", fl.leader);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void on_term(int sig)
{
	if (not_ours(sig))
		return;
	if (crash_saved()) {
		if (fl.leader)
			tell("\nshardcheck: aborting: the running case crashed another rank (its message is above);", 0);
		_exit(2);
	}
	save("interrupted by ", sig_name(sig));
	if (fl.leader) {
		put("\nshardcheck: interrupted (");
		put(sig_name(sig));
		tell("): not a fault of the code under test; the case in flight was", 0);
	}
	_exit(2);
}

static void on_case(void *u, struct sc_target *t, const struct sc_property *p, const struct sc_case *c)
{
	const char *backend = u;
	char text[sizeof fl.text];
	if (sc_casefile_format(t, p->name, backend, c, -1, text, sizeof text, NULL) == SC_OK) {
		fl.len = 0;
		memcpy(fl.text, text, strlen(text));
		fl.len = (sig_atomic_t)strlen(text);
	}
	if (fl.seconds > 0)
		alarm((unsigned)(fl.seconds + 0.999));
}

void sc_inflight_arm(struct sc_cli *c, struct sc_backend *be)
{
	fl.leader = sc_backend_leader(be);
	fl.rank = sc_backend_proc(be);
	fl.pid = getpid();
	fl.seconds = c->timeout;
	snprintf(fl.path, sizeof fl.path, "%s%s", c->report_dir ? c->report_dir : ".",
		 c->report_dir ? "/failures/inflight.case" : "/shardcheck-inflight.case");
	if (c->report_dir) {
		char dir[1100];
		snprintf(dir, sizeof dir, "%s/failures", c->report_dir);
		sc_fs_mkdirs(dir, NULL);
	}
	if (fl.leader) { /* an earlier run's is kept aside, not taken for this run's */
		char prev[1100];
		snprintf(prev, sizeof prev, "%s.previous", fl.path);
		rename(fl.path, prev);
	}
	snprintf(fl.tmp, sizeof fl.tmp, "%s.tmp%d", fl.path, fl.rank);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	sa.sa_handler = on_term;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = on_crash;
	sa.sa_flags = SA_RESETHAND;
	static const int crash[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
	for (size_t i = 0; i < sizeof crash / sizeof crash[0]; i++)
		sigaction(crash[i], &sa, NULL);
	c->co.on_case = on_case;
	c->co.on_case_ctx = (void *)c->backend;
}

void sc_inflight_idle(void)
{
	fl.len = 0;
	alarm(0);
}

void sc_inflight_quiet_followers(struct sc_backend *be)
{
	if (sc_backend_leader(be))
		return;
	const int fd = dup(2); /* kept for the message of a crash */
	if (fd >= 0)
		fl.err_fd = fd;
	if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr))
		return;
}
