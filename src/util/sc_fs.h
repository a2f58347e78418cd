/* sc_fs: files that are never seen half-written, and directories. */
#ifndef SC_FS_H
#define SC_FS_H

#include <stddef.h>

#include "sc_status.h"

/* Writes path atomically: path.tmp.PID, fsync, then rename over path. On
 * failure path is untouched and the temporary file removed. */
enum sc_status sc_fs_write_atomic(const char *path, const void *data, size_t len, struct sc_err *e);
/* mkdir -p (existing directories are fine). */
enum sc_status sc_fs_mkdirs(const char *path, struct sc_err *e);

/* The path of file `to` relative to directory `from` (both as seen from
 * the working directory; they must exist), e.g. "../deepspeed/x.sc". */
enum sc_status sc_fs_relpath(const char *from, const char *to, char *out, size_t n, struct sc_err *e);

#endif
