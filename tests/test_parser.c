/* Parser tests: malformed specs each give "file:line:col: message". */
#include <stdlib.h>
#include <string.h>

#include "sc_expr.h"
#include "sc_spec.h"
#include "sc_test.h"

#define OK_HDR "dims s b\ninput shard s\noutput shard s\n"
/* a compute spec up to its program block; the next line is line 7 */
#define C_HDR "dims b h\ntensor x [b, h] replicate\noutput y [b, h] replicate\nreference\ny = x\nprogram\n"
/* a compute spec with micro-batches up to its program block; the next line is line 8 */
#define M_HDR "dims g n\nmicrobatches N[g] n 1..4\ntensor x [n] replicate\noutput y [n] replicate\nreference\ny = x\nprogram\n"
/* the rest of a compute spec with micro-batches */
#define M_REST "tensor x [n] replicate\noutput y [n] replicate\nreference\ny = x\nprogram\nmicrobatch k\nend\ny = x\n"

static const struct {
	const char *text;
	const char *loc; /* "line:col" */
	const char *msg;
} bad[] = {
	{"input shard s\noutput shard s\n", "3:1", "missing 'dims'"},
	{"dims s\noutput shard s\n", "3:1", "missing 'input'"},
	{"dims s\ninput shard s\n", "3:1", "missing 'output'"},
	{"dims s s\ninput replicate\noutput replicate\n", "1:8", "duplicate dim name 's'"},
	{"dims\ninput replicate\noutput replicate\n", "1:5", "at least one dim"},
	{"dims a b c d e f g h i\n", "1:22", "too many dims"},
	{OK_HDR "dims t\n", "4:1", "duplicate 'dims'"},
	{OK_HDR "input replicate\n", "4:1", "duplicate 'input'"},
	{"dims s\ninput shard q\noutput replicate\n", "2:13", "unknown dim 'q'"},
	{"dims s\ninput scatter s\noutput replicate\n", "2:7", "unknown placement 'scatter'"},
	{"dims s\ninput partial avg\noutput replicate\n", "2:15", "unknown reduction op 'avg'"},
	{"dims s b\ninput replicate as s\noutput replicate\n", "2:20", "dim 'b' is missing"},
	{"dims s b\ninput replicate as s s\noutput replicate\n", "2:22", "appears twice"},
	{"dims s b\ninput shard b chnk\noutput replicate\n", "2:15", "expected 'as', 'only' or end of line, got 'chnk'"},
	{"dims s b\ninput replicate as (s b\noutput replicate\n", "2:20", "unclosed '('"},
	{"dims s b\ninput replicate as s b)\noutput replicate\n", "2:23", "unbalanced ')'"},
	{OK_HDR "frobnicate 1\n", "4:1", "unknown declaration or step 'frobnicate'"},
	{OK_HDR "reshape s, b\n", "4:9", "expected '['"},
	{OK_HDR "reshape [s, b\n", "4:14", "expected ']'"},
	{OK_HDR "reshape [s b]\n", "4:12", "expected ',' or ']'"},
	{OK_HDR "reshape [s, ]\n", "4:13", "expected an expression"},
	{OK_HDR "reshape [s, (b + 1]\n", "4:19", "expected ')'"},
	{OK_HDR "reshape [s, q]\n", "4:13", "unknown name 'q'"},
	{OK_HDR "transpose 0\n", "4:12", "expected a dim"},
	{OK_HDR "transpose 0 x\n", "4:13", "expected a dim (an integer), got 'x'"},
	{OK_HDR "transpose 0 1 2\n", "4:15", "unexpected '2'"},
	{OK_HDR "contiguous now\n", "4:12", "unexpected 'now'"},
	{OK_HDR "chunk_cat chunk=0\n", "4:18", "expected 'cat='"},
	{OK_HDR "chunk_cat chunk 0 cat=1\n", "4:17", "expected '=' after 'chunk'"},
	{OK_HDR "all_reduce\n", "4:11", "expected a reduction op"},
	{OK_HDR "all_reduce mean\n", "4:12", "unknown reduction op 'mean'"},
	{OK_HDR "reduce_scatter dim=1\n", "4:21", "expected 'op='"},
	{OK_HDR "all_to_all split=0\n", "4:19", "expected 'concat='"},
	{OK_HDR "all_to_all_single fast\n", "4:19", "unexpected 'fast'"},
	{OK_HDR "require s > \n", "4:13", "expected an expression"},
	{OK_HDR "require s = 2\n", "4:11", "use '=='"},
	{OK_HDR "require s > 1 or b\n", "4:18", "expected a comparison"},
	{OK_HDR "require rank == 0\n", "4:9", "a require holds for the whole case: 'rank'"},
	{OK_HDR "sizes s=1..size(0)\n", "4:12", "a size range holds for the whole case: 'size()'"},
	{OK_HDR "require s < b < 4\n", "4:15", "chained comparison"},
	{OK_HDR "require s + (b > 1) > 0\n", "4:16", "a condition where a number is expected"},
	{OK_HDR "reshape [s if b > 1, b]\n", "4:20", "expected 'else'"},
	{OK_HDR "reshape [cdiv(s), b]\n", "4:16", "cdiv takes 2 arguments: expected ','"},
	{OK_HDR "reshape [foo(s, b), b]\n", "4:10", "unknown function 'foo'"},
	{OK_HDR "counts C 0..2\nrequire C(0, 0) == 0\n", "5:9", "decided before the counts are drawn"},
	{OK_HDR "counts C 0..2\nreshape [rowsum(D, 0), b]\n", "5:10", "unknown counts matrix 'D'"},
	{OK_HDR "counts C 0\n", "4:11", "expected '..'"},
	{OK_HDR "narrow 0 0 s // P\n", "4:14", "a space ends a positional argument"},
	{OK_HDR "shift 1 * rank\n", "4:9", "a space ends a positional argument"},
	{OK_HDR "all_to_all_single splits=1 if src == dst else 0\n", "4:28", "a space ends a positional argument"},
	{"dims s b h\ninput shard (s h) chunk as (s h) b\noutput replicate\n", "2:16", "merges consecutive dims of X in their order"},
	{"dims s b\ninput shard (s b) as (s b)\noutput replicate\n", "2:14", "a merged group shards with chunk or split"},
	{"dims s b\ninput shard (s b) chunk\noutput replicate\n", "2:14", "needs the same group in its 'as' layout"},
	{"dims s b\ninput shard (s) chunk\noutput replicate\n", "2:17", "merges two or more dims"},
	{"dims t h\ncounts C 0..2\ninput shard t sizes=rowsum(C,r)+t\noutput replicate\n", "3:33", "sizes= may not use 't'"},
	{OK_HDR "expect maybe\n", "4:8", "expected 'fail' or 'pass'"},
	{OK_HDR "sizes s=1..\n", "4:12", "expected an expression"},
	{OK_HDR "sizes s 1..4\n", "4:9", "expected '='"},
	{OK_HDR "sizes q=1..4\n", "4:7", "unknown dim 'q'"},
	{OK_HDR "sizes s=1-4\n", "4:12", "expected '..'"},
	{OK_HDR "sizes s=1..b\n", "4:12", "may only use the world and earlier dims"},
	{OK_HDR "reshape [s; b]\n", "4:11", "unexpected character ';'"},
	{OK_HDR "reshape [99999999999999999999]\n", "4:10", "integer too large"},
	{"dims P\ninput replicate\noutput replicate\n", "1:1", "world symbol 'P' is also a dim name"},
	{OK_HDR "pipeline\n", "4:1", "expected a pipeline name"},
	{OK_HDR "world\n", "4:6", "expected a world-size symbol"},
	{OK_HDR "expect fail\nexpect pass\n", "5:1", "duplicate 'expect'"},
	/* torch versions (sc_torch) */
	{OK_HDR "torch 2.5\ntorch 2.6\n", "5:1", "duplicate 'torch' declaration"},
	{OK_HDR "torch 1.2\n", "4:7", "older than the oldest version whose rules are known (1.13)"},
	{OK_HDR "torch two\n", "4:7", "expected a torch version after 'torch'"},
	{OK_HDR "torch 2.x\n", "4:7", "malformed number"},
	{OK_HDR "unsqueeze 100\n", "4:11", "out of range"},
	/* numbers and compute constants */
	{C_HDR "y = scale x 0.5x\n", "7:13", "malformed number '0.5x'"},
	{C_HDR "y = scale x 1e\n", "7:13", "malformed number '1e'"},
	{C_HDR "y = scale x 2e+\n", "7:13", "malformed number '2e+'"},
	{C_HDR "y = scale x 1.5.2\n", "7:13", "malformed number '1.5.2'"},
	{C_HDR "y = scale x\n", "7:12", "expected a number (scale A C)"},
	{C_HDR "y = scale x 1/sqrt(q)\n", "7:20", "unknown name 'q'"},
	{OK_HDR "sizes s=1.5..4\n", "4:9", "expected an integer, got '1.5'"},
	{OK_HDR "reshape [sqrt(s), b]\n", "4:10", "sqrt() is allowed in compute constants only"},
	{C_HDR "y = add x\n", "7:10", "expected a tensor or a constant (add A B|C)"},
	{C_HDR "y = softmax x\n", "7:14", "expected 'dim='"},
	{C_HDR "y = layernorm x eps=\n", "7:21", "expected an expression"},
	{C_HDR "y = layernorm x w\n", "7:17", "unexpected 'w' (layernorm A [W [B]] [eps=C])"},
	{C_HDR "y = gelu x\n", "7:11", "gelu needs its form"},
	/* per-rank statements */
	{"dims b h\ntensor x [b, h] replicate\noutput y [b, h] replicate\nreference\ny = scale x 2 when rank == 0\n",
	 "5:15", "the reference runs on one device: no 'when'"},
	{"dims b h\ntensor x [b, h] replicate\noutput y [b, h] replicate\nreference\ny = scale x 1/(rank+1)\n",
	 "5:16", "the reference runs on one device: no 'rank'"},
	{C_HDR "y = x\ny: all_reduce sum when rank == 0\n", "8:19", "'when' on a collective: every rank of its group runs 'all_reduce'"},
	{C_HDR "y = x\ny: flip 0 when rank == 0 and\n", "8:29", "expected"},
	{C_HDR "y = tril x fill=-inf\n", "7:17", "fill takes a finite number"},
	{C_HDR "y = tril x diagonal=0.5\n", "7:21", "expected an integer"},
	{C_HDR "y = triu x fill=1 bogus\n", "7:19", "unexpected 'bogus' (triu A [diagonal=E] [fill=C])"},
	{C_HDR "t = scale x 2 when rank == 0\n", "7:1", "'t' needs a value on every rank before a statement with 'when'"},
	/* index tensors */
	{"dims b v\ntensor i [b] replicate index v\noutput y [b] replicate\nreference\ny = exp i\n", "5:9",
	 "'i' holds indices"},
	{"dims b v\ntensor i [b] replicate index q\n", "2:30", "index needs a dim name"},
	{"dims b v\ntensor x [b, v] replicate\noutput y [b] replicate\nreference\ny = pick x x\n", "5:12",
	 "'x' is not an index tensor"},
	{"dims b v\noutput y [b] replicate index v\n", "2:24", "cannot be an index tensor"},
	/* micro-batches (M_HDR: g micro-batches of n; the next line is line 8) */
	{M_HDR "microbatch k\ny = x\n", "8:1", "this microbatch block has no 'end'"},
	{M_HDR "end\n", "8:1", "'end' without a 'microbatch' block"},
	{"dims b h\ntensor x [b, h] replicate\noutput y [b, h] replicate\nreference\ny = x\nend\nprogram\ny = x\n", "6:1",
	 "'end': a compute spec's reference has none (the 'program' line ends it)"},
	{M_HDR "microbatch k\nmicrobatch j\nend\nend\n", "9:1", "cannot hold another (line 8 opens one)"},
	{M_HDR "microbatch n\nend\n", "8:12", "the micro-batch's index name"},
	{M_HDR "microbatch\nend\n", "8:11", "the micro-batch's index name"},
	{M_HDR "microbatch k\nend\ny = scale x 1/N(k)\n", "10:17", "unknown name 'k'"},
	{M_HDR "microbatch k\ny = scale x 1/N(k, 0)\nend\n", "9:15", "'N' is a vector: one index, N(k)"},
	{M_HDR "microbatch k\ny = scale x 1/rowsum(N, 0)\nend\n", "9:15", "'N' is a vector: write N(k)"},
	{"dims g n\nmicrobatches N[g] n 1..4\ntensor x [n] replicate\noutput y [] replicate\nreference\n"
	 "microbatch k\n", "6:1", "the reference computes the whole batch"},
	{"dims g n\ntensor x [n] replicate\noutput y [] replicate\nreference\ny = sum x dim=0\nprogram\n"
	 "microbatch k\n", "7:1", "needs a 'microbatches NAME[g] n LO..HI' declaration"},
	{"dims g n\nmicrobatches N[g] n 1..4\ntensor x [n] replicate\noutput y [] replicate\nreference\n"
	 "y = sum x dim=0\nprogram\ny = sum x dim=0\n", "2:14", "the program has no 'microbatch' block"},
	{"dims g n\nmicrobatches N[g] n 1..n\n" M_REST, "2:24", "the range of N may not use 'n'"},
	{"dims g n\nmicrobatches N[g] n 1..4\nsizes n=1..4\n" M_REST, "3:1", "it takes no sizes range"},
	{"dims g n\nmicrobatches N[g] g 1..4\n", "2:19", "a dim other than their number"},
	{"dims g n\nmicrobatches N[q] n 1..4\n", "2:16", "the number of micro-batches, a dim"},
	{"dims g n\nmicrobatches n[g] n 1..4\n", "2:14", "'n' is a dim name"},
	{"dims g n\nmicrobatches N[g] n 1..4\nmicrobatches M[g] n 1..4\n", "3:1", "duplicate 'microbatches'"},
	{"dims g n\nmicrobatches N[g] n 1..4\ntensor z [n] shard n\n" M_REST, "2:14", "may not be sharded over it"},
	{"dims g n\nmicrobatches N[g] n 1..4\ninput replicate\noutput replicate\n", "2:14", "microbatches are for compute specs"},
	/* sequences: a layout spec's packed rows */
	{"dims n h\nsequences L[0..3] n 0..8\nsequences M[0..3] n 0..8\n", "3:1", "duplicate 'sequences' declaration (line 2"},
	{"dims n h\nsequences L n 0..8\n", "2:13", "expected '[' and how many sequences, A..B"},
	{"dims n h\nsequences L[3] n 0..8\n", "2:14", "the number of sequences is a range, A..B"},
	{"dims n h\nsequences L[0..3 n 0..8\n", "2:18", "expected ']'"},
	{"dims n h\nsequences L[0..3] q 0..8\n", "2:19", "the dim the sequences are packed into"},
	{"dims n h\nsequences n[0..3] n 0..8\n", "2:11", "'n' is a dim name"},
	{"dims n h\nsequences L[0..3] n 0..n\ninput replicate\noutput replicate\n", "2:24", "the range of L may not use 'n'"},
	{"dims n h\nsequences L[0..3] n 0..8 multiple=2*n\ninput replicate\noutput replicate\n", "2:37",
	 "the range of L may not use 'n'"},
	{"dims n h\nsequences L[0..3] n 0..8\nsizes n=1..4\ninput replicate\noutput replicate\n", "3:1",
	 "'n' is the sum of the sequences' L: it takes no sizes range"},
	{"dims n h\nsequences L[0..rank] n 0..8\ninput replicate\noutput replicate\n", "2:16",
	 "the number of sequences holds for the whole case: 'rank'"},
	{"dims n h\nsequences L[0..3] n 0..8 multiple=size(0)\ninput replicate\noutput replicate\n", "2:35",
	 "a multiple= holds for the whole case: 'size()'"},
	{"dims n h\ncounts C 0..2\ninput replicate\noutput replicate\nnarrow 0 0 len(C)\n", "5:12",
	 "len() takes a vector's name ('C' is a matrix)"},
	{"dims n h\nsequences L[0..3] n 0..8\ninput replicate\noutput replicate\nnarrow 0 0 len(L, 1)\n", "5:17",
	 "len takes one argument"},
	{"dims n h\nsequences L[0..3] n 0..8\ninput replicate\noutput replicate\nrequire len(L) > 0\n", "5:9",
	 "a require is decided before the counts are drawn: 'L'"},
	{"dims n h\nmicrobatches N[h] n 1..4\ninput replicate\noutput replicate\n", "2:14",
	 "a layout spec's packed rows are 'sequences NAME[A..B] n LO..HI'"},
	/* param: drawn integers that are not dims */
	{"dims t h\nparam E 1..4\nparam E 1..2\n", "3:7", "duplicate parameter 'E'"},
	{"dims t h\nparam 3 1..2\n", "2:7", "expected a name after 'param' (param NAME LO..HI)"},
	{"dims t h\nparam E 1 4\n", "2:11", "expected '..' in parameter E's range (param E LO..HI)"},
	{"dims t h\nparam E 1..4 x\n", "2:14", "unexpected 'x' after parameter E's range"},
	{"dims t h\nparam t 1..4\ninput replicate\noutput replicate\n", "2:1",
	 "parameter 't' has the name of a dim, a mesh name, the world or 'rank'"},
	{"dims t h\nparam E 1..rank\ninput replicate\noutput replicate\n", "2:12",
	 "a parameter's range holds for the whole case: 'rank'"},
	{"dims t h\nparam E 1..F\nparam F 1..2\ninput replicate\noutput replicate\n", "2:12",
	 "parameter E's range may only use the world, the dims and earlier parameters"},
	{"dims t h\nparam E 1..4\nsizes t=E..8\ninput replicate\noutput replicate\n", "3:9",
	 "size range of 't' may only use the world and earlier dims"},
	{"dims a b c d e f g\nparam E 1..4\nparam F 1..4\ninput replicate\noutput replicate\n", "2:1",
	 "dims, parameters and mesh dims are 9 together, at most 8"},
	/* routes: the expert of each token */
	{"dims t h\nroutes R t 0..3\n", "2:10", "expected '[' and the dim of the tokens routed"},
	{"dims t h\nroutes R[q] 0..3\n", "2:10", "the dim of the tokens routed, a dim"},
	{"dims t h\nroutes R[t] 0 3\n", "2:15", "expected '..' in routes NAME[t] LO..HI [topk=K], t a dim or two (b*l) (the experts)"},
	{"dims t h\nroutes R[t] 0..rank\ninput replicate\noutput replicate\n", "2:16",
	 "a counts range holds for the whole case: 'rank'"},
	{"dims t h\nroutes R[t] 0..3\ninput replicate\noutput replicate\nsort_by Q dim=0\n", "5:9",
	 "expected the name of a routes declaration (routes R[t] LO..HI) after 'sort_by'"},
	{"dims t h\ncounts C 0..3\ninput replicate\noutput replicate\nsort_by C dim=0\n", "5:9",
	 "expected the name of a routes declaration"},
	{"dims t h\nroutes R[t] 0..3\ninput replicate\noutput replicate\nsort_by R 0\n", "5:11", "dim="},
	{"dims t h\nroutes R[t] 0..3\ninput replicate\noutput replicate\nselect R dim=0 experts=1\n", "5:25",
	 "expected '..' (experts=A..B, B included)"},
	{"dims t h\nroutes R[t] 0..3\ninput replicate\noutput replicate\nselect R dim=0 0..1\n", "5:16",
	 "expected 'experts=A..B'"},
	{"dims t h\ncounts C 0..3\ninput replicate\noutput replicate\nnarrow 0 0 routed(C, 0, 1, 0)\n", "5:12",
	 "routed() takes a routes vector's name ('C' is not one"},
	{"dims t h\nroutes R[t] 0..3\ninput replicate\noutput replicate\nnarrow 0 0 routed(R, 0, 1)\n", "5:26",
	 "routed takes 4 arguments"},
	/* top-k routes: K distinct experts a token */
	{"dims t h\nroutes R[t] 0..3 topk=0\n", "2:23", "expected topk=K, K a number in 1..16"},
	{"dims t h\nroutes R[t] 0..3 topk=P\n", "2:23", "expected topk=K, K a number in 1..16"},
	{"dims t h\nroutes R[t] 0..3 topk=17\n", "2:23", "expected topk=K, K a number in 1..16"},
	{"dims t h\nroutes R[t] 0..3 topk=2 x\n", "2:25", "unexpected 'x' at end of line"},
	{"dims t h\nroutes R[t] 0..3 topk=2\ninput replicate\noutput replicate\nnarrow 0 0 R(0)\n", "5:12",
	 "'R' routes each token to topk=2 experts: two indices, R(q, j), token q's j-th"},
	{"dims b l\nroutes R[b*b] 0..3\n", "2:12", "the tokens routed are two different dims (b*l), not 'b' twice"},
	/* groups of listed ranks */
	{"dims s h\ninput shard s\noutput shard s\nall_reduce sum group=[0, rank]\n", "4:26",
	 "a group's list of ranks holds for the whole case: 'rank'"},
	{"dims s h\ninput shard s\noutput shard s\nall_reduce sum group=[]\n", "4:22", "a group lists at least one rank"},
	{"dims s h\ninput shard s\noutput shard s\nall_reduce sum group=[0 1]\n", "4:25", "expected ',' or ']'"},
	{"dims s h\ninput shard s\noutput shard s\nall_reduce sum group=tp\n", "4:16",
	 "group= names mesh dims (declare 'mesh' before this step) or lists ranks: group=[0, P-1]"},
	{"dims s h\nmesh pp=A dp=B\ninput shard s\noutput shard s\nall_reduce sum group=pp [0]\n", "5:25",
	 "expected the ranks right after the mesh dims (group=pp[0, PP-1])"},
	{"dims s h\ninput shard s\noutput shard s\nnarrow 0 0 1 group=[0]\n", "4:14", "'narrow' runs on each rank alone: it takes no group="},
	/* `when` after a layout step: local steps only, not in the reference */
	{"dims s h\ninput shard s\noutput shard s\nall_reduce sum when rank == 0\n", "4:16", "'when' on a collective: every rank of its group runs 'all_reduce'"},
	{"dims s h\ninput shard s\noutput shard s\nshift 1 when rank == 0\n", "4:9", "'when' on a collective"},
	{"dims s h\ninput shard s\noutput shard s\ntensor x = input\na, b = split x [1, 1] dim=0 when rank == 0\n", "5:29",
	 "'split' joins or divides named tensors on every rank: it takes no 'when'"},
	{"dims s h\ninput shard s\noutput shard s\nflip 0 when\n", "4:12", "expected"},
	{"dims s h\ninput replicate\noutput replicate\nreference\nflip 0 when rank == 0\nend\n", "5:1", "the reference runs on one device: no 'when'"},
	{"dims b l\nroutes R[b*q] 0..3\n", "2:12", "expected a second dim of the tokens routed"},
	{"dims b l\nroutes R[b*l] 0..3\ninput shard b sizes=2\noutput replicate\n", "2:8",
	 "the dims of R's tokens are drawn: a sizes= placement may not give them"},
	/* compute placements on a mesh: entries over the tensor's own dims */
	{"dims b k\nmesh dp=D tp=T\ntensor x [b] tp:shard k\n", "3:23", "unknown dim 'k'"},
	{"dims b k\nmesh dp=D tp=T\ntensor x [b, k] tp:partial max\n", "3:20", "partial sum only"},
	{"dims b k\nmesh dp=D tp=T\ntensor x [b, k] tp:shard k zigzag\n", "3:20", "sharded evenly, or by chunk or split (one dim per entry)"},
	{"dims b k\nmesh dp=D tp=T\ntensor x [b, k] tp:shard k as k b\n", "3:17", "takes no 'as' or 'shape'"},
	{"dims b k\nmesh dp=D tp=T\ntensor x [b, k] pp:shard k\n", "3:17", "pp"},
	{M_HDR "microbatch k\ny = x\ny: narrow 0 0 k\nend\n", "10:15", "unknown name 'k'"},
	{M_HDR "y += q\n", "8:6", "unknown tensor 'q'"},
	{M_HDR "x += x\n", "8:1", "'x' is an input tensor"},
	/* a layout spec's reference block: its own named tensors, no collectives */
	{OK_HDR "reference\ny = all_gather X\nend\n", "5:5", "'all_gather' in the reference: the reference runs on one device"},
	{OK_HDR "reference\ncat X X dim=0\nend\n", "5:1", "'cat' names its result: write Y = cat a b dim=i"},
	{OK_HDR "reference\ny = narrow Z 0 0 1\nend\n", "5:12", "unknown tensor 'Z'"},
	{OK_HDR "reference\na = narrow X 0 0 1\nend\ny = cat a a dim=0\n", "7:9", "unknown tensor 'a'"},
	{"dims s b\ninput shard s\noutput shard s\ntensor x = input\nreference\ny = narrow x 0 0 1\nend\n", "6:12",
	 "unknown tensor 'x'"},
	/* += takes when, as = does */
	{C_HDR "z += x when rank == 0\n", "7:1", "'z' needs a value on every rank before a statement with 'when'"},
	{"dims b h\ntensor x [b, h] replicate\noutput y [b, h] replicate\nreference\ny = x\ny += x when rank == 0\n", "6:8",
	 "the reference runs on one device: no 'when'"},
	/* compute placements: X's forms, less as, shape, zigzag, sizes=; only on the output */
	{"dims b h\ntensor x [b, h] shard h zigzag\n", "2:17", "sharded evenly, or by chunk or split"},
	{"dims b h\ntensor x [b, h] replicate only 0\n", "2:17", "'only' is for the output"},
	{"dims b h\ntensor x [b, h] replicate as h b\n", "2:17", "takes no 'as' or 'shape'"},
	{"dims b h\ntensor x [b, h] shard (b h) chunk\n", "2:17", "sharded evenly, or by chunk or split (one dim, not a merged group)"},
	{"dims b h\ntensor x [b, h]\n", "2:16", "expected a placement"},
	/* for loops: whole-case ranges, no nesting, closed, an index of their own */
	{OK_HDR "for i in 0..rank\nend\n", "4:13", "a loop's range holds for the whole case: 'rank'"},
	{OK_HDR "for a in 0..1\nfor c in 0..1\nfor d in 0..1\nfor e in 0..1\nfor f in 0..1\nend\nend\nend\nend\nend\n", "8:1",
	 "loops nest at most 4 deep (line 7 opens the innermost)"},
	{OK_HDR "for i in 0..2\nfor i in 0..1\nend\nend\n", "5:5", "'i' is the index of the loop that line 4 opens"},
	{OK_HDR "for i in 0..2\nfor j in 0..1\nend\n", "4:1", "the 'for' loop has no 'end'"},
	{OK_HDR "for i in 0..2\nflip 0\n", "4:1", "the 'for' loop has no 'end'"},
	{OK_HDR "end\n", "4:1", "'end' without a 'for' loop to close"},
	{OK_HDR "for s in 0..2\nend\n", "4:5", "expected the loop's index name after 'for'"},
	{OK_HDR "for i 0..2\nend\n", "4:7", "expected 'in'"},
	{OK_HDR "for i in 0 2\nend\n", "4:12", "expected '..'"},
	{OK_HDR "for i in 0..2\nreference\nend\n", "5:1", "a reference block cannot sit inside a loop"},
	{C_HDR "y: for i in 0..1\n", "7:4", "'for' is a line of its own in a compute program"},
	{C_HDR "for i in 0..rank\ny = x\nend\n", "7:13", "a loop's range holds for every rank: 'rank'"},
	{C_HDR "for i in 0..1\ny = x\n", "7:1", "the 'for' loop has no 'end'"},
	{M_HDR "for i in 0..1\nmicrobatch k\nend\nend\n", "9:1", "a microbatch block cannot sit inside a loop (line 8 opens one)"},
	/* sum(E for j in LO..HI) */
	{OK_HDR "narrow 0 0 sum(j)\n", "4:12", "sum takes a comprehension: sum(E for j in LO..HI)"},
	{OK_HDR "narrow 0 0 sum(sum(sum(sum(sum(1 for m in 0..1) for l in 0..1) for k in 0..1) for i in 0..1) for j in 0..1)\n",
	 "4:28", "sums nest at most 4 deep"},
	{OK_HDR "narrow 0 0 sum(j for j 0..1)\n", "4:24", "expected 'in'"},
	{OK_HDR "narrow 0 0 sum(j for j in 0 1)\n", "4:29", "expected '..'"},
	{OK_HDR "require sum(rank for j in 0..s) < 9\n", "4:13", "a require holds for the whole case: 'rank'"},
	{OK_HDR "narrow 0 0 j\n", "4:12", "unknown name 'j'"},
	/* buffers */
	{OK_HDR "write x x dim=0 start=0\n", "4:1", "'write' names its result: write buf = write buf t dim=i start=E"},
	{OK_HDR "tensor x = input\ny = write x z dim=0 start=0\n", "5:13", "unknown tensor 'z'"},
	{OK_HDR "tensor x = input\ny = write x x dim=0\n", "5:20", "expected 'start='"},
	{OK_HDR "zeros 4\n", "4:7", "expected '[' and the buffer's shape after 'zeros'"},
};

int main(void)
{
	struct sc_spec *s = malloc(sizeof *s);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct sc_err e;
		sc_err_clear(&e);
		enum sc_status st = sc_spec_parse(bad[i].text, "bad.sc", s, &e);
		char want[64];
		snprintf(want, sizeof want, "bad.sc:%s: ", bad[i].loc);
		T_CHECK(st == SC_E_SPEC, "case %zu: status %d for:\n%s", i, st, bad[i].text);
		T_CHECK(strncmp(e.msg, want, strlen(want)) == 0, "case %zu: want location %s, got: %s", i, want, e.msg);
		T_CHECK(strstr(e.msg, bad[i].msg) != NULL, "case %zu: want '%s', got: %s", i, bad[i].msg, e.msg);
	}
	/* well-formed specs parse, with every declaration */
	const char *good =
		"pipeline ulysses-head2seq # comment\n"
		"dims s b h d\nworld W\ninput shard h\noutput shard s as s b (h d)\n"
		"require b >= 1 and s % W == 0\nexpect fail\nsizes s=W..4*W b=1..3\n"
		"reshape [W, s/W, b, h/W, d]\nall_to_all_single\ntranspose 0 2\nreshape [s/W, b, h, d]\n"
		"view [-1]\nflatten 0 0\nunsqueeze -1\nsqueeze 0\nmovedim 0 -1\nchunk_cat chunk=0 cat=1\n"
		"permute 0 1\ncontiguous\nall_gather_into_tensor raw\nreduce_scatter_tensor max\n"
		"all_reduce prod raw\nall_to_all split=0 concat=1\nall_gather dim=1\nreduce_scatter dim=0 op=min\n";
	struct sc_err e;
	enum sc_status st = sc_spec_parse(good, "good.sc", s, &e);
	T_CHECK(st == SC_OK, "good spec: %s", e.msg);
	T_CHECK(strcmp(s->name, "ulysses-head2seq") == 0, "name %s", s->name);
	T_CHECK(s->ndims == 4 && s->nsteps == 18 && s->nconds == 2 && s->expect == 1, "counts");
	T_CHECK(s->out.ngroups == 3 && s->out.group_len[2] == 2, "merged group");
	T_CHECK(s->steps[14].raw == 1 && s->has_reduction, "raw flag and reduction");
	/* real constants: every spelling, and expressions of sizes */
	const char *reals = "dims b h d\ntensor x [b, h] replicate\noutput y [b, h] replicate\nsizes b=1..4\n"
			    "reference\ny = scale x 0.5\nprogram\ny = scale x 5e-1\ny = scale y .5\ny = scale y 1.\n"
			    "y = scale y 2.5E+2\ny = scale y 1/sqrt(d)\ny = scale y 1/P\ny = add y -1e-6\n"
			    "y = scale y 7 // 2 + 0.25\n";
	st = sc_spec_parse(reals, "reals.sc", s, &e);
	T_CHECK(st == SC_OK, "real constants: %s", e.msg);
	static const double want[] = {0.5, 0.5, 0.5, 1.0, 250.0, 0.25, 1.0 / 3, -1e-6, 3.25};
	const int64_t sizes[SC_MAX_DIMS] = {2, 3, 16};
	for (int i = 0; st == SC_OK && i < 9; i++) {
		const struct sc_stmt *q = i ? &s->prog[i - 1] : &s->ref[0];
		struct sc_expr_env v = sc_expr_env_global(sizes, 3);
		double r = 0;
		T_CHECK(sc_expr_eval_real(s, q->scalar, &v, &r, &e) == SC_OK && r == want[i], "constant %d: %g, want %g", i,
			r, want[i]);
	}
	T_CHECK(st == SC_OK && s->hint[0].lo >= 0, "sizes b=1..4 still a range");
	/* sequences: the vector, its length drawn; a loop over them reads L(j),
	 * len(L) and the loop's index in a named step */
	const char *seqs = "dims n h\nsequences L[1..3] n 0..8 multiple=2*P\ninput replicate\noutput replicate\n"
			   "tensor x = input\nfor j in 0..len(L)-1\n  a = narrow x 0 sum(L(q) for q in 0..j-1) L(j)\nend\n";
	st = sc_spec_parse(seqs, "seqs.sc", s, &e);
	T_CHECK(st == SC_OK && s->ncounts == 1 && s->counts[0].seq && s->counts[0].len_dim == -1 &&
			s->counts[0].sum_dim == 0 && s->counts[0].multiple >= 0 && (s->derived_mask & 1u) && sc_spec_micro(s) < 0,
		"sequences parsed: %s", st == SC_OK ? "" : e.msg);
	if (st == SC_OK) {
		struct sc_countv cv = {.P = 2, .len = {3}, .v = {{4, 0, 8}}};
		const int64_t ssizes[SC_MAX_DIMS] = {12, 1};
		int64_t ln = -1;
		struct sc_expr_env v = sc_expr_env_global(ssizes, 2);
		v.counts = &cv;
		int lenx = -1;
		for (int i = 0; i < s->nnodes; i++)
			if (s->nodes[i].kind == SC_EX_COUNTLEN)
				lenx = i;
		T_CHECK(lenx >= 0 && sc_expr_eval_in(s, lenx, &v, &ln, &e) == SC_OK && ln == 3, "len(L) = %lld, want 3",
			(long long)ln);
		T_CHECK(sc_spec_counts_len(s, 0, ssizes, &cv) == 3 && cv.v[0][2] == 8, "three sequences");
	}
	/* micro-batches: two blocks, each with its index, N(k) read per micro-batch */
	const char *micro = "dims g n\nmicrobatches N[g] n 1..4\ntensor x [n] replicate\noutput y [] replicate\n"
			    "reference\ny = sum x dim=0\nprogram\nmicrobatch k\na = sum x dim=0\na = scale a 1/N(k)\n"
			    "y += a\nend\nmicrobatch j\nb = scale a N(j)\ny += b\nend\n";
	st = sc_spec_parse(micro, "micro.sc", s, &e);
	T_CHECK(st == SC_OK, "micro-batches: %s", e.msg);
	const int mb = sc_spec_micro(s);
	T_CHECK(st == SC_OK && mb == 0 && s->counts[0].len_dim == 0 && s->counts[0].sum_dim == 1 &&
			(s->derived_mask & 2u) && s->nprog == 9 && s->prog[0].op == SC_C_MICRO && s->prog[0].step == 4 &&
			s->prog[3].op == SC_C_ACC && s->prog[5].step == 8 && s->prog[8].op == SC_C_END,
		"micro-batch blocks parsed");
	if (st == SC_OK) {
		struct sc_countv cv = {.P = 1, .v = {{3, 1}}};
		const int64_t msizes[SC_MAX_DIMS] = {2, 4};
		struct sc_expr_env v = sc_expr_env_global(msizes, 1);
		v.counts = &cv;
		v.bound = 1u << SC_VAR_K;
		v.var[SC_VAR_K] = 1;
		double r = 0;
		T_CHECK(sc_expr_eval_real(s, s->prog[6].scalar, &v, &r, &e) == SC_OK && r == 1, "N(j) at j = 1: %g", r);
		v.var[SC_VAR_K] = 0;
		T_CHECK(sc_expr_eval_real(s, s->prog[2].scalar, &v, &r, &e) == SC_OK && r == 1.0 / 3, "1/N(k) at k = 0: %g", r);
	}
	printf("%zu malformed specs checked\n", sizeof bad / sizeof bad[0]);
	free(s);
	T_DONE();
}
