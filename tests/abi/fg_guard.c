/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* fg_guard.c -- see fg_guard.h. */
#define _DEFAULT_SOURCE
#include "fg_guard.h"

#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static size_t page_size(void)
{
    long p = sysconf(_SC_PAGESIZE);
    return p > 0 ? (size_t)p : 4096;
}

/* Map data pages plus one guard page, the guard first or last. */
static unsigned char *map_with_guard(fg_guard *g, size_t size, int guard_last, size_t *data_len)
{
    size_t page = page_size();
    size_t len = (size + page - 1) / page * page;
    if (len == 0)
        len = page;
    g->map = NULL;
    g->map_len = 0;
    void *m = mmap(NULL, len + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    unsigned char *base = m;
    unsigned char *guard = guard_last ? base + len : base;
    if (mprotect(guard, page, PROT_NONE) != 0) {
        munmap(m, len + page);
        return NULL;
    }
    g->map = m;
    g->map_len = len + page;
    *data_len = len;
    return guard_last ? base : base + page;
}

void *fg_guard_alloc(fg_guard *g, size_t size)
{
    size_t len;
    unsigned char *data = map_with_guard(g, size, 1, &len);
    if (data == NULL)
        return NULL;
    memset(data, 0xA5, len);
    return data + len - size;   /* last byte of the object is the last byte before the guard */
}

void *fg_guard_alloc_front(fg_guard *g, size_t size)
{
    size_t len;
    unsigned char *data = map_with_guard(g, size, 0, &len);
    if (data == NULL)
        return NULL;
    memset(data, 0xA5, len);
    return data;                /* first byte of the object follows the guard */
}

void fg_guard_free(fg_guard *g)
{
    if (g->map != NULL)
        munmap(g->map, g->map_len);
    g->map = NULL;
    g->map_len = 0;
}
