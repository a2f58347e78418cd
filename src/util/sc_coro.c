/* sc_coro: ucontext coroutines, with ASan's fiber annotations. */
#define _GNU_SOURCE /* MAP_ANONYMOUS, MAP_STACK */
#include "sc_coro.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

/* ASan's fiber interface, present in sanitized builds only. */
extern void __sanitizer_start_switch_fiber(void **fake_stack_save, const void *bottom, size_t size)
	__attribute__((weak));
extern void __sanitizer_finish_switch_fiber(void *fake_stack_save, const void **bottom_old, size_t *size_old)
	__attribute__((weak));

struct sc_coro {
	ucontext_t ctx;
	unsigned char *map; /* guard page + stack */
	size_t mapped, stack;
	void (*fn)(void *);
	void *arg;
	int done;
	void *fake;         /* ASan's fake stack of the coroutine while it is switched out */
};

/* The running coroutine and the scheduler it returns to (one thread). */
static _Thread_local struct sc_coro *current;
static _Thread_local ucontext_t sched;
static _Thread_local void *sched_fake;
static _Thread_local const void *sched_bottom;
static _Thread_local size_t sched_size;

enum sc_status sc_coro_new(size_t stack, struct sc_coro **out, struct sc_err *e)
{
	const size_t page = (size_t)sysconf(_SC_PAGESIZE);
	stack = (stack + page - 1) / page * page;
	struct sc_coro *c = calloc(1, sizeof *c);
	if (!c)
		return SC_ERR(e, SC_E_NOMEM, "out of memory");
	c->mapped = stack + page;
	c->map = mmap(NULL, c->mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (c->map == MAP_FAILED) {
		const int err = errno;
		free(c);
		return SC_ERR(e, SC_E_NOMEM, "cannot map a stack of %zu KiB: %s", stack >> 10, strerror(err));
	}
	mprotect(c->map, page, PROT_NONE);
	c->stack = stack;
	*out = c;
	return SC_OK;
}

void sc_coro_free(struct sc_coro *c)
{
	if (!c)
		return;
	munmap(c->map, c->mapped);
	free(c);
}

/* Into c, from the scheduler; back when it yields or ends. */
static int enter(struct sc_coro *c)
{
	current = c;
	if (__sanitizer_start_switch_fiber)
		__sanitizer_start_switch_fiber(&sched_fake, c->map + (c->mapped - c->stack), c->stack);
	swapcontext(&sched, &c->ctx);
	if (__sanitizer_finish_switch_fiber)
		__sanitizer_finish_switch_fiber(sched_fake, NULL, NULL);
	current = NULL;
	return c->done;
}

static void trampoline(void)
{
	struct sc_coro *c = current;
	if (__sanitizer_finish_switch_fiber)
		__sanitizer_finish_switch_fiber(NULL, &sched_bottom, &sched_size);
	c->fn(c->arg);
	c->done = 1;
	if (__sanitizer_start_switch_fiber)
		__sanitizer_start_switch_fiber(NULL, sched_bottom, sched_size); /* this fiber ends */
	setcontext(&sched);
}

int sc_coro_start(struct sc_coro *c, void (*fn)(void *), void *arg)
{
	getcontext(&c->ctx);
	c->ctx.uc_stack.ss_sp = c->map + (c->mapped - c->stack);
	c->ctx.uc_stack.ss_size = c->stack;
	c->ctx.uc_link = NULL;
	c->fn = fn;
	c->arg = arg;
	c->done = 0;
	c->fake = NULL;
	makecontext(&c->ctx, trampoline, 0);
	return enter(c);
}

int sc_coro_resume(struct sc_coro *c) { return c->done ? 1 : enter(c); }

void sc_coro_yield(void)
{
	struct sc_coro *c = current;
	if (!c)
		return;
	if (__sanitizer_start_switch_fiber)
		__sanitizer_start_switch_fiber(&c->fake, sched_bottom, sched_size);
	swapcontext(&c->ctx, &sched);
	if (__sanitizer_finish_switch_fiber)
		__sanitizer_finish_switch_fiber(c->fake, &sched_bottom, &sched_size);
}
