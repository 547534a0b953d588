/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Latency of the vector steps a hybrid kernel's vector half is made of:
 * chains of one instruction (or one short sequence) repeated, in core
 * cycles (calibrated by a chain of dependent ADDs, one cycle each).
 *
 *   cc -O2 -march=native vlat.c -o vlat && taskset -c 1 ./vlat
 *
 * Needs AVX-512 F, BW, DQ, VBMI and IFMA.
 */
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <x86intrin.h>

static inline uint64_t tsc(void)
{
    _mm_lfence();
    uint64_t t = __rdtsc();
    _mm_lfence();
    return t;
}

enum { ITERS = 200000 };
#define X8(s) s s s s s s s s
/* ticks per step of a chain: ITERS iterations of 8 copies of asm text s */
#define CHAIN(s, ...)                                                   \
    ({                                                                  \
        uint64_t t0_ = tsc();                                           \
        for (int i_ = 0; i_ < ITERS; i_++)                              \
            __asm__ volatile(X8(s) __VA_ARGS__);                        \
        (double)(tsc() - t0_) / ITERS / 8;                              \
    })

int main(void)
{
    __m512i x = _mm512_set1_epi64(3), y = _mm512_set1_epi64(5), z = _mm512_set1_epi64(7);
    uint64_t g = 1;
    for (int rep = 0; rep < 2; rep++) { /* the first pass warms up; the second prints */
        double add = CHAIN("add %0, %0\n\t", : "+r"(g));
        struct {
            const char *what;
            double ticks;
        } row[] = {
            {"VPADDQ zmm", CHAIN("vpaddq %1, %0, %0\n\t", : "+v"(x) : "v"(y))},
            {"VPSRLVQ zmm", CHAIN("vpsrlvq %1, %0, %0\n\t", : "+v"(x) : "v"(y))},
            {"VPMADD52LUQ zmm (accumulator chain)", CHAIN("vpmadd52luq %1, %2, %0\n\t", : "+v"(x) : "v"(y), "v"(z))},
            {"VALIGNQ zmm", CHAIN("valignq $3, %1, %0, %0\n\t", : "+v"(x) : "v"(y))},
            {"VPERMQ zmm (variable)", CHAIN("vpermq %0, %1, %0\n\t", : "+v"(x) : "v"(y))},
            {"VPERMB zmm", CHAIN("vpermb %0, %1, %0\n\t", : "+v"(x) : "v"(y))},
            {"VPERMI2Q zmm", CHAIN("vpermi2q %1, %2, %0\n\t", : "+v"(x) : "v"(y), "v"(z))},
            {"VPBLENDMQ zmm{k}", CHAIN("vpblendmq %1, %0, %0%{%%k1%}\n\t", : "+v"(x) : "v"(y) : "k1")},
            {"KADDW / KSHIFTLW / KXORW (each)", CHAIN("kaddw %%k1, %%k1, %%k1\n\t", : : : "k1")},
            {"VPCMPUQ -> k, VPADDQ{k}", CHAIN("vpcmpuq $1, %1, %0, %%k1\n\tvpaddq %1, %0, %0%{%%k1%}\n\t", : "+v"(x) : "v"(y) : "k1")},
            {"VPCMPUQ -> k, KMOVD -> r, ADD, KMOVD -> k, VPADDQ{k}",
             CHAIN("vpcmpuq $1, %1, %0, %%k1\n\tkmovd %%k1, %k2\n\tadd %2, %2\n\tkmovd %k2, %%k1\n\t"
                   "vpaddq %1, %0, %0%{%%k1%}\n\t", : "+v"(x) : "v"(y), "r"(g) : "k1")},
            {"KMOVD k -> r, KMOVD r -> k", CHAIN("kmovd %%k1, %k0\n\tkmovd %k0, %%k1\n\t", : "+r"(g) : : "k1")},
            {"VMOVQ xmm -> r, VMOVQ r -> xmm", CHAIN("vmovq %x0, %1\n\tvmovq %1, %x0\n\t", : "+v"(x), "+r"(g))},
        };
        if (rep == 0)
            continue;
        printf("one dependent ADD: %.3f ticks = 1 core cycle\n", add);
        for (size_t i = 0; i < sizeof row / sizeof row[0]; i++)
            printf("%-56s %5.1f cycles\n", row[i].what, row[i].ticks / add);
    }
    return (int)(_mm512_reduce_add_epi64(x) + (long long)g) & 1;
}
