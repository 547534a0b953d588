/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Uses the vendored p256 field: (x * y) / y == x, sqrt, serialization. */
#include <stdio.h>
#include <string.h>

#include "fg_p256.h"

int main(void)
{
    fg_p256 x, y, z, yinv;
    uint8_t out[FG_P256_BYTES], in[FG_P256_BYTES];
    int ok = 1;
    memset(in, 0, sizeof in);
    in[FG_P256_BYTES - 1] = 7; /* big-endian 7 */
    ok &= fg_p256_from_bytes(&x, in);
    fg_p256_from_u64(&y, 1234567);
    fg_p256_mul(&z, &x, &y);
    ok &= fg_p256_inv(&yinv, &y);
    fg_p256_mul(&z, &z, &yinv);
    ok &= fg_p256_eq(&z, &x);
    fg_p256_sqr(&z, &y);
    ok &= fg_p256_sqrt(&z, &z);
    fg_p256_sqr(&z, &z);
    fg_p256_sqr(&x, &y);
    ok &= fg_p256_eq(&z, &x);
    fg_p256_from_u64(&x, 7);
    fg_p256_to_bytes(out, &x);
    ok &= memcmp(out, in, sizeof in) == 0;
    printf("vendored p256 (level %s): %s\n", fg_isa_name(fg_isa_active()), ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}
