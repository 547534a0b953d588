# SPDX-License-Identifier: MIT OR Apache-2.0
"""Constants for the constant-time Legendre symbol, and the proofs behind it.

Two algorithms; params() picks one per field by its limb count:
- divsteps (METHOD_MIN_LIMBS = 4 limbs and more): the inversion's
  Bernstein-Yang divsteps (safegcd.py) with the symbol's sign tracked
  alongside (algorithm 2 below);
- binary GCD (1 to 3 limbs): Stein's binary GCD on shrinking word widths
  (algorithm 1 below).
Where they cross (research/RESULTS.md, 2026-12-03): the divsteps run 1.07-1.09x
faster than the binary GCD at 4 limbs (P-256, a random 254-bit prime), 1.9x
at 8 (p503), 2.2x at 7 (p434), 2.7x at 12 (p751), 5.8x at 9 (P-521); the
binary GCD is 1.3-1.7x faster at 1 to 3 limbs, where the divsteps' 30-step
halves cost more than its few narrow words.

The template c_legendre.j2 renders what params() returns;
reference_bgcd() and reference_divsteps() run the C's algorithms on Python
integers (the same steps, word operations and sign bookkeeping), so tests
hold them to Euler's criterion and check the proofs' claims along the way.

Algorithm 1: binary GCD. Stein's binary GCD on (a, b) = (x, p), both kept nonnegative, with
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


Algorithm 2: divsteps. The divsteps of safegcd.py, from (delta, f, g) =
(1, p, x), in halves of 30 on the low bits of f and g, each half's matrix
applied to the full f and g at once (safegcd's "halves" count, which
reaches g = 0 and f = +-1 by Bernstein and Yang's Theorem 11.2). Write
J(g, f) = (g | |f|), the Jacobi symbol over the positive odd |f|; the
invariant is (x | p) = (-1)^k J(g, f), so k = 0 at the start, and at the end
J(0, +-1) = 1 gives (x | p) = (-1)^k.

A divstep's factor. Without a swap g becomes (g + f) / 2 or g / 2, and
(g + f | |f|) = (g | |f|), so the factor is (2 | |f|): -1 when f = 3 or 5
mod 8, for either sign of f (it depends on f^2). With a swap, (f, g) becomes
(g, (g - f) / 2): J((g - f) / 2, g) = (2 | |g|) (-f | |g|), and the
reciprocity law for odd coprime A, B of any signs,

    (A | |B|) (B | |A|) = (-1)^((A - 1)/2 (B - 1)/2 + [A < 0 and B < 0]),

with A = -f, B = g gives (-f | |g|) = J(g, f) (-1)^([f = 1 and g = 3 mod 4]
+ [f > 0 and g < 0]). (For A, B > 0 it is quadratic reciprocity. Negating
A multiplies the left side by (-1 | |B|) = (-1)^((|B| - 1)/2) and shifts
(A - 1)/2 by the odd |A|, the same factor on the right; negating both
multiplies the left by (-1)^((|A| - 1)/2 + (|B| - 1)/2) and the right by
that times -1, which the [ ] term cancels. The tests check the law on all
pairs up to 51 in size.) So
every factor but [f > 0 and g < 0] comes from bits 0..2 of f and g, which
the half has exactly; that term is a change of f's sign from + to - (the
new f is g), and a half does not know the signs.

Lemma (signs from the matrix). In a half, 2^i (f_i, g_i) = M_i (f_0, g_0)
with M_i = S_i ... S_1, each S one of [[2, 0], [0, 1]], [[2, 0], [+-1, 1]]
(no swap) or [[0, 2], [-1, 1]] (swap); every S has determinant 2 > 0. Let
s0 = [f_0 < 0], sigma = -1 if s0 else 1, and w_i = M_i sigma (eta, 1) for an
infinitesimal eta > 0. The first coordinate of w_i is sigma (eta u_i + v_i),
(u_i, v_i) being M_i's first row, so its sign bit is s0 XOR lex_i, where
lex_i is the sign bit of v_i, or of u_i when v_i = 0 (they are not both 0):
the sign bit of the packed row word u + v 2^32, as |u| < 2^31. Claim: f's
sign changes from + to - over the half exactly as often as the sequence
s0 XOR lex_0, ..., s0 XOR lex_m, [f_m < 0] does.
Proof. No S has a negative real eigenvalue (1 and 2; or (1 +- i sqrt 7)/2
for the swap), so along (1 - t) I + t S every vector turns by less than a
half turn, which fixes lifts of the angles of V_i = 2^i (f_i, g_i) and of w_i
to the reals (theta_i, phi_i); and as det[S_t V, S_t w] = det S_t det[V, w]
keeps the sign of det[V_0, w_0] = sigma (f_0 - eta g_0) > 0, 0 < phi_i -
theta_i < pi throughout. Let h(a) = floor((a + pi/2) / pi): the first
coordinate is positive exactly when h is even. A step without a swap
keeps that sign (x' = 2 x) and turns by less than pi, so h stays; a swap
turns every vector clockwise (det[z, S z] = -(x^2 - x y + 2 y^2) < 0) by
less than pi, so h drops by 0 or 1. Both h sequences thus step down by 0
or 1, each drop is a sign change, and + to - changes are drops from even
values. They start equal (h = 0 for both when f_0 > 0, -1 when f_0 < 0) and
end with h(phi_m) = h(theta_m) or h(theta_m) + 1. In the first case they
pass the same values; in the second, the appended [f_m < 0] is the one drop
w lacks, from h(theta_m) + 1 to h(theta_m). QED.

The C (sg_divsteps with jk): per step, bit 1 of k takes d & g (d = (f ^ g) &
swap: g = 3 and f = 1 mod 4 on a swap) and the row sign's 0 to 1 changes
(mask q); acc collects the post-swap f, and at the end of the half bit 1 of
acc ^ (acc >> 1) is the sum of the steps' (2 | f) terms (bits 1 and 2 of f,
and XOR is linear). The proxy's + to - changes are lex's 0 to 1 changes
when s0 = 0, and its 1 to 0 changes when s0 = 1: as many as the 0 to 1
changes less lex_m (lex_0 = 0, the row (1, 0)), so k ^= s0 & lex_m; then
the change from the proxy's last sign s0 ^ lex_m to the true [f_m < 0],
read from the full f's top limb after the half. x = 0 runs as x = 1.
After g = 0 the remaining divsteps halve g = 0 with f = +-1, which adds
nothing ((2 | 1) = 1) and swaps never.
"""

from . import safegcd

W = 64
M64 = (1 << 64) - 1
METHOD_MIN_LIMBS = 4      # divsteps from 4 limbs up, the binary GCD below (see above)


def method(n: int) -> str:
    """The Legendre algorithm for a field of n 64-bit limbs."""
    return "divsteps" if n >= METHOD_MIN_LIMBS else "bgcd"


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
    if method(n) == "divsteps":
        halves = safegcd.params(p, n)["halves"]
        return {"method": "divsteps", "halves": halves,
                "summary": f"Bernstein-Yang divsteps ({halves} halves of {safegcd.HALF})"}
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
        "method": "bgcd",
        "summary": f"a binary GCD ({steps(bits)} steps on shrinking widths)",
        "text": ", ".join(parts),
        "steps": steps(bits),
        "schedule": sched,
        "widths": sorted({w for w, _ in sched}, reverse=True),
        "word_steps": sum(w * c for w, c in sched),
    }


def reference_bgcd(x: int, p: int) -> int:
    """The Legendre symbol (x | p) in {1, -1, 0 -> 1}, computed exactly as
    the C's binary GCD does: 1 when x is a square mod p (0 included), else -1.
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


def jacobi_half(delta: int, f: int, g: int, k: int):
    """One 30-step half of sg_divsteps with its Legendre bookkeeping (jk), on
    the low 62 bits f, g: (delta, (u, v, q, r), k, lex_m), where bit 1 of k
    has taken the half's low-bit terms and the row sign's 0 to 1 changes, and
    lex_m is the row's final sign as a mask (algorithm 2 above)."""
    st = {"k": k, "acc": 0, "q": 0}

    def on_step(f0, g0, c, d, f1, uv):
        st["k"] ^= d & g0                             # swap, f = 1 and g = 3 mod 4
        st["acc"] ^= f1                               # (2 | f) of this step's halving
        qn = M64 if uv >> 63 else 0                   # the packed row's sign
        st["k"] ^= (qn ^ st["q"]) & qn
        st["q"] = qn

    delta, _, _, m = safegcd.divsteps_half(delta, f, g, on_step)
    acc = st["acc"]
    return delta, m, st["k"] ^ acc ^ (acc >> 1), st["q"]


def reference_divsteps(x: int, p: int) -> int:
    """The Legendre symbol (x | p) in {1, -1, 0 -> 1} as legendre_divsteps()
    in the C computes it, half by half; asserts g = 0 and f = +-1 at the end."""
    n = -(-p.bit_length() // W)
    halves = safegcd.params(p, n)["halves"]
    m62 = safegcd.M62
    x %= p
    delta, f, g, k, s0 = 1, p, (x if x else 1), 0, 0
    for _ in range(halves):
        delta, (u, v, q, r), k, lex = jacobi_half(delta, f & m62, g & m62, k)
        cf, cg = u * f + v * g, q * f + r * g
        assert cf % (1 << safegcd.HALF) == 0 and cg % (1 << safegcd.HALF) == 0
        f, g = cf >> safegcd.HALF, cg >> safegcd.HALF
        k ^= s0 & lex                                 # 1 to 0 changes when f started negative
        sf = M64 if f < 0 else 0
        k ^= sf & ~(s0 ^ lex) & M64                   # the proxy's last sign to f's true one
        s0 = sf
    assert g == 0 and f in (1, -1), "divsteps did not finish"
    return -1 if (k >> 1) & 1 else 1


def reference(x: int, p: int) -> int:
    """(x | p) in {1, -1, 0 -> 1} by the algorithm params() picks for p."""
    n = -(-p.bit_length() // W)
    return reference_divsteps(x, p) if method(n) == "divsteps" else reference_bgcd(x, p)
