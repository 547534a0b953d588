# SPDX-License-Identifier: MIT OR Apache-2.0
"""Instruction-set targets: each is one package here, registered in TARGETS.

A target is a module with
  NAME              its name: the suffix of the fg_NAME_<NAME>.S it writes;
  LEVELS, TUNES     its levels of the runtime selector above c, in the
                    architecture's fg_isa order, and its tunings, in fg_tune
                    order (runtime/fg_cpu_<NAME>.h); kernel_level(kernel)
                    the level whose instructions a kernel uses;
  CMAKE_FIELDS      the fields.cmake variable listing the fields it has
                    kernels for, or None;
  KERNEL_SUFFIXES   the name endings of its kernels (fg_NAME_OP_<suffix>),
                    which the checked build never wraps;
  plan(fa)          builds the field's kernel set from the frozen field model
                    (gen/fg/analysis.py) and returns it: an object, false
                    when the target has no kernels for the field, whose
                    `runs` (op -> {(level, tune): kernel}) is the input of the
                    dispatch plan (gen/fg/dispatch.py) and whose other
                    attributes are what its template and emit read;
  emit(fa, ks, comment)
                    renders the kernel set ks: {relative path: text};
                    comment(what) gives the generated-file header;
  TEMPLATE          (optional) a Jinja2 file in its package with its parts of
                    the C files: the macros have(f, U, k) (its FG_NAME_HAVE_*
                    line), declarations(f, U, k) (its kernels' prototypes),
                    dispatch(f, U, op, k) (its branch of op's dispatcher),
                    fp2_declarations(f, U, k) and fp2_dispatch(f, U, op, k)
                    (the same for the Fp2 mul and sqr), which the shared
                    templates call for each target that has one, with k its
                    kernel set and `plan` the dispatch plan in their context;
  costs_report(fa)  (optional) its lines of `gen/fieldgen --costs`.
gen/fg/cli.py runs every target's plan after the analysis, builds the one
dispatch plan from their kernel sets, renders the C templates, then every
target's emit, in TARGETS' order; it names no target. docs/design.md says
how to add one.
"""

from __future__ import annotations

from . import aarch64, x86_64

TARGETS = (x86_64, aarch64)


def listed(planned):
    """Whether a field whose kernels the targets `planned` built goes in
    fields.cmake's assembly list (FIELDGEN_ASM_FIELDS: the fields with the
    x86-64 target's kernels, which the CMake build links and checks)."""
    return any(t.CMAKE_FIELDS == "FIELDGEN_ASM_FIELDS" for t in planned)


def costs_report(fa):
    """`gen/fieldgen --costs` for one field: every target's report."""
    return "\n".join(t.costs_report(fa) for t in TARGETS if hasattr(t, "costs_report"))
