/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* fieldgen runtime: CPUID probe, the FIELDGEN_ISA / FIELDGEN_TUNE overrides
 * (clamped to what the CPU and the OS allow, ignored in privileged processes),
 * ISA forcing. docs/dispatch.md. */
#define FG_LIBRARY_SOURCE 1 /* fg_cpu.h: bind this library's calls to its own functions */
#define FG_CPU_PROBE 1      /* fg_cpu.h: this architecture's part gives its names and probes */
#include "fg_cpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__linux__) && defined(__has_include)
#if __has_include(<sys/auxv.h>)
#include <sys/auxv.h>
#endif
#endif
#if defined(__APPLE__) || defined(__FreeBSD__) || defined(__OpenBSD__) || defined(__NetBSD__) || \
    defined(__DragonFly__)
#include <unistd.h>
#define FG_HAVE_ISSETUGID 1
#endif

/* Every access to the dispatch state is atomic (relaxed), as the dispatchers'
 * FG_DISPATCH_LOAD: threads may dispatch while the constructor below writes it. */
#if defined(__GNUC__) || defined(__clang__)
#define LOAD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define STORE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
/* x = v if x is still -1: 1 if this call stored it, else 0 and *seen = x */
#define CLAIM(x, v, seen) (*(seen) = -1, __atomic_compare_exchange_n(&(x), (seen), (v), 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
#else
#define LOAD(x) (x)
#define STORE(x, v) ((x) = (v))
#define CLAIM(x, v, seen) ((x) = (v), 1)
#endif

int fg_cpu_isa = FG_ISA_C;
unsigned fg_cpu_sel = FG_SEL(FG_ISA_C, FG_TUNE_GENERIC);
static int cpu_tune = FG_TUNE_GENERIC;

#if defined(FG_TEST_HOOKS)
/* tests/test_isa_trust.c compiles its own copy of this file with FG_TEST_HOOKS:
 * a CPU level and a privileged flag to pretend (-1: the real ones). Never in
 * the library. */
int fg_test_cpu_level = -1;
int fg_test_secure = -1;
#endif

/* Whether this build has some architecture's assembly (fg_cpu.h: FG_ARCH_ASM). */
#ifdef FG_ARCH_ASM
#define ARCH_ASM 1
#else
#define ARCH_ASM 0
#endif

/* The architecture's part (fg_cpu.h, FG_CPU_PROBE) gave its level names
 * (fg_arch_isa_names, FG_ARCH_ISA_EXPECTED) and its probes
 * (fg_arch_probe_cpu, fg_arch_probe_tune). */
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
    return table_name(fg_arch_isa_names, FG_ISA_ARCH_LEVELS, (int)isa);
}

int fg_isa_parse(const char *name)
{
    return table_index(fg_arch_isa_names, FG_ISA_ARCH_LEVELS, name);
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
    STORE(fg_cpu_sel, FG_SEL(LOAD(fg_cpu_isa), LOAD(cpu_tune)));
}

/* Whether this process runs with privileges its invoker lacks (setuid, setgid,
 * file capabilities): then no environment variable of ours is read, so an
 * unprivileged user cannot steer a privileged program's code paths. */
static int privileged(void)
{
#if defined(FG_TEST_HOOKS)
    if (fg_test_secure >= 0)
        return fg_test_secure;
#endif
#if defined(AT_SECURE)
    return getauxval(AT_SECURE) != 0;
#elif defined(FG_HAVE_ISSETUGID)
    return issetugid() != 0;
#else
    return 0;
#endif
}

static const char *override(const char *name)
{
    return privileged() ? NULL : getenv(name);
}

static fg_isa probe_cpu(void)
{
#if defined(FG_TEST_HOOKS)
    if (fg_test_cpu_level >= 0)
        return (fg_isa)fg_test_cpu_level;
#endif
    return fg_arch_probe_cpu();
}

static int best_level = -1, best_tune = -1;

/* The level to run and, in msg, the one line to print about it (or ""). A
 * forced level above what CPUID and XCR0 report would die of SIGILL at the
 * first call: it is clamped to the CPU's, unless FIELDGEN_ISA_UNCHECKED=1 says
 * that the CPUID seen here lies (valgrind runs ADX and AVX-512 code but hides
 * the bits). */
static int resolve_level(char *msg, size_t size)
{
    const char *env = override("FIELDGEN_ISA");
    int cpu = (int)probe_cpu(), level = cpu;
    if (env != NULL && *env != '\0') {
        const char *unchecked = override("FIELDGEN_ISA_UNCHECKED");
        int forced = fg_isa_parse(env);
        if (forced < 0)
            snprintf(msg, size, "fieldgen: ignoring FIELDGEN_ISA=%.32s (expected " FG_ARCH_ISA_EXPECTED ")\n", env);
        else if (forced > FG_ISA_C && !ARCH_ASM)
            snprintf(msg, size, "fieldgen: FIELDGEN_ISA=%s ignored: built without assembly\n", env);
        else if (forced <= cpu || (unchecked != NULL && strcmp(unchecked, "1") == 0))
            level = forced;
        else
            snprintf(msg, size,
                     "fieldgen: FIELDGEN_ISA=%s needs instructions this CPU does not report (CPUID and XCR0 "
                     "allow %s): running %s (FIELDGEN_ISA_UNCHECKED=1 trusts the override)\n",
                     env, fg_isa_name((fg_isa)cpu), fg_isa_name((fg_isa)cpu));
    }
#if defined(FG_STATIC_ISA)
    level = FG_STATIC_ISA;
#endif
    return level;
}

fg_isa fg_isa_best(void)
{
    int level = LOAD(best_level), seen;
    if (level < 0) {
        char msg[256] = "";
        level = resolve_level(msg, sizeof msg);
        if (CLAIM(best_level, level, &seen)) {
            if (msg[0] != '\0')
                fputs(msg, stderr); /* once per process: only the call that set best_level */
        } else {
            level = seen;
        }
    }
    return (fg_isa)level;
}

fg_isa fg_isa_active(void)
{
#if defined(FG_STATIC_ISA)
    return (fg_isa)FG_STATIC_ISA;
#else
    return (fg_isa)LOAD(fg_cpu_isa);
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
    STORE(fg_cpu_isa, (int)isa);
    set_selector();
    return 1;
}

/* Every tuning runs only the instructions of the level it is paired with (it
 * picks among a level's kernels), so a forced tuning needs no clamp. */
static int resolve_tune(char *msg, size_t size)
{
    const char *env = override("FIELDGEN_TUNE");
    int tune = (int)fg_arch_probe_tune();
    if (env != NULL && *env != '\0') {
        int forced = fg_tune_parse(env);
        if (forced < 0)
            snprintf(msg, size, "fieldgen: ignoring FIELDGEN_TUNE=%.32s (expected generic, zen or zen4)\n", env);
        else
            tune = forced;
    }
#if defined(FG_STATIC_TUNE)
    tune = FG_STATIC_TUNE;
#endif
    return tune;
}

fg_tune fg_tune_best(void)
{
    int tune = LOAD(best_tune), seen;
    if (tune < 0) {
        char msg[256] = "";
        tune = resolve_tune(msg, sizeof msg);
        if (CLAIM(best_tune, tune, &seen)) {
            if (msg[0] != '\0')
                fputs(msg, stderr);
        } else {
            tune = seen;
        }
    }
    return (fg_tune)tune;
}

fg_tune fg_tune_active(void)
{
#if defined(FG_STATIC_TUNE)
    return (fg_tune)FG_STATIC_TUNE;
#else
    return (fg_tune)LOAD(cpu_tune);
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
    STORE(cpu_tune, (int)tune);
    set_selector();
    return 1;
}

#if defined(__GNUC__) || defined(__clang__)
__attribute__((constructor)) static void fg_cpu_init(void)
{
    STORE(fg_cpu_isa, (int)fg_isa_best());
    STORE(cpu_tune, (int)fg_tune_best());
    set_selector();
}
#endif
