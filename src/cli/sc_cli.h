/* sc_cli: what the commands share: the options (parsed by the flag table
 * in sc_flags.def), their help, loading targets, progress on a terminal,
 * saving the case in flight on a timeout, and the seed.
 *
 * The CLI owns the terminal: the library never prints. With --json -,
 * standard output carries the JSON document only and human lines go to
 * standard error. Exit codes: 0 every property held (or every corpus
 * expectation was met), 1 a counterexample was found (or an expectation
 * was not met), 2 usage, spec or environment error. */
#ifndef SC_CLI_H
#define SC_CLI_H

#include <stdio.h>

#include "sc_check.h"
#include "sc_plugin.h"

#define SC_CLI_MAX_TARGETS 1024

/* Commands, for the flag table's SHOW column. */
enum { SC_CHECK = 1, SC_GATE = 2, SC_FUZZ = 4, SC_EVAL = 8, SC_REPRO = 16 };
/* Where a flag is accepted. */
enum { SC_ALL = 0, SC_ONE_CASE = 1 };

/* A command: its name, its bit in the flag table's SHOW column, its help
 * (printed around the options the table shows for it), and its run. */
struct sc_cmd {
	const char *name;
	int bit;
	const char *head, *foot;
	int (*run)(int argc, char **argv, int full_argc, char **full_argv);
};

/* A spec or case file in a directory that did not load: the others run,
 * this one is reported as an error (exit 2). */
#define SC_CLI_MAX_BROKEN 16
struct sc_cli_broken {
	char path[256];
	char msg[SC_ERR_MAX];
};

struct sc_cli {
	struct sc_check_opts co;
	const char *backend;
	const char *property;
	const char *report_dir;
	const char *json;
	const char *chain;
	const char *sizes;
	const char *params;
	const char *dump;
	const char *svg; /* repro --svg FILE */
	int quiet, verbose, seed_given, world, jobs;
	double timeout, total;
	size_t case_memory; /* bytes per case (every rank's buffers); 0: 4 GiB */
	int torch;          /* --torch: the version whose rules every spec follows (sc_torch); 0: each spec's */
	size_t plugin_memory; /* address space a plugin's child may add; 0: none */
	int plugin_memory_set;
	const char *corpus;
	const char *findings; /* fuzz --findings */
	const struct sc_cmd *cmd; /* the command being parsed (its help, its bit) */
	const char *plugin, *baseline;
	int seed_random;
	int specs_only; /* sc_cli_load_targets leaves .case files in directories out */
	int no_expect;  /* --no-expect: `expect` lines are ignored, every failure counts */
	int allow_fewer_ranks; /* gate: a launch with fewer ranks than --world asks runs what it can */
	const char *sanitize;  /* gate --sanitize TOOL: failures' minimal cases under compute-sanitizer */
	int sanitize_all;      /* gate --sanitize-all: every case under it */
	struct sc_cli_broken broken[SC_CLI_MAX_BROKEN]; /* files of directories that did not load */
	int nbroken;                                    /* how many (may exceed SC_CLI_MAX_BROKEN) */
	int skip_irregular; /* sc_cli_load_targets skips files of directories that are not regular files */
	struct sc_cli_broken skipped[SC_CLI_MAX_BROKEN]; /* those skipped, said on the log as they are */
	int nskipped;                                    /* how many (may exceed SC_CLI_MAX_BROKEN) */
	enum sc_dtype dtype;
	const char *targets[SC_CLI_MAX_TARGETS];
	int ntargets;
};

/* Resets c for command cmd and parses argv into it. Returns 0, -1 when
 * help was printed, or the exit code of a usage error. */
int sc_cli_parse(struct sc_cli *c, const struct sc_cmd *cmd, int argc, char **argv);
/* The command's help: its head, the options the table shows for it, its
 * foot. */
void sc_cli_usage(FILE *out, const struct sc_cmd *cmd);
/* A non-negative decimal integer; 0, or -1 when s is not one. */
int sc_cli_u64(const char *s, uint64_t *out);
/* "shardcheck: MESSAGE\n(see shardcheck help)" on stderr; returns 2. */
int sc_cli_die(const char *fmt, const char *arg);

/* Loads the targets named on the command line (specs, .case files,
 * directories, builtin:NAME, --chain) into t; *nt set; 0 or an exit code.
 * A file named on the command line that does not load stops the run; one
 * found in a directory is logged, recorded in c->broken and left out. Only
 * regular files are read: with c->skip_irregular, a FIFO, device or socket
 * found in a directory is logged ("PATH: not a regular file (a FIFO);
 * skipped"), recorded in c->skipped and left out without an error; else it
 * is refused like a file that does not load. */
int sc_cli_load_targets(struct sc_cli *c, struct sc_target *t, int *nt, FILE *log);
/* The transforms of --plugin (all, or those named) as targets, --baseline's
 * matched by name; the libraries stay open in libs[0], libs[1]. Returns 0,
 * or 2 with the reason in e (a plugin that cannot be loaded, whose
 * registration crashed, hung or exited, or that lacks a named transform). */
int sc_cli_load_plugins(struct sc_cli *c, struct sc_target *t, int *nt, struct sc_plugin_lib **libs,
			struct sc_err *e);

/* One progress line on stderr, rewritten in place (check's callback). */
void sc_cli_progress(void *u, const char *target, const char *property, long cases, long total, double elapsed);
/* Progress for a log: a plain line on stderr every 10 s of one check
 * (nothing for checks that end sooner). */
void sc_cli_progress_lines(void *u, const char *target, const char *property, long cases, long total,
			   double elapsed);
/* A fresh run seed (printed, so the run replays). */
uint64_t sc_cli_random_seed(void);

/* Rank's expected local tensor of case cs under layout ol (for partial
 * outputs: the whole X), in a fresh arena tensor *et. */
enum sc_status sc_cli_expected_tensor(struct sc_ctx *ctx, struct sc_target *t, const struct sc_case *cs,
				      const struct sc_layout *ol, int rank, struct sc_tensor *et, struct sc_err *e);
/* Writes DIR/rank<r>.{input,output,expected}.npy for one case (no output
 * file when a step fails at run time); 0, or 2 on an error. */
int sc_cli_dump_case(struct sc_ctx *ctx, struct sc_target *t, const struct sc_case *cs, const char *dir);

/* The commands, one file each (sc_cmd_NAME.c). */
extern const struct sc_cmd sc_cmd_check, sc_cmd_gate, sc_cmd_eval, sc_cmd_repro, sc_cmd_fuzz, sc_cmd_list,
	sc_cmd_trace;

#endif
