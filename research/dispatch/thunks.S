/* Thunks for dispatch_cost.c: a bare tail jump to the adx squaring kernel, and
 * the C dispatcher's instruction sequence (load, compare, not-taken branch, jump:
 * what GCC and Clang make of the generated C) as a stand-alone function, to
 * compare with the library's assembly dispatcher (load, compare, jge kernel).
 * ELF only (a measurement, not part of the library). */
        .text
        .globl  thunk_jmp_sqr
        .p2align 4
thunk_jmp_sqr:
        jmp     fg_p503_sqr_adx

        .globl  thunk_cdispatch_sqr
        .p2align 4
thunk_cdispatch_sqr:
        movl    fg_cpu_isa(%rip), %eax
        cmpl    $2, %eax
        jle     1f
        jmp     fg_p503_sqr_adx
1:      jmp     fg_p503_sqr
        .section .note.GNU-stack,"",%progbits
