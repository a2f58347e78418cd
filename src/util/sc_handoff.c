/* sc_handoff: turns between a starter and a child (see sc_handoff.h). */
#define _GNU_SOURCE /* sched_getcpu, CPU_* */
#include "sc_handoff.h"

#include <linux/futex.h>
#include <sched.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sc_clock.h"

static void futex_wait(_Atomic unsigned *word, unsigned seen, double seconds)
{
	struct timespec ts = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
	syscall(SYS_futex, (unsigned *)word, FUTEX_WAIT, seen, seconds > 0 ? &ts : NULL, NULL, 0);
}

static void futex_wake(_Atomic unsigned *word) { syscall(SYS_futex, (unsigned *)word, FUTEX_WAKE, 1, NULL, NULL, 0); }

void sc_handoff_sleep(_Atomic unsigned *word, _Atomic unsigned *sleeping, unsigned seen, double seconds)
{
	atomic_store(sleeping, 1);
	if (atomic_load(word) == seen)
		futex_wait(word, seen, seconds);
	atomic_store(sleeping, 0);
}

void sc_handoff_post(_Atomic unsigned *word, _Atomic unsigned *sleeping, unsigned v)
{
	atomic_store(word, v);
	if (atomic_load(sleeping))
		futex_wake(word);
}

/* A spin lasts up to SC_HANDOFF_SPIN_MAX_S. Each side keeps the share of
 * its recent spins that missed (an average over about 8); over
 * SPIN_MISSES it sleeps at once, spinning once in SPIN_PROBE waits to see
 * whether spinning pays again. */
#define SPIN_MISSES 0.5
#define SPIN_PROBE 64

int sc_handoff_spin(const struct sc_handoff *h, _Atomic unsigned *word, unsigned seen, struct sc_spinner *sp)
{
	if (atomic_load(&h->share) || (sp->misses > SPIN_MISSES && ++sp->waits % SPIN_PROBE != 0))
		return atomic_load_explicit(word, memory_order_acquire) != seen;
	const double t0 = sc_clock_now();
	for (int i = 0;; i++) {
		if (atomic_load_explicit(word, memory_order_acquire) != seen) {
			sp->misses -= sp->misses / 8;
			return 1;
		}
		if ((i & 15) == 15 && sc_clock_now() - t0 > SC_HANDOFF_SPIN_MAX_S) {
			sp->misses += (1 - sp->misses) / 8;
			return 0;
		}
		sc_handoff_pause();
	}
}

/* 1 when every core this process may use is taken: the tasks running or
 * ready to run on the machine (/proc/loadavg's fourth field), this one
 * aside, at least as many as its cores. Looked at again every
 * BUSY_LOOK_S. */
#define BUSY_LOOK_S 0.02
static int machine_busy(void)
{
	static double at = -1;
	static int busy;
	const double now = sc_clock_now();
	if (at >= 0 && now - at < BUSY_LOOK_S)
		return busy;
	at = now;
	cpu_set_t set;
	const int cores = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
	FILE *f = fopen("/proc/loadavg", "re");
	int running = 0, total = 0;
	double l1, l5, l15;
	if (f) {
		if (fscanf(f, "%lf %lf %lf %d/%d", &l1, &l5, &l15, &running, &total) != 5)
			running = 0;
		fclose(f);
	}
	busy = running - 1 >= cores;
	return busy;
}

void sc_handoff_ask(struct sc_handoff *h)
{
	atomic_store(&h->share, machine_busy());
	atomic_store(&h->cpu, sched_getcpu());
}

void sc_handoff_follow(const struct sc_handoff *h, int *pinned)
{
	static cpu_set_t own; /* the child's cores before it followed */
	static int have_own;
	const int cpu = atomic_load(&h->share) ? atomic_load(&h->cpu) : -1;
	if (cpu == *pinned || cpu >= CPU_SETSIZE)
		return;
	if (!have_own)
		have_own = sched_getaffinity(0, sizeof own, &own) == 0 ? 1 : -1;
	if (have_own < 0)
		return;
	cpu_set_t one;
	CPU_ZERO(&one);
	if (cpu >= 0)
		CPU_SET(cpu, &one);
	if ((cpu < 0 || CPU_ISSET(cpu, &own)) && sched_setaffinity(0, sizeof one, cpu >= 0 ? &one : &own) == 0)
		*pinned = cpu;
}
