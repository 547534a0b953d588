# SPDX-License-Identifier: MIT OR Apache-2.0
"""Instruction-set targets: each is one package here, registered in TARGETS.

A target is a module with
  NAME              its name: the suffix of the fg_NAME_<NAME>.S it writes;
  LEVELS, TUNES     its levels of the runtime selector above c, in the
                    architecture's fg_isa order, and its tunings, in fg_tune
                    order (runtime/fg_cpu_<NAME>.h); kernel_level(kernel)
                    the level whose instructions a kernel uses;
  CMAKE_PROCESSOR, CMAKE_OPTION, CMAKE_DOC
                    its row of fields.cmake's target table: the processors
                    it builds for (a regular expression on
                    CMAKE_SYSTEM_PROCESSOR), the cache option that turns it
                    on (default: on for those processors) and the option's
                    help text; CMake adds fg_NAME_<NAME>.S of each field it
                    has kernels for (FIELDGEN_TARGET_<NAME>_FIELDS);
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


def cmake_table(fields_of):
    """fields.cmake's target table: for every target its processors, option,
    help text, levels, tunings and the fields with its kernels (fields_of[NAME],
    in the config's order)."""
    q = lambda text: '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
    lines = [f"set(FIELDGEN_TARGETS {' '.join(t.NAME for t in TARGETS)})"]
    for t in TARGETS:
        v = f"FIELDGEN_TARGET_{t.NAME}"
        lines += [f"set({v}_PROCESSOR {q(t.CMAKE_PROCESSOR)})", f"set({v}_OPTION {t.CMAKE_OPTION})",
                  f"set({v}_DOC {q(t.CMAKE_DOC)})", f"set({v}_LEVELS {' '.join(t.LEVELS)})",
                  f"set({v}_TUNES {' '.join(t.TUNES)})",
                  f"set({v}_FIELDS {' '.join(fields_of.get(t.NAME, ()))})"]
    return "\n".join(lines) + "\n"


def costs_report(fa):
    """`gen/fieldgen --costs` for one field: every target's report."""
    return "\n".join(t.costs_report(fa) for t in TARGETS if hasattr(t, "costs_report"))
