/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Two dispatcher forms as thunks in front of six adx-level kernels, for
 * forms.c: the C form (what GCC and Clang make of the generated dispatcher:
 * a not-taken test and a tail jump) and a conditional tail jump (`jge
 * kernel`, one branch instead of two; no compiler emits it for the C).
 * ELF only (a measurement, not part of the library). */
        .macro  forms tag, kernel
        .text
        .globl  c_\tag
        .p2align 6
c_\tag: movl    fg_cpu_isa(%rip), %eax
        cmpl    $2, %eax
        jle     1f
        jmp     \kernel
1:      ud2
        .globl  j_\tag
        .p2align 6
j_\tag: movl    fg_cpu_isa(%rip), %eax
        cmpl    $3, %eax
        jge     \kernel
        ud2
        .endm
        forms   p256_mul, fg_p256_mul_bmi2      /* what p256's dispatcher reaches at adx */
        forms   p256_sqr, fg_p256_sqr_adx
        forms   p25519_mul, fg_p25519_mul_adx
        forms   p503_mul, fg_p503_mul_adx
        forms   p503_sqr, fg_p503_sqr_adx
        forms   p751_sqr, fg_p751_sqr_adx
        .section .note.GNU-stack,"",%progbits
