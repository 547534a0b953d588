/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Entry forms for call_forms.c, each ending in a tail jump to a kernel. The
 * tests read fg_cpu_sel but test masks that do not depend on it (0 never
 * matches, 0x7fff always does), so each form takes the same path on every
 * machine:
 *   jmp    a bare JMP
 *   gcc1   one test as GCC lays out a likely kernel: JE (not taken), JMP
 *   jnz1   one test as a conditional tail jump: JNZ (taken) to the kernel
 *   gcc2   two tests as GCC lays out the Zen tuning's kernel behind the
 *          generic one's: JE (taken) to the second test, JE (not taken), JMP
 *   jnz2   two tests as conditional tail jumps: JNZ (not taken), JNZ (taken)
 *   nops   four NOPs, JMP
 * OFFSET (default 0) moves every form that many bytes past its 64-byte
 * boundary. ELF only (a measurement, not part of the library). */
#if defined(OFFSET) && OFFSET > 0
#define PAD .skip OFFSET, 0x90
#else
#define PAD
#endif
#define ENTRY(sym) .globl sym; .p2align 6; PAD; sym:
#define SEL movl fg_cpu_sel(%rip), %eax
#define FORMS(op, kernel)                                                              \
ENTRY(op##_jmp)  jmp kernel;                                                           \
ENTRY(op##_gcc1) SEL; testl $0x7fff, %eax; je 1f; jmp kernel; 1: ud2;                  \
ENTRY(op##_jnz1) SEL; testl $0x7fff, %eax; jnz kernel; ud2;                            \
ENTRY(op##_gcc2) SEL; testl $0, %eax; je 1f; ud2; 1: testl $0x7fff, %eax; je 2f;       \
                 jmp kernel; 2: ud2;                                                   \
ENTRY(op##_jnz2) SEL; testl $0, %eax; jnz 1f; testl $0x7fff, %eax; jnz kernel; 1: ud2; \
ENTRY(op##_nops) nop; nop; nop; nop; jmp kernel

        .text
FORMS(p256_mul, fg_p256_mul_adx_zen)
FORMS(p256_sqr, fg_p256_sqr_adx_zen)
FORMS(p503_mul, fg_p503_mul_adx_zen)
FORMS(p503_sqr, fg_p503_sqr_adx_zen)
FORMS(p503_redc, fg_p503_redc_adx)
        .section .note.GNU-stack,"",%progbits
