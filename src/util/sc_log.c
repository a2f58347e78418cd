/* sc_log: subsystem mask from the environment, one writer. The mask is
 * process-wide configuration read once, as NCCL_DEBUG_SUBSYS is. */
#include "sc_log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

unsigned sc_log_mask_ = SC_LOG_UNSET;
static FILE *log_out;

static const char *const names[SC_LOG_NSUBSYS] = {
#define SC_LOG_NAME_(ID, name) #name,
	SC_LOG_SUBSYS(SC_LOG_NAME_)
#undef SC_LOG_NAME_
};

const char *sc_log_name(unsigned subsys)
{
	for (int i = 0; i < SC_LOG_NSUBSYS; i++)
		if (subsys == (1u << i))
			return names[i];
	return "?";
}

int sc_log_parse(const char *list, unsigned *mask, int *bad)
{
	unsigned m = 0;
	const char *p = list;
	while (*p) {
		size_t n = strcspn(p, ", ");
		if (n) {
			int found = n == 3 && strncmp(p, "all", 3) == 0;
			if (found)
				m |= SC_LOG_ALL;
			for (int i = 0; !found && i < SC_LOG_NSUBSYS; i++)
				if (strlen(names[i]) == n && strncmp(p, names[i], n) == 0) {
					m |= 1u << i;
					found = 1;
				}
			if (!found) {
				if (bad)
					*bad = (int)(p - list);
				return -1;
			}
		}
		p += n;
		p += strspn(p, ", ");
	}
	*mask = m;
	return 0;
}

unsigned sc_log_init(void)
{
	if (sc_log_mask_ != SC_LOG_UNSET)
		return sc_log_mask_;
	unsigned m = 0;
	const char *env = getenv("SC_LOG");
	int bad = 0;
	if (env && sc_log_parse(env, &m, &bad) != 0) {
		fprintf(stderr, "shardcheck: SC_LOG: unknown subsystem at '%s' (known: all", env + bad);
		for (int i = 0; i < SC_LOG_NSUBSYS; i++)
			fprintf(stderr, ", %s", names[i]);
		fprintf(stderr, ")\n");
		m = 0;
	}
	const char *file = getenv("SC_LOG_FILE");
	if (m && file && *file && !log_out) {
		log_out = fopen(file, "a");
		if (!log_out)
			fprintf(stderr, "shardcheck: SC_LOG_FILE: cannot open %s; logging to stderr\n", file);
	}
	sc_log_mask_ = m;
	return m;
}

void sc_log_enable(unsigned mask)
{
	sc_log_init();
	sc_log_mask_ |= mask & SC_LOG_ALL;
}

void sc_log_write(unsigned subsys, const char *file, int line, const char *fmt, ...)
{
	FILE *out = log_out ? log_out : stderr;
	const char *base = strrchr(file, '/');
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	/* one write per line, so lines of ranks' threads do not interleave */
	fprintf(out, "[sc %s] %s:%d: %s\n", sc_log_name(subsys), base ? base + 1 : file, line, msg);
	fflush(out);
}
