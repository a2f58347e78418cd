/* sc_torch: the PyTorch version whose rules the steps follow where
 * versions differ (docs/language.md, "Torch versions"). One table: each
 * rule that changed, the first version with its current form, both forms
 * in words. A version is major * 100 + minor (2.5 is 205); 0 stands for
 * the default, the newest version the table knows. A spec's `torch 2.5`
 * line sets its version; --torch sets every spec's, over that line. */
#ifndef SC_TORCH_H
#define SC_TORCH_H

#include <stddef.h>

#include "sc_lex.h"

enum sc_torch_rule {
	SC_TORCH_PAD_EMPTY, /* F.pad of a tensor whose padded or covered dims are or come out empty */
	SC_TORCH_NRULES
};

#define SC_TORCH_OLDEST 113 /* the oldest version whose rules are known */
#define SC_TORCH_NEWEST 211 /* the newest version checked: the default */

/* "2.5", "2.5.1" or "1.13" (at least SC_TORCH_OLDEST) into *version; 0,
 * or -1 with why. */
int sc_torch_parse(const char *text, int *version, char *why, size_t n);
/* `torch 2.5` (cursor after the keyword): the spec's version. */
enum sc_status sc_torch_decl(struct sc_parse *p, const struct sc_tok *kw);
/* Whether version (0: the default) follows rule's current form. */
int sc_torch_new(int version, enum sc_torch_rule rule);
/* "2.11" (the default's number for 0). */
void sc_torch_text(int version, char *buf, size_t n);
/* "torch 2.5 rules: pad-empty (before 2.11: ...)" for the rules whose old
 * form is in force, or "torch 2.11 rules" when none is. */
void sc_torch_describe(int version, char *buf, size_t n);

#endif
