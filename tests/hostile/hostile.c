/* Hostile plugins: each transform is a correct copy (rank r's shard of
 * X[n] in, the same shard out) plus one fault that shardcheck must survive
 * and name. Built once per registration fault as well:
 *   -DHOSTILE_REG=1  registration segfaults
 *   -DHOSTILE_REG=2  registration never returns
 *   -DHOSTILE_REG=3  registration calls exit(0)
 * HOSTILE_PIDFILE names a file where `fork_leave` appends the pid of the
 * process it leaves behind. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

static int fork_leave(const struct sc_plugin_call *call)
{
	if (call->rank == 0) {
		pid_t p = fork();
		if (p == 0) {
			for (int i = 0; i < 600; i++)
				sleep(1);
			_exit(0);
		}
		/* the pid is written here, before run returns: the child may be
		 * killed before it could write anything */
		const char *f = getenv("HOSTILE_PIDFILE");
		FILE *o = f && p > 0 ? fopen(f, "a") : NULL;
		if (o) {
			fprintf(o, "%ld\n", (long)p);
			fclose(o);
		}
	}
	return copy(call);
}

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
	if (!malloc((size_t)16 << 20))
		return 12;
	return copy(call);
}

#define T(fn) {#fn, fn}
static const struct {
	const char *name;
	int (*run)(const struct sc_plugin_call *);
} transforms[] = {
	T(over64_zero), T(over64_a5), T(over4k_ff), T(over4k_inc), T(over1m_zero), T(over1m_a5),
	T(fork_leave), T(print_stdout), T(exit_in_run), T(sigkill_self), T(hog), T(copy),
	T(early_return), T(skip_collective), T(leak), T(coll_in_thread),
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
