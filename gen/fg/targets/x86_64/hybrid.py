# SPDX-License-Identifier: MIT OR Apache-2.0
"""The hybrid Fp2 mul and squaring: one half on the scalar units, the
other on the AVX-512 IFMA units, their instructions interleaved in one
function.

    void fg_NAME_fp2_mul_ifma_zen(uint64_t r[2n], const uint64_t a[2n], const uint64_t b[2n])
    void fg_NAME_fp2_sqr_ifma_zen(uint64_t r[2n], const uint64_t a[2n])

u^2 = -1, Montgomery form, canonical inputs and outputs (the contract of
every fg_NAME_fp2_mul and _sqr kernel):
  * mul: c0 = (a0 b0 + a1 (p - b1))/R by MULX/ADCX/ADOX, the fused
    Montgomery rows of both products (x86_64_mont.fp2_c0_kernel), and
    c1 = (a0 b1 + a1 b0)/R by IFMA in radix 2^52 (x86_64_ifma, op "c1");
  * sqr: c0 = (a0 + a1)(a0 - a1 + p)/R, the scalar complex squaring's first
    product (fp2_c0_sqr_kernel), and c1 = a0 (2 a1)/R by IFMA (op "c1s").
Why: on the AMD cores measured the scalar kernels are bound by what MULX
and the ALU instructions issue (research/ports), and the IFMA kernels by
their vector uops and the latency of their reduction groups; the two use
different execution units, so the halves run side by side. The vector
half's instructions (after its input conversion, which reads a and b, and
before its final step, which needs general-purpose registers) are spread
evenly between the scalar half's, so the out-of-order window holds both.
The vector half uses no general-purpose register there: its k-masks come
from a constant table ("km").

Frame (64-byte aligned, the caller's rsp in rbp, which the scalar half
leaves alone): the vector half's digit buffers at rsp + 0, the scalar
half's slots above them (Kernel.slot_base), then r (kept for the vector
final step's stores). All inputs are read before the first store (c0's,
at the end of the scalar half), so r may alias a or b. No branch, no
secret-dependent address (both halves are straight-line code).
"""

from peachpy import Argument, ptr, uint64_t, const_uint64_t
from peachpy.x86_64 import isa, MOV, SUB, AND, RETURN, VZEROUPPER
from peachpy.x86_64.registers import rbp, rsp, rdi
from peachpy.x86_64.operand import MemoryOperand

from . import ifma
from . import mont
from . import cost as kernel_cost
from . import tuning
from .gas import PhysicalFunction, gas_text

TARGET = ifma.TARGET + isa.bmi2 + isa.adx


# the vector half's op (x86_64.ifma) and the scalar half's Kernel builder, per op
_HALVES = {"mul": ("c1", mont.fp2_c0_kernel), "sqr": ("c1s", mont.fp2_c0_sqr_kernel)}


def supported(fa, op="mul"):
    """Whether fg_NAME_fp2_OP_ifma_zen can be generated: the vector half's
    conditions (u^2 = -1, 2^52 | p + 1, the final bound; for the squaring
    2p <= 2^64n) and the scalar Fp2 kernel's (Montgomery form, the lazy
    scheme: p - b1 in [1, p], the sums below 2p)."""
    if fa.fp2 is None or not ifma.supported(fa, _HALVES[op][0]):
        return False
    return mont.fp2_mul_kernel(fa, "adx") if op == "mul" else \
        (mont.fp2_sqr_kernel(fa, "adx") and fa.fp2.lazy_sqr)


def _vector_half(fa, vop):
    """(shape, tables, head, middle, tail, frame) of the IFMA half: its
    allocated code split at its marks, and its frame (a multiple of 64)."""
    sh = ifma._Shape(fa, vop)
    tabs = ifma._tables(sh)
    sh.tabs = tabs
    code, frame = ifma.allocated(sh, vop)
    marks = [i for i, (ins, _) in enumerate(code) if ins is ifma.MARK]
    assert [code[i][1] for i in marks] == [("head",), ("tail",)]
    head, mid, tail = code[:marks[0]], code[marks[0] + 1:marks[1]], code[marks[1] + 1:]
    return sh, tabs, head, mid, tail, frame


# The vector middle is spread over the first SPREAD of the scalar code
# (tuning.py HYB_SPREAD, research/tuning.md).
SPREAD = tuning.HYB_SPREAD


def _interleave(a, b):
    """a (the scalar code) and b (the vector middle) merged, each in its own
    order: b's instructions spread evenly among a's first SPREAD."""
    n = int(len(a) * SPREAD)
    a, rest = a[:n], a[n:]
    out, i, j = [], 0, 0
    while i < len(a) or j < len(b):
        if j < len(b) and (i >= len(a) or j * len(a) <= i * len(b)):
            out.append(b[j])
            j += 1
        else:
            out.append(a[i])
            i += 1
    return out + rest


HYB_SQR_RATIO = tuning.HYB_SQR_RATIO
HYB_SQR_LIMBS = tuning.HYB_SQR_LIMBS


def chosen(fa, op, scalar_text):
    """Whether the zen4 tuning's ifma level runs the hybrid OP (scalar_text:
    the field's Montgomery kernels, whose adx mul is counted): the mul from
    ZEN_DUAL_ROWS to ZEN_FP2_KERNELS limbs; the sqr up to HYB_SQR_LIMBS
    where the IFMA Fp mul's vector instructions are below HYB_SQR_RATIO x the
    scalar mul's 64x64 multiplications (tuning.py; research/tuning.md)."""
    if not supported(fa, op) or fa.n < mont.ZEN_DUAL_ROWS:
        return False
    if op == "mul":
        return fa.n <= mont.ZEN_FP2_KERNELS
    if fa.n > HYB_SQR_LIMBS or not ifma.supported_mul(fa):
        return False
    vec = ifma.fmul_vector_count(fa)
    mults = kernel_cost.count(scalar_text, "fg_%s_mul_adx" % fa.name, kernel_cost.MULTS)
    return vec < HYB_SQR_RATIO * mults


def emit(fa, op):
    """The GAS text of fg_NAME_fp2_OP_ifma_zen (op "mul" or "sqr"), with the
    vector half's tables (labels FG_NAME_IFMAH_* or FG_NAME_IFMAHS_*); the
    scalar half reads the field's Montgomery tables (FG_NAME_MONT_*, emitted
    with the Montgomery kernels)."""
    assert supported(fa, op)
    vop, scalar = _HALVES[op]
    sh, tabs, head, mid, tail, vframe = _vector_half(fa, vop)
    k = scalar(fa, vframe)
    save = vframe + 8 * k.nslots                # r's slot
    args = (Argument(ptr(uint64_t), name="r"), Argument(ptr(const_uint64_t), name="a"))
    if op == "mul":
        args += (Argument(ptr(const_uint64_t), name="b"),)
    fn = PhysicalFunction("fg_%s_fp2_%s_ifma_zen" % (fa.name, op), args, target=TARGET)
    with fn:
        MOV(rbp, rsp)
        SUB(rsp, save + 64)                     # r's 8 bytes within, whatever the AND takes
        AND(rsp, -64)
        MOV(MemoryOperand(rsp + save, 8), rdi)
        for ins, ops in head + _interleave(k.code, mid):
            ins(*ops)
        MOV(rdi, MemoryOperand(rsp + save, 8))
        for ins, ops in tail:
            ins(*ops)
        MOV(rsp, rbp)
        VZEROUPPER()
        RETURN()
    labels = ifma._labels(sh)
    text = mont._tables(fa.name).resolve(labels.resolve(gas_text(fn)))
    return labels.rodata(tabs, align_each=True) + "\n" + text
