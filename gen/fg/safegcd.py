"""Constants for the constant-time Bernstein-Yang (safegcd) inversion.

Everything the template c_inv_safegcd.j2 needs is computed here; the template
only renders it. reference_inverse() runs the very algorithm of the C code on
Python integers (same batches, same transition matrices, same signed 62-bit
limbs, same bounds), so tests can check the C against it step for step.

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
up to a whole number of 62-step batches.

Batches: 62 divsteps depend only on the low 62 bits of f and g, and return a
transition matrix T = [[u, v], [q, r]] with 2^62 (f', g') = T (f, g) and
|u| + |v| <= 2^62, |q| + |r| <= 2^62 (each divstep matrix, scaled by 2, has
rows of L1 norm <= 2). T is then applied to the full f, g and to d, e mod p.
"""

BATCH = 62                 # divsteps per batch (= bits per limb of the signed representation)
M62 = (1 << BATCH) - 1


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
    batches = -(-bound // BATCH)
    R = 1 << (64 * n)
    return {
        "bits": bits,
        "n": n,
        "bound_d": bits,                       # d of Theorem 11.2
        "bound": bound,                        # divsteps the theorem requires
        "batches": batches,                    # 62-divstep batches run
        "iterations": batches * BATCH,         # divsteps actually run
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


def _divsteps_62(delta: int, f0: int, g0: int):
    """62 divsteps on the low 62 bits of f and g: (delta, (u, v, q, r))."""
    u, v, q, r = 1, 0, 0, 1
    f, g = f0 & M62, g0 & M62
    for _ in range(BATCH):
        # invariant: 2^i f = u f0 + v g0, 2^i g = q f0 + r g0 (mod 2^62)
        if delta > 0 and g & 1:
            delta, f, g, u, v, q, r = 1 - delta, g, (g - f) >> 1, 2 * q, 2 * r, q - u, r - v
        elif g & 1:
            delta, g, u, v, q, r = 1 + delta, (g + f) >> 1, 2 * u, 2 * v, q + u, r + v
        else:
            delta, g, u, v = 1 + delta, g >> 1, 2 * u, 2 * v
    assert abs(u) + abs(v) <= 1 << BATCH and abs(q) + abs(r) <= 1 << BATCH
    return delta, (u, v, q, r)


def reference_inverse(p: int, a: int, c: int = 1) -> int:
    """c * a^-1 mod p (0 when a = 0) by the batched divsteps of the C code.

    Mirrors the C: the same batch count, the same d, e update (adding the
    multiple of p that makes the sum divisible by 2^62, in range (-2p, p)),
    the same final normalization. Checked against pow(a, -1, p)."""
    assert 0 <= a < p and 0 <= c < p
    bits = p.bit_length()
    batches = -(-iteration_bound(bits) // BATCH)
    pinv = pow(p, -1, 1 << BATCH)
    delta, f, g, d, e = 1, p, a, 0, c
    for _ in range(batches):
        delta, (u, v, q, r) = _divsteps_62(delta, f, g)
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
