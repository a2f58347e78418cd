/* sc_log: logging by subsystem, silent by default (NCCL_DEBUG_SUBSYS's
 * model). SC_LOG=spec,gen (or SC_LOG=all) in the environment turns
 * subsystems on; lines go to standard error, or to the file named by
 * SC_LOG_FILE, as "[sc gen] sc_gen.c:42: message". The `trace` subsystem
 * logs every SC_CHECK that passes a failure up, so a failure's call path
 * can be read bottom-up. A disabled SC_LOG costs one load and a branch. */
#ifndef SC_LOG_H
#define SC_LOG_H

#define SC_LOG_SUBSYS(X)                                                       \
	X(SPEC, spec)                                                          \
	X(INTERP, interp)                                                      \
	X(GEN, gen)                                                            \
	X(SHRINK, shrink)                                                      \
	X(BACKEND, backend)                                                    \
	X(PLUGIN, plugin)                                                      \
	X(FUZZ, fuzz)                                                          \
	X(CHECK, check)                                                        \
	X(REPORT, report)                                                      \
	X(TRACE, trace)

enum sc_log_bit {
#define SC_LOG_BIT_(ID, name) SC_LOG_BIT_##ID,
	SC_LOG_SUBSYS(SC_LOG_BIT_)
#undef SC_LOG_BIT_
	SC_LOG_NSUBSYS
};
#define SC_LOG_MASK_(ID, name) SC_LOG_##ID = 1u << SC_LOG_BIT_##ID,
enum sc_log_subsys { SC_LOG_SUBSYS(SC_LOG_MASK_) SC_LOG_ALL = (1u << SC_LOG_NSUBSYS) - 1 };
#undef SC_LOG_MASK_

#define SC_LOG_UNSET 0x80000000u

/* The enabled subsystems; SC_LOG_UNSET until the environment is read. */
extern unsigned sc_log_mask_;

/* Reads SC_LOG and SC_LOG_FILE (once); returns the mask. */
unsigned sc_log_init(void);
/* Turns subsystems on in addition to the environment's (-v). */
void sc_log_enable(unsigned mask);
/* Parses "spec,gen" or "all" into *mask; 0 on success, -1 with the
 * unknown name's position in *bad. */
int sc_log_parse(const char *list, unsigned *mask, int *bad);
/* Name of a single subsystem bit ("gen"). */
const char *sc_log_name(unsigned subsys);

static inline int sc_log_on(unsigned subsys)
{
	unsigned m = sc_log_mask_;
	if (m == SC_LOG_UNSET)
		m = sc_log_init();
	return (m & subsys) != 0;
}

void sc_log_write(unsigned subsys, const char *file, int line, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 4, 5)))
#endif
	;

#define SC_LOG(SUB, ...)                                                       \
	do {                                                                   \
		if (sc_log_on(SC_LOG_##SUB))                                   \
			sc_log_write(SC_LOG_##SUB, __FILE__, __LINE__, __VA_ARGS__); \
	} while (0)

#endif
