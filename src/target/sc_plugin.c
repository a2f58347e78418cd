/* sc_plugin: plugin loading, contracts, and isolated execution.
 *
 * Invariant of the isolated path: everything the child writes that the
 * parent reads (outputs, the per-rank state block) lives in the shared
 * arena; the child never returns into shardcheck, it _exits. */
#include "sc_plugin.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>


#include "shardcheck/plugin.h"
#include "sc_clock.h"

/* The ABI's dtype and op values are shardcheck's own. */
_Static_assert((int)SC_PLUGIN_I32 == (int)SC_I32 && (int)SC_PLUGIN_F8E5M2 == (int)SC_F8E5M2 &&
		       (int)SC_PLUGIN_BF16 == (int)SC_BF16 && (int)SC_PLUGIN_U64 == (int)SC_U64,
	       "plugin dtype values");
_Static_assert((int)SC_PLUGIN_SUM == (int)SC_SUM && (int)SC_PLUGIN_PROD == (int)SC_PROD, "plugin ops");

struct sc_plugin_lib {
	void *handle;
	char path[512];
	int n;
	struct sc_plugin_transform t[SC_PLUGIN_MAX_TRANSFORMS];
	char *strings[3 * SC_PLUGIN_MAX_TRANSFORMS];
	int nstrings;
	int bad;
	char why[256];
};

static char *keep(struct sc_plugin_lib *lib, const char *s)
{
	if (!s || lib->nstrings >= 3 * SC_PLUGIN_MAX_TRANSFORMS)
		return NULL;
	return lib->strings[lib->nstrings++] = strdup(s);
}

static int reg_add(struct sc_plugin_registry *reg, const struct sc_plugin_transform *t)
{
	struct sc_plugin_lib *lib = reg->impl;
	const size_t need = offsetof(struct sc_plugin_transform, run) + sizeof t->run;
	if (!t || t->size < need || !t->name || !t->contract || !t->run) {
		lib->bad = 1;
		snprintf(lib->why, sizeof lib->why, "a transform lacks name, contract or run (size %zu)",
			 t ? t->size : (size_t)0);
		return -1;
	}
	if (t->abi_version > SC_PLUGIN_ABI_VERSION) {
		lib->bad = 1;
		snprintf(lib->why, sizeof lib->why, "transform '%.64s' needs plugin ABI %u; this shardcheck has %u",
			 t->name, t->abi_version, SC_PLUGIN_ABI_VERSION);
		return -2;
	}
	if (lib->n >= SC_PLUGIN_MAX_TRANSFORMS)
		return -3;
	struct sc_plugin_transform *d = &lib->t[lib->n];
	/* fields past the plugin's size keep their zero defaults */
	memset(d, 0, sizeof *d);
	memcpy(d, t, t->size < sizeof *d ? t->size : sizeof *d);
	d->size = sizeof *d;
	d->name = keep(lib, t->name);
	d->contract = keep(lib, t->contract);
	if (d->description)
		d->description = keep(lib, d->description);
	lib->n++;
	return 0;
}

enum sc_status sc_plugin_load(const char *path, struct sc_plugin_lib **out, struct sc_err *e)
{
	struct sc_plugin_lib *lib = calloc(1, sizeof *lib);
	if (!lib)
		return SC_ERR(e, SC_E_NOMEM, "out of memory");
	snprintf(lib->path, sizeof lib->path, "%s", path);
	char p[600];
	snprintf(p, sizeof p, "%s%s", strchr(path, '/') ? "" : "./", path);
	lib->handle = dlopen(p, RTLD_NOW | RTLD_LOCAL);
	if (!lib->handle) {
		SC_ERR(e, SC_E_USAGE, "%s: cannot load the plugin: %s", path, dlerror());
		free(lib);
		return SC_E_USAGE;
	}
	int (*reg)(struct sc_plugin_registry *);
	*(void **)&reg = dlsym(lib->handle, "sc_plugin_register");
	if (!reg) {
		SC_ERR(e, SC_E_USAGE, "%s: not a shardcheck plugin (no sc_plugin_register)", path);
		sc_plugin_close(lib);
		return SC_E_USAGE;
	}
	struct sc_plugin_registry r = {sizeof r, SC_PLUGIN_ABI_VERSION, reg_add, lib};
	int rc = reg(&r);
	if (rc != 0 || lib->bad || lib->n == 0) {
		SC_ERR(e, SC_E_USAGE, "%s: %s", path,
		       lib->bad ? lib->why : rc ? "sc_plugin_register failed" : "the plugin registers no transform");
		sc_plugin_close(lib);
		return SC_E_USAGE;
	}
	SC_LOG(PLUGIN, "loaded %s: %d transform%s", path, lib->n, lib->n == 1 ? "" : "s");
	*out = lib;
	return SC_OK;
}

void sc_plugin_close(struct sc_plugin_lib *lib)
{
	if (!lib)
		return;
	for (int i = 0; i < lib->nstrings; i++)
		free(lib->strings[i]);
	if (lib->handle)
		dlclose(lib->handle);
	free(lib);
}

int sc_plugin_count(const struct sc_plugin_lib *lib) { return lib->n; }
const struct sc_plugin_transform *sc_plugin_get(const struct sc_plugin_lib *lib, int i) { return &lib->t[i]; }
const char *sc_plugin_name(const struct sc_plugin_transform *t) { return t->name; }

const struct sc_plugin_transform *sc_plugin_find(const struct sc_plugin_lib *lib, const char *name)
{
	for (int i = 0; i < lib->n; i++)
		if (strcmp(lib->t[i].name, name) == 0)
			return &lib->t[i];
	return NULL;
}

static enum sc_status plugin_specs(struct sc_target *t, const struct sc_case *c, const struct sc_spec **out,
				   int *n, struct sc_err *e)
{
	(void)c;
	(void)e;
	out[0] = t->spec;
	*n = 1;
	return SC_OK;
}

static int plugin_moves_data_only(const struct sc_target *t)
{
	return !t->spec->has_reduction && !t->spec->compute;
}

static void plugin_free(struct sc_target *t)
{
	free(t->spec);
	sc_plugin_close(t->own_lib);
	sc_plugin_close(t->own_baseline);
}

static const struct sc_target_ops plugin_ops = {
	.kind = "plugin",
	.flags = SC_TARGET_HOST_ONLY,
	.specs = plugin_specs,
	.run = sc_plugin_exec,
	.moves_data_only = plugin_moves_data_only,
	.free = plugin_free,
};

enum sc_status sc_target_plugin(struct sc_target *t, const char *libpath,
				const struct sc_plugin_transform *tr,
				const struct sc_plugin_transform *baseline, struct sc_err *e)
{
	memset(t, 0, sizeof *t);
	struct sc_spec *s = malloc(sizeof *s);
	if (!s)
		return SC_ERR(e, SC_E_NOMEM, "out of memory");
	char where[700];
	snprintf(where, sizeof where, "%s:%s", libpath, tr->name);
	enum sc_status st = sc_spec_parse(tr->contract, where, s, e);
	if (st == SC_OK && s->nsteps > 0)
		st = SC_ERR(e, SC_E_SPEC, "%s:%d:1: a contract declares (dims, input, output, ...); it has no steps",
			    where, s->steps[0].line);
	if (st != SC_OK) {
		free(s);
		return st;
	}
	t->ops = &plugin_ops;
	t->spec = s;
	t->expect = -1;
	t->plugin = tr;
	t->baseline = baseline;
	snprintf(t->name, sizeof t->name, "%.500s", where);
	snprintf(t->plugin_path, sizeof t->plugin_path, "%s", libpath);
	return SC_OK;
}

/* ---- collectives for ranks as threads of one (child) process ---- */

struct group {
	int world;
	pthread_barrier_t bar;
	const void *send[SC_MAX_WORLD];
	void *recv[SC_MAX_WORLD];
};

struct rank_coll {
	struct sc_plugin_collectives pub;
	struct group *g;
	int rank;
};

static struct rank_coll *rc_of(const struct sc_plugin_collectives *c) { return c->impl; }

static void exchange(struct rank_coll *r, const void *send, void *recv)
{
	r->g->send[r->rank] = send;
	r->g->recv[r->rank] = recv;
	pthread_barrier_wait(&r->g->bar);
}

static int t_a2a(const struct sc_plugin_collectives *c, const void *send, void *recv, size_t chunk)
{
	struct rank_coll *r = rc_of(c);
	exchange(r, send, recv);
	for (int src = 0; src < r->g->world; src++)
		memcpy((char *)recv + (size_t)src * chunk, (const char *)r->g->send[src] + (size_t)r->rank * chunk, chunk);
	pthread_barrier_wait(&r->g->bar); /* nobody reuses send before all read it */
	return 0;
}

static int t_ag(const struct sc_plugin_collectives *c, const void *send, void *recv, size_t bytes)
{
	struct rank_coll *r = rc_of(c);
	exchange(r, send, recv);
	for (int src = 0; src < r->g->world; src++)
		memcpy((char *)recv + (size_t)src * bytes, r->g->send[src], bytes);
	pthread_barrier_wait(&r->g->bar);
	return 0;
}

static int t_rs(const struct sc_plugin_collectives *c, const void *send, void *recv, size_t count,
		enum sc_plugin_dtype dt, enum sc_plugin_redop op)
{
	struct rank_coll *r = rc_of(c);
	if ((unsigned)dt >= SC_NDTYPES || (unsigned)op >= SC_NREDOPS)
		return -1;
	const size_t bytes = count * sc_dtype_size((enum sc_dtype)dt);
	exchange(r, send, recv);
	memcpy(recv, (const char *)r->g->send[0] + (size_t)r->rank * bytes, bytes);
	for (int src = 1; src < r->g->world; src++)
		sc_reduce((enum sc_dtype)dt, (enum sc_redop)op, recv,
			  (const char *)r->g->send[src] + (size_t)r->rank * bytes, count);
	pthread_barrier_wait(&r->g->bar);
	return 0;
}

static int t_ar(const struct sc_plugin_collectives *c, const void *send, void *recv, size_t count,
		enum sc_plugin_dtype dt, enum sc_plugin_redop op)
{
	struct rank_coll *r = rc_of(c);
	if ((unsigned)dt >= SC_NDTYPES || (unsigned)op >= SC_NREDOPS)
		return -1;
	const size_t bytes = count * sc_dtype_size((enum sc_dtype)dt);
	exchange(r, send, recv);
	memcpy(recv, r->g->send[0], bytes);
	for (int src = 1; src < r->g->world; src++)
		sc_reduce((enum sc_dtype)dt, (enum sc_redop)op, recv, r->g->send[src], count);
	pthread_barrier_wait(&r->g->bar);
	return 0;
}

/* ---- collectives through the backend (one rank in this process) ---- */

struct be_coll {
	struct sc_plugin_collectives pub;
	struct sc_backend *be;
	int world;
};

static int b_a2a(const struct sc_plugin_collectives *c, const void *send, void *recv, size_t chunk)
{
	struct be_coll *b = c->impl;
	void *s[1] = {(void *)send}, *r[1] = {recv};
	return b->be->ops->all_to_all(b->be, b->world, s, r, chunk, NULL) == SC_OK ? 0 : -1;
}

static int b_ag(const struct sc_plugin_collectives *c, const void *send, void *recv, size_t bytes)
{
	struct be_coll *b = c->impl;
	void *s[1] = {(void *)send}, *r[1] = {recv};
	return b->be->ops->all_gather(b->be, b->world, s, r, bytes, NULL) == SC_OK ? 0 : -1;
}

static int b_rs(const struct sc_plugin_collectives *c, const void *send, void *recv, size_t count,
		enum sc_plugin_dtype dt, enum sc_plugin_redop op)
{
	struct be_coll *b = c->impl;
	void *s[1] = {(void *)send}, *r[1] = {recv};
	return b->be->ops->reduce_scatter(b->be, b->world, s, r, count, (enum sc_dtype)dt,
					  (enum sc_redop)op, NULL) == SC_OK ? 0 : -1;
}

static int b_ar(const struct sc_plugin_collectives *c, const void *send, void *recv, size_t count,
		enum sc_plugin_dtype dt, enum sc_plugin_redop op)
{
	struct be_coll *b = c->impl;
	void *s[1] = {(void *)send}, *r[1] = {recv};
	return b->be->ops->all_reduce(b->be, b->world, s, r, count, (enum sc_dtype)dt, (enum sc_redop)op,
				      NULL) == SC_OK ? 0 : -1;
}

/* ---- running ---- */

enum { RANK_IDLE = 0, RANK_RUNNING = 1, RANK_DONE = 2 };

struct rank_state { /* in the shared arena */
	volatile int state[SC_MAX_WORLD];
	volatile int rc[SC_MAX_WORLD];
};

struct thread_arg {
	const struct sc_plugin_transform *tr;
	struct sc_plugin_call call;
	struct rank_state *st;
	int rank;
};

static void *rank_thread(void *p)
{
	struct thread_arg *a = p;
	a->st->state[a->rank] = RANK_RUNNING;
	int rc = a->tr->run(&a->call);
	a->st->rc[a->rank] = rc;
	a->st->state[a->rank] = RANK_DONE;
	return NULL;
}

static void set_tensor(struct sc_plugin_tensor *pt, const struct sc_tensor *t)
{
	pt->size = sizeof *pt;
	pt->ndim = t->ndim;
	for (int d = 0; d < t->ndim; d++)
		pt->shape[d] = t->shape[d];
	pt->data = t->buf->data + (size_t)t->offset * t->buf->esize;
	pt->elem_size = t->buf->esize;
}

static void ranks_in(const struct rank_state *st, int world, int which, char *buf, size_t n)
{
	size_t k = 0;
	buf[0] = '\0';
	for (int r = 0; r < world && k < n; r++)
		if (st->state[r] == which)
			k += (size_t)snprintf(buf + k, n - k, "%s%d", k ? ", " : "", r);
}

/* Runs the ranks' threads in a forked child; the verdict of the child
 * becomes a status and message. */
static enum sc_status run_isolated(struct thread_arg *args, int world, struct rank_state *st,
				   double timeout, struct sc_err *e)
{
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		return SC_ERR(e, SC_E_INTERNAL, "fork failed: %s", strerror(errno));
	if (pid == 0) {
		struct group g;
		g.world = world;
		pthread_barrier_init(&g.bar, NULL, (unsigned)world);
		struct rank_coll rcs[SC_MAX_WORLD];
		pthread_t th[SC_MAX_WORLD];
		for (int r = 0; r < world; r++) {
			rcs[r].pub = (struct sc_plugin_collectives){sizeof rcs[r].pub, t_a2a, t_ag, t_rs, t_ar, &rcs[r]};
			rcs[r].g = &g;
			rcs[r].rank = r;
			args[r].call.coll = &rcs[r].pub;
			if (pthread_create(&th[r], NULL, rank_thread, &args[r]) != 0)
				_exit(4);
		}
		for (int r = 0; r < world; r++)
			pthread_join(th[r], NULL);
		for (int r = 0; r < world; r++)
			if (st->rc[r] != 0)
				_exit(3);
		_exit(0);
	}
	const double t0 = sc_clock_now();
	long nap = 20000; /* ns */
	int status;
	for (;;) {
		pid_t w = waitpid(pid, &status, WNOHANG);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR)
			return SC_ERR(e, SC_E_INTERNAL, "waitpid: %s", strerror(errno));
		if (sc_clock_now() - t0 > timeout) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			char running[256], failed[64] = "";
			ranks_in(st, world, RANK_RUNNING, running, sizeof running);
			for (int r = 0; r < world; r++)
				if (st->state[r] == RANK_DONE && st->rc[r] != 0) {
					snprintf(failed, sizeof failed, "%d", r);
					return SC_ERR(e, SC_E_RUNTIME,
						      "rank %s returned %d while ranks %s waited in a collective (killed after %.0f s)",
						      failed, st->rc[r], running, timeout);
				}
			return SC_ERR(e, SC_E_RUNTIME, "the plugin hung: no result after %.0f s (ranks still running: %s); killed",
				      timeout, running[0] ? running : "none");
		}
		struct timespec ts = {0, nap};
		nanosleep(&ts, NULL);
		if (nap < 2000000)
			nap *= 2;
	}
	if (WIFSIGNALED(status)) {
		char running[256];
		ranks_in(st, world, RANK_RUNNING, running, sizeof running);
		int sig = WTERMSIG(status);
		return SC_ERR(e, SC_E_RUNTIME, "the plugin crashed: signal %d (%s)%s%s", sig, strsignal(sig),
			      running[0] ? " on rank " : "", running);
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 3) {
		for (int r = 0; r < world; r++)
			if (st->rc[r] != 0)
				return SC_ERR(e, SC_E_RUNTIME, "rank %d: the transform returned %d", r, st->rc[r]);
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		char running[256];
		ranks_in(st, world, RANK_RUNNING, running, sizeof running);
		return SC_ERR(e, SC_E_RUNTIME,
			      "the plugin's process exited with status %d%s%s (exit() in the plugin, or a sanitizer's report on stderr)",
			      WIFEXITED(status) ? WEXITSTATUS(status) : -1, running[0] ? " on rank " : "", running);
	}
	return SC_OK;
}

enum sc_status sc_plugin_exec(struct sc_target *t, const struct sc_case *c, struct sc_exec *x,
			      struct sc_err *e)
{
	const struct sc_plugin_transform *tr = t->use_baseline ? t->baseline : t->plugin;
	const struct sc_spec *s = t->spec;
	const unsigned es = x->prov ? 8u : (unsigned)sc_dtype_size(c->dtype);
	struct sc_tensor out[SC_MAX_WORLD];
	for (int r = 0; r < x->nlocal; r++) {
		int64_t shape[SC_MAX_DIMS];
		int nd;
		if (s->out.kind == SC_OPAQUE) {
			nd = s->out.nshape;
			for (int d = 0; d < nd; d++) {
				struct sc_err ee;
				if (sc_expr_eval(s, s->out.shape_expr[d], c->sizes, c->world, &shape[d], &ee) != SC_OK)
					return SC_ERR(e, SC_E_RUNTIME, "output shape: %s", ee.msg);
				if (shape[d] < 0)
					return SC_ERR(e, SC_E_RUNTIME, "output shape: dim %d is negative", d);
			}
		} else {
			struct sc_map m;
			sc_layout_map(&s->out, c->sizes, c->ndims, c->world, x->first + r, &m);
			nd = m.lndim;
			memcpy(shape, m.lshape, sizeof(int64_t) * (size_t)nd);
		}
		SC_CHECK(sc_tensor_empty(x->arena, shape, nd, es, &out[r], e));
	}
	struct sc_plugin_native native = {sizeof native, NULL, NULL, NULL};
	struct thread_arg args[SC_MAX_WORLD];
	struct sc_buf *sb = sc_arena_buf(x->arena, (int64_t)sizeof(struct rank_state), 1);
	if (!sb)
		return SC_ERR(e, SC_E_NOMEM, "out of memory");
	struct rank_state *st = (struct rank_state *)(void *)sb->data;
	memset(st, 0, sizeof *st);
	for (int r = 0; r < x->nlocal; r++) {
		struct sc_plugin_call *call = &args[r].call;
		memset(call, 0, sizeof *call);
		call->size = sizeof *call;
		call->abi_version = SC_PLUGIN_ABI_VERSION;
		call->rank = x->first + r;
		call->world = c->world;
		call->dtype = x->prov ? SC_PLUGIN_U64 : (enum sc_plugin_dtype)c->dtype;
		call->memory = SC_PLUGIN_HOST;
		set_tensor(&call->input, &x->t[r]);
		set_tensor(&call->output, &out[r]);
		call->native = &native;
		call->user = tr->user;
		args[r].tr = tr;
		args[r].st = st;
		args[r].rank = r;
	}
	const double timeout = t->plugin_timeout > 0 ? t->plugin_timeout : 10;
	if (x->nlocal == c->world && x->nlocal > 0) {
		if (x->arena->shared) {
			SC_CHECK(run_isolated(args, c->world, st, timeout, e));
		} else { /* no isolation: threads in this process */
			struct group g;
			g.world = c->world;
			pthread_barrier_init(&g.bar, NULL, (unsigned)c->world);
			struct rank_coll rcs[SC_MAX_WORLD];
			pthread_t th[SC_MAX_WORLD];
			for (int r = 0; r < c->world; r++) {
				rcs[r].pub = (struct sc_plugin_collectives){sizeof rcs[r].pub, t_a2a, t_ag, t_rs, t_ar, &rcs[r]};
				rcs[r].g = &g;
				rcs[r].rank = r;
				args[r].call.coll = &rcs[r].pub;
				pthread_create(&th[r], NULL, rank_thread, &args[r]);
			}
			for (int r = 0; r < c->world; r++)
				pthread_join(th[r], NULL);
			pthread_barrier_destroy(&g.bar);
			for (int r = 0; r < c->world; r++)
				if (st->rc[r] != 0)
					return SC_ERR(e, SC_E_RUNTIME, "rank %d: the transform returned %d", r, st->rc[r]);
		}
	} else if (x->nlocal == 1) { /* one rank per process (mpi): in process */
		struct be_coll bc = {{sizeof bc.pub, b_a2a, b_ag, b_rs, b_ar, &bc}, x->be, c->world};
		args[0].call.coll = &bc.pub;
		int rc = tr->run(&args[0].call);
		if (rc != 0)
			return SC_ERR(e, SC_E_RUNTIME, "rank %d: the transform returned %d", x->first, rc);
	}
	for (int r = 0; r < x->nlocal; r++)
		x->t[r] = out[r];
	return SC_OK;
}
