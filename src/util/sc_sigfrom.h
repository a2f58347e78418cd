/* sc_sigfrom: whether a signal came from code shardcheck contains, for
 * its handlers to drop it. Where sandboxed children have no pid namespace
 * (sc_sandbox's fallback), a plugin can name shardcheck's pid; what it
 * starts is a descendant of this process in a session other than this
 * process's (a sandboxed child starts its own session, and no process can
 * join another session), and nothing else shardcheck starts is. */
#ifndef SC_SIGFROM_H
#define SC_SIGFROM_H

#include <signal.h>

/* 1 when si's sender is such a process (async-signal-safe): sent with
 * kill, tgkill or sigqueue by a living process in another session whose
 * chain of parents (/proc) reaches this process. 0 for the kernel's
 * signals (a fault, the terminal, a pipe), this process's own, and a
 * sender already gone or not found. */
int sc_sigfrom_contained(const siginfo_t *si);

#endif
