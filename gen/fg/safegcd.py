# SPDX-License-Identifier: MIT OR Apache-2.0
"""Constants for the constant-time Bernstein-Yang (safegcd) inversion.

Everything the template c_inv_safegcd.j2 needs is computed here; the template
only renders it. reference_inverse() runs the very algorithm of the C code on
Python integers (same halves and batches, the same packed rows word for word,
same transition matrices, same signed 62-bit limbs, same bounds), so tests can
check the C against it step for step.

Algorithm (D. J. Bernstein and B.-Y. Yang, "Fast constant-time gcd
computation and modular inversion", TCHES 2019, https://gcd.cr.yp.to/papers.html):
the original divstep on (delta, f, g), f odd,

    divstep(delta, f, g) = (1 - delta, g, (g - f) / 2)   if delta > 0 and g odd
                           (1 + delta, f, (g + f) / 2)   if g odd (otherwise)
                           (1 + delta, f, g / 2)         if g even,

started at (delta, f, g) = (1, p, a). Alongside, d and e follow the invariants
d*a = f and e*a = g (mod p) (scaled by a constant c: d*a = c*f, e*a = c*g when
e starts at c). When g reaches 0, f = +-gcd(p, a) = +-1 and the inverse is
+-c*d. For a = 0, g is 0 from the start, d stays 0, and the result is 0.

Iteration bound: Theorem 11.2 of the paper. If f is odd, f^2 + 4 g^2 <= 5 *
2^(2d) and m >= floor((49 d + 80) / 17) for d < 46, or m >= floor((49 d + 57)
/ 17) for d >= 46, then after m divsteps from delta = 1, g_m = 0 and
f_m = +-gcd(f, g). With f = p and 0 <= g < p < 2^bits, f^2 + 4 g^2 < 5 p^2 <
5 * 2^(2 bits), so d = bits (the bit length of p) qualifies. Extra divsteps
after g = 0 change nothing (g stays 0, f stays +-1), so the count is rounded
up to a whole number of 30-step halves.

Batches: the divsteps run in halves of 30 (HALF) on the low bits of f and g,
two halves to a batch. Each half records its transition matrix T_h = [[u, v],
[q, r]], 2^30 (f', g') = T_h (f, g), with |u| + |v| <= 2^30 and |q| + |r| <=
2^30 (each divstep matrix, scaled by 2, has rows of L1 norm <= 2), so the two
entries of a row fit one 64-bit word as u + v 2^32 (|u| < 2^31 reads back
from the low half by sign extension, v from the rest). Every update of a row
(negate, add, double, select) is then one word operation for both entries,
which makes a divstep about 22 word operations instead of 29 with four
separate entries. The step's masks: s (delta > 0) and odd (g odd) give the
swap c = s & odd; the next step's s is "delta >= 0 and no swap", where
"delta >= 0" is the sign of eta - 1 = -delta - 1, kept in a word.

A batch of two halves applies T = 4 T_2 T_1 (2^62 (f', g') = T (f, g), rows
of L1 norm <= 2^62) to the full f, g and to d, e mod p; the last batch may
have one half, T = 2^32 T_1. Sixty divsteps need the low 60 bits of f and g,
and the signed limbs below have 62. The number of halves is the bound
rounded up, so at most 29 divsteps more than the theorem asks; 31-step
halves would not pack (an entry can reach 2^31 in magnitude, and v = +-2^31
give the same word).

Which inversion fg_NAME_inv runs: safegcd from INV_SAFEGCD_MIN_LIMBS = 2
limbs, Fermat's a^(p-2) over the generated addition chain on 1 limb, where
a 64-bit multiplication is a few instructions and the divsteps' fixed cost
(7 halves and their updates for a 64-bit p) dominates. Measured
(research/legendre/crossover.py --op inv / --op inv_fermat, Zen 4,
2026-12-03, cycles per call): 1 limb, safegcd 814-1341 against Fermat
347-954 (p33, m61, gold64, p64m59: 1.1-2.3x); 2 limbs even (m127 2584
against 2556); from 3 limbs safegcd ahead (r130 2608 against 4464, P-256
5295 against 6959, P-521 12.1k against 44.1k). Both are constant time;
inv_fermat stays the cross-check either way.
"""

BATCH = 62                 # bits per limb of the signed representation; T is scaled by 2^62
INV_SAFEGCD_MIN_LIMBS = 2  # fg_NAME_inv: Fermat's chain on 1 limb, safegcd from 2 (above)
M62 = (1 << BATCH) - 1
HALF = 30                  # divsteps per half batch (two matrix entries packed per word)
M64 = (1 << 64) - 1


def iteration_bound(bits: int) -> int:
    """Bernstein-Yang Theorem 11.2 with d = bits: divsteps that always reach g = 0."""
    d = bits
    return (49 * d + 80) // 17 if d < 46 else (49 * d + 57) // 17


def to_signed62(x: int, L: int) -> list:
    """x (any sign) as L limbs: limbs 0..L-2 in [0, 2^62), the top limb signed."""
    limbs = []
    for _ in range(L - 1):
        limbs.append(x & M62)
        x >>= BATCH
    limbs.append(x)
    return limbs


def _c_int64(v: int) -> str:
    return f"INT64_C({v})" if v >= 0 else f"(-INT64_C({-v - 1}) - 1)"


def params(p: int, n: int) -> dict:
    """Everything c_inv_safegcd.j2 renders, for the odd prime p on n 64-bit limbs."""
    if p % 2 == 0 or p < 3:
        raise ValueError(f"safegcd inversion needs an odd modulus > 2, got {p}")
    bits = p.bit_length()
    if not 64 * (n - 1) < bits <= 64 * n:
        raise ValueError(f"p has {bits} bits, which is not {n} 64-bit limbs")
    # L signed 62-bit limbs with 62 L > bits: every f, g in [-p, p] and every
    # d, e in (-2p, p) then has a top limb of magnitude <= 2^62, so each
    # limb-times-matrix-entry product stays below 2^124 and the 128-bit
    # accumulators of the update cannot overflow.
    L = bits // BATCH + 1
    bound = iteration_bound(bits)
    halves = -(-bound // HALF)
    batches = -(-halves // 2)
    R = 1 << (64 * n)
    return {
        "inv_method": "safegcd" if n >= INV_SAFEGCD_MIN_LIMBS else "fermat",
        "bits": bits,
        "n": n,
        "bound_d": bits,                       # d of Theorem 11.2
        "bound": bound,                        # divsteps the theorem requires
        "halves": halves,                      # 30-divstep halves run
        "batches": batches,                    # matrix applications (two halves each)
        "last_halves": halves - 2 * (batches - 1),   # halves of the last batch (1 or 2)
        "iterations": halves * HALF,           # divsteps actually run
        "limbs": L,                            # signed 62-bit limbs per value
        "p62": [_c_int64(v) for v in to_signed62(p, L)],
        "pinv62": "UINT64_C(0x%016x)" % pow(p, -1, 1 << BATCH),   # p^-1 mod 2^62
        # e's start value for the Montgomery variant: with e = R^2 mod p the
        # result is R^2 * x^-1 = (a R)^-1 R^2 = a^-1 R for x = a R, i.e. the
        # Montgomery-form inverse of a Montgomery-form input, at no extra cost.
        "e0_mont": [_c_int64(v) for v in to_signed62(R * R % p, L)],
        # signed-62 limb j = bits 62j.. of the input: (word k, shift, needs word k+1)
        "unpack": [(62 * j // 64, 62 * j % 64, 62 * j % 64 > 2 and 62 * j // 64 + 1 < n) for j in range(L)],
        # 64-bit output limb i gathers signed-62 limbs j..j+1 (j = 64 i // 62)
        "pack": [(64 * i // BATCH, 64 * i % BATCH) for i in range(n)],
    }


def _sext32(w: int) -> int:
    """The low 32 bits of the word w as a signed integer."""
    w &= 0xFFFFFFFF
    return w - (1 << 32) if w >> 31 else w


def unpack_row(w: int):
    """(lo, hi) of a row packed as lo + hi 2^32 in the 64-bit word w, as the C
    reads it back: lo by sign extension of the low half, hi from the rest."""
    lo = _sext32(w)
    hi = ((w - lo) & M64) >> 32
    return lo, _sext32(hi)


def textbook(delta: int, f: int, g: int, steps: int):
    """`steps` divsteps on plain integers, as the paper writes them:
    (delta, f, g, (u, v, q, r)) with 2^steps (f', g') = [[u, v], [q, r]] (f, g)."""
    u, v, q, r = 1, 0, 0, 1
    for _ in range(steps):
        if delta > 0 and g & 1:
            delta, f, g, u, v, q, r = 1 - delta, g, (g - f) >> 1, 2 * q, 2 * r, q - u, r - v
        elif g & 1:
            delta, g, u, v, q, r = 1 + delta, (g + f) >> 1, 2 * u, 2 * v, q + u, r + v
        else:
            delta, g, u, v = 1 + delta, g >> 1, 2 * u, 2 * v
    return delta, f, g, (u, v, q, r)


def divsteps_half(delta: int, f: int, g: int, on_step=None):
    """HALF divsteps exactly as the C runs them: (delta, f, g, (u, v, q, r)).

    on_step(f, g, c, d, f', uv'), when given, sees each step's words as the
    C's Legendre bookkeeping does (legendre.py): f and g before the step, the
    swap mask c, d = (f ^ g) & c, and f and the packed row (u, v) after it.

    f and g are 64-bit words whose low bits are those of f and g; the words
    come back as the C leaves them (g shifted right once per step), their
    low 62 - HALF bits those of the new f and g when the input words held
    62 (divsteps_batch asserts it). The rows (u, v) and (q, r) are updated
    packed in one word each, modulo 2^64, with the C's masks; the result is
    checked against textbook() entry by entry, and the entries against the
    bound that makes the packing exact."""
    delta0, f0, g0 = delta, f, g
    em1 = (-delta - 1) & M64                          # E = eta - 1, eta = -delta
    s = M64 if delta > 0 else 0                       # this step's "delta > 0"
    x = ((f ^ s) - s) & M64                           # s ? -f : f
    odd = M64 if g & 1 else 0                         # this step's "g odd"
    uv, qr = 1, 1 << 32                               # rows (1, 0) and (0, 1)
    for _ in range(HALF):
        c = s & odd                                   # the swap happens
        z = M64 if em1 >> 63 else 0                   # eta <= 0: next step's s unless swapped
        gsum = (g + (x & odd)) & M64                  # g + (s ? -f : f) when g is odd
        y = ((uv ^ s) - s) & M64
        qr = (qr + (y & odd)) & M64                   # row (q, r) likewise
        uv = (uv + (qr & c)) & M64                    # on a swap: uv + (qr - uv) = old qr
        uv = (uv + uv) & M64                          # double row (u, v)
        d = (f ^ g) & c
        if on_step:
            on_step(f, g, c, d, f ^ d, uv)
        f ^= d                                        # on a swap: f = old g
        s = z & ~c & M64                              # a swap leaves delta <= 0
        x = ((f ^ s) - s) & M64
        em1 = ((em1 ^ c) + c - 1) & M64               # eta - 1 = c ? ~eta - 1 : eta - 2
        odd = M64 if (gsum >> 1) & 1 else 0           # bit 1 of g before its halving
        g = gsum >> 1
    eta = (em1 + 1) & M64
    delta = (1 << 64) - eta if eta >> 63 else -eta
    tdelta, _, _, (u, v, q, r) = textbook(delta0, f0, g0, HALF)
    assert abs(u) + abs(v) <= 1 << HALF and abs(q) + abs(r) <= 1 << HALF
    assert unpack_row(uv) == (u, v) and unpack_row(qr) == (q, r) and delta == tdelta
    return delta, f, g, (u, v, q, r)


def divsteps_batch(delta: int, f: int, g: int, halves: int):
    """One batch of the C (1 or 2 halves) on the low 62 bits f, g of f and g:
    (delta, (u, v, q, r)) with 2^62 (f', g') = T (f, g), rows of L1 norm <= 2^62."""
    assert halves in (1, 2) and 0 <= f <= M62 and 0 <= g <= M62 and f & 1
    fw, gw, mats = f, g, []
    for _ in range(halves):
        delta, fw2, gw2, m = divsteps_half(delta, fw, gw)
        mats.append(m)
        # the second half starts from the words the first leaves: their low
        # 62 - HALF bits are those of (u f + v g) / 2^HALF, (q f + r g) / 2^HALF
        u, v, q, r = m
        keep = (1 << (BATCH - HALF)) - 1
        assert (u * fw + v * gw) >> HALF & keep == fw2 & keep
        assert (q * fw + r * gw) >> HALF & keep == gw2 & keep
        fw, gw = fw2, gw2
    if halves == 2:
        (u1, v1, q1, r1), (u2, v2, q2, r2) = mats
        t = (4 * (u2 * u1 + v2 * q1), 4 * (u2 * v1 + v2 * r1),
             4 * (q2 * u1 + r2 * q1), 4 * (q2 * v1 + r2 * r1))
    else:
        t = tuple(e << 32 for e in mats[0])
    u, v, q, r = t
    assert abs(u) + abs(v) <= 1 << BATCH and abs(q) + abs(r) <= 1 << BATCH
    assert max(abs(e) for e in t) < 1 << 63                     # int64 in the C
    assert (u * f + v * g) & M62 == 0 and (q * f + r * g) & M62 == 0
    return delta, t


def reference_inverse(p: int, a: int, c: int = 1) -> int:
    """c * a^-1 mod p (0 when a = 0) by the batched divsteps of the C code.

    Mirrors the C: the same batch count, the same d, e update (adding the
    multiple of p that makes the sum divisible by 2^62, in range (-2p, p)),
    the same final normalization. Checked against pow(a, -1, p)."""
    assert 0 <= a < p and 0 <= c < p
    n = -(-p.bit_length() // 64)
    pr = params(p, n)
    pinv = pow(p, -1, 1 << BATCH)
    delta, f, g, d, e = 1, p, a, 0, c
    for i in range(pr["batches"]):
        halves = 2 if i + 1 < pr["batches"] else pr["last_halves"]
        delta, (u, v, q, r) = divsteps_batch(delta, f & M62, g & M62, halves)
        # d, e: add md*p, me*p (md, me chosen as in the C) and divide exactly.
        md = (u if d < 0 else 0) + (v if e < 0 else 0)
        me = (q if d < 0 else 0) + (r if e < 0 else 0)
        cd, ce = u * d + v * e, q * d + r * e
        md -= (pinv * cd + md) & M62
        me -= (pinv * ce + me) & M62
        assert -(1 << 63) <= md < (1 << 63) and -(1 << 63) <= me < (1 << 63)
        cd, ce = cd + md * p, ce + me * p
        assert cd & M62 == 0 and ce & M62 == 0
        d, e = cd >> BATCH, ce >> BATCH
        assert -2 * p < d < p and -2 * p < e < p
        # f, g: exact division by 2^62, |f|, |g| stay <= p.
        cf, cg = u * f + v * g, q * f + r * g
        assert cf & M62 == 0 and cg & M62 == 0
        f, g = cf >> BATCH, cg >> BATCH
        assert abs(f) <= p and abs(g) <= p
    assert g == 0 and (f in (1, -1) or (a == 0 and f == p))
    # normalize as the C does: (-2p, p) -> (-p, p) -> negate if f < 0 -> [0, p)
    if d < 0:
        d += p
    if f < 0:
        d = -d
    if d < 0:
        d += p
    assert 0 <= d < p
    expect = 0 if a == 0 else c * pow(a, -1, p) % p
    assert d == expect, (p, a, d, expect)
    return d


if __name__ == "__main__":
    import random
    for p in (2**255 - 19, 2**127 - 1, 2**61 - 1, 2**64 - 59, 2**521 - 1):
        for a in [0, 1, 2, p - 1, p - 2, (p + 1) // 2] + [random.randrange(p) for _ in range(200)]:
            reference_inverse(p, a)
            reference_inverse(p, a, (1 << 256) % p)
        print(p.bit_length(), params(p, -(-p.bit_length() // 64))["batches"], "ok")
