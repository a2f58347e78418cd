/* sc_proc: another program, run to its end with its output captured
 * (compute-sanitizer around a replay), and programs found on PATH. */
#ifndef SC_PROC_H
#define SC_PROC_H

#include <stddef.h>

#include "sc_status.h"

/* Runs argv (argv[0] looked up on PATH) in a process group of its own,
 * stdin from /dev/null, stdout and stderr together into *out (malloc'd,
 * NUL-terminated, owned by the caller; its last max_bytes kept when there
 * is more, *cut set). Waits at most timeout seconds (0: no limit), then
 * kills the group. *code: the exit status, 128 + the signal that ended
 * it, or -1 when it ran out of time. SC_E_IO when it could not be
 * started (then *out is NULL). */
enum sc_status sc_proc_run(char *const argv[], double timeout, size_t max_bytes, char **out, int *cut, int *code,
			   struct sc_err *e);

/* The running program's path (/proc/self/exe); 0, or -1 with path "". */
int sc_proc_self(char *path, size_t n);

/* The first executable `name` in PATH, then in dirs (NULL-terminated;
 * NULL: none); 0 with its path, or -1. */
int sc_proc_find(const char *name, const char *const *dirs, char *path, size_t n);

#endif
