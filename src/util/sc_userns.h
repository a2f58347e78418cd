/* sc_userns: a sandboxed child's pid namespace where this process may not
 * make one itself (an ordinary user): a relay process makes a user
 * namespace (its uid and gid mapped to themselves) and a pid namespace
 * in it, and forks that namespace's init. The relay stays outside the
 * namespace, so nothing inside can name or signal it; ended by SIGTERM
 * (sc_userns_end), it kills init and exits only once the kernel has
 * emptied the namespace, with init's wait status as its own. */
#ifndef SC_USERNS_H
#define SC_USERNS_H

#include <sys/types.h>

/* Whether this process can start relays (looked at once, by starting one
 * that does nothing): unprivileged user namespaces allowed here. */
int sc_userns_works(void);
/* Forks a relay whose namespace's init runs init_fn(arg) (which must not
 * return); the relay's pid, or -1 with errno. */
pid_t sc_userns_spawn(void (*init_fn)(const void *), const void *arg);
/* Asks a relay to end its namespace and itself (then reap it). */
void sc_userns_end(pid_t relay);

#endif
