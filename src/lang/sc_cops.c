/* sc_cops: the compute op table. */
#include "sc_cops.h"

#include <string.h>

#include "sc_celem.h"
#include "sc_clookup.h"
#include "sc_creduce.h"

#define RED (SC_COP_DIM | SC_COP_KEEPDIM)

static const struct sc_cop_def table[] = {
	{"matmul", SC_C_MATMUL, 2, 2, SC_COP_SAME, sc_creduce_matmul, "matmul A B"},
	{"linear", SC_C_LINEAR, 2, 3, SC_COP_SAME, sc_creduce_linear, "linear A W [BIAS]"},
	{"add", SC_C_ADD, 1, 2, SC_COP_CONST_B, sc_celem_binary, "add A B|C"},
	{"sub", SC_C_SUB, 1, 2, SC_COP_CONST_B, sc_celem_binary, "sub A B|C"},
	{"mul", SC_C_MUL, 1, 2, SC_COP_CONST_B, sc_celem_binary, "mul A B|C"},
	{"div", SC_C_DIV, 1, 2, SC_COP_CONST_B, sc_celem_binary, "div A B|C"},
	{"scale", SC_C_SCALE, 1, 1, SC_COP_CONST, sc_celem_scale, "scale A C"},
	{"pow", SC_C_POW, 1, 1, SC_COP_CONST, sc_celem_unary, "pow A K"},
	{"sqrt", SC_C_SQRT, 1, 1, 0, sc_celem_unary, "sqrt A"},
	{"rsqrt", SC_C_RSQRT, 1, 1, 0, sc_celem_unary, "rsqrt A"},
	{"exp", SC_C_EXP, 1, 1, 0, sc_celem_unary, "exp A"},
	{"log", SC_C_LOG, 1, 1, 0, sc_celem_unary, "log A"},
	{"gelu", SC_C_GELU, 1, 1, SC_COP_FORM, sc_celem_unary, "gelu A tanh|erf"},
	{"relu", SC_C_RELU, 1, 1, 0, sc_celem_unary, "relu A"},
	{"silu", SC_C_SILU, 1, 1, 0, sc_celem_unary, "silu A"},
	{"cast", SC_C_CAST, 1, 1, SC_COP_DTYPE, sc_celem_cast, "cast A DTYPE"},
	{"sum", SC_C_SUM, 1, 1, RED, sc_creduce_dim, "sum A dim=i [keepdim]"},
	{"mean", SC_C_MEAN, 1, 1, RED, sc_creduce_dim, "mean A dim=i [keepdim]"},
	{"max", SC_C_MAX, 1, 1, RED, sc_creduce_dim, "max A dim=i [keepdim]"},
	{"softmax", SC_C_SOFTMAX, 1, 1, SC_COP_DIM, sc_creduce_softmax, "softmax A dim=i"},
	{"layernorm", SC_C_LAYERNORM, 1, 3, SC_COP_EPS | SC_COP_SAME | SC_COP_RES_A, sc_creduce_layernorm, "layernorm A [W [B]] [eps=C]"},
	{"rmsnorm", SC_C_RMSNORM, 1, 2, SC_COP_EPS, sc_creduce_rmsnorm, "rmsnorm A [W] [eps=C]"},
	{"embedding", SC_C_EMBEDDING, 2, 2, SC_COP_INDEX0 | SC_COP_START | SC_COP_RES_B, sc_clookup_embedding,
	 "embedding IDX W [start=E]"},
	{"pick", SC_C_PICK, 2, 2, SC_COP_INDEX1 | SC_COP_START | SC_COP_RES_A, sc_clookup_pick, "pick A IDX [start=E]"},
	{"cat", SC_C_CAT, 2, 3, SC_COP_DIM, sc_celem_cat, "cat A B [C] dim=i"},
	{"tril", SC_C_TRIL, 1, 1, SC_COP_DIAG, sc_celem_tri, "tril A [diagonal=E] [fill=C]"},
	{"triu", SC_C_TRIU, 1, 1, SC_COP_DIAG, sc_celem_tri, "triu A [diagonal=E] [fill=C]"},
};

const struct sc_cop_def *sc_cop_find(const char *kw)
{
	for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
		if (strcmp(table[i].kw, kw) == 0)
			return &table[i];
	return NULL;
}

const struct sc_cop_def *sc_cop_get(enum sc_cop op)
{
	for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
		if (table[i].op == op)
			return &table[i];
	return NULL;
}
