"""Emitter: x86-64 assembly per field (PeachPy), wrapped in a generated .S.

The reduction family decided by the analysis picks the backend module; the
backends only see the analysis object, never a field's name.
"""

from __future__ import annotations

import importlib

_BACKENDS = {
    # enabled as each backend lands:
    "montgomery": ("x86_64_mont", "emit_montgomery"),
    "pseudo_mersenne": ("x86_64_pm", "emit_pseudo_mersenne"),
}


def backend(fa):
    """(emit function, kernel_choice function) for the field's form, or None
    when no backend for that form exists."""
    entry = _BACKENDS.get(fa.form)
    if entry is None:
        return None
    try:
        module = importlib.import_module(f".{entry[0]}", __package__)
    except ModuleNotFoundError as e:
        if e.name and e.name.endswith(entry[0]):
            return None
        raise
    return getattr(module, entry[1]), getattr(module, "kernel_choice")


def emit(fa, emit_fn, header):
    body = emit_fn(fa)
    text = (header +
            "\n#if defined(__x86_64__) && defined(__ELF__) && !defined(FG_NO_ASM)\n\n" +
            body.rstrip("\n") + "\n\n" +
            ".section .note.GNU-stack,\"\",%progbits\n"
            "#endif\n")
    return {f"{fa.name}/fg_{fa.name}_x86_64.S": text}
