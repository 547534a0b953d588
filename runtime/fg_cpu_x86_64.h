/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* fieldgen runtime, the x86-64 part (included by fg_cpu.c only): the level
 * names and the probes of the x86-64 target (gen/fg/targets/x86_64): CPUID
 * and XCR0 for the level, the vendor and family for the tuning. On another
 * architecture without a part of its own the names serve and the probes
 * report the c level and the generic tuning. docs/dispatch.md. */
#ifndef FG_CPU_X86_64_H
#define FG_CPU_X86_64_H

#if FG_HAVE_X86_64_ASM
#include <cpuid.h>
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

#endif /* FG_CPU_X86_64_H */
