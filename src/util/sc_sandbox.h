/* sc_sandbox: runs untrusted code (a plugin's registration, a plugin's
 * transform) in a forked child that cannot take shardcheck down with it.
 *
 * Every process the code starts ends with its run, whatever it does
 * (setsid, double forks, daemon(3)): where the system allows, the child is
 * the init of a pid namespace of its own (made here as root, else by a
 * relay in a user namespace: sc_userns) and the code runs as its pid 2,
 * so its end kills the namespace, and no pid of shardcheck can be named
 * (or signalled) from inside; elsewhere the child runs in a session of its
 * own as a subreaper that kills its descendants until none is left, and
 * shardcheck does the same with what a dead child leaves. A process still
 * running when the code ended is reported (leftovers), then killed. The
 * child's stdout goes to stderr (a plugin's printf cannot corrupt `--json
 * -`), under an address space limit counted from what the child already
 * maps at the fork, and under a wall-clock timeout. How it ended is told
 * apart: the function returned, the code called exit() (and on which
 * tagged thread), _exit, a signal, the timeout, processes left behind. */
#ifndef SC_SANDBOX_H
#define SC_SANDBOX_H

#include <stddef.h>
#include <sys/types.h>

#include "sc_status.h"

enum sc_sandbox_end {
	SC_SANDBOX_RETURNED, /* fn returned; code is its value */
	SC_SANDBOX_EXIT,     /* the child called exit(code) (atexit ran) */
	SC_SANDBOX_EXITED,   /* the child ended by _exit(code) without returning */
	SC_SANDBOX_SANITIZER, /* a sanitizer (ASan, UBSan) reported an error and ended it */
	SC_SANDBOX_SIGNAL,   /* killed by signal `code` */
	SC_SANDBOX_TIMEOUT   /* still running after the timeout: killed */
};

struct sc_sandbox_opts {
	double timeout; /* seconds; 0: none */
	size_t memory;  /* bytes of address space the child may add; 0: no limit */
	int flat;       /* no pid namespace of its own (a child that makes a CUDA context:
			 * the driver reads /proc by the pid a namespace changes), contained
			 * as a subreaper's children are */
};

struct sc_sandbox_result {
	enum sc_sandbox_end end;
	int code;
	int tag;          /* sc_sandbox_tag of the thread that called exit() (-1: none) */
	int leftovers;    /* processes the child started still running when it ended (killed) */
	size_t peak_rss;  /* bytes */
	size_t peak_added; /* address space added at its peak, when it returned or called exit (else 0) */
	double seconds;
};

/* Runs fn(arg) in a child (see above); *out says how it ended. Fails only
 * when the child cannot be started. */
enum sc_status sc_sandbox_run(int (*fn)(void *), void *arg, const struct sc_sandbox_opts *o,
			      struct sc_sandbox_result *out, struct sc_err *e);
/* A persistent sandboxed child (a fork server without the forks): it is
 * set up as sc_sandbox_run's child is, then runs fn(arg) once per
 * sc_sandbox_worker_call, with what fn changed kept between calls. It
 * is its own subreaper, so processes fn forks and leaves running are seen
 * after each call. A call that does not end with fn returning (the child
 * died, hung or left processes) ends the worker and all it started: the
 * worker is then gone, and the next call fails with SC_E_RUNTIME. */
struct sc_sandbox_worker;
enum sc_status sc_sandbox_worker_start(int (*fn)(void *), void *arg, const struct sc_sandbox_opts *o,
				       struct sc_sandbox_worker **out, struct sc_err *e);
/* One run of fn in the worker, under timeout seconds (0: none); *out as
 * sc_sandbox_run's (peak_added: 0 unless the child called exit). */
enum sc_status sc_sandbox_worker_call(struct sc_sandbox_worker *w, double timeout, struct sc_sandbox_result *out,
				      struct sc_err *e);
/* In a worker's child, between two pieces of work of one call (and after
 * the last): 1 when processes the code started are still running, or it
 * turned off their reaping (the call's leftovers, told after it); 0 when
 * the call may go on. A copy of the child that the code forked (daemon(3))
 * and that returns into the call is ended here. */
int sc_sandbox_between(void);
/* The same in two halves, so that the starter can work while the child
 * does: post asks for the call, of `steps` pieces of work each under its
 * own timeout (*step, written by the child, changes as each piece starts,
 * and each of its first steps-1 changes starts the timeout anew: a child
 * that keeps changing it gets at most steps timeouts; step NULL: one
 * piece). wait, with until > 0, returns as soon as *step reaches until
 * while the call goes on (*done 0; only while both sides spin, else it
 * waits for the end), and otherwise waits for the call's end as
 * sc_sandbox_worker_call does (*done 1, *out set). A worker has one call
 * in flight at a time. */
enum sc_status sc_sandbox_worker_post(struct sc_sandbox_worker *w, double timeout, const volatile int *step,
				      int steps, struct sc_err *e);
enum sc_status sc_sandbox_worker_wait(struct sc_sandbox_worker *w, int until, int *done,
				      struct sc_sandbox_result *out, struct sc_err *e);
/* Whether the worker still runs calls, in this process (a process forked
 * from its starter does not own it). */
int sc_sandbox_worker_alive(const struct sc_sandbox_worker *w);
/* Ends the worker (it and all it started killed, reaped) and frees w; in a process that
 * does not own it, only this process's handles are dropped. NULL-safe. */
void sc_sandbox_worker_stop(struct sc_sandbox_worker *w);
/* Ends every worker this process started and still runs (kept as handles
 * that say they are gone): before a process that started workers exits,
 * so none is left for its parent to reap. */
void sc_sandbox_workers_end(void);
/* This process's id, kept from the first call until a fork (getpid is a
 * system call; the plugin runner asks once per case whether it is still
 * in the process that started its worker). */
pid_t sc_sandbox_self(void);
/* Whether this process's sandboxed children get pid namespaces of their
 * own: where the system allows it (CAP_SYS_ADMIN), unless SC_SANDBOX_NS=0
 * is in the environment (the fallback, for its tests). */
int sc_sandbox_namespaces(void);
/* This process's sandboxed children no longer get namespaces of their
 * own: they are contained as the fallback contains them, within the
 * namespace this process runs in (a fork server inside a sandbox, whose
 * end kills what they leave anyway). */
void sc_sandbox_flat(void);
/* Inside fn: tags the calling thread (a rank), for exit() reports. */
void sc_sandbox_tag(int tag);
/* The default memory limit: half the machine's physical memory. */
size_t sc_sandbox_default_memory(void);
/* "exit(3) called on rank 1", "killed by signal 11 (Segmentation fault)",
 * ... (what the end was, in words; tag_name labels tags, e.g. "rank"). */
void sc_sandbox_describe(const struct sc_sandbox_result *r, const char *tag_name, char *buf, size_t n);

#endif
