/* sc_status: error context helpers. */
#include "sc_status.h"

#include <stdio.h>
#include <string.h>

enum sc_status sc_err_vset(struct sc_err *e, enum sc_status st, const char *file,
			   int line, const char *fmt, va_list ap)
{
	if (e) {
		e->status = st;
		e->file = file;
		e->line = line;
		vsnprintf(e->msg, sizeof e->msg, fmt, ap);
		if (sc_log_on(SC_LOG_TRACE))
			sc_log_write(SC_LOG_TRACE, file, line, "%s raised: %s", sc_status_name(st), e->msg);
	}
	return st;
}

enum sc_status sc_err_set(struct sc_err *e, enum sc_status st, const char *file,
			  int line, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sc_err_vset(e, st, file, line, fmt, ap);
	va_end(ap);
	return st;
}

void sc_status_trace(enum sc_status st, const char *what, const char *file, int line)
{
	sc_log_write(SC_LOG_TRACE, file, line, "%s from %s", sc_status_name(st), what);
}

void sc_err_clear(struct sc_err *e)
{
	if (e) {
		e->status = SC_OK;
		e->msg[0] = '\0';
		e->file = NULL;
		e->line = 0;
	}
}

const char *sc_status_name(enum sc_status st)
{
	switch (st) {
	case SC_OK: return "ok";
	case SC_E_USAGE: return "usage error";
	case SC_E_SPEC: return "spec error";
	case SC_E_RUNTIME: return "runtime failure";
	case SC_E_NOMEM: return "out of memory";
	case SC_E_IO: return "i/o error";
	case SC_E_UNAVAIL: return "unavailable";
	case SC_E_NOCASE: return "no valid case";
	case SC_E_INTERNAL: return "internal error";
	}
	return "unknown";
}
