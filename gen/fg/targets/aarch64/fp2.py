# SPDX-License-Identifier: MIT OR Apache-2.0
"""AArch64 one-function Fp2 kernels: fp2_mul and fp2_sqr for the lazy
schemes of the analysis (Fp2Analysis: f.fp2.lazy_mul, lazy_sqr), built from
kernels.py's blocks (products, Montgomery and pseudo-Mersenne reductions).

They compute the integers of templates/c_fp2.j2's C path, so results are
the same bit for bit (canonical):

- fp2_mul (Karatsuba with lazy reduction): T0 = a0*b0, T1 = a1*b1 and
  T2 = (a0+a1)(b0+b1) with unreduced sums (2p < R), each product in the
  frame; c1 = redc(T2 - T0 - T1); c0 = redc(T0 - k*T1 + X) for nr = -k
  (modulo R^2, X = p * 2^s from limb s // 64, the analysis' correction
  constant) or redc(T0 + k*T1) for nr = k; T1 *= k first when k > 1.
- fp2_sqr (nr = -1): c0 = mul((a0+a1), (a0-a1+p)), c1 = mul(2*a0, a1), the
  field's product and reduction on operands below 2p.

Both products (or all three) are formed before the first result limb is
written, so r may alias a or b. Straight-line, constant offsets only; the
correction constant X sits in the field's table after p (table_words).
"""

from __future__ import annotations

from .kernels import MASK64, Acc, Arr, Kernel, Mem, final_subtract, kn_p, load_all, mont_reduce, pm_reduce, product

OPS = ("fp2_mul", "fp2_sqr")


def ops(fa):
    """The Fp2 ops with a one-function kernel: where the C path is lazy."""
    fp2 = getattr(fa, "fp2", None)
    if fp2 is None or fa.form not in ("montgomery", "pseudo_mersenne"):
        return ()
    out = []
    if fp2.lazy_mul:
        out.append("fp2_mul")
    if fp2.lazy_sqr:
        out.append("fp2_sqr")
    return tuple(out)


def corr_words(fa):
    """Limbs s // 64 .. 2n-1 of X = p * 2^s (nr < 0 with lazy mul), else []."""
    if "fp2_mul" not in ops(fa) or fa.fp2.nr > 0:
        return []
    s = fa.fp2.corr_shift
    x = fa.p << s
    return [(x >> (64 * i)) & MASK64 for i in range(s // 64, 2 * fa.n)]


def table_words(fa):
    """The words the Fp2 kernels read after p in the field's table."""
    return corr_words(fa)


def _operand_pair(kn, n, base_a, off_a, base_b, off_b):
    """A in registers; B too where the pool allows (the accumulator and the
    temporaries are already taken), else behind its pointer."""
    A = load_all(kn, None, n, base_a, off_a)
    if len(kn.free) >= n:
        return A, load_all(kn, None, n, base_b, off_b)
    return A, Arr(n, mem=Mem(base_b, off_b))


def _frame(kn, k):
    """k limbs in the frame."""
    arr = Arr(k, mem=Mem("sp", kn.frame))
    kn.frame += 8 * k
    return arr


def _reduce(kn, fa, acc, T, out_reg, out_off, tmp, tmp2):
    """Memory at [out_reg, #out_off] = the field's redc of T (canonical):
    kernels.py's reduction with the output at an offset."""
    n = fa.n
    if fa.form == "pseudo_mersenne":
        base = out_reg
        if out_off:
            base = kn.reg()
            kn.op("add", base, out_reg, "#%d" % out_off)
        pm_reduce(kn, fa, acc, T, base, tmp, tmp2)
        if out_off:
            kn.release(base)
        return
    ptab = kn.reg()
    kn.table_address(ptab, "@P@")
    U = kn.array(n, reserve=n + 1)
    hi = mont_reduce(kn, fa, acc, T, U, ptab, tmp, tmp2)
    S = kn.array(n, reserve=0)
    final_subtract(kn, fa, U, hi, ptab, Arr(n, mem=Mem(out_reg, out_off)), S, tmp, tmp2)
    kn.release_arr(S)
    kn.release_arr(U)
    kn.release(ptab)


def _wide_pass(kn, mnemonic, X, Y, Z, lo, hi, tmp, tmp2):
    """Z[lo..hi) = X op Y limb by limb, one carry chain (mnemonic: the first
    limb's and the rest's, ADDS/ADCS or SUBS/SBCS). X, Y, Z: anything with
    Arr's get (and put/dest for Z): an Arr, a _Split or (Y) a _Table."""
    first = True
    for i in range(lo, hi):
        x = X.get(kn, i, tmp)
        y = Y.get(kn, i, tmp2)
        z = Z.dest(i, tmp)
        kn.op(mnemonic[0] if first else mnemonic[1], z, x, y)
        Z.put(kn, i, z)
        first = False


def emit_fp2_mul(fa, name):
    n, fp2 = fa.n, fa.fp2
    kn = Kernel(name, 3)
    kn.comment("r = a * b in Fp2: Karatsuba, lazy reduction (the C path's integers)")
    W0, W1, W2 = _frame(kn, 2 * n), _frame(kn, 2 * n), _frame(kn, 2 * n)
    acc = Acc(kn)
    tmp, tmp2 = kn.regs(2)
    kn.comment("T0 = a0 * b0")
    A, B = _operand_pair(kn, n, "x1", 0, "x2", 0)
    product(kn, acc, A, B, W0, n, False, tmp, tmp2)
    kn.release_arr(A)
    kn.release_arr(B)
    kn.comment("T1 = a1 * b1")
    A, B = _operand_pair(kn, n, "x1", 8 * n, "x2", 8 * n)
    product(kn, acc, A, B, W1, n, False, tmp, tmp2)
    kn.comment("sa = a0 + a1, sb = b0 + b1 (below 2p < R: no carry out)")
    a0 = Arr(n, mem=Mem("x1"))
    _wide_pass(kn, ("adds", "adcs"), A, a0, A, 0, n, tmp, tmp2)
    if B.regs is None:
        SB = _frame(kn, n)
        _wide_pass(kn, ("adds", "adcs"), B, Arr(n, mem=Mem("x2")), SB, 0, n, tmp, tmp2)
        B = SB
    else:
        _wide_pass(kn, ("adds", "adcs"), B, Arr(n, mem=Mem("x2")), B, 0, n, tmp, tmp2)
    kn.comment("T2 = sa * sb")
    product(kn, acc, A, B, W2, n, False, tmp, tmp2)
    kn.release_arr(A)
    kn.release_arr(B)
    # every input is read: from here on only the frame and r
    kn.comment("T2 = T2 - T0 - T1 = a0*b1 + a1*b0")
    _wide_pass(kn, ("subs", "sbcs"), W2, W0, W2, 0, 2 * n, tmp, tmp2)
    _wide_pass(kn, ("subs", "sbcs"), W2, W1, W2, 0, 2 * n, tmp, tmp2)
    k = fp2.k
    if k > 1:
        kn.comment("T1 = %d * T1" % k)
        kr, carry = acc.c[0], acc.c[1]
        kn.mov_imm(kr, k)
        for i in range(2 * n):
            x = W1.get(kn, i, tmp)
            kn.op("umulh", acc.hi, x, kr)
            kn.op("mul", acc.lo, x, kr)
            if i:
                kn.op("adds", acc.lo, acc.lo, carry)
                kn.op("adc", carry, acc.hi, "xzr")
            else:
                kn.op("mov", carry, acc.hi)
            W1.put(kn, i, acc.lo)
    if fp2.nr < 0:
        s0 = fp2.corr_shift // 64
        kn.comment("T0 = T0 - %sT1 mod R^2, + X = p * 2^%d from limb %d" % (
            "" if k == 1 else "%d*" % k, fp2.corr_shift, s0))
        # the limbs the correction adds to stay in registers between the two chains
        hiw = Arr(2 * n - s0, regs=kn.regs(2 * n - s0)) if len(kn.free) - (2 * n - s0) >= 1 else None
        view = _Split(W0, hiw, s0)
        _wide_pass(kn, ("subs", "sbcs"), W0, W1, view, 0, 2 * n, tmp, tmp2)
        ptab = kn.reg()
        kn.table_address(ptab, "@P@")
        X = _Table(ptab, n, s0)
        _wide_pass(kn, ("adds", "adcs"), view, X, W0, s0, 2 * n, tmp, tmp2)
        kn.release(ptab)
        if hiw is not None:
            kn.release_arr(hiw)
    else:
        kn.comment("T0 = T0 + %sT1" % ("" if k == 1 else "%d*" % k))
        _wide_pass(kn, ("adds", "adcs"), W0, W1, W0, 0, 2 * n, tmp, tmp2)
    kn.comment("c0 = redc(T0), c1 = redc(T2)")
    _reduce(kn, fa, acc, W0, "x0", 0, tmp, tmp2)
    _reduce(kn, fa, acc, W2, "x0", 8 * n, tmp, tmp2)
    return kn


class _Split:
    """Limbs below `at` in the frame array F, the rest in registers R (or F)."""

    def __init__(self, F, R, at):
        self.F, self.R, self.at = F, R, at

    def _part(self, i):
        if self.R is not None and i >= self.at:
            return self.R, i - self.at
        return self.F, i

    def get(self, kn, i, tmp):
        arr, j = self._part(i)
        return arr.get(kn, j, tmp)

    def put(self, kn, i, src):
        arr, j = self._part(i)
        arr.put(kn, j, src)

    def dest(self, i, tmp):
        arr, j = self._part(i)
        return arr.dest(j, tmp)


class _Table:
    """Limbs lo.. of X, read from the table after p's n limbs (xzr for a zero limb)."""

    def __init__(self, ptab, n, lo):
        self.ptab, self.n, self.lo = ptab, n, lo

    def get(self, kn, i, tmp):
        kn.op("ldr", tmp, f"[{self.ptab}, #{8 * (self.n + i - self.lo)}]")
        return tmp


def emit_fp2_sqr(fa, name):
    n = fa.n
    kn = Kernel(name, 2)
    kn.comment("r = a^2 in Fp2 (u^2 = -1): c0 = (a0+a1)(a0-a1+p), c1 = (2 a0) a1, by the field's mul")
    W0, W1 = _frame(kn, 2 * n), _frame(kn, 2 * n)
    acc = Acc(kn)
    tmp, tmp2 = kn.regs(2)
    a0, a1 = Arr(n, mem=Mem("x1")), Arr(n, mem=Mem("x1", 8 * n))
    kn.comment("s = a0 + a1, d = a0 - a1 + p (each below 2p < R)")
    S = load_all(kn, None, n, "x1", 0)
    _wide_pass(kn, ("adds", "adcs"), S, a1, S, 0, n, tmp, tmp2)
    D = kn.array(n, reserve=1)
    _wide_pass(kn, ("subs", "sbcs"), a0, a1, D, 0, n, tmp, tmp2)
    ptab = kn.reg()
    kn.table_address(ptab, "@P@")
    first = True
    for j in range(n):
        d = D.get(kn, j, tmp)
        pj = "xzr" if fa.p_limbs[j] == 0 else kn_p(kn, ptab, j, tmp2)
        kn.op("adds" if first else "adcs", d, d, pj)
        D.put(kn, j, d)
        first = False
    kn.release(ptab)
    kn.comment("T0 = s * d")
    product(kn, acc, S, D, W0, n, False, tmp, tmp2)
    kn.release_arr(S)
    kn.release_arr(D)
    kn.comment("t = 2 a0; T1 = t * a1")
    A = load_all(kn, None, n, "x1", 0)
    _wide_pass(kn, ("adds", "adcs"), A, A, A, 0, n, tmp, tmp2)
    B = load_all(kn, None, n, "x1", 8 * n) if len(kn.free) >= n else a1
    product(kn, acc, A, B, W1, n, False, tmp, tmp2)
    kn.release_arr(A)
    kn.release_arr(B)
    kn.comment("c0 = redc(T0), c1 = redc(T1)")
    _reduce(kn, fa, acc, W0, "x0", 0, tmp, tmp2)
    _reduce(kn, fa, acc, W1, "x0", 8 * n, tmp, tmp2)
    return kn


def build(fa, op, symbol):
    if op == "fp2_mul":
        return emit_fp2_mul(fa, symbol)
    if op == "fp2_sqr":
        return emit_fp2_sqr(fa, symbol)
    raise ValueError(op)
