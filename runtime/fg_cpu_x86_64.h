/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* fieldgen runtime, the x86-64 part (gen/fg/targets/x86_64), listed last in
 * fg_cpu_parts.h, which fg_cpu.h includes in three stages (FG_CPU_STAGE):
 * 1. inside the fg_isa enumeration, its levels x86_64, bmi2, adx and ifma;
 * 2. the Zen form's kernel id, whether the x86-64 assembly is built, and the
 *    level and tuning -march fixes;
 * 3. with FG_CPU_PROBE (runtime/fg_cpu.c), on x86-64 and on any architecture
 *    no earlier part claimed (FG_ARCH_PART): the level names and the probes,
 *    CPUID and XCR0 for the level, the vendor and family for the tuning
 *    (elsewhere the names serve and the probes report the c level and the
 *    generic tuning). docs/dispatch.md. */
#if FG_CPU_STAGE == 1
    FG_ISA_X86_64 = 1, /* MUL/ADC/ADD: every x86-64 CPU */
    FG_ISA_BMI2 = 2,   /* MULX with ordinary ADC chains */
    FG_ISA_ADX = 3,    /* MULX with ADCX/ADOX, two carry chains */
    FG_ISA_IFMA = 4,   /* adx plus AVX-512 F/VL/BW/DQ/IFMA/VBMI with the OS saving
                        * zmm state: the radix-2^52 Fp2 mul kernels where generated
                        * (every other op runs its adx kernel) */

#elif FG_CPU_STAGE == 2 && !defined(FG_CPU_X86_64_H)
#define FG_CPU_X86_64_H
/* The generated headers' FG_NAME_OP_AT_LEVEL_USES macros name a kernel: a level's
 * own (an fg_isa value), or the Zen form of the adx kernel, fg_NAME_OP_adx_zen
 * (the same products, every row on the two ADCX/ADOX chains; adx's instructions). */
#define FG_KERNEL_ADX_ZEN 5
#define FG_KERNELS 6 /* number of kernel ids: the fg_isa values and FG_KERNEL_ADX_ZEN */

/* Whether the x86-64 assembly kernels are built into this library: SysV
 * x86-64 objects, ELF (Linux, BSDs) or Mach-O (macOS). */
#if !defined(FG_NO_ASM) && defined(__x86_64__) && (defined(__ELF__) || defined(__APPLE__)) && \
    (defined(__GNUC__) || defined(__clang__))
#define FG_HAVE_X86_64_ASM 1
#define FG_ARCH_ASM 1
#else
#define FG_HAVE_X86_64_ASM 0
#endif

#ifndef FG_ARCH_PART
#define FG_ARCH_PART 1
#define FG_CPU_X86_64_PART 1 /* this architecture's part: x86-64, or the default */
#define FG_ISA_ARCH_LEVELS FG_ISA_LEVELS
#endif

/* The level the compiler's target fixes: ifma or adx under -march with
 * those extensions; with no assembly at all (no part built its own), c. */
#if !defined(FG_STATIC_ISA) && !defined(FG_DYNAMIC_ISA)
#if FG_HAVE_X86_64_ASM && defined(__BMI2__) && defined(__ADX__) && defined(__AVX512F__) && \
    defined(__AVX512VL__) && defined(__AVX512BW__) && defined(__AVX512DQ__) && defined(__AVX512IFMA__) && \
    defined(__AVX512VBMI__)
#define FG_STATIC_ISA 4
#elif FG_HAVE_X86_64_ASM && defined(__BMI2__) && defined(__ADX__)
#define FG_STATIC_ISA 3
#elif !defined(FG_ARCH_ASM)
#define FG_STATIC_ISA 0
#endif
#endif
/* ... and the tuning: zen4 when the compiler targets a Zen 4 core, zen for
 * another Zen core, else generic (every architecture: 0 without those). */
#if defined(FG_STATIC_ISA) && !defined(FG_STATIC_TUNE)
/* FG_ZEN_TARGET_: a Zen core by name, or (a -march=native the compiler cannot name,
 * as Clang 14 on a Zen 5) by CLZERO, an instruction only AMD's Zen cores have */
#if defined(__znver1__) || defined(__znver2__) || defined(__znver3__) || defined(__znver4__) || \
    defined(__znver5__) || defined(__CLZERO__)
#define FG_ZEN_TARGET_ 1
#endif
#if defined(__znver4__) || (defined(FG_ZEN_TARGET_) && !defined(__znver5__) && defined(__AVX512F__) && \
                            !defined(__MOVDIRI__))
/* znver3 with AVX-512 is a Zen 4 or a Zen 5 under a compiler that predates
 * them: GCC 12 and Clang 14 (Debian 12's) name both so for -march=native (Zen 3
 * has no AVX-512); of the two only Zen 5 has MOVDIRI (and MOVDIR64B,
 * AVX512_VP2INTERSECT, AVX-VNNI), so znver3 + AVX-512 + MOVDIRI is a Zen 5:
 * zen, below */
#define FG_STATIC_TUNE 2
#elif defined(FG_ZEN_TARGET_)
#define FG_STATIC_TUNE 1
#else
#define FG_STATIC_TUNE 0
#endif
#endif

#elif FG_CPU_STAGE == 3 && defined(FG_CPU_X86_64_PART) && !defined(FG_CPU_X86_64_PROBE_)
#define FG_CPU_X86_64_PROBE_ 1
#if FG_HAVE_X86_64_ASM
#include <cpuid.h>
#include <stddef.h> /* NULL */
#endif

static const char *const fg_arch_isa_names[FG_ISA_ARCH_LEVELS] = {"c", "x86_64", "bmi2", "adx", "ifma"};
#define FG_ARCH_ISA_EXPECTED "c, x86_64, bmi2, adx or ifma"

#if FG_HAVE_X86_64_ASM
/* Whether the OS saves and restores the AVX-512 state (XCR0: SSE, AVX, opmask,
 * ZMM0-15 upper halves, ZMM16-31), which CPUID's feature bits do not say. */
static int fg_arch_os_saves_zmm(void)
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

/* The highest level this CPU and OS run. */
static fg_isa fg_arch_probe_cpu(void)
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
    if (bmi2 && adx && avx512 && fg_arch_os_saves_zmm())
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
static fg_tune fg_arch_probe_tune(void)
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
#endif
