/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* fieldgen runtime: CPU feature probe and the ISA-level word every generated
 * field dispatches on. Hand-written; part of every vendored field.
 *
 * The CPU is probed once, at start-up (a constructor), with CPUID: its ISA
 * level, and its tuning (which of a level's kernels measured fastest on that
 * core family: "generic", measured on Intel cores, "zen", AMD's, or "zen4",
 * AMD's with half-width AVX-512). The
 * environment variables FIELDGEN_ISA=c|x86_64|bmi2|adx|ifma and
 * FIELDGEN_TUNE=generic|zen|zen4, read at that moment, override the probe (to cap
 * the level, to run a level under an emulator whose CPUID hides it, or to
 * compare tunings). Each generated operation then reaches its kernel through
 * one well-predicted branch on the selector word fg_cpu_sel (one bit set:
 * level + FG_ISA_LEVELS * tuning), tested against a constant mask of the
 * selectors that run that kernel: never a function pointer.
 *
 * Compile-time dispatch: when the compiler already targets BMI2 and ADX (and,
 * for the ifma level, AVX-512 F/VL/BW/DQ/IFMA/VBMI: -march=native on such a
 * CPU) or FG_STATIC_ISA is defined (0..4, the CMake option
 * FIELDGEN_ISA_LEVEL), the level is a constant and the branch folds
 * to a direct call; the tuning is then FG_STATIC_TUNE (0 generic, 1 zen,
 * 2 zen4; the CMake option FIELDGEN_TUNE), by default zen4 when the compiler
 * targets a Zen 4 core (-march=znver4, or znver3 with AVX-512 and without
 * Zen 5's MOVDIRI, which is what -march=native on one gives with compilers
 * that predate znver4), zen for another Zen core (-march=znver1..5, or
 * -march=native on one, named or known by CLZERO), else generic.
 * Define FG_NO_ASM to build the portable C level alone.
 */
#ifndef FG_CPU_H
#define FG_CPU_H

#ifdef __cplusplus
extern "C" {
#endif

/* The ISA level: 0 is the portable C everywhere; the levels above it are
 * per architecture, each named by the runtime part of the target that
 * generates its kernels (included below): on x86-64 FG_ISA_X86_64 (1) ..
 * FG_ISA_IFMA (4), on AArch64 FG_ISA_AARCH64 (1). Every name is defined on
 * every architecture; FG_ISA_ARCH_LEVELS says how many levels this one has. */
typedef enum {
    FG_ISA_C = 0, /* portable C, unsigned __int128; any 64-bit target */
#define FG_CPU_STAGE 1
#include "fg_cpu_parts.h"
#undef FG_CPU_STAGE
    FG_ISA_TOP_ = 4 /* the highest level value any architecture names */
} fg_isa;
#define FG_ISA_LEVELS 5 /* number of fg_isa values: the selector's bits per tuning */

/* Which kernel of a level a field's op runs can depend on the core family:
 * the generator's choice per level and tuning (gen/fg/targets/x86_64/mont.py,
 * kernel_choice). A tuning never changes a result, only which of the
 * level's permitted kernels computes it. */
typedef enum {
    FG_TUNE_GENERIC = 0, /* the choices measured on Intel cores (any CPU but the next two) */
    FG_TUNE_ZEN = 1,     /* AMD Zen (CPUID vendor AuthenticAMD or HygonGenuine, family 17h+) */
    FG_TUNE_ZEN4 = 2     /* of those, family 19h with AVX-512 (Zen 4: 512-bit operations in two
                          * 256-bit halves): zen's choices, but at the ifma level the hybrid
                          * Fp2 kernels (gen/fg/targets/x86_64/hybrid.py) */
} fg_tune;
#define FG_TUNES 3 /* number of fg_tune values */
/* The selector bit of a (level, tuning) pair: the generated dispatchers test
 * fg_cpu_sel against an OR of these. */
#define FG_SEL(level, tune) (1u << ((unsigned)(level) + FG_ISA_LEVELS * (unsigned)(tune)))
/* Every selector of a level, whatever the tuning (the aarch64 dispatchers'). */
#define FG_SEL_LEVEL(level) (FG_SEL(level, 0) | FG_SEL(level, 1) | FG_SEL(level, 2))

/* FG_DYNAMIC_ISA (the CMake option FIELDGEN_ISA_LEVEL=runtime) keeps the
 * runtime selector where the compiler's target would fix the level (AArch64,
 * or -march with BMI2 and ADX): every dispatcher keeps its one branch, and
 * fg_isa_force and FIELDGEN_ISA may pick any level the CPU has (the test
 * suites run the c level and the assembly level of one build so).
 *
 * The architectures' parts (one per target of the generator, gen/fg/targets/):
 * each names its levels and kernel ids, says whether its assembly is built
 * (FG_HAVE_<ARCH>_ASM; FG_ARCH_ASM where it is this build's) and which level
 * and tuning the compiler's target fixes (FG_STATIC_ISA, FG_STATIC_TUNE);
 * compiled with FG_CPU_PROBE (runtime/fg_cpu.c), the part of this
 * architecture also gives the level names and the CPU probes (stage 3, at
 * the end). fg_cpu_parts.h lists them. */
#define FG_CPU_STAGE 2
#include "fg_cpu_parts.h"
#undef FG_CPU_STAGE
#if defined(FG_STATIC_ISA) && FG_STATIC_ISA != 0 && !(defined(FG_ARCH_ASM) && FG_STATIC_ISA < FG_ISA_ARCH_LEVELS)
#error "FG_STATIC_ISA above 0 needs the assembly (FG_NO_ASM is set, or the target is neither x86-64 nor AArch64 ELF/Mach-O, or the level is not one of this architecture)"
#endif

/* Symbol binding on ELF (GCC, Clang). fieldgen's own sources, fg_cpu.c and
 * the generated fg_NAME.c, define FG_LIBRARY_SOURCE before their first
 * include; there the functions this header and the generated headers declare
 * between FG_BIND_BEGIN and FG_BIND_END get the visibility FG_VISIBILITY, as
 * the kernels of the generated .S do: "protected" unless the build defines it.
 * Protected functions are exported but bound within the shared library that
 * links them, so the calls between them (the dispatchers' tail jumps to the
 * kernels; inv's, sqrt's and Fp2's multiplications) are direct jumps and
 * calls, never a PLT stub's indirect jump through the GOT. Users' code sees
 * plain declarations. Data (fg_NAME_P) stays default: a protected variable
 * cannot be copy-relocated into an executable. Build with
 * -DFG_VISIBILITY=hidden to keep every fieldgen function inside the shared
 * library that vendors it (the pragma overrides -fvisibility=hidden).
 * Mach-O binds the references within an image directly already. */
#if defined(FG_LIBRARY_SOURCE) && defined(__ELF__) && (defined(__GNUC__) || defined(__clang__))
#ifndef FG_VISIBILITY
#define FG_VISIBILITY protected
#endif
#define FG_PRAGMA_STR_(x) #x
#define FG_PRAGMA_(x) _Pragma(FG_PRAGMA_STR_(x))
#define FG_BIND_BEGIN FG_PRAGMA_(GCC visibility push(FG_VISIBILITY))
#define FG_BIND_END _Pragma("GCC visibility pop")
#else
#define FG_BIND_BEGIN
#define FG_BIND_END
#endif

FG_BIND_BEGIN
/* Best level this CPU supports (or the FIELDGEN_ISA override). */
fg_isa fg_isa_best(void);
/* Level the dispatcher uses now. */
fg_isa fg_isa_active(void);
/* Tests and benchmarks only: make the dispatcher use `isa`. Returns 1 on
 * success, 0 (and changes nothing) if the level is above fg_isa_best() or,
 * with compile-time dispatch, is not the compiled level. Not thread-safe
 * with respect to concurrent field operations. */
int fg_isa_force(fg_isa isa);
/* "c", "x86_64", "bmi2", "adx", "ifma" (on AArch64: "c", "aarch64") (or "?"),
 * and back; -1 for an unknown name. */
const char *fg_isa_name(fg_isa isa);
int fg_isa_parse(const char *name);

/* The tuning of this CPU (or the FIELDGEN_TUNE override), the one in use, and
 * for tests and benchmarks a way to change it (returns 0 and changes nothing
 * under compile-time dispatch with another FG_STATIC_TUNE). Not thread-safe
 * with respect to concurrent field operations. */
fg_tune fg_tune_best(void);
fg_tune fg_tune_active(void);
int fg_tune_force(fg_tune tune);
/* "generic", "zen" (or "?"), and back; -1 for an unknown name. */
const char *fg_tune_name(fg_tune tune);
int fg_tune_parse(const char *name);
FG_BIND_END

/* The dispatch word. Starts at FG_ISA_C, so a call made before the start-up
 * probe (from another constructor) is still correct, just portable. Hidden
 * on ELF: only the generated dispatchers of the same library read it, with
 * one direct RIP-relative load (no GOT indirection under -fPIC). */
#if (defined(__ELF__) || defined(__APPLE__)) && (defined(__GNUC__) || defined(__clang__))
__attribute__((visibility("hidden")))
#endif
extern int fg_cpu_isa;
/* The selector word: FG_SEL(active level, active tuning). Starts at
 * FG_SEL(FG_ISA_C, FG_TUNE_GENERIC), portable, like fg_cpu_isa; hidden
 * likewise. */
#if (defined(__ELF__) || defined(__APPLE__)) && (defined(__GNUC__) || defined(__clang__))
__attribute__((visibility("hidden")))
#endif
extern unsigned fg_cpu_sel;

/* FG_DISPATCH_LOAD(word): the dispatchers' read of fg_cpu_isa or fg_cpu_sel. The
 * runtime writes them once at start-up, from a constructor, while threads that
 * an earlier constructor started may already be dispatching: every access is
 * atomic (relaxed: a reader sees the start-up value or the probed one, both
 * correct levels), so there is no data race by construction and ThreadSanitizer
 * has nothing to report. A relaxed load of an aligned word is the plain load on
 * every target (x86-64: one mov, the same machine code as before; research/
 * dispatch/atomic-selector.md). */
#if defined(__GNUC__) || defined(__clang__)
#define FG_DISPATCH_LOAD(word) __atomic_load_n(&(word), __ATOMIC_RELAXED)
#else
#define FG_DISPATCH_LOAD(word) (word)
#endif

/* FG_DISPATCH_SEL(): the selector word, which a dispatcher reads once into a
 * local (two atomic loads are two loads: the compiler merges no atomics);
 * FG_DISPATCH_IN(sel, mask): whether it is one of the selectors in `mask`.
 * FG_DISPATCH_TO(mask) reads and tests in one. Constants under compile-time
 * dispatch, so each test folds away. */
#if defined(FG_STATIC_ISA)
#define FG_ISA_AT_LEAST(level) (FG_STATIC_ISA >= (level))
#define FG_DISPATCH_SEL() FG_SEL(FG_STATIC_ISA, FG_STATIC_TUNE)
#else
#define FG_ISA_AT_LEAST(level) (FG_DISPATCH_LOAD(fg_cpu_isa) >= (level))
#define FG_DISPATCH_SEL() FG_DISPATCH_LOAD(fg_cpu_sel)
#endif
#define FG_DISPATCH_IN(sel, mask) (((sel) & (mask)) != 0)
#define FG_DISPATCH_TO(mask) FG_DISPATCH_IN(FG_DISPATCH_SEL(), mask)

/* The dispatchers test the kernel of the highest level first and mark it likely, so on a CPU that
 * has it the compiler lays the call to its kernel on the fall-through path: one
 * not-taken branch and the tail jump. Without the hint GCC made the first test a
 * taken branch to a separate jump, two taken branches per call, which measured
 * 1.6 cycles slower per p256 mul in a latency chain than calling the kernel directly. */
#if defined(__GNUC__) || defined(__clang__)
#define FG_ISA_LIKELY(cond) __builtin_expect(!!(cond), 1)
#else
#define FG_ISA_LIKELY(cond) (cond)
#endif

#ifdef __cplusplus
}
#endif

#ifdef FG_CPU_PROBE /* runtime/fg_cpu.c: this architecture's names and probes */
#define FG_CPU_STAGE 3
#include "fg_cpu_parts.h"
#undef FG_CPU_STAGE
#endif
#endif /* FG_CPU_H */
