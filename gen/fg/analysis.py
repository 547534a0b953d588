# SPDX-License-Identifier: MIT OR Apache-2.0
"""Stage 2: every derived constant and every decision, from a FieldSpec.

The emitters render what this module decides and compute nothing themselves.
Nothing here looks at a field's name: shapes are detected from p alone, so a
user's new prime of a known shape gets the same treatment as a shipped one.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from . import chains, legendre, numtheory, safegcd, tonelli

W = 64
MASK64 = (1 << W) - 1
LEVELS = ("c", "x86_64", "bmi2", "adx")
ASM_LEVELS = LEVELS[1:]
KERNEL_OPS = ("mul", "sqr", "mul_wide", "sqr_wide", "redc")
# Montgomery fields with 4p <= 2^(64n) (FieldAnalysis.lazy) also have mul and
# sqr without the final subtraction: operands and result in [0, 2p); every
# pseudo-Mersenne field (FieldAnalysis.lazy_pm) too, with operands and
# results any values below 2^(64n)
LAZY_OPS = ("mul_lazy", "sqr_lazy")
# the runtime's selector (runtime/fg_cpu.h): one bit per (level, tuning),
# bit index level + len(SEL_LEVELS) * tuning
SEL_LEVELS = ("c", "x86_64", "bmi2", "adx", "ifma")
# zen4 (AMD family 19h with AVX-512: Zen 4) runs zen's kernels but for the
# hybrid Fp2 kernels at ifma (x86_64.hybrid): its 512-bit units are half-width
TUNES = ("generic", "zen", "zen4")
ZEN_TUNES = ("zen", "zen4")
PM_MAX_C_FOLD = 1 << 31
# the kernels: one per level (fg_NAME_OP_LEVEL), and the Zen form of the adx
# kernel (fg_NAME_OP_adx_zen: x86_64.mont.ZEN_DUAL_ROWS), where it differs;
# the headers' _USES macros name them by these ids (runtime/fg_cpu.h)
KERNEL_IDS = {"c": "FG_ISA_C", "x86_64": "FG_ISA_X86_64", "bmi2": "FG_ISA_BMI2", "adx": "FG_ISA_ADX",
              "adx_zen": "FG_KERNEL_ADX_ZEN", "ifma": "FG_ISA_IFMA"}


def kernel_level(kernel):
    """The level whose instructions a kernel uses (adx_zen: adx's)."""
    return kernel[:-len("_zen")] if kernel.endswith("_zen") else kernel


def limbs_of(x, n):
    assert 0 <= x < 1 << (W * n)
    return [(x >> (W * i)) & MASK64 for i in range(n)]


def hex_limbs(x, n):
    return ["UINT64_C(0x%016x)" % v for v in limbs_of(x, n)]


@dataclass
class FieldAnalysis:
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
    p_limbs: list
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
    wide_consts: list = field(default_factory=list)   # 2^(J-1) p, ..., 2p, p
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
    # dispatch: op -> list of (runtime level, kernel level) pairs, best first
    # (the generic tuning); dispatch_zen: the same on AMD Zen cores
    dispatch: dict = field(default_factory=dict)
    dispatch_zen: dict = field(default_factory=dict)
    # what the C dispatchers test: op (and "fp2_mul", "fp2_sqr" where the
    # field has assembly Fp2 kernels) -> [(kernel level, selector mask,
    # comment, hot)], the generic tuning's hot path first (plan_tuning)
    dispatch_sel: dict = field(default_factory=dict)
    tuned: bool = False          # some op runs another kernel on Zen than under the generic tuning
    # ("mul"/"sqr", tune) -> the scalar Fp2 kernel the adx level runs, or None (the C path)
    fp2_at_adx: dict = field(default_factory=dict)
    have_asm: bool = False
    # the ops with an aarch64 kernel (gen/fg/targets/aarch64: ops)
    aarch64_ops: tuple = ()
    # the ifma level runs an AVX-512 IFMA kernel for the Fp2 mul (and sqr): set
    # by x86_64.ifma.choose, from the shape of p and the extension (whether one
    # can be generated) and the generated code (whether it beats the scalar
    # path); fp2_ifma_sqr implies fp2_ifma
    fp2_ifma: bool = False
    fp2_ifma_sqr: bool = False
    # the ifma level runs the AVX-512 IFMA Fp mul fg_NAME_mul_ifma under the zen
    # tuning (AMD's AVX-512 cores): set by x86_64.ifma.choose_mul, from the shape
    # of p and the generated code; sqr_ifma: and the same code with b = a,
    # fg_NAME_sqr_ifma, as the squaring there
    mul_ifma: bool = False
    sqr_ifma: bool = False
    # (op, tune) -> the kernel the ifma level runs for a scalar op (plan_tuning)
    at_ifma: dict = field(default_factory=dict)
    # the adx and bmi2 levels run an assembly Fp2 sqr (the two products in one
    # function) and mul (the lazy Karatsuba in one function): set by the
    # Montgomery backend (x86_64.mont.fp2_sqr_kernel, fp2_mul_kernel)
    fp2_sqr_adx: bool = False
    fp2_mul_adx: bool = False
    fp2_sqr_bmi2: bool = False
    fp2_mul_bmi2: bool = False
    fp2_sqr_adx_zen: bool = False   # the Zen forms of the adx Fp2 kernels (zen_forms)
    fp2_mul_adx_zen: bool = False
    # the zen4 tuning's ifma level runs the hybrid Fp2 mul fg_NAME_fp2_mul_ifma_zen,
    # and squaring fg_NAME_fp2_sqr_ifma_zen (x86_64.hybrid: c0 on the scalar
    # units, c1 on the IFMA units)
    fp2_mul_ifma_zen: bool = False
    fp2_sqr_ifma_zen: bool = False
    # the IFMA Fp mul's vector instructions (x86_64.ifma.fmul_vector_count)
    ifma_fmul_vec: object = None
    # ops (mul, ..., fp2_mul, fp2_sqr) with a Zen form of the adx kernel,
    # fg_NAME_OP_adx_zen (x86_64.mont.ZEN_DUAL_ROWS), in generation order
    zen_forms: list = field(default_factory=list)
    # (op, level) -> (64x64 multiplications, port-0/6 instructions) of each
    # scalar kernel (level: also adx_zen), counted on the generated text by
    # kernel_cost.costs
    kernel_cost: dict = field(default_factory=dict)

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


def plan_dispatch(fa, kernel_choice):
    """Decide which kernel each runtime level calls, per op.

    kernel_choice is the assembly backend's {(op, level): kernel level} (a
    level may use a lower level's kernel where that measured faster), or None
    when there is no assembly: then every level runs the C kernel.
    """
    fa.have_asm = kernel_choice is not None
    for op in fa.kernel_ops:
        fa.dispatch[op] = ([(level, kernel_choice.get((op, level), level)) for level in reversed(ASM_LEVELS)]
                           if fa.have_asm else [])
    return fa


def sel_bit(level, tune):
    """The runtime selector bit of (level, tuning): FG_SEL in runtime/fg_cpu.h."""
    return 1 << (SEL_LEVELS.index(level) + len(SEL_LEVELS) * TUNES.index(tune))


def _selector_masks(kernel_at):
    """kernel_at: {(level, tune): kernel (a level, or adx_zen) or None (the C
    code)} over every selector. -> [(kernel, mask, comment, hot)]: one test
    per kernel, the kernel of the generic tuning's top level first, then by
    level, highest first (a Zen form just above its level); hot: the kernel
    runs at some tuning's top level (the template marks its test likely, so
    the compiler lays that call on the straight path)."""
    masks, users = {}, {}
    for tune in TUNES:
        for level in SEL_LEVELS:
            k = kernel_at.get((level, tune))
            if k is None or k == "c":
                continue
            masks[k] = masks.get(k, 0) | sel_bit(level, tune)
            users.setdefault(k, {}).setdefault(tune, []).append(level)
    top = kernel_at.get((SEL_LEVELS[-1], TUNES[0]))
    rank = lambda k: SEL_LEVELS.index(kernel_level(k)) + (0.5 if k != kernel_level(k) else 0)
    order = sorted(masks, key=lambda k: (k != top, -rank(k)))
    out = []
    for k in order:
        # tunings with the same levels share one entry: "x86_64; zen, zen4: adx, ifma"
        groups = {}
        for tune in TUNES:
            if tune in users[k]:
                groups.setdefault(tuple(users[k][tune]), []).append(tune)
        parts = [("" if tunes == [TUNES[0]] else ", ".join(tunes) + ": ") + ", ".join(levels)
                 for levels, tunes in groups.items()]
        hot = any(SEL_LEVELS[-1] in users[k].get(tune, ()) for tune in TUNES)
        out.append((k, masks[k], "; ".join(parts), hot))
    return out


def plan_tuning(fa, zen_choice=None, fp2_zen=None):
    """The per-tuning dispatch, after plan_dispatch (and, for the Fp2 kernels,
    after the backend recorded which exist).

    zen_choice: {(op, level): kernel} where AMD Zen cores run another kernel
    than the generic plan (a level's, or adx_zen); fp2_zen: {"mul"/"sqr":
    kernel, or None for the C path} where Zen runs another scalar Fp2 kernel
    at adx (and at ifma without an IFMA kernel). Sets fa.dispatch_zen,
    fa.dispatch_sel and fa.at_ifma. The ifma level runs the adx level's Fp
    kernels, under either tuning, but for the IFMA Fp mul under the zen tuning
    where fa.mul_ifma, and its squaring entry where fa.sqr_ifma
    (x86_64_ifma.choose_mul).
    """
    zen_choice = zen_choice or {}
    fp2_zen = fp2_zen or {}
    fa.dispatch_sel = {}
    fa.fp2_at_adx = {}
    fa.tuned = False
    for op in fa.kernel_ops:
        fa.dispatch_zen[op] = [(level, zen_choice.get((op, level), kernel)) for level, kernel in fa.dispatch[op]]
        if not fa.have_asm:
            fa.dispatch_sel[op] = []
            continue
        kernel_at = {}
        for tune in TUNES:
            plan = dict(fa.dispatch[op] if tune == "generic" else fa.dispatch_zen[op])
            for level in SEL_LEVELS:
                kernel_at[(level, tune)] = plan.get("adx" if level == "ifma" else level, "c")
        if (op == "mul" and fa.mul_ifma) or (op == "sqr" and fa.sqr_ifma):
            for tune in ZEN_TUNES:
                kernel_at[("ifma", tune)] = "ifma"     # AMD's AVX-512 cores: the IFMA Fp mul
        for tune in TUNES:
            fa.at_ifma[(op, tune)] = kernel_at[("ifma", tune)]
        fa.dispatch_sel[op] = _selector_masks(kernel_at)
    if fa.fp2 is None or not fa.have_asm:
        fa.tuned = fa.dispatch_zen != fa.dispatch or fa.mul_ifma
        return fa
    for op in ("mul", "sqr"):
        have = {"ifma": fa.fp2_ifma if op == "mul" else fa.fp2_ifma_sqr,
                "adx": getattr(fa, f"fp2_{op}_adx"), "bmi2": getattr(fa, f"fp2_{op}_bmi2")}
        if not any(have.values()):
            continue
        kernel_at = {}
        for tune in TUNES:
            at_adx = "adx" if have["adx"] else "bmi2" if have["bmi2"] else None
            if tune in ZEN_TUNES and op in fp2_zen:
                at_adx = fp2_zen[op]
            kernel_at.update({("ifma", tune): "ifma" if have["ifma"] else at_adx, ("adx", tune): at_adx,
                              ("bmi2", tune): "bmi2" if have["bmi2"] else None})
            if tune == "zen4" and getattr(fa, f"fp2_{op}_ifma_zen"):
                kernel_at[("ifma", tune)] = "ifma_zen"      # the hybrid
            fa.fp2_at_adx[(op, tune)] = at_adx
        fa.dispatch_sel["fp2_" + op] = _selector_masks(kernel_at)
    fa.tuned = (fa.dispatch_zen != fa.dispatch or bool(fp2_zen) or fa.mul_ifma or fa.fp2_mul_ifma_zen
                or fa.fp2_sqr_ifma_zen)
    return fa


def analyze(spec, kernel_choice=None):
    p = spec.p
    bits = p.bit_length()
    n = -(-bits // W)
    R = 1 << (W * n)
    fa = FieldAnalysis(
        name=spec.name, upper=spec.name.upper(), modulus_text=spec.modulus_text, p=p,
        byte_order=spec.byte_order, bits=bits, n=n, nbytes=-(-bits // 8), spare_bits=W * n - bits,
        p_mod4=p % 4, p_mod8=p % 8, p_limbs=limbs_of(p, n), form="", special_form="", reduction="",
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
        fa.wide_consts = [p << j for j in reversed(range(fa.wide_steps))]
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
    if spec.sqrt_ratio_z is not None:
        _sqrt_ratio(fa, spec.sqrt_ratio_z)
    fa.safegcd = safegcd.params(p, n)
    fa.legendre = legendre.params(p, n)
    if spec.fp2_non_residue is not None:
        fa.fp2 = _fp2(fa, spec.fp2_non_residue)

    plan_dispatch(fa, kernel_choice)
    plan_tuning(fa)
    return fa


def _sqrt_ratio(fa, z):
    """sqrt_ratio(u, v) = (1, sqrt(u/v)) or (0, sqrt(Z u/v)), one power where
    p's residue class gives one (the derivations are in the generated comment)."""
    p = fa.p
    fa.sqrt_ratio_z = z
    zp = z % p
    assert numtheory.jacobi(zp, p) == -1
    if p % 4 == 3:
        c = numtheory.sqrt_mod(-zp, p)          # -1 and Z are non-squares: -Z is a square
        fa.sqrt_ratio_method, fa.sqrt_ratio_c = "p3mod4", (c,)
        fa.chains["sqrt_ratio"] = fa.chains.get("fp2_sqrt") or chains.best_chain((p - 3) // 4)
    elif p % 8 == 5:
        s = numtheory.sqrt_mod(p - 1, p)        # -1 is a square, s = sqrt(-1) is not
        c = numtheory.sqrt_mod(zp * pow(s, -1, p), p)   # Z/s: a quotient of non-squares
        assert s is not None and c is not None
        fa.sqrt_ratio_method, fa.sqrt_ratio_c = "p5mod8", (s, c)
    else:
        fa.sqrt_ratio_method, fa.sqrt_ratio_c = "generic", ()
