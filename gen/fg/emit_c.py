# SPDX-License-Identifier: MIT OR Apache-2.0
"""Emitter: C header and source per field, rendered from templates/."""

from __future__ import annotations

import os

import jinja2

from . import ops as ops_mod
from . import targets
from . import verify as verify_mod
from .analysis import KERNEL_OPS, hex_limbs
from .output import comment_text

TEMPLATE_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "templates")


def _environment():
    # templates/, and each target's own parts as targets/NAME/FILE
    # (gen/fg/targets/__init__.py: TEMPLATE)
    env = jinja2.Environment(
        loader=jinja2.ChoiceLoader([
            jinja2.FileSystemLoader(TEMPLATE_DIR),
            jinja2.PrefixLoader({"targets": jinja2.FileSystemLoader(os.path.dirname(targets.__file__))})]),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        autoescape=False,
    )
    env.filters["comment"] = comment_text   # outside text inside a comment: never ends it
    return env


_ENV = None
# the targets' C parts, in TARGETS' order: (target name, template)
TARGET_TEMPLATES = tuple((t.NAME, f"targets/{t.NAME}/{t.TEMPLATE}") for t in targets.TARGETS
                         if getattr(t, "TEMPLATE", None))


def render(template, fa, command, config, sets=(), plan=None, **extra):
    """One template for one field: f the model, ks {target name: kernel set},
    plan the dispatch plan (gen/fg/dispatch.py)."""
    global _ENV
    if _ENV is None:
        _ENV = _environment()
    text = _ENV.get_template(template).render(
        f=fa, U=fa.upper, command=command, config=config, kernel_ops=KERNEL_OPS, hex_limbs=hex_limbs,
        target_templates=TARGET_TEMPLATES, kops=ops_mod.KERNEL_OPS, ks={t.NAME: k for t, k in sets},
        plan=plan, **extra)
    return text.rstrip("\n") + "\n"


def emit(fa, sets, plan, command, config):
    """{relative path: text} for the C files of one field, from the model,
    the targets' kernel sets [(target, kernel set)] and the dispatch plan.
    The header first: its prototypes give the checked build's table
    (gen/fg/verify.py), which adds each function's contract line to the
    header and the checking wrappers to the source."""
    header = render("field.h.j2", fa, command, config, sets, plan)
    table = verify_mod.entries(fa, header)
    return {
        f"{fa.name}/fg_{fa.name}.h": verify_mod.annotate_header(fa, header),
        f"{fa.name}/fg_{fa.name}.c": render("field.c.j2", fa, command, config, sets, plan, verify=table),
    }


def header_comment(fa, what, command, config, prefix):
    """The generated-file header, for emitters of non-C files (assembly, vectors)."""
    global _ENV
    if _ENV is None:
        _ENV = _environment()
    module = _ENV.get_template("macros.j2").make_module({"config": config})
    return str(module.file_header(fa, what, command, prefix)).rstrip() + "\n"
