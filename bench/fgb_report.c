/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* fieldgen-bench: reporting: table, dispatch overhead, threads, JSON, --compare, --plot. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fgb_json.h"
#include "fgb_report.h"

struct fgb_row *fgb_add_row(struct fgb_results *r)
{
    if (r->nrows == r->caprows) {
        r->caprows = r->caprows ? 2 * r->caprows : 256;
        r->rows = realloc(r->rows, (size_t)r->caprows * sizeof *r->rows);
    }
    struct fgb_row *row = &r->rows[r->nrows++];
    memset(row, 0, sizeof *row);
    return row;
}

double fgb_cycles(const struct fgb_results *r, double ticks)
{
    return r->meta.core_per_tick > 0 ? ticks * r->meta.core_per_tick : ticks;
}

const char *fgb_unit(const struct fgb_results *r)
{
    return r->meta.core_per_tick > 0 ? "core cycles" : FGB_TICKS;
}

static int op_rank(const char *op)
{
    for (int i = 0; i < FGB_NOPS; i++)
        if (!strcmp(op, fgb_op_names[i]))
            return i;
    return FGB_NOPS;
}
static int level_rank(const char *lv)
{
    if (!strcmp(lv, "dispatch"))
        return -1;
    for (int i = 0; i < FGB_NLEVELS; i++)
        if (!strcmp(lv, fgb_level_names[i]))
            return i;
    return FGB_NLEVELS;
}
/* the order of rows: a level's, and adx's Zen form just after adx */
static int row_level_rank(const char *lv)
{
    return !strcmp(lv, fgb_kernel_names[FG_KERNEL_ADX_ZEN]) ? 2 * FG_ISA_ADX + 1 : 2 * level_rank(lv);
}
static int impl_rank(const char *impl)
{
    if (!strcmp(impl, "fieldgen")) return 0;
    if (!strcmp(impl, "fieldgen/direct")) return 1;
    if (!strncmp(impl, "openssl", 7)) return 2;
    return 3;
}
static int row_cmp(const void *a, const void *b)
{
    const struct fgb_row *x = a, *y = b;
    int d;
    if ((d = x->field_rank - y->field_rank) || (d = strcmp(x->field, y->field)) ||
        (d = op_rank(x->op) - op_rank(y->op)) || (d = impl_rank(x->impl) - impl_rank(y->impl)) ||
        (d = strcmp(x->impl, y->impl)))
        return d;
    return row_level_rank(y->level) - row_level_rank(x->level) < 0 ? 1
         : row_level_rank(y->level) == row_level_rank(x->level) ? 0 : -1;
}
void fgb_sort_rows(struct fgb_results *r)
{
    qsort(r->rows, (size_t)r->nrows, sizeof *r->rows, row_cmp);
}

static void fmt_num(char *b, size_t n, double v)
{
    if (fabs(v) < 10)
        snprintf(b, n, "%.2f", v);
    else if (fabs(v) < 1000)
        snprintf(b, n, "%.1f", v);
    else
        snprintf(b, n, "%.0f", v);
}

static void fmt_stats(const struct fgb_results *r, char *b, size_t n, const struct fgb_stats *s, int has)
{
    if (!has) {
        snprintf(b, n, "-");
        return;
    }
    char m[32], lo[32], hi[32];
    fmt_num(m, sizeof m, fgb_cycles(r, s->median));
    fmt_num(lo, sizeof lo, fgb_cycles(r, s->min));
    fmt_num(hi, sizeof hi, fgb_cycles(r, s->max));
    snprintf(b, n, "%s [%s-%s]", m, lo, hi);
}

/* The op whose peer rows a row of op is compared with: the lazy mul and sqr
 * against the peers' mul and sqr (which return canonical values). */
const char *fgb_peer_op(const char *op)
{
    if (!strcmp(op, "mul_lazy"))
        return "mul";
    if (!strcmp(op, "sqr_lazy"))
        return "sqr";
    return op;
}

const struct fgb_row *fgb_best_peer(const struct fgb_results *r, const char *field, const char *op, int thr)
{
    return fgb_best_peer_at(r, field, op, thr, NULL);
}

const struct fgb_row *fgb_best_peer_at(const struct fgb_results *r, const char *field, const char *op, int thr,
                                       const char *level)
{
    const struct fgb_row *best = NULL;
    op = fgb_peer_op(op);
    for (int i = 0; i < r->nrows; i++) {
        const struct fgb_row *p = &r->rows[i];
        if (!p->peer || !p->check_ok || strcmp(p->field, field) || strcmp(p->op, op) ||
            (level && strcmp(p->level, level)))
            continue;
        if (thr ? !p->has_thr : !p->has_lat)
            continue;
        double v = thr ? p->thr.median : p->lat.median;
        if (!best || v < (thr ? best->thr.median : best->lat.median))
            best = p;
    }
    return best;
}

/* The SIDH label of a field+op group (from any of our rows), or "". */
static const char *group_label(const struct fgb_results *r, const char *field, const char *op)
{
    for (int i = 0; i < r->nrows; i++) {
        const struct fgb_row *x = &r->rows[i];
        if (!x->peer && x->label[0] && !strcmp(x->field, field) && !strcmp(x->op, op))
            return x->label;
    }
    return "";
}

void fgb_print_table(const struct fgb_results *r)
{
    const struct fgb_meta *m = &r->meta;
#if defined(__aarch64__) /* no cycles there: counter ticks (fgb.h) */
    printf("fieldgen-bench: time per call, %s\n", fgb_unit(r));
#else
    printf("fieldgen-bench: cycles per call, %s\n", fgb_unit(r));
#endif
    printf("  date %s%s\n", m->date, m->quick ? "  (--quick: few short batches, rough figures)" : "");
    printf("  CPU  %s, %d logical CPUs, measured on %s\n", m->cpu_model, m->logical_cpus, m->pinned);
    if (m->core_per_tick > 0)
        printf("  unit core cycles = TSC ticks x %.3f (%s; TSC %.2f GHz)\n", m->core_per_tick,
               m->ratio_detail, m->tsc_hz / 1e9);
    else
#if defined(__aarch64__)
        printf("  unit counter ticks (%s; measured %.4g MHz)\n", m->ratio_detail, m->tsc_hz / 1e6);
#else
        printf("  unit TSC ticks (%s; TSC %.2f GHz)\n", m->ratio_detail, m->tsc_hz / 1e9);
#endif
    printf("  method %s\n", m->method);
    printf("  build %s, %s, flags: %s\n", m->compiler, m->build_type, m->cflags[0] ? m->cflags : "(none)");
    printf("  fieldgen dispatch level %s (best %s%s%s), tuning %s; peers: OpenSSL %s, GMP %s\n",
           m->dispatch_level, m->isa_best, m->fieldgen_isa_env[0] ? ", FIELDGEN_ISA=" : "", m->fieldgen_isa_env,
           m->tune[0] ? m->tune : "generic", m->openssl, m->gmp);
    if (m->masked_note[0])
        printf("  OpenSSL with BMI2/ADX masked: %s\n", m->masked_note);
    printf("\n  latency    = chained calls, each output is the next input\n"
           "  throughput = %d independent calls per loop iteration\n"
           "  %s; vs peer = our median / the best checked peer's median\n"
           "  for the same field and op (below 1.00 = faster than the peer)\n"
           "  impl fieldgen = public fg_NAME_OP at level 'dispatch' (start-up choice) or forced to a level;\n"
           "  fieldgen/direct = the level's kernel fg_NAME_OP_LEVEL called directly; peer level = ISA path\n\n",
           FGB_WAYS, m->runs > 1 ? "median of the processes' medians [lowest-highest process median]"
                                 : "median [min-max] over batches");
    printf("%-8s %-10s %-20s %-8s %-28s %-28s %8s %8s\n", "field", "op", "impl", "level",
           "latency", "throughput", "lat/peer", "thr/peer");
    char notes[32][96];
    int nnotes = 0;
    const char *pf = "", *pop = "";
    for (int i = 0; i < r->nrows; i++) {
        const struct fgb_row *row = &r->rows[i];
        if (!strcmp(row->impl, "fieldgen/via") || !strcmp(row->impl, "fieldgen/call"))
            continue; /* dispatch-overhead pairs: their own table */
        if (strcmp(row->field, pf) || strcmp(row->op, pop)) {
            const struct fgb_row *bl = fgb_best_peer(r, row->field, row->op, 0);
            const struct fgb_row *bt = fgb_best_peer(r, row->field, row->op, 1);
            printf("\n");
            /* the SIDH name of the benchmark, and what one "call" is */
            char named[96] = "";
            const char *label = group_label(r, row->field, row->op);
            int o = label[0] ? snprintf(named, sizeof named, " (%s)", label) : 0;
            if (!strcmp(row->op, "inv_batch") || !strcmp(row->op, "fp2_inv_batch"))
                snprintf(named + o, sizeof named - (size_t)o, " [per element, batches of %d]", FGB_BATCH);
            if (bl) {
                char a[32], b[32];
                fmt_num(a, sizeof a, fgb_cycles(r, bl->lat.median));
                fmt_num(b, sizeof b, bt ? fgb_cycles(r, bt->thr.median) : 0);
                printf("-- %s %s%s: best peer%s %s %s (latency %s), %s %s (throughput %s)\n", row->field,
                       row->op, named, strcmp(fgb_peer_op(row->op), row->op) ? " (its canonical mul or sqr)" : "",
                       bl->impl, bl->level, a, bt->impl, bt->level, b);
            } else {
                printf("-- %s %s%s: no peer\n", row->field, row->op, named);
            }
            pf = row->field;
            pop = row->op;
        }
        char lat[64], thr[64], rl[16] = "-", rt[16] = "-", mark[16] = "";
        fmt_stats(r, lat, sizeof lat, &row->lat, row->has_lat);
        fmt_stats(r, thr, sizeof thr, &row->thr, row->has_thr);
        const struct fgb_row *bl = fgb_best_peer(r, row->field, row->op, 0);
        const struct fgb_row *bt = fgb_best_peer(r, row->field, row->op, 1);
        if (bl && row->has_lat && bl->lat.median > 0)
            snprintf(rl, sizeof rl, "%.2f", row->vs_peer[0] > 0 ? row->vs_peer[0] : row->lat.median / bl->lat.median);
        if (bt && row->has_thr && bt->thr.median > 0)
            snprintf(rt, sizeof rt, "%.2f", row->vs_peer[1] > 0 ? row->vs_peer[1] : row->thr.median / bt->thr.median);
        if (row->note[0] && row->peer) {
            int k;
            for (k = 0; k < nnotes && strcmp(notes[k], row->note); k++)
                ;
            if (k == nnotes && nnotes < 32)
                snprintf(notes[nnotes++], sizeof notes[0], "%s", row->note);
            snprintf(mark, sizeof mark, " [%d]", k + 1);
        }
        printf("%-8s %-10s %-20s %-8s %-28s %-28s %8s %8s%s%s\n", row->field, row->op, row->impl,
               row->level, lat, thr, rl, rt, mark, row->check_ok ? "" : "  ! CHECK FAILED");
        if (!row->check_ok && row->check[0])
            printf("         ! %s\n", row->check);
    }
    if (nnotes) {
        printf("\nnotes:\n");
        for (int k = 0; k < nnotes; k++)
            printf("  [%d] %s\n", k + 1, notes[k]);
    }
    int ours = 0, allocs = 0;
    for (int i = 0; i < r->nrows; i++)
        if (!r->rows[i].peer) {
            ours++;
            allocs += r->rows[i].lat.allocs_per_call > 0 || r->rows[i].thr.allocs_per_call > 0;
        }
    printf("\nheap allocations: counted by malloc/calloc/realloc/memalign interposition during every "
           "timed batch:\n  %s for %d of %d fieldgen rows\n",
           allocs ? "NONZERO" : "0 per call", ours - allocs, ours);
}

static const struct fgb_row *find_row(const struct fgb_results *r, const char *field, const char *op,
                                      const char *impl, const char *level)
{
    for (int i = 0; i < r->nrows; i++) {
        const struct fgb_row *x = &r->rows[i];
        if (!strcmp(x->field, field) && !strcmp(x->op, op) && !strcmp(x->impl, impl) &&
            !strcmp(x->level, level))
            return x;
    }
    return NULL;
}

/* ---------------------------------------------------------------- summaries ---- */
/* Fields in row order (rows are sorted by field first). */
static int row_fields(const struct fgb_results *r, char fields[][32], int max)
{
    int nf = 0;
    for (int i = 0; i < r->nrows && nf < max; i++)
        if (!nf || strcmp(fields[nf - 1], r->rows[i].field))
            snprintf(fields[nf++], 32, "%s", r->rows[i].field);
    return nf;
}

static const char *const summary_levels[] = {"dispatch", "c", FGB_ASM_LEVEL, "bmi2", "adx", "ifma"};
#define NSUMMARY_LEVELS 6

/* our (impl fieldgen) row at a level with both figures, or NULL */
static const struct fgb_row *ours(const struct fgb_results *r, const char *field, const char *op,
                                  const char *level)
{
    const struct fgb_row *x = find_row(r, field, op, "fieldgen", level);
    return x && x->has_lat && x->has_thr && x->lat.median > 0 && x->thr.median > 0 ? x : NULL;
}

static void cell(const struct fgb_results *r, char *b, size_t n, const struct fgb_row *x, int thr)
{
    if (!x)
        snprintf(b, n, "-");
    else
        fmt_num(b, n, fgb_cycles(r, thr ? x->thr.median : x->lat.median));
}

/* (kx * x + kw * w) / y in latency (thr 0) or throughput (w may be NULL): for a --runs
 * merge the median of that ratio taken in each process on its own rows (the same field,
 * op, impl and level), since one process can run every row slow; otherwise (or where a
 * process lacks a row) from the merged medians. */
static double sum_ratio(const struct fgb_results *r, double kx, const struct fgb_row *x, double kw,
                        const struct fgb_row *w, const struct fgb_row *y, int thr)
{
#define FIG(row) ((row) ? ((thr) ? (row)->thr.median : (row)->lat.median) : 0)
    double v[r->nruns > 0 ? r->nruns : 1];
    int nv = 0;
    for (int k = 0; k < r->nruns; k++) {
        const struct fgb_results *p = &r->runs[k];
        const struct fgb_row *a = find_row(p, x->field, x->op, x->impl, x->level),
                             *b = w ? find_row(p, w->field, w->op, w->impl, w->level) : NULL,
                             *d = find_row(p, y->field, y->op, y->impl, y->level);
        if (FIG(a) > 0 && (!w || FIG(b) > 0) && FIG(d) > 0)
            v[nv++] = (kx * FIG(a) + kw * FIG(b)) / FIG(d);
    }
    if (nv == r->nruns && nv > 0)
        return fgb_median(v, nv);
    return (kx * FIG(x) + kw * FIG(w)) / FIG(y);
#undef FIG
}
static void ratio(const struct fgb_results *r, char *b, size_t n, const struct fgb_row *x,
                  const struct fgb_row *y, int thr)
{
    if (!x || !y)
        snprintf(b, n, "-");
    else
        snprintf(b, n, "%.2fx", sum_ratio(r, 1, x, 0, NULL, y, thr));
}

void fgb_print_inversion(const struct fgb_results *r)
{
    char fields[64][32];
    int nf = row_fields(r, fields, 64), printed = 0;
    for (int i = 0; i < nf; i++)
        for (int k = 0; k < NSUMMARY_LEVELS; k++) {
            const char *lv = summary_levels[k];
            const struct fgb_row *inv = ours(r, fields[i], "inv", lv),
                                 *fer = ours(r, fields[i], "inv_fermat", lv),
                                 *bat = ours(r, fields[i], "inv_batch", lv),
                                 *mul = ours(r, fields[i], "mul", lv);
            if (!inv || (!fer && !bat))
                continue;
            if (!printed++)
                printf("\ninversion: safegcd (inv, Bernstein-Yang divsteps) vs Fermat (inv_fermat, a^(p-2) over "
                       "the addition chain),\n  %s per call%s; 'Fermat/safegcd' = how many times faster "
                       "safegcd is (issue 6 asks >= 3x for p503,\n  >= 5x for p751, > 1x for p256 and "
                       "2^255-19). inv_batch: per element of a %d-element batch\n  (Montgomery's trick); "
                       "'inv/elem' = one inv over one batch element, 'elem/mul' = a batch element in Fp muls\n"
                       "%-8s %-8s %9s %11s %15s %15s %10s %9s %9s\n",
                       fgb_unit(r), r->nruns ? " (ratios: the median of the processes' own)" : "", FGB_BATCH,
                       "field", "level", "inv lat", "fermat lat",
                       "Fermat/safegcd", "same, thr", "batch/elem", "inv/elem", "elem/mul");
            char a[32], b[32], c[32], d[32], e[32], g[32], h[32];
            cell(r, a, sizeof a, inv, 0);
            cell(r, b, sizeof b, fer, 0);
            ratio(r, c, sizeof c, fer, inv, 0);
            ratio(r, d, sizeof d, fer, inv, 1);
            cell(r, e, sizeof e, bat, 0);
            ratio(r, g, sizeof g, inv, bat, 0);
            ratio(r, h, sizeof h, bat, mul, 0);
            printf("%-8s %-8s %9s %11s %15s %15s %10s %9s %9s\n", fields[i], lv, a, b, c, d, e, g, h);
        }
}

void fgb_print_legendre(const struct fgb_results *r)
{
    char fields[64][32];
    int nf = row_fields(r, fields, 64), printed = 0;
    for (int i = 0; i < nf; i++)
        for (int k = 0; k < NSUMMARY_LEVELS; k++) {
            const char *lv = summary_levels[k];
            const struct fgb_row *bg = ours(r, fields[i], "is_square", lv),
                                 *eu = ours(r, fields[i], "is_square_euler", lv);
            if (!bg || !eu)
                continue;
            if (!printed++)
                printf("\nLegendre symbol: is_square (divsteps from 4 limbs, binary GCD below) vs Euler's "
                       "criterion (is_square_euler,\n  a^((p-1)/2) over the addition chain), %s per call%s; "
                       "'Euler/GCD' = how many times faster is_square is\n%-8s %-8s %12s %12s %10s %10s\n",
                       fgb_unit(r), r->nruns ? " (ratios: the median of the processes' own)" : "",
                       "field", "level", "GCD lat", "Euler lat", "Euler/GCD", "same, thr");
            char a[32], b[32], c[32], d[32];
            cell(r, a, sizeof a, bg, 0);
            cell(r, b, sizeof b, eu, 0);
            ratio(r, c, sizeof c, eu, bg, 0);
            ratio(r, d, sizeof d, eu, bg, 1);
            printf("%-8s %-8s %12s %12s %10s %10s\n", fields[i], lv, a, b, c, d);
        }
}

void fgb_print_lazy(const struct fgb_results *r)
{
    char fields[64][32];
    int nf = row_fields(r, fields, 64), printed = 0;
    for (int i = 0; i < nf; i++)
        for (int k = 0; k < NSUMMARY_LEVELS; k++) {
            const char *lv = summary_levels[k];
            const struct fgb_row *ml = ours(r, fields[i], "mul_lazy", lv), *m = ours(r, fields[i], "mul", lv),
                                 *sl = ours(r, fields[i], "sqr_lazy", lv), *s = ours(r, fields[i], "sqr", lv);
            if ((!ml || !m) && (!sl || !s))
                continue;
            if (!printed++)
                printf("\nlazy reduction: mul_lazy and sqr_lazy (Montgomery fields: operands and result below 2p, no final "
                       "subtraction;\n  pseudo-Mersenne fields: any operands below 2^(64n), no final select)\n  against mul and sqr (canonical) at the same level%s;\n  below "
                       "1.00x the lazy op is faster; the table's lat/peer and thr/peer set them against "
                       "the peers'\n  mul and sqr (whose results are canonical)\n"
                       "%-8s %-8s %10s %10s %10s %10s\n",
                       r->nruns ? " (the median of the processes' own ratios)" : "",
                       "field", "level", "mul lat", "mul thr", "sqr lat", "sqr thr");
            char a[32], b[32], c[32], d[32];
            ratio(r, a, sizeof a, ml, m, 0);
            ratio(r, b, sizeof b, ml, m, 1);
            ratio(r, c, sizeof c, sl, s, 0);
            ratio(r, d, sizeof d, sl, s, 1);
            printf("%-8s %-8s %10s %10s %10s %10s\n", fields[i], lv, a, b, c, d);
        }
}

/* targets of issue 6: Fp2 mul <= 2.6 Fp mul, Fp2 sqr <= 2.1 Fp mul, same level */
#define FGB_FP2_MUL_TARGET 2.6
#define FGB_FP2_SQR_TARGET 2.1

static void verdict_cell(const struct fgb_results *r, char *b, size_t n, const struct fgb_row *x,
                         const struct fgb_row *mul, int thr, double target)
{
    if (!x || !mul) {
        snprintf(b, n, "-");
        return;
    }
    double v = sum_ratio(r, 1, x, 0, NULL, mul, thr);
    /* judged on the printed (2-decimal) figure, so a row never reads "2.60x MISS" */
    snprintf(b, n, "%.2fx %s", v, floor(v * 100 + 0.5) <= target * 100 + 1e-9 ? "PASS" : "MISS");
}

void fgb_print_fp2(const struct fgb_results *r)
{
    char fields[64][32];
    int nf = row_fields(r, fields, 64), printed = 0;
    for (int i = 0; i < nf; i++) {
        const char *lm = group_label(r, fields[i], "fp2_mul"), *ls = group_label(r, fields[i], "fp2_sqr"),
                   *li = group_label(r, fields[i], "fp2_inv"), *lf = group_label(r, fields[i], "mul");
        for (int k = 0; k < NSUMMARY_LEVELS; k++) {
            const char *lv = summary_levels[k];
            const struct fgb_row *mul = ours(r, fields[i], "mul", lv), *m2 = ours(r, fields[i], "fp2_mul", lv),
                                 *s2 = ours(r, fields[i], "fp2_sqr", lv), *i2 = ours(r, fields[i], "fp2_inv", lv),
                                 *a2 = ours(r, fields[i], "fp2_add", lv), *inv = ours(r, fields[i], "inv", lv),
                                 *mw = ours(r, fields[i], "mul_wide", lv), *rd = ours(r, fields[i], "redc", lv);
            if (!mul || (!m2 && !s2 && !i2))
                continue;
            if (!printed++)
                printf("\nFp2 cost relative to Fp mul (same level): our Fp2 median / our Fp mul median at the "
                       "same level,\n  latency (thr: throughput)%s. Targets (issue 6): %s <= %.1fx, %s <= %.1fx "
                       "(a report, not a test;\n  the best hand-written SIDH code spends 3.5x/2.8x on mul and "
                       "2.3x/2.1x on sqr for p503/p751).\n  '3mul_wide+2redc' = three mul_wide and two redc of "
                       "the same level in Fp muls (latency): the\n  floor of a lazy-reduction Fp2 mul before its "
                       "additions\n"
                       "%-8s %-8s %8s %-16s %-16s %-16s %-16s %-10s %-8s %-15s %s\n",
                       r->nruns ? "; each ratio the median of the processes' own ratios" : "",
                       lm[0] ? lm : "fp2_mul", FGB_FP2_MUL_TARGET, ls[0] ? ls : "fp2_sqr", FGB_FP2_SQR_TARGET,
                       "field", "level", "Fp mul", "Fp2 mul lat", "Fp2 mul thr", "Fp2 sqr lat", "Fp2 sqr thr",
                       "Fp2 inv", "Fp2 add", "Fp2 inv/Fp inv", "3mul_wide+2redc");
            if (k == 0)
                printf("%-8s SIDH names: %s = %s, %s = %s, %s = %s, %s = %s\n", fields[i], "mul", lf[0] ? lf : "-",
                       "fp2_mul", lm[0] ? lm : "-", "fp2_sqr", ls[0] ? ls : "-", "fp2_inv", li[0] ? li : "-");
            char a[32], b[32], c[32], d[32], e[32], g[32], h[32], q[32];
            cell(r, a, sizeof a, mul, 0);
            ratio(r, q, sizeof q, i2, inv, 0);
            /* what Karatsuba with lazy reduction costs in this level's own kernels, before any
             * addition: the floor of Fp2 mul in Fp muls (the target is reachable only below it) */
            char fl[32] = "-";
            if (mw && rd)
                snprintf(fl, sizeof fl, "%.2fx", sum_ratio(r, 3, mw, 2, rd, mul, 0));
            verdict_cell(r, b, sizeof b, m2, mul, 0, FGB_FP2_MUL_TARGET);
            verdict_cell(r, c, sizeof c, m2, mul, 1, FGB_FP2_MUL_TARGET);
            verdict_cell(r, d, sizeof d, s2, mul, 0, FGB_FP2_SQR_TARGET);
            verdict_cell(r, e, sizeof e, s2, mul, 1, FGB_FP2_SQR_TARGET);
            ratio(r, g, sizeof g, i2, mul, 0);
            ratio(r, h, sizeof h, a2, mul, 0);
            printf("%-8s %-8s %8s %-16s %-16s %-16s %-16s %-10s %-8s %-15s %s\n", fields[i], lv, a, b, c, d, e, g, h,
                   q, fl);
        }
    }
}

/* Each kernel against its port floor: max(64x64 multiplications, port-0/6
 * instructions / 2) cycles (gen/fg/targets/x86_64/cost.py, research/ports/). Only when
 * the unit is core cycles (the floor is in cycles). 'floor/peer' is the ratio
 * to the best peer that a kernel at its floor would reach: a target below it
 * cannot be met by a kernel with these instruction counts.
 * The start-up probe (fgb_row_probe) says whether that model holds here: where a
 * product row's additions do not hide beside its MULX (the row takes more than
 * FGB_ROW_SHARED times the MULX alone, as on Zen 3) MULX and the ALU instructions
 * share issue, the floor is too low, and the kernel's count of both ('alu' beside
 * 'mults') is what bounds it (research/ports/rows.py sets the kernels against the
 * row's rate inside one process; a start-up figure is too far from the kernels'
 * rounds on a host whose clock moves to print a per-kernel bound from it). */
#define FGB_ROW_SHARED 1.10
void fgb_print_floors(const struct fgb_results *r)
{
    if (r->meta.core_per_tick <= 0)
        return;
    static const char *const kops[] = {"mul", "sqr", "mul_wide", "sqr_wide", "redc", "fp2_mul", "fp2_sqr"};
    static const char *const levels[] = {"dispatch", "x86_64", "bmi2", "adx", "ifma"};
    const struct fgb_meta *m = &r->meta;
    /* the full row (24 operations) over the MULX alone (8) */
    double row_ratio = m->row_mulx_ticks > 0 ? 3.0 * m->row_op_ticks / m->row_mulx_ticks : 0;
    char fields[64][32];
    int nf = row_fields(r, fields, 64), printed = 0;
    for (int i = 0; i < nf; i++)
        for (int o = 0; o < 7; o++)
            for (int k = 0; k < 5; k++) {
                if (k == 4 && o < 5) /* the ifma level runs adx's Fp kernels: shown at adx */
                    continue;
                const struct fgb_row *x = ours(r, fields[i], kops[o], levels[k]);
                if (!x || !(x->mults || x->p06))   /* counted: an assembly kernel (p256's x86_64 redc has no multiplication) */
                    continue;
                if (!printed++) {
                    printf("\nport floor of each kernel: max(64x64 multiplications, port-0/6 instructions / 2) "
                           "cycles, the\n  counts of the kernel the row runs (straight-line code, counted on "
                           "the generated assembly:\n  MULX/MUL one per cycle; ADC/SBB/ADCX/ADOX/CMOVcc/SETcc/"
                           "shifts two per cycle, ports 0 and 6,\n  as measured by research/ports/ports.c on "
                           "Intel cores); 'floor/peer' = floor / the best peer's median,\n  the lowest ratio to "
                           "that peer a kernel with these counts can reach; 'alu' = its ALU instructions\n"
                           "  (all but the multiplications, loads, stores, register moves, pushes, pops and zeroing "
                           "XORs)%s\n",
                           strstr(m->cpu_model, "Intel") ? ""
                               : "\n  (the CPU model does not name Intel: these port groups are Intel's; AMD's cores "
                                 "differ, research/ports/README.md)");
                    if (row_ratio > 0)
                        printf("  product-row probe: rows of 8 MULX with the 16 ADCX/ADOX that add their halves "
                               "took %.2fx\n  the 8 MULX alone here (research/ports/rows.py): %s\n",
                               row_ratio,
                               row_ratio > FGB_ROW_SHARED
                                   ? "MULX and the ALU instructions share issue on this core, so the\n"
                                     "  floor is too low and mults + alu is what bounds a kernel (rows.py sets "
                                     "the kernels\n  against the row's rate in one process)"
                                   : "the additions hide beside MULX, as the port model has it");
                    printf("%-8s %-9s %-8s %6s %5s %5s %7s %9s %8s %9s %8s %10s %10s %8s\n", "field", "op",
                           "level", "mults", "p06", "alu", "floor", "latency", "lat/fl", "thr", "thr/fl",
                           "peer lat", "floor/peer", "lat/peer");
                }
                double fl = x->mults > x->p06 / 2.0 ? x->mults : x->p06 / 2.0;
                double lat = fgb_cycles(r, x->lat.median), thr = fgb_cycles(r, x->thr.median);
                const struct fgb_row *p = fgb_best_peer(r, fields[i], kops[o], 0);
                char pl[32] = "-", fp[32] = "-", lp[32] = "-";
                if (p) {
                    double pc = fgb_cycles(r, p->lat.median);
                    fmt_num(pl, sizeof pl, pc);
                    snprintf(fp, sizeof fp, "%.2f", fl / pc);
                    snprintf(lp, sizeof lp, "%.2f", lat / pc);
                }
                printf("%-8s %-9s %-8s %6d %5d %5d %7.1f %9.1f %8.2f %9.1f %8.2f %10s %10s %8s\n", fields[i],
                       kops[o], levels[k], x->mults, x->p06, x->alu, fl, lat, lat / fl, thr, thr / fl, pl, fp, lp);
            }
}

/* "+median [+low, +high]" of a paired overhead, in the report's unit */
static void fmt_pair(char *buf, size_t len, const struct fgb_results *r, const double p[3])
{
    snprintf(buf, len, "%+.2f [%+.2f, %+.2f]", fgb_cycles(r, p[0]), fgb_cycles(r, p[1]), fgb_cycles(r, p[2]));
}

/* One row of the dispatch-overhead table: entry point d minus kernel k, the pair's
 * paired figures where d has them; 0 (nothing printed) when a row is missing. */
static int print_overhead(const struct fgb_results *r, const struct fgb_row *d, const struct fgb_row *k,
                          const char *loop, int *printed)
{
    if (!d || !k || !k->has_lat || !k->has_thr || !d->has_lat || !d->has_thr)
        return 0;
    if (!(*printed)++)
        printf("\ndispatch overhead: fg_NAME_OP (level 'dispatch' = %s) minus the kernel it reaches, "
               "fg_NAME_OP_LEVEL; %s per call; loop 'call': each called directly, as an application "
               "calls it, from a loop compiled from the same macro as its pair's, both 64-byte aligned "
               "(rows fieldgen/call); 'same': both called through a pointer from the same loop code "
               "(rows fieldgen/via); 'own': the table's rows.\n"
               "'-> +delta' subtracts the two medians; 'paired' is the median of the batch-by-batch "
               "differences of the interleaved pair [its 95%% confidence interval]\n"
               "%-8s %-10s %-7s %-5s %-26s %-26s %-24s %-24s\n",
               r->meta.dispatch_level, fgb_unit(r), "field", "op", "kernel", "loop",
               "latency: direct -> +delta", "throughput: direct -> +delta", "latency: paired",
               "throughput: paired");
    char a[32], b[32], c[32], e[32], l[64], t[64];
    fmt_num(a, sizeof a, fgb_cycles(r, k->lat.median));
    fmt_num(b, sizeof b, fgb_cycles(r, d->lat.median - k->lat.median));
    fmt_num(c, sizeof c, fgb_cycles(r, k->thr.median));
    fmt_num(e, sizeof e, fgb_cycles(r, d->thr.median - k->thr.median));
    snprintf(l, sizeof l, "%s -> %s%s (%+.1f%%)", a, d->lat.median >= k->lat.median ? "+" : "", b,
             100.0 * (d->lat.median / k->lat.median - 1));
    snprintf(t, sizeof t, "%s -> %s%s (%+.1f%%)", c, d->thr.median >= k->thr.median ? "+" : "", e,
             100.0 * (d->thr.median / k->thr.median - 1));
    char pl[64] = "-", pt[64] = "-";
    if (d->has_pair) {
        fmt_pair(pl, sizeof pl, r, d->pair_lat);
        fmt_pair(pt, sizeof pt, r, d->pair_thr);
    }
    printf("%-8s %-10s %-7s %-5s %-26s %-26s %-24s %-24s\n", d->field, d->op, k->level, loop, l, t, pl, pt);
    return 1;
}

void fgb_print_dispatch(const struct fgb_results *r)
{
    /* the pairs: "call" (rows fieldgen/call: each called directly, as an application
     * calls it), "same" (fieldgen/via: both through a pointer from the same loop code);
     * each pair's kernel row is its one row not at level dispatch (the kernel the
     * dispatcher runs: a level's, or adx's Zen form) */
    static const struct { const char *impl, *loop; } kinds[] = {{"fieldgen/call", "call"},
                                                               {"fieldgen/via", "same"}};
    int printed = 0;
    for (int i = 0; i < r->nrows; i++) {
        const struct fgb_row *d = &r->rows[i];
        if (strcmp(d->impl, "fieldgen") || strcmp(d->level, "dispatch"))
            continue;
        int npairs = 0;
        for (unsigned w = 0; w < sizeof kinds / sizeof kinds[0]; w++) {
            const struct fgb_row *k = NULL;
            for (int j = 0; j < r->nrows && !k; j++) {
                const struct fgb_row *x = &r->rows[j];
                if (!strcmp(x->field, d->field) && !strcmp(x->op, d->op) && !strcmp(x->impl, kinds[w].impl) &&
                    strcmp(x->level, "dispatch"))
                    k = x;
            }
            npairs += print_overhead(r, find_row(r, d->field, d->op, kinds[w].impl, "dispatch"), k,
                                     kinds[w].loop, &printed);
        }
        if (npairs)
            continue;
        /* no pair (a report from before them): the table's own rows, the kernel the
         * start-up level's or (a field without assembly) the highest level below it
         * that has its own kernel, down to c */
        const struct fgb_row *k = NULL;
        for (int L = level_rank(r->meta.dispatch_level); L >= 0 && !k; L--)
            k = find_row(r, d->field, d->op, "fieldgen/direct", fgb_level_names[L]);
        print_overhead(r, d, k, "own", &printed);
    }
}

void fgb_print_peer_pairs(const struct fgb_results *r)
{
    int printed = 0;
    for (int i = 0; i < r->nrows; i++) {
        const struct fgb_row *d = &r->rows[i];
        if (strcmp(d->impl, "fieldgen") || !d->has_peer_pair)
            continue;
        if (!printed++)
            printf("\npaired against the best peer: fg_NAME_OP at level 'dispatch' and the best checked peer "
                   "of the same process,\n  and at level '" FGB_ASM_LEVEL "' and the best peer on that " FGB_BASE_PATH " path, "
                   "each measured once more as an interleaved pair\n  (the batches of the two alternate, so "
                   "the host's fast and slow phases hit both alike); the median of the\n  batch-by-batch "
                   "ratios ours / peer [its 95%% confidence interval]%s\n"
                   "%-8s %-10s %-8s %-22s %-27s %-22s %-27s\n",
                   r->meta.runs > 1 ? ";\n  merged: the median of the processes' figures" : "",
                   "field", "op", "level", "latency: ours/peer", "peer", "throughput: ours/peer", "peer");
        char l[48], t[48];
        snprintf(l, sizeof l, "%.3f [%.3f, %.3f]", d->peer_pair_lat[0], d->peer_pair_lat[1], d->peer_pair_lat[2]);
        snprintf(t, sizeof t, "%.3f [%.3f, %.3f]", d->peer_pair_thr[0], d->peer_pair_thr[1], d->peer_pair_thr[2]);
        printf("%-8s %-10s %-8s %-22s %-27s %-22s %-27s\n", d->field, d->op, d->level, l, d->peer_pair_with[0],
               t, d->peer_pair_with[1]);
    }
}

void fgb_print_threads(const struct fgb_results *r)
{
    if (!r->nthreads)
        return;
    printf("\nmulti-core throughput: dispatched entry point, one chained stream per thread, threads "
           "pinned to distinct CPUs\n%-8s %-6s %8s %16s %16s %9s\n", "field", "op", "threads", "ops/s total",
           "ops/s/thread", "scaling");
    for (int i = 0; i < r->nthreads; i++) {
        const struct fgb_thread_row *t = &r->threads[i];
        double base = 0;
        for (int j = 0; j < r->nthreads; j++)
            if (!strcmp(r->threads[j].field, t->field) && !strcmp(r->threads[j].op, t->op) &&
                r->threads[j].threads == 1)
                base = r->threads[j].ops_per_s;
        printf("%-8s %-6s %8d %16.4g %16.4g %8.2fx\n", t->field, t->op, t->threads, t->ops_per_s,
               t->per_thread_ops_per_s, base > 0 ? t->ops_per_s / base : 0);
    }
}

/* ---------------------------------------------------------------- JSON ---- */
static void jkv(FILE *f, const char *k, const char *v, int comma)
{
    fgb_json_write_str(f, k);
    fputs(": ", f);
    fgb_json_write_str(f, v);
    if (comma)
        fputs(", ", f);
}

static void jstats(FILE *f, const struct fgb_results *r, const char *k, const struct fgb_stats *s)
{
    fprintf(f, "\"%s\": {\"median\": %.6g, \"min\": %.6g, \"max\": %.6g, \"q1\": %.6g, \"q3\": %.6g, "
               "\"median_ticks\": %.6g, \"min_ticks\": %.6g, \"max_ticks\": %.6g, \"q1_ticks\": %.6g, "
               "\"q3_ticks\": %.6g, \"batches\": %d, \"iters_per_batch\": %zu, \"allocs_per_call\": %.6g}",
            k, fgb_cycles(r, s->median), fgb_cycles(r, s->min), fgb_cycles(r, s->max), fgb_cycles(r, s->q1),
            fgb_cycles(r, s->q3), s->median, s->min, s->max, s->q1, s->q3, s->batches, s->iters,
            s->allocs_per_call);
}

int fgb_write_json(const struct fgb_results *r, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "fieldgen-bench: cannot write %s\n", path);
        return 1;
    }
    const struct fgb_meta *m = &r->meta;
    fprintf(f, "{\n  \"schema\": \"fieldgen-bench/1\",\n  ");
    jkv(f, "date", m->date, 1);
    fprintf(f, "\"quick\": %s,\n  \"runs\": %d,\n  \"unit\": ", m->quick ? "true" : "false",
            m->runs > 1 ? m->runs : 1);
    fgb_json_write_str(f, fgb_unit(r));
    fprintf(f, ",\n  \"cpu\": {");
    jkv(f, "model", m->cpu_model, 1);
    jkv(f, "flags", m->cpu_flags, 1);
    fprintf(f, "\"logical_cpus\": %d, ", m->logical_cpus);
    jkv(f, "pinned", m->pinned, 1);
    fprintf(f, "\"tsc_hz\": %.6g, \"core_cycles_per_tick\": %.6g, ", m->tsc_hz, m->core_per_tick);
    fprintf(f, "\"row_probe_ticks\": {\"mulx\": %.6g, \"op\": %.6g}, ", m->row_mulx_ticks, m->row_op_ticks);
    jkv(f, "core_cycles_per_tick_detail", m->ratio_detail, 0);
    fprintf(f, "},\n  \"build\": {");
    jkv(f, "compiler", m->compiler, 1);
    jkv(f, "flags", m->cflags, 1);
    jkv(f, "build_type", m->build_type, 0);
    fprintf(f, "},\n  \"fieldgen\": {");
    jkv(f, "dispatch_level", m->dispatch_level, 1);
    jkv(f, "isa_best", m->isa_best, 1);
    jkv(f, "FIELDGEN_ISA", m->fieldgen_isa_env, 1);
    jkv(f, "tune", m->tune, 0);
    fprintf(f, "},\n  \"peers\": {");
    jkv(f, "openssl", m->openssl, 1);
    jkv(f, "gmp", m->gmp, 1);
    jkv(f, "openssl_masked", m->masked_note, 0);
    fprintf(f, "},\n  \"method\": {");
    jkv(f, "description", m->method, 1);
    fprintf(f, "\"overhead_ticks_per_batch\": %.6g, \"loop_ticks_per_iteration\": %.6g, "
               "\"throughput_ways\": %d},\n", m->t0_ticks, m->loop_ticks, FGB_WAYS);
    fprintf(f, "  \"errors\": %d,\n  \"rows\": [\n", r->errors);
    for (int i = 0; i < r->nrows; i++) {
        const struct fgb_row *x = &r->rows[i];
        fprintf(f, "    {");
        jkv(f, "field", x->field, 1);
        jkv(f, "op", x->op, 1);
        jkv(f, "impl", x->impl, 1);
        jkv(f, "level", x->level, 1);
        fprintf(f, "\"peer\": %s, \"check_ok\": %s, ", x->peer ? "true" : "false", x->check_ok ? "true" : "false");
        jkv(f, "check", x->check, 1);
        jkv(f, "note", x->note, 1);
        if (x->label[0])
            jkv(f, "label", x->label, 1);
        if (!strcmp(x->op, "inv_batch") || !strcmp(x->op, "fp2_inv_batch"))
            fprintf(f, "\"per_element_of_batch\": %d, ", FGB_BATCH);
        if (x->mults || x->p06)
            fprintf(f, "\"kernel_mults\": %d, \"kernel_p06\": %d, \"kernel_alu\": %d, ", x->mults, x->p06, x->alu);
        fprintf(f, "\n     ");
        if (x->has_lat)
            jstats(f, r, "latency", &x->lat);
        if (x->has_lat && x->has_thr)
            fprintf(f, ",\n     ");
        if (x->has_thr)
            jstats(f, r, "throughput", &x->thr);
        if (x->has_pair)
            fprintf(f, ",\n     \"paired_overhead\": {\"latency\": [%.6g, %.6g, %.6g], "
                       "\"throughput\": [%.6g, %.6g, %.6g], \"what\": \"entry point minus kernel, "
                       "median of batch-by-batch differences and its 95%% confidence interval, per call\"}",
                    fgb_cycles(r, x->pair_lat[0]), fgb_cycles(r, x->pair_lat[1]), fgb_cycles(r, x->pair_lat[2]),
                    fgb_cycles(r, x->pair_thr[0]), fgb_cycles(r, x->pair_thr[1]), fgb_cycles(r, x->pair_thr[2]));
        if (x->has_peer_pair) {
            fprintf(f, ",\n     \"paired_peer\": {\"latency\": [%.6g, %.6g, %.6g], \"throughput\": [%.6g, %.6g, "
                       "%.6g], ",
                    x->peer_pair_lat[0], x->peer_pair_lat[1], x->peer_pair_lat[2], x->peer_pair_thr[0],
                    x->peer_pair_thr[1], x->peer_pair_thr[2]);
            jkv(f, "peer_latency", x->peer_pair_with[0], 1);
            jkv(f, "peer_throughput", x->peer_pair_with[1], 1);
            fprintf(f, "\"what\": \"ours / the best peer, interleaved pair, median of batch-by-batch "
                       "ratios and its 95%% confidence interval\"}");
        }
        if (x->vs_peer[0] > 0 || x->vs_peer[1] > 0)
            fprintf(f, ",\n     \"vs_peer\": {\"latency\": %.6g, \"throughput\": %.6g, \"what\": \"median over "
                       "the processes of the ratio to the best peer of the same process (0: none)\"}",
                    x->vs_peer[0], x->vs_peer[1]);
        fprintf(f, "}%s\n", i + 1 < r->nrows ? "," : "");
    }
    fprintf(f, "  ],\n  \"threads\": [\n");
    for (int i = 0; i < r->nthreads; i++) {
        const struct fgb_thread_row *t = &r->threads[i];
        fprintf(f, "    {\"field\": \"%s\", \"op\": \"%s\", \"threads\": %d, \"ops_per_s\": %.6g, "
                   "\"ops_per_s_per_thread\": %.6g}%s\n",
                t->field, t->op, t->threads, t->ops_per_s, t->per_thread_ops_per_s,
                i + 1 < r->nthreads ? "," : "");
    }
    fprintf(f, "  ]\n}\n");
    if (fclose(f) != 0) {
        fprintf(stderr, "fieldgen-bench: error writing %s\n", path);
        return 1;
    }
    if (!getenv("FGB_RUNS_CHILD"))
        fprintf(stderr, "fieldgen-bench: wrote %s\n", path);
    return 0;
}

static void copy_str(char *dst, size_t n, const struct fgb_json *o, const char *k)
{
    snprintf(dst, n, "%s", fgb_json_str(o, k, ""));
}

static int read_stats(const struct fgb_json *o, struct fgb_stats *s)
{
    if (!o)
        return 0;
    s->median = fgb_json_num(o, "median_ticks", NAN);
    s->min = fgb_json_num(o, "min_ticks", NAN);
    s->max = fgb_json_num(o, "max_ticks", NAN);
    s->q1 = fgb_json_num(o, "q1_ticks", NAN);
    s->q3 = fgb_json_num(o, "q3_ticks", NAN);
    s->batches = (int)fgb_json_num(o, "batches", 0);
    s->iters = (size_t)fgb_json_num(o, "iters_per_batch", 0);
    s->allocs_per_call = fgb_json_num(o, "allocs_per_call", 0);
    return !isnan(s->median);
}

/* "paired_overhead": {"latency": [3], "throughput": [3]}, written in the report's
 * unit (core cycles when core_per_tick > 0), kept in TSC ticks like every figure */
static int read_pair(const struct fgb_json *o, double core_per_tick, double lat[3], double thr[3])
{
    if (!o)
        return 0;
    const struct fgb_json *arr[2] = {fgb_json_get(o, "latency"), fgb_json_get(o, "throughput")};
    double *dst[2] = {lat, thr};
    for (int k = 0; k < 2; k++) {
        const struct fgb_json *e = arr[k] ? arr[k]->child : NULL;
        for (int i = 0; i < 3; i++, e = e ? e->next : NULL) {
            if (!e || e->type != FGB_JNUM)
                return 0;
            dst[k][i] = core_per_tick > 0 ? e->num / core_per_tick : e->num;
        }
    }
    return 1;
}

int fgb_read_json(struct fgb_results *r, const char *path)
{
    char err[256];
    struct fgb_json *j = fgb_json_parse_file(path, err, sizeof err);
    if (!j) {
        fprintf(stderr, "fieldgen-bench: %s\n", err);
        return 1;
    }
    if (strcmp(fgb_json_str(j, "schema", ""), "fieldgen-bench/1")) {
        fprintf(stderr, "fieldgen-bench: %s is not a fieldgen-bench/1 report\n", path);
        fgb_json_free(j);
        return 1;
    }
    struct fgb_meta *m = &r->meta;
    const struct fgb_json *cpu = fgb_json_get(j, "cpu"), *b = fgb_json_get(j, "build"),
                          *fg = fgb_json_get(j, "fieldgen"), *pe = fgb_json_get(j, "peers"),
                          *me = fgb_json_get(j, "method");
    copy_str(m->date, sizeof m->date, j, "date");
    m->quick = (int)fgb_json_num(j, "quick", 0);
    m->runs = (int)fgb_json_num(j, "runs", 1);
    copy_str(m->cpu_model, sizeof m->cpu_model, cpu, "model");
    copy_str(m->cpu_flags, sizeof m->cpu_flags, cpu, "flags");
    copy_str(m->pinned, sizeof m->pinned, cpu, "pinned");
    m->logical_cpus = (int)fgb_json_num(cpu, "logical_cpus", 0);
    m->tsc_hz = fgb_json_num(cpu, "tsc_hz", 0);
    m->core_per_tick = fgb_json_num(cpu, "core_cycles_per_tick", 0);
    const struct fgb_json *probe = fgb_json_get(cpu, "row_probe_ticks");
    m->row_mulx_ticks = probe ? fgb_json_num(probe, "mulx", 0) : 0;
    m->row_op_ticks = probe ? fgb_json_num(probe, "op", 0) : 0;
    copy_str(m->ratio_detail, sizeof m->ratio_detail, cpu, "core_cycles_per_tick_detail");
    copy_str(m->compiler, sizeof m->compiler, b, "compiler");
    copy_str(m->cflags, sizeof m->cflags, b, "flags");
    copy_str(m->build_type, sizeof m->build_type, b, "build_type");
    copy_str(m->dispatch_level, sizeof m->dispatch_level, fg, "dispatch_level");
    copy_str(m->isa_best, sizeof m->isa_best, fg, "isa_best");
    copy_str(m->fieldgen_isa_env, sizeof m->fieldgen_isa_env, fg, "FIELDGEN_ISA");
    copy_str(m->tune, sizeof m->tune, fg, "tune");
    copy_str(m->openssl, sizeof m->openssl, pe, "openssl");
    copy_str(m->gmp, sizeof m->gmp, pe, "gmp");
    copy_str(m->masked_note, sizeof m->masked_note, pe, "openssl_masked");
    copy_str(m->method, sizeof m->method, me, "description");
    m->t0_ticks = fgb_json_num(me, "overhead_ticks_per_batch", 0);
    m->loop_ticks = fgb_json_num(me, "loop_ticks_per_iteration", 0);
    const struct fgb_json *rows = fgb_json_get(j, "rows");
    char lastf[32] = "";
    int rank = -1;
    for (const struct fgb_json *x = rows ? rows->child : NULL; x; x = x->next) {
        struct fgb_row *row = fgb_add_row(r);
        copy_str(row->field, sizeof row->field, x, "field");
        copy_str(row->op, sizeof row->op, x, "op");
        copy_str(row->impl, sizeof row->impl, x, "impl");
        copy_str(row->level, sizeof row->level, x, "level");
        copy_str(row->check, sizeof row->check, x, "check");
        copy_str(row->note, sizeof row->note, x, "note");
        copy_str(row->label, sizeof row->label, x, "label");
        if (strcmp(lastf, row->field)) {
            rank++;
            snprintf(lastf, sizeof lastf, "%s", row->field);
        }
        row->field_rank = rank;
        row->peer = (int)fgb_json_num(x, "peer", 0);
        row->check_ok = (int)fgb_json_num(x, "check_ok", 1);
        row->has_lat = read_stats(fgb_json_get(x, "latency"), &row->lat);
        row->has_thr = read_stats(fgb_json_get(x, "throughput"), &row->thr);
        row->mults = (int)fgb_json_num(x, "kernel_mults", 0);
        row->has_pair = read_pair(fgb_json_get(x, "paired_overhead"), m->core_per_tick, row->pair_lat,
                                  row->pair_thr);
        const struct fgb_json *pp = fgb_json_get(x, "paired_peer");
        row->has_peer_pair = read_pair(pp, 0, row->peer_pair_lat, row->peer_pair_thr); /* ratios: no unit */
        if (row->has_peer_pair) {
            copy_str(row->peer_pair_with[0], sizeof row->peer_pair_with[0], pp, "peer_latency");
            copy_str(row->peer_pair_with[1], sizeof row->peer_pair_with[1], pp, "peer_throughput");
        }
        row->p06 = (int)fgb_json_num(x, "kernel_p06", 0);
        row->alu = (int)fgb_json_num(x, "kernel_alu", 0);
        const struct fgb_json *vp = fgb_json_get(x, "vs_peer");
        row->vs_peer[0] = vp ? fgb_json_num(vp, "latency", 0) : 0;
        row->vs_peer[1] = vp ? fgb_json_num(vp, "throughput", 0) : 0;
    }
    const struct fgb_json *th = fgb_json_get(j, "threads");
    for (const struct fgb_json *x = th ? th->child : NULL; x; x = x->next) {
        if (r->nthreads == r->capthreads) {
            r->capthreads = r->capthreads ? 2 * r->capthreads : 32;
            r->threads = realloc(r->threads, (size_t)r->capthreads * sizeof *r->threads);
        }
        struct fgb_thread_row *t = &r->threads[r->nthreads++];
        copy_str(t->field, sizeof t->field, x, "field");
        copy_str(t->op, sizeof t->op, x, "op");
        t->threads = (int)fgb_json_num(x, "threads", 0);
        t->ops_per_s = fgb_json_num(x, "ops_per_s", 0);
        t->per_thread_ops_per_s = fgb_json_num(x, "ops_per_s_per_thread", 0);
    }
    r->errors = (int)fgb_json_num(j, "errors", 0);
    fgb_json_free(j);
    return 0;
}

/* ---------------------------------------------------------------- compare ---- */
/* Spread-aware comparison.
 * Machine drift: the peers' code did not change between the runs, so their change is
 * the machine's (frequency, neighbours). Each fieldgen row is divided by the median
 * new/old ratio over all peer rows (robust: one noisy peer cannot move it; a per-group
 * drift from a single peer proved too noisy). Peer rows are shown raw.
 * A row regressed when its (drift-adjusted) median rose by more than
 * max(3%, the two runs' relative interquartile ranges added) AND the middle halves of
 * the two runs do not overlap (new q1 > old q3). Improvements mirror it. */
static const char *verdict(const struct fgb_stats *o, const struct fgb_stats *n, double drift,
                           double *delta)
{
    double nm = n->median / drift, nq1 = n->q1 / drift, nq3 = n->q3 / drift;
    *delta = nm / o->median - 1;
    double noise = (o->q3 - o->q1) / o->median + (n->q3 - n->q1) / n->median;
    double thr = noise > 0.03 ? noise : 0.03;
    if (*delta > thr && nq1 > o->q3)
        return "REGRESSION";
    if (*delta < -thr && nq3 < o->q1)
        return "improved";
    return "~";
}

static int dcmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median_d(double *v, int n)
{
    if (n <= 0)
        return 1;
    qsort(v, (size_t)n, sizeof *v, dcmp);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Median new/old ratio of peers (thr: throughput) in field/op, or all peers if op NULL. */
static double peer_drift(const struct fgb_results *now, const struct fgb_results *old, const char *field,
                         const char *op, int thr, int *count)
{
    double *v = malloc(sizeof(double) * (size_t)(now->nrows + 1));
    int n = 0;
    for (int i = 0; i < now->nrows; i++) {
        const struct fgb_row *a = &now->rows[i];
        if (!a->peer || (op && (strcmp(a->field, field) || strcmp(a->op, op))))
            continue;
        const struct fgb_row *b = find_row(old, a->field, a->op, a->impl, a->level);
        if (!b)
            continue;
        const struct fgb_stats *x = thr ? &a->thr : &a->lat, *y = thr ? &b->thr : &b->lat;
        if ((thr ? a->has_thr && b->has_thr : a->has_lat && b->has_lat) && y->median > 0)
            v[n++] = x->median / y->median;
    }
    double d = median_d(v, n);
    free(v);
    *count = n;
    return d;
}

int fgb_compare(const struct fgb_results *now, const char *old_path)
{
    struct fgb_results old = {0};
    if (fgb_read_json(&old, old_path) != 0)
        return 1;
    /* Compare in core cycles when both runs measured the ratio, else in TSC ticks. */
    int cyc = now->meta.core_per_tick > 0 && old.meta.core_per_tick > 0;
    double kn = cyc ? now->meta.core_per_tick : 1, ko = cyc ? old.meta.core_per_tick : 1;
    int cnt;
    double g_lat = peer_drift(now, &old, NULL, NULL, 0, &cnt), g_thr = peer_drift(now, &old, NULL, NULL, 1, &cnt);
    /* the ratio conversion is part of the drift: compare like with like */
    g_lat *= kn / ko;
    g_thr *= kn / ko;
    printf("\ncomparison with %s (%s, %s)\n", old_path, old.meta.date, old.meta.cpu_model);
    printf("  figures in %s; 'delta' is raw, 'adj' divides out the machine drift seen by the unchanged\n"
           "  peers (median over all peer rows: latency %+.1f%%, throughput %+.1f%%,\n"
           "  from %d peer rows). REGRESSION/improved = adj moved by more than max(3%%, both runs' relative\n"
           "  interquartile ranges added) and the runs' middle halves (q1..q3) do not overlap; '~' = noise\n",
           cyc ? "core cycles" : FGB_TICKS, 100 * (g_lat - 1), 100 * (g_thr - 1), cnt);
    if (strcmp(now->meta.cpu_model, old.meta.cpu_model))
        printf("  WARNING: different CPU models, deltas compare machines, not code\n");
    if (now->meta.quick || old.meta.quick)
        printf("  note: a --quick run is involved; its few short batches make more rows look noisy\n");
    printf("%-8s %-10s %-20s %-8s %9s %9s %7s %7s %-10s %9s %9s %7s %7s %-10s\n", "field", "op", "impl", "level",
           "lat old", "lat new", "delta", "adj", "", "thr old", "thr new", "delta", "adj", "");
    int regress = 0, improved = 0, same = 0, missing = 0;
    for (int i = 0; i < now->nrows; i++) {
        const struct fgb_row *n = &now->rows[i];
        const struct fgb_row *o = find_row(&old, n->field, n->op, n->impl, n->level);
        if (!o) {
            missing++;
            continue;
        }
        char col[2][4][32];
        const char *v[2] = {"", ""};
        for (int t = 0; t < 2; t++) {
            int has = t ? n->has_thr && o->has_thr : n->has_lat && o->has_lat;
            snprintf(col[t][0], 32, "-"), snprintf(col[t][1], 32, "-"), col[t][2][0] = col[t][3][0] = 0;
            if (!has)
                continue;
            struct fgb_stats a = t ? o->thr : o->lat, b = t ? n->thr : n->lat;
            a.median *= ko, a.q1 *= ko, a.q3 *= ko, b.median *= kn, b.q1 *= kn, b.q3 *= kn;
            double drift = n->peer ? 1 : t ? g_thr : g_lat, raw;
            v[t] = verdict(&a, &b, drift, &raw);
            fmt_num(col[t][0], 32, a.median);
            fmt_num(col[t][1], 32, b.median);
            snprintf(col[t][2], 32, "%+.1f%%", 100 * (b.median / a.median - 1));
            snprintf(col[t][3], 32, n->peer ? "(peer)" : "%+.1f%%", 100 * raw);
        }
        int reg = !strcmp(v[0], "REGRESSION") || !strcmp(v[1], "REGRESSION");
        int imp = !reg && (!strcmp(v[0], "improved") || !strcmp(v[1], "improved"));
        if (!n->peer) {
            regress += reg;
            improved += imp;
            same += !reg && !imp;
        }
        printf("%-8s %-10s %-20s %-8s %9s %9s %7s %7s %-10s %9s %9s %7s %7s %-10s\n", n->field, n->op, n->impl,
               n->level, col[0][0], col[0][1], col[0][2], col[0][3], v[0], col[1][0], col[1][1], col[1][2],
               col[1][3], v[1]);
    }
    printf("summary: %d regression(s), %d improvement(s), %d within noise (fieldgen rows); "
           "%d row(s) not in the old run\n", regress, improved, same, missing);
    free(old.rows);
    free(old.threads);
    return 0;
}

/* ---------------------------------------------------------------- plot ---- */
static int have_gnuplot(void)
{
    return system("command -v gnuplot >/dev/null 2>&1") == 0;
}

/* Writes DIR/NAME.dat: one line per op, one column per series, '?' where missing.
 * Series: our forced levels and dispatch, then each peer (impl + ISA path). */
static int plot_series(const struct fgb_results *r, const char *field, char series[][48], int max)
{
    int n = 0;
    static const char *lv[] = {"dispatch", "c", FGB_ASM_LEVEL, "bmi2", "adx", "ifma"};
    for (int k = 0; k < 6; k++)
        if (find_row(r, field, "mul", "fieldgen", lv[k]) || find_row(r, field, "add", "fieldgen", lv[k]) ||
            find_row(r, field, "sqr", "fieldgen", lv[k]) || find_row(r, field, "inv", "fieldgen", lv[k])) {
            snprintf(series[n++], 48, "fieldgen %s", lv[k]);
        }
    for (int i = 0; i < r->nrows && n < max; i++) {
        const struct fgb_row *x = &r->rows[i];
        if (!x->peer || strcmp(x->field, field))
            continue;
        char s[48];
        snprintf(s, sizeof s, "%s %s", x->impl, x->level);
        int k;
        for (k = 0; k < n && strcmp(series[k], s); k++)
            ;
        if (k == n)
            snprintf(series[n++], 48, "%s", s);
    }
    return n;
}

/* fieldgen levels in blues/greens, peers in warm colours (series order: ours first) */
static const char *const colors[] = {"#1f3a93", "#7fb3d5", "#2e86c1", "#17a589", "#48c9b0",
                                     "#c0392b", "#e67e22", "#f1c40f", "#8e44ad", "#6e2c00",
                                     "#ec7063", "#a04000", "#7b7d7d", "#d4ac0d"};
#define NCOLORS ((int)(sizeof colors / sizeof colors[0]))

static void plot_field_cmds(FILE *g, const struct fgb_results *r, const char *field, const char *dat)
{
    char series[24][48];
    int ns = plot_series(r, field, series, 24);
    FILE *d = fopen(dat, "w");
    for (int op = 0; op < FGB_NOPS; op++) {
        int any = 0;
        char line[2048];
        int o = snprintf(line, sizeof line, "%s", fgb_op_names[op]);
        for (int k = 0; k < ns; k++) {
            char impl[48];
            snprintf(impl, sizeof impl, "%s", series[k]);
            char *sp = strrchr(impl, ' ');
            *sp = 0;
            const struct fgb_row *x = find_row(r, field, fgb_op_names[op], impl, sp + 1);
            if (x && x->has_lat && x->check_ok) {
                o += snprintf(line + o, sizeof line - (size_t)o, " %.6g", fgb_cycles(r, x->lat.median));
                any = 1;
            } else {
                o += snprintf(line + o, sizeof line - (size_t)o, " ?");
            }
        }
        if (any)
            fprintf(d, "%s\n", line);
    }
    fclose(d);
    fprintf(g, "set title \"%s: %s per call (latency, median), %s\" noenhanced\n", field, fgb_unit(r),
            r->meta.cpu_model);
    fprintf(g, "plot ");
    for (int k = 0, ours = 0, peers = 0; k < ns; k++)
        fprintf(g, "%s'%s' using %d%s title \"%s\" noenhanced lc rgb '%s'", k ? ", " : "", dat, k + 2,
                k ? "" : ":xtic(1)", series[k],
                !strncmp(series[k], "fieldgen", 8) ? colors[ours++ % 5] : colors[5 + peers++ % (NCOLORS - 5)]);
    fprintf(g, "\n");
}

int fgb_plot(const struct fgb_results *r, const char *png)
{
    if (!have_gnuplot()) {
        fprintf(stderr, "fieldgen-bench: --plot needs gnuplot, which is not on PATH "
                        "(Debian: apt-get install gnuplot-nox)\n");
        return 1;
    }
    char dir[] = "/tmp/fieldgen-bench-plot-XXXXXX";
    if (!mkdtemp(dir)) {
        fprintf(stderr, "fieldgen-bench: cannot create a temporary directory\n");
        return 1;
    }
    char fields[64][32];
    int nf = 0;
    for (int i = 0; i < r->nrows && nf < 64; i++) {
        if (nf && !strcmp(fields[nf - 1], r->rows[i].field))
            continue;
        snprintf(fields[nf++], 32, "%s", r->rows[i].field);
    }
    char stem[4096];
    snprintf(stem, sizeof stem, "%s", png);
    size_t sl = strlen(stem);
    if (sl > 4 && !strcmp(stem + sl - 4, ".png"))
        stem[sl - 4] = 0;
    char script[4200];
    snprintf(script, sizeof script, "%s/plot.gp", dir);
    FILE *g = fopen(script, "w");
    const char *common =
        "set style data histograms\nset style histogram clustered gap 1\n"
        "set style fill solid 0.85 border -1\nset boxwidth 0.9\nset logscale y\n"
        "set datafile missing '?'\nset grid ytics mytics\nset key outside right top\n"
        "set ylabel '%s per call (log scale)'\nset xtics nomirror noenhanced rotate by -30\nset yrange [1:*]\n";
    fprintf(g, "set terminal pngcairo size 1500,560 font ',10'\n");
    fprintf(g, common, fgb_unit(r));
    for (int i = 0; i < nf; i++) {
        char dat[4200];
        snprintf(dat, sizeof dat, "%s/%s.dat", dir, fields[i]);
        fprintf(g, "set output '%s-%s.png'\n", stem, fields[i]);
        plot_field_cmds(g, r, fields[i], dat);
    }
    fprintf(g, "set terminal pngcairo size 1500,%d font ',10'\nset output '%s.png'\nset multiplot layout %d,1\n",
            480 * nf, stem, nf);
    for (int i = 0; i < nf; i++) {
        char dat[4200];
        snprintf(dat, sizeof dat, "%s/%s.dat", dir, fields[i]);
        plot_field_cmds(g, r, fields[i], dat);
    }
    fprintf(g, "unset multiplot\n");
    fclose(g);
    char cmd[8600];
    snprintf(cmd, sizeof cmd, "gnuplot '%s'", script);
    int rc = system(cmd);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "fieldgen-bench: could not remove %s\n", dir);
    if (rc != 0) {
        fprintf(stderr, "fieldgen-bench: gnuplot failed (exit %d)\n", rc);
        return 1;
    }
    fprintf(stderr, "fieldgen-bench: wrote %s.png (all fields) and %s-<field>.png for", stem, stem);
    for (int i = 0; i < nf; i++)
        fprintf(stderr, " %s", fields[i]);
    fprintf(stderr, " (gnuplot)\n");
    return 0;
}

/* name in the comma-separated list (NULL: all); both benchmark programs'
 * --field/--op/--level/--proto filters */
int fgb_in_list(const char *list, const char *name)
{
    if (!list)
        return 1;
    size_t n = strlen(name);
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && !strncmp(p, name, n))
            return 1;
        if (!e)
            break;
        p = e + 1;
    }
    return 0;
}
