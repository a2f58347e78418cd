/* sc_sanitize: compute-sanitizer over a plugin's CUDA code (see the
 * header). */
#include "sc_sanitize.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sc_casefile.h"
#include "sc_fs.h"
#include "sc_plugin_dev.h"
#include "sc_proc.h"

#define INSIDE_ENV SC_PLUGIN_DEV_SANITIZED_ENV
#define REPORT_MAX ((size_t)16 << 10) /* bytes of the tool's report kept */
#define OUTPUT_MAX ((size_t)1 << 20)  /* bytes of the replay's output read */

static const char *const tools[] = {"memcheck", "racecheck", "initcheck", "synccheck"};

int sc_sanitize_tools(const char *const **list)
{
	*list = tools;
	return (int)(sizeof tools / sizeof tools[0]);
}

int sc_sanitize_tool_known(const char *tool)
{
	for (size_t i = 0; i < sizeof tools / sizeof tools[0]; i++)
		if (tool && strcmp(tool, tools[i]) == 0)
			return 1;
	return 0;
}

enum sc_status sc_sanitize_find(char *path, size_t n, struct sc_err *e)
{
	char home[1024] = "";
	const char *ch = getenv("CUDA_HOME");
	if (ch && *ch)
		snprintf(home, sizeof home, "%s/bin", ch);
	const char *dirs[] = {home[0] ? home : "/usr/local/cuda/bin", "/usr/local/cuda/bin", NULL};
	if (sc_proc_find("compute-sanitizer", dirs, path, n) == 0)
		return SC_OK;
	return SC_ERR(e, SC_E_USAGE,
		      "--sanitize: compute-sanitizer is not on PATH, in $CUDA_HOME/bin or in /usr/local/cuda/bin (it "
		      "comes with the CUDA toolkit)");
}

int sc_sanitize_inside(void)
{
	const char *v = getenv(INSIDE_ENV);
	return v && *v == '1';
}

/* The tool's own lines ("========= ..."), its banner and clean
 * processes' summaries left out, into a malloc'd report; the errors of
 * every process's ERROR SUMMARY added up in *errors (-1: none found). */
static char *report_of(const char *out, int *errors)
{
	char *rep = malloc(REPORT_MAX + 1);
	size_t len = 0;
	if (!rep)
		return NULL;
	rep[0] = '\0';
	*errors = -1;
	for (const char *p = out; *p;) {
		const char *nl = strchr(p, '\n');
		const size_t n = nl ? (size_t)(nl - p) : strlen(p);
		const char *s = strstr(p, "ERROR SUMMARY: ");
		if (s && s < p + n) {
			const int k = atoi(s + 15);
			*errors = (*errors < 0 ? 0 : *errors) + (k > 0 ? k : 0);
		}
		const int tool_line = n >= 9 && strncmp(p, "=========", 9) == 0;
		const int noise = tool_line && ((s && s < p + n && atoi(s + 15) == 0) || strstr(p, "COMPUTE-SANITIZER") == p + 10 ||
						strstr(p, "Target application returned") == p + 10 || n <= 10);
		if (tool_line && !noise && len + n + 1 < REPORT_MAX) {
			memcpy(rep + len, p, n);
			len += n;
			rep[len++] = '\n';
		}
		p = nl ? nl + 1 : p + n;
	}
	if (len == 0) { /* nothing of the tool's: the end of what came */
		const size_t all = strlen(out), keep = all > 2048 ? 2048 : all;
		memcpy(rep, out + all - keep, keep);
		len = keep;
	}
	if (len && rep[len - 1] == '\n')
		len--;
	rep[len] = '\0';
	return rep;
}

enum sc_status sc_sanitize_failure(const char *sanitizer, const char *tool, struct sc_result *res, const char *backend,
				   double timeout, struct sc_err *e)
{
	if (!res->have_cx)
		return SC_ERR(e, SC_E_INTERNAL, "--sanitize: a failure without a counterexample");
	char dir[1024], path[1100], self[4096];
	if (sc_proc_self(self, sizeof self) != 0)
		return SC_ERR(e, SC_E_IO, "--sanitize: cannot find this program (/proc/self/exe): %s", strerror(errno));
	const char *tmp = getenv("TMPDIR");
	snprintf(dir, sizeof dir, "%.900s/shardcheck-sanitize-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir))
		return SC_ERR(e, SC_E_IO, "--sanitize: cannot make a temporary folder in %s: %s", tmp && *tmp ? tmp : "/tmp",
			      strerror(errno));
	char text[16384];
	enum sc_status st = sc_casefile_format_after(res->tgt, res->property, backend, res->earlier, res->nearlier, &res->cx,
						     -1, text, sizeof text, e);
	if (st == SC_OK)
		st = sc_casefile_relocate(text, sizeof text, dir, e);
	snprintf(path, sizeof path, "%s/minimal.case", dir);
	if (st == SC_OK)
		st = sc_fs_write_atomic(path, text, strlen(text), e);
	char *out = NULL;
	int cut = 0, code = 0;
	if (st == SC_OK) {
		char *argv[] = {(char *)sanitizer, "--tool", (char *)tool, "--target-processes", "all", self, "repro", path,
				NULL};
		setenv(INSIDE_ENV, "1", 1); /* the replay's buffers exactly allocated, for the tool to watch */
		st = sc_proc_run(argv, timeout, OUTPUT_MAX, &out, &cut, &code, e);
		unsetenv(INSIDE_ENV);
	}
	struct sc_err ignored;
	sc_fs_remove_tree(dir, &ignored);
	if (st != SC_OK)
		return st;
	int errors;
	char *rep = report_of(out, &errors);
	free(out);
	if (!rep)
		return SC_ERR(e, SC_E_NOMEM, "out of memory");
	if (code < 0) { /* out of time: what it said so far */
		errors = -1;
		char *more = realloc(rep, strlen(rep) + 96);
		if (more) {
			rep = more;
			snprintf(rep + strlen(rep), 96, "%s(killed after %.0f s, before its summary)", rep[0] ? "\n" : "",
				 timeout);
		}
	}
	free(res->sanitizer);
	res->sanitizer = rep;
	res->sanitizer_errors = errors;
	snprintf(res->sanitizer_tool, sizeof res->sanitizer_tool, "%s", tool);
	return SC_OK;
}

void sc_sanitize_reexec(const char *sanitizer, const char *tool, int full_argc, char **full_argv, struct sc_err *e)
{
	char self[4096];
	if (sc_proc_self(self, sizeof self) != 0) {
		SC_ERR(e, SC_E_IO, "--sanitize-all: cannot find this program (/proc/self/exe): %s", strerror(errno));
		return;
	}
	char **av = calloc((size_t)full_argc + 8, sizeof *av);
	if (!av) {
		SC_ERR(e, SC_E_NOMEM, "out of memory");
		return;
	}
	int n = 0;
	av[n++] = (char *)sanitizer;
	av[n++] = "--tool";
	av[n++] = (char *)tool;
	av[n++] = "--target-processes";
	av[n++] = "all";
	av[n++] = "--error-exitcode";
	av[n++] = "1";
	av[n++] = self;
	for (int i = 1; i < full_argc; i++)
		if (strcmp(full_argv[i], "--sanitize-all") != 0)
			av[n++] = full_argv[i];
	av[n] = NULL;
	setenv(INSIDE_ENV, "1", 1);
	fflush(NULL);
	execv(sanitizer, av);
	SC_ERR(e, SC_E_IO, "--sanitize-all: cannot run %s: %s", sanitizer, strerror(errno));
	free(av);
}
