/* sc_sigsafe: text in a signal handler, with async-signal-safe calls
 * only (no stdio, no malloc). */
#ifndef SC_SIGSAFE_H
#define SC_SIGSAFE_H

#include <stddef.h>

/* v (negative: 0) in decimal into buf (at least 24 bytes). */
void sc_sigsafe_num(char *buf, long v);
/* s appended to dst (n bytes in all), cut short rather than overflow. */
void sc_sigsafe_cat(char *dst, size_t n, const char *s);
/* s, then v in decimal, written to fd. */
void sc_sigsafe_write(int fd, const char *s);
void sc_sigsafe_write_num(int fd, long v);
/* Process pid's state letter and parent, from /proc/PID/stat ("pid
 * (comm) S ppid ..."); 0, or -1 when it cannot be read (gone). */
int sc_sigsafe_proc_stat(long pid, char *state, long *ppid);

#endif
