/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* The Fp2 product from the field's C kernel and add/neg, (a0 + a1 u)(b0 + b1 u)
 * with u^2 = nr, over limb arrays: the reference the ABI tests hold every
 * assembly Fp2 kernel to (tests/test_abi.c, tests/abi/test_abi_aarch64.c).
 * Include after fg_test_field.h, with W the bytes of one element, where the
 * field has Fp2. */
#ifndef FG_FP2_REFERENCE_H
#define FG_FP2_REFERENCE_H

static void fp2_mul_reference(uint64_t *out, const uint64_t *a, const uint64_t *b)
{
    FE x, y, z;
    int i;
    F(mul_c)(x.limb, a, b);
    F(mul_c)(y.limb, a + N, b + N);
    memset(&z, 0, sizeof z); /* z = nr * y: |nr| additions, then the sign */
    for (i = 0; i < (C(FP2_NON_RESIDUE) < 0 ? -C(FP2_NON_RESIDUE) : C(FP2_NON_RESIDUE)); i++)
        F(add)(&z, &z, &y);
    if (C(FP2_NON_RESIDUE) < 0)
        F(neg)(&z, &z);
    F(add)(&z, &x, &z);
    memcpy(out, z.limb, W);
    F(mul_c)(x.limb, a, b + N);
    F(mul_c)(y.limb, a + N, b);
    F(add)(&z, &x, &y);
    memcpy(out + N, z.limb, W);
}

#endif /* FG_FP2_REFERENCE_H */
