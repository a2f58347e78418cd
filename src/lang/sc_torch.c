/* sc_torch: the rules that differ between PyTorch versions (see
 * sc_torch.h). */
#include "sc_torch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	enum sc_torch_rule rule;
	const char *name;
	int since; /* the first version with the current form */
	const char *before, *now;
} rules[] = {
	{SC_TORCH_PAD_EMPTY, "pad-empty", 210,
	 "F.pad with a positive width refuses a tensor whose covered dims are or come out empty (\"The input "
	 "size 0, plus negative padding 0 and 0 resulted in a negative output size\"; aten constant_pad_nd)",
	 "F.pad pads a tensor whose covered dims are empty, and a dim may come out empty"},
};
_Static_assert(sizeof rules / sizeof rules[0] == SC_TORCH_NRULES, "one row per rule");

int sc_torch_parse(const char *text, int *version, char *why, size_t n)
{
	char *end;
	const long major = strtol(text, &end, 10);
	long minor = -1;
	if (end != text && *end == '.' && end[1] >= '0' && end[1] <= '9') {
		const char *m = end + 1;
		minor = strtol(m, &end, 10);
		if (*end == '.' && end[1] >= '0' && end[1] <= '9') /* a patch release: its minor's rules */
			strtol(end + 1, &end, 10);
	}
	if (text[0] < '0' || text[0] > '9' || minor < 0 || minor > 99 || major < 1 || major > 9 || *end) {
		snprintf(why, n, "a torch version is MAJOR.MINOR (2.5, 1.13), not '%.40s'", text);
		return -1;
	}
	const int v = (int)(major * 100 + minor);
	if (v < SC_TORCH_OLDEST) {
		snprintf(why, n, "torch %ld.%ld is older than the oldest version whose rules are known (%d.%d)", major,
			 minor, SC_TORCH_OLDEST / 100, SC_TORCH_OLDEST % 100);
		return -1;
	}
	*version = v;
	return 0;
}

enum sc_status sc_torch_decl(struct sc_parse *p, const struct sc_tok *kw)
{
	const struct sc_tok *t = sc_lex_peek(p);
	char why[160] = "expected a torch version after 'torch' (torch 2.5)";
	if (p->s->torch)
		return sc_lex_err(p, kw->col, "duplicate 'torch' declaration");
	if (t->kind != SC_T_REAL || sc_torch_parse(t->text, &p->s->torch, why, sizeof why) != 0)
		return sc_lex_err(p, t->col, "%s", why);
	p->pos++;
	return sc_lex_end(p);
}

int sc_torch_new(int version, enum sc_torch_rule rule)
{
	return (version ? version : SC_TORCH_NEWEST) >= rules[rule].since;
}

void sc_torch_text(int version, char *buf, size_t n)
{
	const int v = version ? version : SC_TORCH_NEWEST;
	snprintf(buf, n, "%d.%d", v / 100, v % 100);
}

void sc_torch_describe(int version, char *buf, size_t n)
{
	char v[16];
	sc_torch_text(version, v, sizeof v);
	size_t at = (size_t)snprintf(buf, n, "torch %s rules", v);
	const char *sep = ": ";
	for (int k = 0; k < SC_TORCH_NRULES && at < n; k++)
		if (!sc_torch_new(version, rules[k].rule)) {
			at += (size_t)snprintf(buf + at, n - at, "%s%s as before %d.%d", sep, rules[k].name,
					       rules[k].since / 100, rules[k].since % 100);
			sep = ", ";
		}
}
