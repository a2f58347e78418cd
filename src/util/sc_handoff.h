/* sc_handoff: two processes taking turns through words of shared memory:
 * a starter asks (req), a child answers (ack), and each waits for the
 * other by spinning briefly, then sleeping on a futex.
 *
 * A side about to sleep on a word says so in its *_sleeping word first,
 * and the other side makes the wake-up system call only then: when both
 * sides are spinning, a request and its answer cost no system call
 * (stores and loads are sequentially consistent, so either the sleeper
 * sees the new value or the waker sees the sleeper).
 *
 * The two never run at once. Where every core is taken (other work, a
 * busy CI runner), spinning takes the core the other side waits for: then
 * neither spins, and the child moves to the starter's core, so that each
 * turn is a switch on one core instead of a wait for another core to be
 * given up. */
#ifndef SC_HANDOFF_H
#define SC_HANDOFF_H

#include <stdatomic.h>

struct sc_handoff {
	_Atomic unsigned req, ack;                  /* requests asked, answered */
	_Atomic unsigned req_sleeping, ack_sleeping; /* a side sleeps on that word */
	_Atomic int cpu;   /* the core the starter asked from */
	_Atomic int share; /* every core is taken: the child runs on the starter's core, no side spins */
};

/* A side's record of whether spinning pays (zero-initialised: it does). */
struct sc_spinner {
	double misses; /* the share of recent spins that did not see the change */
	unsigned waits;
};

/* How long a side spins before it sleeps: a request and its answer are
 * often a few microseconds apart (a batch of calls, or the starter's
 * checks between two, a few tens), and a sleep and a wake-up cost more. */
#define SC_HANDOFF_SPIN_MAX_S 200e-6

/* One pause of a spin (the CPU's spin-wait hint). */
static inline void sc_handoff_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

/* Sets *word to v and wakes its sleeper, if any. */
void sc_handoff_post(_Atomic unsigned *word, _Atomic unsigned *sleeping, unsigned v);
/* Sleeps on *word while it holds seen, for up to seconds (0: no limit). */
void sc_handoff_sleep(_Atomic unsigned *word, _Atomic unsigned *sleeping, unsigned seen, double seconds);
/* Watches *word for a change from seen for a while before a side sleeps
 * on it (not at all while sharing a core, or while spinning has not paid
 * this side lately); 1 when it changed. */
int sc_handoff_spin(const struct sc_handoff *h, _Atomic unsigned *word, unsigned seen, struct sc_spinner *sp);
/* The starter, before it posts a request: records its core and whether
 * every core is taken (looked at again every 20 ms). */
void sc_handoff_ask(struct sc_handoff *h);
/* The child, on a request: runs on the starter's core while every core is
 * taken, and where it ran before otherwise. *pinned (start at -1) is the
 * core it runs on now, -1 for its own set. */
void sc_handoff_follow(const struct sc_handoff *h, int *pinned);

#endif
