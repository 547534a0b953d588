/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* research/dispatch: thunks of n NOPs and a jmp to fg_p503_sqr_adx, each at a
 * 64-byte boundary (nop_thunks.c times them in a chain, with thunks.S's
 * dispatcher thunk; a measurement, not a test). */
#define THUNK(name, nops) .p2align 6; .globl name; name: nops; jmp fg_p503_sqr_adx
#define N1 nop
#define N2 N1; nop
#define N3 N2; nop
#define N4 N3; nop
#define N6 N4; nop; nop
#define N8 N4; N4
#define N12 N8; N4
#define N16 N8; N8
#define N24 N16; N8
.text
THUNK(nops0, )
THUNK(nops1, N1)
THUNK(nops2, N2)
THUNK(nops3, N3)
THUNK(nops4, N4)
THUNK(nops6, N6)
THUNK(nops8, N8)
THUNK(nops12, N12)
THUNK(nops16, N16)
THUNK(nops24, N24)
.section .note.GNU-stack,"",%progbits
