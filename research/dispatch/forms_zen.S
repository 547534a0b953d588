/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Conditional-tail-jump dispatchers for forms_zen.c, with the generated
 * dispatchers' masks and order (generic adx first, then the Zen forms; p751's
 * mul tests its Zen IFMA kernel in between). ELF only; a measurement. */
        .macro  two tag, generic, zen
        .text
        .globl  j_\tag
        .p2align 6
j_\tag: testl   $0x18, fg_cpu_sel(%rip)
        jne     \generic
        testl   $0x300, fg_cpu_sel(%rip)
        jne     \zen
        ud2
        .endm
        .macro  three tag, generic, ifma, zen
        .text
        .globl  j_\tag
        .p2align 6
j_\tag: movl    fg_cpu_sel(%rip), %eax
        testl   $0x18, %eax
        jne     \generic
        testl   $0x200, %eax
        jne     \ifma
        testl   $0x100, %eax
        jne     \zen
        ud2
        .endm
        two     p503_sqr, fg_p503_sqr_adx, fg_p503_sqr_adx_zen
        two     p503_mul, fg_p503_mul_adx, fg_p503_mul_adx_zen
        three   p751_mul, fg_p751_mul_adx, fg_p751_mul_ifma, fg_p751_mul_adx_zen
        two     p751_sqr, fg_p751_sqr_adx, fg_p751_sqr_adx_zen
        .section .note.GNU-stack,"",%progbits
