/* Hostile plugins: each transform is a correct copy (rank r's shard of
 * X[n] in, the same shard out) plus one fault that shardcheck must survive
 * and name. Built once per registration fault as well:
 *   -DHOSTILE_REG=1  registration segfaults
 *   -DHOSTILE_REG=2  registration never returns
 *   -DHOSTILE_REG=3  registration calls exit(0)
 *   -DHOSTILE_REG=4  registration leaves processes behind in a session of
 *                    their own (setsid and a double fork)
 * Processes a transform leaves behind name themselves HOSTILE_COMM (their
 * comm, for pgrep -x): a pid the plugin sees may be its namespace's, not
 * the test's. The attacks on shardcheck itself signal its parent, or each
 * shardcheck process (argv[0]) whose command line holds HOSTILE_MARK,
 * found through /proc. */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "shardcheck/plugin.h"

static size_t nbytes(const struct sc_plugin_tensor *t)
{
	size_t n = t->elem_size;
	for (int d = 0; d < t->ndim; d++)
		n *= (size_t)t->shape[d];
	return n;
}

static int copy(const struct sc_plugin_call *call)
{
	memcpy(call->output.data, call->input.data, nbytes(&call->input));
	return 0;
}

/* Writes len bytes past the end of the output: a constant byte, or an
 * increasing one (pattern < 0). */
static int overrun(const struct sc_plugin_call *call, size_t len, int pattern)
{
	copy(call);
	unsigned char *end = (unsigned char *)call->output.data + nbytes(&call->output);
	for (size_t i = 0; i < len; i++)
		end[i] = (unsigned char)(pattern < 0 ? i : (size_t)pattern);
	return 0;
}

static int over64_zero(const struct sc_plugin_call *c) { return overrun(c, 64, 0x00); }
static int over64_a5(const struct sc_plugin_call *c) { return overrun(c, 64, 0xA5); }
static int over4k_ff(const struct sc_plugin_call *c) { return overrun(c, 4096, 0xFF); }
static int over4k_inc(const struct sc_plugin_call *c) { return overrun(c, 4096, -1); }
static int over1m_zero(const struct sc_plugin_call *c) { return overrun(c, 1 << 20, 0x00); }
static int over1m_a5(const struct sc_plugin_call *c) { return overrun(c, 1 << 20, 0xA5); }

/* Names this process HOSTILE_COMM, then sleeps for 10 minutes. */
static __attribute__((noreturn)) void linger(void)
{
	const char *comm = getenv("HOSTILE_COMM");
	if (comm)
		prctl(PR_SET_NAME, comm);
	for (int i = 0; i < 600; i++)
		sleep(1);
	_exit(0);
}

static int fork_leave(const struct sc_plugin_call *call)
{
	if (call->rank == 0 && fork() == 0)
		linger();
	return copy(call);
}

/* A child in a session of its own (setsid) forks `n` lingering processes
 * and exits: they escape a process group's kill, and their parent is gone. */
static void escape(int n)
{
	const pid_t p = fork();
	if (p != 0)
		return;
	setsid();
	for (int i = 0; i < n; i++)
		if (fork() == 0)
			linger();
	_exit(0);
}

static int setsid_fork(const struct sc_plugin_call *call)
{
	if (call->rank == 0)
		escape(4);
	return copy(call);
}

/* daemon(3) from a forked child: what a service library does at start-up. */
static int daemonize(const struct sc_plugin_call *call)
{
	if (call->rank == 0 && fork() == 0) {
		if (daemon(1, 1) == 0)
			linger();
		_exit(0);
	}
	return copy(call);
}

/* daemon(3) in run itself: the calling process ends (_exit(0) in daemon),
 * and its copy runs on, returns and lingers. */
static int daemon_in_run(const struct sc_plugin_call *call)
{
	if (call->rank == 0 && daemon(1, 1) == 0) {
		copy(call);
		if (fork() == 0)
			linger();
	}
	return copy(call);
}

static int signal_parent(const struct sc_plugin_call *call, int sig)
{
	kill(getppid(), sig);
	return copy(call);
}

static int stop_parent(const struct sc_plugin_call *c) { return signal_parent(c, SIGSTOP); }
static int term_parent(const struct sc_plugin_call *c) { return signal_parent(c, SIGTERM); }
static int usr1_parent(const struct sc_plugin_call *c) { return signal_parent(c, SIGUSR1); }

/* Signals every other process whose command line holds HOSTILE_MARK (the
 * test's temporary folder: the gate under test and its children), found
 * through /proc as pgrep would. */
static int signal_marked(const struct sc_plugin_call *call, int sig)
{
	const char *mark = getenv("HOSTILE_MARK");
	DIR *d = mark && *mark ? opendir("/proc") : NULL;
	struct dirent *de;
	while (d && (de = readdir(d))) {
		const long pid = strtol(de->d_name, NULL, 10);
		if (pid <= 0 || pid == (long)getpid())
			continue;
		char path[64], cmd[4096];
		snprintf(path, sizeof path, "/proc/%ld/cmdline", pid);
		const int fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		const ssize_t n = read(fd, cmd, sizeof cmd - 1);
		close(fd);
		if (n <= 0)
			continue;
		/* argv[0] ends in "shardcheck" (not a `timeout` running it) */
		const size_t a0 = strnlen(cmd, (size_t)n);
		const int is_sc = a0 >= 10 && memcmp(cmd + a0 - 10, "shardcheck", 10) == 0;
		for (ssize_t i = 0; i < n; i++)
			if (!cmd[i])
				cmd[i] = ' ';
		cmd[n] = '\0';
		if (is_sc && strstr(cmd, mark))
			kill((pid_t)pid, sig);
	}
	if (d)
		closedir(d);
	return copy(call);
}

static int stop_proc(const struct sc_plugin_call *c) { return signal_marked(c, SIGSTOP); }
static int term_proc(const struct sc_plugin_call *c) { return signal_marked(c, SIGTERM); }
static int usr1_proc(const struct sc_plugin_call *c) { return signal_marked(c, SIGUSR1); }

static int print_stdout(const struct sc_plugin_call *call)
{
	printf("hostile: not JSON {\n");
	fflush(stdout);
	return copy(call);
}

static int exit_in_run(const struct sc_plugin_call *call)
{
	if (call->rank == call->world - 1)
		exit(0);
	return copy(call);
}

static int sigkill_self(const struct sc_plugin_call *call)
{
	kill(getpid(), SIGKILL);
	return copy(call);
}

/* Where the allocations below go, so that no compiler drops them (clang
 * removes a malloc whose pointer goes nowhere). */
static void *volatile kept;

/* Maps and touches up to 64 GiB in 64 MiB pieces; 12 (ENOMEM) once an
 * allocation fails. */
static int hog(const struct sc_plugin_call *call)
{
	const size_t piece = (size_t)64 << 20;
	for (int i = 0; i < 1024; i++) {
		char *p = malloc(piece);
		if (!p)
			return 12;
		memset(p, 1, piece);
		kept = p;
	}
	return copy(call);
}

/* One int from every rank (all_gather); its return code. */
static int meet(const struct sc_plugin_call *call)
{
	const int one = call->rank;
	int *all = malloc(sizeof(int) * (size_t)call->world);
	const int rc = all ? call->coll->all_gather(call->coll, &one, all, sizeof one) : 12;
	free(all);
	return rc;
}

/* Rank 0 returns 7 at once; the others wait for it in an all_gather. */
static int early_return(const struct sc_plugin_call *call)
{
	if (call->rank == 0 && call->world > 1)
		return 7;
	const int rc = meet(call);
	return rc ? rc : copy(call);
}

/* Rank 0 returns 0 without the all_gather the others make. */
static int skip_collective(const struct sc_plugin_call *call)
{
	const int rc = call->rank == 0 ? 0 : meet(call);
	return rc ? rc : copy(call);
}

/* Calls the all_gather from a thread it starts, not from run: refused
 * (-1), so it returns 9. */
struct in_thread {
	const struct sc_plugin_call *call;
	int rc;
};

static void *gather_in_thread(void *p)
{
	struct in_thread *t = p;
	t->rc = meet(t->call);
	return NULL;
}

static int coll_in_thread(const struct sc_plugin_call *call)
{
	struct in_thread t = {call, 0};
	pthread_t th;
	if (pthread_create(&th, NULL, gather_in_thread, &t) != 0)
		return 12;
	pthread_join(th, NULL);
	return t.rc ? 9 : copy(call);
}

/* Keeps 16 MiB of address space per call and never frees it: a process
 * that runs many calls runs out under --plugin-memory, a fresh one never. */
static int leak(const struct sc_plugin_call *call)
{
	void *p = malloc((size_t)16 << 20);
	if (!p)
		return 12;
	kept = p;
	return copy(call);
}

/* Rank 0 never returns when the shard holds 3 elements (n = 3 at world
 * 1): a hang found again while shrinking, in every property. */
static int hang_n3(const struct sc_plugin_call *call)
{
	if (call->rank == 0 && call->input.shape[0] == 3)
		for (;;)
			sleep(1);
	return copy(call);
}

#define T(fn) {#fn, fn}
static const struct {
	const char *name;
	int (*run)(const struct sc_plugin_call *);
} transforms[] = {
	T(over64_zero), T(over64_a5), T(over4k_ff), T(over4k_inc), T(over1m_zero), T(over1m_a5),
	T(fork_leave), T(print_stdout), T(exit_in_run), T(sigkill_self), T(hog), T(copy),
	T(early_return), T(skip_collective), T(leak), T(coll_in_thread), T(setsid_fork), T(daemonize),
	T(daemon_in_run), T(stop_parent), T(term_parent), T(usr1_parent), T(stop_proc), T(term_proc),
	T(usr1_proc), T(hang_n3),
};

int sc_plugin_register(struct sc_plugin_registry *reg)
{
#if HOSTILE_REG == 1
	int *volatile wild = NULL;
	*wild = 1;
#elif HOSTILE_REG == 2
	for (volatile int spin = 1; spin;)
		;
#elif HOSTILE_REG == 3
	exit(0);
#elif HOSTILE_REG == 4
	escape(2);
#endif
	for (size_t i = 0; i < sizeof transforms / sizeof transforms[0]; i++) {
		struct sc_plugin_transform t;
		memset(&t, 0, sizeof t);
		t.size = sizeof t;
		t.abi_version = SC_PLUGIN_ABI_VERSION;
		t.name = transforms[i].name;
		t.contract = "dims n\ninput shard n\noutput shard n\n";
		t.run = transforms[i].run;
		if (reg->add(reg, &t) != 0)
			return 1;
	}
	return 0;
}
