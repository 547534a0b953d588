# SPDX-License-Identifier: MIT OR Apache-2.0
"""The constant-time square root for p = 1 mod 8: Tonelli-Shanks with the
discrete logarithm found a window of bits at a time, by a fixed recursion.

The template c_exp.j2 renders what params() returns: tables of constants
and a straight-line program. reference() runs that same program on Python
integers, so tests check the program, the tables and the algorithm at once.

Algorithm. p - 1 = 2^s q with q odd; g = z^q (z the smallest non-residue)
has order 2^s, and G = g^2 has order 2^nb with nb = s - 1. For a square a:

    x = a^((q+1)/2),  t = a^q,  so x^2 = a t,

and t lies in the group of order 2^nb, so t = G^e for one e < 2^nb. Then
x g^-e is a root: (x g^-e)^2 = a t G^-e = a. For a non-square t is not a
power of G; the program still runs, on the same schedule, and returns some
value that the caller's check (root^2 = a) rejects.

Finding e. Write e in K digits d_0 .. d_(K-1) (low first) of widths w_i,
with B_i = w_0 + ... + w_(i-1) (B_0 = 0, B_K = nb). For a run of digits
[i, j) let m = B_j - B_i. An element y = G^(2^(nb-m) f) with f < 2^m (the
digits i..j-1 of e, as one number) is solved like this:

  - one digit (j = i + 1): y is one of the 2^w_i powers of a 2^w_i-th root
    of unity; compare it with every entry of the table IDENT[c] =
    G^(c 2^(nb-W)), W the widest digit: y = IDENT[f 2^(W - w_i)].
  - more: split at h. The low digits [i, h) come from y^(2^(B_j - B_h)) =
    G^(2^(nb - (B_h - B_i)) f_low), the same problem on m' = B_h - B_i bits
    (B_j - B_h squarings). Then y G^(-2^(nb-m) f_low) = G^(2^(nb - (B_j -
    B_h)) f_high) is the problem for [h, j). The correction is a product of
    one table entry per low digit: G^(-d_k 2^(nb - B_j + B_k)) for k in
    [i, h), so each table is indexed by a digit's value.

The split points come from a dynamic program over a cost estimate
(squarings of the high part against a multiplication and a table scan per
low digit); split in the middle, the squarings and corrections add up to
about (nb/2) log2(K) squarings and (K/2) log2(K) multiplications, against
the classical algorithm's nb^2/2 squarings, and the chosen splits never
cost more than that. Last, g^-e = prod g^(-d_k 2^B_k): one table entry per
digit (tables of g^(-c 2^shift), shared with the corrections' where the
shifts coincide; G^(-c 2^h) is g^(-c 2^(h+1))); the root is x g^-e.

Constant time: the program depends on p only; every table read scans the
whole table with masks (no index, no branch on a digit).
"""

from __future__ import annotations

# Table memory the window choice stays within when it can; when no window
# fits (only for primes of many limbs with a 2-adicity in the hundreds), the
# smallest tables are taken.
TABLE_BUDGET_BYTES = 32 * 1024
MAX_WINDOW = 6
DP_DIGITS = 100


def _widths(nb: int, w: int) -> list:
    """Digit widths, low first: all w but the lowest, which takes the rest."""
    k = (nb + w - 1) // w
    return [nb - w * (k - 1)] + [w] * (k - 1)


def _unit_costs(n: int):
    """Estimated cycles (mul ~ 1.8 n^2 + 8, sqr 0.85 of it, a table scan ~0.6
    cycles a word, a comparison ~0.5): only to rank plans against each other."""
    mul = 1.8 * n * n + 8
    return mul, 0.85 * mul, 0.6 * n, 0.5 * n + 2


class _Builder:
    """Plans the recursion (the split points by dynamic programming on the
    cost estimate) and emits its straight-line program."""

    def __init__(self, nb, widths, n):
        self.nb, self.widths = nb, widths
        self.bounds = [0]
        for w in widths:
            self.bounds.append(self.bounds[-1] + w)
        self.program = []      # ops, see params()
        self.shifts = {}       # exponent shift (base g) -> table index
        self.sizes = []        # table index -> entries scanned at most, plus one
        self.temps = 0
        mul, sqr, scan, cmp = _unit_costs(n)
        W = max(widths)
        K = len(widths)
        B = self.bounds
        # best[i, j] = (cost, split) of solving digits [i, j); corr[k] = the
        # cost of the corrections by digits below k (prefix sums)
        corr = [0.0]
        for x in widths:
            corr.append(corr[-1] + mul + (1 << x) * scan)
        best = {}
        for length in range(1, K + 1):
            for i in range(K - length + 1):
                j = i + length
                if length == 1:
                    best[i, j] = ((1 << W) * cmp, None)
                    continue
                # every split point while K is small; the middle one beyond
                # (only the 2-adicities in the hundreds: O(K^3) in Python)
                splits = range(i + 1, j) if K <= DP_DIGITS else [i + length // 2]
                best[i, j] = min(((B[j] - B[h]) * sqr + best[i, h][0] + best[h, j][0]
                                  + corr[h] - corr[i], h) for h in splits)
        self.best = best
        self.cost = best[0, K][0] + sum(mul + (1 << x) * scan for x in widths)

    def table(self, shift, size):
        """Index of the table of g^(-c 2^shift), c < size."""
        if shift not in self.shifts:
            self.shifts[shift] = len(self.sizes)
            self.sizes.append(size)
        t = self.shifts[shift]
        self.sizes[t] = max(self.sizes[t], size)
        return t

    def solve(self, y, i, j, depth):
        """Emit code that finds digits [i, j) from temp y = G^(2^(nb-m) f)."""
        self.temps = max(self.temps, depth + 1)
        if j == i + 1:
            self.program.append(("ident", i, y))
            return
        B = self.bounds
        h = self.best[i, j][1]
        z = depth + 1
        self.program.append(("sqr", z, y, B[j] - B[h]))
        self.solve(z, i, h, z)
        for k in range(i, h):
            # G^(-d_k 2^(nb - B_j + B_k)) = g^(-d_k 2^(nb + 1 - B_j + B_k))
            t = self.table(self.nb + 1 - B[j] + B[k], 1 << self.widths[k])
            self.program.append(("corr", y, t, k))
        self.solve(y, h, j, depth)


def plan(nb: int, w: int, n: int) -> dict:
    """The program for an nb-bit logarithm in digits of up to w bits, for n
    limbs (the limb count weighs squarings against lookups in the splits)."""
    widths = _widths(nb, w)
    b = _Builder(nb, widths, n)
    b.solve(0, 0, len(widths), 0)
    for k in range(len(widths)):  # the root: x g^-e = x prod g^(-d_k 2^B_k)
        b.program.append(("final", b.table(b.bounds[k], 1 << widths[k]), k))
    return {"widths": widths, "bounds": b.bounds, "program": b.program,
            "shifts": sorted(b.shifts, key=b.shifts.get), "sizes": b.sizes,
            "temps": b.temps, "cost": b.cost}


def table_entries(pl: dict) -> int:
    """Entries of every table (each n words): the powers of g and IDENT, less
    the entry for digit 0 of each (always 1, which the scans start from)."""
    return sum(size - 1 for size in pl["sizes"]) + (1 << max(pl["widths"])) - 1


def params(p: int, n: int, s: int, g: int, window: int = 0) -> dict:
    """The window, tables and program for p (p - 1 = 2^s q, g of order 2^s):
    the window of least estimated cost whose tables fit TABLE_BUDGET_BYTES,
    else the one with the smallest tables; `window` forces one (tests)."""
    assert s >= 2 and pow(g, 1 << (s - 1), p) == p - 1
    nb = s - 1
    if window:
        pl = plan(nb, window, n)
    else:
        plans = [plan(nb, w, n) for w in range(1, min(MAX_WINDOW, nb) + 1)]
        fits = [pl for pl in plans if table_entries(pl) * 8 * n <= TABLE_BUDGET_BYTES]
        if fits:
            pl = min(fits, key=lambda pl: pl["cost"])
        else:
            pl = min(plans, key=table_entries)
    G = g * g % p
    W = max(pl["widths"])
    ginv = pow(g, -1, p)
    tables = []
    for shift, size in zip(pl["shifts"], pl["sizes"]):
        base = pow(ginv, 1 << shift, p)
        tables.append([pow(base, c, p) for c in range(1, size)])
    ident_base = pow(G, 1 << (nb - W), p)
    ident = [pow(ident_base, c, p) for c in range(1, 1 << W)]
    squarings = sum(op[3] for op in pl["program"] if op[0] == "sqr")
    multiplications = sum(1 for op in pl["program"] if op[0] in ("corr", "final"))
    K = len(pl["widths"])
    return {
        "s": s,
        "window": W,
        "digits": K,
        "widths": pl["widths"],
        "program": pl["program"],
        "temps": pl["temps"],
        "tables": tables,          # tables[t][c - 1] = g^(-c 2^shifts[t]) (plain values)
        "shifts": pl["shifts"],
        "ident": ident,            # ident[c - 1] = G^(c 2^(nb - W)), c = 1 .. 2^W - 1
        "entries": table_entries(pl),
        "bytes": table_entries(pl) * 8 * n,
        "squarings": squarings,
        "multiplications": multiplications,
        "text": (f"{K} digit{'s' if K > 1 else ''} of up to {W} bits, {squarings} squarings and "
                 f"{multiplications} multiplication{'s' if multiplications > 1 else ''} with table lookups"),
    }


def _lookup(table, c):
    """table[c - 1], or 1 for c = 0 (the scan starts from one)."""
    return 1 if c == 0 else table[c - 1]


def reference(a: int, p: int, pr: dict) -> int:
    """The C program on Python integers: a candidate root of a (a root
    whenever a is a square). pr = params() for p."""
    a %= p
    q = (p - 1) >> pr["s"]
    z = pow(a, (q - 1) // 2, p)      # pow_sqrt
    x = z * a % p                    # a^((q+1)/2)
    t = z * z % p * a % p            # a^q
    W = pr["window"]
    widths = pr["widths"]
    temps = [t] + [0] * (pr["temps"] - 1)
    d = [None] * pr["digits"]
    r = x
    for op in pr["program"]:
        if op[0] == "sqr":
            _, dst, src, count = op
            v = temps[src]
            for _ in range(count):
                v = v * v % p
            temps[dst] = v
        elif op[0] == "ident":
            _, k, src = op
            c = 0
            for i, v in enumerate(pr["ident"]):
                if temps[src] == v:
                    c = i + 1
            d[k] = c >> (W - widths[k])
        else:  # corr, final: a digit's table entry
            k = op[-1]
            assert d[k] is not None and d[k] < 1 << widths[k], "digit not yet found"
            v = _lookup(pr["tables"][op[-2]], d[k])
            if op[0] == "corr":
                temps[op[1]] = temps[op[1]] * v % p
            else:
                r = r * v % p
    return r
