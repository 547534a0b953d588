# SPDX-License-Identifier: MIT OR Apache-2.0
"""Addition chains for fixed public exponents (inversion, square roots,
Legendre symbol), chosen by a short search and verified by exponent
arithmetic before they are emitted.

A chain is a straight-line program over numbered registers; register 0 holds
the input x. Instructions:
    ("sqr", dst, src, k)   dst = src^(2^k)        (k squarings)
    ("mul", dst, a, b)     dst = a * b
The search tries left-to-right sliding windows of every width w = 1..7 over
the whole exponent, and the same with the leading run of ones built first by
doubling (x^(2^m - 1) in about log2(m) multiplications, which pays off for
exponents such as p - 2 of a pseudo-Mersenne prime). Each of these also runs
with run digits: x^(2^L - 1) for L = 2w, 4w, ..., 2^J w, built by doubling
from the table's x^(2^w - 1) (L squarings and one multiplication each), which
a window takes in place of L/w ordinary windows wherever L ones stand in a
row. Runs that are not leading are common: p - 2, (p - 1)/2 and (p - 3)/4 of
p = 2^e 3^f - 1 end in e - 2 ones (p503: 106 multiplications without run
digits, 72 with), and NIST P-256's and P-384's exponents carry runs of 32 and
more in the middle. The search keeps the cheapest chain under the cost model
below; it takes a few milliseconds for a 1000-bit exponent.
"""

from __future__ import annotations

from dataclasses import dataclass

SQR_COST = 0.8   # a squaring relative to a multiplication


@dataclass
class Chain:
    exponent: int
    program: list      # instructions, see module docstring
    registers: int     # registers used (register 0 is the input)
    result: int        # register holding x^exponent
    squarings: int
    multiplications: int
    method: str

    @property
    def cost(self):
        return self.squarings * SQR_COST + self.multiplications


class _Builder:
    def __init__(self):
        self.program = []
        self.nregs = 1
        self.sqr = 0
        self.mul = 0

    def new(self):
        self.nregs += 1
        return self.nregs - 1

    def square(self, dst, src, k):
        if k == 0:
            if dst != src:
                raise AssertionError("zero squarings into another register")
            return
        # merge with a preceding squaring of the same register
        if self.program and self.program[-1][0] == "sqr" and self.program[-1][1] == dst == src:
            _, d, s, k0 = self.program.pop()
            self.program.append(("sqr", d, s, k0 + k))
        else:
            self.program.append(("sqr", dst, src, k))
        self.sqr += k

    def multiply(self, dst, a, b):
        self.program.append(("mul", dst, a, b))
        self.mul += 1


def _ones_run(b, m):
    """Register holding x^(2^m - 1), built by doubling the run length."""
    # runs[L] = register with x^(2^L - 1)
    runs = {1: 0}
    length = 1
    while length * 2 <= m:
        r = b.new()
        b.square(r, runs[length], length)
        b.multiply(r, r, runs[length])
        length *= 2
        runs[length] = r
    acc = runs[length]
    rest = m - length
    bit = length
    while rest:
        while bit > rest:
            bit //= 2
        nxt = b.new()
        b.square(nxt, acc, bit)
        b.multiply(nxt, nxt, runs[bit])
        acc = nxt
        rest -= bit
    return acc


def _ones_after(bits):
    """ones[i] = the number of ones in a row from bit string position i on."""
    ones = [0] * (len(bits) + 1)
    for i in range(len(bits) - 1, -1, -1):
        ones[i] = ones[i + 1] + 1 if bits[i] == "1" else 0
    return ones


def _sliding(e, w, lead_run, levels=0):
    """Sliding windows of width w; levels > 0 adds the run digits
    x^(2^L - 1), L = 2w, 4w, ..., 2^levels w (see the module docstring)."""
    bits = bin(e)[2:]
    ones = _ones_after(bits)
    run_lengths = [w << j for j in range(levels, 0, -1)]     # longest first
    b = _Builder()
    pos = 0
    acc = None
    if lead_run:
        m = ones[0]
        acc = _ones_run(b, m)
        pos = m
    # windows (first bit, last bit, digit, is a run digit); the odd digits
    # used size the table
    windows = []
    i = pos
    while i < len(bits):
        if bits[i] == "0":
            windows.append((i, i, 0, False))
            i += 1
            continue
        run = next((L for L in run_lengths if L <= ones[i]), 0)
        if run:
            windows.append((i, i + run - 1, run, True))
            i += run
            continue
        j = min(i + w, len(bits)) - 1
        while bits[j] == "0":
            j -= 1
        windows.append((i, j, int(bits[i:j + 1], 2), False))
        i = j + 1
    digits = [d for _, _, d, is_run in windows if d and not is_run]
    runs_used = [d for _, _, d, is_run in windows if is_run]
    if runs_used:
        digits.append((1 << w) - 1)     # the run digits start from x^(2^w - 1)
    table = {}
    if digits:
        table[1] = 0
        top = max(digits)
        if top > 1:
            x2 = b.new()
            b.square(x2, 0, 1)
            for d in range(3, top + 1, 2):
                table[d] = b.new()
                b.multiply(table[d], table[d - 2], x2)
    runs = {}
    if runs_used:
        length = w
        runs[w] = table[(1 << w) - 1]
        while length < max(runs_used):
            r = b.new()
            b.square(r, runs[length], length)
            b.multiply(r, r, runs[length])
            length *= 2
            runs[length] = r
    fixed = set(table.values()) | set(runs.values())      # registers never overwritten
    pending = 0
    for i, j, d, is_run in windows:
        width = j - i + 1
        if d == 0:
            pending += 1
            continue
        digit = runs[d] if is_run else table[d]
        if acc is None:
            acc = digit if not pending else None
            if acc is None:
                raise AssertionError("leading zero bits")
            continue
        if acc == 0 or acc in fixed:
            fresh = b.new()
            b.square(fresh, acc, pending + width)
            acc = fresh
        else:
            b.square(acc, acc, pending + width)
        pending = 0
        b.multiply(acc, acc, digit)
    if pending:
        if acc == 0 or acc in fixed:
            fresh = b.new()
            b.square(fresh, acc, pending)
            acc = fresh
        else:
            b.square(acc, acc, pending)
    method = (f"sliding window w={w}" + (", leading run of ones by doubling" if lead_run else "")
              + (f", run digits of {', '.join(str(L) for L in sorted(runs) if L > w)} ones" if runs_used else ""))
    return Chain(e, b.program, b.nregs, acc, b.sqr, b.mul, method)


def evaluate(chain):
    """The exponent the program computes (exponent arithmetic)."""
    regs = {0: 1}
    for ins in chain.program:
        if ins[0] == "sqr":
            regs[ins[1]] = regs[ins[2]] << ins[3]
        else:
            regs[ins[1]] = regs[ins[2]] + regs[ins[3]]
    return regs[chain.result]


def compact(chain):
    """Renumber registers so that registers no longer live are reused."""
    last_use = {}
    for idx, ins in enumerate(chain.program):
        for r in ins[2:4] if ins[0] == "mul" else (ins[2],):
            last_use[r] = idx
    last_use[chain.result] = len(chain.program)
    mapping = {0: 0}
    free = []
    used = 1
    program = []
    for idx, ins in enumerate(chain.program):
        srcs = ins[2:4] if ins[0] == "mul" else (ins[2],)
        src_mapped = [mapping[s] for s in srcs]
        dst = ins[1]
        if dst not in mapping:
            if free:
                mapping[dst] = free.pop()
            else:
                mapping[dst] = used
                used += 1
        if ins[0] == "sqr":
            program.append(("sqr", mapping[dst], src_mapped[0], ins[3]))
        else:
            program.append(("mul", mapping[dst], src_mapped[0], src_mapped[1]))
        for s in set(srcs):
            if s != 0 and last_use.get(s) == idx and s != dst and mapping[s] != mapping[dst]:
                free.append(mapping.pop(s))
    return Chain(chain.exponent, program, used, mapping[chain.result], chain.squarings,
                 chain.multiplications, chain.method)


def best_chain(e):
    """The cheapest chain found for x^e (e >= 1), verified."""
    if e < 1:
        raise ValueError("exponent must be positive")
    bits = bin(e)[2:]
    ones = _ones_after(bits)
    candidates = []
    for lead_run in (False, True) if bits.startswith("11") else (False,):
        # the longest run the windows meet, to bound the run digits tried
        longest = max(ones[ones[0] if lead_run else 0:] + [0])
        for w in range(1, 8):
            levels = 0
            while (w << (levels + 1)) <= longest and levels < 8:
                levels += 1
            for j in range(levels + 1):
                candidates.append(_sliding(e, w, lead_run, j))
    best = min(candidates, key=lambda c: (c.cost, c.registers))
    best = compact(best)
    assert evaluate(best) == e, "addition chain does not compute its exponent"
    return best
