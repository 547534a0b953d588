// SPDX-License-Identifier: MIT OR Apache-2.0
/* Dispatch while the runtime starts (issue 53 defect 6): threads started by a
 * constructor that runs before the runtime's (priority 101; the runtime's has
 * the default) call the dispatched fg_p25519_mul and fg_p25519_sqr while the
 * runtime's constructor probes the CPU and writes the dispatch words. Every
 * thread's chain must equal the one main computes afterwards (a call before
 * the probe runs the portable level, after it the probed one: both correct),
 * and under ThreadSanitizer (.ci/trust.sh builds this file, the runtime and
 * the field with -fsanitize=thread) no data race may be reported: every
 * access to the dispatch words is atomic.
 *
 * Prints "N passed, N failed"; exit 0 when all pass. */
#include "fg_p25519.h"

#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>

#define THREADS 2
#define STEPS 20000

static pthread_t threads[THREADS];
static int started[THREADS], running[THREADS];
static fg_p25519 results[THREADS];

static void chain(fg_p25519 *x, uint64_t seed)
{
    fg_p25519 y;
    int i;
    fg_p25519_from_u64(x, seed);
    fg_p25519_from_u64(&y, seed * 7 + 3);
    for (i = 0; i < STEPS; i++) {
        fg_p25519_mul(x, x, &y);
        fg_p25519_sqr(&y, x);
    }
}

static void *worker(void *arg)
{
    int k = (int)(intptr_t)arg;
    __atomic_store_n(&running[k], 1, __ATOMIC_RELEASE);
    chain(&results[k], 1000 + (uint64_t)k);
    return NULL;
}

__attribute__((constructor(101))) static void start_early(void)
{
    int k;
    for (k = 0; k < THREADS; k++)
        started[k] = pthread_create(&threads[k], NULL, worker, (void *)(intptr_t)k) == 0;
    /* return (and let the runtime's constructor run) only once every thread
     * runs: its calls then overlap the runtime's start-up for certain */
    for (k = 0; k < THREADS; k++)
        while (started[k] && !__atomic_load_n(&running[k], __ATOMIC_ACQUIRE))
            sched_yield();
}

int main(void)
{
    int k, passed = 0, failed = 0;
    for (k = 0; k < THREADS; k++) {
        fg_p25519 want;
        if (!started[k]) {
            printf("FAIL: thread %d did not start\n", k);
            failed++;
            continue;
        }
        pthread_join(threads[k], NULL);
        chain(&want, 1000 + (uint64_t)k);
        if (fg_p25519_eq(&results[k], &want)) {
            passed++;
        } else {
            printf("FAIL: thread %d's chain (started before the runtime's constructor) differs\n", k);
            failed++;
        }
    }
    printf("level after start-up: %s\n", fg_isa_name(fg_isa_active()));
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
