/* sc_plugin_host: where a plugin transform's ranks run.
 *
 * On backends that hold every rank in one process (sim), the ranks run as
 * threads of a sandboxed child (src/util/sc_sandbox.h) on buffers of a
 * shared arena, in one of two ways:
 *  - warm: the library's worker, a child that loaded the library once and
 *    runs call after call (restarted after it died, hung, or left
 *    processes, and when an arena mapped memory it has not seen);
 *  - fresh: a new child for this one call, forked by the library's fork
 *    server (a child that loaded the library and never runs it), or from
 *    here where there is none.
 * Either way a crash, exit, hang, overrun of a buffer or a process left
 * behind ends only the child and becomes the run's error, in the same
 * words. A call that hung is remembered so that the same call is not
 * timed again, and once a call of a transform hung, its later calls run
 * under a timeout cut to 50 times its slowest call that returned (at
 * least 1 s): a hang found while shrinking costs one full timeout.
 *
 * On backends with one process per rank (mpi), the local rank runs in
 * process (sc_plugin_host_run_local). */
#ifndef SC_PLUGIN_HOST_H
#define SC_PLUGIN_HOST_H

#include <stdint.h>

#include "sc_mesh.h"
#include "sc_plugin_coll.h"
#include "sc_tensor.h"
#include "shardcheck/plugin.h"

/* A run: the parent fills it (sc_plugin_host_job), the child reads it.
 * The call's pointers that differ per process (coll, native, user,
 * mesh_name) are set by the child. */
struct sc_plugin_job {
	const struct sc_plugin_transform *tr; /* the parent's (its name and contract) */
	int world;
	struct sc_mesh mesh;
	char mesh_name[SC_PLUGIN_MAX_MESH][64];
	struct sc_plugin_call call[SC_MAX_WORLD];
	/* the bytes around every buffer compared after each rank's turn, to
	 * name the rank that wrote outside its buffers (fresh runs: the ones
	 * a failure is confirmed and reported by) */
	int watch;
	int device; /* enum sc_plugin_dev_kind: the ranks' buffers in the child's device memory */
};

/* In the child: the library at `load` loaded in this process (once) and
 * its transform registered as want is (name and contract); NULL with why. */
typedef const struct sc_plugin_transform *(*sc_plugin_resolve_fn)(const char *load,
								     const struct sc_plugin_transform *want,
								     char *why, size_t n);

struct sc_plugin_host;

/* The host of one library (loaded from `load` by resolve in its children). */
enum sc_status sc_plugin_host_new(const char *load, sc_plugin_resolve_fn resolve, struct sc_plugin_host **out,
				  struct sc_err *e);
void sc_plugin_host_free(struct sc_plugin_host *h); /* NULL-safe; stops the worker */
/* Calls of a batch: jobs run one after another in one call of the
 * worker (one round trip instead of one each), each under its own
 * timeout. */
#define SC_PLUGIN_HOST_BATCH 16

/* Job k of the next run (0 .. SC_PLUGIN_HOST_BATCH-1) to fill; NULL out
 * of range or out of memory. */
struct sc_plugin_job *sc_plugin_host_job(struct sc_plugin_host *h, int k);

struct sc_plugin_host_run_opts {
	int fresh;      /* a new child for this call, not the worker (which is ended:
			 * fresh runs follow a failure, and its state is suspect) */
	double timeout; /* seconds */
	size_t memory;  /* bytes of address space (0: no limit) */
	uint64_t key;   /* the call's identity for remembering hangs (0: none) */
	int restart;    /* a new worker for this call and the ones after it */
	int flat;       /* children without pid namespaces (sc_sandbox_opts: CUDA) */
};

/* The same in two halves, so that this process can check job k's outputs
 * while the worker runs the jobs after it: start asks for the call (a
 * fresh child's call runs to its end here); wait(k) returns once job k
 * ended, SC_OK when jobs 0..k ran right, else the error of the first that
 * did not (at most k), its index in *failed. Asking for the last job waits
 * for the call's end, and then every job's buffers are looked at again (a
 * later job may have written outside an earlier one's). in and out must
 * live until then. A call not waited to its end is before the next one
 * (or sc_plugin_host_job) begins: sc_plugin_host_settle. */
enum sc_status sc_plugin_host_start(struct sc_plugin_host *h, const struct sc_plugin_host_run_opts *o, int n,
				    const struct sc_tensor *in, const struct sc_tensor *out, struct sc_err *e);
enum sc_status sc_plugin_host_wait(struct sc_plugin_host *h, int k, int *failed, struct sc_err *e);
void sc_plugin_host_settle(struct sc_plugin_host *h); /* NULL-safe */

/* Runs jobs 0 .. n-1 (every rank of each), in order, in one call (n > 1
 * only in the worker, not fresh); in[k * world + r] and out[k * world + r]
 * are job k's rank r's buffers, checked for overruns after it. SC_OK when
 * every job ran right; otherwise the error of the first that did not, its
 * index in *failed: the jobs before it completed, the ones after it did
 * not run. */
enum sc_status sc_plugin_host_run(struct sc_plugin_host *h, const struct sc_plugin_host_run_opts *o, int n,
				  const struct sc_tensor *in, const struct sc_tensor *out, int *failed,
				  struct sc_err *e);

/* Runs tr on one local rank in this process (mpi): rank r of comms. */
int sc_plugin_host_run_local(const struct sc_plugin_transform *tr, struct sc_plugin_call *call,
			     struct sc_plugin_comms *comms, int r);

#endif
