/* sc_inflight: handlers that may only call async-signal-safe functions;
 * hence one file-scope block of state, filled in normal context (before
 * a case runs, after a check ends) and only read by the handlers, except
 * the flag `sig` they set.
 *
 * Why two stages (see the header): writing report.json needs malloc and
 * stdio, which a handler must not call (the signal may have come inside
 * malloc). So the handler only sets the flag and the run, which polls it
 * between cases, writes everything in normal context. A case can fail
 * to return (a hung plugin, a huge case): then the grace alarm (or a
 * second signal) takes the last-resort path, which writes bytes the run
 * prepared in advance:
 *   - report.json as it stands after the last finished check, and
 *     junit.xml's testcases: each head rendered once, each result appended
 *     once as it comes (the bytes go in past the published length, then a
 *     second {pointer, length} slot is filled and the index the handler
 *     reads flips to it; a buffer outgrown is freed only after the flip);
 *   - the case text, formatted before the case ran (always where cases
 *     can hang or crash, else once a signal came).
 * Processes: the one that called sc_inflight_watch owns the run; a worker
 * it forked (--jobs, fuzz jobs) keeps its process group and only sets the
 * flag; a plugin's sandbox has a group of its own and dies of the signal
 * (it resets the handlers anyway). */
#include "sc_inflight.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sc_casefile.h"
#include "sc_fs.h"
#include "sc_limits.h"
#include "sc_sandbox.h"
#include "sc_sigfrom.h"
#include "sc_sigsafe.h"
#include "sc_watchdog.h"

#define GRACE_S 3 /* how long a case in flight may take to return after the signal */
/* A signal this soon after the first is the same one again (sent to the
 * process and to its group, as timeout(1) and many CI runners do), not a
 * second ^C that asks to stop at once. */
#define SAME_SIGNAL_S 1.0

/* Text that grows in normal context while a handler may read it: the
 * handler reads slot[i] (i -1: nothing yet); counts of junit's kinds. */
struct grow {
	char *buf;
	size_t len, cap;
	struct {
		const char *p;
		size_t len;
		int n, fails, errors;
	} slot[2];
	volatile sig_atomic_t i;
	int n, fails, errors;
};

static struct {
	char path[1024], tmp[1100];
	char text[4096];
	volatile sig_atomic_t len;
	int leader, rank, nprocs, err_fd;
	pid_t pid;  /* the process that armed the handlers */
	pid_t pgrp; /* its process group: a --jobs or fuzz worker shares it, a plugin's sandbox does not */
	double seconds;
	int per_case_text; /* each case formatted before it runs */
	int immediate;     /* one process per rank: a signal ends the process at once */
	volatile sig_atomic_t sig;
	struct timespec sig_at; /* when it came (CLOCK_MONOTONIC) */
	struct sc_check_opts *co; /* its deadline moved to now once a signal came */
	const char *backend;
	const char *kept; /* a case already on disk (repro's) */
	/* the case in flight (normal context) */
	struct sc_target *cur_t;
	const struct sc_property *cur_p;
	struct sc_case cur;
	int have_cur;
	/* the last resort's report.json: head (status at [sa, sb)), then the
	 * results rendered so far; and junit.xml's testcases */
	char rpath[1100], rtmp[1100], rdir[1024], jpath[1100], jtmp[1100], jname[200];
	char *head;
	size_t hlen, sa, sb;
	struct grow json, junit;
	int rendered;
	char reason[160];
	const pid_t *kids;
	const int *nkids;
	/* the other processes of the launch (one per rank) */
	char ends[1024]; /* their keepers' files: ends + rank */
	pid_t peer[SC_MAX_WORLD];
	char here[SC_MAX_WORLD]; /* on this host */
} fl = {.err_fd = 2, .json.i = -1, .junit.i = -1};

enum role { OWNER, WORKER, FOREIGN };

static enum role role(void)
{
	if (getpid() == fl.pid)
		return OWNER;
	return getpgrp() == fl.pgrp ? WORKER : FOREIGN;
}

static void die_of(int sig)
{
	signal(sig, SIG_DFL);
	raise(sig);
}

static void put(const char *s) { sc_sigsafe_write(fl.err_fd, s); }

static const char *sig_name(int sig)
{
	switch (sig) {
	case SIGSEGV: return "SIGSEGV";
	case SIGBUS: return "SIGBUS";
	case SIGFPE: return "SIGFPE";
	case SIGILL: return "SIGILL";
	case SIGABRT: return "SIGABRT";
	case SIGTERM: return "SIGTERM";
	case SIGINT: return "SIGINT";
	case SIGHUP: return "SIGHUP";
	case SIGALRM: return "SIGALRM";
	case SIGKILL: return "SIGKILL";
	case SIGQUIT: return "SIGQUIT";
	case SIGPIPE: return "SIGPIPE";
	case SIGUSR1: return "SIGUSR1";
	case SIGUSR2: return "SIGUSR2";
	case SIGXCPU: return "SIGXCPU";
	}
	return NULL;
}

/* "SIGKILL", or "signal 37" (buf: 24 bytes) */
static const char *sig_text(int sig, char *buf)
{
	const char *s = sig_name(sig);
	if (s)
		return s;
	strcpy(buf, "signal ");
	sc_sigsafe_num(buf + 7, sig);
	return buf;
}

/* The case with a first line "# WHAT", saved atomically; 0 when no case
 * text is at hand. */
static int save(const char *what1, const char *what2)
{
	if (fl.len <= 0 || !fl.path[0])
		return 0;
	int fd = open(fl.tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return 0;
	ssize_t w = write(fd, "# ", 2);
	w = write(fd, what1, strlen(what1));
	w = write(fd, what2, strlen(what2));
	w = write(fd, "\n", 1);
	w = write(fd, fl.text, (size_t)fl.len);
	(void)w;
	close(fd);
	return rename(fl.tmp, fl.path) == 0;
}

/* A rank's crash is already on disk (mpirun then terminated the others). */
static int crash_saved(void)
{
	char head[128] = "";
	int fd = open(fl.path, O_RDONLY);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, head, sizeof head - 1);
	close(fd);
	head[n > 0 ? n : 0] = '\0';
	return strstr(head, " crashed") != NULL;
}

static void tell(const char *msg, int with_case)
{
	put(msg);
	if (fl.len > 0) {
		put(" saved to ");
		put(fl.path);
		put("\n");
		if (with_case) {
			ssize_t w = write(fl.err_fd, fl.text, (size_t)fl.len);
			(void)w;
		}
	} else if (fl.kept) {
		put(" kept: the case is ");
		put(fl.kept);
		put("\n");
	} else {
		put("\n");
	}
}

/* junit.xml of the results so far: counts, then the testcases. */
static void emit_junit(const char *status, const char *reason)
{
	const int i = fl.junit.i;
	if (i < 0)
		return;
	int fd = open(fl.jtmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return;
	const int n = fl.junit.slot[i].n, f = fl.junit.slot[i].fails, er = fl.junit.slot[i].errors;
	for (int k = 0; k < 2; k++) {
		sc_sigsafe_write(fd, k ? "  <testsuite name=\"" : "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"");
		sc_sigsafe_write(fd, k ? fl.jname : "shardcheck");
		sc_sigsafe_write(fd, "\" tests=\"");
		sc_sigsafe_write_num(fd, n);
		sc_sigsafe_write(fd, "\" failures=\"");
		sc_sigsafe_write_num(fd, f);
		sc_sigsafe_write(fd, "\" errors=\"");
		sc_sigsafe_write_num(fd, er);
		sc_sigsafe_write(fd, "\">\n");
	}
	sc_sigsafe_write(fd, "    <properties><property name=\"status\" value=\"");
	sc_sigsafe_write(fd, status);
	sc_sigsafe_write(fd, "\"/><property name=\"reason\" value=\"");
	sc_sigsafe_write(fd, reason);
	sc_sigsafe_write(fd, "\"/></properties>\n");
	ssize_t w = write(fd, fl.junit.slot[i].p, fl.junit.slot[i].len);
	(void)w;
	sc_sigsafe_write(fd, "  </testsuite>\n</testsuites>\n");
	close(fd);
	rename(fl.jtmp, fl.jpath);
}

/* report.json (and junit.xml) as rendered so far, with this status and
 * reason; write(2) only. */
static void emit_report(const char *status, const char *reason)
{
	const int i = fl.json.i;
	if (i < 0 || !fl.leader || !fl.rpath[0])
		return;
	emit_junit(status, reason);
	int fd = open(fl.rtmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return;
	ssize_t w = write(fd, fl.head, fl.sa);
	w = write(fd, status, strlen(status));
	w = write(fd, fl.head + fl.sb, fl.hlen - fl.sb);
	w = write(fd, fl.json.slot[i].p, fl.json.slot[i].len);
	static const char mid[] = "\n], \"reason\": \"", end[] = "\"}\n";
	w = write(fd, mid, sizeof mid - 1);
	w = write(fd, reason, strlen(reason));
	w = write(fd, end, sizeof end - 1);
	(void)w;
	close(fd);
	rename(fl.rtmp, fl.rpath);
}

static void kill_kids(void)
{
	if (!fl.kids || !fl.nkids)
		return;
	for (int k = 0; k < *fl.nkids; k++)
		if (fl.kids[k] > 0)
			kill(fl.kids[k], SIGKILL);
}

static void set_reason(int sig)
{
	fl.reason[0] = '\0';
	sc_sigsafe_cat(fl.reason, sizeof fl.reason, "interrupted by ");
	sc_sigsafe_cat(fl.reason, sizeof fl.reason, sig_name(sig) ? sig_name(sig) : "a signal");
}

/* Stage 2: the run did not stop in time. */
static void last_resort(const char *why)
{
	const int sig = fl.sig;
	kill_kids();
	/* plugins' workers and their groups: sc_sandbox_workers_end calls only
	 * kill, waitpid, nanosleep and clock_gettime, over a list changed only
	 * when a worker starts or stops (between checks); a per-case sandbox
	 * dies with us (its parent-death signal) */
	sc_sandbox_workers_end();
	set_reason(sig);
	const int saved = !fl.kept && save("interrupted by ", sig_name(sig) ? sig_name(sig) : "a signal");
	if (fl.leader) {
		emit_report("interrupted", fl.reason);
		put("\nshardcheck: interrupted (");
		put(sig_name(sig) ? sig_name(sig) : "a signal");
		put("): not a fault of the code under test; ");
		put(why);
		if (fl.kept) {
			put("; the case is ");
			put(fl.kept);
		} else if (saved) {
			put("; the case in flight was saved to ");
			put(fl.path);
		} else {
			put("; the case in flight could not be saved");
		}
		if (fl.rpath[0] && fl.json.i >= 0) {
			put("; report: ");
			put(fl.rpath);
		}
		put("\n");
	}
	_exit(2);
}

/* The state of process pid on this host: 1 running, 0 gone (or a zombie). */
static int alive(pid_t pid)
{
	char p[64] = "/proc/", st[256];
	sc_sigsafe_num(p + 6, pid);
	sc_sigsafe_cat(p, sizeof p, "/stat");
	if (sc_fs_read_small(p, st, sizeof st) <= 0)
		return 0;
	const char *rp = strrchr(st, ')'); /* "pid (comm) S ..." */
	return !(rp && rp[1] == ' ' && (rp[2] == 'Z' || rp[2] == 'X'));
}

/* Rank k's keeper left word that k died of a signal: 1 and it in *psig. */
static int keeper_word(int k, int *psig)
{
	char p[1100];
	p[0] = '\0';
	sc_sigsafe_cat(p, sizeof p, fl.ends);
	char r[24];
	sc_sigsafe_num(r, k);
	sc_sigsafe_cat(p, sizeof p, r);
	char b[64];
	if (sc_fs_read_small(p, b, sizeof b) < 0)
		return 0;
	int s = 0;
	for (const char *q = strchr(b, ' '); q && *++q >= '0' && *q <= '9';)
		s = s * 10 + (*q - '0');
	*psig = s;
	return 1;
}

static int any_word(int *psig)
{
	for (int k = 0; fl.ends[0] && k < fl.nprocs && k < SC_MAX_WORLD; k++)
		if (k != fl.rank && keeper_word(k, psig))
			return k;
	return -1;
}

/* Another rank that ended first, and its signal (0: unknown); -1: none. */
static int peer_ended(int *psig)
{
	int k = any_word(psig);
	if (k >= 0)
		return k;
	int gone = -1; /* a peer on this host whose process is gone */
	for (k = 0; k < fl.nprocs && k < SC_MAX_WORLD && gone < 0; k++)
		if (k != fl.rank && fl.here[k] && fl.peer[k] > 0 && !alive(fl.peer[k]))
			gone = k;
	if (gone < 0)
		return -1;
	if (fl.ends[0]) {
		/* its keeper may not have written yet (mpirun can act on the lost
		 * connection first): a short wait, well within the second mpirun
		 * gives before SIGKILL. No word: it ended on the same interrupt
		 * (its keeper writes only for a signal the rank did not catch). */
		for (int i = 0; i < 25; i++) {
			const struct timespec ts = {0, 10000000};
			nanosleep(&ts, NULL);
			if ((k = any_word(psig)) >= 0)
				return k;
		}
		return -1;
	}
	/* no keepers: its absence is all there is (a peer that ended on the
	 * same interrupt a moment earlier would look the same) */
	*psig = 0;
	return gone;
}

/* One process per rank: the end, at once, with the cause named. */
static void ranks_end(int sig)
{
	if (crash_saved()) {
		if (fl.leader) {
			emit_report("aborted", "a rank crashed (see the case file's first line)");
			tell("\nshardcheck: aborting: the running case crashed another rank (its message is above);", 0);
		}
		_exit(2);
	}
	int psig = 0;
	const int k = peer_ended(&psig);
	if (k >= 0) {
		char r[24], sb[24], what[128] = "rank ";
		sc_sigsafe_num(r, k);
		sc_sigsafe_cat(what, sizeof what, r);
		sc_sigsafe_cat(what, sizeof what, " ended first (");
		if (psig) {
			sc_sigsafe_cat(what, sizeof what, "killed by ");
			sc_sigsafe_cat(what, sizeof what, sig_text(psig, sb));
			if (psig == SIGKILL)
				sc_sigsafe_cat(what, sizeof what, ": the OOM killer, or kill -9");
		} else {
			sc_sigsafe_cat(what, sizeof what, "killed, signal unknown");
		}
		sc_sigsafe_cat(what, sizeof what, ")");
		save(what, "");
		if (fl.leader || (k == 0 && fl.rank == 1)) { /* the leader, or rank 1 when the leader died */
			emit_report("aborted", what);
			put("\nshardcheck: aborting: ");
			put(what);
			put(", then mpirun ended the others;");
			tell(" the case in flight was", 0);
		}
		_exit(2);
	}
	set_reason(sig);
	save("interrupted by ", sig_name(sig));
	if (fl.leader) {
		emit_report("interrupted", fl.reason);
		put("\nshardcheck: interrupted (");
		put(sig_name(sig));
		tell("): not a fault of the code under test; the case in flight was", 0);
	}
	_exit(2);
}

static void on_alarm(int sig)
{
	if (role() != OWNER) {
		die_of(sig);
		return;
	}
	if (fl.sig) {
		char s[24];
		sc_sigsafe_num(s, GRACE_S);
		char why[96] = "the case in flight did not end within ";
		sc_sigsafe_cat(why, sizeof why, s);
		sc_sigsafe_cat(why, sizeof why, " s of it");
		last_resort(why);
	}
	save("aborted: the case ran longer than --timeout (a rank hung)", "");
	if (fl.leader)
		tell("\nshardcheck: aborting: the running case exceeded --timeout (a rank hung or crashed);", 1);
	_exit(2);
}

static void on_crash(int sig)
{
	if (role() != OWNER) {
		die_of(sig);
		return;
	}
	char r[24], who[64] = "rank ";
	sc_sigsafe_num(r, fl.rank);
	sc_sigsafe_cat(who, sizeof who, r);
	sc_sigsafe_cat(who, sizeof who, " crashed: ");
	save(who, sig_name(sig));
	put("\nshardcheck: aborting: the running case crashed rank ");
	put(r);
	put(" (");
	put(sig_name(sig));
	tell(");", fl.leader);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void on_term(int sig)
{
	const enum role ro = role();
	if (ro == FOREIGN) { /* a plugin's sandbox: the signal is its own */
		die_of(sig);
		return;
	}
	if (ro == WORKER) { /* its parent decides; a fuzz worker stops at its next check */
		if (!fl.sig)
			fl.sig = sig;
		return;
	}
	if (fl.immediate)
		ranks_end(sig);
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (!fl.sig) {
		fl.sig_at = now;
		fl.sig = sig;
		alarm(GRACE_S);
		return;
	}
	if ((double)(now.tv_sec - fl.sig_at.tv_sec) + 1e-9 * (double)(now.tv_nsec - fl.sig_at.tv_nsec) < SAME_SIGNAL_S)
		return;
	last_resort("a second signal came before the run had stopped");
}

/* A signal that a process the code under test started sent (where
 * sandboxed children have no pid namespace: sc_sigfrom): dropped, and
 * said; 0 for any other. */
static int dropped(int sig, const siginfo_t *si)
{
	static volatile sig_atomic_t said[65]; /* the first of each signal is said */
	if (role() == FOREIGN || !sc_sigfrom_contained(si))
		return 0;
	if (sig <= 0 || sig >= 65 || said[sig])
		return 1;
	said[sig] = 1;
	char n[24];
	put("shardcheck: ignored ");
	if (sig_name(sig))
		put(sig_name(sig));
	else {
		sc_sigsafe_num(n, sig);
		put("signal ");
		put(n);
	}
	sc_sigsafe_num(n, (long)si->si_pid);
	put(" from process ");
	put(n);
	put(", which the code under test started (and every later one)\n");
	return 1;
}

static void on_term_from(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (!dropped(sig, si))
		on_term(sig);
}

static void on_alarm_from(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (!dropped(sig, si))
		on_alarm(sig);
}

static void on_crash_from(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (!dropped(sig, si)) {
		on_crash(sig);
		return;
	}
	struct sigaction sa; /* SA_RESETHAND reset it: set again */
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_crash_from;
	sa.sa_flags = SA_RESETHAND | SA_SIGINFO;
	sigaction(sig, &sa, NULL);
}

/* Every other signal that ends or stops a process by default: what the
 * default does, unless dropped. */
static void on_other(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (dropped(sig, si))
		return;
	if (sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU) {
		sc_watchdog_pausing(1);
		kill(getpid(), SIGSTOP);
		sc_watchdog_pausing(0);
	}
	else
		die_of(sig); /* delivered, by default, once this handler returns */
}

/* The signals on_other watches, where their action is the default one. */
static void watch_others(void)
{
	static const int others[] = {SIGQUIT, SIGUSR1, SIGUSR2, SIGTSTP, SIGTTIN, SIGTTOU, SIGVTALRM, SIGPROF,
				     SIGXCPU, SIGXFSZ, SIGIO,	SIGPWR,	 SIGTRAP, SIGSYS,  SIGSTKFLT,
				     /* until sc_inflight_arm's own handlers */
				     SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sigemptyset(&sa.sa_mask);
	sa.sa_sigaction = on_other;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	for (size_t i = 0; i < sizeof others / sizeof others[0]; i++) {
		struct sigaction old;
		if (sigaction(others[i], NULL, &old) == 0 && !(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_DFL)
			sigaction(others[i], &sa, NULL);
	}
}

static void format_case(struct sc_target *t, const struct sc_property *p, const struct sc_case *c)
{
	char text[sizeof fl.text];
	if (sc_casefile_format(t, p->name, fl.backend, c, -1, text, sizeof text, NULL) == SC_OK) {
		fl.len = 0; /* the handler sees no text while it changes */
		const size_t n = strlen(text);
		memcpy(fl.text, text, n);
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		fl.len = (sig_atomic_t)n;
	}
}

static void on_case(void *u, struct sc_target *t, const struct sc_property *p, const struct sc_case *c)
{
	(void)u;
	const int sig = fl.sig;
	if (sig && fl.co) /* sc_check_run stops at its next look at the clock or shrink step */
		fl.co->deadline = 1e-9;
	fl.cur_t = t;
	fl.cur_p = p;
	fl.cur = *c;
	fl.have_cur = 1;
	if (fl.per_case_text || sig)
		format_case(t, p, c);
	if (fl.seconds > 0 && !sig)
		alarm((unsigned)(fl.seconds + 0.999));
}

static void paths(const char *dir)
{
	snprintf(fl.path, sizeof fl.path, "%s%s", dir ? dir : ".",
		 dir ? "/failures/inflight.case" : "/shardcheck-inflight.case");
	snprintf(fl.tmp, sizeof fl.tmp, "%s.tmp%d", fl.path, fl.rank);
	if (dir) {
		snprintf(fl.rdir, sizeof fl.rdir, "%s", dir);
		snprintf(fl.rpath, sizeof fl.rpath, "%s/report.json", dir);
		snprintf(fl.rtmp, sizeof fl.rtmp, "%s/report.json.tmp-signal", dir);
		snprintf(fl.jpath, sizeof fl.jpath, "%s/junit.xml", dir);
		snprintf(fl.jtmp, sizeof fl.jtmp, "%s/junit.xml.tmp-signal", dir);
	}
}

void sc_inflight_watch(struct sc_cli *c, struct sc_backend *be)
{
	fl.leader = sc_backend_leader(be);
	fl.rank = sc_backend_proc(be);
	fl.nprocs = sc_backend_nprocs(be);
	fl.pid = getpid();
	fl.pgrp = getpgrp();
	fl.co = &c->co;
	fl.backend = c->backend;
	fl.immediate = be->ops->combine != NULL && fl.nprocs > 1;
	paths(c->report_dir);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGTERM); /* one handler at a time: a second signal waits for the first */
	sigaddset(&sa.sa_mask, SIGINT);
	sigaddset(&sa.sa_mask, SIGHUP);
	sigaddset(&sa.sa_mask, SIGALRM);
	sa.sa_sigaction = on_term_from;
	sa.sa_flags = SA_SIGINFO;
	static const int enders[] = {SIGTERM, SIGINT, SIGHUP};
	for (size_t i = 0; i < sizeof enders / sizeof enders[0]; i++) {
		struct sigaction old;
		/* ignored when we started (nohup, a background job of a script):
		 * it stays ignored, as whoever started us asked */
		if (sigaction(enders[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
			continue;
		sigaction(enders[i], &sa, NULL);
	}
	sa.sa_sigaction = on_alarm_from;
	sigaction(SIGALRM, &sa, NULL);
	watch_others();
	c->co.on_case = on_case;
	c->co.on_case_ctx = NULL;
	if (!fl.immediate)
		return;
	/* the launch's processes: who runs where, and where keepers leave word */
	struct who {
		pid_t pid;
		char host[120];
	} me = {getpid(), ""}, *all = calloc((size_t)fl.nprocs, sizeof *all);
	gethostname(me.host, sizeof me.host - 1);
	if (all && be->ops->gather && fl.nprocs <= SC_MAX_WORLD) {
		be->ops->gather(be, &me, all, sizeof me);
		for (int k = 0; k < fl.nprocs; k++) {
			fl.peer[k] = all[k].pid;
			fl.here[k] = strcmp(all[k].host, me.host) == 0;
		}
	}
	free(all);
	const char *ends = getenv("SC_MPI_ENDS");
	if (ends)
		snprintf(fl.ends, sizeof fl.ends, "%s", ends);
}

void sc_inflight_report_dir(const char *dir) { paths(dir); }

void sc_inflight_format_cases(void) { fl.per_case_text = 1; }

void sc_inflight_arm(struct sc_cli *c, struct sc_backend *be)
{
	sc_inflight_watch(c, be);
	fl.seconds = c->timeout;
	fl.per_case_text = 1;
	if (c->report_dir) {
		char dir[1100];
		snprintf(dir, sizeof dir, "%s/failures", c->report_dir);
		sc_fs_mkdirs(dir, NULL);
	}
	if (fl.leader) { /* an earlier run's is kept aside, not taken for this run's */
		char prev[1100];
		snprintf(prev, sizeof prev, "%s.previous", fl.path);
		rename(fl.path, prev);
	}
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_crash_from;
	sa.sa_flags = SA_RESETHAND | SA_SIGINFO;
	static const int crash[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
	for (size_t i = 0; i < sizeof crash / sizeof crash[0]; i++)
		sigaction(crash[i], &sa, NULL);
}

void sc_inflight_idle(void)
{
	fl.len = 0;
	fl.have_cur = 0;
	if (!fl.sig)
		alarm(0);
}

void sc_inflight_stopped(void)
{
	if (fl.sig)
		alarm(0);
}

int sc_inflight_signal(void) { return fl.sig; }

volatile sig_atomic_t *sc_inflight_flag(void) { return &fl.sig; }

void sc_inflight_set_case(struct sc_target *t, const struct sc_property *p, const struct sc_case *cs)
{
	fl.cur_t = t;
	fl.cur_p = p;
	fl.cur = *cs;
	fl.have_cur = 1;
}

void sc_inflight_keep(const char *path) { fl.kept = path; }

int sc_inflight_save(char *buf, size_t n)
{
	if (!fl.have_cur || !fl.path[0])
		return 0;
	char text[sizeof fl.text];
	if (sc_casefile_format(fl.cur_t, fl.cur_p->name, fl.backend, &fl.cur, -1, text, sizeof text, NULL) != SC_OK)
		return 0;
	if (fl.rdir[0]) {
		char dir[1100];
		snprintf(dir, sizeof dir, "%s/failures", fl.rdir);
		sc_fs_mkdirs(dir, NULL);
	}
	char *doc = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&doc, &len);
	if (!m)
		return 0;
	fprintf(m, "# interrupted by %s\n%s", sig_name(fl.sig) ? sig_name(fl.sig) : "a signal", text);
	fclose(m);
	struct sc_err e;
	const int ok = doc && sc_fs_write_atomic(fl.path, doc, len, &e) == SC_OK;
	free(doc);
	if (ok)
		snprintf(buf, n, "%s", fl.path);
	return ok;
}

const char *sc_inflight_reason(void)
{
	set_reason(fl.sig);
	return fl.reason;
}

void sc_inflight_message(const char *path, char *buf, size_t n)
{
	const char *s = sig_name(fl.sig) ? sig_name(fl.sig) : "a signal";
	int k = snprintf(buf, n, "shardcheck: interrupted (%s): not a fault of the code under test; ", s);
	if (k < 0 || (size_t)k >= n)
		return;
	if (path)
		k += snprintf(buf + k, n - (size_t)k, "the case in flight was saved to %s (replay: shardcheck repro %s)",
			      path, path);
	else if (fl.kept)
		k += snprintf(buf + k, n - (size_t)k, "the case is %s", fl.kept);
	else
		k += snprintf(buf + k, n - (size_t)k, "no case was running");
	if (k > 0 && (size_t)k < n && fl.rpath[0] && fl.leader)
		snprintf(buf + k, n - (size_t)k, "; report: %s", fl.rpath);
}

/* Adds n bytes to g and publishes them (see the file's head). */
static int append(struct grow *g, const char *piece, size_t n)
{
	char *old = NULL;
	if (g->len + n > g->cap) {
		const size_t cap = g->len + n > 2 * g->cap ? g->len + n + 4096 : 2 * g->cap;
		char *nb = malloc(cap);
		if (!nb)
			return 0;
		if (g->len)
			memcpy(nb, g->buf, g->len);
		old = g->buf;
		g->buf = nb;
		g->cap = cap;
	}
	if (n) /* past what the handler may read */
		memcpy(g->buf + g->len, piece, n);
	g->len += n;
	const int i = g->i < 0 ? 0 : 1 - g->i;
	g->slot[i].p = g->buf;
	g->slot[i].len = g->len;
	g->slot[i].n = g->n;
	g->slot[i].fails = g->fails;
	g->slot[i].errors = g->errors;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	g->i = i; /* whole before the handler can see it */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	free(old); /* only the slot no longer read pointed at it */
	return 1;
}

void sc_inflight_report(const struct sc_report_meta *m, const struct sc_result *res, int n)
{
	if (!fl.rpath[0] || !fl.leader)
		return;
	struct sc_err e;
	if (!fl.head) {
		struct sc_report_meta im = *m;
		im.status = "interrupted";
		im.reason = NULL;
		char *h = NULL;
		if (sc_report_json_head(&im, &h, &e) != SC_OK)
			return;
		const char *st = strstr(h, "\"status\": \"interrupted\"");
		if (!st) {
			free(h);
			return;
		}
		fl.sa = (size_t)(st - h) + strlen("\"status\": \"");
		fl.sb = fl.sa + strlen("interrupted");
		fl.hlen = strlen(h);
		snprintf(fl.jname, sizeof fl.jname, "shardcheck seed %llu backend %s", (unsigned long long)m->seed,
			 m->backend);
		fl.head = h; /* (before any result: json.i stays -1 until append) */
		if (!append(&fl.json, "", 0) || !append(&fl.junit, "", 0))
			return;
	}
	for (; fl.rendered < n; fl.rendered++) {
		const struct sc_result *r = &res[fl.rendered];
		char *piece = NULL, *tc = NULL;
		int kind = 0;
		if (sc_report_json_result(r, fl.rendered == 0, fl.rdir[0] ? fl.rdir : NULL, &piece, &e) != SC_OK)
			return;
		if (sc_report_junit_case(r, &tc, &kind, &e) != SC_OK) {
			free(piece);
			return;
		}
		fl.junit.n++;
		fl.junit.fails += kind == 1;
		fl.junit.errors += kind == 2;
		const int ok = append(&fl.json, piece, strlen(piece)) && append(&fl.junit, tc, strlen(tc));
		free(piece);
		free(tc);
		if (!ok)
			return;
	}
}

void sc_inflight_children(const pid_t *pids, const int *n)
{
	fl.kids = pids;
	fl.nkids = n;
}

void sc_inflight_quiet_followers(struct sc_backend *be)
{
	if (sc_backend_leader(be))
		return;
	const int fd = dup(2); /* kept for the message of a crash */
	if (fd >= 0)
		fl.err_fd = fd;
	if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr))
		return;
}
