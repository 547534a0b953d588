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

The split is balanced, so the squarings and corrections add up to about
(nb/2) log2(K) squarings and (K/2) log2(K) multiplications, against the
classical algorithm's nb^2/2 squarings. Last, g^-e by Horner's rule over
the same digits from the top: acc = P[d_(K-1)], acc = acc^(2^w_i) P[d_i],
with P[c] = g^-c; the root is x acc.

Constant time: the program depends on p only; every table read scans the
whole table with masks (no index, no branch on a digit).
"""

from __future__ import annotations

# Table memory the window choice stays within when it can; when no window
# fits (only for primes of many limbs with a 2-adicity in the hundreds), the
# smallest tables are taken.
TABLE_BUDGET_BYTES = 32 * 1024
MAX_WINDOW = 6


def _widths(nb: int, w: int) -> list:
    """Digit widths, low first: all w but the lowest, which takes the rest."""
    k = (nb + w - 1) // w
    return [nb - w * (k - 1)] + [w] * (k - 1)


class _Builder:
    """Emits the straight-line program of the recursion."""

    def __init__(self, nb, widths):
        self.nb, self.widths = nb, widths
        self.bounds = [0]
        for w in widths:
            self.bounds.append(self.bounds[-1] + w)
        self.program = []      # ops, see params()
        self.tables = {}       # key -> table index; key = ("corr", shift, size)
        self.table_keys = []
        self.temps = 0

    def table(self, key):
        if key not in self.tables:
            self.tables[key] = len(self.table_keys)
            self.table_keys.append(key)
        return self.tables[key]

    def solve(self, y, i, j, depth):
        """Emit code that finds digits [i, j) from temp y = G^(2^(nb-m) f)."""
        self.temps = max(self.temps, depth + 1)
        if j == i + 1:
            self.program.append(("ident", i, y))
            return
        B = self.bounds
        h = i + (j - i) // 2
        z = depth + 1
        self.temps = max(self.temps, z + 1)
        self.program.append(("sqr", z, y, B[j] - B[h]))
        self.solve(z, i, h, z)
        for k in range(i, h):
            shift = self.nb - B[j] + B[k]
            self.program.append(("corr", y, self.table(("corr", shift, 1 << self.widths[k])), k))
        self.solve(y, h, j, depth)


def plan(nb: int, w: int) -> dict:
    widths = _widths(nb, w)
    b = _Builder(nb, widths)
    b.solve(0, 0, len(widths), 0)
    return {"widths": widths, "bounds": b.bounds, "program": b.program,
            "corr_tables": b.table_keys, "temps": b.temps}


def _cost(pl: dict, n: int) -> float:
    """Estimated cycles of the logarithm and the final power (mul ~ 1.8 n^2 + 8,
    sqr 0.85 of it, a table scan ~0.6 cycles a word): only to rank windows."""
    mul = 1.8 * n * n + 8
    sqr = 0.85 * mul
    total = 0.0
    for op in pl["program"]:
        if op[0] == "sqr":
            total += op[3] * sqr
        elif op[0] == "corr":
            total += mul + pl["corr_tables"][op[2]][2] * n * 0.6
        elif op[0] == "ident":
            total += (1 << max(pl["widths"])) * (n * 0.5 + 2)
    widths = pl["widths"]
    total += sum(widths[:-1]) * sqr + len(widths) * (mul + (1 << max(widths)) * n * 0.6)
    return total


def table_entries(pl: dict) -> int:
    """Entries of every table (each n words): the corrections, IDENT and P,
    less the entry for digit 0 of each (always 1, which the scans start from)."""
    wide = 1 << max(pl["widths"])
    return sum(size - 1 for _, _, size in pl["corr_tables"]) + 2 * (wide - 1)


def classic_cost(s: int, n: int) -> float:
    """The same estimate for the classical constant-time algorithm (a fixed
    s - 1 rounds, round i squaring i - 2 times): for the tests and the report."""
    mul = 1.8 * n * n + 8
    return (s - 1) * (s - 2) / 2 * 0.85 * mul + 2 * (s - 1) * mul


def params(p: int, n: int, s: int, g: int, window: int = 0) -> dict:
    """The window, tables and program for p (p - 1 = 2^s q, g of order 2^s):
    the window of least estimated cost whose tables fit TABLE_BUDGET_BYTES,
    else the one with the smallest tables; `window` forces one (tests)."""
    assert s >= 2 and pow(g, 1 << (s - 1), p) == p - 1
    nb = s - 1
    if window:
        pl = plan(nb, window)
    else:
        plans = [plan(nb, w) for w in range(1, min(MAX_WINDOW, nb) + 1)]
        fits = [pl for pl in plans if table_entries(pl) * 8 * n <= TABLE_BUDGET_BYTES]
        if fits:
            pl = min(fits, key=lambda pl: _cost(pl, n))
        else:
            pl = min(plans, key=table_entries)
    G = g * g % p
    W = max(pl["widths"])
    ginv = pow(g, -1, p)
    Ginv = pow(G, -1, p)
    tables = []
    for _, shift, size in pl["corr_tables"]:
        base = pow(Ginv, 1 << shift, p)
        tables.append([pow(base, c, p) for c in range(1, size)])
    ident_base = pow(G, 1 << (nb - W), p)
    ident = [pow(ident_base, c, p) for c in range(1, 1 << W)]
    ptab = [pow(ginv, c, p) for c in range(1, 1 << W)]
    squarings = sum(op[3] for op in pl["program"] if op[0] == "sqr") + sum(pl["widths"][:-1])
    corrections = sum(1 for op in pl["program"] if op[0] == "corr")
    K = len(pl["widths"])
    return {
        "s": s,
        "window": W,
        "digits": K,
        "widths": pl["widths"],
        "program": pl["program"],
        "temps": pl["temps"],
        "corr_tables": tables,     # values (plain), without the entry for 0
        "ident": ident,            # IDENT[1..2^W-1]
        "ptab": ptab,              # P[1..2^W-1]
        "entries": table_entries(pl),
        "bytes": table_entries(pl) * 8 * n,
        "squarings": squarings,
        "multiplications": corrections + K + 1,
        "text": (f"{K} digit{'s' if K > 1 else ''} of up to {W} bits, {squarings} squarings and "
                 f"{corrections + K + 1} multiplications with table lookups"),
    }


def _lookup(table, c):
    """table[c] with table[0] = 1 implied (the scan starts from one)."""
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
    for op in pr["program"]:
        if op[0] == "sqr":
            _, dst, src, count = op
            v = temps[src]
            for _ in range(count):
                v = v * v % p
            temps[dst] = v
        elif op[0] == "corr":
            _, dst, tab, k = op
            assert d[k] is not None, "correction by a digit not yet found"
            temps[dst] = temps[dst] * _lookup(pr["corr_tables"][tab], d[k]) % p
        else:  # ident
            _, k, src = op
            c = 0
            for i, v in enumerate(pr["ident"]):
                if temps[src] == v:
                    c = i + 1
            d[k] = c >> (W - widths[k])
    acc = _lookup(pr["ptab"], d[-1])
    for k in range(len(widths) - 2, -1, -1):
        for _ in range(widths[k]):
            acc = acc * acc % p
        acc = acc * _lookup(pr["ptab"], d[k]) % p
    return x * acc % p
