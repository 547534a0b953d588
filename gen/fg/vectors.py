# SPDX-License-Identifier: MIT OR Apache-2.0
"""Emitter: known-answer vectors, computed with Python integers only.

One line per case: `op operand... expected`, all hex (no 0x), values plain
(not internal form) unless the op says otherwise:
  add/sub/mul a b r        r = a+b, a-b, a*b mod p
  sqr/neg/inv a r          r = a^2, -a, a^-1 mod p (inv 0 = 0)
  sqrt a r|none            r is one root (the other is p - r)
  mul_wide a b t           t = A*B, A, B the internal forms of a, b
  redc t r                 r = plain value of redc(t), t within the bound
  from_bytes v ok r        v an integer of BYTES bytes; ok 1|0; r = v or 0
  from_bytes_wide L v r    v an integer of L <= 2 BYTES bytes; r = v mod p
"""

from __future__ import annotations

import random

from . import numtheory


def _edge_values(fa):
    p = fa.p
    vals = {0, 1, 2, p - 1, p - 2, (p - 1) // 2, (p + 1) // 2, (1 << 64) - 1, 1 << 63, (1 << 32) - 1}
    vals |= {(1 << (64 * i)) - 1 for i in range(1, fa.n + 1)}
    return sorted(v % p for v in vals)


def generate(fa, count=24):
    p = fa.p
    rng = random.Random(f"fieldgen-kat:{fa.name}:{p}")
    edges = _edge_values(fa)
    values = edges + [rng.randrange(p) for _ in range(count)]
    pairs = [(a, b) for a in edges[:6] for b in edges[:6]] + \
            [(rng.randrange(p), rng.randrange(p)) for _ in range(count)]
    lines = []

    def emit(op, *xs):
        lines.append(" ".join([op] + [x if isinstance(x, str) else "%x" % x for x in xs]))

    for a, b in pairs:
        emit("add", a, b, (a + b) % p)
        emit("sub", a, b, (a - b) % p)
        emit("mul", a, b, a * b % p)
        emit("mul_wide", a, b, fa.to_internal(a) * fa.to_internal(b))
    for a in values:
        emit("sqr", a, a * a % p)
        emit("neg", a, -a % p)
        emit("inv", a, pow(a, p - 2, p))
        r = numtheory.sqrt_mod(a, p)
        emit("sqrt", a, "none" if r is None else "%x" % r)
    # redc: products, their extremes, and the largest admitted sum
    limit = (p - 1) ** 2 * fa.redc_sums
    for t in [0, 1, (p - 1) ** 2, limit] + [rng.randrange(limit + 1) for _ in range(count)]:
        emit("redc", t, fa.from_internal(fa.redc_value(t)))
    top = 1 << (8 * fa.nbytes)
    for v in [0, 1, p - 1, p, p + 1, top - 1] + [rng.randrange(top) for _ in range(count)]:
        if v < top:
            ok = v < p
            emit("from_bytes", v, int(ok), v if ok else 0)
    wide = 2 * fa.nbytes
    for L in sorted({0, 1, 8, 17, fa.nbytes - 1, fa.nbytes, fa.nbytes + 16, wide - 1, wide} & set(range(wide + 1))):
        top = 1 << (8 * L)
        # all ones, p (where it fits), the largest multiple of p less one, random
        for v in sorted({top - 1, p % top, max(top // p * p - 1, 0), rng.randrange(top)}):
            emit("from_bytes_wide", L, v, v % p)
    # (p + 1) R + p, where it fits (p without a spare bit): its high half p + 1
    # must be reduced to put t within redc's bound; unreduced, the Montgomery
    # quotient is 2p + 1 (R = 2^(64n))
    v = (p + 1) * fa.R + p
    if v < 1 << (8 * wide):
        emit("from_bytes_wide", wide, v, v % p)
    # the high half at 2^j p - 1 and 2^j p under an all-ones low half: the
    # edges of the conditional subtractions of 2^j p (j = wide_steps - 1 .. 0)
    # that bring it below p
    for j in range(fa.wide_steps):
        for hi in (p * 2**j - 1, p * 2**j):
            v = hi * fa.R + fa.R - 1
            if v < 1 << (8 * wide):
                emit("from_bytes_wide", wide, v, v % p)
    return "\n".join(lines) + "\n"


def emit(fa, header):
    return {f"vectors/{fa.name}.kat": header + generate(fa)}
