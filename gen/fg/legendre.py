"""Constants for the constant-time Legendre symbol by binary GCD.

The template c_legendre.j2 renders what params() returns; reference()
runs the very algorithm of the C code on Python integers (the same steps,
the same word widths, the same sign bookkeeping), so tests check the C's
schedule against it and the Jacobi symbol's rules.

Algorithm: Stein's binary GCD on (a, b) = (x, p), both kept nonnegative, with
the sign of the Jacobi symbol (a | b) tracked from their low bits. The
invariant is (x | p) = (-1)^s (a | b), b odd and positive. One step:

    if a is odd:
        if a < b:  s ^= [a = b = 3 mod 4]   (quadratic reciprocity)
                   (a, b) = (b - a, a)     ((b - a | a) = (b | a))
        else:      a = a - b               ((a - b | b) = (a | b))
    a = a / 2;     s ^= [b = 3 or 5 mod 8]  ((2 | b), with the new b)

Bound: every step removes at least one bit from len(a) + len(b) until a = 0
(a odd and a >= b: a - b <= a, then halved; a < b: (b - a)/2 < b/2 and the
new b is the old a; a even: halved). Starting from len(a) + len(b) <= 2L
(L = the bit length of p) and ending at a = 0 with b >= 1, that is at most
2L - 1 steps; the C runs exactly 2L - 1. At the end a = 0 and b = gcd(x, p)
= 1 for x != 0 (p is prime), so (x | p) = (-1)^s. For x = 0 the C starts
from a = 1 instead ((1 | p) = 1: zero counts as a square), so it runs the
same steps on every input.

Word widths: before step k (0-based) a and b are below 2^min(L, 2L - k)
(both are at most p, and len(a) + len(b) <= 2L - k with len(b) >= 1). So
step k works on ceil(min(L, 2L - k) / 64) words: the first L steps on all
n words, then one word fewer every 64 steps. The widths depend on p only,
never on x. In all, about 3/4 of the word operations of n words throughout.
"""

W = 64


def steps(bits: int) -> int:
    """Binary-GCD steps that always reach a = 0 for a prime of `bits` bits."""
    return 2 * bits - 1


def schedule(bits: int) -> list:
    """[(words, count), ...]: count consecutive steps on `words` words each,
    widest first; the counts add up to steps(bits)."""
    out = []
    for k in range(steps(bits)):
        w = (min(bits, 2 * bits - k) + W - 1) // W
        if out and out[-1][0] == w:
            out[-1][1] += 1
        else:
            out.append([w, 1])
    return [tuple(x) for x in out]


def params(p: int, n: int) -> dict:
    bits = p.bit_length()
    sched = schedule(bits)
    assert sched[0][0] == n and sum(c for _, c in sched) == steps(bits)
    # the schedule in words, runs of equal counts merged:
    # "558 steps on 8 words, 64 each on 7 down to 2, 63 on 1"
    runs = []
    for w, c in sched:
        if runs and runs[-1][2] == c and runs[-1][1] == w + 1:
            runs[-1][1] = w
        else:
            runs.append([w, w, c])
    parts = []
    for hi, lo, c in runs:
        if hi == lo:
            parts.append(f"{c} on {hi}")
        elif hi == lo + 1:
            parts.append(f"{c} each on {hi} and {lo}")
        else:
            parts.append(f"{c} each on {hi} down to {lo}")
    parts[0] = f"{sched[0][1]} steps on {n} word{'s' if n > 1 else ''}"
    return {
        "text": ", ".join(parts),
        "steps": steps(bits),
        "schedule": sched,
        "widths": sorted({w for w, _ in sched}, reverse=True),
        "word_steps": sum(w * c for w, c in sched),
    }


def reference(x: int, p: int) -> int:
    """The Legendre symbol (x | p) in {1, -1, 0 -> 1}, computed exactly as
    the C code does: 1 when x is a square mod p (0 included), else -1.
    Asserts the word-width bound before every step and the end state."""
    bits = p.bit_length()
    x %= p
    a, b, s = (x if x else 1), p, 0
    for w, count in schedule(bits):
        top = 1 << (W * w)
        for _ in range(count):
            assert a < top and b < top, "word-width bound"
            if a & 1:
                if a < b:
                    s ^= (a & b & 2) >> 1
                    a, b = b - a, a
                else:
                    a -= b
            a >>= 1
            s ^= ((b >> 1) ^ (b >> 2)) & 1
    assert a == 0 and b == 1, "binary GCD did not finish"
    return -1 if s else 1
