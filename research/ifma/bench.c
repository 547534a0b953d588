/* SPDX-License-Identifier: MIT OR Apache-2.0 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <x86intrin.h>
#include "study.h"
void p751_fp2_mul_ifma3(uint64_t *r, const uint64_t *a, const uint64_t *b);
void p503_mul_ifma_ca(uint64_t *r, const uint64_t *a, const uint64_t *b);
void p503_mul_ifma_k5(uint64_t *r, const uint64_t *a, const uint64_t *b);
void p503_mul_ifma_k10(uint64_t *r, const uint64_t *a, const uint64_t *b);
void p503_mul_ifma_k2(uint64_t *r, const uint64_t *a, const uint64_t *b);
#ifdef VARIANT
void v2_p503_mul_ifma(uint64_t *r, const uint64_t *a, const uint64_t *b);
void v2_p751_mul_ifma(uint64_t *r, const uint64_t *a, const uint64_t *b);
void v2_p503_sqr_ifma(uint64_t *r, const uint64_t *a);
void v3_p503_mul_ifma(uint64_t *r, const uint64_t *a, const uint64_t *b);
void v3_p751_mul_ifma(uint64_t *r, const uint64_t *a, const uint64_t *b);
void v3_p503_sqr_ifma(uint64_t *r, const uint64_t *a);
void v4_p503_mul_ifma(uint64_t *r, const uint64_t *a, const uint64_t *b);
void v4_p751_mul_ifma(uint64_t *r, const uint64_t *a, const uint64_t *b);
void v4_p503_sqr_ifma(uint64_t *r, const uint64_t *a);
void v5_p503_mul_ifma(uint64_t *r, const uint64_t *a, const uint64_t *b);
void v5_p751_mul_ifma(uint64_t *r, const uint64_t *a, const uint64_t *b);
void v5_p503_sqr_ifma(uint64_t *r, const uint64_t *a);
void v1_p503_mul_ifma(uint64_t *r, const uint64_t *a, const uint64_t *b);
void v1_p503_sqr_ifma(uint64_t *r, const uint64_t *a);
void v1_p751_mul_ifma(uint64_t *r, const uint64_t *a, const uint64_t *b);
void v1_p751_sqr_ifma(uint64_t *r, const uint64_t *a);
#endif
void fg_p503_mul_adx(uint64_t *r, const uint64_t *a, const uint64_t *b);
void fg_p503_sqr_adx(uint64_t *r, const uint64_t *a);
void fg_p751_mul_adx(uint64_t *r, const uint64_t *a, const uint64_t *b);
void fg_p751_sqr_adx(uint64_t *r, const uint64_t *a);

#define CH 64
typedef struct { const char *name; int kind; void *f; double *t; } K;
static uint64_t xa[32] __attribute__((aligned(64))), yb[32] __attribute__((aligned(64)));

static inline uint64_t tsc(void) { _mm_lfence(); uint64_t t = __rdtsc(); _mm_lfence(); return t; }

static uint64_t run(K *k)
{
    uint64_t t0 = tsc();
    switch (k->kind) {
    case 0: { void (*f)(uint64_t *, const uint64_t *, const uint64_t *) = k->f; for (int i = 0; i < CH; i++) f(xa, xa, yb); break; }
    case 1: { void (*f)(uint64_t *, const uint64_t *) = k->f; for (int i = 0; i < CH; i++) f(xa, xa); break; }
    case 2: { void (*f)(uint64_t *, const uint64_t *, const uint64_t *) = k->f; for (int i = 0; i < CH; i++) f(xa, yb, xa); break; } /* chain through b */
    case 4: { void (*f)(uint64_t *, const uint64_t *, const uint64_t *) = k->f; static uint64_t o[8][16] __attribute__((aligned(64))); for (int i = 0; i < CH / 8; i++) for (int j = 0; j < 8; j++) f(o[j], xa, yb); break; }
    case 3: { void (*f)(void *, const void *, const void *) = k->f; for (int i = 0; i < CH; i++) f(xa, xa, yb); break; }
    }
    return tsc() - t0;
}
static int cmpd(const void *a, const void *b) { double x = *(double *)a, y = *(double *)b; return x < y ? -1 : x > y; }

int main(int argc, char **argv)
{
    int R = argc > 1 ? atoi(argv[1]) : 3000;
    const char *sel = argc > 2 ? argv[2] : "all";
    ifma_setup();
    K ks[] = {
        {"p503 mul adx", 0, fg_p503_mul_adx}, {"p503 mul ifma", 0, p503_mul_ifma},
        {"p503 mul ifma (chain b)", 2, p503_mul_ifma},
#ifdef KEXP
        {"p503 mul ifma K5 (timing only)", 0, p503_mul_ifma_k5}, {"p503 mul ifma K10 (timing only)", 0, p503_mul_ifma_k10}, {"p503 mul ifma K2 (timing only)", 0, p503_mul_ifma_k2},
#endif
        {"p503 mul adx (thr)", 4, fg_p503_mul_adx}, {"p503 mul ifma (thr)", 4, p503_mul_ifma},
#ifdef VARIANT
        {"p503 mul ifma v2", 0, v2_p503_mul_ifma}, {"p751 mul ifma v2", 0, v2_p751_mul_ifma}, {"p503 sqr ifma v2", 1, v2_p503_sqr_ifma},
        {"p503 mul ifma v3", 0, v3_p503_mul_ifma}, {"p751 mul ifma v3", 0, v3_p751_mul_ifma}, {"p503 sqr ifma v3", 1, v3_p503_sqr_ifma},
        {"p503 mul ifma v4", 0, v4_p503_mul_ifma}, {"p751 mul ifma v4", 0, v4_p751_mul_ifma}, {"p503 sqr ifma v4", 1, v4_p503_sqr_ifma},
        {"p503 mul ifma v5", 0, v5_p503_mul_ifma}, {"p751 mul ifma v5", 0, v5_p751_mul_ifma}, {"p503 sqr ifma v5", 1, v5_p503_sqr_ifma},
        {"p503 mul ifma v1", 0, v1_p503_mul_ifma}, {"p503 sqr ifma v1", 1, v1_p503_sqr_ifma},
        {"p751 mul ifma v1", 0, v1_p751_mul_ifma}, {"p751 sqr ifma v1", 1, v1_p751_sqr_ifma},
#endif
        {"p503 sqr adx", 1, fg_p503_sqr_adx}, {"p503 sqr ifma", 1, p503_sqr_ifma},
        {"p751 mul adx", 0, fg_p751_mul_adx}, {"p751 mul ifma", 0, p751_mul_ifma},
        {"p751 sqr adx", 1, fg_p751_sqr_adx}, {"p751 sqr ifma", 1, p751_sqr_ifma},
#ifdef FP2
        {"p751 fp2_mul (dispatch)", 3, fg_p751_fp2_mul}, {"p751 fp2_mul ifma", 3, p751_fp2_mul_ifma},
#ifdef VARIANT
        {"p751 fp2_mul ifma variant", 3, p751_fp2_mul_ifma3},
#endif
#endif
    };
    int n = sizeof ks / sizeof ks[0];
    int use[32], nu = 0;
    for (int i = 0; i < n; i++) if (!strcmp(sel, "all") || strstr(ks[i].name, sel)) use[nu++] = i;
    for (int i = 0; i < n; i++) ks[i].t = malloc(sizeof(double) * R);
    for (int r = 0; r < R; r++)
        for (int j = 0; j < nu; j++) {
            K *k = &ks[use[(j + r) % nu]];
            /* fresh in-range inputs each batch: p-1-small pattern from a fixed seed */
            int nl = strstr(k->name, "p751") ? 12 : 8;
            const uint64_t *P = nl == 12 ? fg_p751_P : fg_p503_P;
            for (int i = 0; i < 2 * nl; i++) { xa[i] = P[i % nl] - 12345 * (i + 1) - r; yb[i] = P[i % nl] - 777 * (i + 3); }
            for (int i = 0; i < 2 * nl; i++) { xa[i] >>= (i % nl == nl - 1) ? 2 : 0; yb[i] >>= (i % nl == nl - 1) ? 1 : 0; }
            k->t[r] = (double)run(k) * 1.305 / CH;
        }
    for (int j = 0; j < nu; j++) {
        K *k = &ks[use[j]];
        qsort(k->t, R, sizeof(double), cmpd);
        printf("%-26s median %7.1f  [p10 %7.1f  p90 %7.1f] core cycles/call (latency)\n", k->name, k->t[R / 2], k->t[R / 10], k->t[9 * R / 10]);
    }
    return 0;
}
