/* sc_inflight: the case in flight, saved when the run cannot go on.
 *
 * Armed for runs whose cases can hang or crash the process (a --timeout,
 * or a backend with one process per rank): each case's text is formatted
 * before it runs, in every process, and the signal handlers write it
 * (atomically, with write(2) only) to DIR/failures/inflight.case (or
 * ./shardcheck-inflight.case) with a first line that says what happened:
 *   - --timeout expired (SIGALRM): a rank hung; exit 2;
 *   - a crash of this process (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT):
 *     whichever rank crashed saves it, even rank 0, says so, and dies of
 *     the same signal;
 *   - SIGTERM, SIGINT or SIGHUP: when another rank crashed first (mpirun
 *     then terminates the others) the crash is reported, else an interrupt
 *     from outside (mpirun was signalled): "interrupted", exit 2, not a
 *     fault of the code under test.
 * An earlier run's file is renamed to inflight.case.previous when a run
 * starts. An abort is exit 2 (the run did not finish; replay the saved case with
 * `shardcheck repro`), never 1, which means a shrunk counterexample. */
#ifndef SC_INFLIGHT_H
#define SC_INFLIGHT_H

#include "sc_cli.h"

void sc_inflight_arm(struct sc_cli *c, struct sc_backend *be);
/* No case runs now (between checks): a signal saves nothing. */
void sc_inflight_idle(void);
/* Processes other than the leader print nothing (stdout and stderr to
 * /dev/null), except the message of their own crash. */
void sc_inflight_quiet_followers(struct sc_backend *be);

#endif
