/* sc_plugin_coll: the collectives tables handed to a plugin's ranks. */
#include "sc_plugin_coll.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sc_coro.h"
#include "sc_devmem.h"

/* ---- ranks as coroutines of one (child) process ---- */

struct group {
	int world;
	int arrived;         /* ranks at the barrier now */
	unsigned long phase; /* barriers completed */
	unsigned long *moves; /* the tables' count of arrivals (sc_plugin_comms_moves) */
	const void *send[SC_MAX_WORLD];
	void *recv[SC_MAX_WORLD];
	const size_t *sbytes[SC_MAX_WORLD], *rbytes[SC_MAX_WORLD]; /* all_to_allv's counts */
	struct sc_devmem *dm;     /* device memory the buffers are in (NULL: host) */
	int wrank[SC_MAX_WORLD];  /* each member's rank in the world (its device) */
};

struct rank_coll {
	struct sc_plugin_collectives pub;
	struct group *g;
	int rank;
};

static struct rank_coll *rc_of(const struct sc_plugin_collectives *c) { return c->impl; }

/* Every rank of the group arrives before any goes on: the others run (as
 * coroutines) while this one waits. */
static void meet(struct group *g)
{
	const unsigned long phase = g->phase;
	++*g->moves;
	if (++g->arrived == g->world) {
		g->arrived = 0;
		g->phase++;
		return;
	}
	while (g->phase == phase)
		sc_coro_yield();
}

/* Device memory: every operation queued so far (the plugin's kernels on
 * its streams, the copies of this collective) done; 0, or -1 on an error
 * (kept, sticky, for the call's end). */
static int settle(struct group *g)
{
	return g->dm && sc_devmem_fail(g->dm, g->dm->ops->sync(g->dm), "sync", -1) ? -1 : 0;
}

/* A collective's first barrier; -1 when called off a rank's coroutine (a
 * thread the plugin started: it cannot wait for the other ranks there).
 * On device memory what every rank queued before it is done first. */
static int exchange(struct rank_coll *r, const void *send, void *recv)
{
	if (!sc_coro_inside() || settle(r->g))
		return -1;
	r->g->send[r->rank] = send;
	r->g->recv[r->rank] = recv;
	meet(r->g);
	return 0;
}

/* bytes from member src's src to this rank's dst: memcpy, or a device copy. */
static int put(const struct rank_coll *r, void *dst, int src, const void *from, size_t bytes)
{
	const struct group *g = r->g;
	if (!g->dm) {
		memcpy(dst, from, bytes);
		return 0;
	}
	return sc_devmem_fail(g->dm, g->dm->ops->move(g->dm, g->wrank[r->rank], dst, g->wrank[src], from, bytes), "move",
			      g->wrank[r->rank]) ? -1 : 0;
}

/* acc = acc OP member src's in (count elements): on the host, or on this
 * rank's device through a scratch copy of in. */
static int fold(const struct rank_coll *r, void *acc, int src, const void *in, size_t count, enum sc_dtype dt,
		enum sc_redop op)
{
	const struct group *g = r->g;
	if (!g->dm) {
		sc_reduce(dt, op, acc, in, count);
		return 0;
	}
	const int me = g->wrank[r->rank];
	const size_t bytes = count * sc_dtype_size(dt);
	void *tmp = g->dm->ops->alloc(g->dm, me, bytes ? bytes : 1);
	if (!tmp || put(r, tmp, src, in, bytes))
		return -1;
	return sc_devmem_fail(g->dm, g->dm->ops->reduce(g->dm, me, acc, tmp, count, dt, op), "reduce", me) ? -1 : 0;
}

/* The collective's last barrier: nobody reuses send before all read it
 * (on device memory, the copies done). rc: the copies' outcome. */
static int leave(struct rank_coll *r, int rc)
{
	if (settle(r->g))
		rc = -1;
	meet(r->g);
	return rc;
}

static int t_a2a(const struct sc_plugin_collectives *c, const void *send, void *recv, size_t chunk)
{
	struct rank_coll *r = rc_of(c);
	if (exchange(r, send, recv) != 0)
		return -1;
	int rc = 0;
	for (int src = 0; src < r->g->world && !rc; src++)
		rc = put(r, (char *)recv + (size_t)src * chunk, src, (const char *)r->g->send[src] + (size_t)r->rank * chunk,
			 chunk);
	return leave(r, rc);
}

static int t_ag(const struct sc_plugin_collectives *c, const void *send, void *recv, size_t bytes)
{
	struct rank_coll *r = rc_of(c);
	if (exchange(r, send, recv) != 0)
		return -1;
	int rc = 0;
	for (int src = 0; src < r->g->world && !rc; src++)
		rc = put(r, (char *)recv + (size_t)src * bytes, src, r->g->send[src], bytes);
	return leave(r, rc);
}

static int t_rs(const struct sc_plugin_collectives *c, const void *send, void *recv, size_t count,
		enum sc_plugin_dtype dt, enum sc_plugin_redop op)
{
	struct rank_coll *r = rc_of(c);
	if ((unsigned)dt >= SC_NDTYPES || (unsigned)op >= SC_NREDOPS)
		return -1;
	const size_t bytes = count * sc_dtype_size((enum sc_dtype)dt);
	if (exchange(r, send, recv) != 0)
		return -1;
	int rc = put(r, recv, 0, (const char *)r->g->send[0] + (size_t)r->rank * bytes, bytes);
	for (int src = 1; src < r->g->world && !rc; src++)
		rc = fold(r, recv, src, (const char *)r->g->send[src] + (size_t)r->rank * bytes, count, (enum sc_dtype)dt,
			  (enum sc_redop)op);
	return leave(r, rc);
}

static int t_ar(const struct sc_plugin_collectives *c, const void *send, void *recv, size_t count,
		enum sc_plugin_dtype dt, enum sc_plugin_redop op)
{
	struct rank_coll *r = rc_of(c);
	if ((unsigned)dt >= SC_NDTYPES || (unsigned)op >= SC_NREDOPS)
		return -1;
	const size_t bytes = count * sc_dtype_size((enum sc_dtype)dt);
	if (exchange(r, send, recv) != 0)
		return -1;
	int rc = put(r, recv, 0, r->g->send[0], bytes);
	for (int src = 1; src < r->g->world && !rc; src++)
		rc = fold(r, recv, src, r->g->send[src], count, (enum sc_dtype)dt, (enum sc_redop)op);
	return leave(r, rc);
}

/* Every rank checks the whole count matrix, so all agree whether to go on
 * (a rank whose counts disagree with a peer's would read past a buffer);
 * then each reads its blocks out of the senders' buffers. */
static int t_a2av(const struct sc_plugin_collectives *c, const void *send, void *recv, const size_t *sbytes,
		  const size_t *rbytes)
{
	struct rank_coll *r = rc_of(c);
	struct group *g = r->g;
	const int world = g->world, me = r->rank;
	if (!sc_coro_inside())
		return -1;
	g->sbytes[me] = sbytes;
	g->rbytes[me] = rbytes;
	if (exchange(r, send, recv) != 0)
		return -1;
	int ok = 1;
	for (int src = 0; src < world && ok; src++)
		ok = g->sbytes[src] && g->rbytes[src];
	for (int src = 0; src < world && ok; src++)
		for (int dst = 0; dst < world && ok; dst++)
			ok = g->sbytes[src][dst] == g->rbytes[dst][src];
	size_t at = 0;
	int rc = ok ? 0 : -1;
	for (int src = 0; src < world && !rc; src++) {
		size_t from = 0;
		for (int j = 0; j < me; j++)
			from += g->sbytes[src][j];
		if (rbytes[src])
			rc = put(r, (char *)recv + at, src, (const char *)g->send[src] + from, rbytes[src]);
		at += rbytes[src];
	}
	return leave(r, rc);
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

/* The counts are checked first, as with every rank here: each rank learns what every
 * peer sends it (an all_to_all of one size_t each) and compares it with
 * its recv_bytes; the ranks agree on the verdict before the exchange, so a
 * mismatch fails every rank instead of leaving one in MPI_Alltoallv. */
static int b_a2av(const struct sc_plugin_collectives *c, const void *send, void *recv, const size_t *sbytes,
		  const size_t *rbytes)
{
	struct be_coll *b = c->impl;
	const int world = b->world;
	size_t none[SC_MAX_WORLD], peer[SC_MAX_WORLD];
	int bad = !sbytes || !rbytes;
	for (int j = 0; bad && j < world; j++)
		none[j] = SIZE_MAX; /* a NULL array still takes part, and matches nothing */
	void *s[1] = {(void *)(sbytes ? sbytes : none)}, *r[1] = {peer};
	if (b->be->ops->all_to_all(b->be, world, s, r, sizeof(size_t), NULL) != SC_OK)
		return -1;
	for (int j = 0; !bad && j < world; j++)
		bad = peer[j] != rbytes[j];
	if (sc_backend_combine(b->be, world, bad))
		return -1;
	s[0] = (void *)send;
	r[0] = recv;
	return sc_backend_all_to_allv(b->be, world, s, r, sbytes, rbytes, NULL) == SC_OK ? 0 : -1;
}

/* ---- the tables of one run ---- */


/* One subset of mesh dims (mask 0: the world): its partition, and per
 * group a barrier (every rank here) or a backend handle (one rank here). */
struct subset {
	int used;
	struct sc_groups gs;
	struct group *g;          /* gs.n of them (every rank here) */
	struct rank_coll *rc;     /* per local rank (every rank here) */
	struct be_coll bc;        /* this process's rank (backend) */
};

struct sc_plugin_comms {
	int world, first, nlocal, here; /* here: every rank in this process, as coroutines */
	unsigned long moves;
	struct sc_mesh mesh;
	struct subset sub[]; /* one per subset of the mesh's dims (1 << mesh.n) */
};

static void table(struct sc_plugin_collectives *pub, void *impl, int here)
{
	*pub = here ? (struct sc_plugin_collectives){.size = sizeof *pub, .all_to_all = t_a2a, .all_gather = t_ag,
							 .reduce_scatter = t_rs, .all_reduce = t_ar, .impl = impl,
							 .all_to_allv = t_a2av}
		       : (struct sc_plugin_collectives){.size = sizeof *pub, .all_to_all = b_a2a, .all_gather = b_ag,
							 .reduce_scatter = b_rs, .all_reduce = b_ar, .impl = impl,
							 .all_to_allv = b_a2av};
}

static enum sc_status subset_new(struct sc_plugin_comms *c, struct sc_backend *be, unsigned mask, struct sc_err *e)
{
	struct subset *u = &c->sub[mask];
	struct sc_mesh_group mg = {0, {0}};
	for (int d = 0; d < c->mesh.n; d++)
		if ((mask >> d) & 1u)
			mg.dim[mg.n++] = d;
	const struct sc_mesh flat = sc_mesh_flat(c->world);
	struct sc_mesh_group all = {1, {0}};
	sc_mesh_groups(mask ? &c->mesh : &flat, mask ? &mg : &all, &u->gs);
	u->used = 1;
	if (!c->here) { /* one rank here: its group's handle */
		const int g = u->gs.color[c->first];
		struct sc_backend *h = be;
		if (mask)
			SC_CHECK(sc_backend_group(be, &u->gs, g, &h, e));
		u->bc.be = h;
		u->bc.world = u->gs.size;
		table(&u->bc.pub, &u->bc, 0);
		return SC_OK;
	}
	u->g = calloc((size_t)u->gs.n, sizeof *u->g);
	u->rc = calloc((size_t)c->nlocal, sizeof *u->rc);
	if (!u->g || !u->rc)
		return SC_ERR(e, SC_E_NOMEM, "out of memory");
	for (int g = 0; g < u->gs.n; g++) {
		u->g[g].world = u->gs.size;
		u->g[g].moves = &c->moves;
	}
	for (int r = 0; r < c->nlocal; r++) {
		const int w = c->first + r;
		u->rc[r].g = &u->g[u->gs.color[w]];
		u->rc[r].rank = u->gs.index[w];
		u->rc[r].g->wrank[u->rc[r].rank] = w;
		table(&u->rc[r].pub, &u->rc[r], 1);
	}
	return SC_OK;
}

enum sc_status sc_plugin_comms_new(struct sc_backend *be, int world, int first, int nlocal, const struct sc_mesh *mesh,
				   struct sc_plugin_comms **out, struct sc_err *e)
{
	/* only the subsets the mesh has: a case's tables are made per call */
	const size_t nsub = (size_t)1 << (mesh ? mesh->n : 0);
	struct sc_plugin_comms *c = calloc(1, sizeof *c + nsub * sizeof c->sub[0]);
	if (!c)
		return SC_ERR(e, SC_E_NOMEM, "out of memory");
	c->world = world;
	c->first = first;
	c->nlocal = nlocal;
	c->here = be == NULL;
	if (mesh)
		c->mesh = *mesh;
	enum sc_status st = SC_OK;
	/* every subset in order (mpi splits are collective: every process
	 * makes them in the same order) */
	for (unsigned mask = 0; st == SC_OK && mask < (1u << c->mesh.n); mask++)
		st = subset_new(c, be, mask, e);
	if (st != SC_OK) {
		sc_plugin_comms_free(c);
		return st;
	}
	*out = c;
	return SC_OK;
}

void sc_plugin_comms_free(struct sc_plugin_comms *c)
{
	if (!c)
		return;
	for (int k = 0; k < 1 << c->mesh.n; k++) {
		struct subset *u = &c->sub[k];
		free(u->g);
		free(u->rc);
	}
	free(c);
}

const struct sc_plugin_collectives *sc_plugin_comms_world(struct sc_plugin_comms *c, int r)
{
	return c->here ? &c->sub[0].rc[r].pub : &c->sub[0].bc.pub;
}

const struct sc_plugin_collectives *sc_plugin_comms_group(struct sc_plugin_comms *c, int r, const int *dims, int n)
{
	unsigned mask = 0;
	for (int i = 0; i < n; i++) {
		if (!dims || dims[i] < 0 || dims[i] >= c->mesh.n || (i && dims[i] <= dims[i - 1]))
			return NULL; /* mesh order, each once */
		mask |= 1u << dims[i];
	}
	if (!c->mesh.n || r < 0 || r >= c->nlocal || !c->sub[mask].used)
		return NULL;
	return c->here ? &c->sub[mask].rc[r].pub : &c->sub[mask].bc.pub;
}

unsigned long sc_plugin_comms_moves(const struct sc_plugin_comms *c) { return c->moves; }

void sc_plugin_comms_devmem(struct sc_plugin_comms *c, struct sc_devmem *dm)
{
	for (int k = 0; c->here && k < 1 << c->mesh.n; k++)
		for (int g = 0; c->sub[k].used && g < c->sub[k].gs.n; g++)
			c->sub[k].g[g].dm = dm;
}
