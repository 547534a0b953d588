/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* fieldgen-bench: peers (OpenSSL's assembly from the static libcrypto.a, GMP's mpn). */
#ifndef FGB_PEERS_H
#define FGB_PEERS_H
#include "fgb.h"

struct fgb_peer_row {
    char impl[32];   /* "openssl:nistz256", "openssl:fe64", "openssl:fe51", "openssl:bn_mul_mont", "gmp:mpn" */
    char level[16];  /* ISA path the peer takes: "adx" (MULX+ADCX/ADOX) or "x86_64" (MULQ) */
    int op;          /* enum fgb_op */
    struct fgb_loops loops;
    void *state;
    int check_ok;    /* 1 if every checked input matched our result */
    char check[200]; /* what was checked, or the first mismatch */
    char note[96];   /* e.g. "partially reduced output, compared mod p" */
    int masked;      /* 1: runs with OpenSSL's BMI2/ADX bits cleared (fgb_peers_mask) */
};

void fgb_peers_init(void);
int fgb_peers_have_openssl(void);
int fgb_peers_have_gmp(void);
/* OpenSSL's current capability word 2 has BMI2 and ADX (bits 8 and 19). */
int fgb_peers_openssl_adx(void);
/* on = 1: clear BMI2 and ADX in OpenSSL's capability word 2; on = 0: restore the
 * word fgb_peers_init found. nistz256 and bn_mul_mont read the word on every
 * call, so their MULQ paths can be timed in this process, interleaved with the
 * other rows (fgb_case.openssl_mask). No-op without OpenSSL. */
void fgb_peers_mask(int on);
/* OpenSSL's capability vector as an OPENSSL_ia32cap value that sets it exactly
 * (AVX-512 cleared), for a child run whose CPUID differs (Valgrind's hides ADX);
 * 0 without OpenSSL. */
int fgb_peers_openssl_cap(char *buf, size_t len);
/* Versions and build facts, for the report. */
void fgb_peers_describe(char *buf, size_t len);
const char *fgb_peers_openssl_version(void);
const char *fgb_peers_gmp_version(void);

/* Builds the peer rows for one field. masked == 0: every peer on its best path.
 * masked == 1: only the OpenSSL peers whose path changes when BMI2/ADX are
 * masked, checked with the mask on and marked masked (the timer sets it around
 * their batches). Peers are chosen by comparing the modulus with P-256 and
 * 2^255-19, never by field name. Each row's result is checked against ours
 * before it is timed. */
int fgb_peers_build(const struct fgb_field *f, void *fstate, int masked,
                    struct fgb_peer_row *out, int max);
#endif
