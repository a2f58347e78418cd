/* sc_ast: what a parsed spec is: declarations, expressions, placements,
 * steps and compute statements, as plain data (docs/language.md).
 *
 * A parsed spec is immutable: expressions are nodes in the spec's pool,
 * names resolved to dim indices (or the world symbol) once parsing ends.
 * Every module of the language layer works on these types; the parser
 * (sc_spec) is the only one that builds them. */
#ifndef SC_AST_H
#define SC_AST_H

#include <stdint.h>

#include "sc_dtype.h"
#include "sc_limits.h"
#include "sc_mesh.h"
#include "sc_status.h"

#define SC_NAME_MAX 48
#define SC_MAX_NODES 512
#define SC_MAX_STEPS 128
#define SC_MAX_CONDS 64

enum sc_exkind {
	SC_EX_NUM,
	SC_EX_NAME, /* unresolved identifier; resolved to DIM, WORLD or RANK */
	SC_EX_DIM,
	SC_EX_WORLD,
	SC_EX_NEG,
	SC_EX_ADD,
	SC_EX_SUB,
	SC_EX_MUL,
	SC_EX_DIV,  /* exact: a remainder is an error */
	SC_EX_FDIV, /* // floor, as Python */
	SC_EX_MOD,  /* %  floor, as Python */
	/* per-rank values (language 2): known only where a rank evaluates */
	SC_EX_RANK, /* the rank's index in the world */
	SC_EX_VAR,  /* a bound name (src, dst, k, r): dim holds enum sc_var */
	SC_EX_SIZE, /* size(a): dim a of the rank's current local tensor */
	SC_EX_CDIV, /* cdiv(a, b): ceil(a / b) */
	SC_EX_MIN,
	SC_EX_MAX,
	SC_EX_IF,   /* a if c else b */
	SC_EX_NONE, /* `none`: no peer (sendrecv); INT64_MIN */
	SC_EX_COUNT,  /* NAME(a, b): entry of a drawn counts matrix, NAME(a) of a vector (b -1; dim: its index) */
	SC_EX_ROWSUM, /* rowsum(NAME, a) */
	SC_EX_COLSUM, /* colsum(NAME, a) */
	SC_EX_COORD,  /* a mesh dim's name: the rank's coordinate along it (dim: the mesh dim) */
	/* compute constants only (sc_expr_eval_real) */
	SC_EX_REAL, /* a number with a fraction or an exponent: real */
	SC_EX_SQRT, /* sqrt(a) */
	/* conditions: 1 true, 0 false */
	SC_EX_CMP,  /* a CMP b, num holds enum sc_cmp */
	SC_EX_AND,
	SC_EX_OR,
	SC_EX_NOT,
	SC_EX_SUMOF, /* sum(a for NAME in b..c): a over NAME = b..c (name: NAME, dim: its level) */
	SC_EX_INDEX,   /* NAME inside its sum(... for NAME in ...) (dim: that sum's level) */
	SC_EX_COUNTLEN, /* len(NAME): a counts vector's entries (dim: its index) */
	SC_EX_ROUTED,   /* routed(NAME, a, b, c): tokens a..b whose route is c (dim: the routes' index) */
	SC_EX_LOOP      /* a `for` loop's index, the same on every rank (dim: the loop's level, 0 outermost) */
};

/* Names bound by a construct (in scope only there). */
enum sc_var { SC_VAR_SRC, SC_VAR_DST, SC_VAR_K, SC_VAR_R, SC_VAR_COUNT };
/* A `for` loop's index is an SC_EX_LOOP node; loops nest SC_LOOP_NEST
 * deep. A sum(... for j in ...)'s index is an
 * SC_EX_INDEX node; sums nest SC_SUM_NEST deep, the node's dim its level
 * (0 outermost). */
#define SC_SUM_NEST 4
#define SC_LOOP_NEST 4

struct sc_expr {
	enum sc_exkind kind;
	int64_t num;
	double real; /* SC_EX_REAL */
	int dim;
	int a, b, c; /* child node indices (-1 when absent) */
	int line, col;
	char name[SC_NAME_MAX];
};

enum sc_cmp { SC_EQ, SC_NE, SC_LT, SC_LE, SC_GT, SC_GE };

/* A `require` condition: one conjunct of the line (`a and b` is two). */
struct sc_cond {
	int node; /* a condition node (CMP, AND, OR, NOT) */
	int line, col;
	int last_dim; /* highest dim index it mentions, -1: only the world */
};

/* SC_OPAQUE: an output known only by its local shape (`output shape [..]`),
 * for transforms whose placement cannot be stated (differential checks). */
enum sc_place { SC_SHARD, SC_REPLICATE, SC_PARTIAL, SC_OPAQUE };

/* How `shard NAME` divides NAME's L rows over P ranks (rank r):
 *   EVEN   X.chunk(P)[r], L divisible by P (language 1)
 *   CHUNK  torch.chunk: c = ceil(L/P), rows [min(rc, L), min((r+1)c, L))
 *   SPLIT  torch.tensor_split: the first L mod P ranks hold floor(L/P)+1
 *   ZIGZAG blocks r and 2P-1-r of 2P equal blocks, L divisible by 2P
 *   SIZES  rows [E(0)+...+E(r-1), + E(r)); L is the sum (not drawn) */
enum sc_shard_rule { SC_RULE_EVEN, SC_RULE_CHUNK, SC_RULE_SPLIT, SC_RULE_ZIGZAG, SC_RULE_SIZES };

/* One entry of a mesh placement (`tp:shard h`, `dp,tp:shard s chunk`,
 * `tp:partial sum`): what the ranks of each group of mesh dims g hold,
 * given what the entries before it placed. */
struct sc_place_entry {
	struct sc_mesh_group g;
	enum sc_place kind; /* SC_SHARD or SC_PARTIAL */
	enum sc_redop op;
	int shard_dim, shard_ndims;
	enum sc_shard_rule rule;
	int sizes_expr; /* SC_RULE_SIZES: E of r, the index in g */
	int col;
};

/* Placement of the global tensor, with an optional "as" layout: X permuted
 * into order[], consecutive runs of order[] merged into groups. In a mesh
 * spec the placement is its entries (nent, ent[]), one per group of mesh
 * dims, nested in mesh order where two shard one dim; kind, op, shard_dim
 * and rule then sum them up (kind SC_PARTIAL when some entry is partial,
 * else SC_SHARD when some entry shards, the first shard entry's dim and
 * rule). */
struct sc_layout {
	enum sc_place kind;
	enum sc_redop op;   /* partial */
	int shard_dim;      /* X dim sharded (shard) */
	int shard_ndims;    /* `shard (a b)`: the merged group shard_dim.. as one dim (0 or 1: one dim) */
	enum sc_shard_rule rule;
	int norder;
	int order[SC_MAX_DIMS];
	int ngroups;
	int group_len[SC_MAX_DIMS];
	int nshape;                  /* SC_OPAQUE: local shape expressions */
	int shape_expr[SC_MAX_DIMS];
	int sizes_expr; /* SC_RULE_SIZES: E, an expression of r */
	int only1; /* `only E`: 1 + the node of E (a rank index or a condition
		    * on rank); 0: every rank's output is checked */
	int nent;  /* mesh specs: the entries (0: a flat world's placement) */
	struct sc_place_entry ent[SC_MAX_MESH];
	struct sc_mesh_group partial; /* the mesh dims of the partial entries, in mesh order */
};

struct sc_step_def;


#define SC_STEP_MAX_GLIST 16 /* ranks of a group= list */
#define SC_STEP_MAX_ARGS 40 /* a split's 39 pieces and its dim (what a line's tokens hold) */
#define SC_MAX_REF_STEPS 16
#define SC_MAX_NAMED 64 /* named tensors of a layout spec (the input included) */

/* A parsed step: its row of the step table (sc_step.h) and its arguments. */
struct sc_step {
	const struct sc_step_def *def;
	int line, col;
	int nargs;
	int args[SC_STEP_MAX_ARGS]; /* dims as ints, sizes as expression nodes (per step) */
	int form;                   /* a step's variant (take: chunk, split, list, [E for k]) */
	unsigned flags;             /* SC_STEP_* flags this use adds to its row's (sized forms) */
	/* named tensors: 1 + the name of its input and of its result (0: the
	 * current tensor); split's outputs and cat's inputs */
	int src1, dst1;
	int nio;
	unsigned char io[SC_MAX_NAMED]; /* names: each < SC_MAX_NAMED */
	enum sc_redop redop;
	int raw;
	/* `group=tp` (collectives, chunk_cat, shift): the step runs within each
	 * group of these mesh dims; n 0: over every rank */
	struct sc_mesh_group group;
	/* `group=[E, ...]` or `group=pp[E, ...]`: only these indices of each
	 * group (of the world, or of group's mesh dims), in this order, form
	 * it; the other ranks skip the step. Expression nodes. */
	int nglist;
	int glist[SC_STEP_MAX_GLIST];
	/* `... when COND` after a local step: 1 + its condition node (0: every
	 * rank); the ranks where COND is false keep their tensor */
	int when1;
	char text[128]; /* the step as written, for messages */
	char src[80];   /* a `# FILE:LINE` comment after it: the code the step transcribes
			 * (a traced spec's), named in messages beside the spec's line */
};

/* Compute specs: tensors, and statements of the reference and the program. */
#define SC_MAX_TENSORS 64 /* a compute spec's tensors, inputs and output included */
#define SC_MAX_STMTS 256 /* statements of a compute block */

enum sc_cop {
	SC_C_MATMUL,
	SC_C_LINEAR,
	SC_C_ADD,
	SC_C_SUB,
	SC_C_MUL,
	SC_C_DIV,
	SC_C_SCALE,
	SC_C_POW,
	SC_C_SQRT,
	SC_C_RSQRT,
	SC_C_EXP,
	SC_C_LOG,
	SC_C_GELU,
	SC_C_RELU,
	SC_C_SILU,
	SC_C_CAST,
	SC_C_SUM,
	SC_C_MEAN,
	SC_C_MAX,
	SC_C_SOFTMAX,
	SC_C_LAYERNORM,
	SC_C_RMSNORM,
	SC_C_EMBEDDING,
	SC_C_PICK,
	SC_C_CAT,
	SC_C_TRIL,
	SC_C_TRIU,
	SC_C_COPY,
	SC_C_STEP,  /* an existing step applied to tensor dst */
	SC_C_ACC,   /* dst += a (dst takes a's value when it has none yet) */
	SC_C_MICRO, /* `microbatch K`: the statements up to its `end` (stmt index in step) run once per micro-batch */
	SC_C_LOOP,  /* `for NAME in LO..HI` (nodes lo, hi): the statements up to its `end` (step) once per value */
	SC_C_END    /* the end of a microbatch block or a loop */
};

struct sc_stmt {
	enum sc_cop op;
	int dst, a, b, c; /* tensor ids; -1 when absent */
	int scalar;       /* constant (a node, real-valued, per rank); -1 none */
	int form;         /* gelu: 0 tanh, 1 erf */
	enum sc_dtype dtype;
	int dim;          /* sum, mean, max, softmax, cat */
	int keepdim;
	int eps;          /* layernorm, rmsnorm: a node; -1 the default 1e-5 */
	int start;        /* embedding, pick: the rank's first row (a node); -1 none */
	int diag;         /* tril, triu: the diagonal (a node, an integer); -1 the main one */
	int fill;         /* tril, triu: what replaces the elements cut (a node, a constant); -1 zero */
	int when;         /* a condition node: the statement runs on the ranks where it holds; -1 all */
	int step;         /* SC_C_STEP: index into steps[]; SC_C_MICRO, SC_C_LOOP: the index of its SC_C_END */
	int lo, hi;       /* SC_C_LOOP: its range's nodes; its level in dim, its index's name in var */
	char var[SC_NAME_MAX];
	int line, col;
};

struct sc_tdecl {
	char name[SC_NAME_MAX];
	int input;       /* declared by `tensor` (or the output) */
	int index_dim;   /* `index DIM`: integer values in [0, size of DIM); -1 a float tensor */
	int ndims;
	int dims[SC_MAX_DIMS]; /* global dim indices */
	struct sc_layout place; /* over the tensor's own dims */
	int line, col;
};

/* Drawn counts (`counts NAME LO..HI`): a P x P matrix of integers per
 * case, one entry per (source, destination) pair (MoE routing); or
 * (`microbatches NAME[g] n LO..HI`) a vector of g entries, the rows of dim
 * n each micro-batch holds, n their sum; or (`sequences NAME[A..B] n
 * LO..HI [multiple=E]`) a vector of A..B entries, its length drawn with
 * it, the tokens of each sequence packed into dim n (cu_seqlens are its
 * prefix sums), n their sum; or (`routes NAME[t] LO..HI [topk=K]`) a
 * vector of t x K entries, the K distinct experts (in LO..HI) each token
 * of dim t is routed to, token by token. */
#define SC_MAX_COUNTS 2
#define SC_MAX_PARAMS 4 /* `param` declarations of a spec */
#define SC_COUNTS_MAX_P 16 /* worlds of specs with counts */
#define SC_COUNTS_MAX_LEN (SC_COUNTS_MAX_P * SC_COUNTS_MAX_P) /* entries of one counts declaration */
#define SC_ROUTES_MAX_TOPK 16 /* `routes ... topk=K` */

struct sc_countsdecl {
	char name[SC_NAME_MAX];
	int lo, hi; /* expression nodes of the dims and the world */
	struct sc_mesh_group group; /* `group=ep`: one matrix over that group's ranks, shared by every
				     * instance of the group (n 0: the world) */
	int len_dim; /* a vector of sizes[len_dim] entries (microbatches); -1: a P x P matrix */
	int sum_dim; /* the dim whose size is the vector's sum; -1 none */
	int seq;     /* sequences: a vector whose length is drawn in seq_lo..seq_hi */
	int route;   /* routes: a vector of sizes[len_dim] x topk entries, the experts of each token */
	int topk;    /* routes: the experts each token is routed to (1..SC_ROUTES_MAX_TOPK) */
	int len_dim2; /* routes NAME[a*b]: the tokens are a*b (len_dim a, len_dim2 b); -1 none */
	int seq_lo, seq_hi; /* expression nodes of the dims and the world (seq) */
	int multiple; /* `multiple=E`: every entry a multiple of E (expression node); -1 none */
	int line, col;
};

/* A case's counts: P x P row-major per declared matrix, a vector's
 * entries first (the rest 0). P is nonzero when the case has counts. */
struct sc_countv {
	int P;
	int32_t len[SC_MAX_COUNTS]; /* a sequences vector's entries (0 for the others) */
	int32_t v[SC_MAX_COUNTS][SC_COUNTS_MAX_LEN];
};

struct sc_sizehint {
	int lo, hi; /* expression nodes, -1 when none */
};

struct sc_spec {
	char name[SC_NAME_MAX * 2];
	char path[512];
	int ndims;
	char dim[SC_MAX_DIMS][SC_NAME_MAX];
	char world_sym[SC_NAME_MAX];
	struct sc_layout in, out;
	int nconds;
	struct sc_cond conds[SC_MAX_CONDS];
	int expect; /* -1 none, 0 pass, 1 fail */
	int torch;  /* the torch version whose rules the steps follow (sc_torch); 0: the default */
	struct sc_sizehint hint[SC_MAX_DIMS];
	int nsteps;
	int nnodes;
	struct sc_expr nodes[SC_MAX_NODES];
	int has_reduction; /* any reduce step or partial placement */
	int pads;          /* some step writes padding (`pad`): reductions treat it as absent */
	int ncounts;
	struct sc_countsdecl counts[SC_MAX_COUNTS];
	uint32_t derived_mask; /* dims whose size a `sizes=E` placement gives (not drawn) */
	/* layout specs: `reference` ... `end`, local steps on X on one device
	 * whose result Y (X's dims, other sizes) the output places; its named
	 * tensors are its own (name 0 is X) */
	int nrsteps;
	int nrtnames;
	/* named tensors (`tensor x = input`, `y = STEP x ...`, split, cat):
	 * name 0 is the input */
	int ntnames;
	int ref_line;
	/* compute specs */
	int compute;
	char micro_var[SC_NAME_MAX]; /* the index name of the microbatch block being parsed */
	char loop_var[SC_LOOP_NEST][SC_NAME_MAX]; /* the index names of the `for` loops open while parsing, */
	int loop_line[SC_LOOP_NEST];              /* outermost first, and their lines */
	int nloops;
	int ntensors;
	int out_tensor;
	int nref, nprog;
	uint32_t dtype_mask; /* `dtypes` declaration; 0: any */
	uint32_t sharded_mask; /* dims sharded by some placement (divisible by P) */
	uint32_t uneven_mask;  /* dims sharded by a chunk or split placement (any size) */
	uint32_t zigzag_mask;  /* dims sharded zigzag (divisible by 2P) */
	int varies; /* shapes may differ from rank to rank (uneven placements,
		     * per-rank expressions): every step is then run per rank */
	/* `mesh dp=D tp=T`: mesh dim names, their size symbols ("" when the
	 * size is fixed[m]) and ranges; a case holds the sizes after the dims,
	 * at the end of sizes[] (sc_spec_mesh_slot), and its world is their
	 * product */
	int nmesh, mesh_line;
	char mesh_dim[SC_MAX_MESH][SC_NAME_MAX];
	char mesh_sym[SC_MAX_MESH][SC_NAME_MAX];
	int mesh_fixed[SC_MAX_MESH];
	struct sc_sizehint mesh_hint[SC_MAX_MESH];
	/* `param NAME LO..HI`: integers drawn per case that are not dims (a
	 * stale head count, a number of experts, an offset), in a case's
	 * sizes[] before the mesh sizes (sc_spec_param_slot); drawn after the
	 * dims, so their ranges and requires may use the dims */
	int nparams;
	char param[SC_MAX_PARAMS][SC_NAME_MAX];
	struct sc_sizehint param_range[SC_MAX_PARAMS];
	int param_line[SC_MAX_PARAMS];
	/* the large arrays last: a spec is calloc'd, and a small one touches
	 * the pages of its scalars above and of its first steps only */
	struct sc_step steps[SC_MAX_STEPS];    /* nsteps of them */
	struct sc_step rsteps[SC_MAX_REF_STEPS]; /* nrsteps */
	char tname[SC_MAX_NAMED][SC_NAME_MAX]; /* ntnames */
	char rtname[SC_MAX_NAMED][SC_NAME_MAX]; /* nrtnames: the reference block's */
	struct sc_tdecl tensors[SC_MAX_TENSORS]; /* ntensors */
	struct sc_stmt ref[SC_MAX_STMTS], prog[SC_MAX_STMTS]; /* nref, nprog */
};

/* The case's mesh: the mesh sizes of a mesh spec (after the dims in
 * sizes[]), else a flat world of `world` ranks. */
/* Where mesh dim m's size lies in a case's sizes[]: after every dim a
 * case may have, whatever its number of dims (a built-in's varies). */
static inline int sc_spec_mesh_slot(const struct sc_spec *s, int m) { return SC_MAX_DIMS - s->nmesh + m; }
/* Parameter k's place in a case's sizes[]: after the dims, before the mesh sizes. */
static inline int sc_spec_param_slot(const struct sc_spec *s, int k) { return SC_MAX_DIMS - s->nmesh - s->nparams + k; }
/* The parameter at slot (-1: none). */
static inline int sc_spec_slot_param(const struct sc_spec *s, int slot)
{
	const int k = slot - (SC_MAX_DIMS - s->nmesh - s->nparams);
	return k >= 0 && k < s->nparams ? k : -1;
}

static inline struct sc_mesh sc_spec_mesh(const struct sc_spec *s, const int64_t *sizes, int world)
{
	if (!s->nmesh)
		return sc_mesh_flat(world);
	struct sc_mesh m = {s->nmesh, {0}};
	for (int d = 0; d < s->nmesh; d++)
		m.size[d] = (int)sizes[sc_spec_mesh_slot(s, d)];
	return m;
}

/* The side of a case's counts matrices: the size of their group (every
 * counts declaration of a spec takes the same one), else the world. */
static inline int sc_spec_counts_P(const struct sc_spec *s, const int64_t *sizes, int world)
{
	if (!s->ncounts || !s->counts[0].group.n) /* (a vector has none) */
		return world;
	const struct sc_mesh m = sc_spec_mesh(s, sizes, world);
	return sc_mesh_group_size(&m, &s->counts[0].group);
}

/* 1 when counts declaration k is a vector (micro-batches, sequences). */
static inline int sc_spec_counts_vec(const struct sc_spec *s, int k)
{
	return s->counts[k].len_dim >= 0 || s->counts[k].seq;
}

/* The experts each token of routes declaration k goes to (1 for others). */
static inline int sc_spec_topk(const struct sc_spec *s, int k)
{
	return s->counts[k].route && s->counts[k].topk > 1 ? s->counts[k].topk : 1;
}

/* The tokens of routes declaration k at sizes: its dim's size, or the
 * product of its two (`routes R[b*l]`), capped past SC_COUNTS_MAX_LEN. */
static inline int64_t sc_spec_tokens(const struct sc_spec *s, int k, const int64_t *sizes)
{
	const int64_t a = sizes[s->counts[k].len_dim], b = s->counts[k].len_dim2 >= 0 ? sizes[s->counts[k].len_dim2] : 1;
	return a > SC_COUNTS_MAX_LEN || b > SC_COUNTS_MAX_LEN ? SC_COUNTS_MAX_LEN + 1 : a * b;
}

/* 1 when the output's sizes= over dim places a reference's result, not
 * X's dim (a top-k reference copies tokens): it neither gives nor checks
 * the dim's size; derived dims are still given by it. */
static inline int sc_spec_out_sizes_over_ref(const struct sc_spec *s, int dim)
{
	return s->ref_line && !((s->derived_mask >> dim) & 1u);
}

/* The entries of counts declaration k in a case: P x P for a matrix, the
 * length of a vector (at most SC_COUNTS_MAX_LEN); cv the case's counts
 * (NULL: none drawn yet). */
static inline int sc_spec_counts_len(const struct sc_spec *s, int k, const int64_t *sizes, const struct sc_countv *cv)
{
	const int64_t n = s->counts[k].seq ? (cv ? cv->len[k] : 0)
			  : s->counts[k].route ? (sc_spec_tokens(s, k, sizes) > SC_COUNTS_MAX_LEN ? SC_COUNTS_MAX_LEN
											  : sc_spec_tokens(s, k, sizes) * sc_spec_topk(s, k))
			  : s->counts[k].len_dim >= 0 ? sizes[s->counts[k].len_dim]
						      : (int64_t)(cv ? cv->P : 0) * (cv ? cv->P : 0);
	return n < 0 ? 0 : n > SC_COUNTS_MAX_LEN ? SC_COUNTS_MAX_LEN : (int)n;
}

/* How counts declaration k is written in a case, for messages. */
static inline const char *sc_spec_counts_form(const struct sc_spec *s, int k)
{
	return s->counts[k].seq		  ? "a:b:..., one entry per sequence"
	       : s->counts[k].route && sc_spec_topk(s, k) > 1 ? "a:b/c:d, one row of topk experts per token"
	       : s->counts[k].route	   ? "a:b:..., one expert per token"
	       : s->counts[k].len_dim >= 0 ? "a:b:..., one entry per micro-batch"
					   : "a:b/c:d, world rows of world entries";
}

/* 1 when the spec draws routes (`routes NAME[t] LO..HI`). */
static inline int sc_spec_routes(const struct sc_spec *s)
{
	for (int k = 0; k < s->ncounts; k++)
		if (s->counts[k].route)
			return 1;
	return 0;
}

/* The `microbatches` declaration's index in counts[], or -1. */
static inline int sc_spec_micro(const struct sc_spec *s)
{
	for (int k = 0; k < s->ncounts; k++)
		if (s->counts[k].len_dim >= 0 && !s->counts[k].route)
			return k;
	return -1;
}

/* 1 when dim d is sharded by some placement (so divisible by the world). */
static inline int sc_spec_sharded(const struct sc_spec *s, int d) { return (s->sharded_mask >> d) & 1u; }

#endif
