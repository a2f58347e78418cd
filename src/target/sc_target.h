/* sc_target: what a check runs, behind one interface. A target kind (a
 * spec, a chain of specs, a built-in collective, a plugin's transform) is
 * one file filling struct sc_target_ops; everything above this layer asks
 * the target through these functions and never looks at its kind.
 *
 * A target describes each case by specs (the contract: dims, placements,
 * and for specs and built-ins the steps), runs its transform on the inputs
 * already filled into the run state, and names the parameters its cases
 * carry (built-ins: ndims, dims to split, concat or gather, the op). */
#ifndef SC_TARGET_H
#define SC_TARGET_H

#include <stdint.h>

#include "sc_case.h"
#include "sc_interp.h"
#include "sc_layout.h"
#include "sc_spec.h"

#define SC_MAX_CHAIN 8

struct sc_target;
struct sc_builtin_family;
struct sc_plugin_transform;
struct sc_plugin_lib;

/* Planted-fault hook for tests: called after the steps ran, with the
 * run's state; may corrupt outputs, inputs or memory around them. */
typedef void (*sc_fault_fn)(struct sc_exec *x, const struct sc_case *c, int prov, void *ctx);

/* What a target kind provides. Functions left NULL have the defaults
 * described on each. */
/* Flags of a kind: its runs stay in host memory (a plugin's functions
 * take host pointers), even on a backend with device memory. */
#define SC_TARGET_HOST_ONLY 1u
/* Its code sees the element type (a plugin's kernel may convert through
 * float): dtypes of one width are not interchangeable. */
#define SC_TARGET_TYPED 2u
/* Its runs may reuse a process that ran earlier cases (a plugin's
 * worker): a failure is confirmed, and shrunk, with t->fresh set. */
#define SC_TARGET_WARM 4u
/* It runs variants of one case together (batch_start) faster than one by
 * one (a plugin's worker: one round trip for all of them). */
#define SC_TARGET_BATCH 8u
/* The most variants a batch takes. */
#define SC_TARGET_BATCH_MAX 16

struct sc_target_ops {
	const char *kind; /* "spec", "chain", "builtin", "plugin" */
	unsigned flags;
	/* The specs that describe case c, first to last. */
	enum sc_status (*specs)(struct sc_target *t, const struct sc_case *c, const struct sc_spec **out,
				int *n, struct sc_err *e);
	/* Runs the transform on x->t (the inputs, filled); leaves the outputs
	 * there. NULL: every spec's steps in order. */
	enum sc_status (*run)(struct sc_target *t, const struct sc_case *c, struct sc_exec *x,
			      struct sc_err *e);
	/* Starts the variants of t->batch (sc_target_batch_start: cases c[0..n)
	 * of one world and shapes, another dtype, the same case again or a
	 * provenance run; io[k] variant k's inputs, one tensor per local rank,
	 * becoming its outputs; prov[k] whether it is a provenance run) and
	 * returns while they run where the kind can (t->batch.async set:
	 * batch_wait then answers for each, in order); else runs them, SC_OK
	 * or the error of the first that did not run right, its index in
	 * *failed. NULL: one sc_target_run after another. */
	enum sc_status (*batch_start)(struct sc_target *t, int *failed, struct sc_err *e);
	enum sc_status (*batch_wait)(struct sc_target *t, int k, int *failed, struct sc_err *e);
	/* Ends a batch left running before its buffers are reused (its
	 * variants not asked for are dropped). */
	void (*batch_settle)(struct sc_target *t);
	/* Runs the inverse transform of case c on x->t (roundtrip); NULL: the
	 * target has none of its own (a chain ending where it starts is its
	 * own round trip). */
	enum sc_status (*run_inverse)(struct sc_target *t, const struct sc_case *c, struct sc_exec *x,
				      struct sc_err *e);
	/* The parameters of case c (NULL: none), and setting one from text:
	 * SC_E_USAGE for an unknown key, SC_E_SPEC for a bad value. */
	int (*params)(const struct sc_target *t, const struct sc_case *c, struct sc_case_param *out);
	enum sc_status (*param_set)(const struct sc_target *t, struct sc_case *c, const char *key,
				    const char *value);
	/* Sets parameter i (in params' order) to value, no checks. */
	void (*param_put)(const struct sc_target *t, struct sc_case *c, int i, int value);
	/* The range of a case's number of dims when it is a parameter. */
	int (*ndims_range)(const struct sc_target *t, int *lo, int *hi);
	/* Properties' questions (NULL: no). */
	int (*is_collective)(const struct sc_target *t);     /* a built-in collective */
	int (*moves_data_only)(const struct sc_target *t);   /* no reduction, no arithmetic */
	int (*returns_to_input)(const struct sc_target *t);  /* ends in the placement it starts from */
	/* The case-file line that names the target ("target X", "chain A,B"). */
	void (*describe)(const struct sc_target *t, char *buf, size_t n);
	void (*free)(struct sc_target *t);
};

/* A batch of variants in flight (sc_target_batch_start). */
struct sc_target_batch {
	const struct sc_case *c;
	const int *prov;
	struct sc_exec *x;
	struct sc_tensor *const *io;
	int n;
	int async;  /* the kind runs it still: its batch_wait answers */
	int hooked; /* variants the fault hook has seen ... */
	int hook_here; /* ... when it is run here, not by sc_target_run */
	enum sc_status st; /* a batch that ran at once: how it ended */
	int failed;
	struct sc_err err;
	void *mem;  /* the kind's, for the batch (freed with the target) */
	int copied; /* the kind's: variants whose outputs are in io */
};

struct sc_target {
	const struct sc_target_ops *ops;
	char name[512];
	int expect; /* -1 none, 0 pass, 1 fail */
	int corpus; /* its expectation decides the exit code (not under --no-expect) */
	sc_fault_fn fault;
	void *fault_ctx;
	/* a .case file: exactly this case, for this property, on this backend */
	int has_case;
	struct sc_case fixed;
	char fixed_property[32];
	char fixed_backend[16];
	char case_path[512];
	/* spec, plugin: the spec (the plugin's contract); chain: its specs */
	struct sc_spec *spec;
	int torch; /* --torch (or a case file's torch line), over every spec's own; 0: none */
	int nchain;
	struct sc_spec *chain[SC_MAX_CHAIN];
	/* built-in */
	const struct sc_builtin_family *family;
	struct sc_spec **cache;
	/* the spec whose mesh every case draws (sc_target_mesh_spec), once known */
	const struct sc_spec *mesh_tpl;
	int mesh_tpl_known;
	/* plugin: run calls the transform, or the baseline's while
	 * use_baseline is set (differential checks) */
	const struct sc_plugin_transform *plugin, *baseline;
	int use_baseline;
	/* plugin: every run in a new child, not the library's worker (set
	 * while a failure is confirmed and shrunk: see SC_TARGET_WARM) */
	int fresh;
	/* plugin: the next run starts a new worker (cleared by it): the calls
	 * after it see a just-loaded library */
	int restart;
	/* plugin: a new child costs far more than a run (it makes a CUDA
	 * context): shrinking runs each candidate in the worker first, and
	 * only the ones that fail there again in a new child */
	int costly_fresh;
	/* a .case file of a failure that needs earlier calls in its process:
	 * the cases run before `fixed`, in order (owned, freed by
	 * sc_target_free) */
	struct sc_case *earlier;
	int nearlier;
	double plugin_timeout; /* seconds per case; 0: 10 */
	struct sc_target_batch batch;
	struct sc_plugin_lib *own_lib, *own_baseline; /* closed by sc_target_free */
	char plugin_path[512], baseline_path[512];
};

/* Constructors (the target owns what it loads); sc_target_free is
 * NULL-safe and frees the target's contents, not the struct itself. */
enum sc_status sc_target_from_spec_file(struct sc_target *t, const char *path, struct sc_err *e);
/* The torch version whose rules every spec of t follows (sc_torch), over
 * their own `torch` lines. */
void sc_target_set_torch(struct sc_target *t, int version);
enum sc_status sc_target_from_spec(struct sc_target *t, struct sc_spec *owned);
enum sc_status sc_target_chain(struct sc_target *t, const char *const *paths, int n,
			       struct sc_err *e);
void sc_target_free(struct sc_target *t);

/* The specs that describe case c (one, or a chain's); *n set on success. */
enum sc_status sc_target_specs(struct sc_target *t, const struct sc_case *c, const struct sc_spec **out,
			       int *n, struct sc_err *e);
/* The spec of a target whose specs do not depend on the case (spec,
 * plugin, chain: first or last), else NULL. */
const struct sc_spec *sc_target_fixed_spec(const struct sc_target *t, int last);
/* The spec whose mesh declaration every case of t has (a mesh spec, or a
 * built-in family over a mesh, whose cases differ in their dims but not
 * in their mesh); NULL for a flat world. */
const struct sc_spec *sc_target_mesh_spec(struct sc_target *t);
/* 1 when a spec of case c reduces (a reduce step or a partial placement). */
int sc_target_has_reduction(struct sc_target *t, const struct sc_case *c);
/* Runs the transform (the fault hook after it). x's inputs are filled. */
enum sc_status sc_target_run(struct sc_target *t, const struct sc_case *c, struct sc_exec *x,
			     struct sc_err *e);
/* Variants of one case run together (see batch_start in the ops), the
 * fault hook after each that ran. n at most sc_target_batch(t). The
 * arguments must live until the last variant was waited for (or the next
 * batch starts): start never fails, it keeps how the variants ran; wait(k),
 * for k from 0 in order, returns once variant k ran: SC_OK with io[k] its
 * outputs, or the error of the first variant (at most k) that did not run
 * right, its index in *failed. */
void sc_target_batch_start(struct sc_target *t, const struct sc_case *c, const int *prov, struct sc_exec *x,
			   struct sc_tensor *const *io, int n);
enum sc_status sc_target_batch_wait(struct sc_target *t, int k, int *failed, struct sc_err *e);
/* Ends the batch in flight, if any (before the arena its buffers are in
 * is reset); NULL-safe. */
void sc_target_batch_settle(struct sc_target *t);
/* The same one variant after another (sc_target_run each): the kinds'
 * fallback. */
enum sc_status sc_target_run_each(struct sc_target *t, const struct sc_case *c, const int *prov, struct sc_exec *x,
				  struct sc_tensor *const *io, int n, int *failed, struct sc_err *e);
/* How many variants of a case the target runs together now (1: it runs
 * them one by one; while a failure is confirmed, always 1). */
int sc_target_batch(const struct sc_target *t);
/* Runs the inverse; SC_E_USAGE when the target has none. */
enum sc_status sc_target_run_inverse(struct sc_target *t, const struct sc_case *c, struct sc_exec *x,
				     struct sc_err *e);
int sc_target_is_collective(const struct sc_target *t);
int sc_target_moves_data_only(const struct sc_target *t);
int sc_target_returns_to_input(const struct sc_target *t);
int sc_target_has_run_inverse(const struct sc_target *t);
void sc_target_describe(const struct sc_target *t, char *buf, size_t n);

/* The parameters of a case (0 for targets without), setting one from
 * text (SC_E_USAGE unknown key, SC_E_SPEC bad value; c changed only on
 * SC_OK; "ndims" is accepted by targets whose ndims is a parameter), and
 * whether --params needs a key. */
int sc_target_params(const struct sc_target *t, const struct sc_case *c, struct sc_case_param *out);
enum sc_status sc_target_param_set(const struct sc_target *t, struct sc_case *c, const char *key,
				   const char *value);
int sc_target_param_required(const struct sc_target *t, const char *key);
/* Sets parameter i (in sc_target_params' order) to value: the decoder's
 * and the shrinker's fast path (validity is the decoder's to judge). */
void sc_target_param_put(const struct sc_target *t, struct sc_case *c, int i, int value);
/* 1 when the number of dims is a parameter of the target's cases, with
 * its range; 0 when the target's dims fix it. */
int sc_target_ndims_range(const struct sc_target *t, int *lo, int *hi);

/* "world=2 s=2 b=2 dtype=i32 seed=0" (parameters after world) */
void sc_target_case_format(struct sc_target *t, const struct sc_case *c, char *buf, size_t n);
/* The sizes a case is written with, in order: a mesh spec's mesh sizes
 * (the symbols, in mesh order), then the dims. Name i, and in *slot its
 * index in c->sizes (a mesh size's is after the dims). */
int sc_target_size_count(struct sc_target *t, const struct sc_case *c);
const char *sc_target_size_name(struct sc_target *t, const struct sc_case *c, int i, int *slot, char *tmp, size_t n);
/* The slot of a size's name (a dim or a mesh size symbol); -1 when none. */
int sc_target_size_slot(struct sc_target *t, const struct sc_case *c, const char *name);
/* A mesh spec's fixed mesh sizes (`mesh dp=2`) into c->sizes. */
void sc_target_fixed_mesh(struct sc_target *t, struct sc_case *c);
/* "(dp 1, tp 0)": rank's mesh coordinates in c; "" without a mesh. */
void sc_target_mesh_coords(struct sc_target *t, const struct sc_case *c, int rank, char *buf, int n);
/* "s=2,b=2" for --sizes */
void sc_target_sizes_arg(struct sc_target *t, const struct sc_case *c, char *buf, size_t n);
/* A case's counts matrices as text, each "NAME=a:b/c:d" (rows by '/',
 * entries by ':'), after sep; json: "NAME": [[a, b], [c, d]] instead. */
void sc_target_counts_text(struct sc_target *t, const struct sc_case *c, const char *sep, int json, char *buf,
			   size_t n);
/* NAME=a:b/c:d into the case when NAME is one of its counts matrices:
 * *found 1 then (an error names what is wrong); 0 when NAME is not one. */
enum sc_status sc_target_counts_parse(struct sc_target *t, struct sc_case *c, const char *name, const char *text,
				      int *found, struct sc_err *e);
/* Name of dim d of the case ("d3" when no spec names it). */
const char *sc_target_dim_name(struct sc_target *t, const struct sc_case *c, int d, char *tmp, size_t n);

#endif
