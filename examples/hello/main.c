// SPDX-License-Identifier: MIT OR Apache-2.0
/* fieldgen hello: the k256 field of my_fields.toml (p = 2^256 - 2^32 - 977):
 * an inverse, a square root and a bytes round trip, each checked and printed
 * in hex (big-endian, the field's byte order). Exit 0 when every check holds. */
#include <stdio.h>
#include <string.h>

#include "fg_k256.h"

static void print_hex(const char *label, const fg_k256 *a)
{
    uint8_t b[FG_K256_BYTES];
    fg_k256_to_bytes(b, a);
    printf("%s = 0x", label);
    for (size_t i = 0; i < sizeof b; i++)
        printf("%02x", b[i]);
    printf("\n");
}

int main(void)
{
    fg_k256 seven, two, one, r, t;
    uint8_t in[FG_K256_BYTES], out[FG_K256_BYTES];
    int ok = 1;

    fg_k256_from_u64(&seven, 7);
    fg_k256_from_u64(&two, 2);
    fg_k256_from_u64(&one, 1);

    /* 1/7: 7 * (1/7) == 1 */
    ok &= fg_k256_inv(&r, &seven);
    fg_k256_mul(&t, &r, &seven);
    ok &= fg_k256_eq(&t, &one);
    print_hex("inv(7) ", &r);

    /* sqrt(2) (2 is a square: p = 7 mod 8): its square is 2 */
    ok &= fg_k256_sqrt(&r, &two);
    fg_k256_sqr(&t, &r);
    ok &= fg_k256_eq(&t, &two);
    print_hex("sqrt(2)", &r);

    /* bytes: 0x0102...20 in, the same bytes out; p itself is refused */
    for (size_t i = 0; i < sizeof in; i++)
        in[i] = (uint8_t)(i + 1);
    ok &= fg_k256_from_bytes(&r, in);
    fg_k256_to_bytes(out, &r);
    ok &= memcmp(in, out, sizeof in) == 0;
    print_hex("bytes  ", &r);
    memset(in, 0xff, sizeof in);
    in[27] = 0xfe, in[28] = 0xff, in[29] = 0xff, in[30] = 0xfc, in[31] = 0x2f; /* p, big-endian */
    ok &= !fg_k256_from_bytes(&r, in);

    printf("hello (k256, level %s): %s\n", fg_isa_name(fg_isa_active()), ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}
