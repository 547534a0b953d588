/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* fieldgen runtime, the AArch64 part (gen/fg/targets/aarch64), listed in
 * fg_cpu_parts.h, which fg_cpu.h includes in three stages (FG_CPU_STAGE):
 * 1. inside the fg_isa enumeration: nothing (its level is FG_ISA_AARCH64,
 *    value 1, a macro of stage 2);
 * 2. the aarch64 level, whether its assembly is built, and the level the
 *    compiler's target fixes. Its one assembly level needs MUL, UMULH and
 *    ADDS/ADCS, which every AArch64 CPU has: nothing to ask the CPU, no
 *    tuning, and the level is known at compile time (direct calls);
 * 3. with FG_CPU_PROBE (runtime/fg_cpu.c) on AArch64: the level names and
 *    the probes. docs/aarch64.md. */
#if FG_CPU_STAGE == 2 && !defined(FG_CPU_AARCH64_H)
#define FG_CPU_AARCH64_H
/* level 1 on AArch64: MUL/UMULH with ADDS/ADCS chains, every AArch64 CPU (the
 * kernels of fg_NAME_aarch64.S); there is no level above it */
#define FG_ISA_AARCH64 ((fg_isa)1)

/* Whether the AArch64 assembly kernels are built into this library: AAPCS64
 * objects, ELF (Linux, BSDs) or Mach-O (macOS, iOS). */
#if !defined(FG_NO_ASM) && defined(__aarch64__) && (defined(__ELF__) || defined(__APPLE__)) && \
    (defined(__GNUC__) || defined(__clang__))
#define FG_HAVE_AARCH64_ASM 1
#define FG_ARCH_ASM 1
#else
#define FG_HAVE_AARCH64_ASM 0
#endif

#if defined(__aarch64__) && !defined(FG_ARCH_PART)
#define FG_ARCH_PART 1
#define FG_CPU_AARCH64_PART 1
#define FG_ISA_ARCH_LEVELS 2
#endif

#if FG_HAVE_AARCH64_ASM && !defined(FG_STATIC_ISA) && !defined(FG_DYNAMIC_ISA)
#define FG_STATIC_ISA 1 /* every AArch64 CPU runs the aarch64 level: no probe, direct calls */
#endif

#elif FG_CPU_STAGE == 3 && defined(FG_CPU_AARCH64_PART) && !defined(FG_CPU_AARCH64_PROBE_)
#define FG_CPU_AARCH64_PROBE_ 1
static const char *const fg_arch_isa_names[FG_ISA_ARCH_LEVELS] = {"c", "aarch64"};
#define FG_ARCH_ISA_EXPECTED "c or aarch64"

static fg_isa fg_arch_probe_cpu(void)
{
#if FG_HAVE_AARCH64_ASM
    return FG_ISA_AARCH64;
#else
    return FG_ISA_C;
#endif
}

static fg_tune fg_arch_probe_tune(void)
{
    return FG_TUNE_GENERIC;
}
#endif
