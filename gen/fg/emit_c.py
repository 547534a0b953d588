"""Emitter: C header and source per field, rendered from templates/."""

from __future__ import annotations

import os

import jinja2

from .analysis import KERNEL_IDS, KERNEL_OPS, LEVELS, hex_limbs

TEMPLATE_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "templates")


def _environment():
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATE_DIR),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        autoescape=False,
    )
    return env


_ENV = None


def render(template, fa, command, config):
    global _ENV
    if _ENV is None:
        _ENV = _environment()
    text = _ENV.get_template(template).render(
        f=fa, U=fa.upper, command=command, config=config, levels=LEVELS, kernel_ops=KERNEL_OPS, kernel_ids=KERNEL_IDS,
        hex_limbs=hex_limbs)
    return text.rstrip("\n") + "\n"


def emit(fa, command, config):
    """{relative path: text} for the C files of one field."""
    return {
        f"{fa.name}/fg_{fa.name}.h": render("field.h.j2", fa, command, config),
        f"{fa.name}/fg_{fa.name}.c": render("field.c.j2", fa, command, config),
    }


def header_comment(fa, what, command, config, prefix):
    """The generated-file header, for emitters of non-C files (assembly, vectors)."""
    global _ENV
    if _ENV is None:
        _ENV = _environment()
    module = _ENV.get_template("macros.j2").make_module({"config": config})
    return str(module.file_header(fa, what, command, prefix)).rstrip() + "\n"
