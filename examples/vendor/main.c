// SPDX-License-Identifier: MIT OR Apache-2.0
/* fieldgen vendoring example: the shipped p25519 field (2^255 - 19),
 * copied into fieldgen/ beside this file and built with one cc line
 * (README.md). Computes 1/9 and a square root of -1, checks both and a bytes
 * round trip, prints them in hex (little-endian, the field's byte order). */
#include <stdio.h>
#include <string.h>

#include "fg_p25519.h"

static void print_hex(const char *label, const fg_p25519 *a)
{
    uint8_t b[FG_P25519_BYTES];
    fg_p25519_to_bytes(b, a);
    printf("%s = ", label);
    for (size_t i = 0; i < sizeof b; i++)
        printf("%02x", b[i]);
    printf("\n");
}

int main(void)
{
    fg_p25519 nine, one, minus1, r, t;
    uint8_t in[FG_P25519_BYTES], out[FG_P25519_BYTES];
    int ok = 1;

    fg_p25519_from_u64(&nine, 9);
    fg_p25519_one(&one);
    fg_p25519_sub(&minus1, &nine, &nine);
    fg_p25519_sub(&minus1, &minus1, &one);

    ok &= fg_p25519_inv(&r, &nine); /* 9 * (1/9) == 1 */
    fg_p25519_mul(&t, &r, &nine);
    ok &= fg_p25519_eq(&t, &one);
    print_hex("inv(9)  ", &r);

    ok &= fg_p25519_sqrt(&r, &minus1); /* p = 1 mod 4: -1 is a square */
    fg_p25519_sqr(&t, &r);
    ok &= fg_p25519_eq(&t, &minus1);
    print_hex("sqrt(-1)", &r);

    for (size_t i = 0; i < sizeof in; i++)
        in[i] = (uint8_t)(0x20 - i);
    ok &= fg_p25519_from_bytes(&r, in);
    fg_p25519_to_bytes(out, &r);
    ok &= memcmp(in, out, sizeof in) == 0;

    printf("vendored p25519 (level %s): %s\n", fg_isa_name(fg_isa_active()), ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}
