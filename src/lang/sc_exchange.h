/* sc_exchange: the rows and the variable-size exchange every sized step
 * shares (docs/language.md, "Sized exchanges"). A step fills one row per
 * local rank where the sizes are known, shares them (every process then
 * holds every rank's row and decides alike), checks them, sets the rows
 * each rank sends and receives, and runs one all_to_allv. */
#ifndef SC_EXCHANGE_H
#define SC_EXCHANGE_H

#include <stdint.h>

#include "sc_interp.h"

/* A rank's row: failed to evaluate, its shape, two scalars, then the rows
 * (units of rnum elements) it sends to each rank and receives from each. */
enum {
	SC_XROW_BAD,
	SC_XROW_NDIM,
	SC_XROW_SHAPE,
	SC_XROW_SCALAR = SC_XROW_SHAPE + SC_MAX_DIMS,
	SC_XROW_SCALAR2,
	SC_XROW_SEND,
};

struct sc_exchange {
	int P;
	size_t len;    /* int64s per row */
	int64_t *all;  /* P rows, every rank's */
	int64_t *mine; /* nlocal rows */
};

/* Rows with each local rank's shape; sc_exchange_free releases them. */
enum sc_status sc_exchange_init(struct sc_exec *x, struct sc_exchange *w, struct sc_err *e);
void sc_exchange_free(struct sc_exchange *w);
int64_t *sc_exchange_row(const struct sc_exchange *w, int rank);
int64_t *sc_exchange_sends(const struct sc_exchange *w, int rank);
int64_t *sc_exchange_recvs(const struct sc_exchange *w, int rank);
/* Elements of one dim-0 row of a row's shape. */
int64_t sc_exchange_row_numel(const int64_t *r);

/* Fills local rank r's row m; an error marks the row bad. */
typedef enum sc_status (*sc_exchange_fill_fn)(struct sc_exec *x, const struct sc_spec *s, const struct sc_step *st,
					      const int64_t *sizes, int r, int64_t *m, struct sc_err *e);
/* Every local rank's row by fill; the first error in *e (rows still shared). */
enum sc_status sc_exchange_fill(struct sc_exec *x, const struct sc_spec *s, const struct sc_step *st,
				const int64_t *sizes, struct sc_exchange *w, sc_exchange_fill_fn fill, struct sc_err *e);
/* Every rank's row to every process; then the local failure (mine_st,
 * *mine_err), or a failure naming a rank of another process. */
enum sc_status sc_exchange_share(struct sc_exec *x, const struct sc_step *st, struct sc_exchange *w,
				 enum sc_status mine_st, struct sc_err *mine_err, struct sc_err *e);
/* init, fill and share in one: w may be freed whatever the status. */
enum sc_status sc_exchange_gather(struct sc_exec *x, const struct sc_spec *s, const struct sc_step *st,
				  const int64_t *sizes, struct sc_exchange *w, sc_exchange_fill_fn fill, struct sc_err *e);
/* Elements of rank's whole tensor (its row's shape). */
int64_t sc_exchange_numel(const struct sc_exchange *w, int rank);
/* The exchange the rows' send and receive vectors say (units of rnum[rank]
 * elements of the sender), each local input packed `reps` times; bufs[r]
 * receive local rank r's rows in source order. */
enum sc_status sc_exchange_run(struct sc_exec *x, const struct sc_step *st, const struct sc_exchange *w,
			       const int64_t *rnum, int reps, struct sc_buf **bufs, struct sc_err *e);
/* A contiguous tensor over buf of row r's shape, dim d of length len, at offset. */
struct sc_tensor sc_exchange_view(struct sc_buf *buf, const int64_t *r, int d, int64_t len, int64_t offset);
/* KEY=EXPR, the names in vars bound (1u << SC_VAR_SRC...); *seen 0 when absent. */
enum sc_status sc_exchange_parse_kv(struct sc_parse *p, const char *key, uint32_t vars, int *out, int *seen);

#endif
