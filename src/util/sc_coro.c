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
extern void __asan_unpoison_memory_region(void const volatile *addr, size_t size) __attribute__((weak));

/* The switch: on x86-64, a few instructions that save and restore the
 * callee-saved registers, the stack pointer and the floating-point control
 * words; elsewhere ucontext (whose swapcontext also makes a system call
 * for the signal mask, on every switch). */
#if defined(__x86_64__) && !defined(SC_CORO_UCONTEXT)
#define SC_CORO_ASM 1
/* void sc_coro_jump(void **save, void *load): saves this context's stack
 * pointer in *save and continues the one saved at load. */
void sc_coro_jump(void **save, void *load);
__asm__(".text\n"
	".globl sc_coro_jump\n"
	".type sc_coro_jump, @function\n"
	"sc_coro_jump:\n"
	"	pushq %rbp\n"
	"	pushq %rbx\n"
	"	pushq %r12\n"
	"	pushq %r13\n"
	"	pushq %r14\n"
	"	pushq %r15\n"
	"	subq $8, %rsp\n"
	"	stmxcsr (%rsp)\n"
	"	fnstcw 4(%rsp)\n"
	"	movq %rsp, (%rdi)\n"
	"	movq %rsi, %rsp\n"
	"	ldmxcsr (%rsp)\n"
	"	fldcw 4(%rsp)\n"
	"	addq $8, %rsp\n"
	"	popq %r15\n"
	"	popq %r14\n"
	"	popq %r13\n"
	"	popq %r12\n"
	"	popq %rbx\n"
	"	popq %rbp\n"
	"	ret\n"
	".size sc_coro_jump, .-sc_coro_jump\n"
	".section .note.GNU-stack,\"\",@progbits\n"
	".text\n");
#endif

struct sc_coro {
#ifdef SC_CORO_ASM
	void *sp; /* its saved stack pointer while switched out */
#else
	ucontext_t ctx;
#endif
	unsigned char *map; /* guard page + stack */
	size_t mapped, stack;
	void (*fn)(void *);
	void *arg;
	int done;
	void *fake;         /* ASan's fake stack of the coroutine while it is switched out */
};

/* The running coroutine and the scheduler it returns to (one thread). */
static _Thread_local struct sc_coro *current;
#ifdef SC_CORO_ASM
static _Thread_local void *sched_sp;
#else
static _Thread_local ucontext_t sched;
#endif
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
	if (mprotect(c->map, page, PROT_NONE) != 0) { /* no guard: an overflow would write over memory below */
		const int err = errno;
		munmap(c->map, c->mapped);
		free(c);
		return SC_ERR(e, SC_E_NOMEM, "cannot protect a stack's guard page: %s", strerror(err));
	}
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
#ifdef SC_CORO_ASM
	sc_coro_jump(&sched_sp, c->sp);
#else
	swapcontext(&sched, &c->ctx);
#endif
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
#ifdef SC_CORO_ASM
	void *gone;
	sc_coro_jump(&gone, sched_sp);
#else
	setcontext(&sched);
#endif
}

int sc_coro_start(struct sc_coro *c, void (*fn)(void *), void *arg)
{
	c->fn = fn;
	c->arg = arg;
	c->done = 0;
	c->fake = NULL;
	/* frames of an earlier run of this stack leave their redzones behind */
	if (__asan_unpoison_memory_region)
		__asan_unpoison_memory_region(c->map + (c->mapped - c->stack), c->stack);
#ifdef SC_CORO_ASM
	/* a frame sc_coro_jump returns from into the trampoline: the control
	 * words (this thread's), six registers, the return address; the
	 * trampoline starts as a called function would (rsp = 8 mod 16) */
	uint64_t *sp = (uint64_t *)(void *)(c->map + c->mapped);
	*--sp = 0; /* the trampoline's own return address: never used */
	*--sp = (uint64_t)(uintptr_t)trampoline;
	for (int i = 0; i < 6; i++)
		*--sp = 0;
	uint32_t words[2];
	__asm__ __volatile__("stmxcsr %0\n\tfnstcw %1" : "=m"(words[0]), "=m"(words[1]));
	*--sp = (uint64_t)words[0] | (uint64_t)(words[1] & 0xffff) << 32;
	c->sp = sp;
#else
	getcontext(&c->ctx);
	c->ctx.uc_stack.ss_sp = c->map + (c->mapped - c->stack);
	c->ctx.uc_stack.ss_size = c->stack;
	c->ctx.uc_link = NULL;
	makecontext(&c->ctx, trampoline, 0);
#endif
	return enter(c);
}

int sc_coro_resume(struct sc_coro *c) { return c->done ? 1 : enter(c); }

int sc_coro_inside(void) { return current != NULL; }

void sc_coro_yield(void)
{
	struct sc_coro *c = current;
	if (!c)
		return;
	if (__sanitizer_start_switch_fiber)
		__sanitizer_start_switch_fiber(&c->fake, sched_bottom, sched_size);
#ifdef SC_CORO_ASM
	sc_coro_jump(&c->sp, sched_sp);
#else
	swapcontext(&c->ctx, &sched);
#endif
	if (__sanitizer_finish_switch_fiber)
		__sanitizer_finish_switch_fiber(c->fake, &sched_bottom, &sched_size);
}
