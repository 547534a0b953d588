/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* fieldgen runtime, the AArch64 part (included by fg_cpu.c only): the level
 * names and the probes of the AArch64 target (gen/fg/targets/aarch64). Its
 * one assembly level needs MUL, UMULH and ADDS/ADCS, which every AArch64 CPU
 * has: nothing to ask the CPU, and no tuning. docs/aarch64.md. */
#ifndef FG_CPU_AARCH64_H
#define FG_CPU_AARCH64_H

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

#endif /* FG_CPU_AARCH64_H */
