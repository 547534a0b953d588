# SPDX-License-Identifier: MIT OR Apache-2.0
"""AArch64 kernels (A64, GAS text): mul, sqr, mul_wide, sqr_wide, redc and,
for lazy fields, mul_lazy and sqr_lazy, for any limb count.

PeachPy has no AArch64, so this module is its own small builder in the same
style: a `Kernel` per function with registers named by role, arrays of limbs
that live in registers when the pool allows and in the frame (or behind their
pointer argument) otherwise, and Python loops that emit the limb-generic
code. Every kernel is straight-line: no branch, no memory index but constant
offsets from its pointer arguments, its frame and the modulus table (public).

Products are product-scanning (Comba): each column of a*b (or of m*p in the
reduction) accumulates into three words with MUL/UMULH and an ADDS/ADCS/ADC
chain. The reductions compute the same integers as the C templates
(templates/c_kernels_*.j2), so results are identical bit for bit:

- Montgomery: m_i = (column i) * (-p^-1) mod 2^64 is the unique digit of
  m = -t p^-1 mod R, so (t + m p)/R, its carry-out `hi` and the final
  subtraction (taken when hi:u >= p) are those of the word-by-word C.
- pseudo-Mersenne: the two folds and the final subtraction of the C.

In a Montgomery reduction a limb of p with a short signed-digit form
(0, 2^64 - 1, 2^a, 2^a - 1, 2^64 - 2^a + 1, ...: see `shift_plan`) costs no
multiply: m * p_j is built from LSL/LSR and ADDS/SUBS, ADC/SBC on the two
words of the product, the same 128-bit integer MUL/UMULH give.

AAPCS64: arguments in x0 (result), x1, x2; scratch x3-x17 first, then
x19-x28 saved in the frame; x18 (the platform register) and x29/x30 are
never written; sp stays 16-byte aligned.
"""

from __future__ import annotations

W = 64
MASK64 = (1 << W) - 1
# allocation order: the caller-saved scratch registers, then the callee-saved ones
SCRATCH = tuple(f"x{i}" for i in range(3, 18))
CALLEE = tuple(f"x{i}" for i in range(19, 29))
POOL = SCRATCH + CALLEE
ORDER = ("x1", "x2") + POOL
# registers a kernel may never write: the platform register, the frame and link registers
FORBIDDEN = ("x18", "x29", "x30")


class Mem:
    """An array in memory: `base` register plus a byte offset. base "sp" is the
    kernel's frame, whose offsets are fixed when the frame is laid out."""

    def __init__(self, base, off=0):
        self.base, self.off = base, off

    def addr(self, i):
        if self.base == "sp":
            return f"[sp, #@{self.off + 8 * i}@]"
        return f"[{self.base}, #{self.off + 8 * i}]"


class Arr:
    """k limbs, in registers (regs) or in memory (mem)."""

    def __init__(self, k, regs=None, mem=None):
        assert (regs is None) != (mem is None)
        assert regs is None or len(regs) == k
        self.k, self.regs, self.mem = k, regs, mem

    def get(self, kn, i, tmp):
        """The register that holds limb i: its own, or tmp loaded from memory."""
        assert 0 <= i < self.k
        if self.regs is not None:
            return self.regs[i]
        kn.op("ldr", tmp, self.mem.addr(i))
        return tmp

    def put(self, kn, i, src):
        """Limb i = the register src."""
        assert 0 <= i < self.k
        if self.regs is not None:
            if self.regs[i] != src:
                kn.op("mov", self.regs[i], src)
        else:
            kn.op("str", src, self.mem.addr(i))

    def dest(self, i, tmp):
        """Where to compute limb i: its own register, or tmp (then put it)."""
        return self.regs[i] if self.regs is not None else tmp


class Kernel:
    """One function: its body, the registers it uses and its frame."""

    def __init__(self, name, nargs):
        self.name = name
        self.lines = []
        self.free = list(POOL)
        self.args = ("x0", "x1", "x2")[:nargs]
        self.touched = set()
        self.frame = 0      # bytes of frame arrays
        self.counts = {}    # mnemonic -> count

    # registers
    def reg(self):
        r = self.free.pop(0)
        self.touched.add(r)
        return r

    def regs(self, k):
        return [self.reg() for _ in range(k)]

    def release(self, *rs):
        for r in rs:
            assert r in ORDER and r not in self.free, r
            self.free.append(r)
        self.free.sort(key=ORDER.index)

    def release_arr(self, arr):
        if arr.regs is not None:
            self.release(*arr.regs)

    def array(self, k, reserve=0, mem=None):
        """k limbs in registers if the pool keeps `reserve` free besides, else
        in `mem` (a pointer argument) or in the frame."""
        if len(self.free) - reserve >= k:
            return Arr(k, regs=self.regs(k))
        if mem is None:
            mem = Mem("sp", self.frame)
            self.frame += 8 * k
        return Arr(k, mem=mem)

    # instructions
    def op(self, mnemonic, *operands):
        for o in operands:
            assert o not in FORBIDDEN, (self.name, mnemonic, operands)
        self.counts[mnemonic] = self.counts.get(mnemonic, 0) + 1
        self.lines.append("\t" + mnemonic + ("\t" + ", ".join(operands) if operands else ""))

    def raw(self, text):
        self.lines.append(text)

    def comment(self, text):
        self.lines.append("\t// " + text)

    def mov_imm(self, reg, value):
        """reg = value (a public constant), by MOVZ/MOVN and MOVK."""
        value &= MASK64
        halves = [(value >> (16 * s)) & 0xffff for s in range(4)]
        if halves.count(0xffff) > halves.count(0):
            first = next((s for s in range(4) if halves[s] != 0xffff), None)
            if first is None:
                self.op("movn", reg, "#0")
                return
            self.op("movn", reg, "#0x%x" % (~halves[first] & 0xffff), "lsl #%d" % (16 * first))
            rest = [s for s in range(4) if s != first and halves[s] != 0xffff]
        else:
            first = next((s for s in range(4) if halves[s] != 0), None)
            if first is None:
                self.op("mov", reg, "xzr")
                return
            self.op("movz", reg, "#0x%x" % halves[first], "lsl #%d" % (16 * first))
            rest = [s for s in range(4) if s != first and halves[s] != 0]
        for s in rest:
            self.op("movk", reg, "#0x%x" % halves[s], "lsl #%d" % (16 * s))

    def table_address(self, reg, label):
        """reg = the address of the field's constant table (in .text, PC-relative)."""
        self.op("adr", reg, label)

    def text(self):
        """The function's body with its prologue and epilogue: the frame holds
        the callee-saved registers it uses (at the bottom) and its arrays."""
        saved = [r for r in CALLEE if r in self.touched]
        if len(saved) % 2:
            saved.append(None)
        save_bytes = 8 * len(saved)
        frame = save_bytes + self.frame
        frame += -frame % 16
        pro, epi = [], []
        if frame:
            pro.append("\tsub\tsp, sp, #%d" % frame)
            pro.append("\t.cfi_def_cfa_offset %d" % frame)
        for i in range(0, len(saved), 2):
            a, b = saved[i], saved[i + 1]
            if b is None:
                pro.append("\tstr\t%s, [sp, #%d]" % (a, 8 * i))
                pro.append("\t.cfi_offset %s, %d" % (a, 8 * i - frame))
                epi.append("\tldr\t%s, [sp, #%d]" % (a, 8 * i))
            else:
                pro.append("\tstp\t%s, %s, [sp, #%d]" % (a, b, 8 * i))
                pro.append("\t.cfi_offset %s, %d" % (a, 8 * i - frame))
                pro.append("\t.cfi_offset %s, %d" % (b, 8 * i + 8 - frame))
                epi.append("\tldp\t%s, %s, [sp, #%d]" % (a, b, 8 * i))
        if frame:
            epi.append("\tadd\tsp, sp, #%d" % frame)
            epi.append("\t.cfi_def_cfa_offset 0")
        body = []
        for line in self.lines:
            while "#@" in line:
                a = line.index("#@")
                b = line.index("@", a + 2)
                line = line[:a] + "#%d" % (save_bytes + int(line[a + 2:b])) + line[b + 1:]
            body.append(line)
        self.stack_bytes = frame
        return pro + body + epi + ["\tret"]


# ---------------------------------------------------------------------------
# Building blocks

# the most instructions a limb's shift-and-add product may take (else MUL/UMULH
# and the limb's load): research/aarch64/README.md has the model runs behind it
SHIFT_MAX = 4
# in a product-scanning column (the other Montgomery fields) at most this many:
# research/aarch64/README.md (2026-12-08) has the model runs behind both
SCAN_SHIFT_MAX = 2


def naf(v):
    """The non-adjacent form of v >= 0: [(sign, exponent)], fewest nonzero
    digits, exponents increasing."""
    out, e = [], 0
    while v:
        if v & 1:
            s = 2 - (v & 3)   # +1 when v = 1 mod 4, -1 when v = 3 mod 4
            out.append((s, e))
            v -= s
        v >>= 1
        e += 1
    return out


def shift_plan(v, limit=None):
    """How to compute the 128-bit product x * v of a register x by the public
    constant v (0 <= v < 2^64) without a multiplier, or None when it would
    take more than `limit` instructions (default SHIFT_MAX).

    Returns (ops, lo, hi): ops is a list of (mnemonic, operands) over the
    names "X" (x), "LO", "HI" (the product's two words, written), "T" (a
    scratch register) and "xzr"; lo and hi name where the product's words
    are afterwards ("X", "LO", "HI" or "xzr"). From v's signed digits
    v = sum s_k 2^e_k (0 <= e_k <= 64): a digit 2^0 gives x in the low word
    and 2^64 x in the high word, so one of each sign + costs nothing; every
    other digit adds or subtracts (x << e, x >> (64 - e)) on the two words
    with ADDS/ADC or SUBS/SBC. Each pair is exact modulo 2^128, and x v is
    below 2^128, so the two words are the product's."""
    digits = naf(v)
    lo, hi = "xzr", "xzr"
    rest = []
    for s, e in digits:
        if s > 0 and e == 0 and lo == "xzr":
            lo = "X"
        elif s > 0 and e == 64 and hi == "xzr":
            hi = "X"
        else:
            rest.append((s, e))
    # the additions first (a first one into two zero words is two shifts), then
    # the subtractions; 2^64 digits touch the high word alone, last
    rest.sort(key=lambda d: (d[1] == 64, -d[0], d[1]))
    ops = []
    for s, e in rest:
        if e == 64:
            ops.append(("add" if s > 0 else "sub", ("HI", hi, "X")))
            hi = "HI"
            continue
        if s > 0 and lo == "xzr" and e > 0:
            # the low word is zero: no carry out of it
            ops.append(("lsl", ("LO", "X", "#%d" % e)))
            if hi == "xzr":
                ops.append(("lsr", ("HI", "X", "#%d" % (64 - e))))
            else:
                ops.append(("lsr", ("T", "X", "#%d" % (64 - e))))
                ops.append(("add", ("HI", hi, "T")))
            lo, hi = "LO", "HI"
            continue
        low_op, high_op = ("adds", "adc") if s > 0 else ("subs", "sbc")
        if e == 0:
            ops.append((low_op, ("LO", lo, "X")))
            ops.append((high_op, ("HI", hi, "xzr")))
        else:
            ops.append(("lsl", ("T", "X", "#%d" % e)))
            ops.append((low_op, ("LO", lo, "T")))
            ops.append(("lsr", ("T", "X", "#%d" % (64 - e))))
            ops.append((high_op, ("HI", hi, "T")))
        lo, hi = "LO", "HI"
    if len(ops) > (SHIFT_MAX if limit is None else limit):
        return None
    return ops, lo, hi


class Acc:
    """A three-word column accumulator (c0 + c1 2^64 + c2 2^128) and the two
    product registers; `fresh` while it is known to be zero."""

    def __init__(self, kn, share=None):
        self.kn = kn
        self.c = kn.regs(3)
        self.own = share is None
        self.lo, self.hi = kn.regs(2) if share is None else (share.lo, share.hi)
        self.fresh = False

    def zero(self):
        """acc = 0 (its registers are written by the first term)."""
        self.fresh = True

    def mac(self, x, y):
        """acc += x * y."""
        kn, (c0, c1, c2) = self.kn, self.c
        if self.fresh:
            kn.op("mul", c0, x, y)
            kn.op("umulh", c1, x, y)
            kn.op("mov", c2, "xzr")
            self.fresh = False
            return
        kn.op("mul", self.lo, x, y)
        kn.op("umulh", self.hi, x, y)
        kn.op("adds", c0, c0, self.lo)
        kn.op("adcs", c1, c1, self.hi)
        kn.op("adc", c2, c2, "xzr")

    def mac_plan(self, x, plan, t):
        """acc += x * v for the constant v of `plan` (shift_plan(v)), without
        the multiplier; t is a scratch register. For v = 2^64 - 1 it is
        SUBS 0 - x, SBC x - 0: (x - [x != 0]) 2^64 + (-x mod 2^64)."""
        kn, (c0, c1, c2) = self.kn, self.c
        ops, lo, hi = plan
        names = {"X": x, "LO": self.lo, "HI": self.hi, "T": t, "xzr": "xzr"}
        for mnemonic, operands in ops:
            kn.op(mnemonic, *(names.get(o, o) for o in operands))
        lo, hi = names[lo], names[hi]
        if lo == "xzr" and hi == "xzr":
            return
        if self.fresh:
            kn.op("mov", c0, lo)
            kn.op("mov", c1, hi)
            kn.op("mov", c2, "xzr")
            self.fresh = False
            return
        kn.op("adds", c0, c0, lo)
        kn.op("adcs", c1, c1, hi)
        kn.op("adc", c2, c2, "xzr")

    def add_word(self, x):
        """acc += x (one word)."""
        kn, (c0, c1, c2) = self.kn, self.c
        if self.fresh:
            kn.op("mov", c0, x)
            kn.op("mov", c1, "xzr")
            kn.op("mov", c2, "xzr")
            self.fresh = False
            return
        kn.op("adds", c0, c0, x)
        kn.op("adcs", c1, c1, "xzr")
        kn.op("adc", c2, c2, "xzr")

    def add_acc(self, other, double=False):
        """acc += other (or 2 * other); other is left as it was (or doubled)."""
        kn, (c0, c1, c2), (d0, d1, d2) = self.kn, self.c, other.c
        if double:
            kn.op("adds", d0, d0, d0)
            kn.op("adcs", d1, d1, d1)
            kn.op("adc", d2, d2, d2)
        if self.fresh:
            kn.op("mov", c0, d0)
            kn.op("mov", c1, d1)
            kn.op("mov", c2, d2)
            self.fresh = False
            return
        kn.op("adds", c0, c0, d0)
        kn.op("adcs", c1, c1, d1)
        kn.op("adc", c2, c2, d2)
        self.fresh = False

    def shift(self, spare=None):
        """acc >>= 64: the registers rotate and the new top word is zeroed.
        With `spare`, the low word's register is handed over (it now holds a
        result limb) and spare becomes the top word; returns the low word's
        register."""
        c0, c1, c2 = self.c
        top = c0 if spare is None else spare
        if not self.fresh:
            self.kn.op("mov", top, "xzr")
        self.c = [c1, c2, top]
        return c0

    def release(self):
        self.kn.release(*self.c, *((self.lo, self.hi) if self.own else ()))


def load_all(kn, arr_src, k, base, off=0):
    """Copy k limbs from memory at [base, #off] into the registers of a new
    array (LDP pairs while the pair's offset is within LDP's reach)."""
    regs = kn.regs(k)
    i = 0
    while i < k:
        if i + 1 < k and off + 8 * i <= 504:
            kn.op("ldp", regs[i], regs[i + 1], f"[{base}, #{off + 8 * i}]")
            i += 2
        else:
            kn.op("ldr", regs[i], f"[{base}, #{off + 8 * i}]")
            i += 1
    return Arr(k, regs=regs)


def store_all(kn, arr, base, tmp1, tmp2):
    """Memory at base = the k limbs of arr."""
    i = 0
    while i < arr.k:
        if i + 1 < arr.k:
            x = arr.get(kn, i, tmp1)
            y = arr.get(kn, i + 1, tmp2)
            kn.op("stp", x, y, f"[{base}, #{8 * i}]")
            i += 2
        else:
            kn.op("str", arr.get(kn, i, tmp1), f"[{base}, #{8 * i}]")
            i += 1


def _column_out(kn, acc, T, k):
    """T_k = the accumulator's low word, then acc >>= 64. A register T_k
    takes the low word's register itself (no move)."""
    if T.regs is not None:
        T.regs[k] = acc.shift(spare=T.regs[k])
    else:
        T.put(kn, k, acc.c[0])
        acc.shift()


def product(kn, acc, A, B, T, n, square, tmp_a, tmp_b, d=None):
    """T (2n limbs) = A * B (or A^2), column by column; a squaring sums each
    column's off-diagonal products in d (sharing acc's product registers),
    doubles them and adds the square."""
    acc.zero()
    for k in range(2 * n - 1):
        pairs = [(i, k - i) for i in range(max(0, k - n + 1), min(k, n - 1) + 1)]
        if square:
            off = [(i, j) for i, j in pairs if i < j]
            if off:
                d.zero()
                for i, j in off:
                    d.mac(A.get(kn, i, tmp_a), A.get(kn, j, tmp_b))
                acc.add_acc(d, double=True)
            if k % 2 == 0:
                x = A.get(kn, k // 2, tmp_a)
                acc.mac(x, x)
        else:
            for i, j in pairs:
                acc.mac(A.get(kn, i, tmp_a), B.get(kn, j, tmp_b))
        _column_out(kn, acc, T, k)
    if T.regs is not None:
        # the last word's register becomes T's; T's old one joins the accumulator
        T.regs[2 * n - 1], acc.c[0] = acc.c[0], T.regs[2 * n - 1]
    else:
        T.put(kn, 2 * n - 1, acc.c[0])


def mont_reduce(kn, fa, acc, T, U, ptab, tmp, tmp2):
    """U (n limbs) = (T + m p) / R without the final subtraction; returns the
    register of its carry-out hi (0 or 1 for T < p R)."""
    n = fa.n
    p = fa.p_limbs
    m0 = None
    if fa.m0inv != 1:
        m0 = kn.reg()
        kn.mov_imm(m0, fa.m0inv)
    M = kn.array(n, reserve=1)
    plans = [shift_plan(v, SCAN_SHIFT_MAX) for v in p]

    def mac_p(x, j):
        """acc += x * p_j: by shifts where p_j's plan allows, else MUL/UMULH."""
        if plans[j] is not None:
            acc.mac_plan(x, plans[j], tmp2)
        else:
            acc.mac(x, kn_p(kn, ptab, j, tmp2))

    acc.zero()
    for i in range(2 * n):
        acc.add_word(T.get(kn, i, tmp))
        for j in range(max(0, i - n + 1), min(i, n)):
            if p[i - j] != 0:
                mac_p(M.get(kn, j, tmp), i - j)
        if i < n:
            # m_i = column * (-p^-1) mod 2^64, then the column's low word is zero
            mi = M.dest(i, tmp)
            if m0 is None:
                kn.op("mov", mi, acc.c[0])
            else:
                kn.op("mul", mi, acc.c[0], m0)
            M.put(kn, i, mi)
            if m0 is None and p[0] == MASK64:
                # p = -1 mod 2^64, m_i = c0: acc + m_i (2^64 - 1) = c0 2^64 + (c1, c2)
                kn.op("adds", acc.c[1], acc.c[1], acc.c[0])
                kn.op("adc", acc.c[2], acc.c[2], "xzr")
            else:
                mac_p(mi, 0)
            acc.shift()
        else:
            _column_out(kn, acc, U, i - n)
    if m0 is not None:
        kn.release(m0)
    kn.release_arr(M)
    return acc.c[0]


def row_plans(fa):
    """The shift plans of the whole-row reduction, or None where it does not
    apply. It needs p = -1 mod 2^64 (so -p^-1 mod 2^64 = 1, m_i = the low
    word, and m_i p_0 cancels it into a carry of m_i), and every limb of
    Q = (p + 1) / 2^64 (n - 1 limbs) zero or multiplied by shifts."""
    n = fa.n
    if fa.m0inv != 1 or n < 2:
        return None
    q = (fa.p + 1) >> W
    plans = [shift_plan((q >> (W * j)) & MASK64) for j in range(n - 1)]
    if any(pl is None for pl in plans):
        return None
    return plans


def mont_rows(kn, fa, acc, T, plans, tmp, tmp2):
    """The Montgomery reduction by rows (operand scanning) for p = -1 mod
    2^64 (row_plans): a window Wd of n words starts as t's low half; each of
    the n rows takes m = Wd_0 and sets Wd = Wd_1..Wd_(n-1) + m Q, which is
    (Wd + m p) / 2^64 since Wd_0 + m p_0 = m 2^64. Wd_1..Wd_(n-1) < 2^(64(n-1))
    and m Q <= (2^64 - 1)(2^(64(n-1)) - 1), so the row's sum is below
    2^(64n): n words, no carry out of the top. After the rows
    Wd = (t_lo + m p) / R, and U = Wd + t_hi with carry-out hi. The digits m_i
    are those of the word-by-word C, so U and hi are its integers.
    Returns (U, hi): U in registers."""
    n = fa.n
    # the window: t's low registers where t lives in registers
    if T.regs is not None:
        Wd = list(T.regs[:n])
    else:
        Wd = kn.regs(n)
        for i in range(0, n - 1, 2):
            kn.op("ldp", Wd[i], Wd[i + 1], T.mem.addr(i))
        if n % 2:
            kn.op("ldr", Wd[n - 1], T.mem.addr(n - 1))
    spare = [acc.lo, acc.hi] + list(acc.c)
    for _ in range(n):
        m = Wd[0]
        # the products m Q_j, word pairs (lo, hi) at words j, j + 1 of the new window
        words = [[] for _ in range(n)]
        pool = list(spare)
        shifted = {}    # (lsl or lsr, #e) -> the register holding that shift of m
        for j, plan in enumerate(plans):
            ops, lo, hi = plan
            if lo == "xzr" and hi == "xzr":
                continue
            if len(pool) < 2:
                pool += [kn.reg(), kn.reg()]
                spare += pool[-2:]
            names = {"X": m, "LO": pool.pop(0), "HI": pool.pop(0), "T": tmp2, "xzr": "xzr"}
            for i, (mnemonic, operands) in enumerate(ops):
                dest = operands[0]
                key = (mnemonic, operands[2]) if mnemonic in ("lsl", "lsr") and operands[1] == "X" else None
                later = [o for o in ops[i + 1:] if o[1][0] == dest]
                if key in shifted and (not later or later[0][0] in ("lsl", "lsr")):
                    # the same shift of m is in a register already (another
                    # product's word, unchanged until the row's sums)
                    names[dest] = shifted[key]
                    continue
                kn.op(mnemonic, *(names.get(o, o) for o in operands))
                written = names[dest]
                for k_ in [k_ for k_, r_ in shifted.items() if r_ == written]:
                    del shifted[k_]
                if key is not None and dest != "T" and not later:
                    shifted[key] = written
            if lo != "xzr":
                words[j].append(names[lo])
            if hi != "xzr":
                words[j + 1].append(names[hi])
        # new window: words k < n - 1 accumulate in place of Wd_(k+1); the
        # top word is a new register (m's is released after the row)
        top = kn.reg()
        new = Wd[1:] + [top]
        # one carry chain per addend a word may have (at most two: a product's
        # low word and the previous one's high word)
        for chain in range(max(len(w) for w in words)):
            first = next(k for k in range(n) if len(words[k]) > chain)
            for k in range(first, n):
                add = words[k][chain] if len(words[k]) > chain else "xzr"
                if k < n - 1:
                    kn.op("adds" if k == first else "adcs", new[k], new[k], add)
                elif chain == 0:
                    # the top word: below 2^64 with every carry (see above)
                    if k == first:
                        kn.op("mov", top, add)
                    else:
                        kn.op("adc", top, add, "xzr")
                else:
                    kn.op("adc" if k > first else "add", top, top, add)
        kn.release(m)
        Wd = new
    # U = Wd + t_hi, carry-out hi
    hi = kn.reg()
    for i in range(n):
        kn.op("adds" if i == 0 else "adcs", Wd[i], Wd[i], T.get(kn, n + i, tmp))
    kn.op("adc", hi, "xzr", "xzr")
    if T.regs is not None:
        kn.release(*T.regs[n:])
    return Arr(n, regs=Wd), hi


def kn_p(kn, ptab, j, tmp):
    """tmp = p_j, from the constant table."""
    kn.op("ldr", tmp, f"[{ptab}, #{8 * j}]")
    return tmp


def final_subtract(kn, fa, U, hi, ptab, out, S, tmp, tmp2):
    """out = U - p if hi:U >= p, else U (canonical), limb by limb with CSEL on
    the chain's last carry (AArch64: C set = no borrow)."""
    n = fa.n
    p = fa.p_limbs
    for j in range(n):
        u = U.get(kn, j, tmp)
        s = S.dest(j, tmp)
        pj = "xzr" if p[j] == 0 else kn_p(kn, ptab, j, tmp2)
        kn.op("subs" if j == 0 else "sbcs", s, u, pj)
        S.put(kn, j, s)
    if hi is not None:
        kn.op("sbcs", "xzr", hi, "xzr")   # hi:U - p >= 0 leaves C set
    for j in range(n):
        s = S.get(kn, j, tmp)
        u = U.get(kn, j, tmp2)
        kn.op("csel", tmp, s, u, "cs")
        out.put(kn, j, tmp)


def store_out(kn, arr, base, tmp1, tmp2):
    if arr.mem is not None and arr.mem.base == base:
        return
    store_all(kn, arr, base, tmp1, tmp2)


def pm_reduce(kn, fa, acc, T, out_base, tmp, tmp2, lazy=False):
    """out = T mod p, canonical: the two folds and one subtraction of the C.
    lazy: the two folds alone, the C's value before its subtraction (below
    2p for any t below 2^(128n): every operand limb pattern is in range)."""
    n = fa.n
    c_fold, c_low, top_bits = fa.c_fold, fa.c, fa.k_top_bits
    assert 0 < top_bits < 64
    cf = kn.reg()
    kn.mov_imm(cf, c_fold)
    Wd = kn.array(n, reserve=2)
    lo, hi = acc.lo, acc.hi
    carry = acc.c[0]
    # fold 1: w + top 2^(64n) = t_lo + t_hi * C_FOLD
    for i in range(n):
        x = T.get(kn, n + i, tmp)
        kn.op("mul", lo, x, cf)
        kn.op("umulh", hi, x, cf)
        kn.op("adds", lo, lo, T.get(kn, i, tmp))
        kn.op("adc", hi, hi, "xzr")
        if i > 0:
            kn.op("adds", lo, lo, carry)
            kn.op("adc", hi, hi, "xzr")
        Wd.put(kn, i, lo)
        kn.op("mov", carry, hi)
    # fold 2: q = (w + top 2^(64n)) >> k; w mod 2^k + q C_LOW
    q = acc.c[1]
    top = Wd.get(kn, n - 1, tmp)
    kn.op("extr", q, carry, top, "#%d" % top_bits)
    kn.op("and", top, top, "#0x%x" % ((1 << top_bits) - 1))
    Wd.put(kn, n - 1, top)
    kn.mov_imm(cf, c_low)
    kn.op("mul", lo, q, cf)
    kn.op("umulh", hi, q, cf)
    w0 = Wd.get(kn, 0, tmp)
    kn.op("adds", w0, w0, lo)
    Wd.put(kn, 0, w0)
    for i in range(1, n):
        w = Wd.get(kn, i, tmp)
        kn.op("adcs", w, w, hi if i == 1 else "xzr")
        Wd.put(kn, i, w)
    kn.release(cf)
    if lazy:
        store_out(kn, Wd, out_base, tmp, tmp2)
        kn.release_arr(Wd)
        return
    ptab = acc.c[2]
    kn.table_address(ptab, "@P@")
    S = kn.array(n, reserve=0)
    out = Arr(n, mem=Mem(out_base))
    final_subtract(kn, fa, Wd, None, ptab, out, S, tmp, tmp2)
    kn.release_arr(S)
    kn.release_arr(Wd)


# ---------------------------------------------------------------------------
# Kernels

def _operands(kn, n, square):
    """A (and B) in registers where they fit, else B behind its pointer.
    Returns (A, B, whether every operand limb is in a register)."""
    A = load_all(kn, None, n, "x1")
    if square:
        kn.release("x1")
        return A, None, True
    if len(kn.free) - 8 >= n:
        B = load_all(kn, None, n, "x2")
        kn.release("x1", "x2")
        return A, B, True
    kn.release("x1")
    return A, Arr(n, mem=Mem("x2")), False


def emit_wide(fa, name, square):
    """mul_wide / sqr_wide: t = a*b (a^2), 2n limbs."""
    n = fa.n
    kn = Kernel(name, 2 if square else 3)
    kn.comment("t[0..%d) = a * %s (product scanning)" % (2 * n, "a" if square else "b"))
    A, B, all_regs = _operands(kn, n, square)
    acc = Acc(kn)
    d = Acc(kn, share=acc) if square and n > 1 else None
    tmp_a, tmp_b = kn.regs(2)
    if all_regs:
        T = Arr(2 * n, mem=Mem("x0"))  # every input is read: t may alias a or b
    else:
        T = kn.array(2 * n, reserve=0)
    product(kn, acc, A, B, T, n, square, tmp_a, tmp_b, d)
    if T.mem is None or T.mem.base != "x0":
        store_all(kn, T, "x0", tmp_a, tmp_b)
    return kn


def emit_mul(fa, name, square, op="mul"):
    """mul / sqr (and the lazy forms): the product, then the reduction."""
    n = fa.n
    lazy = op.endswith("_lazy")
    kn = Kernel(name, 2 if square else 3)
    kn.comment("r = a * %s %s" % ("a" if square else "b",
                                  "R^-1 mod p" if fa.form == "montgomery" else "mod p"))
    A, B, all_regs = _operands(kn, n, square)
    acc = Acc(kn)
    d = Acc(kn, share=acc) if square and n > 1 else None
    tmp, tmp2 = kn.regs(2)
    T = kn.array(2 * n, reserve=0)
    product(kn, acc, A, B, T, n, square, tmp, tmp2, d)
    if d is not None:
        d.release()
    kn.release_arr(A)
    if B is not None:
        kn.release_arr(B)
    _reduce(kn, fa, acc, T, tmp, tmp2, lazy)
    return kn


def emit_redc(fa, name):
    kn = Kernel(name, 2)
    kn.comment("r = t %s" % ("R^-1 mod p" if fa.form == "montgomery" else "mod p"))
    acc = Acc(kn)
    tmp, tmp2 = kn.regs(2)
    T = Arr(2 * fa.n, mem=Mem("x1"))
    _reduce(kn, fa, acc, T, tmp, tmp2, False)
    return kn


def _reduce(kn, fa, acc, T, tmp, tmp2, lazy):
    n = fa.n
    if fa.form == "pseudo_mersenne":
        pm_reduce(kn, fa, acc, T, "x0", tmp, tmp2, lazy)
        return
    ptab = kn.reg()
    kn.table_address(ptab, "@P@")
    plans = row_plans(fa)
    if plans is not None and len(kn.free) >= 3 + (0 if T.regs is not None else n):
        U, hi = mont_rows(kn, fa, acc, T, plans, tmp, tmp2)
    else:
        # U: the reduced words; r itself when no register is left (written only
        # after the column that last reads the same place of t: r may alias t)
        U = kn.array(n, reserve=n + 1, mem=Mem("x0") if lazy else None)
        hi = mont_reduce(kn, fa, acc, T, U, ptab, tmp, tmp2)
    out = Arr(n, mem=Mem("x0"))
    if lazy:
        store_out(kn, U, "x0", tmp, tmp2)
    else:
        S = kn.array(n, reserve=0)
        final_subtract(kn, fa, U, hi, ptab, out, S, tmp, tmp2)
        kn.release_arr(S)
    kn.release_arr(U)
    kn.release(ptab)


OPS = ("mul", "sqr", "mul_wide", "sqr_wide", "redc")
LAZY = ("mul_lazy", "sqr_lazy")


def build(fa, op, symbol):
    if op == "mul_wide":
        return emit_wide(fa, symbol, False)
    if op == "sqr_wide":
        return emit_wide(fa, symbol, True)
    if op == "redc":
        return emit_redc(fa, symbol)
    if op in ("mul", "mul_lazy"):
        return emit_mul(fa, symbol, False, op)
    if op in ("sqr", "sqr_lazy"):
        return emit_mul(fa, symbol, True, op)
    raise ValueError(op)
