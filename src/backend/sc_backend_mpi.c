/* sc_backend_mpi: one MPI process per rank (mpirun -np N).
 *
 * A case of world P < N runs on the sub-communicator of ranks 0..P-1 (one
 * per P, split once at open, since MPI_Comm_split is collective and the
 * processes outside a case do not take part in it). Data movement goes as
 * bytes; reductions use MPI's own ops on integers, f32, f64 and u64 (the
 * provenance runs), and user ops on f16, bf16 and the fp8 types, computed
 * through sc_reduce exactly as on sim. all_to_allv is MPI_Alltoallv on
 * bytes, with int counts and displacements (a row past INT_MAX is refused).
 *
 * Planted faults for tests: SC_MPI_FAULT=hang:R or crash:R makes rank R
 * hang or crash in its first all-to-all of a world of 2 or more.
 *
 * A rank killed by a signal it cannot catch (SIGKILL from the OOM killer)
 * leaves no word, and mpirun then terminates the others with SIGTERM, as
 * it does when mpirun itself is signalled: the survivors could only guess.
 * So under mpirun each process forks before MPI_Init: the child is the
 * rank (MPI_Init in a child of the launched process works, as a wrapper
 * script `mpirun sh -c 'prog; ...'` shows), the parent is its keeper,
 * which forwards signals to it, waits for it, and ends as it ended: the
 * same exit code, or the same signal, after writing "signal N" to
 * SESSION/shardcheck-JOB.rankR. SESSION is the job's session directory
 * on this node (OMPI_MCA_orte_jobfam_session_dir, else PMIX_SERVER_TMPDIR:
 * Open MPI's environment for a launched process; mpirun removes it at the
 * end of the job), JOB the launch's PMIx namespace (PMIX_NAMESPACE). The
 * rank finds the prefix in SC_MPI_ENDS (sc_inflight reads the files when
 * SIGTERM comes). SC_MPI_KEEPER=0 turns the keeper off. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <mpi.h>

#include "sc_backend.h"
#include "sc_limits.h"

struct mpi_group;

struct mpi_impl {
	int rank, size;
	struct mpi_group *groups; /* the world's handle: the groups split so far */
	MPI_Comm sub[SC_MAX_WORLD + 1];
	MPI_Datatype dt[SC_NDTYPES];
	MPI_Op ops[SC_NDTYPES][SC_NREDOPS];
	int fault, fault_rank;
	int inited_here;
};

#define MINI(DT, OP)                                                           \
	static void red_##DT##_##OP(void *in, void *inout, int *len, MPI_Datatype *t) \
	{                                                                      \
		(void)t;                                                       \
		sc_reduce(DT, OP, inout, in, (size_t)*len);                    \
	}
#define MINI4(DT) MINI(DT, SC_SUM) MINI(DT, SC_MAX) MINI(DT, SC_MIN) MINI(DT, SC_PROD)
MINI4(SC_F16)
MINI4(SC_BF16)
MINI4(SC_F8E4M3)
MINI4(SC_F8E5M2)

static MPI_User_function *const mini_fn[4][SC_NREDOPS] = {
	{red_SC_F16_SC_SUM, red_SC_F16_SC_MAX, red_SC_F16_SC_MIN, red_SC_F16_SC_PROD},
	{red_SC_BF16_SC_SUM, red_SC_BF16_SC_MAX, red_SC_BF16_SC_MIN, red_SC_BF16_SC_PROD},
	{red_SC_F8E4M3_SC_SUM, red_SC_F8E4M3_SC_MAX, red_SC_F8E4M3_SC_MIN, red_SC_F8E4M3_SC_PROD},
	{red_SC_F8E5M2_SC_SUM, red_SC_F8E5M2_SC_MAX, red_SC_F8E5M2_SC_MIN, red_SC_F8E5M2_SC_PROD},
};

static struct mpi_impl *impl(struct sc_backend *be) { return be->impl; }

static enum sc_status mpi_err(struct sc_err *e, int rc, const char *call, int rank)
{
	char msg[MPI_MAX_ERROR_STRING];
	int len = 0;
	MPI_Error_string(rc, msg, &len);
	return SC_ERR(e, SC_E_INTERNAL, "rank %d: %s failed: %s", rank, call, msg);
}

static int mpi_local(struct sc_backend *be, int world, int *first)
{
	struct mpi_impl *m = impl(be);
	*first = m->rank;
	return m->rank < world && world <= m->size ? 1 : 0;
}

static void planted_fault(struct mpi_impl *m, int world)
{
	if (!m->fault || m->rank != m->fault_rank || world < 2)
		return;
	if (m->fault == 1)
		for (;;)
			pause(); /* a hung rank */
	raise(SIGSEGV); /* a crashed rank */
}

static enum sc_status mpi_a2a(struct sc_backend *be, int world, void *const *send,
			      void *const *recv, size_t chunk, struct sc_err *e)
{
	struct mpi_impl *m = impl(be);
	if (m->rank >= world)
		return SC_OK;
	planted_fault(m, world);
	if (chunk > INT_MAX)
		return SC_ERR(e, SC_E_UNAVAIL, "mpi: chunks over 2 GiB are not supported");
	int rc = MPI_Alltoall(send[0], (int)chunk, MPI_BYTE, recv[0], (int)chunk, MPI_BYTE, m->sub[world]);
	return rc == MPI_SUCCESS ? SC_OK : mpi_err(e, rc, "MPI_Alltoall", m->rank);
}

static enum sc_status mpi_ag(struct sc_backend *be, int world, void *const *send,
			     void *const *recv, size_t bytes, struct sc_err *e)
{
	struct mpi_impl *m = impl(be);
	if (m->rank >= world)
		return SC_OK;
	if (bytes > INT_MAX)
		return SC_ERR(e, SC_E_UNAVAIL, "mpi: buffers over 2 GiB are not supported");
	int rc = MPI_Allgather(send[0], (int)bytes, MPI_BYTE, recv[0], (int)bytes, MPI_BYTE, m->sub[world]);
	return rc == MPI_SUCCESS ? SC_OK : mpi_err(e, rc, "MPI_Allgather", m->rank);
}

static enum sc_status mpi_rs(struct sc_backend *be, int world, void *const *send,
			     void *const *recv, size_t count, enum sc_dtype dt, enum sc_redop op,
			     struct sc_err *e)
{
	struct mpi_impl *m = impl(be);
	if (m->rank >= world)
		return SC_OK;
	if (count > INT_MAX)
		return SC_ERR(e, SC_E_UNAVAIL, "mpi: counts over 2^31 are not supported");
	int rc = MPI_Reduce_scatter_block(send[0], recv[0], (int)count, m->dt[dt], m->ops[dt][op],
					  m->sub[world]);
	return rc == MPI_SUCCESS ? SC_OK : mpi_err(e, rc, "MPI_Reduce_scatter_block", m->rank);
}

static enum sc_status mpi_ar(struct sc_backend *be, int world, void *const *send,
			     void *const *recv, size_t count, enum sc_dtype dt, enum sc_redop op,
			     struct sc_err *e)
{
	struct mpi_impl *m = impl(be);
	if (m->rank >= world)
		return SC_OK;
	if (count > INT_MAX)
		return SC_ERR(e, SC_E_UNAVAIL, "mpi: counts over 2^31 are not supported");
	int rc = MPI_Allreduce(send[0], recv[0], (int)count, m->dt[dt], m->ops[dt][op], m->sub[world]);
	return rc == MPI_SUCCESS ? SC_OK : mpi_err(e, rc, "MPI_Allreduce", m->rank);
}

/* MPI counts and displacements are int: a row with a count, or a nonempty
 * block's offset, past INT_MAX is refused (MPI_Alltoallv_c is MPI 4). */
static enum sc_status int_row(const size_t *bytes, int world, int *cnt, int *displ, const char *what,
			      int rank, struct sc_err *e)
{
	size_t at = 0;
	for (int j = 0; j < world; j++) {
		if (bytes[j] > INT_MAX || (bytes[j] && at > INT_MAX))
			return SC_ERR(e, SC_E_RUNTIME,
				      "mpi: rank %d: all_to_allv %s %zu bytes at offset %zu with peer %d; MPI_Alltoallv takes at most %d",
				      rank, what, bytes[j], at, j, INT_MAX);
		cnt[j] = (int)bytes[j];
		displ[j] = bytes[j] ? (int)at : 0; /* an empty block's offset is never read */
		at += bytes[j];
	}
	return SC_OK;
}

/* One local rank (this process's): row 0 of sbytes and rbytes. */
static enum sc_status mpi_a2av(struct sc_backend *be, int world, void *const *send, void *const *recv,
			       const size_t *sbytes, const size_t *rbytes, struct sc_err *e)
{
	struct mpi_impl *m = impl(be);
	if (m->rank >= world)
		return SC_OK;
	int sc[SC_MAX_WORLD], sd[SC_MAX_WORLD], rc[SC_MAX_WORLD], rd[SC_MAX_WORLD];
	SC_CHECK(int_row(sbytes, world, sc, sd, "sends", m->rank, e));
	SC_CHECK(int_row(rbytes, world, rc, rd, "receives", m->rank, e));
	int st = MPI_Alltoallv(send[0], sc, sd, MPI_BYTE, recv[0], rc, rd, MPI_BYTE, m->sub[world]);
	return st == MPI_SUCCESS ? SC_OK : mpi_err(e, st, "MPI_Alltoallv", m->rank);
}

static int mpi_combine(struct sc_backend *be, int world, int value)
{
	struct mpi_impl *m = impl(be);
	MPI_Comm comm = world > 0 && world <= m->size ? m->sub[world] : MPI_COMM_WORLD;
	if (comm == MPI_COMM_NULL)
		return value;
	MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_INT, MPI_MAX, comm);
	return value;
}

static void mpi_bcast(struct sc_backend *be, void *buf, size_t n, int root)
{
	(void)be;
	MPI_Bcast(buf, (int)n, MPI_BYTE, root, MPI_COMM_WORLD);
}

static void mpi_gather(struct sc_backend *be, const void *mine, void *all, size_t n)
{
	(void)be;
	MPI_Allgather(mine, (int)n, MPI_BYTE, all, (int)n, MPI_BYTE, MPI_COMM_WORLD);
}

/* A group's handle: a copy of the world's impl whose rank and size are
 * the group's, its one communicator at sub[size]. */
struct mpi_group {
	uint64_t key;
	int world;
	MPI_Comm comm;
	struct sc_backend be;
	struct mpi_impl m;
	struct mpi_group *next;
};

/* The first time a partition is seen every process of the world splits
 * its communicator (MPI_Comm_split is collective over it): all of them
 * reach the same grouped steps in the same order. */
static enum sc_status mpi_group(struct sc_backend *be, const struct sc_groups *gs, int g, struct sc_backend **sub,
				struct sc_err *e)
{
	struct mpi_impl *m = impl(be);
	if (m->rank >= gs->world || gs->world > m->size || gs->color[m->rank] != g)
		return SC_ERR(e, SC_E_INTERNAL, "mpi: rank %d asked for group %d, not its own", m->rank, g);
	for (struct mpi_group *k = m->groups; k; k = k->next)
		if (k->key == gs->key && k->world == gs->world) {
			if (g >= 0)
				*sub = &k->be;
			return SC_OK;
		}
	struct mpi_group *k = calloc(1, sizeof *k);
	if (!k)
		return SC_ERR(e, SC_E_NOMEM, "out of memory");
	/* a rank in no group (g -1) takes part in the split and gets none */
	int rc = MPI_Comm_split(m->sub[gs->world], g >= 0 ? g : MPI_UNDEFINED, g >= 0 ? gs->index[m->rank] : 0, &k->comm);
	if (rc != MPI_SUCCESS) {
		free(k);
		return mpi_err(e, rc, "MPI_Comm_split", m->rank);
	}
	if (g < 0) { /* remembered, so that the split happens once */
		k->key = gs->key;
		k->world = gs->world;
		k->next = m->groups;
		m->groups = k;
		return SC_OK;
	}
	MPI_Comm_set_errhandler(k->comm, MPI_ERRORS_RETURN);
	int gsz = 0;
	MPI_Comm_size(k->comm, &gsz);
	SC_LOG(BACKEND, "mpi: rank %d split its world of %d: group %d of %d, index %d of %d", m->rank, gs->world, g,
	       gs->n, gs->index[m->rank], gsz);
	k->key = gs->key;
	k->world = gs->world;
	memcpy(k->m.dt, m->dt, sizeof m->dt);
	memcpy(k->m.ops, m->ops, sizeof m->ops);
	for (int p = 0; p <= SC_MAX_WORLD; p++)
		k->m.sub[p] = MPI_COMM_NULL;
	k->m.rank = gs->index[m->rank];
	k->m.size = gs->size;
	k->m.sub[gs->size] = k->comm;
	k->be.ops = be->ops;
	k->be.impl = &k->m;
	k->next = m->groups;
	m->groups = k;
	*sub = &k->be;
	return SC_OK;
}

static int mpi_proc(struct sc_backend *be) { return impl(be)->rank; }
static int mpi_max_world(struct sc_backend *be) { return impl(be)->size; }

static void mpi_destroy(struct sc_backend *be)
{
	struct mpi_impl *m = impl(be);
	if (m) {
		for (struct mpi_group *k = m->groups, *n; k; k = n) {
			n = k->next;
			if (k->comm != MPI_COMM_NULL)
				MPI_Comm_free(&k->comm);
			free(k);
		}
		for (int p = 1; p <= m->size && p <= SC_MAX_WORLD; p++)
			if (m->sub[p] != MPI_COMM_NULL)
				MPI_Comm_free(&m->sub[p]);
		for (int d = SC_F16; d < SC_NDTYPES; d++) {
			MPI_Type_free(&m->dt[d]);
			for (int o = 0; o < SC_NREDOPS; o++)
				MPI_Op_free(&m->ops[d][o]);
		}
		int fin = 0;
		MPI_Finalized(&fin);
		if (m->inited_here && !fin)
			MPI_Finalize();
		free(m);
	}
	free(be);
}

static const struct sc_backend_ops mpi_ops = {
	.name = "mpi",
	.local_ranks = mpi_local,
	.all_to_all = mpi_a2a,
	.all_gather = mpi_ag,
	.reduce_scatter = mpi_rs,
	.all_reduce = mpi_ar,
	.all_to_allv = mpi_a2av,
	.destroy = mpi_destroy,
	.combine = mpi_combine,
	.bcast = mpi_bcast,
	.proc = mpi_proc,
	.gather = mpi_gather,
	.max_world = mpi_max_world,
	.group = mpi_group,
};

static pid_t kept_rank; /* the keeper's child */

static void forward(int sig)
{
	if (kept_rank > 0)
		kill(kept_rank, sig);
}

/* The keeper: never returns in the parent (see the file's head). */
static void keeper(void)
{
	const char *rank = getenv("OMPI_COMM_WORLD_RANK");
	const char *dir = getenv("OMPI_MCA_orte_jobfam_session_dir");
	const char *job = getenv("PMIX_NAMESPACE");
	const char *off = getenv("SC_MPI_KEEPER");
	if (!dir)
		dir = getenv("PMIX_SERVER_TMPDIR");
	if (!rank || !dir || !job || (off && strcmp(off, "0") == 0))
		return;
	char ends[1024], path[1100], tmp[1200];
	snprintf(ends, sizeof ends, "%s/shardcheck-%s.rank", dir, job);
	snprintf(path, sizeof path, "%s%s", ends, rank);
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	const pid_t self = getpid();
	fflush(NULL); /* nothing buffered is written twice */
	const pid_t child = fork();
	if (child < 0)
		return; /* no keeper: the run goes on without one */
	if (child == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL); /* the keeper killed: so is its rank */
		if (getppid() != self)
			_exit(2);
		setenv("SC_MPI_ENDS", ends, 1);
		return;
	}
	kept_rank = child;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = forward;
	static const int fwd[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGCONT};
	for (size_t i = 0; i < sizeof fwd / sizeof fwd[0]; i++)
		sigaction(fwd[i], &sa, NULL);
	int status = 0;
	while (waitpid(child, &status, 0) < 0)
		if (errno != EINTR)
			_exit(2);
	if (WIFEXITED(status))
		_exit(WEXITSTATUS(status));
	const int sig = WTERMSIG(status);
	char line[64];
	const int n = snprintf(line, sizeof line, "signal %d\n", sig);
	const int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd >= 0) {
		const ssize_t w = write(fd, line, (size_t)n);
		close(fd);
		if (w == n)
			rename(tmp, path);
	}
	/* end as the rank ended, so that mpirun names the signal as well */
	signal(sig, SIG_DFL);
	sigset_t all;
	sigfillset(&all);
	sigprocmask(SIG_UNBLOCK, &all, NULL);
	raise(sig);
	_exit(128 + sig);
}

int sc_backend_mpi_available_impl(void) { return 1; }

enum sc_status sc_backend_mpi_open_impl(struct sc_backend **out, struct sc_err *e)
{
	struct sc_backend *be = calloc(1, sizeof *be);
	struct mpi_impl *m = calloc(1, sizeof *m);
	if (!be || !m) {
		free(be);
		free(m);
		return SC_ERR(e, SC_E_NOMEM, "out of memory");
	}
	int inited = 0;
	MPI_Initialized(&inited);
	if (!inited) {
		keeper();
		if (MPI_Init(NULL, NULL) != MPI_SUCCESS) {
			free(be);
			free(m);
			return SC_ERR(e, SC_E_UNAVAIL, "mpi: MPI_Init failed");
		}
		m->inited_here = 1;
	}
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Comm_rank(MPI_COMM_WORLD, &m->rank);
	MPI_Comm_size(MPI_COMM_WORLD, &m->size);
	if (m->size > SC_MAX_WORLD) {
		free(be);
		free(m);
		return SC_ERR(e, SC_E_UNAVAIL, "mpi: at most %d processes", SC_MAX_WORLD);
	}
	for (int p = 1; p <= m->size; p++) {
		MPI_Comm_split(MPI_COMM_WORLD, m->rank < p ? 0 : MPI_UNDEFINED, m->rank, &m->sub[p]);
		if (m->sub[p] != MPI_COMM_NULL)
			MPI_Comm_set_errhandler(m->sub[p], MPI_ERRORS_RETURN);
	}
	static const MPI_Op builtin[SC_NREDOPS] = {MPI_SUM, MPI_MAX, MPI_MIN, MPI_PROD};
	const MPI_Datatype native[] = {[SC_I32] = MPI_INT32_T, [SC_I64] = MPI_INT64_T,
				       [SC_U32] = MPI_UINT32_T, [SC_U64] = MPI_UINT64_T,
				       [SC_I8] = MPI_INT8_T,    [SC_U8] = MPI_UINT8_T,
				       [SC_F32] = MPI_FLOAT,    [SC_F64] = MPI_DOUBLE};
	for (int d = 0; d < SC_NDTYPES; d++) {
		if (d < SC_F16) {
			m->dt[d] = native[d];
			for (int o = 0; o < SC_NREDOPS; o++)
				m->ops[d][o] = builtin[o];
			continue;
		}
		MPI_Type_contiguous((int)sc_dtype_size((enum sc_dtype)d), MPI_BYTE, &m->dt[d]);
		MPI_Type_commit(&m->dt[d]);
		for (int o = 0; o < SC_NREDOPS; o++)
			MPI_Op_create(mini_fn[d - SC_F16][o], 1, &m->ops[d][o]);
	}
	const char *f = getenv("SC_MPI_FAULT");
	if (f && (strncmp(f, "hang:", 5) == 0 || strncmp(f, "crash:", 6) == 0)) {
		m->fault = f[0] == 'h' ? 1 : 2;
		m->fault_rank = atoi(strchr(f, ':') + 1);
	}
	be->ops = &mpi_ops;
	be->impl = m;
	*out = be;
	return SC_OK;
}
