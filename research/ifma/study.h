/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Entry points of the IFMA study (ifma.c, fp2.c) and the fieldgen symbols the
 * harnesses compare them with. */
#ifndef IFMA_STUDY_H
#define IFMA_STUDY_H
#include <stdint.h>
void ifma_setup(void);
void p503_mul_ifma(uint64_t *r, const uint64_t *a, const uint64_t *b);
void p503_sqr_ifma(uint64_t *r, const uint64_t *a);
void p751_mul_ifma(uint64_t *r, const uint64_t *a, const uint64_t *b);
void p751_sqr_ifma(uint64_t *r, const uint64_t *a);
void p503_fp2_mul_ifma(uint64_t *r, const uint64_t *a, const uint64_t *b);
void p751_fp2_mul_ifma(uint64_t *r, const uint64_t *a, const uint64_t *b);
extern const uint64_t fg_p503_P[8], fg_p751_P[12];
void fg_p503_mul(void *r, const void *a, const void *b);
void fg_p751_mul(void *r, const void *a, const void *b);
void fg_p503_fp2_mul(void *r, const void *a, const void *b);
void fg_p751_fp2_mul(void *r, const void *a, const void *b);
#endif
