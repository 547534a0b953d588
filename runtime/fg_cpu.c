/* fieldgen runtime: CPUID probe, FIELDGEN_ISA override, ISA forcing. */
#define FG_LIBRARY_SOURCE 1 /* fg_cpu.h: bind this library's calls to its own functions */
#include "fg_cpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if FG_HAVE_X86_64_ASM
#include <cpuid.h>
#endif

int fg_cpu_isa = FG_ISA_C;
unsigned fg_cpu_sel = FG_SEL(FG_ISA_C, FG_TUNE_GENERIC);
static int cpu_tune = FG_TUNE_GENERIC;

static const char *const isa_names[FG_ISA_LEVELS] = {"c", "x86_64", "bmi2", "adx", "ifma"};
static const char *const tune_names[FG_TUNES] = {"generic", "zen", "zen4"};

/* names[i] for 0 <= i < n, else "?"; and back, -1 for an unknown name */
static const char *table_name(const char *const *names, int n, int i)
{
    return i >= 0 && i < n ? names[i] : "?";
}

static int table_index(const char *const *names, int n, const char *name)
{
    int i;
    if (name == NULL)
        return -1;
    for (i = 0; i < n; i++)
        if (strcmp(name, names[i]) == 0)
            return i;
    return -1;
}

const char *fg_isa_name(fg_isa isa)
{
    return table_name(isa_names, FG_ISA_LEVELS, (int)isa);
}

int fg_isa_parse(const char *name)
{
    return table_index(isa_names, FG_ISA_LEVELS, name);
}

const char *fg_tune_name(fg_tune tune)
{
    return table_name(tune_names, FG_TUNES, (int)tune);
}

int fg_tune_parse(const char *name)
{
    return table_index(tune_names, FG_TUNES, name);
}

static void set_selector(void)
{
    fg_cpu_sel = FG_SEL(fg_cpu_isa, cpu_tune);
}

#if FG_HAVE_X86_64_ASM
/* Whether the OS saves and restores the AVX-512 state (XCR0: SSE, AVX, opmask,
 * ZMM0-15 upper halves, ZMM16-31), which CPUID's feature bits do not say. */
static int os_saves_zmm(void)
{
    unsigned eax, ebx, ecx, edx, xcr0_lo, xcr0_hi;
    __cpuid(1, eax, ebx, ecx, edx);
    if (!((ecx >> 27) & 1)) /* OSXSAVE: XGETBV is usable */
        return 0;
    __asm__ volatile("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
    (void)xcr0_hi;
    return (xcr0_lo & 0xe6) == 0xe6;
}
#endif

static fg_isa probe_cpu(void)
{
#if FG_HAVE_X86_64_ASM
    unsigned eax, ebx, ecx, edx;
    int bmi2, adx, avx512;
    if (__get_cpuid_max(0, NULL) < 7)
        return FG_ISA_X86_64;
    __cpuid_count(7, 0, eax, ebx, ecx, edx);
    bmi2 = (ebx >> 8) & 1;
    adx = (ebx >> 19) & 1;
    /* EBX: F (16), DQ (17), IFMA (21), BW (30), VL (31); ECX: VBMI (1) */
    avx512 = (ebx & 0xc0230000u) == 0xc0230000u && (ecx >> 1) & 1;
    if (bmi2 && adx && avx512 && os_saves_zmm())
        return FG_ISA_IFMA;
    if (bmi2 && adx)
        return FG_ISA_ADX;
    return bmi2 ? FG_ISA_BMI2 : FG_ISA_X86_64;
#else
    return FG_ISA_C;
#endif
}

/* AMD's Zen cores (and Hygon's, which are Zen): vendor string, then the
 * family (base 0Fh plus the extended family), 17h and later; zen4 for family
 * 19h with AVX-512 F (Zen 3 shares the family without it; Zen 5 is 1Ah). */
static fg_tune probe_tune(void)
{
#if FG_HAVE_X86_64_ASM
    unsigned eax, ebx, ecx, edx, family;
    if (__get_cpuid_max(0, NULL) < 1)
        return FG_TUNE_GENERIC;
    __cpuid(0, eax, ebx, ecx, edx);
    /* "AuthenticAMD": EBX "Auth", EDX "enti", ECX "cAMD"; "HygonGenuine": "Hygo" "nGen" "uine" */
    if (!((ebx == 0x68747541u && edx == 0x69746e65u && ecx == 0x444d4163u) ||
          (ebx == 0x6f677948u && edx == 0x6e65476eu && ecx == 0x656e6975u)))
        return FG_TUNE_GENERIC;
    __cpuid(1, eax, ebx, ecx, edx);
    family = (eax >> 8) & 0xf;
    if (family == 0xf)
        family += (eax >> 20) & 0xff;
    if (family == 0x19 && __get_cpuid_max(0, NULL) >= 7) {
        __cpuid_count(7, 0, eax, ebx, ecx, edx);
        if ((ebx >> 16) & 1)
            return FG_TUNE_ZEN4;
    }
    return family >= 0x17 ? FG_TUNE_ZEN : FG_TUNE_GENERIC;
#else
    return FG_TUNE_GENERIC;
#endif
}

static int best_level = -1, best_tune = -1;

fg_isa fg_isa_best(void)
{
    if (best_level < 0) {
        const char *env = getenv("FIELDGEN_ISA");
        int level = probe_cpu();
        if (env != NULL && *env != '\0') {
            int forced = fg_isa_parse(env);
            if (forced < 0)
                fprintf(stderr, "fieldgen: ignoring FIELDGEN_ISA=%s (expected c, x86_64, bmi2, adx or ifma)\n", env);
            else if (forced > FG_ISA_C && !FG_HAVE_X86_64_ASM)
                fprintf(stderr, "fieldgen: FIELDGEN_ISA=%s ignored: built without assembly\n", env);
            else
                level = forced; /* trusted, as OPENSSL_ia32cap is: it may name a level CPUID hides */
        }
#if defined(FG_STATIC_ISA)
        level = FG_STATIC_ISA;
#endif
        best_level = level;
    }
    return (fg_isa)best_level;
}

fg_isa fg_isa_active(void)
{
#if defined(FG_STATIC_ISA)
    return (fg_isa)FG_STATIC_ISA;
#else
    return (fg_isa)fg_cpu_isa;
#endif
}

int fg_isa_force(fg_isa isa)
{
    if ((int)isa < 0 || (int)isa > (int)fg_isa_best())
        return 0;
#if defined(FG_STATIC_ISA)
    if ((int)isa != FG_STATIC_ISA)
        return 0;
#endif
    fg_cpu_isa = (int)isa;
    set_selector();
    return 1;
}

fg_tune fg_tune_best(void)
{
    if (best_tune < 0) {
        const char *env = getenv("FIELDGEN_TUNE");
        int tune = probe_tune();
        if (env != NULL && *env != '\0') {
            int forced = fg_tune_parse(env);
            if (forced < 0)
                fprintf(stderr, "fieldgen: ignoring FIELDGEN_TUNE=%s (expected generic, zen or zen4)\n", env);
            else
                tune = forced;
        }
#if defined(FG_STATIC_TUNE)
        tune = FG_STATIC_TUNE;
#endif
        best_tune = tune;
    }
    return (fg_tune)best_tune;
}

fg_tune fg_tune_active(void)
{
#if defined(FG_STATIC_TUNE)
    return (fg_tune)FG_STATIC_TUNE;
#else
    return (fg_tune)cpu_tune;
#endif
}

int fg_tune_force(fg_tune tune)
{
    if ((unsigned)tune >= FG_TUNES)
        return 0;
#if defined(FG_STATIC_TUNE)
    if ((int)tune != FG_STATIC_TUNE)
        return 0;
#endif
    cpu_tune = (int)tune;
    set_selector();
    return 1;
}

#if defined(__GNUC__) || defined(__clang__)
__attribute__((constructor)) static void fg_cpu_init(void)
{
    fg_cpu_isa = (int)fg_isa_best();
    cpu_tune = (int)fg_tune_best();
    set_selector();
}
#endif
