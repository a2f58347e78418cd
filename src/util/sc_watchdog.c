/* sc_watchdog: resumes this process when something else stopped it (see
 * sc_watchdog.h). */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include "sc_watchdog.h"

#include "sc_sigsafe.h"

#include <signal.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct page {
	volatile sig_atomic_t pausing; /* the owner stops itself on purpose */
};

static struct page *pg; /* shared with the watchdog */
static pid_t owner;     /* the process watched (a fork's copy is not) */
static pid_t dog;       /* the watchdog */

static __attribute__((noreturn)) void watch(pid_t who)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	for (int sig = 1; sig < NSIG; sig++) /* what the code under test sends it too changes nothing */
		if (sig != SIGKILL && sig != SIGSTOP && sig != SIGCHLD)
			signal(sig, SIG_IGN);
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	const struct timespec nap = {0, 20 * 1000 * 1000};
	for (;;) {
		if (getppid() != who)
			_exit(0);
		char state = 0;
		long ppid;
		if (sc_sigsafe_proc_stat(who, &state, &ppid) == 0 && state == 'T' && !pg->pausing)
			kill(who, SIGCONT);
		nanosleep(&nap, NULL);
	}
}

void sc_watchdog_start(void)
{
	if (owner == getpid() && pg && waitpid(dog, NULL, WNOHANG) == 0)
		return;
	if (owner == getpid() && pg)
		munmap((void *)pg, sizeof *pg);
	void *m = mmap(NULL, sizeof *pg, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return;
	pg = m;
	pg->pausing = 0;
	owner = getpid();
	fflush(NULL);
	const pid_t p = fork();
	if (p == 0)
		watch(owner);
	dog = p;
	if (p < 0) {
		munmap(m, sizeof *pg);
		pg = NULL;
	}
}

void sc_watchdog_pausing(int on)
{
	if (pg && owner == getpid())
		pg->pausing = on;
}

void sc_watchdog_forget(void)
{
	if (pg)
		munmap((void *)pg, sizeof *pg);
	pg = NULL;
}
