/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* abi_selftest.c -- shows that fg_abi_call catches ABI violations and passes a
 * well-behaved function, and that fg_guard buffers fault on overrun.
 * Exit status 0 when every expectation holds. */
#define _DEFAULT_SOURCE
#include "fg_abi.h"
#include "fg_guard.h"

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Deliberately bad and good functions, in assembly so the compiler cannot fix them. */
__asm__(
    ".text\n"
    ".p2align 4\n"
    "selftest_clobber_rbx:\n"          /* writes rbx and does not restore it */
    "    movq %rdi, %rbx\n"
    "    ret\n"
    ".p2align 4\n"
    "selftest_clobber_r12_r15:\n"
    "    xorl %r12d, %r12d\n"
    "    notq %r15\n"
    "    ret\n"
    ".p2align 4\n"
    "selftest_set_df:\n"               /* returns with the direction flag set */
    "    std\n"
    "    ret\n"
    ".p2align 4\n"
    "selftest_unbalanced:\n"           /* returns with rsp 8 bytes lower */
    "    popq %rcx\n"
    "    pushq %rax\n"
    "    pushq %rcx\n"
    "    ret\n"
    ".p2align 4\n"
    "selftest_good:\n"                 /* uses callee-saved registers correctly */
    "    pushq %rbx\n"
    "    pushq %rbp\n"
    "    pushq %r12\n"
    "    movq %rdi, %rbx\n"
    "    movq %rsi, %rbp\n"
    "    leaq (%rbx,%rbp), %r12\n"
    "    addq %rdx, %r12\n"
    "    movq %r12, %rax\n"
    "    movq $-1, %r8\n"               /* caller-saved registers may be trashed */
    "    movq $-1, %r11\n"
    "    popq %r12\n"
    "    popq %rbp\n"
    "    popq %rbx\n"
    "    ret\n"
    ".p2align 4\n"
    "selftest_check_align:\n"          /* returns rsp mod 16 as seen at entry + 8 */
    "    leaq 8(%rsp), %rax\n"
    "    andl $15, %eax\n"
    "    movq %rax, (%rdi)\n"
    "    ret\n");
void selftest_clobber_rbx(void);
void selftest_clobber_r12_r15(void);
void selftest_set_df(void);
void selftest_unbalanced(void);
void selftest_good(void);
void selftest_check_align(void);

static int failures;

static void expect(const char *what, const void *fn, uint64_t want)
{
    char buf[64], wbuf[64];
    uint64_t got = fg_abi_call(fn, 1, 2, 3);
    int ok = got == want;
    printf("%-4s %-26s clobbers: %-16s (expected %s)\n", ok ? "ok" : "FAIL", what,
           fg_abi_describe(got, buf), fg_abi_describe(want, wbuf));
    failures += !ok;
}

/* Runs body in a child; returns the signal that ended it (0 if it exited). */
static int child_signal(void (*body)(void))
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        /* die by the signal itself, even where a sanitizer installed a handler */
        signal(SIGSEGV, SIG_DFL);
        signal(SIGBUS, SIG_DFL);
        body();
        _exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFSIGNALED(status) ? WTERMSIG(status) : 0;
}

static void write_inside(void)
{
    fg_guard g;
    unsigned char *p = fg_guard_alloc(&g, 40);
    memset(p, 0, 40);                  /* all 40 bytes are writable */
    fg_guard_free(&g);
}

static void write_past_end(void)
{
    fg_guard g;
    volatile unsigned char *p = fg_guard_alloc(&g, 40);
    p[40] = 0;                         /* one byte too far: must fault */
}

static void write_before_start(void)
{
    fg_guard g;
    volatile unsigned char *p = fg_guard_alloc_front(&g, 40);
    p[-1] = 0;
}

int main(void)
{
    expect("good function", (const void *)selftest_good, 0);
    expect("clobbers rbx", (const void *)selftest_clobber_rbx, FG_ABI_RBX);
    expect("clobbers r12, r15", (const void *)selftest_clobber_r12_r15, FG_ABI_R12 | FG_ABI_R15);
    expect("sets DF", (const void *)selftest_set_df, FG_ABI_DF);
    expect("unbalanced stack", (const void *)selftest_unbalanced, FG_ABI_RSP);

    /* the callee sees rsp = 8 mod 16 at entry, i.e. 16-byte aligned at the call */
    uint64_t mod = 99;
    uint64_t m = fg_abi_call((const void *)selftest_check_align, (uint64_t)(uintptr_t)&mod, 0, 0);
    printf("%-4s %-26s rsp+8 mod 16 = %llu\n", (m == 0 && mod == 0) ? "ok" : "FAIL",
           "aligned call", (unsigned long long)mod);
    failures += !(m == 0 && mod == 0);

    /* DF is clear again after a call that set it */
    uint64_t fl;
    __asm__ volatile("pushfq; popq %0" : "=r"(fl));
    printf("%-4s %-26s\n", (fl & 0x400) ? "FAIL" : "ok", "DF clear after the checks");
    failures += (fl & 0x400) != 0;

    int s;
    s = child_signal(write_inside);
    printf("%-4s %-26s signal %d (expected 0)\n", s == 0 ? "ok" : "FAIL", "guard: write inside", s);
    failures += s != 0;
    s = child_signal(write_past_end);
    printf("%-4s %-26s signal %d (expected %d)\n", s == SIGSEGV ? "ok" : "FAIL", "guard: write past end", s, SIGSEGV);
    failures += s != SIGSEGV;
    s = child_signal(write_before_start);
    printf("%-4s %-26s signal %d (expected %d)\n", s == SIGSEGV ? "ok" : "FAIL", "guard: write before start", s, SIGSEGV);
    failures += s != SIGSEGV;

    printf("%s\n", failures ? "abi_selftest: FAILED" : "abi_selftest: all checks passed");
    return failures != 0;
}
