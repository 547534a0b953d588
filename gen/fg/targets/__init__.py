# SPDX-License-Identifier: MIT OR Apache-2.0
"""Instruction-set targets: each is one package here, registered in TARGETS.

A target is a module with
  NAME              its name: the level of its kernels and the suffix of the
                    fg_NAME_<NAME>.S it writes;
  CMAKE_FIELDS      the fields.cmake variable listing the fields it has
                    kernels for, or None;
  KERNEL_SUFFIXES   the name endings of its kernels (fg_NAME_OP_<suffix>),
                    which the checked build never wraps;
  plan(fa)          builds the field's kernel set from the analysis and
                    returns it (falsy: none for this field's form), recording
                    on fa only what the C templates read (the dispatch plan,
                    the ops it provides);
  emit(fa, kernels, comment)
                    renders the kernels plan returned: {relative path: text};
                    comment(what) gives the generated-file header;
  TEMPLATE          (optional) a Jinja2 file in its package with its parts of
                    the C files: the macros have(f, U) (its FG_NAME_HAVE_*
                    line), declarations(f, U, zsigs) (its kernels'
                    prototypes) and dispatch(f, U, op, sigs) (its branch of
                    op's dispatcher), which templates/field.h.j2 and
                    c_dispatch.j2 call for each target that has one;
  costs_report(fa)  (optional) its lines of `gen/fieldgen --costs`.
gen/fg/cli.py runs every target's plan after the analysis and before the C
templates, and every target's emit after them, in TARGETS' order; it names
no target. The x86-64 target's Fp2 parts of the C files are still in the
shared templates (h_fp2.j2, c_fp2.j2), and its levels are analysis.LEVELS.
docs/design.md says how to add one.
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
