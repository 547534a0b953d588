# SPDX-License-Identifier: MIT OR Apache-2.0
"""x86-64 kernels for pseudo-Mersenne primes p = 2^k - c, emitted with PeachPy.

Representation: n saturated 64-bit limbs, little-endian, 64(n-1) < k < 64n, value
canonical in [0, p).  The analysis provides c_fold = c * 2^s with s = 64n - k, so that
2^(64n) = c_fold (mod p), and guarantees c_fold < 2^31.

Levels (one PeachPy Function per kernel, ISA declared in target=):
  x86_64  MUL (rdx:rax) + ADD/ADC; product scanning (Comba) with a 3-word accumulator,
          squaring doubles each cross product before accumulating it.
  bmi2    MULX + ADD/ADC; the same product scanning, the multiplier reloaded into rdx.
  adx     MULX + ADCX/ADOX; operand scanning, one row per limb of a, the low halves
          on the CF chain and the high halves on the OF chain; squaring computes the
          cross products once (rows i<j) and then doubles (CF) and adds the squares
          (OF) in one pass; for n = 4 the cross products are three rows of disjoint
          words summed by two short ADD/ADC chains, and the doubling pass starts from
          an XOR so it does not wait on their flags (see _square_adx_regs4).
For n <= 4 (REG_LIMBS) the whole 2n-limb product and the reduction stay in registers;
above that the product lives in a stack frame and the reduction streams over it.
64x64 multiplies for n = 4, every level: mul 16 + 4 (fold) + 1 (IMUL top*c_fold; a
shift when c is a power of two) = 21, sqr 10 + 4 + 1 = 15 (one more IMUL, b*c, when
64n - k > 1).

Reduction of t < 2^(128n) (the same at every level):
  1. fold:   u = t_lo + c_fold * t_hi               (n MULs, u < (c_fold + 1) 2^(64n))
  2. split:  q = u >> k = top 2^s + b (b: the bits of limb n-1 at and above k%64),
             u' = u mod 2^k, v = u' + q*c < 2p.
  3. select: v >= p exactly when limbs 1..n-2 of u' are all ones, the low k%64 bits of
             limb n-1 are all ones (A), and u'_0 + q*c + c carries out of limb 0; v - p
             is then that low word with all other limbs zero.
  n = 2..4 (registers, _select_regs): q*c = top*c_fold + b*c, so the IMUL waits only
  for the top word and the b term only for limb n-1 (no SHLD on the path); the carry
  out of u'_0 + q*c + (A ? c : 0) alone selects, by one CMOV per limb, between
  (u'_0 + q*c, u'_1..) and (that sum, u'_1.. + 1 with bit k%64 cleared, which is zero
  when A): no carry ripples after q*c, only two ADDs and the CMOVs.
  n = 1 and n > 4: SHLD for q, IMULs of q and q+1 by c side by side, the all-ones test
  (AND of limbs) ready before q*c, then ADD, ADC and one CMOV per limb (n = 1: BTR on
  bit k of v + c).  Branch-free, canonical output.
All bounds are asserted here with Python integers for the given prime.

Every kernel reads all of its inputs before it writes any output, so every aliasing of
the pointers is allowed; only unaligned-safe scalar loads and stores are used; no branch
or memory index depends on data; DF is never touched; callee-saved registers are saved by
PeachPy's prologue (it pushes the ones that the body writes).
"""

import peachpy
import peachpy.x86_64.abi
from peachpy import Argument, ptr, uint64_t, const_uint64_t
from peachpy.x86_64 import (Function, uarch, isa, LOAD, RETURN, MOV, ADD, ADC, SUB,
                            ADCX, ADOX, MUL, MULX, IMUL, XOR, SHLD, AND, BTR, CMOVC, LEA, SBB,
                            qword, SHL, SHR, SAR, OR)
from peachpy.x86_64.registers import (rax, rbx, rcx, rdx, rsi, rdi, rbp, rsp,
                                      r8, r9, r10, r11, r12, r13, r14, r15,
                                      GeneralPurposeRegister64)

from .gas import finish_function
from . import tuning

LEVELS = ("x86_64", "bmi2", "adx")
OPS = ("mul_wide", "sqr_wide", "redc", "mul", "sqr")
# the lazy products (FieldAnalysis.lazy_pm): mul and sqr without the select,
# operands any values below 2^(64n), the result v = u' + q*c of step 2 below
# (< 2p), the same value as the C kernel's redc_split
LAZY_OPS = ("mul_lazy", "sqr_lazy")

# Up to this many limbs the product (2n words) and the reduction live in registers.
REG_LIMBS = 4

# Allocation order: caller-saved registers first (no push/pop), then callee-saved.
# rdx (MULX source / MUL high half) and rsp are never handed out; rax neither at the
# x86_64 level (MUL low half).
_ALLOC_ORDER = (rcx, r8, r9, r10, r11, rax, rsi, rdi, rdx, rbx, rbp, r12, r13, r14, r15)


def _targets():
    return {
        "x86_64": uarch.default,
        "bmi2": uarch.default + isa.bmi2,
        "adx": uarch.default + isa.bmi2 + isa.adx,
    }


def _is_reg(x):
    return isinstance(x, GeneralPurposeRegister64)


def _limb(base, i):
    """Memory operand of 64-bit limb i at address base."""
    return qword[base + 8 * i] if i else qword[base]


class _Regs:
    """Deterministic register pool; callers name registers by role."""

    def __init__(self, reserved):
        self._free = [r for r in _ALLOC_ORDER if r not in reserved]

    def take(self, reg):
        self._free.remove(reg)
        return reg

    def get(self):
        if not self._free:
            raise RuntimeError("x86_64_pm: out of registers")
        return self._free.pop(0)

    def put(self, *regs):
        for reg in regs:
            if _is_reg(reg):
                assert reg not in self._free and reg in _ALLOC_ORDER
                self._free.append(reg)
        self._free.sort(key=_ALLOC_ORDER.index)


class _Builder:
    """Emits the body of one kernel for one field at one level."""

    def __init__(self, fa, level, tune="generic", lazy=False):
        self.n = fa.n
        self.lazy = lazy                           # stop after step 2 (LAZY_OPS)
        self.zen = tune == "zen"                   # the Zen form (ZEN_FORMS)
        self.k = fa.k
        self.c = fa.c
        self.c_fold = fa.c_fold
        self.level = level
        self.mulx = level in ("bmi2", "adx")
        self.adx = level == "adx"
        self.in_regs = self.n <= REG_LIMBS
        self.shift = 64 * self.n - self.k          # s: 2^(64n) = 2^s * 2^k
        self.top_bits = 64 - self.shift            # bits of p's top limb
        reserved = {rdx} if self.mulx else {rdx, rax}
        # Argument registers are occupied on entry; their owners release them.
        self.regs = _Regs(reserved | {rdi, rsi})
        self.frame = 0
        self.released = set()           # input pointers a product already gave back

    # ---- frame ------------------------------------------------------------------
    def open_frame(self, slots):
        self.frame = 8 * slots
        if self.frame:
            SUB(rsp, self.frame)

    def close_frame(self):
        if self.frame:
            ADD(rsp, self.frame)

    def slot(self, i):
        return _limb(rsp, i)

    def stack_limbs(self, first, count):
        return [self.slot(first + i) for i in range(count)]

    def move_off_rdx(self):
        """Third argument arrives in rdx, which the multiplies need."""
        reg_ptr = self.regs.get()
        MOV(reg_ptr, rdx)
        return reg_ptr

    # ---- products ---------------------------------------------------------------
    def product(self, reg_a, reg_b, square):
        """2n-limb a*b (a*a when square); list of 2n locations (registers or stack)."""
        if self.adx and square:
            if self.in_regs:
                return self._square_adx_regs(reg_a)
            return self._square_adx_stack(reg_a)
        if self.adx and not square:
            if self.in_regs:
                return self._product_adx_regs(reg_a, reg_b)
            return self._product_adx_stack(reg_a, reg_b)
        return self._product_comba(reg_a, reg_b, square)

    def _mul_pair(self, reg_a, i, reg_b, j, reg_lo, reg_hi):
        """(hi:lo) = a[i] * b[j]; returns the registers holding lo and hi."""
        if self.mulx:
            MOV(rdx, _limb(reg_a, i))
            if reg_b is reg_a and i == j:
                MULX(reg_hi, reg_lo, rdx)
            else:
                MULX(reg_hi, reg_lo, _limb(reg_b, j))
            return reg_lo, reg_hi
        MOV(rax, _limb(reg_a, i))
        if reg_b is reg_a and i == j:
            MUL(rax)
        else:
            MUL(_limb(reg_b, j))
        return rax, rdx

    def _product_comba(self, reg_a, reg_b, square):
        """Product scanning: column sums in a 3-word accumulator (acc0, acc1, acc2).

        Square: off-diagonal products are doubled (hi:lo += hi:lo) before accumulation.
        """
        n = self.n
        if square:
            reg_b = reg_a
        out = [None] * (2 * n)
        reg_lo = reg_hi = None
        if self.mulx:
            reg_lo, reg_hi = self.regs.get(), self.regs.get()
        acc0 = acc1 = acc2 = None
        for col in range(2 * n - 1):
            pairs = [(i, col - i) for i in range(max(0, col - n + 1), min(col, n - 1) + 1)]
            if square:
                pairs = [(i, j) for (i, j) in pairs if i <= j]
            last_col = col == 2 * n - 2
            for (i, j) in pairs:
                lo, hi = self._mul_pair(reg_a, i, reg_b, j, reg_lo, reg_hi)
                double = square and i != j
                if acc0 is None:
                    # column 0: the single product a0*b0 initialises the accumulator
                    assert col == 0 and not double
                    acc0, acc1 = self.regs.get(), self.regs.get()
                    MOV(acc0, lo)
                    MOV(acc1, hi)
                    continue
                if acc1 is None:
                    acc1 = self.regs.get()
                    MOV(acc1, 0)
                if acc2 is None and not last_col:
                    acc2 = self.regs.get()
                    MOV(acc2, 0)
                if double:
                    ADD(lo, lo)
                    ADC(hi, hi)
                    ADC(acc2, 0)
                ADD(acc0, lo)
                ADC(acc1, hi)
                if not last_col:
                    ADC(acc2, 0)
            # column done: acc0 is limb col; shift the accumulator down one word
            out[col] = self._retire(acc0, col)
            acc0, acc1, acc2 = acc1, acc2, None
        out[2 * n - 1] = self._retire(acc0, 2 * n - 1)
        assert acc1 is None
        self.regs.put(reg_lo, reg_hi)
        return out

    def _retire(self, reg, index):
        """Keep a finished product limb in its register, or store it in the frame."""
        if self.in_regs:
            return reg
        MOV(self.slot(index), reg)
        self.regs.put(reg)
        return self.slot(index)

    def _product_adx_regs(self, reg_a, reg_b):
        """Operand scanning, all 2n words in registers.

        Row i adds a[i]*b into t[i..i+n]: lo(a[i]*b[j]) on the CF chain into t[i+j],
        hi(a[i]*b[j]) on the OF chain into t[i+j+1]; XOR of the new top word clears both.
        """
        n = self.n
        t = [None] * (2 * n)
        reg_lo, reg_hi = self.regs.get(), self.regs.get()
        # row 0: t[0..n] = a[0] * b
        MOV(rdx, _limb(reg_a, 0))
        t[0], t[1] = self.regs.get(), self.regs.get()
        MULX(t[1], t[0], _limb(reg_b, 0))
        for j in range(1, n):
            t[j + 1] = self.regs.get()
            MULX(t[j + 1], reg_lo, _limb(reg_b, j))
            (ADD if j == 1 else ADC)(t[j], reg_lo)
        if n > 1:
            ADC(t[n], 0)
        # rows 1..n-1
        for i in range(1, n):
            t[i + n] = self.regs.get()
            XOR(t[i + n], t[i + n])
            MOV(rdx, _limb(reg_a, i))
            for j in range(n):
                MULX(reg_hi, reg_lo, _limb(reg_b, j))
                ADCX(t[i + j], reg_lo)
                ADOX(t[i + j + 1], reg_hi)
            ADC(t[i + n], 0)
        self.regs.put(reg_lo, reg_hi)
        return t

    def _product_adx_stack(self, reg_a, reg_b):
        """Operand scanning over the stack frame (any n): each step is
        lo + hi(previous) on OF, + t[i+j] on CF, stored back."""
        n = self.n
        t = self.stack_limbs(0, 2 * n)
        reg_lo, reg_hi, reg_carry, reg_zero = (self.regs.get() for _ in range(4))
        for i in range(n):
            XOR(reg_zero, reg_zero)                      # zero, CF = OF = 0
            MOV(rdx, _limb(reg_a, i))
            for j in range(n):
                MULX(reg_hi, reg_lo, _limb(reg_b, j))
                if j > 0:
                    ADOX(reg_lo, reg_carry)
                if i > 0:
                    ADCX(reg_lo, t[i + j])
                MOV(t[i + j], reg_lo)
                reg_carry, reg_hi = reg_hi, reg_carry
            ADOX(reg_carry, reg_zero)
            if i > 0:
                ADCX(reg_carry, reg_zero)
            MOV(t[i + n], reg_carry)
        self.regs.put(reg_lo, reg_hi, reg_carry, reg_zero)
        return t

    def _square_adx_stack(self, reg_a):
        """Squaring over the stack frame (any n >= 2): the cross products
        sum_{i<j} a_i a_j by memory rows (row i covers t[2i+1..i+n]), then one pass
        t = 2*cross + diagonal (doubling on CF, squares on OF)."""
        n = self.n
        t = self.stack_limbs(0, 2 * n)
        reg_lo, reg_hi, reg_carry, reg_zero = (self.regs.get() for _ in range(4))
        for i in range(n - 1):
            XOR(reg_zero, reg_zero)                      # zero, CF = OF = 0
            MOV(rdx, _limb(reg_a, i))
            for j in range(i + 1, n):
                MULX(reg_hi, reg_lo, _limb(reg_a, j))
                if j > i + 1:
                    ADOX(reg_lo, reg_carry)
                if i > 0:
                    ADCX(reg_lo, t[i + j])
                MOV(t[i + j], reg_lo)
                reg_carry, reg_hi = reg_hi, reg_carry
            ADOX(reg_carry, reg_zero)
            if i > 0:
                ADCX(reg_carry, reg_zero)
            MOV(t[i + n], reg_carry)
        # the cross sum is < 2^(64(2n-1)): t[2n-1] is zero, t[0] is not part of it
        XOR(reg_zero, reg_zero)
        for i in range(n):
            MOV(rdx, _limb(reg_a, i))
            MULX(reg_hi, reg_lo, rdx)
            if i == 0:
                MOV(t[0], reg_lo)
            else:
                MOV(reg_carry, t[2 * i])
                ADCX(reg_carry, reg_carry)
                ADOX(reg_carry, reg_lo)
                MOV(t[2 * i], reg_carry)
            if i < n - 1:
                MOV(reg_carry, t[2 * i + 1])
                ADCX(reg_carry, reg_carry)
                ADOX(reg_carry, reg_hi)
                MOV(t[2 * i + 1], reg_carry)
            else:
                ADCX(reg_hi, reg_zero)
                ADOX(reg_hi, reg_zero)
                MOV(t[2 * i + 1], reg_hi)
        self.regs.put(reg_lo, reg_hi, reg_carry, reg_zero)
        return t

    def _square_adx_regs(self, reg_a):
        """Squaring in registers, a[1..n-1] loaded once (the pointer register is
        reused).  a0^2 is computed first, its high half parked in the top word t[2n-1]
        (free until the end); then the cross products sum_{i<j} a_i a_j row by row
        (CF/OF chains); then t = 2*cross + diagonal with the doubling on CF and the
        squares on OF."""
        n = self.n
        t = [None] * (2 * n)
        if n == 1:
            MOV(rdx, _limb(reg_a, 0))
            t[0], t[1] = self.regs.get(), self.regs.get()
            MULX(t[1], t[0], rdx)
            self.regs.put(reg_a)
            self.released.add(reg_a)
            return t
        if n == 4:
            return self._square_adx_regs4(reg_a)
        a = [None] * n
        for j in range(1, n):
            a[j] = self.regs.get()
            MOV(a[j], _limb(reg_a, j))
        MOV(rdx, _limb(reg_a, 0))
        self.regs.put(reg_a)                             # the pointer is not needed again
        self.released.add(reg_a)
        reg_lo, reg_hi = self.regs.get(), self.regs.get()
        t[0], t[2 * n - 1] = self.regs.get(), self.regs.get()
        MULX(t[2 * n - 1], t[0], rdx)                   # a0^2; hi parked in the top word
        # row 0: t[1..n] = a[0] * a[1..n-1]
        t[1], t[2] = self.regs.get(), self.regs.get()
        MULX(t[2], t[1], a[1])
        for j in range(2, n):
            t[j + 1] = self.regs.get()
            MULX(t[j + 1], reg_lo, a[j])
            (ADD if j == 2 else ADC)(t[j], reg_lo)
        if n > 2:
            ADC(t[n], 0)
        # rows 1..n-2: t[2i+1..i+n] += a[i] * a[i+1..n-1]
        for i in range(1, n - 1):
            t[i + n] = self.regs.get()
            XOR(t[i + n], t[i + n])
            MOV(rdx, a[i])
            for j in range(i + 1, n):
                MULX(reg_hi, reg_lo, a[j])
                ADCX(t[i + j], reg_lo)
                ADOX(t[i + j + 1], reg_hi)
            ADC(t[i + n], 0)
        # diagonal: the cross sum is < 2^(64(2n-1)), so its top word is zero
        XOR(reg_lo, reg_lo)                              # CF = OF = 0
        ADCX(t[1], t[1])
        ADOX(t[1], t[2 * n - 1])
        for i in range(1, n):
            MOV(rdx, a[i])
            if i < n - 1:
                MULX(reg_hi, reg_lo, rdx)
            else:
                MULX(t[2 * n - 1], reg_lo, rdx)
            ADCX(t[2 * i], t[2 * i])
            ADOX(t[2 * i], reg_lo)
            if i < n - 1:
                ADCX(t[2 * i + 1], t[2 * i + 1])
                ADOX(t[2 * i + 1], reg_hi)
            else:
                MOV(reg_hi, 0)                           # MOV keeps the flags
                ADCX(t[2 * i + 1], reg_hi)
                ADOX(t[2 * i + 1], reg_hi)
        self.regs.put(reg_lo, reg_hi, *a[1:])
        return t

    def _square_adx_regs4(self, reg_a):
        """Four-limb squaring in registers.  Only column 3 of the cross sum has two
        products, so the six cross products form three rows of disjoint words:
        A = a0a1 + a0a3 B^2 + a2a3 B^4 (no additions), B = a0a2 B + a1a3 B^3 and
        C = a1a2 B^2; A + B is one ADD/ADC chain, + C a second short one.  The doubling
        pass (CF) with the squares (OF) starts from an XOR, so it has no flag dependency
        on those chains and runs column by column as the cross words become final
        (a row-by-row ADCX/ADOX scheme serialises every row on the flags)."""
        t = [None] * 8
        a = [None] * 4
        for j in range(1, 4):
            a[j] = self.regs.get()
            MOV(a[j], _limb(reg_a, j))
        MOV(rdx, _limb(reg_a, 0))
        self.regs.put(reg_a)                             # the pointer is not needed again
        self.released.add(reg_a)
        t[0], reg_d0h = self.regs.get(), self.regs.get()
        MULX(reg_d0h, t[0], rdx)                         # a0^2
        x = [None] * 7
        x[1], x[2] = self.regs.get(), self.regs.get()
        MULX(x[2], x[1], a[1])                           # A: a0a1
        reg_lo, reg_hi = self.regs.get(), self.regs.get()
        MULX(reg_hi, reg_lo, a[2])                       # B: a0a2
        x[3], x[4] = self.regs.get(), self.regs.get()
        MULX(x[4], x[3], a[3])                           # A: a0a3
        ADD(x[2], reg_lo)
        ADC(x[3], reg_hi)
        MOV(rdx, a[1])
        MULX(reg_hi, reg_lo, a[3])                       # B: a1a3
        ADC(x[4], reg_lo)
        MOV(rdx, a[2])
        x[5], x[6] = self.regs.get(), self.regs.get()
        MULX(x[6], x[5], a[3])                           # A: a2a3
        ADC(x[5], reg_hi)
        ADC(x[6], 0)
        MOV(rdx, a[1])
        MULX(reg_hi, reg_lo, a[2])                       # C: a1a2
        ADD(x[3], reg_lo)
        ADC(x[4], reg_hi)
        ADC(x[5], 0)
        ADC(x[6], 0)                                     # the cross sum is < B^7
        # t = 2*cross + diagonal: doubling on CF, squares on OF
        XOR(reg_lo, reg_lo)
        ADCX(x[1], x[1])
        ADOX(x[1], reg_d0h)
        self.regs.put(reg_d0h)
        MOV(rdx, a[1])
        MULX(reg_hi, reg_lo, rdx)                        # a1^2
        ADCX(x[2], x[2])
        ADOX(x[2], reg_lo)
        ADCX(x[3], x[3])
        ADOX(x[3], reg_hi)
        self.regs.put(a[1])
        # a2^2 and a3^2 both before word 4 (measured 1-2 cycles faster than each
        # square just before its two words, Xeon 2026-11-30); the Zen form
        # (ZEN_FORMS) takes a3^2 after words 4 and 5
        def words_4_5():
            ADCX(x[4], x[4])
            ADOX(x[4], reg_lo)
            ADCX(x[5], x[5])
            ADOX(x[5], reg_hi)
        MOV(rdx, a[2])
        MULX(reg_hi, reg_lo, rdx)                        # a2^2
        self.regs.put(a[2])
        if self.zen:
            words_4_5()
        MOV(rdx, a[3])
        reg_l3, t[7] = self.regs.get(), self.regs.get()
        MULX(t[7], reg_l3, rdx)                          # a3^2
        self.regs.put(a[3])
        if not self.zen:
            words_4_5()
        ADCX(x[6], x[6])
        ADOX(x[6], reg_l3)
        MOV(reg_hi, 0)                                   # MOV keeps the flags
        ADCX(t[7], reg_hi)
        ADOX(t[7], reg_hi)
        self.regs.put(reg_lo, reg_hi, reg_l3)
        t[1:7] = x[1:7]
        return t

    # ---- reduction --------------------------------------------------------------
    def check_bounds(self, p):
        """The reduction's bounds for this prime, with Python integers."""
        n, k, c, c_fold = self.n, self.k, self.c, self.c_fold
        if not (p == 2 ** k - c and 64 * (n - 1) < k < 64 * n and 0 < c):
            raise ValueError("x86_64_pm: p is not 2^k - c with 64(n-1) < k < 64n")
        if not (c_fold == c << self.shift and c_fold < 2 ** 31):
            raise ValueError("x86_64_pm: c_fold = c * 2^(64n-k) = %d is not below 2^31" % c_fold)
        u_max = (2 ** (64 * n) - 1) * (c_fold + 1)       # after the fold
        assert u_max >> (64 * n) <= c_fold               # top word fits one register
        q_max = u_max >> k
        assert q_max * c + c < 2 ** 63                   # q*c and q*c + c in one word
        v_max = (2 ** k - 1) + q_max * c
        assert v_max < 2 * p                             # one subtraction is enough
        assert v_max + c < 2 ** (64 * n)                 # chain B does not overflow

    def reduce(self, t, reg_r):
        """r = t mod p, canonical; t is a list of 2n locations (registers or memory)."""
        if self.in_regs:
            self._reduce_regs(t, reg_r)
        else:
            self._reduce_stack(t, reg_r)

    def _fold_step_regs(self, u, t):
        """u[0..n-1] += c_fold * t[n..2n-1]; returns the top word (<= c_fold)."""
        n = self.n
        if self.adx and n > 1:                           # one limb: ADC is shorter
            MOV(rdx, self.c_fold)
            reg_zero = self.regs.get()
            XOR(reg_zero, reg_zero)                      # CF = OF = 0
            self.regs.put(reg_zero)                      # (the register is free again)
            reg_carry = None
            for i in range(n):
                reg_lo, reg_hi = self.regs.get(), self.regs.get()
                MULX(reg_hi, reg_lo, t[n + i])
                self.regs.put(t[n + i])
                # hi of the previous (earlier ready) product first, so that the last
                # limb waits only for one add after its multiply
                if reg_carry is not None:
                    ADOX(u[i], reg_carry)
                    self.regs.put(reg_carry)
                ADCX(u[i], reg_lo)
                self.regs.put(reg_lo)
                reg_carry = reg_hi
            reg_zero = self.regs.get()
            MOV(reg_zero, 0)                             # MOV keeps the flags
            ADOX(reg_carry, reg_zero)
            ADCX(reg_carry, reg_zero)
            self.regs.put(reg_zero)
            return reg_carry
        # one carry word: u[i] += lo_i + carry; carry = hi_i + carries (hi_i < 2^31)
        if self.mulx:
            MOV(rdx, self.c_fold)
        reg_carry = None
        for i in range(n):
            if self.mulx:
                reg_lo, reg_hi = self.regs.get(), self.regs.get()
                MULX(reg_hi, reg_lo, t[n + i])
            else:
                MOV(rax, self.c_fold)
                MUL(t[n + i])
                reg_lo, reg_hi = rax, rdx
            self.regs.put(t[n + i])
            ADD(u[i], reg_lo)
            ADC(reg_hi, 0)
            if reg_carry is not None:
                ADD(u[i], reg_carry)
                ADC(reg_hi, 0)
            if self.mulx:
                self.regs.put(reg_lo, reg_carry)
                reg_carry = reg_hi
            else:
                if reg_carry is None:
                    reg_carry = self.regs.get()
                MOV(reg_carry, rdx)
        return reg_carry

    def _mul_const(self, reg, const):
        """reg *= const (small positive constant): a shift when const is a power of 2."""
        if const & (const - 1) == 0:
            if const > 1:
                SHL(reg, const.bit_length() - 1)
        else:
            IMUL(reg, reg, const)

    def _split(self, reg_top, reg_hi_limb):
        """u = top*2^(64n) + limbs, limb n-1 in reg_hi_limb.  reg_top <- q*c where
        q = u >> k; bits >= k of limb n-1 are cleared.  Returns a register holding
        q*c + c (None in a lazy kernel, which does not select)."""
        SHLD(reg_top, reg_hi_limb, self.shift)          # q = u >> k (< 2^(s+31))
        if self.shift == 1:
            BTR(reg_hi_limb, 63)
        else:
            SHL(reg_hi_limb, self.shift)
            SHR(reg_hi_limb, self.shift)
        if self.lazy:
            self._mul_const(reg_top, self.c)
            return None
        reg_qc1 = self.regs.get()
        if self.c & (self.c - 1) == 0:
            self._mul_const(reg_top, self.c)
            LEA(reg_qc1, [reg_top + self.c])
        else:
            # (q + 1) * c beside q * c: the two IMULs overlap, so q*c + c is ready one
            # cycle after q*c instead of after q*c and a dependent LEA
            LEA(reg_qc1, [reg_top + 1])
            self._mul_const(reg_top, self.c)
            self._mul_const(reg_qc1, self.c)
        return reg_qc1

    def _top_all_ones(self, reg_dst, limbs):
        """reg_dst <- all-ones iff limbs[1..n-2] are all-ones and the low k%64 bits
        of limbs[n-1] are all ones (i.e. u' = 2^k - 2^64 + u'_0: v >= p is then
        decided by the carry out of limb 0 alone).  Needs n >= 2."""
        n = self.n
        MOV(reg_dst, limbs[n - 1])
        SHL(reg_dst, self.shift)
        OR(reg_dst, (1 << self.shift) - 1)
        for i in range(1, n - 1):
            AND(reg_dst, limbs[i])

    def _reduce_regs(self, t, reg_r):
        n = self.n
        u = []
        for i in range(n):
            if _is_reg(t[i]):
                u.append(t[i])
            else:
                u.append(self.regs.get())
                MOV(u[i], t[i])
        reg_top = self._fold_step_regs(u, t)
        # no multiply-by-register is left: rdx (and rax at the x86_64 level) are free
        self.regs.put(rdx)
        if not self.mulx:
            self.regs.put(rax)
        if n == 1 and self.lazy:
            self._split(reg_top, u[0])
            ADD(u[0], reg_top)                           # v < 2p
            self.regs.put(reg_top)
        elif self.lazy:
            self._lazy_regs(u, reg_top)
        elif n == 1:
            reg_qc1 = self._split(reg_top, u[0])
            reg_b0 = self.regs.get()
            MOV(reg_b0, u[0])
            ADD(u[0], reg_top)                           # v
            ADD(reg_b0, reg_qc1)                         # v + c
            BTR(reg_b0, self.top_bits)                   # CF = (v >= p); v + c - 2^k
            CMOVC(u[0], reg_b0)
            self.regs.put(reg_top, reg_qc1, reg_b0)
        else:
            self._select_regs(u, reg_top)
        for i in range(n):
            MOV(_limb(reg_r, i), u[i])
        self.regs.put(*u)

    def _lazy_regs(self, u, reg_top):
        """u <- u' + q c (below 2p, not canonical), n >= 2 limbs in registers: the
        q c of _select_regs (top c_fold + b c, b = u_{n-1} >> (64-s)), added to
        u' = u mod 2^k by one ADD/ADC chain; no select."""
        n, c, s = self.n, self.c, self.shift
        self._mul_const(reg_top, self.c_fold)            # X = top * c_fold
        reg_y = self.regs.get()
        MOV(reg_y, u[n - 1])
        if s == 1:
            SAR(reg_y, 63)
            AND(reg_y, c)
        else:
            SHR(reg_y, 64 - s)
            self._mul_const(reg_y, c)                    # Y = c * b
        if s == 1:
            BTR(u[n - 1], 63)
        else:
            SHL(u[n - 1], s)
            SHR(u[n - 1], s)
        ADD(reg_y, reg_top)                              # q c
        ADD(u[0], reg_y)
        for i in range(1, n):
            ADC(u[i], 0)
        self.regs.put(reg_top, reg_y)

    def _select_regs(self, u, reg_top):
        """u <- (u + top 2^(64n)) mod p, canonical, for n >= 2 limbs in registers.

        q = u >> k = top 2^s + b with b = u_{n-1} >> (64-s), so q c = top c_fold + b c:
        the multiply waits only for top, the b term only for u_{n-1} (no SHLD on the
        path).  With u' = u mod 2^k and v = u' + q c < 2p, the result is v or v - p.
        A = "u'_1..u'_{n-1} are all ones" (u' = 2^k - 2^64 + u'_0):
          v >= p   <=>  A and u'_0 + q c + c carries out of limb 0,
        and then v - p = (low word of u'_0 + q c + c, 0, ..., 0).  Otherwise v is
        (u'_0 + q c, u'_1.. + carry).  Both cases are one carry-select on one flag:
          s = carry out of u'_0 + q c + (A ? c : 0);
          limb 0 = s ? u'_0 + q c + (A ? c : 0) : u'_0 + q c,
          limbs 1.. = s ? w : u'_1..  where w = (u'_1..u'_{n-1}) + 1 with bit k-64(n-1)
          of its top limb cleared (w is zero when A, u'_1.. + 1 otherwise).
        No carry ripples after q c: two ADDs and a CMOV.  The A test needs only one
        ADD after u_{n-1} << s: K = (u_1 & .. & u_{n-2} all ones) ? 2^s : 0 is ready
        before, and (u_{n-1} << s) + K carries out exactly when A."""
        n, c, s = self.n, self.c, self.shift
        hi_bits = 64 - s                                 # bits of p's top limb
        self._mul_const(reg_top, self.c_fold)            # X = top * c_fold
        # K = 2^s if u_1..u_{n-2} are all ones, else 0 (n = 2: always 2^s)
        reg_k = None
        if n > 2:
            reg_p = self.regs.get()
            MOV(reg_p, u[1])
            for i in range(2, n - 1):
                AND(reg_p, u[i])
            reg_k = self.regs.get()
            if self.adx and not self.zen:
                ADD(reg_p, 1)                            # CF = all ones
                SBB(reg_k, reg_k)
                AND(reg_k, 1 << s)
            else:
                # the same by CMOV: measured faster at these levels (redc bmi2 latency
                # 22.0 -> 17.6 cycles, throughput 22.9 -> 14.6), slower at adx (sqr
                # 34.8 -> 36.5, the Xeon of 11-30); the adx Zen form takes it
                # (ZEN_FORMS: the Zen 4's squaring throughput -1.1..-2.9%,
                # latency unchanged; the mul's latency +2.3% there, so not it)
                reg_r = self.regs.get()
                MOV(reg_k, 0)
                MOV(reg_r, 1 << s)
                ADD(reg_p, 1)                            # CF = all ones
                CMOVC(reg_k, reg_r)
                self.regs.put(reg_r)
            self.regs.put(reg_p)
        reg_sh = self.regs.get()
        MOV(reg_sh, u[n - 1])
        # Y = c * b, Y + c
        reg_y, reg_yc = self.regs.get(), self.regs.get()
        MOV(reg_y, u[n - 1])
        if s == 1:
            SAR(reg_y, 63)
            AND(reg_y, c)
        else:
            SHR(reg_y, hi_bits)
            self._mul_const(reg_y, c)
        LEA(reg_yc, [reg_y + c])
        SHL(reg_sh, s)
        # YA = Y + (A ? c : 0)
        reg_ya = self.regs.get()
        MOV(reg_ya, reg_y)
        if reg_k is not None:
            ADD(reg_sh, reg_k)                           # CF = A
            self.regs.put(reg_k)
        else:
            ADD(reg_sh, 1 << s)
        CMOVC(reg_ya, reg_yc)
        self.regs.put(reg_sh, reg_yc)
        # u' = u mod 2^k
        if s == 1:
            BTR(u[n - 1], 63)
        else:
            SHL(u[n - 1], s)
            SHR(u[n - 1], s)
        # w = (u'_1..u'_{n-1}) + 1, top bit hi_bits cleared
        w = [self.regs.get() for _ in range(1, n)]
        for i in range(1, n):
            MOV(w[i - 1], u[i])
        self._add_small(w, 1)
        BTR(w[-1], hi_bits)
        ADD(reg_y, reg_top)                              # q c
        ADD(reg_ya, reg_top)                             # q c + (A ? c : 0)
        reg_sum = self.regs.get()
        MOV(reg_sum, u[0])
        ADD(u[0], reg_y)                                 # low word of v
        ADD(reg_sum, reg_ya)                             # CF = s
        CMOVC(u[0], reg_sum)
        for i in range(1, n):
            CMOVC(u[i], w[i - 1])
        self.regs.put(reg_top, reg_y, reg_ya, reg_sum, *w)

    @staticmethod
    def _add_small(limbs, x):
        ADD(limbs[0], x)
        for reg in limbs[1:]:
            ADC(reg, 0)

    def _reduce_stack(self, t, reg_r):
        """Streaming version: u -> frame slots 0..n-2 (limb n-1 and the top word stay
        in registers), v -> r, then one select pass over r."""
        n = self.n
        u = self.stack_limbs(0, n)
        reg_x = self.regs.get()
        # 1. fold
        if self.adx:
            MOV(rdx, self.c_fold)
            reg_zero = self.regs.get()
            XOR(reg_zero, reg_zero)
            reg_lo, reg_hi, reg_carry = self.regs.get(), self.regs.get(), self.regs.get()
            for i in range(n):
                MULX(reg_hi, reg_lo, t[n + i])
                MOV(reg_x, t[i])
                if i > 0:
                    ADOX(reg_x, reg_carry)
                ADCX(reg_x, reg_lo)
                if i < n - 1:
                    MOV(u[i], reg_x)
                reg_carry, reg_hi = reg_hi, reg_carry
            ADOX(reg_carry, reg_zero)
            ADCX(reg_carry, reg_zero)
            self.regs.put(reg_zero, reg_lo, reg_hi)
        else:
            if self.mulx:
                MOV(rdx, self.c_fold)
                reg_lo, reg_hi = self.regs.get(), self.regs.get()
            reg_carry = self.regs.get()
            for i in range(n):
                if self.mulx:
                    MULX(reg_hi, reg_lo, t[n + i])
                    lo, hi = reg_lo, reg_hi
                else:
                    MOV(rax, self.c_fold)
                    MUL(t[n + i])
                    lo, hi = rax, rdx
                MOV(reg_x, t[i])
                ADD(reg_x, lo)
                ADC(hi, 0)
                if i > 0:
                    ADD(reg_x, reg_carry)
                    ADC(hi, 0)
                if i < n - 1:
                    MOV(u[i], reg_x)
                if self.mulx:
                    reg_carry, reg_hi = reg_hi, reg_carry
                else:
                    MOV(reg_carry, rdx)
            if self.mulx:
                self.regs.put(reg_lo, reg_hi)
        # t is not read again: r may be written from here on (it may alias t)
        # 2. split (reg_x holds limb n-1 of u)
        reg_qc = reg_carry
        reg_qc1 = self._split(reg_qc, reg_x)
        u[n - 1] = reg_x
        if self.lazy:
            # 3. r = v = u' + q*c (below 2p), and no select
            reg_y = self.regs.get()
            for i in range(n):
                src = u[i]
                if not _is_reg(src):
                    MOV(reg_y, src)
                    src = reg_y
                (ADD if i == 0 else ADC)(src, reg_qc if i == 0 else 0)
                MOV(_limb(reg_r, i), src)
            self.regs.put(reg_x, reg_qc, reg_y)
            return
        reg_ones = self.regs.get()
        self._top_all_ones(reg_ones, u)
        reg_b0 = self.regs.get()
        MOV(reg_b0, u[0])
        # 3. v = u' + q*c -> r
        reg_y = self.regs.get()
        for i in range(n):
            src = u[i]
            if not _is_reg(src):
                MOV(reg_y, src)
                src = reg_y
            (ADD if i == 0 else ADC)(src, reg_qc if i == 0 else 0)
            MOV(_limb(reg_r, i), src)
        # 4. CF = (v >= p); then r = v - p = (low word of u'_0 + q*c + c, 0, ..., 0)
        ADD(reg_b0, reg_qc1)
        ADC(reg_ones, 0)
        reg_zero = reg_qc1
        MOV(reg_zero, 0)                                 # MOV keeps CF
        for i in range(n):
            MOV(reg_y, _limb(reg_r, i))
            CMOVC(reg_y, reg_b0 if i == 0 else reg_zero)
            MOV(_limb(reg_r, i), reg_y)
        self.regs.put(reg_x, reg_qc, reg_qc1, reg_ones, reg_b0, reg_y)

    # ---- outputs ----------------------------------------------------------------
    def store_wide(self, t, reg_out):
        reg_x = None
        for i, loc in enumerate(t):
            if _is_reg(loc):
                MOV(_limb(reg_out, i), loc)
            else:
                if reg_x is None:
                    reg_x = self.regs.get()
                MOV(reg_x, loc)
                MOV(_limb(reg_out, i), reg_x)
        self.regs.put(reg_x, *[x for x in t if _is_reg(x)])


def _kernel(fa, level, op, tune="generic"):
    """PeachPy Function for fg_{name}_{op}_{level} (the Zen form:
    fg_{name}_{op}_adx_zen)."""
    name = "fg_%s_%s_%s" % (fa.name, op, level + ("_zen" if tune == "zen" else ""))
    arg_out = Argument(ptr(uint64_t), "r" if op in ("mul", "sqr", "redc") + LAZY_OPS else "t")
    if op == "redc":
        args = (arg_out, Argument(ptr(const_uint64_t), "t"))
    elif op in ("mul", "mul_wide", "mul_lazy"):
        args = (arg_out, Argument(ptr(const_uint64_t), "a"), Argument(ptr(const_uint64_t), "b"))
    else:
        args = (arg_out, Argument(ptr(const_uint64_t), "a"))
    with Function(name, args, target=_targets()[level]) as fn:
        bld = _Builder(fa, level, tune, lazy=op in LAZY_OPS)
        bld.check_bounds(fa.p)
        reg_out, reg_in = rdi, rsi                       # SysV: arguments 1 and 2
        LOAD.ARGUMENT(reg_out, args[0])
        LOAD.ARGUMENT(reg_in, args[1])
        reg_b = None
        if len(args) == 3:
            LOAD.ARGUMENT(rdx, args[2])
            reg_b = bld.move_off_rdx()
        n = fa.n
        # n > REG_LIMBS: product in frame slots 0..2n-1; the reduction reuses 0..n-2
        bld.open_frame(0 if bld.in_regs else 2 * n)
        if op == "redc":
            t = [_limb(reg_in, i) for i in range(2 * n)]
            bld.reduce(t, reg_out)
        else:
            t = bld.product(reg_in, reg_b, square=op.startswith("sqr"))
            bld.regs.put(*[x for x in (reg_in, reg_b) if x is not None and x not in bld.released])
            if op.endswith("_wide"):
                bld.store_wide(t, reg_out)
            else:
                bld.reduce(t, reg_out)
        bld.close_frame()
        RETURN()
    return fn


# The ops with a Zen form at adx (fg_NAME_OP_adx_zen, where its text differs
# from the adx kernel's), run under the zen tuning: tuning.py PM_ZEN_FORMS,
# research/tuning.md.
ZEN_FORMS = tuning.PM_ZEN_FORMS


def emit_pseudo_mersenne(fa):
    """GAS text of every pseudo-Mersenne kernel for field fa, all levels, and
    the Zen forms (ZEN_FORMS) where they differ; records those in fa.zen_forms."""
    abi = peachpy.x86_64.abi.system_v_x86_64_abi
    gas = lambda fn: finish_function(fn.finalize(abi).format(assembly_format="gas"))
    parts = []
    fa.zen_forms = []
    for level in LEVELS:
        for op in _ops(fa):
            text = gas(_kernel(fa, level, op))
            parts.append(text)
            if level == "adx" and op in ZEN_FORMS:
                zen = gas(_kernel(fa, level, op, "zen"))
                name = "fg_%s_%s_adx" % (fa.name, op)
                if zen != text.replace(name, name + "_zen"):
                    parts.append(zen)
                    fa.zen_forms.append(op)
    return "\n".join(parts)


def _ops(fa):
    return OPS + (LAZY_OPS if fa.lazy_pm else ())


def kernel_choice(fa):
    """(op, level) -> level whose kernel the dispatcher should call: the
    identity (measured: research/tuning.md, pm_kernel_choice)."""
    return {(op, level): level for op in _ops(fa) for level in LEVELS}


def kernel_choice_zen(fa):
    """({(op, "adx"): "adx_zen"} for the Zen forms emitted (ZEN_FORMS), {});
    otherwise the adx kernels (research/tuning.md)."""
    return {(op, "adx"): "adx_zen" for op in fa.zen_forms}, {}
