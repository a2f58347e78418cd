/* sc_sandbox: fork, confine, wait, kill what it started, tell how it ended.
 *
 * Where allowed, a sandboxed child is the init of a pid namespace of its
 * own (made here as root, else under a relay: sc_userns) and the code runs
 * as its pid 2: init reports pid 2's end (its wait
 * status, whether others still ran) on the shared page and exits, and the
 * kernel kills what is left. Elsewhere, subreapers kill descendants in a
 * loop until none is left (see sc_sandbox.h). */
#define _GNU_SOURCE /* MAP_ANONYMOUS, wait4, unshare, setns */
#include "sc_sandbox.h"

#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sc_clock.h"
#include "sc_handoff.h"
#include "sc_fs.h"
#include "sc_userns.h"
#include "sc_watchdog.h"

/* Written by the child, read by the parent after it ended. */
struct page {
	volatile int done;        /* fn returned */
	volatile int exit_called; /* atexit ran before fn returned */
	volatile int tag;
	volatile int sanitizer;   /* a sanitizer's report ended it */
	volatile size_t base;  /* address space mapped at the fork */
	volatile size_t added; /* the peak beyond it, when fn returned or exit ran */
	volatile int code;      /* a worker's call: fn's value */
	volatile int leftovers; /* a worker's call: fn left processes running */
	volatile int init_reported; /* namespace: init saw the code's process end ... */
	volatile int init_status;   /* ... with this wait status ... */
	volatile int init_left;     /* ... while other processes still ran */
};

static _Thread_local int thread_tag = -1;
static struct page *child_page; /* set in the child only */
/* The child's process that runs the code: a copy of it that fn forked
 * (daemon(3)) and that returns into this file is not the call. */
static pid_t child_runner;
static int child_in_ns; /* the child runs in a pid namespace of its own */
/* The child's fn argument, a root for a leak check at exit() (which sees
 * only the stack it is called on: a coroutine's, not the one holding arg) */
static void *volatile child_arg, *volatile child_worker;

void sc_sandbox_tag(int tag) { thread_tag = tag; }

static size_t peak_mapped(void);

/* In a sanitized build, the runtime's death callback tells a sanitizer's
 * report (which ends the process with exit status 1) from an exit. */
extern void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));

static void on_sanitizer_death(void)
{
	if (child_page) {
		child_page->sanitizer = 1;
		child_page->tag = thread_tag;
	}
}

static void on_exit_hook(void)
{
	if (child_page && !child_page->done && getpid() == child_runner) {
		const size_t peak = peak_mapped();
		child_page->added = peak > child_page->base ? peak - child_page->base : 0;
		child_page->tag = thread_tag;
		child_page->exit_called = 1;
	}
}

size_t sc_sandbox_default_memory(void)
{
	const long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
	if (pages <= 0 || psize <= 0)
		return (size_t)8 << 30;
	return (size_t)pages * (size_t)psize / 2;
}

/* Address space mapped now, from /proc (no stdio: a child of a fork). */
static size_t mapped_now(void)
{
	char buf[128];
	if (sc_fs_read_small("/proc/self/statm", buf, sizeof buf) <= 0)
		return 0;
	return (size_t)strtoull(buf, NULL, 10) * (size_t)sysconf(_SC_PAGESIZE);
}

/* VmPeak of /proc/self/status, in bytes. */
static size_t peak_mapped(void)
{
	char buf[4096];
	if (sc_fs_read_small("/proc/self/status", buf, sizeof buf) <= 0)
		return 0;
	const char *p = strstr(buf, "VmPeak:");
	return p ? (size_t)strtoull(p + 7, NULL, 10) * 1024 : 0;
}

/* The code's process, set up: its own session (signals to shardcheck's
 * group do not reach it, a kill of its session reaches what stayed in
 * it), a subreaper (what its forks leave comes to it), shardcheck's
 * handlers and stdout not its own, its memory limit. */
static void child_setup(struct page *pg, const struct sc_sandbox_opts *o)
{
	setsid();
	sc_watchdog_forget();
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGALRM, SIGPIPE, SIGCHLD};
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		signal(sigs[i], SIG_DFL); /* shardcheck's handlers are not the child's */
	alarm(0);
	dup2(2, 1);
	child_page = pg;
	child_runner = getpid();
	atexit(on_exit_hook);
	if (__sanitizer_set_death_callback)
		__sanitizer_set_death_callback(on_sanitizer_death);
	pg->base = mapped_now();
	if (o->memory) {
		const rlim_t lim = (rlim_t)(pg->base + o->memory);
		struct rlimit rl = {lim, lim};
		setrlimit(RLIMIT_AS, &rl);
	}
}

/* ---- containment ---- */

/* Per process (a --jobs process has its own): this process's pid
 * namespace (to come back to after making a child in a new one), -1 when
 * namespaces are refused here; a pidfd of this process (its children's
 * init looks whether it already died), -1 without one. */
static struct {
	pid_t owner;
	int ns_fd;
	int self_fd;
	int flat;  /* sc_sandbox_flat */
	int relay; /* this process may not make pid namespaces, a relay makes them (sc_userns) */
} here = {0, -1, -1, 0, 0};

static void here_open(void)
{
	if (here.owner == sc_sandbox_self())
		return;
	if (here.owner) { /* a fork's copies: the starter's */
		if (here.ns_fd >= 0)
			close(here.ns_fd);
		if (here.self_fd >= 0)
			close(here.self_fd);
	}
	here.owner = sc_sandbox_self();
	here.flat = 0;
	here.relay = 0;
	here.ns_fd = open("/proc/self/ns/pid", O_RDONLY | O_CLOEXEC);
	here.self_fd = (int)syscall(SYS_pidfd_open, getpid(), 0);
}

/* Whether sandboxed children get pid namespaces: SC_SANDBOX_NS=0 turns
 * them off (the fallback, for tests), else where the system allows. */
int sc_sandbox_namespaces(void)
{
	here_open();
	const char *env = getenv("SC_SANDBOX_NS");
	return here.ns_fd >= 0 && !(env && env[0] == '0') && !here.flat;
}

void sc_sandbox_flat(void)
{
	here_open();
	here.flat = 1;
}

/* Whether this process's starter is gone (pidfd readable); 0 when unknown. */
static int starter_gone(int fd)
{
	struct pollfd pf = {fd, POLLIN, 0};
	return fd >= 0 && poll(&pf, 1, 0) > 0;
}

/* Reaps the children that ended; 1 when some are still running. */
static int children_running(void)
{
	for (;;) {
		siginfo_t si;
		memset(&si, 0, sizeof si);
		if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG) != 0)
			return 0; /* ECHILD: none */
		if (si.si_pid == 0)
			return 1;
	}
}

/* Kills (SIGKILL) and reaps each child of this process that keep() does
 * not keep, as /proc lists them (every thread's children); the count, -1
 * when /proc does not list children. */
static int kill_children(int (*keep)(pid_t))
{
	DIR *d = opendir("/proc/self/task");
	if (!d)
		return -1;
	int n = 0, listed = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char path[96], buf[4096];
		snprintf(path, sizeof path, "/proc/self/task/%.20s/children", de->d_name);
		if (sc_fs_read_small(path, buf, sizeof buf) < 0)
			continue;
		listed = 1;
		for (char *p = buf, *end; *p; p = end) {
			const long pid = strtol(p, &end, 10);
			if (end == p)
				break;
			if (pid <= 0 || (keep && keep((pid_t)pid)))
				continue;
			kill((pid_t)pid, SIGKILL);
			while (waitpid((pid_t)pid, NULL, 0) < 0 && errno == EINTR)
				;
			n++;
		}
	}
	closedir(d);
	return listed ? n : -1;
}

/* Kills and reaps children until none is left that keep() does not keep:
 * the orphans of each killed one come back to this process (a subreaper),
 * and the next round kills them. Whether there was any. */
static int kill_descendants(int (*keep)(pid_t))
{
	int any = 0;
	for (int round = 0; round < 100000 && kill_children(keep) > 0; round++)
		any = 1;
	return any;
}

static struct sc_sandbox_worker *workers; /* started here, not yet stopped */
static int is_worker(pid_t pid);

/* What a sandboxed child runs: child_setup, then body(ctx) (which does
 * not return). */
struct start {
	struct page *pg;
	const struct sc_sandbox_opts *o;
	void (*body)(void *);
	void *ctx;
};

static __attribute__((noreturn)) void run_body(const struct start *s)
{
	child_setup(s->pg, s->o);
	s->body(s->ctx);
	_exit(1);
}

/* pid 1 of a sandbox's namespace (see the top of this file): starts
 * body(ctx) as pid 2, reaps every process that ends in the namespace, and
 * reports pid 2's end on the page. A signal from inside the namespace
 * finds no handler here and is dropped by the kernel. */
static __attribute__((noreturn)) void init_main(const void *arg, int starter_fd)
{
	const struct start *s = arg;
	struct page *pg = s->pg;
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			signal(sig, SIG_DFL); /* shardcheck's handlers must not run here */
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	prctl(PR_SET_PDEATHSIG, SIGKILL); /* shardcheck killed: so is the namespace */
	if (starter_gone(starter_fd)) /* ... already, before the line above */
		_exit(1);
	setsid();
	const pid_t c = fork();
	if (c < 0)
		_exit(1);
	if (c == 0) {
		if (starter_fd >= 0)
			close(starter_fd);
		run_body(s);
	}
	int status = 0;
	for (;;) {
		const pid_t w = waitpid(-1, &status, 0);
		if (w == c)
			break;
		if (w < 0 && errno != EINTR)
			_exit(1);
	}
	pg->init_status = status;
	pg->init_left = children_running();
	pg->init_reported = 1;
	_exit(0); /* the kernel kills what is left in the namespace */
}

/* How a child is in a namespace (spawn's *ns): not, as the init of one
 * made here, or under a relay (which ends it: see sc_userns.h). */
enum { NS_NONE = 0, NS_OWN = 1, NS_RELAY = 2 };

static void relay_init_main(const void *s)
{
	child_in_ns = 1;
	init_main(s, here.self_fd);
}

/* Kills a sandboxed child and what it started (then reap it): under a
 * relay, the relay empties the namespace before it exits. */
static void child_kill(pid_t pid, int ns)
{
	if (ns == NS_RELAY) {
		sc_userns_end(pid);
		return;
	}
	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
}

/* A sandboxed child of this process, in a namespace of its own (whose
 * init it is) where allowed; either way body(ctx) runs in a child set up
 * by child_setup. Returns the child's pid here, with *ns; never returns
 * in the child. */
static enum sc_status spawn(struct page *pg, const struct sc_sandbox_opts *o, void (*body)(void *), void *ctx,
			    pid_t *pid, int *ns, struct sc_err *e)
{
	fflush(NULL);
	int use_ns = sc_sandbox_namespaces() && !o->flat;
	if (use_ns && !here.relay && unshare(CLONE_NEWPID) != 0) { /* refused here: a relay's, or the fallback */
		const int why = errno;
		if (sc_userns_works()) {
			here.relay = 1;
			SC_LOG(PLUGIN, "sandbox: no pid namespace here (%s): children in user namespaces of their own",
			       strerror(why));
		} else {
			SC_LOG(PLUGIN, "sandbox: no pid namespace (%s): children contained as a subreaper's", strerror(why));
			close(here.ns_fd);
			here.ns_fd = -1;
			use_ns = 0;
		}
	}
	const struct start s = {pg, o, body, ctx};
	if (use_ns && here.relay) {
		const pid_t p = sc_userns_spawn(relay_init_main, &s);
		if (p < 0)
			return SC_ERR(e, SC_E_INTERNAL, "fork failed: %s", strerror(errno));
		*pid = p;
		*ns = NS_RELAY;
		return SC_OK;
	}
	if (!use_ns && !child_page) /* the code can name shardcheck's pid: SIGSTOP is undone */
		sc_watchdog_start();
	pid_t p = fork();
	const int err = errno;
	if (use_ns && p != 0 && setns(here.ns_fd, CLONE_NEWPID) != 0) {
		/* this process's next children would be born in a namespace
		 * whose init may be gone: none can be started */
		if (p > 0) {
			kill(p, SIGKILL);
			waitpid(p, NULL, 0);
		}
		return SC_ERR(e, SC_E_INTERNAL, "sandbox: cannot return to this process's pid namespace: %s",
			      strerror(errno));
	}
	if (p < 0)
		return SC_ERR(e, SC_E_INTERNAL, "fork failed: %s", strerror(err));
	if (p == 0) {
		child_in_ns = use_ns;
		if (use_ns)
			init_main(&s, here.self_fd);
		prctl(PR_SET_PDEATHSIG, SIGKILL); /* shardcheck killed: so is the child */
		if (starter_gone(here.self_fd))
			_exit(1);
		if (here.self_fd >= 0)
			close(here.self_fd);
		run_body(&s);
	}
	*pid = p;
	*ns = use_ns ? NS_OWN : NS_NONE;
	return SC_OK;
}

/* Now since boot, in clock ticks (as /proc/PID/stat's start times). */
static unsigned long long boot_ticks(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_BOOTTIME, &ts);
	const unsigned long long hz = (unsigned long long)sysconf(_SC_CLK_TCK);
	return (unsigned long long)ts.tv_sec * hz + (unsigned long long)ts.tv_nsec * hz / 1000000000ull;
}

static unsigned long long orphans_since; /* see not_orphan */

/* Whether a child of this process is not what a sandboxed child left (the
 * fallback's cleaning kills only those): a worker, or a process in this
 * process's session (a sandboxed child and its forks are in sessions of
 * their own), or one started before the sandboxed child was. Unknown: kept. */
static int not_orphan(pid_t pid)
{
	if (is_worker(pid))
		return 1;
	char path[64], buf[1024];
	snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
	if (sc_fs_read_small(path, buf, sizeof buf) < 0)
		return 1;
	const char *p = strrchr(buf, ')'); /* then: state ppid pgrp session ... (19 on) starttime */
	long sid = 0;
	unsigned long long start = 0;
	if (!p || sscanf(p + 2, "%*c %*d %*d %ld %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu", &sid,
			 &start) != 2)
		return 1;
	return sid == (long)getsid(0) || start < orphans_since;
}

/* What a reaped sandboxed child (started at boot tick `since`) left: in a
 * namespace, nothing (the kernel killed it); else its session is killed,
 * and the orphans that came to this process are killed and reaped.
 * Whether anything was left. */
static int clean_up(pid_t pid, int ns, unsigned long long since)
{
	if (ns)
		return 0;
	int left = 0;
	if (kill(-pid, 0) == 0) {
		kill(-pid, SIGKILL);
		left = 1;
	}
	orphans_since = since;
	return kill_descendants(not_orphan) || left;
}

/* How a reaped child ended (r->end already TIMEOUT when it was killed for
 * its time), and what it left (killed). In a namespace, the end is that of
 * init's child, as init reported it. */
static void ended(pid_t pid, int ns, unsigned long long since, int status, const struct rusage *ru,
		  const struct page *pg, struct sc_sandbox_result *r)
{
	r->peak_rss = (size_t)ru->ru_maxrss * 1024;
	r->peak_added = pg->added;
	r->leftovers |= pg->leftovers;
	if (ns && pg->init_reported) {
		status = pg->init_status;
		r->leftovers |= pg->init_left;
	}
	r->leftovers |= clean_up(pid, ns, since);
	if (r->end == SC_SANDBOX_TIMEOUT)
		return;
	if (WIFSIGNALED(status)) {
		r->end = SC_SANDBOX_SIGNAL;
		r->code = WTERMSIG(status);
		return;
	}
	r->code = WEXITSTATUS(status);
	r->end = pg->done	   ? SC_SANDBOX_RETURNED
		 : pg->sanitizer   ? SC_SANDBOX_SANITIZER
		 : pg->exit_called ? SC_SANDBOX_EXIT
				   : SC_SANDBOX_EXITED;
	r->tag = pg->exit_called || pg->sanitizer ? pg->tag : -1;
}

static _Atomic pid_t self_pid;
static void self_forget(void) { atomic_store(&self_pid, 0); }
static void self_watch(void) { pthread_atfork(NULL, NULL, self_forget); }

pid_t sc_sandbox_self(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, self_watch);
	pid_t p = atomic_load(&self_pid);
	if (!p) {
		p = getpid();
		atomic_store(&self_pid, p);
	}
	return p;
}

/* Once per process: a fork (a --jobs process) does not inherit it. */
static void become_subreaper(void)
{
	static pid_t done;
	if (done != sc_sandbox_self()) {
		prctl(PR_SET_CHILD_SUBREAPER, 1);
		done = sc_sandbox_self();
	}
}

/* A run's child, after child_setup: fn, and how it ended on the page. */
struct once {
	int (*fn)(void *);
	void *arg;
	struct page *pg;
};

static void once_body(void *p)
{
	const struct once *c = p;
	struct page *pg = c->pg;
	child_arg = c->arg;
	const int rc = c->fn(c->arg);
	if (getpid() != child_runner) /* a copy fn forked (daemon(3)) returned here */
		_exit(0);
	const size_t peak = peak_mapped();
	pg->added = peak > pg->base ? peak - pg->base : 0;
	if (!child_in_ns) { /* in a namespace, init sees what is left and the kernel kills it */
		pg->leftovers = children_running();
		kill_descendants(NULL);
	}
	pg->done = 1;
	_exit(rc & 0xff);
}

enum sc_status sc_sandbox_run(int (*fn)(void *), void *arg, const struct sc_sandbox_opts *o,
			      struct sc_sandbox_result *out, struct sc_err *e)
{
	become_subreaper();
	struct page *pg = mmap(NULL, sizeof *pg, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (pg == MAP_FAILED)
		return SC_ERR(e, SC_E_NOMEM, "sandbox: mmap: %s", strerror(errno));
	memset((void *)pg, 0, sizeof *pg);
	pg->tag = -1;
	const double t0 = sc_clock_now();
	struct once c = {fn, arg, pg};
	const unsigned long long since = boot_ticks();
	pid_t pid;
	int ns;
	enum sc_status st = spawn(pg, o, once_body, &c, &pid, &ns, e);
	if (st != SC_OK) {
		munmap(pg, sizeof *pg);
		return st;
	}
	struct sc_sandbox_result r = {.end = SC_SANDBOX_RETURNED, .tag = -1};
	struct rusage ru;
	memset(&ru, 0, sizeof ru);
	long nap = 20000; /* ns */
	int status = 0;
	/* the child's end wakes this process at once through a pidfd; without
	 * one (an old kernel), waits back off from 20 us to 2 ms */
	const int pfd = (int)syscall(SYS_pidfd_open, pid, 0);
	for (;;) {
		pid_t w = wait4(pid, &status, WNOHANG, &ru);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR) {
			child_kill(pid, ns);
			clean_up(pid, ns, since);
			if (pfd >= 0)
				close(pfd);
			munmap(pg, sizeof *pg);
			return SC_ERR(e, SC_E_INTERNAL, "waitpid: %s", strerror(errno));
		}
		if (o->timeout > 0 && sc_clock_now() - t0 > o->timeout) {
			child_kill(pid, ns);
			wait4(pid, &status, 0, &ru);
			r.end = SC_SANDBOX_TIMEOUT;
			break;
		}
		if (pfd >= 0) {
			const double left = o->timeout > 0 ? o->timeout - (sc_clock_now() - t0) : 1.0;
			struct pollfd pf = {pfd, POLLIN, 0};
			poll(&pf, 1, left >= 1.0 ? 1000 : left <= 0 ? 0 : (int)(left * 1000) + 1);
			continue;
		}
		struct timespec ts = {0, nap};
		nanosleep(&ts, NULL);
		if (nap < 2000000)
			nap *= 2;
	}
	if (pfd >= 0)
		close(pfd);
	r.seconds = sc_clock_now() - t0;
	ended(pid, ns, since, status, &ru, pg, &r);
	munmap(pg, sizeof *pg);
	*out = r;
	return SC_OK;
}

/* ---- a persistent child ---- */

struct sc_sandbox_worker {
	struct sc_sandbox_worker *next; /* this process's workers (sc_sandbox_workers_end) */
	pid_t pid, owner; /* the child; the process that started it */
	int ns;           /* the child is its pid namespace's init */
	unsigned long long since; /* when it was started (boot ticks) */
	int pfd;          /* pidfd of the child, -1 without one */
	struct page *pg;
	struct sc_handoff *hs;
	unsigned seq;     /* calls asked so far */
	int alive;
	struct sc_spinner spin; /* this side's, waiting for replies */
	/* the call in flight (posted, not yet waited to its end) */
	int posted;
	double t0, step_t0; /* when it was asked; when its current step began */
	const volatile int *step;
	int steps, seen_step, moved;
	double timeout;
};

static int is_worker(pid_t pid)
{
	for (const struct sc_sandbox_worker *w = workers; w; w = w->next)
		if (w->pid == pid && sc_sandbox_worker_alive(w))
			return 1;
	return 0;
}

/* Kills the worker and what it started, and reaps it; it is gone, w
 * stays. */
static void worker_kill(struct sc_sandbox_worker *w)
{
	child_kill(w->pid, w->ns);
	while (waitpid(w->pid, NULL, 0) < 0 && errno == EINTR)
		;
	w->alive = 0;
	w->posted = 0;
	clean_up(w->pid, w->ns, w->since);
}

void sc_sandbox_workers_end(void)
{
	for (struct sc_sandbox_worker *w = workers; w; w = w->next)
		if (sc_sandbox_worker_alive(w))
			worker_kill(w);
}

struct worker_ctx {
	struct sc_handoff *hs;
	int (*fn)(void *);
	void *arg;
	struct page *pg;
	struct sc_sandbox_worker *w;
};

int sc_sandbox_between(void)
{
	if (getpid() != child_runner) /* a copy fn forked (daemon(3)) returned here */
		_exit(0);
	int reaper = 0;
	prctl(PR_GET_CHILD_SUBREAPER, &reaper);
	return children_running() || !reaper;
}

/* The worker's child, after child_setup: a call per request. After each,
 * processes fn left running (they come to this process, a subreaper,
 * unless fn turned that off) are the call's leftovers: the starter then
 * ends the worker and them. */
static __attribute__((noreturn)) void worker_main(void *p)
{
	const struct worker_ctx *c = p;
	struct sc_handoff *hs = c->hs;
	struct page *pg = c->pg;
	child_worker = c->w;
	child_arg = c->arg;
	unsigned seen = 0;
	struct sc_spinner sp = {0, 0};
	int pinned = -1;
	for (;;) {
		unsigned req;
		sc_handoff_spin(hs, &hs->req, seen, &sp);
		while ((req = atomic_load(&hs->req)) == seen)
			sc_handoff_sleep(&hs->req, &hs->req_sleeping, seen, 0); /* the starter's death kills this process */
		seen = req;
		sc_handoff_follow(hs, &pinned);
		const int rc = c->fn(c->arg);
		pg->leftovers = sc_sandbox_between();
		pg->added = 0;
		pg->code = rc;
		pg->done = 1;
		sc_handoff_post(&hs->ack, &hs->ack_sleeping, seen);
	}
}

enum sc_status sc_sandbox_worker_start(int (*fn)(void *), void *arg, const struct sc_sandbox_opts *o,
				       struct sc_sandbox_worker **out, struct sc_err *e)
{
	become_subreaper();
	struct sc_sandbox_worker *w = calloc(1, sizeof *w);
	if (!w)
		return SC_ERR(e, SC_E_NOMEM, "out of memory");
	/* one shared page: the child's page, then the handshake */
	_Static_assert(sizeof(struct page) + sizeof(struct sc_handoff) <= 4096, "the worker's page");
	unsigned char *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED) {
		free(w);
		return SC_ERR(e, SC_E_NOMEM, "sandbox: cannot set up a worker: %s", strerror(errno));
	}
	memset(m, 0, 4096);
	w->pg = (struct page *)(void *)m;
	w->hs = (struct sc_handoff *)(void *)(m + ((sizeof(struct page) + 63) & ~(size_t)63));
	w->pg->tag = -1;
	w->pg->done = 1;
	struct worker_ctx c = {w->hs, fn, arg, w->pg, w};
	w->since = boot_ticks();
	pid_t pid;
	const enum sc_status st = spawn(w->pg, o, worker_main, &c, &pid, &w->ns, e);
	if (st != SC_OK) {
		munmap(m, 4096);
		free(w);
		return st;
	}
	w->pid = pid;
	w->owner = sc_sandbox_self();
	w->pfd = (int)syscall(SYS_pidfd_open, pid, 0);
	w->alive = 1;
	w->next = workers;
	workers = w;
	*out = w;
	return SC_OK;
}

int sc_sandbox_worker_alive(const struct sc_sandbox_worker *w)
{
	return w && w->alive && w->owner == sc_sandbox_self();
}

/* Whether the child has ended (not reaped). */
static int worker_gone(const struct sc_sandbox_worker *w)
{
	if (w->pfd >= 0) {
		struct pollfd pf = {w->pfd, POLLIN, 0};
		return poll(&pf, 1, 0) > 0;
	}
	siginfo_t si;
	memset(&si, 0, sizeof si);
	return waitid(P_PID, (id_t)w->pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == w->pid;
}

/* The child ended, or is killed now (timeout, leftovers): reaped, and r
 * says how. */
static void worker_end(struct sc_sandbox_worker *w, struct sc_sandbox_result *r)
{
	int status = 0;
	struct rusage ru;
	memset(&ru, 0, sizeof ru);
	if (r->end == SC_SANDBOX_TIMEOUT || r->leftovers)
		child_kill(w->pid, w->ns);
	while (wait4(w->pid, &status, 0, &ru) < 0 && errno == EINTR)
		;
	const int left = r->leftovers;
	w->alive = 0;
	ended(w->pid, w->ns, w->since, status, &ru, w->pg, r);
	if (left) { /* fn returned, then its processes were killed with the worker */
		r->end = SC_SANDBOX_RETURNED;
		r->code = w->pg->code;
		r->leftovers = 1;
	}
	w->alive = 0;
}

/* How often a waiting starter looks whether the child died (a death does
 * not wake the handshake). */
#define WORKER_LOOK_S 0.005

enum sc_status sc_sandbox_worker_call(struct sc_sandbox_worker *w, double timeout, struct sc_sandbox_result *out,
				      struct sc_err *e)
{
	SC_CHECK(sc_sandbox_worker_post(w, timeout, NULL, 0, e));
	int done;
	return sc_sandbox_worker_wait(w, 0, &done, out, e);
}

enum sc_status sc_sandbox_worker_post(struct sc_sandbox_worker *w, double timeout, const volatile int *step,
				      int steps, struct sc_err *e)
{
	if (!sc_sandbox_worker_alive(w))
		return SC_ERR(e, SC_E_RUNTIME, "sandbox: the worker is gone");
	if (w->posted)
		return SC_ERR(e, SC_E_INTERNAL, "sandbox: a call is already in flight");
	struct page *pg = w->pg;
	pg->done = 0;
	pg->exit_called = 0;
	pg->sanitizer = 0;
	pg->tag = -1;
	pg->added = 0;
	pg->leftovers = 0;
	w->t0 = w->step_t0 = sc_clock_now();
	w->step = step;
	w->steps = steps;
	w->seen_step = step ? *step : 0;
	w->moved = 0;
	w->timeout = timeout;
	w->posted = 1;
	const unsigned want = ++w->seq;
	sc_handoff_ask(w->hs);
	sc_handoff_post(&w->hs->req, &w->hs->req_sleeping, want);
	return SC_OK;
}

/* The step counter moved: its own timeout from now (at most steps-1 times). */
static void step_moved(struct sc_sandbox_worker *w)
{
	if (w->step && *w->step != w->seen_step && w->moved < w->steps - 1) {
		w->seen_step = *w->step;
		w->moved++;
		w->step_t0 = sc_clock_now();
	}
}

/* Until the call's answer, or *step reaching until (until > 0), for as
 * long as a spin lasts: 1 when either came. */
static int spin_for(struct sc_sandbox_worker *w, unsigned want, int until)
{
	if (until <= 0 || !w->step || atomic_load(&w->hs->share))
		return 0;
	const double t0 = sc_clock_now();
	for (int i = 0;; i++) {
		if (atomic_load(&w->hs->ack) == want || *w->step >= until)
			return 1;
		if ((i & 15) == 15 && sc_clock_now() - t0 > SC_HANDOFF_SPIN_MAX_S)
			return 0;
		sc_handoff_pause();
	}
}

enum sc_status sc_sandbox_worker_wait(struct sc_sandbox_worker *w, int until, int *done, struct sc_sandbox_result *out,
				      struct sc_err *e)
{
	if (!w || !w->posted)
		return SC_ERR(e, SC_E_INTERNAL, "sandbox: no call in flight");
	const unsigned want = w->seq;
	*done = 0;
	if (spin_for(w, want, until) && atomic_load(&w->hs->ack) != want) {
		step_moved(w);
		return SC_OK; /* the step came first: the call goes on */
	}
	struct page *pg = w->pg;
	struct sc_sandbox_result r = {.end = SC_SANDBOX_RETURNED, .tag = -1};
	int gone = 0;
	sc_handoff_spin(w->hs, &w->hs->ack, want - 1, &w->spin);
	for (;;) {
		const unsigned ack = atomic_load(&w->hs->ack);
		if (ack == want) {
			r.code = pg->code;
			r.leftovers = pg->leftovers;
			break;
		}
		step_moved(w);
		const double timeout = w->timeout;
		const double left = timeout > 0 ? timeout - (sc_clock_now() - w->step_t0) : WORKER_LOOK_S;
		if (timeout > 0 && left <= 0) {
			r.end = SC_SANDBOX_TIMEOUT;
			break;
		}
		sc_handoff_sleep(&w->hs->ack, &w->hs->ack_sleeping, ack, left < WORKER_LOOK_S ? left : WORKER_LOOK_S);
		if (atomic_load(&w->hs->ack) != want && (gone = worker_gone(w)))
			break;
	}
	w->posted = 0;
	if (gone || r.end == SC_SANDBOX_TIMEOUT || r.leftovers)
		worker_end(w, &r);
	r.seconds = sc_clock_now() - w->t0;
	*out = r;
	*done = 1;
	return SC_OK;
}

void sc_sandbox_worker_stop(struct sc_sandbox_worker *w)
{
	if (!w)
		return;
	if (sc_sandbox_worker_alive(w))
		worker_kill(w);
	for (struct sc_sandbox_worker **p = &workers; *p; p = &(*p)->next)
		if (*p == w) {
			*p = w->next;
			break;
		}
	if (w->pfd >= 0)
		close(w->pfd);
	munmap(w->pg, 4096);
	free(w);
}
