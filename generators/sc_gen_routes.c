/* sc_gen_routes: top-k routes drawn and checked. */
#include "sc_gen_routes.h"

#include "sc_expr.h"

void sc_gen_routes_draw(struct sc_choices *ch, int32_t *m, int n, int K, int64_t lo, int64_t hi)
{
	const uint64_t style = sc_choice(ch, 4), span = (uint64_t)(hi - lo + 1);
	for (int q = 0; q < n; q++)
		for (int j = 0; j < K; j++)
			m[q * K + j] = (int32_t)(lo + j);
	const int one = n ? (int)sc_choice(ch, (uint64_t)n) : 0;
	for (int q = 0; q < n && style; q++) {
		if ((style == 1 || style == 2) && q != one)
			continue;
		if (style == 1) {
			for (int j = 0; j < K; j++)
				m[q * K + j] = (int32_t)(hi - K + 1 + j);
			continue;
		}
		for (int j = 0; j < K; j++) { /* among the span - j experts not chosen yet */
			int64_t v = lo + (int64_t)sc_choice(ch, span - (uint64_t)j);
			for (int again = 1; again;) {
				again = 0;
				for (int i = 0; i < j; i++)
					if (m[q * K + i] == v) {
						v = v == hi ? lo : v + 1;
						again = 1;
					}
			}
			m[q * K + j] = (int32_t)v;
		}
	}
}

int sc_gen_routes_repeat(const int32_t *v, int n, int K, int *q, int *i, int *j)
{
	for (*q = 0; *q < n; (*q)++)
		for (*j = 1; *j < K; (*j)++)
			for (*i = 0; *i < *j; (*i)++)
				if (v[*q * K + *i] == v[*q * K + *j])
					return 1;
	return 0;
}

int sc_gen_routes_fit(const struct sc_spec *s0, const struct sc_case *c)
{
	for (int k = 0; k < s0->ncounts; k++) {
		int64_t lo, hi;
		const int K = sc_spec_topk(s0, k);
		if (K > 1 && sc_expr_eval(s0, s0->counts[k].lo, c->sizes, c->world, &lo, NULL) == SC_OK &&
		    sc_expr_eval(s0, s0->counts[k].hi, c->sizes, c->world, &hi, NULL) == SC_OK && hi - lo + 1 < K)
			return 0;
	}
	return 1;
}
