# SPDX-License-Identifier: MIT OR Apache-2.0
"""The kernel ops' signatures, once: the table the templates read for every
prototype and call of a per-level kernel (the header's declarations, each
target's, the dispatchers, the Fp2 kernels). An op's operands are its output
(r: an element; t: a wide product of 2n words) and its inputs in order."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class KernelOp:
    name: str
    out: str            # "r" (n words) or "t" (2n words)
    ins: tuple          # the inputs: "a", "b" (n words), "t" (2n words)
    fp2: bool = False   # an Fp2 op: operands are fg_NAME_fp2 elements

    def _operands(self):
        return (self.out,) + self.ins

    def raw(self, upper):
        """On raw limbs, as the per-level kernels take them:
        uint64_t r[FG_U_LIMBS], const uint64_t a[FG_U_LIMBS], ..."""
        def one(v, const):
            size = ("2 * " if v == "t" else "") + f"FG_{upper}_LIMBS"
            return f"{'const ' if const else ''}uint64_t {v}[{size}]"
        return ", ".join(one(v, i > 0) for i, v in enumerate(self._operands()))

    def public(self, type_name):
        """As the dispatched function takes them (type_name: fg_NAME, or
        fg_NAME_fp2 for the Fp2 ops): fg_NAME *r, const fg_NAME *a, ...; a
        wide operand as uint64_t t[2 * N] (N: the C file's limb count)."""
        def one(v, const):
            if v == "t":
                return f"{'const ' if const else ''}uint64_t t[2 * N]"
            return f"{'const ' if const else ''}{type_name} *{v}"
        return ", ".join(one(v, i > 0) for i, v in enumerate(self._operands()))

    @property
    def call(self):
        """The dispatcher's arguments to a kernel: r->limb, a->limb, t, ...
        (the Fp2 kernels take the elements themselves)."""
        if self.fp2:
            return ", ".join(self._operands())
        return ", ".join(v if v == "t" else f"{v}->limb" for v in self._operands())


KERNEL_OPS = {op.name: op for op in (
    KernelOp("mul", "r", ("a", "b")),
    KernelOp("sqr", "r", ("a",)),
    KernelOp("mul_wide", "t", ("a", "b")),
    KernelOp("sqr_wide", "t", ("a",)),
    KernelOp("redc", "r", ("t",)),
    KernelOp("mul_lazy", "r", ("a", "b")),
    KernelOp("sqr_lazy", "r", ("a",)),
    KernelOp("fp2_mul", "r", ("a", "b"), fp2=True),
    KernelOp("fp2_sqr", "r", ("a",), fp2=True),
)}
