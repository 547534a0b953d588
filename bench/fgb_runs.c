/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* fieldgen-bench --runs N: the whole measurement in N fresh processes, merged.
 *
 * Some kernels' figures depend on where the process's stack, heap and
 * libraries land, and address-space randomization picks that anew for every
 * process (research/RESULTS.md: p503's MULQ mul read 206.4 and 184.2 cycles in two runs of
 * one binary). One process samples one layout; N processes sample N. Each
 * child is this program with the same options, writing its report to a
 * temporary JSON file (its table goes to /dev/null, its progress and errors to
 * our stderr); the parent reads the N reports back and merges them row by row:
 *   median   the median of the N processes' medians (the figure every table,
 *            ratio and --compare uses)
 *   min/max  the lowest and highest of those medians: the table's brackets
 *            become the spread between layouts, not between batches
 *   q1/q3    the median of the processes' quartiles (--compare's overlap test
 *            keeps its batch-level meaning)
 * Checks and allocation counts merge to the worst process. Each row's ratio to
 * the best peer (the table's lat/peer, thr/peer) is taken per process, against
 * that process's best peer, and merged by median: on a machine where a whole
 * process can run 20-30% slow, ours and the peers' rows alike, the ratio of
 * merged medians would mix processes.
 * FGB_RUNS_KEEP=DIR keeps the processes' reports as DIR/run-K.json (K = 1..N),
 * so that the merge can be checked against them (tests/bench_runs.py). */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include "fgb.h"
#include "fgb_report.h"

static const struct fgb_row *find_row(const struct fgb_results *r, const struct fgb_row *x)
{
    for (int i = 0; i < r->nrows; i++) {
        const struct fgb_row *y = &r->rows[i];
        if (!strcmp(y->field, x->field) && !strcmp(y->op, x->op) && !strcmp(y->impl, x->impl) &&
            !strcmp(y->level, x->level))
            return y;
    }
    return NULL;
}

/* The median over the processes of each figure of a paired read (median, 95% CI
 * low and high; latency and throughput), over the processes' rows that have one:
 * the dispatch overhead (peer 0) or the ratio to the best peer (peer 1). */
static void merge_pair(double lat[3], double thr[3], const struct fgb_row *const *same, int m, int peer)
{
    for (int j = 0; j < 3; j++) {
        double pl[m > 0 ? m : 1], pt[m > 0 ? m : 1];
        int np = 0;
        for (int k = 0; k < m; k++) {
            const struct fgb_row *y = same[k];
            if (peer ? y->has_peer_pair : y->has_pair) {
                pl[np] = peer ? y->peer_pair_lat[j] : y->pair_lat[j];
                pt[np++] = peer ? y->peer_pair_thr[j] : y->pair_thr[j];
            }
        }
        if (np) {
            lat[j] = fgb_median(pl, np);
            thr[j] = fgb_median(pt, np);
        }
    }
}

/* s = the merge of the n stats st[i] (see the top of this file) */
static void merge_stats(struct fgb_stats *s, const struct fgb_stats *const *st, int n)
{
    double med[n], q1[n], q3[n];
    s->min = INFINITY;
    s->max = -INFINITY;
    s->batches = 0;
    s->allocs_per_call = 0;
    for (int i = 0; i < n; i++) {
        med[i] = st[i]->median;
        q1[i] = st[i]->q1;
        q3[i] = st[i]->q3;
        s->min = fmin(s->min, st[i]->median);
        s->max = fmax(s->max, st[i]->median);
        s->batches += st[i]->batches;
        s->allocs_per_call = fmax(s->allocs_per_call, st[i]->allocs_per_call);
    }
    s->median = fgb_median(med, n);
    s->q1 = fgb_median(q1, n);
    s->q3 = fgb_median(q3, n);
}

/* res = the merge of run[0..n-1]; rows are those of run[0] (every run measures
 * the same rows: same binary, same options) */
static void merge(struct fgb_results *res, struct fgb_results *run, int n)
{
    res->meta = run[0].meta;
    res->meta.runs = n;
    { /* the product-row probe: each process's, merged like the rows (median) */
        double pm[n], po[n];
        int np = 0;
        for (int k = 0; k < n; k++)
            if (run[k].meta.row_op_ticks > 0) {
                pm[np] = run[k].meta.row_mulx_ticks;
                po[np++] = run[k].meta.row_op_ticks;
            }
        res->meta.row_mulx_ticks = np ? fgb_median(pm, np) : 0;
        res->meta.row_op_ticks = np ? fgb_median(po, np) : 0;
    }
    res->errors = 0;
    for (int k = 0; k < n; k++)
        res->errors += run[k].errors;
    for (int i = 0; i < run[0].nrows; i++) {
        const struct fgb_row *x = &run[0].rows[i];
        const struct fgb_row *same[n];
        int m = 0;
        for (int k = 0; k < n; k++) {
            const struct fgb_row *y = find_row(&run[k], x);
            if (y)
                same[m++] = y;
        }
        struct fgb_row *o = fgb_add_row(res);
        *o = *x;
        const struct fgb_stats *st[m];
        int nl = 0, nt = 0;
        for (int k = 0; k < m; k++)
            if (same[k]->has_lat)
                st[nl++] = &same[k]->lat;
        if (nl)
            merge_stats(&o->lat, st, nl);
        for (int k = 0; k < m; k++)
            if (same[k]->has_thr)
                st[nt++] = &same[k]->thr;
        if (nt)
            merge_stats(&o->thr, st, nt);
        for (int k = 0; k < m; k++)
            if (!same[k]->check_ok) {
                o->check_ok = 0;
                snprintf(o->check, sizeof o->check, "%s", same[k]->check);
            }
        for (int t = 0; t < 2; t++) { /* per-process ratio to that process's best peer */
            double v[n];
            int nv = 0;
            for (int k = 0; k < n; k++) {
                const struct fgb_row *y = find_row(&run[k], x), *p = fgb_best_peer(&run[k], x->field, x->op, t);
                double num = y ? (t ? y->thr.median : y->lat.median) : 0;
                double den = p ? (t ? p->thr.median : p->lat.median) : 0;
                if (y && (t ? y->has_thr : y->has_lat) && den > 0)
                    v[nv++] = num / den;
            }
            o->vs_peer[t] = nv ? fgb_median(v, nv) : 0;
        }
        if (o->has_pair)
            merge_pair(o->pair_lat, o->pair_thr, same, m, 0);
        if (o->has_peer_pair) /* the peer named is the first process's best (others may differ) */
            merge_pair(o->peer_pair_lat, o->peer_pair_thr, same, m, 1);
    }
    for (int i = 0; i < run[0].nthreads; i++) {
        const struct fgb_thread_row *x = &run[0].threads[i];
        double v[n], w[n];
        int m = 0;
        for (int k = 0; k < n; k++)
            for (int j = 0; j < run[k].nthreads; j++) {
                const struct fgb_thread_row *y = &run[k].threads[j];
                if (!strcmp(y->field, x->field) && !strcmp(y->op, x->op) && y->threads == x->threads) {
                    v[m] = y->ops_per_s;
                    w[m++] = y->per_thread_ops_per_s;
                    break;
                }
            }
        if (res->nthreads == res->capthreads) {
            res->capthreads = res->capthreads ? 2 * res->capthreads : 32;
            res->threads = realloc(res->threads, (size_t)res->capthreads * sizeof *res->threads);
        }
        struct fgb_thread_row *t = &res->threads[res->nthreads++];
        *t = *x;
        t->ops_per_s = fgb_median(v, m);
        t->per_thread_ops_per_s = fgb_median(w, m);
    }
    size_t len = strlen(res->meta.method);
    snprintf(res->meta.method + len, sizeof res->meta.method - len,
             "; merged over %d processes (a fresh address-space layout each): the median of their "
             "medians, brackets the lowest and highest process median", n);
}

int fgb_run_processes(struct fgb_results *res, char **argv, int argc, int runs)
{
    char exe[4096];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0) {
        fprintf(stderr, "fieldgen-bench: --runs: cannot find own executable\n");
        return 1;
    }
    exe[len] = 0;
    /* the children's options: ours without --runs and the report options
     * (--json, --compare, --plot: the parent does those on the merge) */
    const char *cargv[argc + 4];
    int c = 0;
    cargv[c++] = exe;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--runs") || !strcmp(argv[i], "--json") || !strcmp(argv[i], "--compare") ||
            !strcmp(argv[i], "--plot")) {
            i++;
            continue;
        }
        cargv[c++] = argv[i];
    }
    const char *keep = getenv("FGB_RUNS_KEEP");
    char path[4096];
    cargv[c++] = "--json";
    cargv[c++] = path;
    cargv[c] = NULL;

    struct fgb_results *run = calloc((size_t)runs, sizeof *run);
    int rc = 0;
    for (int k = 0; k < runs && !rc; k++) {
        int fd;
        if (keep) {
            snprintf(path, sizeof path, "%s/run-%d.json", keep, k + 1);
            fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        } else {
            snprintf(path, sizeof path, "/tmp/fieldgen-bench-run-XXXXXX");
            fd = mkstemp(path);
        }
        if (fd < 0) {
            fprintf(stderr, "fieldgen-bench: --runs: cannot create %s: %s\n", path, strerror(errno));
            rc = 1;
            break;
        }
        close(fd);
        fprintf(stderr, "fieldgen-bench: process %d of %d\n", k + 1, runs);
        fflush(stdout);
        fflush(stderr);
        pid_t pid = fork();
        if (pid == 0) {
            int null = open("/dev/null", O_WRONLY);
            if (null >= 0)
                dup2(null, 1);
            setenv("FGB_RUNS_CHILD", "1", 1);   /* its JSON is ours to read: no "wrote" line */
            execv(exe, (char *const *)cargv);
            _exit(127);
        }
        int status = 0;
        if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
            (WEXITSTATUS(status) != 0 && WEXITSTATUS(status) != 1)) {
            fprintf(stderr, "fieldgen-bench: --runs: process %d of %d failed (status %d)\n", k + 1, runs,
                    status);
            rc = 1;
        } else if (fgb_read_json(&run[k], path) != 0) {
            rc = 1;
        }
        if (!keep)
            unlink(path);
    }
    if (!rc) {
        merge(res, run, runs);
        res->runs = run;    /* the summaries' per-process ratios (fgb_report.c) */
        res->nruns = runs;
        return 0;
    }
    for (int k = 0; k < runs; k++) {
        free(run[k].rows);
        free(run[k].threads);
    }
    free(run);
    return rc;
}

FILE *fgb_spawn_piped(const char *const *argv, const char *const *env, pid_t *pid)
{
    int fd[2];
    if (pipe(fd) != 0)
        return NULL;
    fflush(stdout);
    fflush(stderr);
    *pid = fork();
    if (*pid == 0) {
        dup2(fd[1], 1);
        close(fd[0]);
        close(fd[1]);
        for (int i = 0; env && env[i]; i += 2)
            setenv(env[i], env[i + 1], 1);
        execvp(argv[0], (char *const *)argv);
        fprintf(stderr, "fieldgen-bench: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    close(fd[1]);
    if (*pid < 0) {
        close(fd[0]);
        return NULL;
    }
    return fdopen(fd[0], "r");
}

int fgb_selection_args(const char **argv, int a, const char *fields, const char *ops, const char *levels)
{
    if (fields)
        argv[a++] = "--field", argv[a++] = fields;
    if (ops)
        argv[a++] = "--op", argv[a++] = ops;
    if (levels)
        argv[a++] = "--level", argv[a++] = levels;
    return a;
}
