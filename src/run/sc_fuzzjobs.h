/* sc_fuzzjobs: a fuzz campaign over several processes (`fuzz --jobs N`).
 * This process replays the findings; N forked workers fuzz on seeds
 * seed+1..seed+N, sharing o->sigs (sc_fuzz_sigs_new) so a bug is announced
 * once, and hand their per-pair results back in shared memory, merged here
 * into one result per (target, property): cases summed, the longest time,
 * the first failure or error kept. Workers stop when the parent dies (even
 * by kill -9) or *stop is set. sim only (fork). */
#ifndef SC_FUZZJOBS_H
#define SC_FUZZJOBS_H

#include "sc_fuzzloop.h"

/* Like sc_fuzz_campaign; res holds one merged result per pair, then the
 * replayed findings. */
enum sc_status sc_fuzz_jobs(struct sc_ctx *ctx, struct sc_target *t, int nt, const struct sc_fuzz_opts *o,
			    int jobs, struct sc_result *res, int cap, int *nres, struct sc_err *e);

#endif
