/* sc_expr_text: an expression written back as text (sc_expr_format), with
 * the parentheses Python's precedence needs and no more: what a replay
 * line, a traced spec or a message shows reads back to the same tree. */
#include <stdio.h>
#include <string.h>

#include "sc_expr.h"
#include "sc_slots.h"
#include "sc_str.h"

/* Python's precedence: higher binds tighter. */
static int prec(enum sc_exkind k)
{
	switch (k) {
	case SC_EX_IF: return 1;
	case SC_EX_OR: return 2;
	case SC_EX_AND: return 3;
	case SC_EX_NOT: return 4;
	case SC_EX_CMP: return 5;
	case SC_EX_ADD:
	case SC_EX_SUB: return 6;
	case SC_EX_MUL:
	case SC_EX_DIV:
	case SC_EX_FDIV:
	case SC_EX_MOD: return 7;
	case SC_EX_NEG: return 8;
	default: return 9;
	}
}

static void fmt_rec(const struct sc_spec *s, int node, int min_prec, struct sc_str *b)
{
	const struct sc_expr *x = &s->nodes[node];
	static const char *const ops[] = {[SC_EX_ADD] = "+", [SC_EX_SUB] = "-", [SC_EX_MUL] = "*",
					  [SC_EX_DIV] = "/", [SC_EX_FDIV] = "//", [SC_EX_MOD] = "%",
					  [SC_EX_AND] = "and", [SC_EX_OR] = "or"};
	static const char *const cmps[] = {"==", "!=", "<", "<=", ">", ">="};
	static const char *const fn[] = {[SC_EX_CDIV] = "cdiv", [SC_EX_MIN] = "min", [SC_EX_MAX] = "max"};
	const int p = prec(x->kind), paren = p < min_prec;
	if (paren)
		sc_str_put(b, "(");
	switch (x->kind) {
	case SC_EX_NUM: sc_str_printf(b, "%lld", (long long)x->num); break;
	case SC_EX_REAL: sc_str_printf(b, "%.17g", x->real); break;
	case SC_EX_SQRT:
		sc_str_put(b, "sqrt(");
		fmt_rec(s, x->a, 0, b);
		sc_str_put(b, ")");
		break;
	case SC_EX_DIM: sc_str_put(b, sc_slots_name(s, x->dim)); break;
	case SC_EX_COORD: sc_str_put(b, s->mesh_dim[x->dim]); break;
	case SC_EX_WORLD: sc_str_put(b, s->world_sym); break;
	case SC_EX_NAME:
	case SC_EX_VAR:
	case SC_EX_INDEX:
	case SC_EX_LOOP: sc_str_put(b, x->name); break;
	case SC_EX_SUMOF:
		sc_str_put(b, "sum(");
		fmt_rec(s, x->a, 0, b);
		sc_str_printf(b, " for %s in ", x->name);
		fmt_rec(s, x->b, 0, b);
		sc_str_put(b, "..");
		fmt_rec(s, x->c, 0, b);
		sc_str_put(b, ")");
		break;
	case SC_EX_RANK: sc_str_put(b, "rank"); break;
	case SC_EX_NONE: sc_str_put(b, "none"); break;
	case SC_EX_COUNT:
		sc_str_printf(b, "%s(", x->name);
		fmt_rec(s, x->a, 0, b);
		if (x->b >= 0) {
			sc_str_put(b, ", ");
			fmt_rec(s, x->b, 0, b);
		}
		sc_str_put(b, ")");
		break;
	case SC_EX_COUNTLEN: sc_str_printf(b, "len(%s)", x->name); break;
	case SC_EX_ROUTED:
		sc_str_printf(b, "routed(%s, ", x->name);
		fmt_rec(s, x->a, 0, b);
		sc_str_put(b, ", ");
		fmt_rec(s, x->b, 0, b);
		sc_str_put(b, ", ");
		fmt_rec(s, x->c, 0, b);
		sc_str_put(b, ")");
		break;
	case SC_EX_ROWSUM:
	case SC_EX_COLSUM:
		sc_str_printf(b, "%s(%s, ", x->kind == SC_EX_ROWSUM ? "rowsum" : "colsum", x->name);
		fmt_rec(s, x->a, 0, b);
		sc_str_put(b, ")");
		break;
	case SC_EX_SIZE:
		sc_str_put(b, "size(");
		fmt_rec(s, x->a, 0, b);
		sc_str_put(b, ")");
		break;
	case SC_EX_CDIV:
	case SC_EX_MIN:
	case SC_EX_MAX:
		sc_str_printf(b, "%s(", fn[x->kind]);
		fmt_rec(s, x->a, 0, b);
		sc_str_put(b, ", ");
		fmt_rec(s, x->b, 0, b);
		sc_str_put(b, ")");
		break;
	case SC_EX_NEG:
		sc_str_put(b, "-");
		fmt_rec(s, x->a, p, b);
		break;
	case SC_EX_NOT:
		sc_str_put(b, "not ");
		fmt_rec(s, x->a, p, b);
		break;
	case SC_EX_IF:
		fmt_rec(s, x->a, p + 1, b);
		sc_str_put(b, " if ");
		fmt_rec(s, x->c, p + 1, b);
		sc_str_put(b, " else ");
		fmt_rec(s, x->b, p, b);
		break;
	case SC_EX_CMP:
		fmt_rec(s, x->a, p + 1, b);
		sc_str_printf(b, " %s ", cmps[x->num]);
		fmt_rec(s, x->b, p + 1, b);
		break;
	default: /* left-associative binary */
		fmt_rec(s, x->a, p, b);
		sc_str_printf(b, " %s ", ops[x->kind]);
		fmt_rec(s, x->b, p + 1, b);
		break;
	}
	if (paren)
		sc_str_put(b, ")");
}

void sc_expr_format(const struct sc_spec *s, int node, char *buf, size_t n)
{
	struct sc_str b = SC_STR_INIT;
	fmt_rec(s, node, 0, &b);
	const char *t = sc_str_cstr(&b);
	if (n)
		snprintf(buf, n, "%s", t ? t : "");
	sc_str_free(&b);
}
