/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Thunks for dispatch_cost.c: a bare tail jump to the adx squaring kernel, and
 * the dispatcher's own instruction sequence (load, compare, branch, jump) as a
 * stand-alone function. ELF only (a measurement, not part of the library). */
        .text
        .globl  thunk_jmp_sqr
        .p2align 4
thunk_jmp_sqr:
        jmp     fg_p503_sqr_adx

        .globl  thunk_dispatch_sqr
        .p2align 4
thunk_dispatch_sqr:                     /* as gcc 12 compiles fg_p503_sqr's first test */
        movl    fg_cpu_sel(%rip), %eax  /* (was fg_cpu_isa and CMP before the selector word) */
        testb   $0x18, %al
        je      1f
        jmp     fg_p503_sqr_adx
1:      jmp     fg_p503_sqr
        .section .note.GNU-stack,"",%progbits
