/* test_a2av: the variable-size exchange (all_to_allv) of every backend
 * this machine can run, against an expectation computed here.
 *
 * A case is a count matrix c[src][dst] (bytes src sends dst) drawn from a
 * pattern (random with zeros, all-zero rows, one large count, a
 * permutation, a broadcast, an uneven gather, nothing at all), and a
 * payload whose byte k of block src -> dst is a hash of (seed, src, dst,
 * k), so a receiver checks each block where it must land without a copy
 * of anyone's send buffer, and a block that lands in the wrong place,
 * shifted, short or from the wrong source reads as wrong bytes. Receive
 * buffers carry guard bytes past their total: writing past it is caught.
 *
 *   test_a2av          sim; emu with device buffers and with host buffers
 *                      (sim's fallback); cuda and nccl where a GPU is
 *                      visible (else reported skipped); planted faults.
 *   test_a2av --mpi    under mpirun: each process checks its own row on
 *                      worlds 1..N; a count past INT_MAX is refused; a
 *                      planted fault on mpi is caught. 77: no mpi backend.
 * Every process draws the same matrices from the shared seeds. */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sc_backend.h"
#include "sc_devmem.h"
#include "sc_test.h"

#define GUARD 16
#define SENTINEL 0xA5
#define NSEEDS 6
#define MAXW 8

static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* Byte k of the block src sends dst: the expectation, from nothing else. */
static unsigned char payload(uint64_t seed, int src, int dst, size_t k)
{
	return (unsigned char)(mix(seed ^ mix(((uint64_t)src << 40) ^ ((uint64_t)dst << 20) ^ k)) >> 56);
}

struct rng {
	uint64_t s;
};
static uint64_t draw(struct rng *g, uint64_t n) { return n ? mix(g->s++) % n : 0; }

/* ---- count matrices ---- */

struct mat {
	int world;
	uint64_t seed;
	size_t c[MAXW * MAXW]; /* c[src * world + dst] */
};

static size_t *C(struct mat *m, int src, int dst) { return &m->c[src * m->world + dst]; }

static void pat_random(struct mat *m, struct rng *g)
{
	for (int i = 0; i < m->world * m->world; i++)
		m->c[i] = draw(g, 3) ? (size_t)draw(g, 97) : 0;
}

static void pat_zero_rows(struct mat *m, struct rng *g)
{
	pat_random(m, g);
	const int quiet = (int)draw(g, (uint64_t)m->world), deaf = (int)draw(g, (uint64_t)m->world);
	for (int j = 0; j < m->world; j++) {
		*C(m, quiet, j) = 0; /* a rank that sends nothing */
		*C(m, j, deaf) = 0;  /* a rank that receives nothing */
	}
}

static void pat_large(struct mat *m, struct rng *g)
{
	pat_random(m, g);
	*C(m, (int)draw(g, (uint64_t)m->world), (int)draw(g, (uint64_t)m->world)) = ((size_t)1 << 20) + draw(g, 4099);
}

static void pat_permutation(struct mat *m, struct rng *g)
{
	int p[MAXW];
	for (int i = 0; i < m->world; i++)
		p[i] = i;
	for (int i = m->world - 1; i > 0; i--) {
		const int j = (int)draw(g, (uint64_t)i + 1), t = p[i];
		p[i] = p[j];
		p[j] = t;
	}
	memset(m->c, 0, sizeof m->c);
	for (int r = 0; r < m->world; r++)
		*C(m, r, p[r]) = 1 + (size_t)draw(g, 300);
}

static void pat_broadcast(struct mat *m, struct rng *g)
{
	const int root = (int)draw(g, (uint64_t)m->world);
	const size_t b = 1 + (size_t)draw(g, 500);
	memset(m->c, 0, sizeof m->c);
	for (int j = 0; j < m->world; j++)
		*C(m, root, j) = b;
}

static void pat_gather(struct mat *m, struct rng *g)
{
	const int root = (int)draw(g, (uint64_t)m->world);
	memset(m->c, 0, sizeof m->c);
	for (int r = 0; r < m->world; r++)
		*C(m, r, root) = (size_t)draw(g, 200); /* uneven, some empty */
}

static void pat_nothing(struct mat *m, struct rng *g)
{
	(void)g;
	memset(m->c, 0, sizeof m->c);
}

static const struct pattern {
	const char *name;
	void (*make)(struct mat *m, struct rng *g);
} patterns[] = {
	{"random", pat_random},       {"zero rows", pat_zero_rows}, {"one large", pat_large},
	{"permutation", pat_permutation}, {"broadcast", pat_broadcast}, {"gather", pat_gather},
	{"nothing", pat_nothing},
};
#define NPATTERNS ((int)(sizeof patterns / sizeof patterns[0]))

static void make_mat(struct mat *m, int world, int pattern, int seed)
{
	struct rng g = {mix(((uint64_t)world << 32) ^ ((uint64_t)pattern << 16) ^ (uint64_t)seed)};
	memset(m, 0, sizeof *m);
	m->world = world;
	m->seed = g.s;
	patterns[pattern].make(m, &g);
}

static size_t row_sum(struct mat *m, int src)
{
	size_t n = 0;
	for (int j = 0; j < m->world; j++)
		n += *C(m, src, j);
	return n;
}

static size_t col_sum(struct mat *m, int dst)
{
	size_t n = 0;
	for (int j = 0; j < m->world; j++)
		n += *C(m, j, dst);
	return n;
}

/* ---- one exchange ---- */

/* Host copies of the local ranks' buffers, and the counts handed down. */
struct bufs {
	int world, first, k;
	size_t stot[MAXW], rtot[MAXW];
	unsigned char *send[MAXW], *recv[MAXW]; /* host; recv has GUARD more */
	size_t sbytes[MAXW * MAXW], rbytes[MAXW * MAXW];
};

static void bufs_free(struct bufs *b)
{
	for (int r = 0; r < b->k; r++) {
		free(b->send[r]);
		free(b->recv[r]);
	}
}

/* Rows of the local ranks: what each sends (packed in dst order) and
 * expects; receive buffers prefilled with the sentinel. */
static int bufs_make(struct bufs *b, struct mat *m, struct sc_backend *be)
{
	memset(b, 0, sizeof *b);
	b->world = m->world;
	b->k = be->ops->local_ranks(be, m->world, &b->first);
	for (int r = 0; r < b->k; r++) {
		const int g = b->first + r;
		for (int j = 0; j < m->world; j++) {
			b->sbytes[r * m->world + j] = *C(m, g, j);
			b->rbytes[r * m->world + j] = *C(m, j, g);
		}
		b->stot[r] = row_sum(m, g);
		b->rtot[r] = col_sum(m, g);
		b->send[r] = malloc(b->stot[r] + 1);
		b->recv[r] = malloc(b->rtot[r] + GUARD);
		if (!b->send[r] || !b->recv[r])
			return -1;
		size_t at = 0;
		for (int j = 0; j < m->world; j++)
			for (size_t k = 0; k < *C(m, g, j); k++)
				b->send[r][at++] = payload(m->seed, g, j, k);
		memset(b->recv[r], SENTINEL, b->rtot[r] + GUARD);
	}
	return 0;
}

/* Wrong bytes of the local ranks' receive buffers, guards included. */
static size_t count_wrong(struct bufs *b, struct mat *m, size_t *first_wrong)
{
	size_t wrong = 0;
	*first_wrong = SIZE_MAX;
	for (int r = 0; r < b->k; r++) {
		const int g = b->first + r;
		size_t at = 0;
		for (int src = 0; src < m->world; src++)
			for (size_t k = 0; k < *C(m, src, g); k++, at++)
				if (b->recv[r][at] != payload(m->seed, src, g, k) && wrong++ == 0)
					*first_wrong = at;
		for (size_t k = 0; k < GUARD; k++)
			if (b->recv[r][b->rtot[r] + k] != SENTINEL && wrong++ == 0)
				*first_wrong = b->rtot[r] + k;
	}
	return wrong;
}

/* Runs the exchange with the buffers on the host (device = 0) or in be's
 * device memory (uploaded, exchanged there, downloaded). */
static enum sc_status exchange(struct sc_backend *be, struct bufs *b, int device, struct sc_err *e)
{
	struct sc_devmem *dm = device ? sc_backend_devmem(be) : NULL;
	void *s[MAXW], *r[MAXW];
	for (int i = 0; i < b->k; i++) {
		s[i] = b->send[i];
		r[i] = b->recv[i];
		if (!dm)
			continue;
		s[i] = dm->ops->alloc(dm, b->first + i, b->stot[i] + 1);
		r[i] = dm->ops->alloc(dm, b->first + i, b->rtot[i] + GUARD);
		if (!s[i] || !r[i])
			return SC_ERR(e, SC_E_NOMEM, "device alloc");
		if (dm->ops->upload(dm, s[i], b->send[i], b->stot[i]) ||
		    dm->ops->upload(dm, r[i], b->recv[i], b->rtot[i] + GUARD))
			return SC_ERR(e, SC_E_INTERNAL, "upload");
	}
	enum sc_status st = sc_backend_all_to_allv(be, b->world, s, r, b->sbytes, b->rbytes, e);
	if (dm && st == SC_OK) {
		if (dm->ops->sync(dm))
			st = SC_ERR(e, SC_E_INTERNAL, "sync");
		for (int i = 0; st == SC_OK && i < b->k; i++)
			if (dm->ops->download(dm, b->recv[i], r[i], b->rtot[i] + GUARD))
				st = SC_ERR(e, SC_E_INTERNAL, "download");
	}
	if (dm)
		dm->ops->reset(dm);
	return st;
}

/* One case: 1 when every local rank received exactly what it should, 0
 * when a byte is wrong (why printed when loud), -1 on an error. */
static int run_case(struct sc_backend *be, struct mat *m, int device, int loud, const char *label)
{
	struct bufs b;
	struct sc_err e = {0};
	int ok = -1;
	if (bufs_make(&b, m, be) == 0) {
		enum sc_status st = exchange(be, &b, device, &e);
		size_t at;
		const size_t wrong = st == SC_OK ? count_wrong(&b, m, &at) : 0;
		if (st != SC_OK)
			fprintf(stderr, "%s: world %d: %s\n", label, m->world, e.msg);
		else if (wrong && loud)
			fprintf(stderr, "%s: world %d: %zu wrong bytes, the first at %zu\n", label, m->world, wrong, at);
		ok = st != SC_OK ? -1 : wrong == 0;
	}
	bufs_free(&b);
	return ok;
}

/* Every world up to maxw, every pattern, NSEEDS seeds: how many cases ran,
 * how many were right, and in how many the local ranks received bytes. */
static void sweep(struct sc_backend *be, int maxw, int device, int loud, const char *label, int *ran, int *right,
		  int *moved)
{
	*ran = *right = *moved = 0;
	for (int w = 1; w <= maxw; w++)
		for (int p = 0; p < NPATTERNS; p++)
			for (int s = 0; s < NSEEDS; s++) {
				struct mat m;
				make_mat(&m, w, p, s);
				char what[160];
				snprintf(what, sizeof what, "%s, %s, seed %d", label, patterns[p].name, s);
				const int ok = run_case(be, &m, device, loud, what);
				*ran += 1;
				*right += ok == 1;
				int first, k = be->ops->local_ranks(be, w, &first), got = 0;
				for (int r = 0; r < k; r++)
					got |= col_sum(&m, first + r) > 0;
				*moved += got;
			}
}

/* ---- planted faults: the real op, then one corruption ---- */

static const struct sc_backend_ops *real;

static enum sc_status call_real(struct sc_backend *be, int world, void *const *send, void *const *recv,
				const size_t *sb, const size_t *rb, int *k, size_t *tot, struct sc_err *e)
{
	struct sc_backend honest = {real, be->impl};
	int first;
	*k = real->local_ranks(&honest, world, &first);
	for (int r = 0; r < *k; r++) {
		tot[r] = 0;
		for (int j = 0; j < world; j++)
			tot[r] += rb[(size_t)r * (size_t)world + (size_t)j];
	}
	return real->all_to_allv(&honest, world, send, recv, sb, rb, e);
}

/* Drops one byte from the middle of the first nonempty receive buffer. */
static enum sc_status fault_drop(struct sc_backend *be, int world, void *const *send, void *const *recv,
				 const size_t *sb, const size_t *rb, struct sc_err *e)
{
	int k;
	size_t tot[MAXW];
	SC_CHECK(call_real(be, world, send, recv, sb, rb, &k, tot, e));
	for (int r = 0; r < k; r++)
		if (tot[r]) {
			unsigned char *p = recv[r];
			memmove(p + tot[r] / 2, p + tot[r] / 2 + 1, tot[r] - tot[r] / 2 - 1);
			p[tot[r] - 1] = SENTINEL; /* one byte short: the last is what was there */
			break;
		}
	return SC_OK;
}

/* Writes one byte past the received total of the last local rank. */
static enum sc_status fault_overrun(struct sc_backend *be, int world, void *const *send, void *const *recv,
				    const size_t *sb, const size_t *rb, struct sc_err *e)
{
	int k;
	size_t tot[MAXW];
	SC_CHECK(call_real(be, world, send, recv, sb, rb, &k, tot, e));
	if (k)
		((unsigned char *)recv[k - 1])[tot[k - 1]] ^= 0x5a;
	return SC_OK;
}

/* Reads each sender's block at the offset its *receive* row gives (a
 * plausible index slip): right only where the matrix is symmetric. A block
 * that would be read past the sender's buffer is left unwritten. */
static enum sc_status fault_offsets(struct sc_backend *be, int world, void *const *send, void *const *recv,
				    const size_t *sb, const size_t *rb, struct sc_err *e)
{
	(void)be;
	(void)e;
	for (int dst = 0; dst < world; dst++) {
		size_t at = 0;
		for (int src = 0; src < world; src++) {
			size_t from = 0, have = 0;
			for (int j = 0; j < world; j++) {
				from += j < dst ? rb[(size_t)src * (size_t)world + (size_t)j] : 0;
				have += sb[(size_t)src * (size_t)world + (size_t)j];
			}
			const size_t n = rb[(size_t)dst * (size_t)world + (size_t)src];
			if (n && from + n <= have)
				memcpy((char *)recv[dst] + at, (const char *)send[src] + from, n);
			at += n;
		}
	}
	return SC_OK;
}

static const struct fault {
	const char *name;
	enum sc_status (*fn)(struct sc_backend *, int, void *const *, void *const *, const size_t *,
			     const size_t *, struct sc_err *);
	int every; /* caught in every case that moves bytes (else: in some) */
	int sim_only; /* reads other ranks' buffers */
} faults[] = {
	{"drops a byte", fault_drop, 1, 0},
	{"writes past the total", fault_overrun, 1, 0},
	{"sender offsets from the receive rows", fault_offsets, 0, 1},
};
#define NFAULTS ((int)(sizeof faults / sizeof faults[0]))

/* Each fault on sim (host buffers): caught in every case that moves bytes,
 * or in some, as its row says; and the honest op passes the same sweep. */
static void planted(struct sc_backend *be, int maxw)
{
	real = be->ops;
	for (int f = 0; f < NFAULTS; f++) {
		if (faults[f].sim_only && strcmp(real->name, "sim") != 0)
			continue;
		struct sc_backend_ops ops = *real;
		ops.all_to_allv = faults[f].fn;
		struct sc_backend faulty = {&ops, be->impl};
		int ran, right, moved;
		sweep(&faulty, maxw, 0, 0, faults[f].name, &ran, &right, &moved);
		if (faults[f].every)
			T_CHECK(ran - right >= moved && moved > 0, "%s on %s: caught in %d of %d cases, %d receive bytes",
				faults[f].name, real->name, ran - right, ran, moved);
		else
			T_CHECK(ran - right > 0, "%s on %s: never caught (%d cases)", faults[f].name, real->name, ran);
		if (sc_backend_proc(be) == 0)
			printf("planted fault on %s, %s: caught in %d of %d cases (%d receive bytes)\n", real->name,
			       faults[f].name, ran - right, ran, moved);
	}
}

/* A backend without the op answers SC_E_UNAVAIL through the wrapper. */
static void unavailable(struct sc_backend *be)
{
	struct sc_backend_ops ops = *be->ops;
	ops.all_to_allv = NULL;
	struct sc_backend none = {&ops, be->impl};
	struct sc_err e = {0};
	size_t z[1] = {0};
	void *p[1] = {z};
	T_CHECK(sc_backend_all_to_allv(&none, 1, p, p, z, z, &e) == SC_E_UNAVAIL && strstr(e.msg, "no variable-size"),
		"%s", e.msg);
}

static const struct where {
	const char *backend, *label;
	int device;
	int optional; /* needs a GPU: reported skipped when it does not open */
} wheres[] = {
	{"sim", "sim", 0, 0},
	{"emu", "emu, device buffers", 1, 0},
	{"emu", "emu, host buffers (sim's fallback)", 0, 0},
	{"cuda", "cuda, device buffers", 1, 1},
	{"nccl", "nccl, device buffers", 1, 1},
	{"nccl", "nccl, host buffers (staged)", 0, 1},
};

static int local_main(void)
{
	for (size_t i = 0; i < sizeof wheres / sizeof wheres[0]; i++) {
		struct sc_backend *be;
		struct sc_err e = {0};
		if (sc_backend_open(wheres[i].backend, &be, &e) != SC_OK) {
			T_CHECK(wheres[i].optional, "%s does not open: %s", wheres[i].backend, e.msg);
			printf("%s: skipped: %s\n", wheres[i].label, e.msg);
			continue;
		}
		int maxw = MAXW, ran, right, moved;
		if (sc_backend_max_world(be) < maxw)
			maxw = sc_backend_max_world(be);
		sweep(be, maxw, wheres[i].device, 1, wheres[i].label, &ran, &right, &moved);
		T_CHECK(ran == right && ran > 0, "%s: %d of %d cases right", wheres[i].label, right, ran);
		printf("%s: %d of %d cases right (worlds 1..%d, %d patterns, %d seeds)\n", wheres[i].label, right, ran,
		       maxw, NPATTERNS, NSEEDS);
		if (i == 0) {
			planted(be, maxw);
			unavailable(be);
		}
		sc_backend_close(be);
	}
	T_DONE();
}

/* ---- under mpirun: one rank per process ---- */

/* Every process passes a count past INT_MAX in its own row, so every one
 * refuses before MPI is called (a lone refusal would leave the rest in
 * MPI_Alltoallv). */
static void mpi_too_large(struct sc_backend *be, int world)
{
	size_t sb[MAXW] = {0}, rb[MAXW] = {0};
	sb[world - 1] = (size_t)INT_MAX + 1;
	char one = 0;
	void *p[1] = {&one};
	struct sc_err e = {0};
	const enum sc_status st = sc_backend_all_to_allv(be, world, p, p, sb, rb, &e);
	T_CHECK(st == SC_E_RUNTIME && strstr(e.msg, "2147483647"), "status %d: %s", (int)st, e.msg);
}

static int mpi_main(void)
{
	struct sc_backend *be;
	struct sc_err e = {0};
	if (sc_backend_open("mpi", &be, &e) != SC_OK) {
		printf("a2av mpi: skipped: %s\n", e.msg);
		return 77;
	}
	const int nprocs = sc_backend_nprocs(be), me = sc_backend_proc(be);
	const int maxw = nprocs < MAXW ? nprocs : MAXW;
	int ran, right, moved;
	sweep(be, maxw, 0, 1, "mpi", &ran, &right, &moved);
	T_CHECK(ran == right, "mpi, process %d: %d of %d cases right", me, right, ran);
	if (me == 0)
		printf("mpi: %d of %d cases right on process 0 (worlds 1..%d, %d patterns, %d seeds)\n", right, ran, maxw,
		       NPATTERNS, NSEEDS);
	planted(be, maxw);
	if (me < maxw)
		mpi_too_large(be, maxw);
	/* every process's verdict, so that each one exits with the job's */
	const int any = sc_backend_combine(be, 0, sc_t_fail > 0);
	T_CHECK(!any || sc_t_fail, "another process failed");
	sc_backend_close(be);
	if (me != 0)
		return sc_t_fail ? 1 : 0;
	T_DONE();
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "--mpi") == 0)
		return mpi_main();
	return local_main();
}
