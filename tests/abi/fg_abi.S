/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* fg_abi.S -- SysV x86-64 ABI checker for kernels (tests only); see fg_abi.h.
 *
 * uint64_t fg_abi_call(const void *fn, uint64_t a0, uint64_t a1, uint64_t a2);
 *   rdi = fn, rsi = a0, rdx = a1, rcx = a2.
 *
 * The callee-saved registers of OUR caller are pushed first and restored last, so
 * fg_abi_call itself keeps the ABI whatever the callee does to them.  The rsp the
 * callee must hand back is kept in a static variable (not on the stack, which a
 * bad callee may have moved), and rsp is restored from it before returning, so a
 * callee that unbalances the stack is reported rather than crashing the test.
 * Not reentrant: one fg_abi_call at a time per process (tests are single-threaded).
 */
#if defined(__x86_64__) && (defined(__ELF__) || defined(__APPLE__))
#ifdef __APPLE__
#define SYM(name) _##name               /* Mach-O: C names carry a leading underscore */
#else
#define SYM(name) name
#endif
        .text
        .globl  SYM(fg_abi_call)
#ifdef __ELF__
        .type   fg_abi_call, @function
#endif
        .p2align 4
SYM(fg_abi_call):
        .cfi_startproc
        /* entry: rsp = 8 mod 16 (return address pushed) */
        pushq   %rbx
        .cfi_adjust_cfa_offset 8
        pushq   %rbp
        .cfi_adjust_cfa_offset 8
        pushq   %r12
        .cfi_adjust_cfa_offset 8
        pushq   %r13
        .cfi_adjust_cfa_offset 8
        pushq   %r14
        .cfi_adjust_cfa_offset 8
        pushq   %r15
        .cfi_adjust_cfa_offset 8
        /* 7 words pushed so far (ret + 6): rsp = 0 mod 16 + 8; sub 56 -> aligned */
        subq    $56, %rsp
        .cfi_adjust_cfa_offset 56
        movq    %rsp, SYM(fg_abi_saved_rsp)(%rip)   /* rsp the callee must give back */

        movq    %rdi, %rax              /* fn */
        movq    %rsi, %rdi              /* a0 */
        movq    %rdx, %rsi              /* a1 */
        movq    %rcx, %rdx              /* a2 */
        movabsq $0x0b1b2b3b4b5b6b7b, %rbx
        movabsq $0x0b2b3b4b5b6b7b8b, %rbp
        movabsq $0x1c2c3c4c5c6c7c8c, %r12
        movabsq $0x1d2d3d4d5d6d7d8d, %r13
        movabsq $0x1e2e3e4e5e6e7e8e, %r14
        movabsq $0x1f2f3f4f5f6f7f8f, %r15
        cld                             /* the ABI guarantees DF = 0 at a call */
        call    *%rax

        /* collect the clobber mask in rax; rcx, rdx, rsi, rdi, r8-r11 are free */
        xorl    %eax, %eax
        movabsq $0x0b1b2b3b4b5b6b7b, %rcx
        cmpq    %rcx, %rbx
        setne   %al
        movabsq $0x0b2b3b4b5b6b7b8b, %rcx
        cmpq    %rcx, %rbp
        setne   %dl
        movzbl  %dl, %edx
        shll    $1, %edx
        orl     %edx, %eax
        movabsq $0x1c2c3c4c5c6c7c8c, %rcx
        cmpq    %rcx, %r12
        setne   %dl
        movzbl  %dl, %edx
        shll    $2, %edx
        orl     %edx, %eax
        movabsq $0x1d2d3d4d5d6d7d8d, %rcx
        cmpq    %rcx, %r13
        setne   %dl
        movzbl  %dl, %edx
        shll    $3, %edx
        orl     %edx, %eax
        movabsq $0x1e2e3e4e5e6e7e8e, %rcx
        cmpq    %rcx, %r14
        setne   %dl
        movzbl  %dl, %edx
        shll    $4, %edx
        orl     %edx, %eax
        movabsq $0x1f2f3f4f5f6f7f8f, %rcx
        cmpq    %rcx, %r15
        setne   %dl
        movzbl  %dl, %edx
        shll    $5, %edx
        orl     %edx, %eax
        /* rsp: compare with the saved value and restore it when it differs */
        cmpq    SYM(fg_abi_saved_rsp)(%rip), %rsp
        je      2f
        orl     $0x40, %eax
        movq    SYM(fg_abi_saved_rsp)(%rip), %rsp
2:
        /* direction flag: bit 10 of RFLAGS */
        pushfq
        popq    %rcx
        btq     $10, %rcx
        jnc     1f
        orl     $0x80, %eax
        cld                             /* do not hand a set DF back to C */
1:
        addq    $56, %rsp
        .cfi_adjust_cfa_offset -56
        popq    %r15
        .cfi_adjust_cfa_offset -8
        popq    %r14
        .cfi_adjust_cfa_offset -8
        popq    %r13
        .cfi_adjust_cfa_offset -8
        popq    %r12
        .cfi_adjust_cfa_offset -8
        popq    %rbp
        .cfi_adjust_cfa_offset -8
        popq    %rbx
        .cfi_adjust_cfa_offset -8
        ret
        .cfi_endproc
#ifdef __ELF__
        .size   fg_abi_call, .-fg_abi_call
#endif

        .bss
        .p2align 3
#ifdef __ELF__
        .type   fg_abi_saved_rsp, @object
        .size   fg_abi_saved_rsp, 8
#endif
SYM(fg_abi_saved_rsp):
        .zero   8
#endif

#ifdef __ELF__
        .section .note.GNU-stack,"",%progbits
#endif
