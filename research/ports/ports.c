/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Which execution ports the kernels' instructions compete for, measured on
 * this machine (perf cannot count per-port uops on these VMs, so this infers
 * it from throughput). Each test is a straight block of instructions with no
 * dependency between them except where stated, repeated in a loop; the figure
 * is core cycles per block (TSC ticks times the core/TSC ratio taken from a
 * chain of dependent ADDs, 1 cycle each).
 *
 * The conclusions the floors in fieldgen-bench rest on (see README.md here):
 *   - MULX (and one-operand MUL) issue one per cycle: ports 1 and 5;
 *   - ADC/SBB/ADCX/ADOX, CMOVcc, SETcc and shifts share two ports (0 and 6),
 *     which plain ADD/SUB/AND/XOR/MOV need not use;
 *   - MULX does not take those two ports: a block of both runs as fast as the
 *     slower of its two halves, not at their sum.
 *
 *   cc -O2 ports.c -o ports && taskset -c 1 ./ports
 * A measurement, not a test: run it on a quiet machine.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <x86intrin.h>

static inline uint64_t tsc(void) { _mm_lfence(); uint64_t t = __rdtsc(); _mm_lfence(); return t; }
static int cmp(const void *a, const void *b) { double u = *(const double *)a, v = *(const double *)b; return u < v ? -1 : u > v; }

#define R8 "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15"
#define X8(op) op " %%r8\n" op " %%r9\n" op " %%r10\n" op " %%r11\n" \
               op " %%r12\n" op " %%r13\n" op " %%r14\n" op " %%r15\n"
/* 8 independent MULX (rdx fixed, distinct destinations, sources rsi/rdi) */
#define MULX8 "mulx %%rsi, %%r8, %%r9\nmulx %%rdi, %%r10, %%r11\nmulx %%rsi, %%r12, %%r13\nmulx %%rdi, %%r14, %%r15\n" \
              "mulx %%rsi, %%r8, %%r9\nmulx %%rdi, %%r10, %%r11\nmulx %%rsi, %%r12, %%r13\nmulx %%rdi, %%r14, %%r15\n"
/* two flag chains of 4, as in the kernels' rows: ADCX on CF and ADOX on OF */
#define ADX8 "adcx %%rsi, %%r8\nadox %%rdi, %%r9\nadcx %%rsi, %%r10\nadox %%rdi, %%r11\n" \
             "adcx %%rsi, %%r12\nadox %%rdi, %%r13\nadcx %%rsi, %%r14\nadox %%rdi, %%r15\n"

enum { BLOCKS = 64, ROUNDS = 301 };

typedef void (*test_fn)(void);

#define TEST(name, body, clob...) \
    __attribute__((noinline)) static void name(void) { \
        for (int i = 0; i < BLOCKS; i++) \
            __asm__ volatile(body body body body : : "d"(0x9e3779b97f4a7c15ull), "S"(3ull), "D"(5ull) : clob); }

TEST(t_add_chain, "add %%rsi, %%r8\nadd %%rsi, %%r8\nadd %%rsi, %%r8\nadd %%rsi, %%r8\n"
                  "add %%rsi, %%r8\nadd %%rsi, %%r8\nadd %%rsi, %%r8\nadd %%rsi, %%r8\n", "r8", "cc")
TEST(t_add8, X8("add %%rsi,") X8("add %%rsi,"), R8, "cc")
TEST(t_shr8, X8("shr $1,") X8("shr $1,"), R8, "cc")
TEST(t_cmov8, "test %%rsi, %%rsi\n" X8("cmovz %%rsi,") X8("cmovz %%rsi,"), R8, "cc")
TEST(t_adx8, ADX8 ADX8, R8, "cc")
TEST(t_adc_shr, "adc %%rsi, %%r8\nshr $1, %%r9\nshr $1, %%r10\nshr $1, %%r11\n"
                "adc %%rsi, %%r8\nshr $1, %%r12\nshr $1, %%r13\nshr $1, %%r14\n"
                "adc %%rsi, %%r8\nshr $1, %%r15\nshr $1, %%r9\nshr $1, %%r10\n"
                "adc %%rsi, %%r8\nshr $1, %%r11\nshr $1, %%r12\nshr $1, %%r13\n", R8, "cc")
TEST(t_mulx8, MULX8 MULX8, R8)
TEST(t_mul1, "mov %%rsi, %%rax\nmul %%rdi\nmov %%rsi, %%rax\nmul %%rdi\nmov %%rsi, %%rax\nmul %%rdi\nmov %%rsi, %%rax\nmul %%rdi\n"
             "mov %%rsi, %%rax\nmul %%rdi\nmov %%rsi, %%rax\nmul %%rdi\nmov %%rsi, %%rax\nmul %%rdi\nmov %%rsi, %%rax\nmul %%rdi\n",
     "rax", "cc")
/* 16 MULX + 16 port-0/6 operations (shifts): 16 cycles if MULX keeps off
 * ports 0 and 6, 24 if it shares them */
TEST(t_mulx_shr, "mulx %%rsi, %%rax, %%rbx\nshr $1, %%r8\nmulx %%rdi, %%rcx, %%rbp\nshr $1, %%r9\n"
                 "mulx %%rsi, %%rax, %%rbx\nshr $1, %%r10\nmulx %%rdi, %%rcx, %%rbp\nshr $1, %%r11\n"
                 "mulx %%rsi, %%rax, %%rbx\nshr $1, %%r12\nmulx %%rdi, %%rcx, %%rbp\nshr $1, %%r13\n"
                 "mulx %%rsi, %%rax, %%rbx\nshr $1, %%r14\nmulx %%rdi, %%rcx, %%rbp\nshr $1, %%r15\n"
                 "mulx %%rsi, %%rax, %%rbx\nshr $1, %%r8\nmulx %%rdi, %%rcx, %%rbp\nshr $1, %%r9\n"
                 "mulx %%rsi, %%rax, %%rbx\nshr $1, %%r10\nmulx %%rdi, %%rcx, %%rbp\nshr $1, %%r11\n"
                 "mulx %%rsi, %%rax, %%rbx\nshr $1, %%r12\nmulx %%rdi, %%rcx, %%rbp\nshr $1, %%r13\n"
                 "mulx %%rsi, %%rax, %%rbx\nshr $1, %%r14\nmulx %%rdi, %%rcx, %%rbp\nshr $1, %%r15\n"
                 X8("shr $1,"), R8, "rax", "rbx", "rcx", "rbp", "cc")
/* 16 MULX + 16 ADCX/ADOX (two chains of 8): likewise */
TEST(t_mulx_adx, "mulx %%rsi, %%rax, %%rbx\nadcx %%rsi, %%r8\nmulx %%rdi, %%rcx, %%rbp\nadox %%rdi, %%r9\n"
                 "mulx %%rsi, %%rax, %%rbx\nadcx %%rsi, %%r10\nmulx %%rdi, %%rcx, %%rbp\nadox %%rdi, %%r11\n"
                 "mulx %%rsi, %%rax, %%rbx\nadcx %%rsi, %%r12\nmulx %%rdi, %%rcx, %%rbp\nadox %%rdi, %%r13\n"
                 "mulx %%rsi, %%rax, %%rbx\nadcx %%rsi, %%r14\nmulx %%rdi, %%rcx, %%rbp\nadox %%rdi, %%r15\n"
                 "mulx %%rsi, %%rax, %%rbx\nadcx %%rsi, %%r8\nmulx %%rdi, %%rcx, %%rbp\nadox %%rdi, %%r9\n"
                 "mulx %%rsi, %%rax, %%rbx\nadcx %%rsi, %%r10\nmulx %%rdi, %%rcx, %%rbp\nadox %%rdi, %%r11\n"
                 "mulx %%rsi, %%rax, %%rbx\nadcx %%rsi, %%r12\nmulx %%rdi, %%rcx, %%rbp\nadox %%rdi, %%r13\n"
                 "mulx %%rsi, %%rax, %%rbx\nadcx %%rsi, %%r14\nmulx %%rdi, %%rcx, %%rbp\nadox %%rdi, %%r15\n",
     R8, "rax", "rbx", "rcx", "rbp", "cc")
/* 16 shifts + 16 ADDs: 8 cycles if ADD avoids ports 0/6 when they are busy, more if it shares them */
TEST(t_shr_add, X8("shr $1,") X8("shr $1,") "add %%rsi, %%rax\nadd %%rsi, %%rbx\nadd %%rsi, %%rcx\nadd %%rsi, %%rbp\n"
                "add %%rdi, %%rax\nadd %%rdi, %%rbx\nadd %%rdi, %%rcx\nadd %%rdi, %%rbp\n"
                "add %%rsi, %%rax\nadd %%rsi, %%rbx\nadd %%rsi, %%rcx\nadd %%rsi, %%rbp\n"
                "add %%rdi, %%rax\nadd %%rdi, %%rbx\nadd %%rdi, %%rcx\nadd %%rdi, %%rbp\n",
     R8, "rax", "rbx", "rcx", "rbp", "cc")

/* 16 SHLD (8 destinations, two each; latency 3, so 8 chains of 2): one per
 * cycle if SHLD has one port, 8 if it has two */
TEST(t_shld, X8("shld $1, %%rsi,") X8("shld $1, %%rdi,"), R8, "cc")
/* 16 MULX + 16 SHLD: 16 if SHLD keeps off MULX's port 1, 32 if it shares it */
#define MS(r) "mulx %%rsi, %%rax, %%rbx\nshld $1, %%rsi, %%" r "\n"
TEST(t_mulx_shld, MS("r8") MS("r9") MS("r10") MS("r11") MS("r12") MS("r13") MS("r14") MS("r15")
                  MS("r8") MS("r9") MS("r10") MS("r11") MS("r12") MS("r13") MS("r14") MS("r15"),
     R8, "rax", "rbx", "cc")
/* 8 SHLD + 8 SHR: 8 if they use different ports */
TEST(t_shld_shr, X8("shld $1, %%rsi,") X8("shr $1,"), R8, "cc")

/* Zen cores (added 2026-12-01 on an EPYC, family 25 model 1): what the carry
 * instructions cost when the two flag chains are not the limit.
 * 8 independent ADD+ADC pairs: each ADD starts a new carry chain, so the 16
 * instructions form 8 chains of 2: 16/k cycles on k carry-capable ports */
#define AA(r1, r2) "add %%rsi, %%" r1 "\nadc %%rdi, %%" r2 "\n"
TEST(t_add_adc, AA("r8", "r9") AA("r10", "r11") AA("r12", "r13") AA("r14", "r15")
                AA("r8", "r9") AA("r10", "r11") AA("r12", "r13") AA("r14", "r15"), R8, "cc")
/* 16 ADCX on one chain (CF only): its latency, 16 if 1 cycle */
TEST(t_adcx_chain, X8("adcx %%rsi,") X8("adcx %%rdi,"), R8, "cc")
/* 16 ADC on one chain (CF): likewise */
TEST(t_adc_chain, X8("adc %%rsi,") X8("adc %%rdi,"), R8, "cc")
/* 16 MULX + 8 ADD/ADC pairs: the carry work of a product row in ADD/ADC form */
#define MA(r1, r2) "mulx %%rsi, %%rax, %%rbx\nadd %%rsi, %%" r1 "\nmulx %%rdi, %%rcx, %%rbp\nadc %%rdi, %%" r2 "\n"
TEST(t_mulx_addadc, MA("r8", "r9") MA("r10", "r11") MA("r12", "r13") MA("r14", "r15")
                    MA("r8", "r9") MA("r10", "r11") MA("r12", "r13") MA("r14", "r15"),
     R8, "rax", "rbx", "rcx", "rbp", "cc")

/* Zen 5 (added 2026-12-01 on an EPYC, family 26 model 2): MULX beside plain
 * ADDs and beside carry chains that do not depend on it.
 * 16 MULX + 16k independent ADDs (k = 2, 4): 10.6 (MULX alone) if the ADDs
 * fit around MULX, about (2*16 + 16k)/4.5 if MULX takes two ALU issue slots
 * out of ~4.5 a cycle */
#define M2A "mulx %%rsi, %%rax, %%rbx\nadd %%rsi, %%r8\nadd %%rdi, %%r9\nmulx %%rdi, %%rcx, %%rbp\nadd %%rsi, %%r10\nadd %%rdi, %%r11\n" \
            "mulx %%rsi, %%rax, %%rbx\nadd %%rsi, %%r12\nadd %%rdi, %%r13\nmulx %%rdi, %%rcx, %%rbp\nadd %%rsi, %%r14\nadd %%rdi, %%r15\n"
TEST(t_mulx_add2, M2A M2A M2A M2A, R8, "rax", "rbx", "rcx", "rbp", "cc")
#define M4A "mulx %%rsi, %%rax, %%rbx\n" X8("add %%rsi,") "mulx %%rdi, %%rcx, %%rbp\n"
TEST(t_mulx_add4, M4A M4A M4A M4A M4A M4A M4A M4A, R8, "rax", "rbx", "rcx", "rbp", "cc")
/* 16 MULX + one 16-long ADC chain that reads none of their results: 16 if
 * MULX never delays a ready chain step */
#define MC(r) "mulx %%rsi, %%rax, %%rbx\nadc %%rsi, %%" r "\n"
TEST(t_mulx_chain, MC("r8") MC("r9") MC("r10") MC("r11") MC("r12") MC("r13") MC("r14") MC("r15")
                   MC("r8") MC("r9") MC("r10") MC("r11") MC("r12") MC("r13") MC("r14") MC("r15"),
     R8, "rax", "rbx", "cc")
/* 16 MULX + two 16-long chains (ADCX on CF, ADOX on OF), as a kernel row's
 * two chains beside its products: 16 if MULX never delays them */
#define MX2(r1, r2) "mulx %%rsi, %%rax, %%rbx\nadcx %%rsi, %%" r1 "\nadox %%rdi, %%" r2 "\n"
TEST(t_mulx_chain2, MX2("r8", "r9") MX2("r10", "r11") MX2("r12", "r13") MX2("r14", "r15")
                    MX2("r8", "r9") MX2("r10", "r11") MX2("r12", "r13") MX2("r14", "r15")
                    MX2("r8", "r9") MX2("r10", "r11") MX2("r12", "r13") MX2("r14", "r15")
                    MX2("r8", "r9") MX2("r10", "r11") MX2("r12", "r13") MX2("r14", "r15"),
     R8, "rax", "rbx", "cc")

static const struct { const char *name; test_fn fn; double expect; const char *why; } tests[] = {
    {"ADD chain (8 dependent)", t_add_chain, 8, "calibration: 1 cycle each"},
    {"16 independent ADD", t_add8, 16 / 5.0, "5 ALU ports: 3.2"},
    {"16 independent SHR", t_shr8, 8, "ports 0/6 only: 8"},
    {"16 CMOVZ", t_cmov8, 8, "ports 0/6 only: 8"},
    {"16 ADCX/ADOX (2 chains)", t_adx8, 8, "ports 0/6 (and the 2 chains): 8"},
    {"4 ADC (chain) + 12 SHR", t_adc_shr, 8, "8 if ADC is on ports 0/6 too, else 6"},
    {"16 independent MULX", t_mulx8, 16, "one per cycle: 16"},
    {"8 MUL r64 (one operand)", t_mul1, 8, "one per cycle: 8"},
    {"16 MULX + 24 SHR", t_mulx_shr, 16, "16 if MULX is off ports 0/6 (24 SHR: 12), 20+ if shared"},
    {"16 MULX + 16 ADCX/ADOX", t_mulx_adx, 16, "16 if MULX is off ports 0/6, 16..24 if shared"},
    {"16 SHR + 16 ADD", t_shr_add, 8, "8 if ADD moves to the other ports, up to 16 if not"},
    {"16 SHLD", t_shld, 16, "one port: 16; two: 8"},
    {"16 MULX + 16 SHLD", t_mulx_shld, 32, "32 if SHLD shares MULX's port 1, 16 if not"},
    {"8 SHLD + 8 SHR", t_shld_shr, 8, "8 if SHLD is off ports 0/6, 16 if not"},
    {"8 ADD+ADC pairs (8 chains)", t_add_adc, 4, "16/k on k carry-capable ports (Intel p0/p6: 8; Zen ALUs: 4)"},
    {"16 ADCX, one chain (CF)", t_adcx_chain, 16, "latency 1: 16"},
    {"16 ADC, one chain (CF)", t_adc_chain, 16, "latency 1: 16"},
    {"16 MULX + 8 ADD/ADC pairs", t_mulx_addadc, 16, "16 if MULX and the carries do not compete"},
    {"16 MULX + 32 ADD", t_mulx_add2, 64 / 4.5, "MULX alone if the ADDs fit around it; (2*16+32)/4.5 = 14.2"},
    {"16 MULX + 64 ADD", t_mulx_add4, 96 / 4.5, "likewise; (2*16+64)/4.5 = 21.3"},
    {"16 MULX + ADC chain of 16", t_mulx_chain, 16, "16 if MULX never delays a ready chain step"},
    {"16 MULX + 2 chains of 16", t_mulx_chain2, 16, "ADCX and ADOX chains beside MULX: likewise 16"},
};

int main(void)
{
    enum { NT = sizeof tests / sizeof tests[0] };
    static double s[NT][ROUNDS];
    for (int r = 0; r < ROUNDS; r++)
        for (int t = 0; t < NT; t++) {
            tests[t].fn(); /* warm */
            uint64_t t0 = tsc();
            tests[t].fn();
            s[t][r] = (double)(tsc() - t0) / (4 * BLOCKS); /* 4 copies per asm */
        }
    double med[NT];
    for (int t = 0; t < NT; t++) { qsort(s[t], ROUNDS, sizeof(double), cmp); med[t] = s[t][ROUNDS / 2]; }
    double ratio = 8.0 / med[0]; /* core cycles per TSC tick */
    printf("core cycles per TSC tick: %.3f (from the ADD chain)\n", ratio);
    printf("%-28s %8s %8s  %s\n", "block", "cycles", "model", "what it shows");
    for (int t = 0; t < NT; t++)
        printf("%-28s %8.2f %8.1f  %s\n", tests[t].name, med[t] * ratio, tests[t].expect, tests[t].why);
    return 0;
}
