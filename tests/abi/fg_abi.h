/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* fg_abi.h -- call a kernel under SysV x86-64 ABI checks (tests only).
 *
 * fg_abi_call(fn, a0, a1, a2) loads distinct canaries into the callee-saved
 * registers rbx, rbp, r12, r13, r14, r15, calls fn(a0, a1, a2) with rsp 16-byte
 * aligned at the call (as the ABI requires), and afterwards checks that the
 * six registers and rsp are unchanged and that the direction flag is clear.
 * Functions of fewer arguments can be called too (extra arguments are ignored
 * by the callee).  The return value is a bitmask of FG_ABI_* bits, 0 when the
 * callee kept the ABI.  fn's own return value is discarded.
 */
#ifndef FG_ABI_H
#define FG_ABI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FG_ABI_RBX 0x01u
#define FG_ABI_RBP 0x02u
#define FG_ABI_R12 0x04u
#define FG_ABI_R13 0x08u
#define FG_ABI_R14 0x10u
#define FG_ABI_R15 0x20u
#define FG_ABI_RSP 0x40u  /* stack pointer not restored */
#define FG_ABI_DF  0x80u  /* direction flag left set (it is cleared again before returning) */

uint64_t fg_abi_call(const void *fn, uint64_t a0, uint64_t a1, uint64_t a2);

/* Human-readable list of the clobbers in mask, e.g. "rbx r12 DF" ("ok" for 0). */
static inline const char *fg_abi_describe(uint64_t mask, char buf[64])
{
    static const char *const names[8] = { "rbx", "rbp", "r12", "r13", "r14", "r15", "rsp", "DF" };
    char *p = buf;
    if (mask == 0) {
        buf[0] = 'o'; buf[1] = 'k'; buf[2] = 0;
        return buf;
    }
    for (int i = 0; i < 8; i++) {
        if (mask & (1u << i)) {
            const char *s = names[i];
            if (p != buf) *p++ = ' ';
            while (*s) *p++ = *s++;
        }
    }
    *p = 0;
    return buf;
}

#ifdef __cplusplus
}
#endif
#endif /* FG_ABI_H */
