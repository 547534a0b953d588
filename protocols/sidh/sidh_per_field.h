/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* The per-field names of the SIDH test, constant-time and speed programs,
 * each compiled once per field with -DSIDH_F=p503 -DSIDH_FU=P503 and
 * -DSIDH_HEADER="fgp_sidh_p503.h" (protocols/sidh/CMakeLists.txt):
 *   API(keygen_a)  fgp_sidh_p503_keygen_a     K(PK_BYTES)  FGP_SIDH_P503_PK_BYTES
 *   FLD(fp2_mul)   fg_p503_fp2_mul            FC(LIMBS)    FG_P503_LIMBS
 *   STR(SIDH_F)    "p503" */
#ifndef SIDH_PER_FIELD_H
#define SIDH_PER_FIELD_H

#define CAT3(a, b, c) a##b##c
#define XCAT3(a, b, c) CAT3(a, b, c)
#define STR_(x) #x
#define STR(x) STR_(x)
#define API(op) XCAT3(fgp_sidh_, SIDH_F, _##op)
#define K(name) XCAT3(FGP_SIDH_, SIDH_FU, _##name)
#define FLD(op) XCAT3(fg_, SIDH_F, _##op)
#define FC(name) XCAT3(FG_, SIDH_FU, _##name)
#include SIDH_HEADER /* fgp_sidh_NAME.h; fg_NAME.h is SIDH_FIELD_HEADER */

#endif
