/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* fg_guard.h -- buffers that touch a PROT_NONE guard page (tests only).
 *
 * fg_guard_alloc returns `size` writable bytes whose END is flush against an
 * inaccessible page: writing or reading even one byte past the object faults
 * (SIGSEGV).  fg_guard_alloc_front does the same for the START (underruns).
 * The returned pointer has no particular alignment beyond that implied by
 * `size` (page end minus size), which also exercises unaligned access when size
 * is not a multiple of 8.  Release with fg_guard_free.  POSIX (mmap/mprotect).
 */
#ifndef FG_GUARD_H
#define FG_GUARD_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    void *map;       /* whole mapping (data pages + guard page) */
    size_t map_len;
} fg_guard;

/* Object of `size` bytes ending exactly at a guard page; NULL on failure. */
void *fg_guard_alloc(fg_guard *g, size_t size);
/* Object of `size` bytes starting exactly after a guard page; NULL on failure. */
void *fg_guard_alloc_front(fg_guard *g, size_t size);
void fg_guard_free(fg_guard *g);

#ifdef __cplusplus
}
#endif
#endif /* FG_GUARD_H */
