# SPDX-License-Identifier: MIT OR Apache-2.0
"""AVX-512 IFMA (radix 2^52) Fp2 multiplication and squaring for Montgomery
fields (PeachPy emitter).

Entry points:
  supported(fa)      -> bool  whether fg_<name>_fp2_mul_ifma can be generated
  emit_fp2_mul(fa)   -> str   GAS text (tables + one function), run through cpp
  supported_sqr(fa)  -> bool  whether fg_<name>_fp2_sqr_ifma can be (implies supported)
  emit_fp2_sqr(fa)   -> str   likewise; own table labels (FG_NAME_IFMAS_*), so
                              both texts go into one .S
  supported_mul(fa), emit_mul(fa): an Fp mul fg_<name>_mul_ifma(r, a, b) on raw
                              limbs (one product, one reduction; labels FG_NAME_IFMAF_*)
  choose_mul(fa, scalar_text) -> (bool, bool, str)  whether the ifma level runs it,
                              and the same code as the squaring fg_<name>_sqr_ifma(r, a),
                              under the zen tuning (AMD's AVX-512 cores), and their text

The function: void fg_NAME_fp2_mul_ifma(fg_NAME_fp2 *r, const fg_NAME_fp2 *a,
const fg_NAME_fp2 *b), with fg_NAME_fp2 = { uint64_t c0[n], c1[n] } in
Montgomery form (R = 2^(64n)), canonical inputs and outputs, u^2 = -1:
  c0 = (a0 b0 - a1 b1)/R,  c1 = (a0 b1 + a1 b0)/R  (mod p).
Design (from research/ifma, measured there; rendered here as literal code):
  * Radix conversion inside the call: a0, a1 become ND = ceil(64n/52) digits of
    52 bits, pre-shifted by SH = 52 ND - 64 n bits (so dividing by 2^(52 ND)
    divides by R), with one VPERMB/VPERMI2B byte gather (zero bytes by k-mask)
    and one VPSRLVQ per 8 digits: the "lane" operands. b0, b1 and p - b1 (64-bit
    limbs, borrow lookahead in k-registers) are converted the same way without
    pre-shift and stored to an aligned stack buffer: every product IFMA takes its
    multiplier digit as a {1to8} memory broadcast (load ports, no p5 uop).
  * c0 = a0 b0 + a1 (p - b1) and c1 = a0 b1 + a1 b0, accumulated column-wise
    (column c = lane c%8 of block c/8) without carries: row j adds
    lo(m_j * S(8q - j)) and hi(m_j * S(8q - j - 1)) to block q, where S(t) is the
    lane operand shifted by t lanes (one VALIGNQ). The rows are scanned by shift
    t, so each S(t) is formed once and feeds all its IFMAs (both lane operands'
    shifts are shared by both outputs).
  * Reduction in groups of K = floor(v2(p+1)/52) columns: p + 1 = C 2^(52K), so a
    quotient digit q at column c adds q*C at column c+K (and cancels column c
    exactly). One carry-save step per group, s_c = lo52(v_c) + hi(v_(c-1)):
    m_c = lo52(s_c) and e_c = s_c >> 52 (0 or 1, at column c+1, no high half)
    are the quotient digits; the last column's carry moves to column end by one
    masked VALIGNQ. Quotient digits go through the stack as {1to8} broadcasts;
    C shifted by any number of lanes is an unaligned load of one zero-padded
    table. The two outputs' reductions are interleaved group by group.
  * Final step: normalise Z (ND digits) once for Y = Z and once for
    W = Z + 2^(52 ND) - p, generate/propagate k-masks resolved in GPRs by
    ((g << 1) + p) ^ p, select W when it carries out (Z >= p), masked +1,
    then 52 -> 64 bits by three VPERMI2Q + variable shifts + VPTERNLOGQ.
  * Constant time: straight-line code, addresses depend only on rsp/rip and the
    argument pointers. All inputs are read before the first store (any
    aliasing); a partial vector is loaded and stored as narrow pieces of 4,
    2 and 1 limbs, never by a masked access (PAGE_SAFE_TAIL).
  * Registers: the code is traced over virtual zmm values and allocated here
    (linear scan over zmm0..zmm31, no spills): when 32 do not suffice, the
    product is regenerated with fewer accumulator chains (3 -> 2 -> 1; 2 at
    14..16 limbs). GPRs: rax, rcx, r8-r11 only (no callee-saved register);
    k1..k7. Stack: a 64-byte aligned frame (rsp saved in r11) of digit and
    quotient buffers, 0.7..5.8 KB (more groups when K is small).
  * Needs AVX512F, BW (32-bit k-ops), DQ (KADDW, KORB), IFMA and VBMI (VPERMB,
    VPERMI2B); the Function's target also lists VL.
The squaring, void fg_NAME_fp2_sqr_ifma(fg_NAME_fp2 *r, const fg_NAME_fp2 *a):
r = a^2 = (a0 + a1)(a0 - a1) + 2 a0 a1 u, the same machinery with two products
instead of four: c0 = X Y with lane operand X = a0 + a1 and digits of
Y = a0 + (p - a1); c1 = a0 (2 a1) with lane operand a0 and digits of 2 a1.
  * X, Y: 64-bit limb additions (and p - a1 a subtraction) with carry/borrow
    lookahead in k-registers, as p - b1 in the mul. X <= 2p - 2 and
    Y <= 2p - 1 fit NL limbs when 2p <= 2^(64 NL) (supported_sqr), so the
    carry out of the top limb is zero and X << SH fits the ND digits.
  * 2 a1 < 2p <= 2^(64 NL) <= 2^(52 ND): its digits come from the same byte
    gather with a table for x << 1 (i2/s2; k-masks reloaded after the lanes).
  * Bound: T0 = X Y <= (2p-2)(2p-1), T1 = 2 a0 a1 <= 2(p-1)^2, both < 4p^2;
    z_bound_ok checks (T + Q p) / 2^(52 ND) < 2p with T = (2p-2)(2p-1) 2^SH
    and the largest quotient Q of the grouped reduction, exactly as for the
    mul (whose T bound is (p-1)^2 + (p-1)p): one final subtraction suffices.
    All IFMA operands are digits below 2^52 (normalised by the conversion;
    IFMA reads bits 0..51 only), column sums stay far below 2^64.
  * The two products have different lane operands (X and a0), so no S(t) is
    shared between them (the mul shares each S(t) between c0 and c1); the
    three-product form a0 a0 + a1 (p - a1), a0 (2 a1) would share a0's
    shifts but costs 50% more IFMAs.
  * Measured (ABBA in one process, 6 processes, taskset -c 1, latency):
    p503 317 core cycles vs 331 for the scalar complex squaring (0.96x),
    0.92x the IFMA mul, 1.97x the Fp mul; p751 475 vs 629 (0.76x), 0.88x the
    IFMA mul, 1.57x the Fp mul. It is bound by p0/p5 vector uops (throughput
    of independent calls 300 vs latency 317 at p503; IFMA zmm issues on p0
    and p5 here): the two reductions (92 IFMAs at p503, as many as the two
    products' 84), the final steps (~110 uops) and the conversions (~45)
    do not halve with the product. Tried, no gain: NA_PROD 2, 1 (+0, +5%),
    NCRIT 3, 6 (+2%, +1.4% p503), NCOLD 1, 3 (+4..7%, +0.6%), INTERLEAVE
    (+7.5% p503), a group's k-masks loaded once for both outputs (-0.3%).
The Fp mul (emit_mul): the same code with one lane operand (a), one digit
buffer (b) and one output; T <= (p-1)^2 2^SH. Unlike the Fp2 kernels it is
latency-bound (p751: 514 instructions, ~160 cycles of p0/p5 uops, 300
measured), so its quotient digits are broadcast from registers by VPERMQ
(REGQ_FMUL: -1.7..2.2%, 2 x 3..4 processes), and its multiplier digits are
read straight from b (DIRECT_B, as the study's C kernel does): digit j is the
qword at the byte holding bit 52j (moved back to end at byte 8n, never past
the object), shifted right (0..7 bits; more when moved back; IFMA reads bits 0..51): an {1to8}
memory operand when the shift is 0, else VPBROADCASTQ + VPSRLQ; no
conversion and no store-to-load trip (-3..4%, 2 x 3 processes, both orders).
Measured at p751 (rotated order in one process): 0.96..1.00x the adx
kernel (without DIRECT_B 0.99..1.04x; the study's C kernel 0.90..0.96x in
the same runs); p503 1.4x. In the Fp2 kernels (throughput-bound) the odd
digits' shifts would cost more p0/p5 uops than the conversion saves.
Tried, no gain: INTERLEAVE (+1..3%), NCRIT 8 (+0.4%), NA_PROD 4 (+1%).
Measured (one process, ABBA-interleaved latency of chained calls, median of 6
processes, taskset -c 1): p503 347 vs 438 core cycles for the dispatched scalar
fg_p503_fp2_mul (0.79x), p751 564 vs 922 (0.61x); 2.14x and 1.87x the scalar
Fp mul. The study's C kernel in the same runs: 0.86x and 0.68x.
"""

import re

from peachpy import Argument, ptr, uint64_t, const_uint64_t
from peachpy.x86_64 import (uarch, isa, RETURN, MOV, ADD, SUB, AND, OR, XOR, LEA, SHR, BT, CMOVC, SBB,
                            VPMADD52LUQ, VPMADD52HUQ, VALIGNQ, VPERMI2B, VPERMB, VPERMI2Q,
                            VPSRLVQ, VPSLLVQ, VPSRLQ, VPERMQ, VPBROADCASTQ, VPANDQ, VPORQ, VPADDQ, VPSUBQ, VPXORD, VPCMPUQ,
                            VPBLENDMQ, VPTERNLOGQ, VMOVDQA64, VMOVDQU64, VMOVQ, VZEROUPPER,
                            KMOVQ, KMOVD, KUNPCKBW, KUNPCKWD, KSHIFTLW, KSHIFTRW,
                            KADDW, KXORW, KORB)
from peachpy.x86_64.registers import (rax, rcx, rdx, rsi, rdi, rsp, r8, r9, r10, r11,
                                      k1, k2, k3, k4, k5, k6, k7, ZMMRegister)
from peachpy.x86_64.operand import MemoryOperand, RIPRelativeOffset

from .gas import PhysicalFunction, Tables, gas_text
from . import cost as kernel_cost
from . import tuning

# ---------------------------------------------------------------------------
# PeachPy 0.2.0 AVX-512 GAS-output fixes (found by the study in research/ifma/):
#  1. physical k registers made Function.finalize's liveness analysis assert;
#  2./3. ZMMRegister, KRegister and MaskedRegister had no .format();
#  4. a {1to8} memory broadcast was printed without "{1to8}" (a SILENT
#     miscompile into a 64-byte load; the binary encoder was right);
#  5. (found here) a masked memory destination, vmovdqu64 %zmm, m{k}, was
#     printed without its "{%k}": another silent miscompile (a full store).
import peachpy.x86_64.registers as _R
import peachpy.x86_64.operand as _O

if not getattr(_R.Register, "_fg_ifma_patched", False):
    _orig_reconstruct = _R.Register._reconstruct

    def _reconstruct(internal_id, mask):
        extra = set()
        if internal_id >= 0 and mask & 0x40:
            mask &= ~0x40
            extra.add(_R.KRegister(physical_id=internal_id))
        s = _orig_reconstruct(internal_id, mask) if mask else set()
        return s | extra
    _R.Register._reconstruct = staticmethod(_reconstruct)

    def _fmt(self, assembly_format):
        return "%" + str(self) if assembly_format == "gas" else str(self)
    _R.ZMMRegister.format = _fmt
    _R.KRegister.format = _fmt

    def _mfmt(self, assembly_format):
        s = self.register.format(assembly_format)
        if assembly_format == "gas":
            s += "{%" + str(self.mask.mask_register) + "}" + ("{z}" if self.mask.is_zeroing else "")
        return s
    _R.MaskedRegister.format = _mfmt

    _orig_memfmt = _O.MemoryOperand.format

    def _memfmt(self, assembly_format):
        s = _orig_memfmt(self, assembly_format)
        if assembly_format == "gas" and self.broadcast is not None:
            s += "{1to%d}" % self.broadcast
        if assembly_format == "gas" and self.mask is not None:
            s += "{%" + str(getattr(self.mask, "mask_register", self.mask)) + "}"
        return s
    _O.MemoryOperand.format = _memfmt
    _R.Register._fg_ifma_patched = True

# ---------------------------------------------------------------------------

W = 52
M52 = (1 << W) - 1
MASK64 = (1 << 64) - 1
NA_PROD = 3         # accumulator chains per (output, block) in the product (fewer if
                    # the registers do not suffice); 3 vs 2 measured within +-2%
NCRIT = 4           # reduction chains for a block the next group reads (8: p503 +2.6%)
NCOLD = 2           # ... for the other blocks
ALIGN_STACK = True   # 64-byte aligned frame (rsp saved in r11, AND of rsp), vmovdqa64 stores;
                     # False: SUB/ADD of an immediate, unaligned stores (the form
                     # tests/ct_static.py models today). Aligned measured faster:
                     # p503 -3.3%, p751 -1..2% (abm, 10 processes; an earlier 6-process
                     # run: -1.0%, -0.2%).
INTERLEAVE = False  # True: reduce group g as soon as the product completed its blocks
                    # (measured: p503 +5%, p751 +1%: the product is throughput-bound)
DIRECT_B = True     # the Fp mul reads b's digits straight from memory (-3..4% at p751)
PAGE_SAFE_TAIL = True   # no masked load or store of r, a or b: a last vector of 1,
                    # 2 or 4 limbs is a narrow access (vmovq, xmm, ymm), one of 3, 5, 6
                    # or 7 limbs narrow pieces of 4, 2 and 1 limbs (VALIGNQ, VPORQ). On
                    # the Zen 4 a masked 64-byte access whose masked-off lanes lie in
                    # the next 4 KiB page took 400-1000 TSC ticks more per call (p751's
                    # IFMA Fp2 mul 501 -> 1028 with the operand 192 bytes before a
                    # page's end; p434's 300 -> 672, 3 limbs 186 -> 1254: research/pages)
                    # Pieces, not overlapping accesses (two xmm or ymm under 8 limbs,
                    # the limbs' last 64 bytes moved by VALIGNQ from 9): 0-7% faster
                    # (research/pages, 45ac87d's TAIL_FORM), an overlapping store
                    # defeating store forwarding to the next call's loads
REGQ_FMUL = True    # the Fp mul takes its quotient digits by VPERMQ from registers
                    # (both need registers: dropped, in this order, when 32 do not suffice)
_TABS = ("ia", "sa", "ib", "sb", "i2", "s2", "p", "c", "pc", "oi", "os", "k", "li", "km")
_TABLE_BASE, _TABLE_STRIDE = 0x7D000000, 0x100000   # RIP placeholders (x86_64.gas.Tables)
ZMM = [ZMMRegister(i) for i in range(32)]
TARGET = (uarch.default + isa.avx512f + isa.avx512vl + isa.avx512bw + isa.avx512dq
          + isa.avx512ifma + isa.avx512vbmi)


def _v2(x):
    return (x & -x).bit_length() - 1


def _ovl(a0, a1, b0, b1):
    return a0 <= b1 and b0 <= a1


class _Shape:
    """Everything the kernel depends on, derived from p (and n) only."""

    def __init__(self, fa, op="mul"):
        p, n = fa.p, fa.n
        # "mul", "sqr", "fmul", or the hybrid Fp2 mul's and sqr's vector halves "c1", "c1s"
        self.op = op
        self.tag = {"mul": "ifma", "sqr": "ifmas", "fmul": "ifmaf", "c1": "ifmah", "c1s": "ifmahs"}[op]
        self.direct = self.regq = False         # Fp mul options (set by _emit)
        self.name = fa.name
        self.p = p
        self.NL = n
        self.ND = -(-64 * n // W)
        self.SH = W * self.ND - 64 * n
        e = _v2(p + 1)
        self.K = e // W
        self.NG = -(-self.ND // self.K) if self.K else 0
        C = (p + 1) >> (W * self.K) if self.K else 0
        self.Cd = []
        while C:
            self.Cd.append(C & M52)
            C >>= W
        self.NC = len(self.Cd)
        self.NB = -(-2 * self.ND // 8)          # column blocks
        self.NAV = -(-self.ND // 8)             # digit vectors
        self.NZ = self.ND // 8 + 1              # final digit vectors (lane ND included)
        self.NW = -(-n // 8)                    # 64-bit limb vectors

    def groups(self):
        for g in range(self.NG):
            c0 = g * self.K
            yield g, c0, min(c0 + self.K, self.ND)

    def t_max(self):
        """A bound on the product T of either output (pre-shifted by SH).
        mul: c0 = a0 b0 + a1 (p - b1) <= (p-1)^2 + (p-1)p, and c1 = a0 b1 + a1 b0
        is smaller. sqr: c0 = (a0 + a1)(a0 + p - a1) <= (2p-2)(2p-1), and
        c1 = a0 (2 a1) <= 2(p-1)^2 is smaller."""
        p = self.p
        if self.op == "mul":
            t = (p - 1) * (p - 1) + (p - 1) * p
        elif self.op == "fmul":
            t = (p - 1) * (p - 1)
        elif self.op in HYBRID_OPS:
            t = 2 * (p - 1) * (p - 1)
        else:
            t = (2 * p - 2) * (2 * p - 1)
        return t << self.SH

    def z_bound_ok(self):
        """Z = (T + Q p) / 2^(52 ND) < 2p, so one conditional subtraction suffices."""
        p, ND = self.p, self.ND
        tmax = self.t_max()
        qmax = 0
        for g, c0, end in self.groups():
            qg = sum(M52 << (W * (c - c0)) for c in range(c0, end))
            qg += sum(1 << (W * (c + 1 - c0)) for c in range(c0, end - 1))
            qmax += qg << (W * c0)
        return tmax + qmax * p < 2 * p << (W * ND)


def supported(fa, op="mul"):
    """IFMA Fp2 mul applies: Montgomery form, Fp2 with u^2 = -1, 2^52 | p + 1,
    1..16 limbs, and a result bound that allows one final subtraction."""
    if fa.form != "montgomery":
        return False
    if op != "fmul" and (fa.fp2 is None or fa.fp2.nr != -1):
        return False
    if not 1 <= fa.n <= 16 or fa.p % 2 == 0 or fa.p.bit_length() > 64 * fa.n:
        return False
    if op in ("sqr", "c1s") and 2 * fa.p > 1 << (64 * fa.n):
        return False                            # a0 + a1, a0 + p - a1 need 64 NL bits
    sh = _Shape(fa, op)
    if sh.K < 1 or sh.K >= sh.ND or sh.NC > sh.ND - sh.K or sh.NC == 0:
        return False
    return sh.z_bound_ok()


def supported_sqr(fa):
    """IFMA Fp2 sqr applies: as supported(), and 2p <= 2^(64 NL) (the sums
    a0 + a1 <= 2p - 2 and a0 + p - a1 <= 2p - 1 fit the limbs, and 2 a1 the
    digits), and the larger product bound T <= (2p-2)(2p-1) 2^SH still gives
    Z < 2p (z_bound_ok). Implies supported(fa) (its T bound is smaller)."""
    return supported(fa, "sqr")


# ---------------------------------------------------------------------------
# trace over virtual zmm values, then linear-scan allocation

MARK = "mark"       # a position in the code (Trace.raw(MARK, name)): the hybrid splits there
HYBRID_OPS = ("c1", "c1s")      # the hybrid Fp2 mul's and sqr's vector halves (x86_64.hybrid)


class _OutOfRegisters(RuntimeError):
    """More than 32 zmm values live at once (the product is retried with fewer chains)."""


class V:
    __slots__ = ("id", "reg", "last")

    def __init__(self, i):
        self.id = i
        self.reg = None
        self.last = -1


class Mk:
    """A destination (or merge source) with a k-mask: reg{k} or reg{k}{z}."""
    __slots__ = ("v", "k", "z")

    def __init__(self, v, k, z=False):
        self.v, self.k, self.z = v, k, z


class Nv:
    """The low 16 or 32 bytes of a value (its xmm or ymm register)."""
    __slots__ = ("v", "width")

    def __init__(self, v, width):
        self.v, self.width = v, width


class _Op:
    __slots__ = ("ins", "ops", "dst", "tied", "srcs")

    def __init__(self, ins, ops, dst, tied, srcs):
        self.ins, self.ops, self.dst, self.tied, self.srcs = ins, ops, dst, tied, srcs


class Trace:
    def __init__(self):
        self.ops = []
        self.nv = 0
        self._zero = None

    def new(self):
        self.nv += 1
        return V(self.nv)

    def raw(self, ins, *ops):
        """An instruction without zmm values (GPR, k, memory)."""
        self.ops.append(_Op(ins, ops, None, None, []))

    def vop(self, ins, *ops, mask=None, zero=False, tied=None):
        """dst = ins(ops...): returns the new value. tied: a value whose register
        the destination must reuse (IFMA accumulator, merge-mask source, index)."""
        d = self.new()
        srcs = [o for o in ops if isinstance(o, V)]
        if tied is not None:
            srcs = [s for s in srcs if s is not tied]
        dop = Mk(d, mask, zero) if mask is not None else d
        self.ops.append(_Op(ins, (dop,) + ops, d, tied, srcs))
        return d

    def xop(self, ins, *ops):
        """An instruction that only reads zmm values (stores, compares)."""
        srcs = [o for o in ops if isinstance(o, V)]
        self.ops.append(_Op(ins, ops, None, None, srcs))

    def zero(self):
        d = self.new()
        self.ops.append(_Op(VPXORD, (d, d, d), d, None, []))
        return d

    def ifma(self, hi, acc, x, y):
        ins = VPMADD52HUQ if hi else VPMADD52LUQ
        return self.vop(ins, x, y, tied=acc)

    def allocate(self):
        for i, op in enumerate(self.ops):
            for s in op.srcs:
                s.last = i
            if op.tied is not None:
                op.tied.last = i
        free = list(range(31, -1, -1))
        out = []
        maxlive = 0
        for i, op in enumerate(self.ops):
            if op.ins is MARK:
                out.append((MARK, op.ops))
                continue
            if op.tied is not None:
                t = op.tied
                if t.last == i:
                    op.dst.reg = t.reg
                else:
                    if not free:
                        raise _OutOfRegisters("tied copy")
                    r = free.pop()
                    out.append((VMOVDQA64, (ZMM[r], ZMM[t.reg])))
                    op.dst.reg = r
            for s in op.srcs:
                if s.last == i and s.reg is not None and s is not op.tied:
                    free.append(s.reg)
                    s.reg, s.last = s.reg, -2
            if op.dst is not None and op.tied is None:
                if not free:
                    raise _OutOfRegisters("new value")
                op.dst.reg = free.pop()
            maxlive = max(maxlive, 32 - len(free))
            out.append((op.ins, tuple(_phys(o) for o in op.ops)))
            if op.dst is not None and op.dst.last < i and op.dst.last != -2:
                free.append(op.dst.reg)     # never read
            free.sort(reverse=True)         # deterministic: lowest register first
        self.maxlive = maxlive
        return out


def _phys(o):
    if isinstance(o, V):
        return ZMM[o.reg]
    if isinstance(o, Nv):
        return ZMM[o.v.reg].as_ymm if o.width == 32 else ZMM[o.v.reg].as_xmm
    if isinstance(o, Mk):
        r = ZMM[o.v.reg]
        return r(o.k.z) if o.z else r(o.k)
    return o


# ---------------------------------------------------------------------------
# tables

def _labels(sh):
    return Tables(sh.name, sh.tag, _TABS, _TABLE_BASE, _TABLE_STRIDE)


def _qwords_of_bytes(bs):
    return [int.from_bytes(bytes(bs[8 * i:8 * i + 8]), "little") for i in range(len(bs) // 8)]


def _conv_tables(sh, shift):
    """VPERMB/VPERMI2B byte index, k-mask and VPSRLVQ shifts for the digit
    vectors of x << shift (x: NL 64-bit limbs, read as 8*NL bytes)."""
    idx, shv, masks = [], [], []
    for v in range(sh.NAV):
        bs, km = [0] * 64, 0
        for l in range(8):
            j = 8 * v + l
            if j >= sh.ND:
                shv.append(0)
                continue
            pos = W * j - shift
            start = pos // 8
            shv.append(pos - 8 * start)
            for k in range(8):
                src = start + k
                if 0 <= src < 8 * sh.NL:
                    bs[8 * l + k] = src
                    km |= 1 << (8 * l + k)
        idx += _qwords_of_bytes(bs)
        masks.append(km)
    return idx, shv, masks


def _tables(sh):
    t = {}
    t["ia"], t["sa"], sh.mask_a = _conv_tables(sh, sh.SH)
    t["ib"], t["sb"], sh.mask_b = _conv_tables(sh, 0)
    if sh.op in ("sqr", "c1s"):
        t["i2"], t["s2"], sh.mask_2 = _conv_tables(sh, 1)      # digits of 2x
    t["p"] = [(sh.p >> (64 * i)) & MASK64 for i in range(8 * sh.NW)]
    # C, zero-padded: CS(s) (lane l = C[s + l]) is the 8 qwords at index s + cpad
    smin, smax = 0, 0
    for g, c0, end in sh.groups():
        for c in range(c0, end):
            for q in range(sh.NB):
                for s in (8 * q - c - sh.K, 8 * q - c - sh.K - 1):
                    smin, smax = min(smin, s), max(smax, s)
    sh.cpad = max(0, -smin)
    t["c"] = [0] * sh.cpad + sh.Cd + [0] * max(0, smax + 8 + sh.cpad - sh.cpad - sh.NC)
    # 2^(52 ND) - p, digit-wise: (2^52 - 1 - p_c) + [c == 0]
    pc = []
    for c in range(8 * sh.NZ):
        pc.append(M52 - ((sh.p >> (W * c)) & M52) + (c == 0) if c < sh.ND else 0)
    t["pc"] = pc
    oi, os_ = [], []
    for tt in range(3):
        for v in range(sh.NW):
            for l in range(8):
                k = 8 * v + l
                j = 64 * k // W
                o = 64 * k - W * j
                jj = j + tt
                s = o if tt == 0 else W * tt - o
                if k >= sh.NL or jj >= sh.ND or s >= 64:
                    jj, s = 8 * v, 64
                oi.append(jj - 8 * v)
                os_.append(s)
                assert 0 <= jj - 8 * v < 16
    t["oi"], t["os"] = oi, os_
    t["k"] = [M52]
    if sh.op == "fmul" and REGQ_FMUL:
        t["li"] = [l for l in range(8) for _ in range(8)]     # VPERMQ index: lane l
    if sh.op in HYBRID_OPS:
        # the reduction's k-masks as constants (KMOVQ from memory): the hybrid's
        # vector middle uses no general-purpose register
        t["km"] = sorted(set(_reduce_masks(sh)))
        sh.km_index = {m: i for i, m in enumerate(t["km"])}
    return t


def _reduce_masks(sh):
    """The k-masks reduce_group loads, in its order: per group and output
    block, the columns of the group that take the carry of the column below
    (when any), then the lane of the column after the group."""
    out = []
    for g, c0, end in sh.groups():
        for q in range(c0 // 8, (end - 1) // 8 + 1):
            km = sum(1 << l for l in range(8) if c0 < 8 * q + l < end)
            if km:
                out.append(km)
        out.append(1 << (end % 8))
    return out


def _cmem(tab, qword_index, size=64, bcast=None):
    off = _TABLE_BASE + _TABLE_STRIDE * _TABS.index(tab) + 8 * qword_index
    return MemoryOperand(RIPRelativeOffset(off), size, broadcast=bcast)


def _smem(off, size=64, bcast=None):
    return MemoryOperand(rsp + off, size, broadcast=bcast)


def _mem(base, off, size=64):
    return MemoryOperand(base + off if off else base, size)


# ---------------------------------------------------------------------------
# the kernel

def _build(sh, na, op):
    tr = Trace()
    NL, ND, NB, NAV, NZ, NW, K = sh.NL, sh.ND, sh.NB, sh.NAV, sh.NZ, sh.NW, sh.K
    NX = 1 if op == "fmul" or op in HYBRID_OPS else 2       # outputs (Fp2: c0, c1; Fp mul, hybrid: one)
    MB = _cmem("k", 0, 8, 8)          # 2^52 - 1, {1to8}

    # stack layout (64-byte aligned slots)
    slots = {}
    top = [0]

    def slot(key, nvec=1):
        slots[key] = top[0]
        top[0] += 64 * nvec
        return slots[key]

    names = {"mul": ("b0", "b1", "n"), "sqr": ("y", "d"), "fmul": ("b",), "c1": ("b0", "b1"), "c1s": ("d",)}[op]
    for nm in names:
        slot(nm, NAV)
    for g, c0, end in sh.groups():
        for x in range(NX):
            for q in range(c0 // 8, (end - 1) // 8 + 1):
                slot(("m", g, x, q))
                slot(("e", g, x, q))
    frame = top[0]

    tail = NL % 8
    if tail and not PAGE_SAFE_TAIL:
        _movi(tr, rax, (1 << tail) - 1)
        tr.raw(KMOVQ, k7, rax)
    # a last vector of `tail` limbs: narrow pieces of 4, 2, 1 limbs, (offset, size)
    pieces = [(o, size) for o, size in ((0, tail & 4), (tail & 4, tail & 2), (tail & 6, tail & 1)) if size]

    def narrow_load(m, lanes):
        """lanes (1, 2 or 4) limbs at m; the vector's upper lanes zeroed."""
        d = tr.new()
        width = 8 * lanes
        tr.ops.append(_Op(VMOVQ if lanes == 1 else VMOVDQU64,
                          (Nv(d, max(width, 16)), MemoryOperand(m.address, width)), d, None, []))
        return d

    def narrow_store(m, v, lanes):
        width = 8 * lanes
        tr.ops.append(_Op(VMOVQ if lanes == 1 else VMOVDQU64,
                          (MemoryOperand(m.address, width), Nv(v, max(width, 16))), None, None, [v]))

    def load_limbs(base, off):
        """The NL limbs at base+off as NW vectors (lanes past NL zero). A last
        vector of 1, 2 or 4 limbs is one narrow load (the upper lanes zeroed),
        of 3, 5, 6 or 7 limbs narrow pieces of 4, 2 and 1 limbs, each moved up
        to its lanes by VALIGNQ (the vacated lanes take its own zero lanes) and
        joined by VPORQ; with PAGE_SAFE_TAIL off, a masked load."""
        out = []
        for w in range(NW):
            m = _mem(base, off + 64 * w)
            if 8 * w + 8 <= NL:
                out.append(tr.vop(VMOVDQU64, m))
            elif not PAGE_SAFE_TAIL:
                out.append(tr.vop(VMOVDQU64, m, mask=k7, zero=True))
            else:
                v = None
                for o, size in pieces:
                    x = narrow_load(_mem(base, off + 64 * w + 8 * o), size)
                    if o:
                        x = tr.vop(VALIGNQ, x, x, 8 - o)
                    v = x if v is None else tr.vop(VPORQ, v, x)
                out.append(v)
        return out

    def all_ones():
        # masked ops take register operands only (a masked memory access would
        # depend on the mask, which is data here): all-ones = -1 in every lane
        ones = tr.new()
        tr.ops.append(_Op(VPTERNLOGQ, (ones, ones, ones, 0xFF), ones, None, []))
        return ones

    def limb_op(xs, ys, sub, ones=None):
        """xs - ys (xs None: p) or xs + ys (NW vectors of 64-bit limbs), the borrows or carries
        between limbs by lookahead in k-registers (k1..k4): generate g (x < y;
        x + y < x), propagate e (x == y; x + y == 2^64 - 1), into each limb
        ((g << 1) + e) ^ e. The borrow or carry out of limb NL - 1 is dropped
        (lane NL of a partial vector may change: never read)."""
        d, kg, ke = [], [k1, k3], [k2, k4]
        for w in range(NW):
            if sub:
                xw = xs[w] if xs is not None else tr.vop(VMOVDQA64, _cmem("p", 8 * w))
                d.append(tr.vop(VPSUBQ, xw, ys[w]))
                tr.xop(VPCMPUQ, kg[w], xw, ys[w], 1)          # x < y (LT)
                tr.xop(VPCMPUQ, ke[w], xw, ys[w], 0)          # x == y
            else:
                d.append(tr.vop(VPADDQ, xs[w], ys[w]))
                tr.xop(VPCMPUQ, kg[w], d[w], xs[w], 1)        # wrapped (LT)
                tr.xop(VPCMPUQ, ke[w], d[w], ones, 0)         # all-ones
        if NW == 2:
            tr.raw(KUNPCKBW, k1, k3, k1)
            tr.raw(KUNPCKBW, k2, k4, k2)
        tr.raw(KSHIFTLW, k3, k1, 1)
        tr.raw(KADDW, k3, k3, k2)
        tr.raw(KXORW, k3, k3, k2)                         # borrow/carry into each limb
        if ones is None:
            ones = all_ones()
        fix = VPADDQ if sub else VPSUBQ                   # -1 or +1
        d[0] = tr.vop(fix, d[0], ones, mask=k3, tied=d[0])
        if NW == 2:
            tr.raw(KSHIFTRW, k4, k3, 8)
            d[1] = tr.vop(fix, d[1], ones, mask=k4, tied=d[1])
        return d

    # --- conversion masks: k1..k3 (shifted, lane operands), k4..k6 (unshifted)
    kA, kB = [k1, k2, k3], [k4, k5, k6]

    def load_masks(ks, masks):
        for v in range(NAV):
            _movi(tr, rax, masks[v])
            tr.raw(KMOVQ, ks[v], rax)

    def convert(raw, which):
        kk = kA if which in ("a", "2") else kB
        itab, stab = {"a": ("ia", "sa"), "b": ("ib", "sb"), "2": ("i2", "s2")}[which]
        shifts = sh.tabs[stab]
        out = []
        for v in range(NAV):
            idx = tr.vop(VMOVDQA64, _cmem(itab, 8 * v))
            if NW == 1:
                x = tr.vop(VPERMB, idx, raw[0], mask=kk[v], zero=True)
            else:
                x = tr.vop(VPERMI2B, raw[0], raw[1], mask=kk[v], zero=True, tied=idx)
            if any(shifts[8 * v:8 * v + 8]):
                x = tr.vop(VPSRLVQ, x, _cmem(stab, 8 * v))
            out.append(x)
        return out

    def store_digits(vecs, name):
        for v, x in enumerate(vecs):
            tr.xop(_STST(), _smem(slots[name] + 64 * v), x)

    if op == "mul":
        # n = p - b1; c0 = a0 b0 + a1 n, c1 = a0 b1 + a1 b0
        b1raw = load_limbs(rdx, 8 * NL)
        d = limb_op(None, b1raw, True)              # xs None: p
        for v in range(NAV):
            for ks, km in ((kA, sh.mask_a[v]), (kB, sh.mask_b[v])):
                _movi(tr, rax, km)
                tr.raw(KMOVQ, ks[v], rax)
        store_digits(convert(d, "b"), "n")
        store_digits(convert(load_limbs(rdx, 0), "b"), "b0")
        store_digits(convert(b1raw, "b"), "b1")
        A = [convert(load_limbs(rsi, 0), "a"), convert(load_limbs(rsi, 8 * NL), "a")]
        mult = {(0, 0): "b0", (1, 0): "n", (0, 1): "b1", (1, 1): "b0"}    # (h, x) -> digits
    elif op == "c1":
        # the hybrid's vector half: c1 = a0 b1 + a1 b0 only (x86_64.hybrid)
        load_masks(kB, sh.mask_b)
        store_digits(convert(load_limbs(rdx, 0), "b"), "b0")
        store_digits(convert(load_limbs(rdx, 8 * NL), "b"), "b1")
        load_masks(kA, sh.mask_a)
        A = [convert(load_limbs(rsi, 0), "a"), convert(load_limbs(rsi, 8 * NL), "a")]
        mult = {(0, 0): "b1", (1, 0): "b0"}
        tr.raw(MARK, "head")                        # every input read above this line
    elif op == "c1s":
        # the hybrid squaring's vector half: c1 = a0 (2 a1), 2 a1 < 2p <= 2^(64 NL)
        load_masks(kA, sh.mask_2)
        store_digits(convert(load_limbs(rsi, 8 * NL), "2"), "d")
        load_masks(kA, sh.mask_a)
        A = [convert(load_limbs(rsi, 0), "a")]
        mult = {(0, 0): "d"}
        tr.raw(MARK, "head")
    elif op == "fmul":
        # one product a b, one output
        if sh.direct:
            load_masks(kA, sh.mask_a)
            A = [convert(load_limbs(rsi, 0), "a")]
            mult = {(0, 0): "direct"}
        else:
            load_masks(kB, sh.mask_b)
            store_digits(convert(load_limbs(rdx, 0), "b"), "b")
            load_masks(kA, sh.mask_a)
            A = [convert(load_limbs(rsi, 0), "a")]
            mult = {(0, 0): "b"}
    else:
        # c0 = (a0 + a1)(a0 + (p - a1)), c1 = a0 (2 a1): X = a0 + a1 <= 2p - 2 and
        # Y = a0 + p - a1 <= 2p - 1 are below 2^(64 NL) (supported_sqr), so the
        # dropped carry out of limb NL - 1 is zero; 2 a1 < 2^(64 NL) <= 2^(52 ND)
        # is converted by a table that shifts by one bit.
        a0raw = load_limbs(rsi, 0)
        a1raw = load_limbs(rsi, 8 * NL)
        ones = all_ones()
        n = limb_op(None, a1raw, True, ones)
        X = limb_op(a0raw, a1raw, False, ones)
        Y = limb_op(a0raw, n, False, ones)
        load_masks(kA, sh.mask_a)
        load_masks(kB, sh.mask_b)
        store_digits(convert(Y, "b"), "y")
        A = [convert(X, "a"), convert(a0raw, "a")]
        load_masks(kA, sh.mask_2)
        store_digits(convert(a1raw, "2"), "d")
        mult = {(0, 0): "y", (1, 1): "d"}

    # --- product and reduction. acc[x][q]: the values that sum to block q of
    # output x (entries < na: the product chains; more: pending addends).
    Z = tr.zero()
    acc = [[[None] * na for _ in range(NB)] for _ in range(NX)]
    cnt = [[0] * NB for _ in range(NX)]

    dreg = {}

    def digit(j):
        """digit j of b straight from memory: 8 bytes at the byte holding bit
        52 j (moved back to end at byte 8 NL), shifted; IFMA reads bits 0..51"""
        pos = W * j
        off, shf = pos // 8, pos % 8
        if off + 8 > 8 * NL:
            off = 8 * NL - 8
            shf = pos - 8 * off
        if shf == 0:
            return MemoryOperand(rdx + off if off else rdx, 8, broadcast=8)
        if j not in dreg:
            v = tr.vop(VPBROADCASTQ, MemoryOperand(rdx + off if off else rdx, 8))
            dreg[j] = tr.vop(VPSRLQ, v, shf)
        return dreg[j]

    def Av(h, i):
        return A[h][i] if 0 <= i < NAV else Z

    def block(x, q):
        """Block q of output x as one value (its chains collapsed into chain 0)."""
        ch = [a for a in acc[x][q] if a is not None]
        v = _tsum(tr, ch) if ch else tr.zero()
        acc[x][q] = [v] + [None] * (na - 1)
        return v

    def add_to(x, q, hi, y, m):
        """acc[x][q] += IFMA(y, m) into the next product chain."""
        k = cnt[x][q] % na
        cnt[x][q] += 1
        a0 = acc[x][q][k]
        if a0 is None:
            a0 = tr.zero()
        acc[x][q][k] = tr.ifma(hi, a0, y, m)

    def reduce_group(g, c0, end):
        qa, qz = c0 // 8, (end - 1) // 8
        qreg = {}
        for x in range(NX):
            lo, hi_ = {}, {}
            for q in range(qa, qz + 1):
                v = block(x, q)
                lo[q] = tr.vop(VPANDQ, v, MB)
                hi_[q] = tr.vop(VPSRLQ, v, 52)
            for q in range(qa, qz + 1):
                km = 0
                for l in range(8):
                    if c0 < 8 * q + l < end:
                        km |= 1 << l
                s = lo[q]
                if km:
                    shv = tr.vop(VALIGNQ, hi_[q], hi_[q - 1] if q > qa else Z, 7)
                    _kmask(tr, sh, k1, km)
                    s = tr.vop(VPADDQ, s, shv, mask=k1, tied=s)
                mv = tr.vop(VPANDQ, s, MB)
                ev = tr.vop(VPSRLQ, s, 52)
                if _regq(sh):
                    for c in range(max(c0, 8 * q), min(end, 8 * q + 8)):
                        li = tr.vop(VMOVDQA64, _cmem("li", 8 * (c % 8)))
                        qreg[("m", x, c)] = tr.vop(VPERMQ, li, mv)
                        if c + 1 < end:
                            li = tr.vop(VMOVDQA64, _cmem("li", 8 * (c % 8)))
                            qreg[("e", x, c)] = tr.vop(VPERMQ, li, ev)
                else:
                    tr.xop(_STST(), _smem(slots[("m", g, x, q)]), mv)
                    tr.xop(_STST(), _smem(slots[("e", g, x, q)]), ev)
                if q == qz:
                    tv = tr.vop(VPADDQ, ev, hi_[q])
            # carry of column end-1 into column end (lane shift by one)
            qe = end // 8
            _kmask(tr, sh, k2, 1 << (end % 8))
            if end % 8 == 0:
                tsh = tr.vop(VALIGNQ, Z, tv, 7, mask=k2, zero=True)
            else:
                tsh = tr.vop(VALIGNQ, tv, Z, 7, mask=k2, zero=True)
            acc[x][qe].append(tsh)
        # IFMA terms per target block
        terms = {q: [] for q in range(NB)}
        for c in range(c0, end):
            for q in range(NB):
                if _ovl(8 * q, 8 * q + 7, c + K, c + K + sh.NC - 1):
                    terms[q].append((0, "m", c, 8 * q - c - K))
                if _ovl(8 * q, 8 * q + 7, c + K + 1, c + K + sh.NC):
                    terms[q].append((1, "m", c, 8 * q - c - K - 1))
                if c + 1 < end and _ovl(8 * q, 8 * q + 7, c + 1 + K, c + K + sh.NC):
                    terms[q].append((0, "e", c, 8 * q - c - 1 - K))
        if g + 1 < sh.NG:
            n0, n1 = end, min(end + K, ND) - 1
        else:
            n0, n1 = ND, 2 * ND - 1
        order = [q for q in range(NB) if _ovl(8 * q, 8 * q + 7, n0, n1)]
        order += [q for q in range(NB) if q not in order]
        for q in order:
            tl = terms[q]
            if not tl:
                continue
            crit = _ovl(8 * q, 8 * q + 7, n0, n1)
            if crit or not INTERLEAVE:
                nch = min(len(tl), NCRIT if crit else NCOLD)
                chains = [[block(x, q)] + [None] * (nch - 1) for x in range(NX)]
            for i, (hi, kind, c, s) in enumerate(tl):
                cs = tr.vop(VMOVDQU64, _cmem("c", s + sh.cpad))
                for x in range(NX):
                    if _regq(sh):
                        m = qreg[(kind, x, c)]
                    else:
                        m = _smem(slots[(kind, g, x, c // 8)] + 8 * (c % 8), 8, 8)
                    if crit or not INTERLEAVE:
                        a0 = chains[x][i % nch]
                        if a0 is None:
                            a0 = tr.zero()
                        chains[x][i % nch] = tr.ifma(hi, a0, cs, m)
                    else:
                        add_to(x, q, hi, cs, m)
            if crit or not INTERLEAVE:
                for x in range(NX):
                    acc[x][q] = [_tsum(tr, [v for v in chains[x] if v is not None])] + [None] * (na - 1)

    groups = list(sh.groups())
    for t in range(-7, ND):
        for h in range(len(A)):
            q0, r = t // 8, t % 8
            if r == 0:
                S = Av(h, q0)
            else:
                S = tr.vop(VALIGNQ, Av(h, q0 + 1), Av(h, q0), r)
            for q in range(NB):
                for hi in (0, 1):
                    j = 8 * q - t - hi
                    if not (0 <= j < ND and _ovl(8 * q, 8 * q + 7, j + hi, j + hi + ND - 1)):
                        continue
                    for x in range(NX):
                        if (h, x) in mult:
                            if mult[(h, x)] == "direct":
                                add_to(x, q, hi, S, digit(j))
                            else:
                                add_to(x, q, hi, S, _smem(slots[mult[(h, x)]] + 8 * j, 8, 8))
        # a group whose blocks are complete (no product row adds to them after t)
        while INTERLEAVE and groups and 8 * ((groups[0][2] - 1) // 8) <= t:
            reduce_group(*groups.pop(0))
    for grp in groups:
        reduce_group(*grp)
    tot = [[block(x, q) for q in range(NB)] for x in range(NX)]

    # --- final step per output
    res = []
    for x in range(NX):
        Zv = []
        qb, off = ND // 8, ND % 8

        def blk(i):
            return tot[x][i] if i < NB else Z
        for i in range(NZ):
            if off == 0:
                Zv.append(blk(qb + i))
            else:
                Zv.append(tr.vop(VALIGNQ, blk(qb + i + 1), blk(qb + i), off))
        lo = [tr.vop(VPANDQ, z, MB) for z in Zv]
        hi = [tr.vop(VPSRLQ, z, 52) for z in Zv]
        s, u, wh = [], [], []
        for i in range(NZ):
            s.append(tr.vop(VPADDQ, lo[i], tr.vop(VALIGNQ, hi[i], hi[i - 1] if i else Z, 7)))
            lp = tr.vop(VPADDQ, lo[i], _cmem("pc", 8 * i))
            wh.append(tr.vop(VPADDQ, tr.vop(VPSRLQ, lp, 52), hi[i]))
            u.append(tr.vop(VPANDQ, lp, MB))
        for i in range(NZ):
            u[i] = tr.vop(VPADDQ, u[i], tr.vop(VALIGNQ, wh[i], wh[i - 1] if i else Z, 7))
        if op in HYBRID_OPS:
            tr.raw(MARK, "tail")                    # general-purpose registers from here on
        for vec, pred, reg in ((s, 6, rax), (s, 0, rcx), (u, 6, r8), (u, 0, r9)):
            ks = [k1, k2, k3]
            for i in range(NZ):
                tr.xop(VPCMPUQ, ks[i], vec[i], MB, pred)
            if vec is u and pred == 6:
                # lane ND: the explicit carry out of W's top digit
                _movi(tr, r10, 1 << (ND % 8))
                tr.raw(KMOVQ, k4, r10)
                tr.xop(VPCMPUQ, k5(k4), u[ND // 8], Z, 4)
                tr.raw(KORB, ks[ND // 8], ks[ND // 8], k5)
            if NZ >= 2:
                tr.raw(KUNPCKBW, k1, k2, k1)
            if NZ >= 3:
                tr.raw(KUNPCKWD, k1, k3, k1)
            tr.raw(KMOVD, reg.as_dword, k1)
        # cy = ((gy<<1)+py)^py ; cw likewise ; sel = bit ND of (cw|gw): carry out of W
        tr.raw(LEA, rax, [rcx + rax * 2])
        tr.raw(XOR, rax, rcx)
        tr.raw(MOV, r10, r8)
        tr.raw(LEA, r8, [r9 + r8 * 2])
        tr.raw(XOR, r8, r9)
        tr.raw(OR, r10, r8)
        tr.raw(BT, r10, ND)
        tr.raw(CMOVC, rax, r8)                       # carries of the selected value
        tr.raw(SBB, r10, r10)                        # all-ones: select W
        tr.raw(KMOVD, k6, r10.as_dword)
        tr.raw(KMOVD, k1, rax.as_dword)
        for i, (kr, gr) in enumerate(((k2, rcx), (k3, r9))[:NZ - 1]):
            tr.raw(MOV, gr, rax)
            tr.raw(SHR, gr, 8 * (i + 1))
            tr.raw(KMOVD, kr, gr.as_dword)
        xs = []
        for i in range(NZ):
            xv = tr.vop(VPBLENDMQ, s[i], u[i], mask=k6)
            if i == 0:
                ones = tr.new()
                tr.ops.append(_Op(VPTERNLOGQ, (ones, ones, ones, 0xFF), ones, None, []))
            xv = tr.vop(VPSUBQ, xv, ones, mask=[k1, k2, k3][i], tied=xv)
            xs.append(tr.vop(VPANDQ, xv, MB))
        outs = []
        for v in range(NW):
            parts = []
            for tt in range(3):
                idx = tr.vop(VMOVDQA64, _cmem("oi", 8 * (NW * tt + v)))
                pv = tr.vop(VPERMI2Q, xs[v], xs[v + 1] if v + 1 < NZ else Z, tied=idx)
                sins = VPSRLVQ if tt == 0 else VPSLLVQ
                parts.append(tr.vop(sins, pv, _cmem("os", 8 * (NW * tt + v))))
            outs.append(tr.vop(VPTERNLOGQ, parts[1], parts[2], 0xFE, tied=parts[0]))
        res.append(outs)
    for x in range(NX):
        base = 8 * NL * (x + (op in HYBRID_OPS))
        for v in range(NW):
            m = _mem(rdi, base + 64 * v)
            if 8 * v + 8 <= NL:
                tr.xop(VMOVDQU64, m, res[x][v])
            elif not PAGE_SAFE_TAIL:
                tr.xop(VMOVDQU64, MemoryOperand(m.address, 64, mask=k7), res[x][v])
            else:
                for o, size in pieces:
                    y = tr.vop(VALIGNQ, res[x][v], res[x][v], o) if o else res[x][v]
                    narrow_store(_mem(rdi, base + 64 * v + 8 * o), y, size)
    return tr, frame


def _regq(sh):
    """Quotient digits broadcast from registers (VPERMQ) instead of through the
    stack ({1to8} loads): the single-output Fp mul, latency-bound."""
    return sh.op == "fmul" and sh.regq


def _kmask(tr, sh, k, imm):
    """k = imm: through rax, or (the hybrid's half) from the "km" table."""
    if sh.op in HYBRID_OPS:
        tr.raw(KMOVQ, k, _cmem("km", sh.km_index[imm], 8))
    else:
        _movi(tr, rax, imm)
        tr.raw(KMOVQ, k, rax)


def _movi(tr, reg, imm):
    imm &= MASK64
    tr.raw(MOV, reg, imm - (1 << 64) if imm >> 63 else imm)


def _STST():
    return VMOVDQA64 if ALIGN_STACK else VMOVDQU64


def _tsum(tr, vs):
    vs = list(vs)
    while len(vs) > 1:
        nxt = []
        for i in range(0, len(vs) - 1, 2):
            nxt.append(tr.vop(VPADDQ, vs[i], vs[i + 1]))
        if len(vs) % 2:
            nxt.append(vs[-1])
        vs = nxt
    return vs[0]


def allocated(sh, op, opts=((False, False),)):
    """(code, frame) of the kernel traced and allocated in the first form that
    fits the 32 zmm registers: each of opts ((direct, regq): the Fp mul's
    register-hungry options, in order) with 3..1 product chains."""
    tries = [(o, na) for o in dict.fromkeys(opts) for na in range(NA_PROD, 0, -1)]
    for i, ((sh.direct, sh.regq), na) in enumerate(tries):
        tr, frame = _build(sh, na, op)
        try:
            return tr.allocate(), frame
        except _OutOfRegisters:
            if i == len(tries) - 1:
                raise


def _emit(fa, op, reuse=None, sqr_entry=False):
    """(GAS text, tables) of one kernel; reuse: (label tag, tables) of a
    kernel of the same file whose equal tables this one reads instead of
    its own copies (Tables.rodata). sqr_entry (the Fp mul only): a second
    function fg_NAME_sqr_ifma(r, a) after it, the same code with b = a (its
    first instruction copies a's pointer into b's register, rdx), reading
    the same tables."""
    sh = _Shape(fa, op)
    tabs = _tables(sh)
    sh.tabs = tabs                  # the conversion reads its shift counts from them
    # register-hungry options of the Fp mul first, with 3..1 product chains
    opts = [(True, True), (False, True), (False, False)] if op == "fmul" else [(False, False)]
    opts = [(d and DIRECT_B, r and REGQ_FMUL) for d, r in opts]
    code, frame = allocated(sh, op, opts)
    args = [Argument(ptr(uint64_t), name="r"), Argument(ptr(const_uint64_t), name="a")]
    if op != "sqr":
        args.append(Argument(ptr(const_uint64_t), name="b"))
    fname = "fg_%s_mul_ifma" % sh.name if op == "fmul" else "fg_%s_fp2_%s_ifma" % (sh.name, op)
    entries = [(fname, tuple(args), False)]
    if sqr_entry:
        assert op == "fmul"
        entries.append(("fg_%s_sqr_ifma" % sh.name, tuple(args[:2]), True))
    texts = []
    for name, fargs, square in entries:
        fn = PhysicalFunction(name, fargs, target=TARGET)
        with fn:
            if square:
                MOV(rdx, rsi)               # b = a: the mul's code reads b through rdx
            if ALIGN_STACK:
                MOV(r11, rsp)
                SUB(rsp, frame + 64)
                AND(rsp, -64)
            else:
                SUB(rsp, frame + 8)
            for ins, ops in code:
                ins(*ops)
            if ALIGN_STACK:
                MOV(rsp, r11)
            else:
                ADD(rsp, frame + 8)
            VZEROUPPER()
            RETURN()
        texts.append(gas_text(fn))
    labels = _labels(sh)
    return (labels.rodata(tabs, align_each=True, reuse=reuse) + "\n" +
            "\n".join(labels.resolve(text) for text in texts)), tabs


def emit_fp2_mul(fa):
    """void fg_NAME_fp2_mul_ifma(fg_NAME_fp2 *r, const fg_NAME_fp2 *a, const fg_NAME_fp2 *b)"""
    assert supported(fa)
    return _emit(fa, "mul")[0]


def supported_mul(fa):
    """IFMA Fp mul (one product, one reduction) applies: Montgomery form,
    2^52 | p + 1, 1..16 limbs, Z < 2p for T <= (p-1)^2 2^SH (dispatched where
    choose_mul says)."""
    return supported(fa, "fmul")


def emit_mul(fa):
    """void fg_NAME_mul_ifma(uint64_t r[n], const uint64_t a[n], const uint64_t b[n]):
    r = a b / R mod p, canonical inputs and output (the Fp kernels' contract)."""
    assert supported_mul(fa)
    return _emit(fa, "fmul")[0]


def emit_fp2_sqr(fa):
    """void fg_NAME_fp2_sqr_ifma(fg_NAME_fp2 *r, const fg_NAME_fp2 *a): r = a^2"""
    assert supported_sqr(fa)
    return _emit(fa, "sqr")[0]


# ---------------------------------------------------------------------------
# which Fp2 op runs the IFMA kernel: a cost model over the generated code

# Instructions that bind the scalar kernels on the cores measured: the
# port-0/6 class of kernel_cost (ADC, SBB, ADCX, ADOX, CMOVcc, SETcc, shifts,
# rotates, bit tests).
# Vector and opmask instructions of an IFMA kernel (ports 0 and 5 for zmm).
_VEC = re.compile(r"^\s+[vk][a-z0-9]+\s")
# IFMA is chosen when (vector instructions of the IFMA kernel) < RATIO x
# (port-0/6 instructions of the scalar kernels the same op runs at adx):
# tuning.py IFMA_FP2_RATIO, research/tuning.md.
RATIO = tuning.IFMA_FP2_RATIO


def choose(fa, scalar_text):
    """(IFMA Fp2 mul, IFMA Fp2 sqr, their GAS texts): whether the ifma level
    runs each IFMA kernel, by the cost model above. scalar_text: the field's
    Montgomery kernels; the scalar Fp2 mul is three mul_wide and two redc,
    the scalar sqr two mul (the kernels the adx level dispatches to)."""
    if fa.fp2 is None or not supported(fa):
        return False, False, ""

    def kernel(op):
        return "fg_%s_%s_%s" % (fa.name, op, dict(fa.dispatch[op])["adx"])

    def p06(op):
        return kernel_cost.count(scalar_text, kernel(op), kernel_cost.P06)

    assert supported(fa)
    mul_text, mul_tabs = _emit(fa, "mul")
    vec = kernel_cost.count(mul_text, "fg_%s_fp2_mul_ifma" % fa.name, _VEC)
    use_mul = vec < RATIO * (3 * p06("mul_wide") + 2 * p06("redc"))
    use_sqr, sqr_text = False, ""
    if use_mul and supported_sqr(fa):       # the sqr gains less than the mul everywhere measured
        # in the same file as the mul's: its tables equal to the mul's are not emitted twice
        sqr_text = _emit(fa, "sqr", reuse=("ifma", mul_tabs))[0]
        vec = kernel_cost.count(sqr_text, "fg_%s_fp2_sqr_ifma" % fa.name, _VEC)
        use_sqr = vec < RATIO * 2 * p06("mul")
    return use_mul, use_sqr, (mul_text if use_mul else "") + ("\n" + sqr_text if use_sqr else "")


# Which fields' ifma level runs the IFMA Fp mul, under the zen tuning only:
# where its vector instructions < FMUL_RATIO x the 64x64 multiplications of
# the scalar mul the adx level runs (tuning.py IFMA_FMUL_RATIO).
FMUL_RATIO = tuning.IFMA_FMUL_RATIO
# The same kernel with b = a (fg_NAME_sqr_ifma) is the ifma level's squaring
# under the zen tuning where its vector instructions < FSQR_RATIO x the
# multiplications of the scalar sqr, and only where the mul is chosen too
# (tuning.py IFMA_FSQR_RATIO; research/tuning.md).
FSQR_RATIO = tuning.IFMA_FSQR_RATIO


def fmul_vector_count(fa, text=None):
    """The vector and opmask instructions of the IFMA Fp mul (its cost in the
    rules of choose_mul and x86_64_hybrid.chosen), counted once per field:
    kept on fa (text: the kernel's, when the caller has it)."""
    if getattr(fa, "ifma_fmul_vec", None) is None:
        fa.ifma_fmul_vec = kernel_cost.count(text or emit_mul(fa), "fg_%s_mul_ifma" % fa.name, _VEC)
    return fa.ifma_fmul_vec


def choose_mul(fa, scalar_text):
    """(whether the ifma level runs fg_NAME_mul_ifma under the zen tuning,
    whether it runs fg_NAME_sqr_ifma there, their GAS text or ""), by the
    rules above. scalar_text: the field's Montgomery kernels (the adx level's
    mul and sqr are counted; their Zen forms have the same products)."""
    if fa.form != "montgomery" or not supported_mul(fa):
        return False, False, ""

    def mults(op):
        return kernel_cost.count(scalar_text, "fg_%s_%s_%s" % (fa.name, op, dict(fa.dispatch[op])["adx"]),
                                 kernel_cost.MULTS)
    text = emit_mul(fa)
    vec = fmul_vector_count(fa, text)
    if vec >= FMUL_RATIO * mults("mul"):
        return False, False, ""
    if vec >= FSQR_RATIO * mults("sqr"):
        return True, False, text
    return True, True, _emit(fa, "fmul", sqr_entry=True)[0]
