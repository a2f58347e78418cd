/* sc_status: status codes, error context and the CHECK macros.
 *
 * Every function that can fail returns enum sc_status (0 ok, negative
 * errors) and fills a struct sc_err with a message that carries file:line of
 * where it was raised, so the user sees where a failure came from. With
 * SC_LOG=trace every error raised and every SC_CHECK that passes one up is
 * logged, which prints the failure's call path from the bottom up.
 *
 * The one result convention: a function that can fail returns enum
 * sc_status and writes its results through pointers only on SC_OK; a
 * count, a verdict or a flag is an out-parameter, never a sign bit. */
#ifndef SC_STATUS_H
#define SC_STATUS_H

#include <stdarg.h>

#include "sc_log.h"

enum sc_status {
	SC_OK = 0,
	SC_E_USAGE = -1,   /* bad command line or option value */
	SC_E_SPEC = -2,    /* malformed spec or case file */
	SC_E_RUNTIME = -3, /* a step failed for the current shape (a finding) */
	SC_E_NOMEM = -4,
	SC_E_IO = -5,
	SC_E_UNAVAIL = -6, /* backend not compiled in or not usable here */
	SC_E_NOCASE = -7,  /* the choice stream decodes to no valid case */
	SC_E_INTERNAL = -8
};

#define SC_ERR_MAX 512

struct sc_err {
	enum sc_status status;
	char msg[SC_ERR_MAX];
	const char *file; /* source location that raised it (for -v) */
	int line;
};

/* Sets e (when non-NULL) and returns st; printf-style message. */
enum sc_status sc_err_set(struct sc_err *e, enum sc_status st, const char *file,
			  int line, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 5, 6)))
#endif
	;
enum sc_status sc_err_vset(struct sc_err *e, enum sc_status st, const char *file,
			   int line, const char *fmt, va_list ap);
void sc_err_clear(struct sc_err *e);
const char *sc_status_name(enum sc_status st);

#define SC_ERR(e, st, ...) sc_err_set((e), (st), __FILE__, __LINE__, __VA_ARGS__)

/* Logs a failure passed up at file:line (SC_LOG=trace). */
void sc_status_trace(enum sc_status st, const char *what, const char *file, int line);

#define SC_CHECK(x)                                                            \
	do {                                                                   \
		enum sc_status sc_check_st_ = (x);                             \
		if (sc_check_st_ != SC_OK) {                                   \
			if (sc_log_on(SC_LOG_TRACE))                           \
				sc_status_trace(sc_check_st_, #x, __FILE__, __LINE__); \
			return sc_check_st_;                                   \
		}                                                              \
	} while (0)

#define SC_CHECK_GOTO(x, st, label)                                            \
	do {                                                                   \
		(st) = (x);                                                    \
		if ((st) != SC_OK) {                                           \
			if (sc_log_on(SC_LOG_TRACE))                           \
				sc_status_trace((st), #x, __FILE__, __LINE__); \
			goto label;                                            \
		}                                                              \
	} while (0)

#endif
