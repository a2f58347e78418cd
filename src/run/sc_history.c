/* sc_history: replaying a warm failure after the cases before it, and
 * cutting the sequence down (see the header). */
#include "sc_history.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sc_clock.h"

#define HEAD_BYTES offsetof(struct sc_case, counts)

void sc_history_reset(struct sc_history *h)
{
	h->n = 0;
	h->ncounts = 0;
}

void sc_history_free(struct sc_history *h)
{
	free(h->head);
	free(h->counts_at);
	free(h->counts);
	memset(h, 0, sizeof *h);
}

int sc_history_push(struct sc_history *h, const struct sc_case *c)
{
	if (!h->head && (!(h->head = malloc(HEAD_BYTES * SC_HISTORY_MAX)) ||
			 !(h->counts_at = malloc(sizeof *h->counts_at * SC_HISTORY_MAX))))
		return 0;
	if (h->n >= SC_HISTORY_MAX)
		return 0;
	int at = -1;
	if (c->counts.P) {
		if (h->ncounts == h->counts_cap) {
			const int cap = h->counts_cap ? 2 * h->counts_cap : 16;
			struct sc_countv *m = realloc(h->counts, sizeof *m * (size_t)cap);
			if (!m)
				return 0;
			h->counts = m;
			h->counts_cap = cap;
		}
		h->counts[at = h->ncounts++] = c->counts;
	}
	memcpy(h->head + HEAD_BYTES * (size_t)h->n, c, HEAD_BYTES);
	h->counts_at[h->n++] = at;
	return 1;
}

void sc_history_get(const struct sc_history *h, int i, struct sc_case *out)
{
	memset(out, 0, sizeof *out);
	memcpy(out, h->head + HEAD_BYTES * (size_t)i, HEAD_BYTES);
	if (h->counts_at[i] >= 0)
		out->counts = h->counts[h->counts_at[i]];
}

void sc_history_prime(const struct sc_history_run *r, const struct sc_case *earlier, int n)
{
	r->t->fresh = 0;
	r->t->restart = 1; /* taken by the first run */
	for (int i = 0; i < n; i++) {
		struct sc_failure ef;
		r->check(r->u, &earlier[i], &ef);
	}
}

enum sc_verdict sc_history_replay(const struct sc_history_run *r, const struct sc_case *earlier, int n,
				  const struct sc_case *c, struct sc_failure *f)
{
	const int fresh = r->t->fresh;
	sc_history_prime(r, earlier, n);
	const enum sc_verdict v = r->check(r->u, c, f);
	r->t->restart = 0;
	r->t->fresh = fresh;
	return v;
}

void sc_history_note_replay(struct sc_failure *f, int n)
{
	char was[SC_ERR_MAX];
	snprintf(was, sizeof was, "%s", f->msg);
	snprintf(f->msg, sizeof f->msg, "fails after the %d earlier case%s of the case file, run first in the same "
		 "process%s%.400s", n, n == 1 ? "" : "s", was[0] ? "; then: " : "", was);
}

/* A sequence being cut and shrunk: earlier cases e[0..n), then last. */
struct seq {
	const struct sc_history_run *r;
	struct sc_case *e;
	int n;
	struct sc_case last;
	unsigned linked; /* earlier cases of last's shape (bit k: e[k]), while last shrinks */
	int k;           /* the earlier case shrinking now */
	int cut;         /* the deadline passed: the rest was given up */
	long tries;
	struct sc_failure fail; /* of the last replay that failed */
};

static int fails(struct seq *s, const struct sc_case *e, int n, const struct sc_case *last)
{
	if (s->cut || (s->r->deadline > 0 && sc_clock_now() >= s->r->deadline)) {
		s->cut = 1;
		return 0;
	}
	s->tries++;
	struct sc_failure f;
	if (sc_history_replay(s->r, e, n, last, &f) != SC_V_FAIL)
		return 0;
	s->fail = f;
	return 1;
}

/* The same world, dims' sizes and counts (slots past ndims do not count). */
static int same_shape(const struct sc_case *a, const struct sc_case *b)
{
	if (a->world != b->world || a->ndims != b->ndims || a->counts.P != b->counts.P)
		return 0;
	for (int d = 0; d < a->ndims; d++)
		if (a->sizes[d] != b->sizes[d])
			return 0;
	return !a->counts.P || !memcmp(&a->counts, &b->counts, sizeof a->counts);
}

/* c with the shape (world, sizes, counts) of from. */
static void take_shape(struct sc_case *c, const struct sc_case *from)
{
	c->world = from->world;
	c->ndims = from->ndims;
	memcpy(c->sizes, from->sizes, sizeof c->sizes);
	c->counts = from->counts;
}

/* Cuts s->e down: first to the shortest suffix that still fails (halving:
 * a history of thousands costs a dozen long replays), then to one earlier
 * case alone (the most recent first, the last 64 tried), else chunks
 * removed, halving down to single cases. */
#define SINGLES 64
static void cut(struct seq *s)
{
	for (int lo = 1, hi = s->n; lo < hi && !s->cut;) { /* fails with the last hi; find the fewest */
		const int mid = lo + (hi - lo) / 2;
		if (fails(s, s->e + s->n - mid, mid, &s->last)) {
			memmove(s->e, s->e + s->n - mid, sizeof *s->e * (size_t)mid);
			s->n = hi = mid;
		} else {
			lo = mid + 1;
		}
	}
	for (int i = s->n - 1; i >= 0 && i >= s->n - SINGLES && s->n > 1 && !s->cut; i--)
		if (fails(s, &s->e[i], 1, &s->last)) {
			s->e[0] = s->e[i];
			s->n = 1;
			return;
		}
	struct sc_case *try = malloc(sizeof *try * (size_t)(s->n > 0 ? s->n : 1));
	if (!try)
		return;
	for (int chunk = s->n / 2 > 0 ? s->n / 2 : 1; chunk >= 1 && s->n > 1 && !s->cut; chunk /= 2)
		for (int i = 0; i < s->n && s->n > 1 && !s->cut;) {
			const int len = i + chunk <= s->n ? chunk : s->n - i, m = s->n - len;
			memcpy(try, s->e, sizeof *try * (size_t)i);
			memcpy(try + i, s->e + i + len, sizeof *try * (size_t)(m - i));
			if (fails(s, try, m, &s->last)) {
				memcpy(s->e, try, sizeof *try * (size_t)m);
				s->n = m;
			} else {
				i += len;
			}
		}
	free(try);
}

/* sc_shrink's predicates: a candidate for the last case (linked earlier
 * cases take its shape), or for earlier case s->k. */
static int last_fails(void *vp, const struct sc_case *c)
{
	struct seq *s = vp;
	struct sc_case e[SC_CASE_MAX_EARLIER];
	for (int k = 0; k < s->n; k++) {
		e[k] = s->e[k];
		if (s->linked >> k & 1u)
			take_shape(&e[k], c);
	}
	return fails(s, e, s->n, c);
}

static int earlier_fails(void *vp, const struct sc_case *c)
{
	struct seq *s = vp;
	const struct sc_case keep = s->e[s->k];
	s->e[s->k] = *c;
	const int r = fails(s, s->e, s->n, &s->last);
	s->e[s->k] = keep;
	return r;
}

/* a before b in the shrinking order's first keys: world, elements,
 * sizes left to right, dtype, seed. */
static int smaller(const struct sc_case *a, const struct sc_case *b)
{
	if (a->world != b->world)
		return a->world < b->world;
	const int64_t na = sc_case_numel(a), nb = sc_case_numel(b);
	if (na != nb)
		return na < nb;
	for (int d = 0; d < a->ndims && d < b->ndims; d++)
		if (a->sizes[d] != b->sizes[d])
			return a->sizes[d] < b->sizes[d];
	if (a->dtype != b->dtype)
		return a->dtype < b->dtype;
	return a->seed < b->seed;
}

/* The last earlier case and the last one swapped, when that puts the
 * smaller one last and still fails (a pair of calls that fail in either
 * order shows the smaller case as the minimal one). 1 when swapped. */
static int swap_last(struct seq *s)
{
	if (s->n < 1 || !smaller(&s->e[s->n - 1], &s->last))
		return 0;
	struct sc_case *e = malloc(sizeof *e * (size_t)s->n);
	if (!e)
		return 0;
	memcpy(e, s->e, sizeof *e * (size_t)s->n);
	e[s->n - 1] = s->last;
	const int ok = fails(s, e, s->n, &s->e[s->n - 1]);
	if (ok) {
		s->last = s->e[s->n - 1];
		s->e[s->n - 1] = e[s->n - 1];
	}
	free(e);
	return ok;
}

/* Shrinks the last case (earlier cases of its shape following it), then
 * each earlier one; again while a round moved anything (an earlier case
 * that took the last one's shape lets it shrink further), up to 3 rounds.
 * Sequences longer than a case file holds are left as they are. */
static void shrink_all(struct seq *s, struct sc_shrink_stats *st)
{
	if (s->n > SC_CASE_MAX_EARLIER)
		return;
	for (int round = 0, moved = 1; moved && round < 3 && !s->cut; round++) {
		s->linked = 0;
		for (int k = 0; k < s->n; k++)
			s->linked |= (unsigned)same_shape(&s->e[k], &s->last) << k;
		struct sc_shrink_stats one = {0, 0};
		sc_shrink(s->r->t, s->r->gen, &s->last, last_fails, s, &one);
		for (int k = 0; k < s->n; k++)
			if (s->linked >> k & 1u)
				take_shape(&s->e[k], &s->last);
		s->linked = 0;
		moved = one.steps;
		st->steps += one.steps;
		st->tries += one.tries;
		for (s->k = 0; s->k < s->n && !s->cut; s->k++) {
			sc_shrink(s->r->t, s->r->gen, &s->e[s->k], earlier_fails, s, &one);
			moved += one.steps;
			st->steps += one.steps;
			st->tries += one.tries;
		}
		moved += swap_last(s);
	}
}

/* The failure's message, led by what it needs: "fails only after 1
 * earlier call in the same process (...): world=1 n=2 dtype=f32 seed=0;
 * then: ..." (replayed: 1 the replay in a new process repeated it, 0 it
 * did not, -1 the time was up before it ran). */
static void lead(struct sc_history_found *res, struct sc_target *t, int needed, int replayed, int flaky)
{
	char was[SC_ERR_MAX], list[700] = "";
	snprintf(was, sizeof was, "%s", res->fail.msg);
	for (int k = 0, at = 0; k < res->nearlier && k < 2 && at < (int)sizeof list; k++) {
		char one[300];
		sc_target_case_format(t, &res->earlier[k], one, sizeof one);
		at += snprintf(list + at, sizeof list - (size_t)at, "%s%s", k ? "; then " : "", one);
	}
	if (res->nearlier > 2)
		snprintf(list + strlen(list), sizeof list - strlen(list), "; and %d more (in the case file)",
			 res->nearlier - 2);
	const char *s = needed == 1 ? "" : "s";
	char head[300];
	if (replayed && needed == 0)
		snprintf(head, sizeof head, "fails only when the property's runs of this one case share a process (a run "
			 "after the first goes wrong; each run in a new process passes)");
	else if (replayed)
		snprintf(head, sizeof head, "fails only after %d earlier call%s in the same process (alone, in a new process, "
			 "it passes)", needed, s);
	else if (replayed < 0)
		snprintf(head, sizeof head, "failed after %d earlier call%s in the same process, and passed alone (the time "
			 "was up before the earlier calls were replayed)", needed, s);
	else
		snprintf(head, sizeof head, "failed after %d earlier call%s in the same process, but neither alone nor after "
			 "them replayed in a new process: its result depends on more than its calls (time, addresses, "
			 "threads?)", needed, s);
	char full[sizeof head + sizeof list + sizeof was + 64];
	snprintf(full, sizeof full, "%s%s%s%s%s%s%s", head, needed > res->nearlier ? " (the last ones kept)" : "",
		 flaky ? " (not on every replay: it depends on memory or timing too)" : "", list[0] ? ": " : "", list,
		 was[0] ? "; then: " : "", was);
	const size_t l = strlen(full) < sizeof res->fail.msg ? strlen(full) : sizeof res->fail.msg - 1;
	memcpy(res->fail.msg, full, l); /* the cause first: a long message loses its end */
	res->fail.msg[l] = '\0';
}

void sc_history_explain(const struct sc_history_run *r, const struct sc_history *h, const struct sc_case *c,
			const struct sc_failure *f, struct sc_history_found *res)
{
	const double t0 = sc_clock_now();
	memset(res, 0, sizeof *res);
	res->last = *c;
	res->fail = *f;
	struct seq s = {.r = r, .e = malloc(sizeof *s.e * (size_t)(h->n > 0 ? h->n : 1)), .n = h->n, .last = *c};
	int flaky = 0;
	const int keep = s.e ? h->n : 0;
	for (int i = 0; i < keep; i++)
		sc_history_get(h, i, &s.e[i]);
	const int again = s.e && fails(&s, s.e, s.n, &s.last);
	if (again) {
		cut(&s);
		/* shrunk cases can make an earlier one redundant (it became the
		 * last one's twin): cut again, and shrink what is left */
		for (int round = 0, was = s.n + 1; !r->no_shrink && round < 2 && s.n < was && !s.cut; round++) {
			shrink_all(&s, &res->shrink);
			was = s.n;
			cut(&s);
		}
		res->shrink.tries += s.tries;
		res->last = s.last;
		/* the last replay that failed, when this one does not: a failure
		 * near a limit (memory) need not repeat every time */
		if (sc_history_replay(r, s.e, s.n, &s.last, &res->fail) != SC_V_FAIL) {
			res->fail = s.fail;
			flaky = 1;
		}
	}
	const int n = again ? s.n : keep, from = n > SC_CASE_MAX_EARLIER ? n - SC_CASE_MAX_EARLIER : 0;
	res->nearlier = n - from;
	if (s.e && res->nearlier) /* s.e holds the whole history when the replay did not repeat it */
		memcpy(res->earlier, s.e + from, sizeof *res->earlier * (size_t)res->nearlier);
	res->cut = s.cut;
	res->seconds = sc_clock_now() - t0;
	lead(res, r->t, n, again ? 1 : s.cut ? -1 : 0, flaky);
	free(s.e);
}
