/* sc_sanitize: NVIDIA's compute-sanitizer over a plugin's CUDA code.
 *
 * gate --sanitize TOOL: after a failure is shrunk, its minimal case is
 * written as a .case file (in a temporary folder) and run again as
 * `shardcheck repro` under `compute-sanitizer --tool TOOL
 * --target-processes all` (the plugin's processes are children of the
 * replay); the tool's report is attached to the failure (terminal,
 * report.json, NAME.md). gate --sanitize-all: the whole gate runs again
 * under the tool, every case in it; errors the tool finds make the exit
 * code 1. */
#ifndef SC_SANITIZE_H
#define SC_SANITIZE_H

#include <stddef.h>

#include "sc_check.h"

/* The tools shardcheck passes on: memcheck, racecheck, initcheck,
 * synccheck. */
int sc_sanitize_tool_known(const char *tool);
int sc_sanitize_tools(const char *const **list); /* them all; the count */
/* compute-sanitizer's path: PATH, then $CUDA_HOME/bin and
 * /usr/local/cuda/bin; SC_E_USAGE saying where it comes from when none. */
enum sc_status sc_sanitize_find(char *path, size_t n, struct sc_err *e);
/* res's counterexample run again under the tool, on backend (the gate's),
 * at most timeout seconds; its report attached to res (sanitizer,
 * sanitizer_tool, sanitizer_errors). An error when it could not run. */
enum sc_status sc_sanitize_failure(const char *sanitizer, const char *tool, struct sc_result *res, const char *backend,
				   double timeout, struct sc_err *e);
/* Whether this process runs under --sanitize-all's tool already (the
 * command given again there: it must not start the tool once more). */
int sc_sanitize_inside(void);
/* --sanitize-all: this command (full_argv, without --sanitize-all) again
 * under the tool, in place of this process; returns only when it could
 * not be started, with why. */
void sc_sanitize_reexec(const char *sanitizer, const char *tool, int full_argc, char **full_argv, struct sc_err *e);

#endif
