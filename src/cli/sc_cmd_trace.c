/* shardcheck trace: hands over to the Python module that traces a PyTorch
 * function into a spec (src/python/shardcheck, run as `python3 -m
 * shardcheck trace`). The module is found in SHARDCHECK_PYTHONPATH, else
 * where `cmake --install` put it beside this binary (BIN/../share/
 * shardcheck/python, whatever the prefix), else next to the sources this
 * binary was built from, else in the configured install folder; the
 * interpreter is SHARDCHECK_PYTHON or python3.
 * The module calls this binary back (SHARDCHECK_BIN) to parse and check. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sc_cli.h"
#include "sc_proc.h"

static const char *const module_dirs[] = {SC_PYTHON_SOURCE_DIR, SC_PYTHON_INSTALL_DIR};

static int has_module(const char *dir)
{
	char p[PATH_MAX + 64];
	snprintf(p, sizeof p, "%s/shardcheck/__init__.py", dir);
	return access(p, R_OK) == 0;
}

/* BIN/../share/shardcheck/python for this binary's BIN folder, in buf. */
static const char *beside_binary(char *buf, size_t n)
{
	char self[PATH_MAX];
	if (sc_proc_self(self, sizeof self) != 0)
		return NULL;
	char *slash = strrchr(self, '/');
	if (!slash)
		return NULL;
	*slash = 0;
	snprintf(buf, n, "%s/../share/shardcheck/python", self);
	return buf;
}

static const char *find_module(char *buf, size_t n)
{
	const char *env = getenv("SHARDCHECK_PYTHONPATH");
	if (env && *env)
		return has_module(env) ? env : NULL;
	const char *mine = beside_binary(buf, n);
	if (mine && has_module(mine))
		return mine;
	for (size_t i = 0; i < sizeof module_dirs / sizeof module_dirs[0]; i++)
		if (has_module(module_dirs[i]))
			return module_dirs[i];
	return NULL;
}

static int trace_main(int argc, char **argv, int full_argc, char **full_argv)
{
	(void)full_argc;
	(void)full_argv;
	char mine[PATH_MAX + 32];
	const char *dir = find_module(mine, sizeof mine);
	if (!dir) {
		fprintf(stderr, "shardcheck trace: the Python module is not at %s nor %s; "
				"set SHARDCHECK_PYTHONPATH to the folder that holds shardcheck/\n",
			module_dirs[0], module_dirs[1]);
		return 2;
	}
	char path[PATH_MAX * 2];
	const char *old = getenv("PYTHONPATH");
	snprintf(path, sizeof path, "%s%s%s", dir, old && *old ? ":" : "", old && *old ? old : "");
	char self[PATH_MAX];
	if (sc_proc_self(self, sizeof self) == 0)
		setenv("SHARDCHECK_BIN", self, 0);
	if (setenv("PYTHONPATH", path, 1) != 0)
		return sc_cli_die("trace: cannot set PYTHONPATH: %s", strerror(errno));
	const char *py = getenv("SHARDCHECK_PYTHON");
	if (!py || !*py)
		py = "python3";
	char **av = calloc((size_t)argc + 5, sizeof *av);
	if (!av)
		return sc_cli_die("trace: %s", "out of memory");
	int k = 0;
	av[k++] = (char *)py;
	av[k++] = "-m";
	av[k++] = "shardcheck";
	av[k++] = "trace";
	for (int i = 0; i < argc; i++)
		av[k++] = argv[i];
	av[k] = NULL;
	execvp(py, av);
	fprintf(stderr, "shardcheck trace: cannot run %s: %s (set SHARDCHECK_PYTHON to a Python 3 with PyTorch)\n",
		py, strerror(errno));
	free(av);
	return 2;
}

const struct sc_cmd sc_cmd_trace = {
	"trace", 0,
	"usage: shardcheck trace FILE.py --call EXPR --dims a,b,... --input PLACEMENT --output PLACEMENT\n"
	"                        [--mesh dp=D,tp=T] [--require COND]... [-o OUT.sc] [--check [OPTIONS]]\n"
	"\n"
	"Runs a PyTorch function on simulated ranks and writes the spec of what it does,\n"
	"one step per tensor operation with its source line (`shardcheck trace --help`\n"
	"for every option). Needs Python 3 with PyTorch (SHARDCHECK_PYTHON picks the\n"
	"interpreter).\n",
	"",
	trace_main,
};
