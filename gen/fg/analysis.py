# SPDX-License-Identifier: MIT OR Apache-2.0
"""Stage 2: every derived constant and every decision, from a FieldSpec.

The emitters render what this module decides and compute nothing themselves.
Nothing here looks at a field's name: shapes are detected from p alone, so a
user's new prime of a known shape gets the same treatment as a shipped one.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from . import chains, legendre, numtheory, safegcd, tonelli

W = 64
MASK64 = (1 << W) - 1
KERNEL_OPS = ("mul", "sqr", "mul_wide", "sqr_wide", "redc")
# Montgomery fields with 4p <= 2^(64n) (FieldAnalysis.lazy) also have mul and
# sqr without the final subtraction: operands and result in [0, 2p); every
# pseudo-Mersenne field (FieldAnalysis.lazy_pm) too, with operands and
# results any values below 2^(64n)
LAZY_OPS = ("mul_lazy", "sqr_lazy")
PM_MAX_C_FOLD = 1 << 31


def limbs_of(x, n):
    assert 0 <= x < 1 << (W * n)
    return [(x >> (W * i)) & MASK64 for i in range(n)]


def hex_limbs(x, n):
    return ["UINT64_C(0x%016x)" % v for v in limbs_of(x, n)]


@dataclass(frozen=True)
class FieldAnalysis:
    """The field model: every number-theoretic constant and every decision
    that does not depend on an instruction set. analyze() builds it and
    nothing writes it afterwards (frozen: an assignment raises). The targets
    (gen/fg/targets) read it and return their kernel sets; which kernel each
    level runs is gen/fg/dispatch.py's plan, built from those."""
    # identity
    name: str
    upper: str
    modulus_text: str
    p: int
    byte_order: str
    # shape
    bits: int
    n: int
    nbytes: int
    spare_bits: int
    p_mod4: int
    p_mod8: int
    p_limbs: tuple
    form: str                  # "montgomery" | "pseudo_mersenne"
    special_form: str          # human description for --list and headers
    reduction: str             # human description of the chosen reduction
    # Montgomery data (form == montgomery)
    m0inv: int = 0
    p1_zero_limbs: int = 0
    # pseudo-Mersenne data (form == pseudo_mersenne): p = 2^k - c
    k: int = 0
    c: int = 0
    c_fold: int = 0
    k_top_bits: int = 0        # k - 64(n-1): bits of p in its top limb
    # constants
    R: int = 0                 # 2^(64n)
    one_internal: int = 0
    r2: int = 0                # R^2 mod p (Montgomery conversion in)
    r3: int = 0                # R^3 mod p: from_bytes_wide's redc(t) R^3 / R = t R
    # from_bytes_wide (Montgomery): its input t = lo + hi R has
    # hi < 2^(16 nbytes - 64n) <= 2^J p with J = wide_steps (the least such J,
    # 0 to 8); conditional subtractions of 2^(J-1) p, ..., 2p, p leave
    # hi' = hi mod p, so t' = lo + hi' R < p R is within redc's bound: one redc
    # and one mul for any input (J = 0: p503, p751; J = 1: p256, 2p > R)
    wide_steps: int = 0
    wide_consts: tuple = ()   # 2^(J-1) p, ..., 2p, p
    redc_sums: int = 1
    redc_bound: str = ""
    # mul_small (r = c a, c < 2^32): Barrett's MU = floor(2^(bits+32) / p), in [2^32, 2^33]
    mul_small_mu: int = 0
    mul_small_fold: bool = False   # pseudo-Mersenne: one fold at bit k and one subtraction instead
    # Montgomery form with 4p <= R: mul_lazy and sqr_lazy exist (operands and
    # result in [0, 2p): (a b + m p) / R < 4p^2 / R + p <= 2p), and the
    # fixed-exponent chains run on them; kernel_ops: the ops with a kernel per
    # level (KERNEL_OPS, then LAZY_OPS where lazy)
    lazy: bool = False
    # pseudo-Mersenne form: mul_lazy, sqr_lazy (the reduction without its final
    # select: fold, split at bit k, one add, so r < 2^k + (r's q) c < 2p), canon,
    # and add_lazy, sub_lazy, mul_small_lazy (each overflow out of 2^(64n)
    # folded back as + c_fold, twice at most, fe64's form): operands any values
    # below 2^(64n), results below 2^(64n); the fixed-exponent chains stay on
    # the canonical ops (lazy, the Montgomery flag, drives those)
    lazy_pm: bool = False
    kernel_ops: tuple = KERNEL_OPS
    # exponents (public): inversion and square root
    inv_exp: int = 0
    sqrt_method: str = ""      # "p3mod4" | "atkin" | "tonelli_shanks"
    sqrt_exp: int = 0
    ts_s: int = 0              # p - 1 = 2^s * q
    ts_root: int = 0           # z^q, a primitive 2^s-th root of unity (plain value)
    ts_z: int = 0
    tonelli: dict = field(default_factory=dict)  # windowed Tonelli-Shanks program and tables (tonelli.py)
    # addition chains for the fixed exponents: "inv" (p-2, the Fermat
    # cross-check), "sqrt" (sqrt_exp), "legendre" ((p-1)/2)
    chains: dict = field(default_factory=dict)
    safegcd: dict = field(default_factory=dict)  # Bernstein-Yang inversion parameters (safegcd.py)
    legendre: dict = field(default_factory=dict)  # Legendre symbol method and constants (legendre.py)
    # quadratic extension Fp2 = Fp[u]/(u^2 - nr), or None
    fp2: object = None
    # RFC 9380's sqrt_ratio with the field's non-residue Z (sqrt_ratio_z), or
    # None: "p3mod4" (one power (p-3)/4; c = (sqrt(-Z),)), "p5mod8" (one power
    # (p-5)/8, the Atkin chain; c = (s, sqrt(Z/s)) with s^2 = -1), "generic"
    # (an inversion, a Legendre symbol and a square root); c as plain values
    sqrt_ratio_z: int | None = None
    sqrt_ratio_method: str = ""
    sqrt_ratio_c: tuple = ()
    @property
    def have_lazy(self):
        """FG_NAME_HAVE_LAZY: mul_lazy, sqr_lazy and canon exist (lazy or lazy_pm)."""
        return self.lazy or self.lazy_pm

    # ---- conversions used by the reference and the vectors ----
    def to_internal(self, x):
        return x * self.R % self.p if self.form == "montgomery" else x % self.p

    def from_internal(self, x):
        return x * pow(self.R, -1, self.p) % self.p if self.form == "montgomery" else x % self.p

    def redc_value(self, t):
        """Internal-form result of redc(t) for a wide integer t."""
        return t * pow(self.R, -1, self.p) % self.p if self.form == "montgomery" else t % self.p

    def limbs(self, x):
        return hex_limbs(x, self.n)


def _pseudo_mersenne(p, n):
    """(k, c, c_fold) when p = 2^k - c reduces by folding, else None.

    Requirements, all checked here so the C and assembly need no case analysis:
    k < 64n (one spare bit at least); c_fold = c*2^(64n-k) < 2^31 so the first
    fold's top word times c_fold fits a word; after the second fold at bit k,
    the value is below 2p (one masked subtraction makes it canonical).
    """
    k = p.bit_length()
    c = (1 << k) - p
    if k >= W * n or c <= 0:
        return None
    c_fold = c << (W * n - k)
    if c_fold >= PM_MAX_C_FOLD:
        return None
    qmax = (c_fold + 1) << (W * n - k)      # bound on v >> k after the first fold
    if qmax * c >= 1 << W or (qmax + 2) * c >= 1 << k or (1 << k) + qmax * c >= 1 << (W * n):
        return None
    return k, c, c_fold


@dataclass
class Fp2Analysis:
    """Fp2 = Fp[u]/(u^2 - nr). Lazy reduction is chosen when the bounds below
    hold (checked here, restated in the generated comments; T0 = a0*b0,
    T1 = a1*b1, each at most (p-1)^2):
      mul: operand sums a0+a1 < 2p fit n limbs (2p < R); the middle term
           a0*b1 + a1*b0 = T2 - (T0 + T1) < 2p^2 is within redc's bound;
           c0's wide value, for nr = -k: T0 - k*T1 computed modulo R^2, plus
           the constant X = p * 2^s (a multiple of p whose low s bits are 0,
           so the addition starts at limb s // 64), with X >= k(p-1)^2 so the
           exact sum is non-negative (when the subtraction borrowed, the
           addition's carry out cancels it) and X + (p-1)^2 below redc's
           bound; s is the largest such shift (the fewest limbs to add);
           for nr = k: T0 + k*T1 below (k+1)(p-1)^2 + 1, within redc's bound.
      sqr (nr = -1 only): (a0+a1)(a0-a1+p) < 4p^2 and 2a0*a1 < 2p^2 within
           redc's bound, operands < 2p fit n limbs. They go to the field's
           mul (fused product and reduction), which relies on mul(x, y) =
           redc(x*y) for operands x, y < 2p with 4p^2 within redc's bound:
           true of the C kernel (mul_wide then redc), of the pseudo-Mersenne
           kernels (any product < R^2), and of the fused Montgomery assembly,
           whose carry plan for operands < 2p equals the one for operands < p
           when 4p < R (checked for every shipped and test prime).
    """
    nr: int
    k: int                 # |nr|
    nr_internal: int       # nr mod p, internal form
    nr_inv_internal: int   # nr^-1 mod p, internal form
    half_internal: int     # 1/2 mod p, internal form
    lazy_mul: bool
    lazy_sqr: bool
    corr_shift: int = 0    # nr < 0: s of X = p * 2^s
    corr_limbs: list = field(default_factory=list)  # limbs s//64 .. 2n-1 of X (C literals)
    sqrt_c_internal: int = 0        # p = 3 mod 4: c = nr^((p+1)/4) (c^2 = -nr), internal form
    sqrt_c_nr_inv_internal: int = 0  # ... and c/nr, internal form


def _corr_shift(p, k, bound):
    """The largest s with p*2^s + (p-1)^2 < bound, or -1 when p*2^s < k(p-1)^2 for it."""
    q = (bound - 1 - (p - 1) ** 2) // p
    if q < 1:
        return -1
    s = q.bit_length() - 1
    return s if p << s >= k * (p - 1) ** 2 else -1


def _fp2(fa, nr):
    p, R = fa.p, fa.R
    bound = p * R if fa.form == "montgomery" else R * R
    k = abs(nr)
    fits = 2 * p < R
    shift = _corr_shift(p, k, bound) if nr < 0 else -1
    fp2 = Fp2Analysis(
        nr=nr, k=k, nr_internal=fa.to_internal(nr % p), nr_inv_internal=fa.to_internal(pow(nr, -1, p)),
        half_internal=fa.to_internal(pow(2, -1, p)),
        lazy_mul=fits and 2 * p * p <= bound and (shift >= 0 if nr < 0 else (k + 1) * (p - 1) ** 2 < bound),
        lazy_sqr=fits and nr == -1 and 4 * p * p <= bound)
    if p % 4 == 3:
        c = pow(nr % p, (p + 1) // 4, p)
        assert c * c % p == -nr % p
        fp2.sqrt_c_internal = fa.to_internal(c)
        fp2.sqrt_c_nr_inv_internal = fa.to_internal(c * pow(nr, -1, p) % p)
    if fp2.lazy_mul and nr < 0:
        x = p << shift
        assert x >= k * (p - 1) ** 2 and x + (p - 1) ** 2 < bound <= R * R
        fp2.corr_shift = shift
        fp2.corr_limbs = hex_limbs(x, 2 * fa.n)[shift // W:]
    return fp2


def analyze(spec):
    """The frozen model of one field (FieldAnalysis). Built in two steps, each
    a new instance: the shape and constants, then what needs their
    conversions (the extension, sqrt_ratio); nothing is assigned after."""
    p = spec.p
    bits = p.bit_length()
    n = -(-bits // W)
    R = 1 << (W * n)
    fa = _Draft(
        name=spec.name, upper=spec.name.upper(), modulus_text=spec.modulus_text, p=p,
        byte_order=spec.byte_order, bits=bits, n=n, nbytes=-(-bits // 8), spare_bits=W * n - bits,
        p_mod4=p % 4, p_mod8=p % 8, p_limbs=tuple(limbs_of(p, n)), form="", special_form="", reduction="",
        R=R)

    pm = _pseudo_mersenne(p, n)
    if pm:
        fa.form = "pseudo_mersenne"
        fa.k, fa.c, fa.c_fold = pm
        fa.k_top_bits = fa.k - W * (n - 1)
        fa.special_form = f"pseudo-Mersenne 2^{fa.k} - {fa.c}"
        fa.reduction = f"fold the high half times {fa.c_fold} (2^{W * n} mod p), then the bits above 2^{fa.k} times {fa.c}"
        fa.one_internal = 1
        # redc accepts any t < 2^(128n); k wide products of values < p fit when k(p-1)^2 < 2^(128n)
        fa.redc_sums = (R * R - 1) // ((p - 1) ** 2)
        fa.redc_bound = f"any t < 2^{2 * W * n}"
        # canon of any a < 2^(64n): q = a >> k < 2^s, (a mod 2^k) + q c < 2^k + 2^s c
        # <= 2p when (2^s + 2) c <= 2^k, then one conditional subtraction
        fa.lazy_pm = (2 ** (W * n - fa.k) + 2) * fa.c <= 2 ** fa.k and fa.c_fold < PM_MAX_C_FOLD
        fa.kernel_ops = KERNEL_OPS + (LAZY_OPS if fa.lazy_pm else ())
    else:
        fa.form = "montgomery"
        fa.m0inv = (-pow(p, -1, 1 << W)) & MASK64
        low = (p + 1)
        while low % (1 << W) == 0 and fa.p1_zero_limbs < n:
            fa.p1_zero_limbs += 1
            low >>= W
        features = []
        if fa.m0inv == 1:
            features.append("p = -1 mod 2^64 (-p^-1 mod 2^64 = 1)")
        if fa.p1_zero_limbs:
            features.append(f"p+1 has {fa.p1_zero_limbs} zero low limb{'s' if fa.p1_zero_limbs > 1 else ''}")
        sparse = sum(1 for v in fa.p_limbs if v in (0, MASK64))
        if sparse:
            features.append(f"{sparse} of {n} limbs of p are 0 or 2^64-1")
        fa.special_form = "; ".join(features) if features else "none (generic)"
        fa.reduction = f"word-by-word Montgomery, R = 2^{W * n}"
        fa.one_internal = R % p
        fa.r2 = R * R % p
        fa.r3 = fa.r2 * R % p
        hi_top = 2 ** (16 * fa.nbytes - W * n)      # hi < hi_top <= R
        while p << fa.wide_steps < hi_top:
            fa.wide_steps += 1
        fa.wide_consts = tuple(p << j for j in reversed(range(fa.wide_steps)))
        assert hi_top <= R and fa.wide_steps <= 8 and all(c < R for c in fa.wide_consts)
        # redc needs t < p*R; k wide products of values < p fit when k(p-1)^2 < p*R
        fa.redc_sums = (p * R - 1) // ((p - 1) ** 2)
        fa.redc_bound = f"t < p * 2^{W * n}"
        fa.lazy = 4 * p <= R
        fa.kernel_ops = KERNEL_OPS + (LAZY_OPS if fa.lazy else ())
    assert fa.redc_sums >= 1

    fa.mul_small_mu = (1 << (bits + 32)) // p
    # pseudo-Mersenne: v = c a folds once at bit k (h = v >> k < 2^32, h c < 2^63
    # as c < 2^31), and l + h c <= 2^k - 1 + (2^32 - 1) c < 2p when (2^32 + 1) c <= 2^k
    fa.mul_small_fold = fa.form == "pseudo_mersenne" and (2**32 + 1) * fa.c <= 2**fa.k
    assert not fa.mul_small_fold or W * (n - 1) < fa.k < W * n, "mul_small's fold: bit k in the top word"
    fa.inv_exp = p - 2
    s, q = numtheory.two_adicity(p)
    fa.ts_s = s
    if p % 4 == 3:
        fa.sqrt_method, fa.sqrt_exp = "p3mod4", (p + 1) // 4
    elif p % 8 == 5:
        fa.sqrt_method, fa.sqrt_exp = "atkin", (p - 5) // 8
    else:
        fa.sqrt_method, fa.sqrt_exp = "tonelli_shanks", (q - 1) // 2
        fa.ts_z = numtheory.smallest_nonresidue(p)
        fa.ts_root = pow(fa.ts_z, q, p)
        fa.tonelli = tonelli.params(p, n, s, fa.ts_root)

    fa.chains = {"inv": chains.best_chain(p - 2), "sqrt": chains.best_chain(fa.sqrt_exp or 1),
                  "legendre": chains.best_chain((p - 1) // 2)}
    if spec.fp2_non_residue is not None and fa.sqrt_method == "p3mod4":
        fa.chains["fp2_sqrt"] = chains.best_chain((p - 3) // 4)     # Fp2 sqrt's y = t^((p-3)/4)
    fa.safegcd = safegcd.params(p, n)
    fa.legendre = legendre.params(p, n)
    model = FieldAnalysis(**vars(fa))
    later = {}
    if spec.sqrt_ratio_z is not None:
        later.update(_sqrt_ratio(model, spec.sqrt_ratio_z))
    if spec.fp2_non_residue is not None:
        later["fp2"] = _fp2(model, spec.fp2_non_residue)
    return dataclasses.replace(model, **later) if later else model


class _Draft:
    """analyze()'s scratch object: the fields of FieldAnalysis, assigned in
    the order they are derived, then handed to the frozen constructor."""

    def __init__(self, **fields):
        for f in dataclasses.fields(FieldAnalysis):
            if f.default is not dataclasses.MISSING:
                setattr(self, f.name, f.default)
            elif f.default_factory is not dataclasses.MISSING:
                setattr(self, f.name, f.default_factory())
        self.__dict__.update(fields)


def _sqrt_ratio(fa, z):
    """sqrt_ratio(u, v) = (1, sqrt(u/v)) or (0, sqrt(Z u/v)), one power where
    p's residue class gives one (the derivations are in the generated
    comment): the model's sqrt_ratio fields, and its chain beside the others."""
    p = fa.p
    zp = z % p
    assert numtheory.jacobi(zp, p) == -1
    out = {"sqrt_ratio_z": z}
    if p % 4 == 3:
        c = numtheory.sqrt_mod(-zp, p)          # -1 and Z are non-squares: -Z is a square
        out.update(sqrt_ratio_method="p3mod4", sqrt_ratio_c=(c,),
                   chains={**fa.chains, "sqrt_ratio": fa.chains.get("fp2_sqrt") or chains.best_chain((p - 3) // 4)})
    elif p % 8 == 5:
        s = numtheory.sqrt_mod(p - 1, p)        # -1 is a square, s = sqrt(-1) is not
        c = numtheory.sqrt_mod(zp * pow(s, -1, p), p)   # Z/s: a quotient of non-squares
        assert s is not None and c is not None
        out.update(sqrt_ratio_method="p5mod8", sqrt_ratio_c=(s, c))
    else:
        out.update(sqrt_ratio_method="generic", sqrt_ratio_c=())
    return out
