/* sc_inflight: the case in flight, and how a run ends on a signal.
 *
 * Every run of check, gate, fuzz and repro is watched (sc_inflight_watch):
 * SIGTERM, SIGINT or SIGHUP (a cancelled CI job, ^C, a closed terminal)
 * ends it cleanly (one that was ignored when the process started, as
 * under nohup, stays ignored), in two stages:
 *   1. the handler only records the signal (a flag) and starts a grace
 *      period (alarm); the run polls the flag: before every case
 *      (sc_inflight's on_case, which also moves the check's deadline to
 *      now, so sc_check_run stops at its next look or shrink step) and
 *      between checks (sc_inflight_signal). The run then ends in normal
 *      context: workers ended, the case in flight saved
 *      (sc_inflight_save), report.json with "status": "interrupted" and
 *      the results that finished, a one-line message
 *      (sc_inflight_message), exit 2.
 *   2. a case that does not return within the grace period (or a second
 *      signal) takes the last-resort path, in the handler, with
 *      async-signal-safe calls only: the case text saved when it was
 *      formatted, the --jobs workers killed, the report the run last
 *      rendered (sc_inflight_report, kept ready in memory after every
 *      check) written with open/write/rename, the message, _exit(2).
 * An interrupt is exit 2 (the run did not finish; replay the saved case
 * with `shardcheck repro`), never 1, which means a shrunk counterexample.
 *
 * Runs whose cases can hang or crash the process (a --timeout, or a
 * backend with one process per rank) are armed further (sc_inflight_arm):
 * each case's text is formatted before it runs, in every process, and
 * the handlers write it (atomically, with write(2) only) to
 * DIR/failures/inflight.case (or ./shardcheck-inflight.case) with a first
 * line that says what happened:
 *   - --timeout expired (SIGALRM): a rank hung; exit 2;
 *   - a crash of this process (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT):
 *     whichever rank crashed saves it, even rank 0, says so, and dies of
 *     the same signal;
 *   - with one process per rank, SIGTERM, SIGINT or SIGHUP end the
 *     process at once (stage 2: the ranks cannot agree to stop between
 *     cases, and mpirun kills them soon after): when another rank ended
 *     first (mpirun then terminates the others) that rank and its signal
 *     are named, from the file its keeper process left (sc_backend_mpi:
 *     the files $SC_MPI_ENDS<rank>, "signal N" when the rank died of
 *     signal N), or from its crash saved in the case file, or as
 *     "killed, signal unknown" when only its absence is seen (a peer on
 *     this host whose process is gone); else an interrupt from outside
 *     (mpirun was signalled).
 * An earlier run's file is renamed to inflight.case.previous when a run
 * starts. */
#ifndef SC_INFLIGHT_H
#define SC_INFLIGHT_H

#include <signal.h>
#include <sys/types.h>

#include "sc_cli.h"
#include "sc_report.h"

/* Stage 1 and 2 handlers for SIGTERM, SIGINT and SIGHUP; c->co.on_case
 * records each case (and stops the check once a signal came). The
 * report, when c->report_dir is set, goes to DIR (the leader's only). */
void sc_inflight_watch(struct sc_cli *c, struct sc_backend *be);
/* Formats every case before it runs, so that the last resort can save
 * it: for cases that cost far more than that (a plugin's, in a sandbox)
 * and may not return. */
void sc_inflight_format_cases(void);
/* The report goes to DIR (fuzz's default folder, when no --report). */
void sc_inflight_report_dir(const char *dir);
/* Watched, and armed for cases that can hang or crash (see above). */
void sc_inflight_arm(struct sc_cli *c, struct sc_backend *be);
/* No case runs now (between checks): a signal saves nothing. */
void sc_inflight_idle(void);
/* After a signal: the run stopped in time and ends in normal context
 * now (its report may take longer than the grace period to write); a
 * second signal still ends it at once. */
void sc_inflight_stopped(void);
/* The signal that interrupted the run, 0 while none did. */
int sc_inflight_signal(void);
/* The flag the handlers set (for loops that poll a flag of their own). */
volatile sig_atomic_t *sc_inflight_flag(void);
/* The case in flight is this one (a --jobs worker's, found by the parent). */
void sc_inflight_set_case(struct sc_target *t, const struct sc_property *p, const struct sc_case *cs);
/* The case is on disk already (repro's file): named, not saved. */
void sc_inflight_keep(const char *path);
/* Normal context, after a signal: saves the case in flight (first line
 * "# interrupted by SIGTERM"). 1 and its path in buf, or 0 when no case
 * was running. */
int sc_inflight_save(char *buf, size_t n);
/* The one line for stderr: what interrupted the run and where the kept
 * case (path, or NULL: none) and the report are. */
void sc_inflight_message(const char *path, char *buf, size_t n);
/* The reason for report.json ("interrupted by SIGTERM"). */
const char *sc_inflight_reason(void);
/* Keeps ready the report.json that the last-resort path writes (m's
 * status replaced by "interrupted"): normal context, the leader's, after
 * every check. res only grows: results below an earlier call's n are
 * rendered once, then kept (a run costs O(results), not O(results^2)).
 * A no-op without a report folder. */
void sc_inflight_report(const struct sc_report_meta *m, const struct sc_result *res, int n);
/* Processes the last-resort path kills (--jobs workers; borrowed). */
void sc_inflight_children(const pid_t *pids, const int *n);
/* Processes other than the leader print nothing (stdout and stderr to
 * /dev/null), except the message of their own crash. */
void sc_inflight_quiet_followers(struct sc_backend *be);

#endif
