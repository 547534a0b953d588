/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* fieldgen-bench: heap allocation counters.
 *
 * The bench binary defines malloc, calloc, realloc, free and the memalign family
 * itself, forwarding to glibc's __libc_* entry points, so every allocation in the
 * process (ours, OpenSSL's, GMP's, libc's) goes through a counter. The timing core
 * reads the counter around each row's timed batches: allocations per call are
 * counted, not assumed. fgb_alloc_selftest() proves the interposition is live. */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include "fgb.h"

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);
extern void *__libc_memalign(size_t, size_t);

static uint64_t g_count; /* updated with relaxed atomics: threads may allocate */

static inline void count(void)
{
    __atomic_fetch_add(&g_count, 1, __ATOMIC_RELAXED);
}

uint64_t fgb_alloc_count(void)
{
    return __atomic_load_n(&g_count, __ATOMIC_RELAXED);
}

void *malloc(size_t n)
{
    count();
    return __libc_malloc(n);
}
void *calloc(size_t n, size_t m)
{
    count();
    return __libc_calloc(n, m);
}
void *realloc(void *p, size_t n)
{
    count();
    return __libc_realloc(p, n);
}
void free(void *p)
{
    __libc_free(p);
}
void *memalign(size_t a, size_t n)
{
    count();
    return __libc_memalign(a, n);
}
void *aligned_alloc(size_t a, size_t n)
{
    count();
    return __libc_memalign(a, n);
}
int posix_memalign(void **out, size_t a, size_t n)
{
    count();
    if (a % sizeof(void *) || (a & (a - 1)))
        return EINVAL;
    void *p = __libc_memalign(a, n);
    if (!p && n)
        return ENOMEM;
    *out = p;
    return 0;
}
void *valloc(size_t n)
{
    count();
    return __libc_memalign(4096, n);
}
void *pvalloc(size_t n)
{
    count();
    return __libc_memalign(4096, (n + 4095) & ~(size_t)4095);
}

int fgb_alloc_selftest(void)
{
    void *(*volatile m)(size_t) = malloc;
    uint64_t before = fgb_alloc_count();
    void *p = m(24);
    uint64_t after = fgb_alloc_count();
    free(p);
    return after == before + 1;
}
