/* sc_fs: files that are never seen half-written, files read only when they
 * are regular files, and directories.
 *
 * Every spec, case file, finding and corpus entry is read through
 * sc_fs_read_regular: a FIFO, a device, a socket or a directory (symlinks
 * followed) is refused before it is opened, and again on the descriptor,
 * so no path given to shardcheck can block a run or feed it without end. */
#ifndef SC_FS_H
#define SC_FS_H

#include <stddef.h>

#include "sc_status.h"

/* Writes path atomically: path.tmp.PID, fsync, then rename over path. On
 * failure path is untouched and the temporary file removed. */
enum sc_status sc_fs_write_atomic(const char *path, const void *data, size_t len, struct sc_err *e);
/* The kind of file mode m is, for messages: "a regular file", "a FIFO",
 * "a directory", "a character device", "a block device", "a socket",
 * "a symlink", "an unknown kind of file". A static string. */
const char *sc_fs_kind(unsigned m);
/* Reads the regular file path whole: refused (SC_E_IO, "path: not a
 * regular file (KIND)") unless it is one, before opening it and again on
 * the open descriptor (O_NONBLOCK | O_NOCTTY | O_CLOEXEC, so not even a
 * file swapped for a FIFO in between blocks). At most max_bytes + 1 bytes
 * are read: *len == max_bytes + 1 says the file is larger than max_bytes,
 * and the caller refuses it in its own words. On success *buf is malloc'd
 * (owned by the caller, NUL-terminated after *len bytes; NUL bytes inside
 * are kept). */
enum sc_status sc_fs_read_regular(const char *path, size_t max_bytes, char **buf, size_t *len,
				  struct sc_err *e);

/* rm -r of path, symlinks removed as links (never followed); a path that
 * does not exist is fine. */
enum sc_status sc_fs_remove_tree(const char *path, struct sc_err *e);

/* The absolute path of an existing path, symlinks resolved (realpath). */
enum sc_status sc_fs_absolute(const char *path, char *out, size_t n, struct sc_err *e);

/* mkdir -p (existing directories are fine). */
enum sc_status sc_fs_mkdirs(const char *path, struct sc_err *e);

/* The path of file `to` relative to directory `from` (both as seen from
 * the working directory; they must exist), e.g. "../deepspeed/x.sc". */
enum sc_status sc_fs_relpath(const char *from, const char *to, char *out, size_t n, struct sc_err *e);

/* Up to n-1 bytes of a small file (a /proc entry, a status word) into
 * buf, NUL-terminated; the bytes read, or -1 when it cannot be opened.
 * Async-signal-safe (open, read, close): for signal handlers and forked
 * children. */
long sc_fs_read_small(const char *path, char *buf, size_t n);

#endif
