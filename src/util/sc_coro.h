/* sc_coro: coroutines on one thread (each with its own stack), switched
 * explicitly: a scheduler resumes one, it runs until it yields or its
 * function returns. Used to run a plugin's ranks in one process without a
 * thread per rank: ranks switch only where they wait for each other (in a
 * collective), so a run's interleaving is the same every time and a
 * deadlock is seen at once (every rank waiting, none arriving).
 *
 * Sanitizers are told of every switch (ASan's fiber interface), so stack
 * checks stay right on coroutine stacks. */
#ifndef SC_CORO_H
#define SC_CORO_H

#include <stddef.h>

#include "sc_status.h"

struct sc_coro;

/* A coroutine with a stack of `stack` bytes (rounded up to pages; a
 * PROT_NONE page below it, so an overflow faults). */
enum sc_status sc_coro_new(size_t stack, struct sc_coro **out, struct sc_err *e);
void sc_coro_free(struct sc_coro *c); /* NULL-safe; not while it runs */
/* Starts fn(arg) on c (anything c ran before is abandoned) and runs it
 * until it yields or returns. Returns 1 when fn returned, else 0. */
int sc_coro_start(struct sc_coro *c, void (*fn)(void *), void *arg);
/* Runs c from where it yielded; 1 when its function returned, else 0. */
int sc_coro_resume(struct sc_coro *c);
/* In a coroutine: back to the scheduler (sc_coro_start/resume returns 0).
 * Outside one: does nothing. */
void sc_coro_yield(void);
/* Whether the calling thread runs a coroutine now. */
int sc_coro_inside(void);

#endif
