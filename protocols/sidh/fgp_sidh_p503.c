/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* SIDH on p503 (SIDH IS BROKEN: a benchmark only, see fgp_sidh_p503.h): the
 * generic code of sidh_impl.h instantiated for fg_p503. */
#include "fgp_sidh_p503.h"

#include "fg_p503.h"
#include "sidh_params_p503.h"

#define SIDH_FIELD(x) fg_p503_##x
#define SIDH_API(x) fgp_sidh_p503_##x
#define SIDH_PARAM(x) sidh_p503_##x
#define SIDH_EA SIDH_P503_EA
#define SIDH_SKB_BITS SIDH_P503_SKB_BITS
#define SIDH_MAX_A SIDH_P503_MAX_A
#define SIDH_MAX_B SIDH_P503_MAX_B
#define SIDH_PTS_A SIDH_P503_PTS_A
#define SIDH_PTS_B SIDH_P503_PTS_B
#define SIDH_SKA_BYTES FGP_SIDH_P503_SKA_BYTES
#define SIDH_SKB_BYTES FGP_SIDH_P503_SKB_BYTES
#define SIDH_PK_BYTES FGP_SIDH_P503_PK_BYTES
#define SIDH_SS_BYTES FGP_SIDH_P503_SS_BYTES
#define SIDH_FP2_BYTES FG_P503_FP2_BYTES

_Static_assert(SIDH_PK_BYTES == 3 * SIDH_FP2_BYTES && SIDH_SS_BYTES == SIDH_FP2_BYTES,
               "SIDH p503: public key and secret sizes follow the field");
_Static_assert(SIDH_SKA_BYTES == (SIDH_EA + 7) / 8 && SIDH_SKB_BYTES == (SIDH_SKB_BITS + 7) / 8,
               "SIDH p503: secret key sizes follow eA and the bit length of 3^eB");
_Static_assert(FGP_SIDH_P503_SKA_BITS == SIDH_EA && FGP_SIDH_P503_SKB_BITS == SIDH_SKB_BITS,
               "SIDH p503: the header's key bit lengths are the parameters'");

#include "sidh_impl.h"
