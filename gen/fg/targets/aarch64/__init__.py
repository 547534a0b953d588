# SPDX-License-Identifier: MIT OR Apache-2.0
"""The AArch64 target: one .S per field, fg_NAME_aarch64.S, holding the
aarch64 level's kernels (kernels.py) for ELF (Linux, BSDs; BTI landing pads
and the GNU property note) and Mach-O (leading underscore), chosen by the
preprocessor, as the x86-64 .S files are.

The target interface (gen/fg/targets/__init__.py): plan(fa) returns the
field's kernel set (Kernels: every op the C level has a kernel for, and the
one-function Fp2 mul and sqr of fp2.py where the field's Fp2 is lazy; empty
for a form it does not handle); emit(fa, kernel set, comment) -> {relative
path: text}.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from . import fp2, kernels

FORMS = ("montgomery", "pseudo_mersenne")
LEVEL = "aarch64"
NAME = LEVEL
# the CMake build: its processors, cache option and help text (fields.cmake's target table)
CMAKE_PROCESSOR = "^(aarch64|arm64|ARM64)$"
CMAKE_OPTION = "FIELDGEN_AARCH64_ASM"
CMAKE_DOC = "Build the AArch64 assembly kernels, the aarch64 level (docs/aarch64.md)"
# its parts of the C header and dispatchers (macros have, declarations, dispatch)
TEMPLATE = "target.j2"
# the name endings of its kernels (fg_NAME_OP_<suffix>)
KERNEL_SUFFIXES = ("_" + LEVEL,)
# the selector's levels above c and the tunings (runtime/fg_cpu_aarch64.h):
# one level, fixed at compile time on AArch64, and no tuning
LEVELS = (LEVEL,)
TUNES = ("generic",)


def kernel_level(kernel):
    return kernel


@dataclass(frozen=True)
class Kernels:
    """The AArch64 kernel set of one field. ops: the ops with a kernel
    (fg_NAME_OP_aarch64); fp2_ops: the Fp2 ops with one (fp2_mul, fp2_sqr:
    fg_NAME_fp2_OP_aarch64, fp2.py); runs: op -> {(level, tune): kernel},
    the input of the dispatch plan (gen/fg/dispatch.py). False when there is
    none."""
    ops: tuple = ()
    fp2_ops: tuple = ()
    runs: dict = field(default_factory=dict)

    def __bool__(self):
        return bool(self.ops)


def ops(fa):
    """The ops with an aarch64 kernel: the field's kernel ops (KERNEL_OPS and,
    for lazy fields, LAZY_OPS)."""
    return tuple(fa.kernel_ops) if fa.form in FORMS else ()


def plan(fa):
    have = ops(fa)
    have_fp2 = fp2.ops(fa) if have else ()
    return Kernels(ops=have, fp2_ops=have_fp2,
                   runs={op: {(LEVEL, "generic"): LEVEL} for op in have + have_fp2})


def symbol(fa, op):
    return f"fg_{fa.name}_{op}_{LEVEL}"


def build_all(fa):
    """[(op, Kernel)] in the order of ops(fa)."""
    return [(op, kernels.build(fa, op, symbol(fa, op))) for op in ops(fa)]


def build_fp2(fa):
    """[(op, Kernel)] of the Fp2 kernels (fp2.ops(fa): fp2_mul, fp2_sqr)."""
    if not ops(fa):
        return []
    return [(op, fp2.build(fa, op, symbol(fa, op))) for op in fp2.ops(fa)]


def _function(fa, kn, table_macro):
    name = kn.name
    body = [line.replace("@P@", table_macro) for line in kn.text()]
    return "\n".join([
        "#ifdef __APPLE__",
        f".globl _{name}",
        ".p2align 4",
        f"_{name}:",
        "#else",
        f".globl {name}",
        f".type {name}, %function",
        f".FG_VISIBILITY {name}",
        ".p2align 4",
        f"{name}:",
        "#endif",
        "\t.cfi_startproc",
        "\thint\t#34\t// bti c: an indirect call may land here",
        *body,
        "\t.cfi_endproc",
        "#ifndef __APPLE__",
        f".size {name}, .-{name}",
        "#endif",
    ]) + "\n"


def emit(fa, ks, comment):
    """{relative path: text}: the kernels of the kernel set ks (plan's) in
    one .S; comment(what) is the generated-file header as a C comment."""
    if not ks:
        return {}
    header = comment("AArch64 kernels (aarch64 level), gen/fg/targets/aarch64")
    built = build_all(fa) + build_fp2(fa)
    macro = f"FG_{fa.upper}_AARCH64_P"
    label = f"fg_{fa.name}_aarch64_p"
    parts = [
        header,
        "#if defined(__aarch64__) && (defined(__ELF__) || defined(__APPLE__)) && !defined(FG_NO_ASM)\n",
        "#ifdef __APPLE__",
        f"#define {macro} L{label}",
        ".section __TEXT,__text,regular,pure_instructions",
        "#else",
        f"#define {macro} .L{label}",
        ".text",
        "#ifndef FG_VISIBILITY",
        "#define FG_VISIBILITY protected",
        "#endif",
        "#endif\n",
    ]
    text = "\n".join(parts) + "\n"
    for op, kn in built:
        text += "\n" + _function(fa, kn, macro)
    # the modulus, read by the reductions at constant offsets (public data)
    text += "\n.p2align 3\n" + f"{macro}:\n"
    text += "".join("\t.quad 0x%016x\n" % limb for limb in fa.p_limbs)
    extra = fp2.table_words(fa)
    if extra:
        # the Fp2 correction constant X = p * 2^s from limb s // 64 (fp2.py)
        text += "".join("\t.quad 0x%016x\n" % w for w in extra)
    text += (
        "\n#if defined(__ELF__)\n"
        "/* GNU_PROPERTY_AARCH64_FEATURE_1_AND: BTI (every function starts with a\n"
        " * landing pad) and PAC (no function stores the link register), which the\n"
        " * linker ANDs over every object of the program. */\n"
        ".section .note.gnu.property,\"a\"\n"
        ".p2align 3\n"
        ".long 4, 16, 5          /* name size, descriptor size, NT_GNU_PROPERTY_TYPE_0 */\n"
        ".asciz \"GNU\"\n"
        ".long 0xc0000000, 4, 3  /* GNU_PROPERTY_AARCH64_FEATURE_1_AND, 4 bytes, BTI|PAC */\n"
        ".p2align 3\n"
        "#endif\n"
        "#endif\n\n"
        "/* Assembled for x86-64 (a vendored build that compiles every .S) the file\n"
        " * has no code: with -fcf-protection it says so, or the linker would turn\n"
        " * IBT/SHSTK off for the whole program (the x86-64 .S files' note). */\n"
        "#if defined(__x86_64__) && defined(__CET__) && defined(__ELF__)\n"
        ".section .note.gnu.property,\"a\"\n"
        ".p2align 3\n"
        ".long 4, 16, 5\n"
        ".asciz \"GNU\"\n"
        ".long 0xc0000002, 4, (__CET__ & 3)\n"
        ".p2align 3\n"
        "#endif\n\n"
        "#ifdef __ELF__\n"
        ".section .note.GNU-stack,\"\",%progbits\n"
        "#endif\n")
    return {f"{fa.name}/fg_{fa.name}_{LEVEL}.S": text}


def instruction_counts(fa):
    """{op: (instructions, multiplications, frame bytes)} of each kernel, for the docs."""
    out = {}
    for op, kn in build_all(fa) + build_fp2(fa):
        lines = [l for l in kn.text() if l.startswith("\t") and not l.startswith("\t.") and not l.startswith("\t//")]
        mults = sum(1 for l in lines if l.split()[0] in ("mul", "umulh"))
        out[op] = (len(lines) + 1, mults, kn.stack_bytes)
    return out
