# SPDX-License-Identifier: MIT OR Apache-2.0
"""Number theory on Python integers, shared by the spec, the analysis and the
test reference. Deterministic: no randomness, so generation is reproducible."""

from __future__ import annotations

from math import isqrt

_SMALL_PRIMES = [q for q in range(3, 1000, 2) if all(q % d for d in range(3, isqrt(q) + 1, 2))]


def _miller_rabin(n, base):
    d, s = n - 1, 0
    while d % 2 == 0:
        d //= 2
        s += 1
    x = pow(base, d, n)
    if x in (1, n - 1):
        return True
    for _ in range(s - 1):
        x = x * x % n
        if x == n - 1:
            return True
    return False


def jacobi(a, n):
    """Jacobi symbol (a/n) for odd n > 0."""
    assert n > 0 and n % 2 == 1
    a %= n
    result = 1
    while a:
        while a % 2 == 0:
            a //= 2
            if n % 8 in (3, 5):
                result = -result
        a, n = n, a
        if a % 4 == 3 and n % 4 == 3:
            result = -result
        a %= n
    return result if n == 1 else 0


def _strong_lucas(n):
    """Strong Lucas probable-prime test with Selfridge's parameters."""
    if isqrt(n) ** 2 == n:
        return False
    d = 5
    while True:
        j = jacobi(d, n)
        if j == -1:
            break
        if j == 0 and abs(d) != n:
            return False
        d = -d - 2 if d > 0 else -d + 2
    p_, q = 1, (1 - d) // 4
    k, s = n + 1, 0
    while k % 2 == 0:
        k //= 2
        s += 1
    # U_k, V_k by binary ladder on the bits of k
    u, v, qk = 0, 2, 1
    inv2 = (n + 1) // 2
    for bit in bin(k)[2:]:
        u, v = u * v % n, (v * v - 2 * qk) % n
        qk = qk * qk % n
        if bit == "1":
            u, v = (p_ * u + v) * inv2 % n, (d * u + p_ * v) * inv2 % n
            qk = qk * q % n
    if u == 0 or v == 0:
        return True
    for _ in range(s - 1):
        v = (v * v - 2 * qk) % n
        qk = qk * qk % n
        if v == 0:
            return True
    return False


def is_probable_prime(n):
    """Baillie-PSW plus Miller-Rabin to 24 fixed bases: no known counterexample."""
    if n < 2:
        return False
    for q in [2] + _SMALL_PRIMES:
        if n == q:
            return True
        if n % q == 0:
            return False
    for base in [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83, 89]:
        if not _miller_rabin(n, base):
            return False
    return _strong_lucas(n)


def two_adicity(p):
    """(s, q) with p - 1 = 2^s * q, q odd."""
    q, s = p - 1, 0
    while q % 2 == 0:
        q //= 2
        s += 1
    return s, q


def smallest_nonresidue(p):
    z = 2
    while jacobi(z, p) != -1:
        z += 1
    return z


def sqrt_mod(a, p):
    """A square root of a mod p (Tonelli-Shanks), or None if a is a non-residue."""
    a %= p
    if a == 0:
        return 0
    if jacobi(a, p) != 1:
        return None
    s, q = two_adicity(p)
    z = smallest_nonresidue(p)
    m, c, t, r = s, pow(z, q, p), pow(a, q, p), pow(a, (q + 1) // 2, p)
    while t != 1:
        i, t2 = 0, t
        while t2 != 1:
            t2 = t2 * t2 % p
            i += 1
        b = pow(c, 1 << (m - i - 1), p)
        m, c, t, r = i, b * b % p, t * b * b % p, r * b % p
    return r
