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
thunk_dispatch_sqr:
        movl    fg_cpu_isa(%rip), %eax
        cmpl    $2, %eax
        jle     1f
        jmp     fg_p503_sqr_adx
1:      jmp     fg_p503_sqr
        .section .note.GNU-stack,"",%progbits
