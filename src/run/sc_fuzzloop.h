/* sc_fuzzloop: the unattended fuzz campaign behind `shardcheck fuzz`.
 *
 * Replays the findings of earlier runs first (each is still failing or
 * fixed, or stale: it cannot be replayed any more, and is listed with the
 * reason while the run goes on), then cycles (target, property) pairs in short slices with fresh
 * seeds until the time is up or *stop is set. Every failure is shrunk and
 * deduplicated by signature (target, property, shrunk world, sizes, dtype);
 * a new one is written to disk (corpus findings first, then the report
 * folder, whose failure is a warning) before it is announced, so a run
 * killed at any point loses nothing it reported. The deadline
 * (o->seconds) bounds shrinking too.
 * The loop never prints: it reports through the event callback. */
#ifndef SC_FUZZLOOP_H
#define SC_FUZZLOOP_H

#include <signal.h>

#include "sc_check.h"

enum sc_fuzz_event_kind {
	SC_FZ_PROGRESS, /* periodic */
	SC_FZ_NEW,      /* a new failure, already on disk at case_file */
	SC_FZ_EXPECTED, /* a failure of an `expect fail` corpus spec (first time) */
	SC_FZ_STILL,    /* an earlier finding still fails */
	SC_FZ_FIXED,    /* an earlier finding passes now */
	SC_FZ_ERROR,    /* a check could not run (res->error) */
	SC_FZ_STALE,    /* an earlier finding cannot be replayed (res->error says why); skipped */
	SC_FZ_WARNING   /* msg: something the run could not do (a report file), and goes on */
};

/* The signatures of the failures seen, shared by parallel jobs (a table in
 * shared memory, lock-free) so each bug is announced once. */
struct sc_fuzz_sigs;
struct sc_fuzz_sigs *sc_fuzz_sigs_new(void); /* NULL when out of memory */
void sc_fuzz_sigs_free(struct sc_fuzz_sigs *s); /* NULL-safe */
/* 1 when sig was not in the table (now it is), 0 when it was. */
int sc_fuzz_sigs_add(struct sc_fuzz_sigs *s, uint64_t sig);
/* The number of .case files in dir (0 when it does not exist). */
int sc_fuzz_count_findings(const char *dir);

struct sc_fuzz_event {
	enum sc_fuzz_event_kind kind;
	const struct sc_result *res; /* NEW, EXPECTED, STILL, FIXED, ERROR */
	const char *case_file;       /* NEW, STILL, FIXED, STALE */
	const char *msg;             /* WARNING */
	double elapsed, left;        /* PROGRESS */
	int job;                     /* the worker that saw it (0: the only or the main process) */
	long cases, failures;
};

struct sc_fuzz_opts {
	struct sc_check_opts co;    /* generation options and run seed */
	double seconds;             /* total budget (the findings' replay included) */
	int replay_only;            /* the findings replayed, nothing fuzzed */
	double slice;               /* per (target, property) turn; 0: 0.5 s */
	double progress_every;      /* seconds between PROGRESS events; 0: 10 */
	const char *backend;
	const char *report_dir;     /* failures/ written here (may be NULL) */
	const char *findings_dir;   /* corpus findings: read first, written on new (may be NULL) */
	int no_replay;              /* skip the findings replay (parallel jobs) */
	int job;                    /* worker number of a parallel job (0: none) */
	struct sc_fuzz_sigs *sigs;  /* failures already seen; NULL: the campaign's own */
	volatile sig_atomic_t *stop;
	void (*event)(void *u, const struct sc_fuzz_event *ev);
	void *u;
};

/* Runs the campaign over targets; fills res (one per applicable pair, then
 * one per replayed finding; capacity cap: at least the pairs plus
 * sc_fuzz_count_findings, else SC_E_INTERNAL) and *nres. */
enum sc_status sc_fuzz_campaign(struct sc_ctx *ctx, struct sc_target *t, int nt,
				const struct sc_fuzz_opts *o, struct sc_result *res, int cap,
				int *nres, struct sc_err *e);

#endif
