/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* fieldgen-bench: result rows and everything that reports them
 * (table, JSON, --compare, --plot). */
#ifndef FGB_REPORT_H
#define FGB_REPORT_H
#include "fgb.h"

struct fgb_row {
    char field[32], op[16], impl[32], level[16];
    int field_rank, peer;           /* order of the field in the build; 1 for peers */
    int has_lat, has_thr;
    struct fgb_stats lat, thr;      /* TSC ticks per call */
    int check_ok;                   /* peers: checked against ours; ours: kernel self-test */
    char check[200], note[96];
    char label[32];                 /* the SIDH libraries' name of this benchmark, or "" */
    /* ours, kernel ops: the 64x64 multiplications, port-0/6 and ALU instructions of
     * the kernel the row runs (fgb_field mults/p06/alu), 0 when unknown (C, peers) */
    int mults, p06, alu;
    /* rows fieldgen/via at level dispatch: entry point minus kernel, batch by batch
     * (median, 95% CI low, high; TSC ticks per call), latency and throughput */
    int has_pair;
    double pair_lat[3], pair_thr[3];
    /* rows fieldgen at level dispatch: the call against this process's best checked
     * peer, at level x86_64 against the best peer on that path (latency,
     * throughput), measured once more as an interleaved pair, the
     * median of the batch-by-batch ratios ours / peer with its 95% CI; the host's
     * fast and slow phases hit both sides of a pair alike. peer_pair_with: that
     * peer's "impl level", for latency and for throughput */
    int has_peer_pair;
    double peer_pair_lat[3], peer_pair_thr[3];
    char peer_pair_with[2][48];
    /* --runs merge: the median over the processes of this row's ratio to the best
     * peer of its own process (latency, throughput); 0 when not merged or no peer.
     * The table's lat/peer and thr/peer use it, as a noisy machine can slow a
     * whole process, ours and the peers' rows alike. */
    double vs_peer[2];
};

struct fgb_thread_row {
    char field[32], op[16];
    int threads;
    double ops_per_s, per_thread_ops_per_s;
};

struct fgb_meta {
    char date[40], cpu_model[128], cpu_flags[2048], compiler[160], cflags[512], build_type[32];
    char openssl[96], gmp[48], dispatch_level[16], isa_best[16], fieldgen_isa_env[16], tune[16];
    char ratio_detail[256], method[512], pinned[32];
    double core_per_tick;           /* 0: figures are TSC ticks */
    double tsc_hz, t0_ticks, loop_ticks;
    /* the product-row probe (fgb_row_probe), TSC ticks: per MULX of rows of MULX alone,
     * per operation of the full rows; 0 when not measured */
    double row_mulx_ticks, row_op_ticks;
    int quick, logical_cpus, masked_ok;
    int runs;                       /* processes merged (--runs), 1 for one */
    char masked_note[160];
};

struct fgb_results {
    struct fgb_meta meta;
    struct fgb_row *rows;
    int nrows, caprows;
    struct fgb_thread_row *threads;
    int nthreads, capthreads;
    int errors;                      /* failed checks, allocations, self-tests */
    /* a --runs merge: the processes' own results, from which the summaries take their
     * ratios process by process (NULL, 0 otherwise: one process, or --from-json) */
    struct fgb_results *runs;
    int nruns;
};

struct fgb_row *fgb_add_row(struct fgb_results *r);
void fgb_sort_rows(struct fgb_results *r);
double fgb_cycles(const struct fgb_results *r, double ticks);
const char *fgb_unit(const struct fgb_results *r);

void fgb_print_table(const struct fgb_results *r);
void fgb_print_inversion(const struct fgb_results *r); /* inv vs inv_fermat, inv_batch */
void fgb_print_legendre(const struct fgb_results *r);  /* is_square vs is_square_euler */
void fgb_print_fp2(const struct fgb_results *r);       /* Fp2 cost relative to Fp mul */
void fgb_print_lazy(const struct fgb_results *r);      /* mul_lazy, sqr_lazy vs mul, sqr */
void fgb_print_floors(const struct fgb_results *r);    /* kernels against their port floor */
void fgb_print_dispatch(const struct fgb_results *r);
void fgb_print_peer_pairs(const struct fgb_results *r); /* ours / best peer, interleaved pairs */
void fgb_print_threads(const struct fgb_results *r);
int fgb_write_json(const struct fgb_results *r, const char *path);
int fgb_read_json(struct fgb_results *r, const char *path);
/* The best (lowest median) checked peer row for a field and op, latency
 * (thr 0) or throughput (thr 1); NULL if none. */
const char *fgb_peer_op(const char *op);
const struct fgb_row *fgb_best_peer(const struct fgb_results *r, const char *field, const char *op, int thr);
/* The same among the peer rows of one ISA path (level "x86_64", ...; NULL: any). */
const struct fgb_row *fgb_best_peer_at(const struct fgb_results *r, const char *field, const char *op, int thr,
                                       const char *level);
int fgb_compare(const struct fgb_results *now, const char *old_path);
int fgb_plot(const struct fgb_results *r, const char *png);
/* --runs: measure in `runs` child processes (argv without --runs and the report
 * options) and merge their reports into res (fgb_runs.c); 0 on success */
int fgb_run_processes(struct fgb_results *res, char **argv, int argc, int runs);
#endif
