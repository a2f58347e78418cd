/* sc_plugin_host: a transform's ranks as threads of a sandboxed child (the
 * library's worker, or a fresh child), and how the child ended in words.
 *
 * The child shares with this process only the case's buffers (data and
 * guards; the arena's bookkeeping is elsewhere) and the host's block (the
 * job and the ranks' states), both read back only after the call ended,
 * validated. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include "sc_plugin_host.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "sc_clock.h"
#include "sc_coro.h"
#include "sc_mix.h"
#include "sc_plugin_dev.h"
#include "sc_sandbox.h"

enum { RANK_IDLE = 0, RANK_RUNNING = 1, RANK_DONE = 2 };

/* Written by the child while it runs; read after the call ended. */
struct rank_state {
	volatile int current; /* the rank running now (one at a time), -1: none */
	volatile int state[SC_MAX_WORLD];
	volatile int rc[SC_MAX_WORLD];
	volatile int stray; /* 1 + the rank that was running when bytes around a buffer first changed; 0: none */
	volatile int syncing; /* waiting for the device work the ranks queued */
	volatile int lost;    /* a device error: the process's CUDA context is unusable, it is replaced */
	char why[256];
};

/* The block shared with the children: MAP_SHARED, mapped before any of
 * them was forked, never in the arena the plugin writes to. */
struct block {
	struct sc_plugin_job job[SC_PLUGIN_HOST_BATCH];
	int njobs;            /* the jobs of this call, run in order */
	volatile int at;      /* the child's: the job it is on (the one that failed, after a failure) */
	volatile double took[SC_PLUGIN_HOST_BATCH]; /* the child's: seconds each job that returned took */
	struct rank_state st; /* of job `at` */
	struct sc_sandbox_opts fresh_opts;  /* the fork server's next fresh run ... */
	struct sc_sandbox_result fresh;     /* ... and how it ended */
};

#define HUNG_SLOTS 64 /* calls that hung, remembered (the oldest forgotten first) */
#define TR_SLOTS 64   /* transforms whose call times are kept (more: none kept) */

/* Once a call of a transform hung, its later calls (the failure's
 * confirmation, shrinking candidates, other properties) run under a
 * shorter timeout: HANG_SLOWER times its slowest call that returned, at
 * least HANG_FLOOR_S, at most the timeout asked for. A hang costs one full
 * timeout, not one per candidate; a call cut short is a hang, a failure
 * (never a pass), named as cut short in its message. */
#define HANG_SLOWER 50
#define HANG_FLOOR_S 1.0

struct tr_times {
	const void *tr;
	double slowest_ok; /* seconds: the slowest call that returned */
	double hung_at;    /* the timeout a call first hung at; 0: none hung */
};

/* A call of n jobs: asked of the worker and answered job by job
 * (sc_plugin_host_wait), or run to its end at once (fresh children). */
struct call {
	int n;              /* jobs; 0: none since the last one ended and was settled */
	int flying;         /* the worker runs it: its end not yet waited for */
	int ok;             /* jobs found complete and within their buffers so far */
	struct sc_plugin_host_run_opts o;
	uint64_t key;
	double timeout, slowest;
	struct tr_times *times;
	struct sc_sandbox_worker *w; /* the worker it runs in (NULL: a fresh child) */
	const struct sc_tensor *in, *out;
	int ended;          /* its outcome is known: */
	enum sc_status st;  /* SC_OK, or the error of job `failed` */
	int failed;
	struct sc_err err;
};

struct sc_plugin_host {
	pid_t owner; /* the process the block is shared with children of */
	char load[600];
	sc_plugin_resolve_fn resolve;
	struct block *b;
	struct sc_sandbox_worker *w;
	struct sc_sandbox_worker *server; /* the fork server of fresh children */
	unsigned long server_epoch;       /* the arenas' shared blocks it was forked with */
	int server_flat;                  /* started without a pid namespace */
	int no_server;                    /* it failed: fresh children forked from here */
	unsigned long epoch;          /* the arenas' shared blocks the worker was forked with */
	int flat;                     /* the worker's containment (sc_sandbox_opts) */
	size_t memory;                /* its memory limit */
	uint64_t hung[HUNG_SLOTS];
	char hung_msg[HUNG_SLOTS][SC_ERR_MAX];
	int nhung;
	struct tr_times times[TR_SLOTS];
	int ntimes;
	struct call cur; /* the last call: in flight in the worker, or ended */
};

/* tr's entry (made on first use); NULL when the table is full. */
static struct tr_times *times_of(struct sc_plugin_host *h, const void *tr)
{
	for (int i = 0; i < h->ntimes; i++)
		if (h->times[i].tr == tr)
			return &h->times[i];
	if (h->ntimes == TR_SLOTS)
		return NULL;
	struct tr_times *t = &h->times[h->ntimes++];
	memset(t, 0, sizeof *t);
	t->tr = tr;
	return t;
}

/* The timeout of tr's next call: o's, or shorter once one of its calls
 * hung (see HANG_SLOWER). */
static double call_timeout(const struct tr_times *t, double asked)
{
	if (!t || !t->hung_at || asked <= 0)
		return asked;
	double cut = HANG_SLOWER * t->slowest_ok;
	if (cut < HANG_FLOOR_S)
		cut = HANG_FLOOR_S;
	return cut < asked ? cut : asked;
}

enum sc_status sc_plugin_host_new(const char *load, sc_plugin_resolve_fn resolve, struct sc_plugin_host **out,
				  struct sc_err *e)
{
	struct sc_plugin_host *h = calloc(1, sizeof *h);
	if (!h)
		return SC_ERR(e, SC_E_NOMEM, "out of memory");
	h->b = mmap(NULL, sizeof *h->b, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (h->b == MAP_FAILED) {
		free(h);
		return SC_ERR(e, SC_E_NOMEM, "out of memory");
	}
	snprintf(h->load, sizeof h->load, "%s", load);
	h->resolve = resolve;
	h->owner = sc_sandbox_self();
	*out = h;
	return SC_OK;
}

void sc_plugin_host_free(struct sc_plugin_host *h)
{
	if (!h)
		return;
	sc_sandbox_worker_stop(h->w);
	sc_sandbox_worker_stop(h->server);
	munmap(h->b, sizeof *h->b);
	free(h);
}

struct sc_plugin_job *sc_plugin_host_job(struct sc_plugin_host *h, int k)
{
	if (k < 0 || k >= SC_PLUGIN_HOST_BATCH)
		return NULL;
	if (h->owner != sc_sandbox_self()) /* a forked process (--jobs): no call of its own yet */
		memset(&h->cur, 0, sizeof h->cur);
	sc_plugin_host_settle(h); /* the child may still read the jobs of the last call */
	if (h->owner != sc_sandbox_self()) { /* a forked process (--jobs): a block, and later a worker, of its own */
		struct block *b = mmap(NULL, sizeof *b, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (b == MAP_FAILED)
			return NULL;
		munmap(h->b, sizeof *h->b); /* this process's mapping only */
		h->b = b;
		sc_sandbox_worker_stop(h->w); /* the starter's: only this process's handles */
		h->w = NULL;
		sc_sandbox_worker_stop(h->server);
		h->server = NULL;
		h->owner = sc_sandbox_self();
	}
	return &h->b->job[k];
}

/* ---- in the child ---- */

struct thread_arg {
	struct sc_plugin_call call; /* first: a call is its thread_arg */
	const struct sc_plugin_transform *tr;
	struct rank_state *st;
	int rank; /* the local rank */
	struct sc_plugin_comms *comms;
};

/* call->group: the local rank's table over its group of those mesh dims. */
static const struct sc_plugin_collectives *call_group(const struct sc_plugin_call *call, const int *dims, int n)
{
	const struct thread_arg *a = (const struct thread_arg *)(const void *)call;
	return a->comms ? sc_plugin_comms_group(a->comms, a->rank, dims, n) : NULL;
}

static void rank_main(void *p)
{
	struct thread_arg *a = p;
	a->st->state[a->rank] = RANK_RUNNING;
	const int rc = a->tr->run(&a->call);
	a->st->rc[a->rank] = rc;
	a->st->state[a->rank] = RANK_DONE;
}

/* A rank's stack: as a thread's would be (the stack limit), 8 MiB when
 * that is unlimited. */
static size_t stack_bytes(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_STACK, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > ((rlim_t)1 << 28))
		return (size_t)8 << 20;
	return rl.rlim_cur < ((rlim_t)1 << 16) ? (size_t)1 << 16 : (size_t)rl.rlim_cur;
}

/* The bytes just outside every rank's input and output (the guards), as
 * they were before any rank ran: ranks run one at a time, so the first
 * step after which they differ names the rank that wrote there, wherever
 * the write landed (a neighbour's guard, for a long one). */
#define WATCH_BYTES 32
static unsigned char watched[SC_MAX_WORLD][2][2][WATCH_BYTES];
static int watching; /* this call's job asked for it */
static struct sc_devmem *device; /* this job's device memory, while its ranks run */

static unsigned char *watch_at(const struct sc_plugin_tensor *t, int end)
{
	size_t n = t->elem_size;
	for (int d = 0; d < t->ndim; d++)
		n *= (size_t)t->shape[d];
	return end ? (unsigned char *)t->data + n : (unsigned char *)t->data - WATCH_BYTES;
}

static void watch(const struct thread_arg *args, int world)
{
	for (int r = 0; r < world; r++)
		for (int k = 0; k < 4; k++)
			memcpy(watched[r][k >> 1][k & 1], watch_at(k >> 1 ? &args[r].call.output : &args[r].call.input, k & 1),
			       WATCH_BYTES);
}

static int watch_changed(const struct thread_arg *args, int world)
{
	for (int r = 0; r < world; r++)
		for (int k = 0; k < 4; k++)
			if (memcmp(watched[r][k >> 1][k & 1],
				   watch_at(k >> 1 ? &args[r].call.output : &args[r].call.input, k & 1), WATCH_BYTES))
				return 1;
	return 0;
}

/* Runs rank r until it waits or returns; 1 when it returned. */
static int step(struct sc_coro *co, struct thread_arg *a, int start)
{
	sc_sandbox_tag(a->rank);
	if (device && device->ops->enter)
		device->ops->enter(device, a->rank);
	a->st->current = a->rank;
	const int done = start ? sc_coro_start(co, rank_main, a) : sc_coro_resume(co);
	a->st->current = -1;
	sc_sandbox_tag(-1);
	if (watching && !a->st->stray && watch_changed(a - a->rank, a->call.world))
		a->st->stray = a->rank + 1;
	return done;
}

/* Every rank as a coroutine of this process (kept from call to call),
 * scheduled round by round until all returned; 3 when a rank returned
 * non-zero, 5 when the ranks left deadlocked in collectives. */
static int run_ranks(struct thread_arg *args, int world, const struct sc_mesh *mesh, struct sc_devmem *dm)
{
	static struct sc_coro *co[SC_MAX_WORLD];
	struct rank_state *st = args[0].st;
	struct sc_plugin_comms *comms;
	if (sc_plugin_comms_new(NULL, world, 0, world, mesh, &comms, NULL) != SC_OK) {
		snprintf(st->why, sizeof st->why, "out of memory for the collectives' tables");
		return 4;
	}
	if (dm)
		sc_plugin_comms_devmem(comms, dm);
	for (int r = 0; r < world; r++) {
		struct sc_err e;
		if (!co[r] && sc_coro_new(stack_bytes(), &co[r], &e) != SC_OK) {
			snprintf(st->why, sizeof st->why, "cannot start rank %d: %.150s (memory limit? see --plugin-memory)",
				 r, e.msg);
			sc_plugin_comms_free(comms);
			return 4;
		}
		args[r].call.coll = sc_plugin_comms_world(comms, r);
		args[r].comms = comms;
	}
	int done[SC_MAX_WORLD] = {0}, left = world;
	if (watching)
		watch(args, world);
	for (int r = 0; r < world; r++)
		left -= done[r] = step(co[r], &args[r], 1);
	while (left > 0) {
		const unsigned long moves = sc_plugin_comms_moves(comms);
		const int was = left;
		for (int r = 0; r < world; r++)
			if (!done[r])
				left -= done[r] = step(co[r], &args[r], 0);
		if (left == was && sc_plugin_comms_moves(comms) == moves)
			break; /* a round in which no rank moved: the waiting ones never will */
	}
	sc_plugin_comms_free(comms);
	if (left > 0)
		return 5;
	for (int r = 0; r < world; r++)
		if (st->rc[r] != 0)
			return 3;
	return 0;
}

/* One job: the library loaded here (once per process), then the ranks.
 * 0 ok, 3 a rank returned non-zero, 4 st->why says, 5 deadlock, 6 the
 * call could not be prepared here (st->why says: not the plugin's fault). */
static int run_job(const struct sc_plugin_host *h, const struct sc_plugin_job *j, struct rank_state *st)
{
	const struct sc_plugin_transform *tr = h->resolve(h->load, j->tr, st->why, sizeof st->why);
	if (!tr)
		return 4;
	static const struct sc_plugin_native native = {sizeof native, NULL, NULL, NULL};
	static struct thread_arg args[SC_MAX_WORLD]; /* static: a root for a leak check at a rank's exit() */
	for (int r = 0; r < j->world; r++) {
		args[r].call = j->call[r];
		args[r].call.native = &native;
		args[r].call.user = tr->user;
		args[r].call.group = call_group;
		for (int m = 0; m < j->mesh.n; m++)
			args[r].call.mesh_name[m] = j->mesh_name[m];
		args[r].tr = tr;
		args[r].st = st;
		args[r].rank = r;
		args[r].comms = NULL;
	}
	struct sc_devmem *dm = NULL;
	if (j->device) { /* the buffers copied into this process's device memory */
		static struct sc_plugin_native dev_native[SC_MAX_WORLD];
		if (!(dm = sc_plugin_dev_open((enum sc_plugin_dev_kind)j->device, st->why, sizeof st->why)))
			return 6;
		for (int r = 0; r < j->world; r++)
			if (sc_plugin_dev_stage(dm, &args[r].call, &dev_native[r], r, st->why, sizeof st->why))
				return 6;
	}
	watching = j->watch && !dm; /* device guards are looked at after the call */
	device = dm;
	int rc = run_ranks(args, j->world, &j->mesh, dm);
	device = NULL;
	if (dm) { /* a device error, a guard, or the copies back; a rank's failure stands, with the device's word */
		char why[sizeof st->why];
		st->syncing = 1;
		int bad = sc_plugin_dev_sync(dm, why, sizeof why);
		st->syncing = 0;
		st->lost = bad;
		for (int r = 0; !bad && r < j->world; r++)
			bad = sc_plugin_dev_return(dm, &args[r].call, &j->call[r], r, why, sizeof why);
		sc_plugin_dev_release(dm);
		if (bad && (rc == 0 || rc == 3)) {
			snprintf(st->why, sizeof st->why, "%s", why);
			rc = rc ? rc : 4;
		}
	}
	return rc;
}

/* The child's side of a call: its jobs in order, up to the first that
 * fails, or after which processes the plugin started are still running
 * (the call's leftovers, then told as that job's); b->at names it. */
static int host_main(void *arg)
{
	const struct sc_plugin_host *h = arg;
	struct block *b = h->b;
	const int n = b->njobs < 1 ? 1 : b->njobs > SC_PLUGIN_HOST_BATCH ? SC_PLUGIN_HOST_BATCH : b->njobs;
	for (int k = 0; k < n; k++) {
		__atomic_store_n(&b->at, k, __ATOMIC_RELEASE); /* job k-1's outputs before the word that says it ended */
		if (k > 0)
			memset((void *)&b->st, 0, sizeof b->st);
		const double t0 = sc_clock_now();
		const int rc = run_job(h, &b->job[k], &b->st);
		b->took[k] = sc_clock_now() - t0;
		if (rc != 0 || (k + 1 < n && sc_sandbox_between()))
			return rc;
	}
	return 0;
}

int sc_plugin_host_run_local(const struct sc_plugin_transform *tr, struct sc_plugin_call *call,
			     struct sc_plugin_comms *comms, int r)
{
	struct thread_arg a;
	memset(&a, 0, sizeof a);
	a.call = *call;
	a.call.coll = comms ? sc_plugin_comms_world(comms, r) : NULL;
	a.call.group = call_group;
	a.call.user = tr->user;
	a.tr = tr;
	a.rank = r;
	a.comms = comms;
	return tr->run(&a.call);
}

/* ---- in this process ---- */

static void ranks_in(const struct rank_state *st, int world, int which, char *buf, size_t n)
{
	size_t k = 0;
	buf[0] = '\0';
	for (int r = 0; r < world && k < n; r++)
		if (st->state[r] == which)
			k += (size_t)snprintf(buf + k, n - k, "%s%d", k ? ", " : "", r);
}

/* "rank" or "ranks", for a list from ranks_in. */
static const char *rank_s(const char *list) { return strchr(list, ',') ? "ranks" : "rank"; }

/* An overrun of a buffer the plugin was given, in words: "rank 0 wrote
 * past the end of its output (16 bytes): first changed byte at +0". The
 * writer is the rank that was running when the bytes changed (stray, 1 +
 * its rank; 0: unknown): its own buffers are looked at first, and a write
 * that reached only another rank's guards says whose. */
static int overrun(const struct sc_tensor *in, const struct sc_tensor *out, int n, int stray, char *buf, size_t len)
{
	const int w = stray > 0 && stray <= n ? stray - 1 : -1;
	for (int i = 0; i < n + (w >= 0); i++) {
		const int r = w >= 0 ? (i == 0 ? w : i - 1) : i;
		if (i > 0 && r == w)
			continue;
		for (int k = 0; k < 2; k++) {
			const struct sc_buf *b = k ? in[r].buf : out[r].buf;
			int64_t at;
			const int side = sc_buf_guard_breach(b, &at);
			if (!side)
				continue;
			char who[96] = "";
			if (w >= 0 && r != w)
				snprintf(who, sizeof who, "rank %d wrote outside its buffers, into the bytes around rank %d's", w, r);
			else
				snprintf(who, sizeof who, "rank %d wrote %s its", r, side > 0 ? "past the end of" : "before the start of");
			return snprintf(buf, len, "%s %s (%lld bytes): first changed byte at %s%s%lld", who, k ? "input" : "output",
					(long long)(b->nelem * b->esize), w >= 0 && r != w ? (side > 0 ? "its end " : "its start ") : "",
					side > 0 ? "+" : "-", (long long)at) > 0;
		}
	}
	return 0;
}

/* How the call ended, as the run's status and message. */
static enum sc_status verdict(const struct sc_sandbox_result *r, const struct rank_state *st, int world,
			      const struct sc_plugin_host_run_opts *o, double timeout, double slowest,
			      const struct sc_tensor *in, const struct sc_tensor *out, struct sc_err *e)
{
	char running[256], how[300], over[200] = "", mem[96] = "", cur[48] = "";
	/* the usual end, told apart before any message is formatted */
	if (r->end == SC_SANDBOX_RETURNED && r->code == 0 && !r->leftovers && !overrun(in, out, world, st->stray, over, sizeof over))
		return SC_OK;
	ranks_in(st, world, RANK_RUNNING, running, sizeof running);
	if (st->current >= 0 && st->current < world) /* the rank that was executing (ranks run one at a time) */
		snprintf(cur, sizeof cur, "%d", st->current);
	sc_sandbox_describe(r, "rank", how, sizeof how);
	if (overrun(in, out, world, st->stray, over, sizeof over) && (r->end != SC_SANDBOX_RETURNED || r->code != 0))
		strcat(over, ", and then ");
	const size_t peak = r->peak_added > r->peak_rss ? r->peak_added : r->peak_rss;
	if (o->memory && peak >= o->memory / 4 * 3)
		snprintf(mem, sizeof mem, " (it mapped %zu MiB of its %zu MiB limit, --plugin-memory)", peak >> 20,
			 o->memory >> 20);
	/* where it hung: a rank that neither returned nor reached a
	 * collective, or (every rank returned) the device work they queued */
	char hung[160];
	if (st->syncing)
		snprintf(hung, sizeof hung, "every rank returned, and the device work they queued did not finish: a "
			 "kernel that does not return?");
	else
		snprintf(hung, sizeof hung, "%s%s%s", cur[0] ? "rank " : "no rank running", cur,
			 cur[0] ? " did not return or reach a collective" : "");
	if (r->end == SC_SANDBOX_TIMEOUT && timeout < o->timeout) /* cut short: an earlier call hung */
		return SC_ERR(e, SC_E_RUNTIME,
			      "%sthe plugin hung: no result after %.0f s (%s); killed (a timeout cut from %.0f s: an "
			      "earlier call of this transform hung, and its calls that returned took at most %.3f s)",
			      over, timeout, hung, o->timeout, slowest);
	if (r->end == SC_SANDBOX_TIMEOUT)
		return SC_ERR(e, SC_E_RUNTIME, "%sthe plugin hung: no result after %.0f s (%s); killed", over, o->timeout,
			      hung);
	if (r->end == SC_SANDBOX_SIGNAL)
		return SC_ERR(e, SC_E_RUNTIME, "%sthe plugin %s%s%s%s", over, how, cur[0] ? " on rank " : "", cur, mem);
	if (r->end == SC_SANDBOX_EXIT || r->end == SC_SANDBOX_EXITED || r->end == SC_SANDBOX_SANITIZER)
		return SC_ERR(e, SC_E_RUNTIME, "%sthe plugin %s%s%s%s", over, how,
			      r->tag < 0 && cur[0] ? " while running rank " : "", r->tag < 0 ? cur : "", mem);
	if (r->code == 4)
		return SC_ERR(e, SC_E_RUNTIME, "%s%.255s", over, st->why);
	if (r->code == 6) /* shardcheck's side of the call: an error, never the plugin's failure */
		return SC_ERR(e, SC_E_UNAVAIL, "%.255s", st->why);
	if (r->code == 5) { /* the ranks still running wait in collectives no other rank will join */
		char returned[256];
		ranks_in(st, world, RANK_DONE, returned, sizeof returned);
		for (int k = 0; k < world; k++)
			if (st->state[k] == RANK_DONE && st->rc[k] != 0)
				return SC_ERR(e, SC_E_RUNTIME, "%srank %d returned %d while %s %s waited in a collective",
					      over, k, st->rc[k], rank_s(running), running);
		if (returned[0])
			return SC_ERR(e, SC_E_RUNTIME,
				      "%s%s %s returned while %s %s waited in a collective that not every rank of its "
				      "group called",
				      over, rank_s(returned), returned, rank_s(running), running);
		return SC_ERR(e, SC_E_RUNTIME,
			      "%sthe ranks deadlocked: %s %s wait in collectives that do not complete (the ranks of a "
			      "group did not call the same collectives)",
			      over, rank_s(running), running);
	}
	if (r->code == 3)
		for (int k = 0; k < world; k++)
			if (st->rc[k] != 0)
				return SC_ERR(e, SC_E_RUNTIME, "%srank %d: the transform returned %d%s%s%.200s", over, k,
					      st->rc[k], mem, st->why[0] ? "; then " : "", st->why);
	if (r->code != 0)
		return SC_ERR(e, SC_E_RUNTIME, "the plugin's child ended with code %d", r->code);
	if (over[0])
		return SC_ERR(e, SC_E_RUNTIME, "%s", over);
	if (r->leftovers)
		return SC_ERR(e, SC_E_RUNTIME, "the plugin left processes running after every rank returned (killed)");
	return SC_OK;
}

/* A call's identity: the caller's key and the job's shapes. */
static uint64_t job_key(const struct sc_plugin_job *j, uint64_t key)
{
	uint64_t h = sc_mix64(key ^ (uint64_t)(uintptr_t)j->tr);
	h = sc_mix64(h ^ (uint64_t)j->world);
	for (int m = 0; m < j->mesh.n; m++)
		h = sc_mix64(h ^ (uint64_t)j->mesh.size[m]);
	for (int r = 0; r < j->world; r++) {
		const struct sc_plugin_call *c = &j->call[r];
		h = sc_mix64(h ^ (uint64_t)c->dtype ^ ((uint64_t)c->input.ndim << 8) ^ ((uint64_t)c->output.ndim << 16));
		for (int d = 0; d < c->input.ndim; d++)
			h = sc_mix64(h ^ (uint64_t)c->input.shape[d]);
		for (int d = 0; d < c->output.ndim; d++)
			h = sc_mix64(h ^ (uint64_t)c->output.shape[d]);
	}
	return h ? h : 1;
}

/* The worker, started (again) when it is gone or was forked before the
 * arena mapped the blocks this call's buffers are in; NULL when none can
 * be started (the call then runs in a fresh child). */
static struct sc_sandbox_worker *worker(struct sc_plugin_host *h, const struct sc_plugin_host_run_opts *o)
{
	if (sc_sandbox_worker_alive(h->w) && h->epoch == sc_arena_shared_epoch() && h->memory == o->memory &&
	    h->flat == o->flat)
		return h->w;
	const char *why = !h->w ? "first call"
			  : !sc_sandbox_worker_alive(h->w) ? "the last one ended"
			  : h->memory != o->memory ? "another memory limit"
			  : h->flat != o->flat ? "another containment (CUDA)"
						   : "the arena mapped memory the last one does not see";
	sc_sandbox_worker_stop(h->w);
	h->w = NULL;
	const struct sc_sandbox_opts so = {0, o->memory, o->flat};
	struct sc_err e;
	if (sc_sandbox_worker_start(host_main, h, &so, &h->w, &e) != SC_OK) {
		SC_LOG(PLUGIN, "%s: no worker (%s): cases run in fresh children", h->load, e.msg);
		return NULL;
	}
	SC_LOG(PLUGIN, "%s: worker started (%s)", h->load, why);
	h->epoch = sc_arena_shared_epoch();
	h->memory = o->memory;
	h->flat = o->flat;
	return h->w;
}

/* The fork server's side of a call: the library loaded in this process
 * (once; never run here, so a child forked from it is a just-loaded
 * library), then one fresh child forked for the job, how it ended written
 * to the block. A library that cannot be loaded here is loaded (and its
 * failure told) by the child. The children stay in the server's pid
 * namespace (a namespace each would cost more than the load it saves),
 * contained by the subreapers' loops, and whatever escapes them ends with
 * the server. A child that stops or kills the server (its parent) makes
 * the call fail: the case then runs from shardcheck, in a namespace of its
 * own. 0, or 1 when no child could be started. */
static int server_main(void *arg)
{
	const struct sc_plugin_host *h = arg;
	struct block *b = h->b;
	char why[256];
	sc_sandbox_flat();
	h->resolve(h->load, b->job[0].tr, why, sizeof why);
	struct sc_err e;
	return sc_sandbox_run(host_main, arg, &b->fresh_opts, &b->fresh, &e) == SC_OK ? 0 : 1;
}

/* A fresh run forked by the library's fork server, which is started
 * (again) as the worker is: loading the library once instead of once per
 * fresh case. 0 when there is no server (then the caller forks from
 * here). */
#define SERVER_GRACE_S 10.0 /* beyond the run's own timeout, which the server keeps */
static int served(struct sc_plugin_host *h, const struct sc_sandbox_opts *so, struct sc_sandbox_result *r)
{
	if (h->no_server)
		return 0;
	struct sc_err e;
	if (!sc_sandbox_worker_alive(h->server) || h->server_epoch != sc_arena_shared_epoch() ||
	    h->server_flat != so->flat) {
		sc_sandbox_worker_stop(h->server);
		h->server = NULL;
		const struct sc_sandbox_opts none = {0, 0, so->flat}; /* each child sets its own limit */
		if (sc_sandbox_worker_start(server_main, h, &none, &h->server, &e) != SC_OK) {
			SC_LOG(PLUGIN, "%s: no fork server (%s): fresh children forked from here", h->load, e.msg);
			h->no_server = 1;
			return 0;
		}
		h->server_epoch = sc_arena_shared_epoch();
		h->server_flat = so->flat;
	}
	h->b->fresh_opts = *so;
	struct sc_sandbox_result sr = {.end = SC_SANDBOX_EXITED, .code = -1, .tag = -1};
	if (sc_sandbox_worker_call(h->server, so->timeout > 0 ? so->timeout + SERVER_GRACE_S : 0, &sr, &e) != SC_OK ||
	    sr.end != SC_SANDBOX_RETURNED || sr.code != 0 || sr.leftovers) {
		char how[300];
		sc_sandbox_describe(&sr, NULL, how, sizeof how);
		SC_LOG(PLUGIN, "%s: the fork server failed (%s): fresh children forked from here", h->load, how);
		sc_sandbox_worker_stop(h->server);
		h->server = NULL;
		h->no_server = 1;
		return 0;
	}
	*r = h->b->fresh;
	return 1;
}

/* Job k's overrun, if any, as its error (stray: see rank_state). */
static int overran(const struct block *b, int k, int stray, const struct sc_tensor *in, const struct sc_tensor *out,
		   struct sc_err *e)
{
	const int world = b->job[k].world;
	char over[200];
	if (!overrun(in + (size_t)k * (size_t)world, out + (size_t)k * (size_t)world, world, stray, over, sizeof over))
		return 0;
	SC_ERR(e, SC_E_RUNTIME, "%s", over);
	return 1;
}

/* The call's outcome from how it ended (r): its first job that went
 * wrong, as its error. */
static void outcome(struct sc_plugin_host *h, struct call *c, const struct sc_sandbox_result *r)
{
	struct block *b = h->b;
	const int n = c->n, world = b->job[0].world;
	const int whole = r->end == SC_SANDBOX_RETURNED && r->code == 0 && !r->leftovers;
	/* the job that did not complete (the child's word, in range) */
	const int at = whole ? n : b->at < 0 ? 0 : b->at >= n ? n - 1 : b->at;
	struct tr_times *times = c->times;
	for (int k = 0; times && r->end == SC_SANDBOX_RETURNED && k < at; k++) {
		const double took = n == 1 ? r->seconds : b->took[k] < 0 ? 0 : b->took[k] > r->seconds ? r->seconds : b->took[k];
		if (took > times->slowest_ok)
			times->slowest_ok = took;
	}
	if (times && r->end == SC_SANDBOX_TIMEOUT && !times->hung_at)
		times->hung_at = c->timeout;
	c->ended = 1;
	c->st = SC_OK;
	/* the first job that went wrong: one that returned and wrote outside
	 * its buffers (looked at again: a later job may have), or the one the
	 * call ended in */
	for (int k = 0; k < at; k++)
		if (overran(b, k, k == n - 1 ? b->st.stray : 0, c->in, c->out, &c->err)) {
			c->failed = k;
			c->st = SC_E_RUNTIME;
			return;
		}
	if (whole)
		return;
	c->failed = at;
	const size_t ko = (size_t)at * (size_t)world;
	c->st = verdict(r, &b->st, b->job[at].world, &c->o, c->timeout, c->slowest, c->in + ko, c->out + ko, &c->err);
	/* abandoned ranks hold stacks and locks; a device error leaves the
	 * process's CUDA context unusable: the next case runs in a new one */
	if (c->w && r->end == SC_SANDBOX_RETURNED && (r->code == 5 || b->st.lost)) {
		sc_sandbox_worker_stop(h->w);
		h->w = NULL;
	}
	/* a hang is remembered from fresh runs only: a warm one may come
	 * from earlier calls, and its confirmation must run */
	if (r->end == SC_SANDBOX_TIMEOUT && c->key && c->o.fresh) {
		const int k = h->nhung++ % HUNG_SLOTS;
		h->hung[k] = c->key;
		snprintf(h->hung_msg[k], sizeof h->hung_msg[k], "%s", c->err.msg);
	}
}

/* Waits for the end of the call in flight, if any (its outcome kept). */
static void land(struct sc_plugin_host *h)
{
	struct call *c = &h->cur;
	if (!c->flying)
		return;
	struct sc_sandbox_result r;
	struct sc_err e;
	int done = 0;
	c->flying = 0;
	if (sc_sandbox_worker_alive(c->w) && sc_sandbox_worker_wait(c->w, 0, &done, &r, &e) == SC_OK && done) {
		outcome(h, c, &r);
		return;
	}
	c->ended = 1;
	c->failed = c->ok;
	c->st = SC_ERR(&c->err, SC_E_RUNTIME, "the plugin's worker went away during the call");
}

void sc_plugin_host_settle(struct sc_plugin_host *h)
{
	if (h) {
		land(h);
		h->cur.n = 0;
	}
}

enum sc_status sc_plugin_host_start(struct sc_plugin_host *h, const struct sc_plugin_host_run_opts *o, int n,
				    const struct sc_tensor *in, const struct sc_tensor *out, struct sc_err *e)
{
	if (n < 1 || n > SC_PLUGIN_HOST_BATCH || (n > 1 && o->fresh))
		return SC_ERR(e, SC_E_INTERNAL, "a plugin call of %d jobs%s", n, o->fresh ? " in a fresh child" : "");
	sc_plugin_host_settle(h);
	struct block *b = h->b;
	struct call *c = &h->cur;
	memset(c, 0, sizeof *c);
	c->n = n;
	c->o = *o;
	c->in = in;
	c->out = out;
	c->key = o->key ? job_key(&b->job[0], o->key) : 0;
	for (int i = 0; c->key && i < h->nhung && i < HUNG_SLOTS; i++)
		if (h->hung[i] == c->key) { /* this call hung before: the same answer */
			c->ended = 1;
			c->st = SC_ERR(&c->err, SC_E_RUNTIME, "%s", h->hung_msg[i]);
			return SC_OK;
		}
	memset(&b->st, 0, sizeof b->st);
	b->njobs = n;
	b->at = 0;
	b->job[0].watch = o->fresh;
	for (int k = 1; k < n; k++)
		b->job[k].watch = 0;
	if (o->fresh || o->restart) { /* after a failure the worker's state is suspect; a replay starts anew */
		sc_sandbox_worker_stop(h->w);
		h->w = NULL;
	}
	c->times = times_of(h, b->job[0].tr);
	c->timeout = call_timeout(c->times, o->timeout);
	c->slowest = c->times ? c->times->slowest_ok : 0;
	c->w = o->fresh ? NULL : worker(h, o);
	if (c->w) {
		SC_CHECK(sc_sandbox_worker_post(c->w, c->timeout, &b->at, n, e));
		c->flying = 1;
		return SC_OK;
	}
	struct sc_sandbox_result r;
	const struct sc_sandbox_opts so = {c->timeout, o->memory, o->flat};
	if (!served(h, &so, &r)) {
		const enum sc_status st = sc_sandbox_run(host_main, h, &so, &r, e);
		if (st != SC_OK) {
			c->n = 0;
			return st;
		}
	}
	outcome(h, c, &r);
	return SC_OK;
}

enum sc_status sc_plugin_host_wait(struct sc_plugin_host *h, int k, int *failed, struct sc_err *e)
{
	struct call *c = &h->cur;
	*failed = 0;
	if (k < 0 || k >= c->n)
		return SC_ERR(e, SC_E_INTERNAL, "job %d of a call of %d asked for", k, c->n);
	/* job k ended while the call goes on: its buffers looked at now */
	while (c->flying && k >= c->ok && k < c->n - 1) {
		struct sc_sandbox_result r;
		int done = 0;
		SC_CHECK(sc_sandbox_worker_wait(c->w, c->ok + 1, &done, &r, e));
		if (done) {
			c->flying = 0;
			outcome(h, c, &r);
			break;
		}
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		const int at = h->b->at < c->n ? h->b->at : c->n;
		for (; c->ok < at; c->ok++)
			if (overran(h->b, c->ok, 0, c->in, c->out, e)) {
				*failed = c->ok;
				return SC_E_RUNTIME; /* the call goes on; settled before the next */
			}
	}
	if (k >= c->ok || k == c->n - 1)
		land(h);
	if (!c->ended || c->st == SC_OK || k < c->failed) /* not ended: k < ok, ended and looked at */
		return SC_OK;
	*failed = c->failed;
	*e = c->err;
	return c->st;
}

enum sc_status sc_plugin_host_run(struct sc_plugin_host *h, const struct sc_plugin_host_run_opts *o, int n,
				  const struct sc_tensor *in, const struct sc_tensor *out, int *failed, struct sc_err *e)
{
	*failed = 0;
	SC_CHECK(sc_plugin_host_start(h, o, n, in, out, e));
	return sc_plugin_host_wait(h, n - 1, failed, e);
}
