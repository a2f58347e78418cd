/* sc_target: what a check runs: a spec, a chain of specs, or a built-in
 * transform; the concrete case; placements as index maps; value filling;
 * and output verification with provenance.
 *
 * Built-in transforms are generated as specs (one per rank/dim/op choice,
 * cached), so they run through the same interpreter and backends as user
 * specs and their steps can be printed. */
#ifndef SC_TARGET_H
#define SC_TARGET_H

#include <stdint.h>

#include "sc_case.h"
#include "sc_interp.h"
#include "sc_layout.h"
#include "sc_spec.h"

#define SC_MAX_CHAIN 8
#define SC_MAX_FIRST 8

enum sc_target_kind { SC_TGT_SPEC, SC_TGT_CHAIN, SC_TGT_BUILTIN, SC_TGT_PLUGIN };
enum sc_builtin {
	SC_BI_ALL_TO_ALL,
	SC_BI_ALL_GATHER,
	SC_BI_REDUCE_SCATTER,
	SC_BI_ALL_REDUCE,
	SC_NBUILTINS
};


struct sc_target;
struct sc_plugin_transform;
struct sc_plugin_lib;
/* Planted-fault hook for tests: called after the steps ran, with the
 * run's state; may corrupt outputs, inputs or memory around them. */
typedef void (*sc_fault_fn)(struct sc_exec *x, const struct sc_case *c, int prov, void *ctx);

struct sc_target {
	enum sc_target_kind kind;
	char name[512];
	struct sc_spec *spec;                 /* SPEC (owned) */
	int nchain;
	struct sc_spec *chain[SC_MAX_CHAIN];  /* CHAIN (owned) */
	enum sc_builtin bi;
	struct sc_spec **cache;               /* BUILTIN: generated specs (owned) */
	int expect;                           /* -1 none, 0 pass, 1 fail */
	int corpus;  /* found in a directory: its expectation decides the exit code */
	sc_fault_fn fault;
	void *fault_ctx;
	/* a .case file: exactly this case, for this property, on this backend */
	int has_case;
	struct sc_case fixed;
	char fixed_property[32];
	char fixed_backend[16];
	char case_path[512];
	/* PLUGIN: the contract is spec (no steps); run calls the transform, or
	 * the baseline's while use_baseline is set (differential checks) */
	const struct sc_plugin_transform *plugin, *baseline;
	int use_baseline;
	double plugin_timeout; /* seconds per case; 0: 10 */
	struct sc_plugin_lib *own_lib, *own_baseline; /* closed by sc_target_free */
	char plugin_path[512], baseline_path[512];
};

const char *sc_builtin_name(enum sc_builtin b);
int sc_builtin_parse(const char *name, enum sc_builtin *out);

/* Constructors; the target owns what it loads. sc_target_free is NULL-safe
 * and frees the target's contents, not the struct itself. */
enum sc_status sc_target_from_spec_file(struct sc_target *t, const char *path, struct sc_err *e);
enum sc_status sc_target_from_spec(struct sc_target *t, struct sc_spec *owned);
enum sc_status sc_target_chain(struct sc_target *t, const char *const *paths, int n,
			       struct sc_err *e);
enum sc_status sc_target_builtin(struct sc_target *t, enum sc_builtin b, struct sc_err *e);
void sc_target_free(struct sc_target *t);

/* The specs that describe a case (one, or the chain); count returned. */
int sc_target_specs(struct sc_target *t, const struct sc_case *c, const struct sc_spec **out,
		    struct sc_err *e);
/* Generated spec of a built-in for (ndims, p0, p1, op). */
const struct sc_spec *sc_builtin_spec(struct sc_target *t, int ndims, int p0, int p1,
				      enum sc_redop op, struct sc_err *e);
int sc_target_has_reduction(struct sc_target *t, const struct sc_case *c);

/* Runs the target on a case: fills inputs (prov: global indices; else the
 * value encoding), runs the steps, applies the fault hook. x must have
 * arena, be, world, dtype and prov set. On SC_E_RUNTIME the case failed. */
enum sc_status sc_target_run(struct sc_target *t, const struct sc_case *c, struct sc_exec *x,
			     struct sc_tensor *inputs, struct sc_err *e);

/* Bits X[g] must have in a data run of this target and case. */
uint64_t sc_expected_bits(struct sc_target *t, const struct sc_case *c, uint64_t g);

struct sc_wrong {
	int rank;
	int ndim;
	int64_t index[SC_MAX_DIMS];
	uint64_t expected_from, actual_from; /* global indices (SC_PROV_*) */
	uint64_t expected_bits, actual_bits;
	int have_prov;
	int bits_unknown; /* actual_bits not observed (reductions) */
};

struct sc_failure {
	char msg[SC_ERR_MAX];
	int runtime_error;
	int64_t wrong;
	int nfirst;
	struct sc_wrong first[SC_MAX_FIRST];
	/* compute specs: the element with the largest error/bound */
	int has_worst;
	int worst_rank, worst_ndim;
	int64_t worst_index[SC_MAX_DIMS];
	double worst_value, worst_reference, worst_error, worst_bound, worst_ratio;
	int64_t compared; /* elements compared against their bound */
};

/* Compares the outputs in x (after sc_target_run) with the output placement
 * of X; returns the number of wrong elements and records the first ones
 * (and a shape mismatch as one message). */
int64_t sc_verify_output(struct sc_target *t, const struct sc_case *c, struct sc_exec *x,
			 struct sc_failure *f, struct sc_err *e);

/* Writes "X[1, 0, 2]" for a global index (or "poison"/"a mix of elements"). */
void sc_format_from(const struct sc_case *c, uint64_t g, char *buf, size_t n);

#endif
