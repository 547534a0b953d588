# SPDX-License-Identifier: MIT OR Apache-2.0
"""One level of Karatsuba for the Montgomery kernels' wide product (PeachPy).

With l = ceil(n/2), h = n - l, R = 2^(64l), a = a1*R + a0, b = b1*R + b0:

    z0 = a0*b0 (2l words), z2 = a1*b1 (2h words),
    d  = |a0 - a1| * |b1 - b0| (2l words), s = sign((a0 - a1)(b1 - b0)) as a mask,
    m  = a0*b1 + a1*b0 = z0 + z2 + (-1)^s d  (0 <= m < 2R^2: 2l words + 0/1),
    a*b = z0 + m*R + z2*R^2.

Three l x l (or h x h) products instead of one n x n product (n = 8: 48
multiplies instead of 64; n = 12: 108 instead of 144); each is formed by the
same row machinery as the schoolbook product (x86_64_mont.Kernel.row), the
squaring's by its squaring rows (x86_64_mont._sqr_rows): a^2 = z0 + m*R + z2*R^2
with z0 = a0^2, z2 = a1^2, m = 2*a0*a1 = z0 + z2 - (a0 - a1)^2 (s = -1 always).
Odd n splits unevenly (a1, b1 zero-extended to l words in the differences).
Which (op, level, n) use it is measured and decided in x86_64_mont._kara:
the single-chain levels (x86_64, bmi2) gain from n = 5..9 on; adx, whose
dual-chain schoolbook rows cost little more than the combination saves, only
from n = 13, never for squaring.

Constant time: |x - y| = ((x - y) XOR mask) - mask with mask = the borrow
of x - y as 0 or -1 (a multiword subtraction of mask from every word);
s = mask_a XOR mask_b, and (-1)^s d is added as (d XOR s) + (s & 1) with the
sign word s above it (two's complement; the carry-in s & 1 is set by
ADD s', s' with s' a copy of s).  No branch, no data-dependent address.

m = (d XOR s) + z0 + z2 is formed in place in d's words (adx: z0 on the CF
chain, z2 on the OF chain, carry-in s & 1 on CF; bmi2 and x86_64: two
ADD/ADC chains), then added at position l of z0 | z2; all arithmetic is mod
2^(128n), so carries out of the top word are dropped (for odd n the partial
sum may exceed 2^(128n); the final sum is a*b < 2^(128n)).
Aliasing: the inputs are read by the difference chains and the z0 and z2
rows only; the wide kernels then store each word as soon as it is final
(during the last carry chain: MOV keeps the flags), mul/sqr reduce first.
"""

from peachpy.x86_64 import MOV, ADD, ADC, ADCX, ADOX, SUB, SBB, XOR

PRIO_DONE = 10          # as x86_64.mont: finished words spill first
PRIO_DIFF = 20          # |a0 - a1|, |b1 - b0|: read once per row (memory operands)
PRIO_ACC = 50


def halves(n):
    """(l, h): low and high part lengths, l = ceil(n/2)."""
    l = (n + 1) // 2
    return l, n - l


def _absdiff(k, word_x, word_y, l):
    """(|X - Y| as l Vals, mask Val = -1 if X < Y else 0).

    word_x(j), word_y(j): operand thunks for limb j of X and Y (None: 0).
    D = X - Y, mask = its borrow; |X - Y| = (D XOR mask) - (mask, ..., mask)
    as a multiword subtraction (mask = -1: ~D + 1 = -D mod R; mask = 0: D).
    """
    out = []
    for j in range(l):
        v = k.new(PRIO_DIFF)
        src = word_x(j)
        k.emit(MOV, v.reg, 0 if src is None else src)     # MOV keeps flags
        sub = word_y(j)
        k.emit(SUB if j == 0 else SBB, v.reg, 0 if sub is None else sub)
        k.unlock()
        out.append(v)
    mask = k.new(PRIO_DIFF)
    k.emit(SBB, mask.reg, mask.reg)
    k.unlock()
    for v in out:
        k.emit(XOR, k.r(v), k.r(mask))
        k.unlock()
    for j, v in enumerate(out):
        k.emit(SUB if j == 0 else SBB, k.r(v), k.r(mask))
        k.unlock()
    return out, mask


def _product(k, acc, x_of, y_of, rows, cols, split_ok):
    """acc[0..rows+cols-1] = X*Y, rows of x_of(i) * Y at position i."""
    J = list(range(cols))
    for i in range(rows):
        k.row(acc, x_of(i), y_of, J, i, split=split_ok and i > 0)
        acc[i].prio = PRIO_DONE
    for q in range(rows, rows + cols):
        acc[q].prio = PRIO_DONE


def kara_mul_rows(k, acc, ap, bp, n, rp=None):
    """acc[0..2n-1] = a*b by one Karatsuba level; ap and bp are killed.

    rp: store the words at rp instead (acc left empty)."""
    def inputs_read():
        k.kill(ap)
        k.kill(bp)
    kara_mul_ops(k, acc, lambda j: k.mem(ap, 8 * j), lambda j: k.mem(bp, 8 * j), n,
                 rp, inputs_read)


def kara_mul_ops(k, acc, A, B, n, rp=None, inputs_read=None):
    """acc[0..2n-1] = A*B by one Karatsuba level over operand thunks (A(j),
    B(j): limb j, memory or register operands); inputs_read() is called once
    the last read of A and B is emitted.  rp: as kara_mul_rows."""
    l, h = halves(n)
    assert h >= 1
    da, ma = _absdiff(k, A, lambda j: A(l + j) if j < h else None, l)
    db, mb = _absdiff(k, lambda j: B(l + j) if j < h else None, B, l)
    k.emit(XOR, k.r(ma), k.r(mb))           # s = -1 iff (a0-a1)(b1-b0) < 0
    k.unlock()
    k.kill(mb)
    s = ma
    # sub-rows: the adx two-pass rows pay above 4 columns (as _mul_rows).
    # Order: adx forms d first (p751 mul_wide -5%, p503 -2%), the single-chain
    # levels last (d first: p503 +7% bmi2, +4% x86_64).
    z0, z2, d = {}, {}, {}

    def dprod():
        _product(k, d, lambda i: da[i], lambda j: k.opnd(db[j]), l, l, l > 4)
    dfirst = k.level == "adx"
    if dfirst:
        dprod()
    _product(k, z0, lambda i: (lambda: A(i)), B, l, l, l > 4)
    _product(k, z2, lambda i: (lambda: A(l + i)), lambda j: B(l + j), h, h, h > 4)
    if inputs_read is not None:
        inputs_read()
    if not dfirst:
        dprod()
    for v in da + db:
        k.kill(v)
    _combine(k, acc, n, l, h, z0, z2, d, s, rp)


def _combine(k, acc, n, l, h, z0, z2, d, s, rp=None):
    """acc[0..2n-1] = z0 + M*R + z2*R^2 with M = (-1)^s d + z0 + z2 (s: mask Val).

    rp (output pointer, inputs all read): each word is stored as soon as it is
    final instead (MOV keeps the flags of the chain), and acc is left empty.
    """
    def store(q):
        k.emit(MOV, k.mem(rp, 8 * q), k.r(acc[q]))
        k.unlock()
        k.kill(acc.pop(q))
    # M = (d XOR s) + (s & 1) + z0 + z2, top word s + carries (0 or 1)
    for j in range(2 * l):
        k.emit(XOR, k.r(d[j]), k.r(s))
        k.unlock()
    t = k.new(PRIO_ACC)
    k.emit(MOV, t.reg, k.r(s))
    if k.level == "adx":
        k.clear_flags()
        k.emit(ADD, t.reg, t.reg)           # CF = s & 1, OF = 0
        k.unlock()
        k.kill(t)
        for j in range(2 * l):
            w = k.r(d[j])
            k.emit(ADCX, w, k.opnd(z0[j]))
            k.emit(ADOX, w, k.opnd(z2[j]) if j < 2 * h else k.zero)
            k.unlock()
        w = k.r(s)
        k.emit(ADCX, w, k.zero)
        k.emit(ADOX, w, k.zero)
        k.unlock()
    else:
        k.emit(ADD, t.reg, t.reg)           # CF = s & 1
        k.unlock()
        k.kill(t)
        for j in range(2 * l):
            k.emit(ADC, k.r(d[j]), k.opnd(z0[j]))
            k.unlock()
        k.emit(ADC, k.r(s), 0)
        k.unlock()
        for j in range(2 * l):
            w = k.r(d[j])
            if j < 2 * h:
                k.emit(ADD if j == 0 else ADC, w, k.opnd(z2[j]))
            else:
                k.emit(ADC, w, 0)
            k.unlock()
        k.emit(ADC, k.r(s), 0)
        k.unlock()
    M = [d[j] for j in range(2 * l)] + [s]
    for j in range(2 * l):
        acc[j] = z0[j]
    for j in range(2 * h):
        acc[2 * l + j] = z2[j]
    if rp is not None:
        for q in range(l):
            store(q)
    # acc[l..2n-1] += M (mod 2^(128n))
    for q in range(l, 2 * n):
        j = q - l
        w = k.r(acc[q])
        if j < len(M):
            k.emit(ADD if j == 0 else ADC, w, k.opnd(M[j]))
        else:
            k.emit(ADC, w, 0)
        k.unlock()
        if j < len(M):
            k.kill(M[j])
        if rp is not None:
            store(q)
    for v in M[2 * n - l:]:
        k.kill(v)
    for v in acc.values():
        v.prio = PRIO_DONE



def kara_sqr_rows(k, acc, ap, n, sqr_rows, rp=None):
    """acc[0..2n-1] = a^2 by one Karatsuba level; ap is killed.

    z0 = a0^2, z2 = a1^2, d = (a0 - a1)^2, m = 2*a0*a1 = z0 + z2 - d: the sign
    is always negative (s = -1), so the combination is the product's.
    sqr_rows(k, acc, word, count): the squaring rows of x86_64_mont.
    """
    l, h = halves(n)
    assert h >= 1
    A = lambda j: k.mem(ap, 8 * j)
    da, ma = _absdiff(k, A, lambda j: A(l + j) if j < h else None, l)
    k.kill(ma)
    z0, z2, d = {}, {}, {}
    dfirst = k.level == "adx"
    if dfirst:
        sqr_rows(k, d, lambda i: k.opnd(da[i]), l)
    sqr_rows(k, z0, A, l)
    sqr_rows(k, z2, lambda i: A(l + i), h)
    k.kill(ap)
    if not dfirst:
        sqr_rows(k, d, lambda i: k.opnd(da[i]), l)
    for v in da:
        k.kill(v)
    for dd in (z0, z2, d):
        for v in dd.values():
            v.prio = PRIO_DONE
    s = k.new(PRIO_ACC)
    k.emit(MOV, s.reg, -1)
    k.unlock()
    _combine(k, acc, n, l, h, z0, z2, d, s, rp)
