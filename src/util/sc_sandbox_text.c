/* sc_sandbox_text: how a sandboxed child ended, in words (sc_sandbox.h). */
#define _GNU_SOURCE /* strsignal */
#include "sc_sandbox.h"

#include <stdio.h>
#include <string.h>

void sc_sandbox_describe(const struct sc_sandbox_result *r, const char *tag_name, char *buf, size_t n)
{
	char on[48] = "";
	if (r->tag >= 0 && tag_name)
		snprintf(on, sizeof on, " on %s %d", tag_name, r->tag);
	switch (r->end) {
	case SC_SANDBOX_RETURNED:
		snprintf(buf, n, "returned %d", r->code);
		break;
	case SC_SANDBOX_EXIT:
		snprintf(buf, n, "called exit(%d)%s", r->code, on);
		break;
	case SC_SANDBOX_EXITED:
		snprintf(buf, n, "ended its process with status %d without returning (_exit, or a sanitizer's report on stderr)",
			 r->code);
		break;
	case SC_SANDBOX_SANITIZER:
		snprintf(buf, n, "was stopped by a sanitizer's report%s (on stderr)", on);
		break;
	case SC_SANDBOX_SIGNAL:
		snprintf(buf, n, "crashed: signal %d (%s)", r->code, strsignal(r->code));
		break;
	case SC_SANDBOX_TIMEOUT:
		snprintf(buf, n, "hung: no result after %.0f s; killed", r->seconds);
		break;
	}
}
