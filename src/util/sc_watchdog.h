/* sc_watchdog: where sandboxed children have no pid namespace (see
 * sc_sandbox.h), the code under test can name shardcheck's pid and stop
 * it with SIGSTOP, which no handler sees: a watchdog process, started
 * with the first such child, looks at this process every 20 ms and
 * resumes it (SIGCONT) when it finds it stopped, unless it stopped itself
 * on purpose (job control: ^Z, handled as SIGTSTP). A `kill -STOP` from
 * outside is undone as well while the watchdog runs; SIGTSTP pauses.
 * Code that stops the watchdog first (it can find it in /proc as it
 * finds shardcheck) still hangs shardcheck: only namespaces stop that. */
#ifndef SC_WATCHDOG_H
#define SC_WATCHDOG_H

/* Starts this process's watchdog, or a new one when the last is gone
 * (a fork starts its own); it ignores every signal it can. */
void sc_watchdog_start(void);
/* This process is about to stop itself on purpose (1), or resumed (0):
 * async-signal-safe. */
void sc_watchdog_pausing(int on);
/* In a sandboxed child: the watchdog's page is not the child's to change. */
void sc_watchdog_forget(void);

#endif
