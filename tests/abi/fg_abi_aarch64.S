/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* fg_abi_aarch64.S -- call a kernel under AAPCS64 checks (tests only; Linux
 * ELF, the cross build under qemu-user).
 *
 * uint64_t fg_abi_call_a64(const void *fn, uint64_t a0, uint64_t a1, uint64_t a2)
 * loads distinct canaries into the callee-saved x19-x28, the frame pointer
 * x29, the platform register x18 (which fieldgen's kernels never touch: it
 * is reserved on Apple and Windows) and the callee-saved d8-d15, writes two
 * canary words into its own frame just above the callee's stack pointer,
 * calls fn(a0, a1, a2) by BLR (an indirect call: with BTI enforced, a
 * kernel without its landing pad faults), then returns a mask of what
 * changed: bits 0-9 x19-x28, 10 x29, 11 x18, 12-19 d8-d15, 20 sp, 21 the
 * stack canaries. 0: the callee kept the ABI.
 *
 * fg_abi_a64_bad_*: deliberately wrong callees, for the self-test.
 */
#if defined(__aarch64__) && defined(__ELF__)
	.text

/* x10 = the canary base (a constant; recomputed after the call) */
.macro canary_base
	movz	x10, #0x5eed
	movk	x10, #0xc0de, lsl #16
	movk	x10, #0xfa11, lsl #32
	movk	x10, #0xa64a, lsl #48
.endm

	.globl	fg_abi_call_a64
	.type	fg_abi_call_a64, %function
	.p2align 4
fg_abi_call_a64:
	hint	#34
	stp	x29, x30, [sp, #-192]!
	mov	x29, sp
	stp	x19, x20, [sp, #16]
	stp	x21, x22, [sp, #32]
	stp	x23, x24, [sp, #48]
	stp	x25, x26, [sp, #64]
	stp	x27, x28, [sp, #80]
	stp	d8, d9, [sp, #96]
	stp	d10, d11, [sp, #112]
	stp	d12, d13, [sp, #128]
	stp	d14, d15, [sp, #144]
	str	x18, [sp, #176]
	mov	x9, x0
	mov	x0, x1
	mov	x1, x2
	mov	x2, x3
	canary_base
	adrp	x12, fg_abi_a64_saved_sp
	add	x12, x12, :lo12:fg_abi_a64_saved_sp
	mov	x13, sp
	str	x13, [x12]
	add	x11, x10, #1
	str	x11, [sp, #160]		/* the caller's frame: above the callee's sp */
	add	x11, x10, #2
	str	x11, [sp, #168]
	add	x19, x10, #19
	add	x20, x10, #20
	add	x21, x10, #21
	add	x22, x10, #22
	add	x23, x10, #23
	add	x24, x10, #24
	add	x25, x10, #25
	add	x26, x10, #26
	add	x27, x10, #27
	add	x28, x10, #28
	add	x29, x10, #29
	add	x18, x10, #18
	add	x11, x10, #108
	fmov	d8, x11
	add	x11, x10, #109
	fmov	d9, x11
	add	x11, x10, #110
	fmov	d10, x11
	add	x11, x10, #111
	fmov	d11, x11
	add	x11, x10, #112
	fmov	d12, x11
	add	x11, x10, #113
	fmov	d13, x11
	add	x11, x10, #114
	fmov	d14, x11
	add	x11, x10, #115
	fmov	d15, x11
	blr	x9
	canary_base
	mov	x9, #0
.macro check reg, off, bit
	add	x11, x10, #\off
	cmp	\reg, x11
	cset	x12, ne
	orr	x9, x9, x12, lsl #\bit
.endm
	check	x19, 19, 0
	check	x20, 20, 1
	check	x21, 21, 2
	check	x22, 22, 3
	check	x23, 23, 4
	check	x24, 24, 5
	check	x25, 25, 6
	check	x26, 26, 7
	check	x27, 27, 8
	check	x28, 28, 9
	check	x29, 29, 10
	check	x18, 18, 11
.macro checkd reg, off, bit
	fmov	x13, \reg
	check	x13, \off, \bit
.endm
	checkd	d8, 108, 12
	checkd	d9, 109, 13
	checkd	d10, 110, 14
	checkd	d11, 111, 15
	checkd	d12, 112, 16
	checkd	d13, 113, 17
	checkd	d14, 114, 18
	checkd	d15, 115, 19
	adrp	x12, fg_abi_a64_saved_sp
	add	x12, x12, :lo12:fg_abi_a64_saved_sp
	ldr	x13, [x12]
	mov	x14, sp
	cmp	x13, x14
	cset	x12, ne
	orr	x9, x9, x12, lsl #20
	mov	sp, x13			/* back to the frame whatever the callee did */
	ldr	x13, [sp, #160]
	check	x13, 1, 21
	ldr	x13, [sp, #168]
	check	x13, 2, 21
	mov	x0, x9
	ldr	x18, [sp, #176]
	ldp	d14, d15, [sp, #144]
	ldp	d12, d13, [sp, #128]
	ldp	d10, d11, [sp, #112]
	ldp	d8, d9, [sp, #96]
	ldp	x27, x28, [sp, #80]
	ldp	x25, x26, [sp, #64]
	ldp	x23, x24, [sp, #48]
	ldp	x21, x22, [sp, #32]
	ldp	x19, x20, [sp, #16]
	ldp	x29, x30, [sp], #192
	ret
	.size	fg_abi_call_a64, .-fg_abi_call_a64

/* the self-test's callees: one correct, one per kind of violation */
.macro callee name, body:vararg
	.globl	fg_abi_a64_\name
	.type	fg_abi_a64_\name, %function
	.p2align 4
fg_abi_a64_\name:
	hint	#34
	\body
	ret
	.size	fg_abi_a64_\name, .-fg_abi_a64_\name
.endm
	callee	good, nop
	callee	bad_x19, mov x19, #1
	callee	bad_x28, add x28, x28, #1
	callee	bad_x29, mov x29, #0
	callee	bad_x18, mov x18, #0
	callee	bad_d8, fmov d8, xzr
	callee	bad_d15, fmov d15, x0
	callee	bad_stack, str xzr, [sp, #160]

	.bss
	.p2align 3
fg_abi_a64_saved_sp:
	.quad	0

	.section .note.gnu.property,"a"
	.p2align 3
	.long 4, 16, 5
	.asciz "GNU"
	.long 0xc0000000, 4, 1
	.p2align 3
#endif
#ifdef __ELF__
.section .note.GNU-stack,"",%progbits
#endif
