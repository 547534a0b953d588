/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* fieldgen-bench --instructions: instructions executed per call, counted by
 * Valgrind's callgrind. Cycles on a shared host move by tens of percent from
 * one process to the next; an instruction count does not move at all, so it
 * is the figure to compare two builds by (a kernel that lost three
 * instructions shows exactly that), beside the cycles that say what the
 * instructions cost.
 *
 * The parent (--instructions) re-executes this program under
 *   valgrind --tool=callgrind --callgrind-out-file=DIR/cg.out EXE --instructions-child DIR ...
 * with FIELDGEN_ISA set to the level this CPU runs natively (capped at adx:
 * Valgrind executes ADX code but its CPUID hides ADX, so FIELDGEN_ISA_UNCHECKED=1
 * too, and it cannot execute AVX-512) and FIELDGEN_TUNE to the native tuning (Valgrind's CPUID reads as
 * generic even on AMD), and prints what the child reports on a pipe.
 *
 * The child times nothing: for every row it runs the row's latency loop (the
 * same loops the cycle table uses) for K, 2K and 3K iterations, each between
 * CALLGRIND_ZERO_STATS and CALLGRIND_DUMP_STATS_AT, and reads the dump's
 * "summary:" line. The per-call count is the difference of two runs over
 * their difference in calls, so the fixed costs (client requests, loop
 * entry) cancel; the loop's own instructions per iteration stay in (a few;
 * the empty loop's count is printed for scale). Every fieldgen operation is
 * constant time, so the two differences must be equal: the chained loop
 * feeds each call another input, and a count that changed with the input
 * is reported as such and fails the run (the check is first shown to fire on a
 * loop built to vary). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fg_cpu.h"
#include "fgb.h"
#include "fgb_peers.h"

#if defined(FGB_HAVE_CALLGRIND)
#include <valgrind/callgrind.h>
#endif

enum { K_ITERS = 2 };

#if defined(FGB_HAVE_CALLGRIND)
static int ndump;

/* Instructions counted between the zeroing and the dump of one run of fn. */
static long long count_run(const char *dir, fgb_loop_fn fn, void *state, size_t iters)
{
    char path[4200], line[256];
    long long n = -1;
    CALLGRIND_ZERO_STATS;
    fn(state, iters);
    CALLGRIND_DUMP_STATS_AT("fieldgen-bench --instructions");
    snprintf(path, sizeof path, "%s/cg.out.%d", dir, ++ndump);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, "summary: ", 9)) {
            n = strtoll(line + 9, NULL, 10);
            break;
        }
    fclose(f);
    remove(path);
    return n;
}

/* Per-call count of a loop (calls per iteration: loop.calls); *constant = 0 if
 * the two differences disagree. */
static double per_call(const char *dir, struct fgb_loop loop, void *state, int *constant)
{
    loop.fn(state, 1); /* first-call effects (lazy binding) outside the counts */
    long long c1 = count_run(dir, loop.fn, state, K_ITERS);
    long long c2 = count_run(dir, loop.fn, state, 2 * K_ITERS);
    long long c3 = count_run(dir, loop.fn, state, 3 * K_ITERS);
    if (c1 < 0 || c2 < 0 || c3 < 0) {
        *constant = 0;
        return -1;
    }
    *constant = c2 - c1 == c3 - c2;
    return (double)(c3 - c2) / (double)(K_ITERS * loop.calls);
}

static void empty_loop(void *s, size_t n)
{
    (void)s;
    for (size_t i = 0; i < n; i++)
        __asm__ __volatile__("" ::: "memory");
}

/* The detector's own check: a loop whose instruction count follows its data
 * (an inner loop of 0..7 trips, the state stepped by an LCG) must be reported
 * as varying, or a constant-time verdict of the rows would mean nothing. */
static void varying_loop(void *s, size_t n)
{
    uint64_t *x = s;
    for (size_t i = 0; i < n; i++) {
        for (uint64_t k = *x >> 61; k; k--)
            __asm__ __volatile__("" ::: "memory");
        *x = *x * UINT64_C(6364136223846793005) + UINT64_C(1442695040888963407);
    }
}

int fgb_icount_child(const char *dir, const struct fgb_field *const *fields, int nfields,
                     const char *field_list, const char *op_list, const char *level_list, uint64_t seed,
                     int no_peers)
{
    if (!RUNNING_ON_VALGRIND) {
        fprintf(stderr, "fieldgen-bench: --instructions-child runs under callgrind only\n");
        return 2;
    }
    int c, bad = 0;
    fg_isa best = fg_isa_best();
    if (!no_peers)
        fgb_peers_init();
    printf("EMPTY\t%.2f\n", per_call(dir, (struct fgb_loop){empty_loop, 1}, NULL, &c));
    uint64_t lcg = 1;
    per_call(dir, (struct fgb_loop){varying_loop, 1}, &lcg, &c);
    printf("DETECT\t%d\n", !c);
    for (int fi = 0; fi < nfields; fi++) {
        const struct fgb_field *f = fields[fi];
        if (!fgb_in_list(field_list, f->name))
            continue;
        void *state = calloc(1, f->state_size);
        f->init(state, seed);
        struct fgb_peer_row peers[32];
        int np = no_peers ? 0 : fgb_peers_build(f, state, 0, peers, 32);
        for (int op = 0; op < FGB_NOPS; op++) {
            if (!fgb_in_list(op_list, fgb_op_names[op]))
                continue;
            /* the peers, on the paths the parent's OPENSSL_ia32cap gives them */
            for (int k = 0; k < np; k++) {
                if (peers[k].op != op || !fgb_in_list(level_list, peers[k].level))
                    continue;
                double n = per_call(dir, peers[k].loops.lat, peers[k].state, &c);
                printf("ROW\t%s\t%s\t%s\t%s\t%.2f\t%d\n", f->name, fgb_op_names[op], peers[k].impl,
                       peers[k].level, n, c);
                if (!peers[k].check_ok)
                    printf("BADPEER\t%s\t%s\t%s\t%s\n", f->name, fgb_op_names[op], peers[k].impl, peers[k].check);
            }
            if (!f->api[op].lat.fn)
                continue;
            /* the public entry point at the start-up level, then forced to each level */
            for (int L = -1; L <= (int)best; L++) {
                const char *lname = L < 0 ? "dispatch" : fgb_level_names[L];
                if (!fgb_in_list(level_list, lname) || !fg_isa_force(L < 0 ? best : (fg_isa)L))
                    continue;
                double n = per_call(dir, f->api[op].lat, state, &c);
                bad += !c;
                printf("ROW\t%s\t%s\tfieldgen\t%s\t%.2f\t%d\n", f->name, fgb_op_names[op], lname, n, c);
            }
            fg_isa_force(best);
            /* the kernels, called directly */
            for (int k = 0; op < FGB_NKERNEL_OPS && k < FGB_NKERNELS; k++) {
                int isa = fgb_kernel_level(k);
                if (isa > (int)best || !f->direct[k][op].lat.fn ||
                    !(fgb_in_list(level_list, fgb_kernel_names[k]) || fgb_in_list(level_list, fgb_level_names[isa])))
                    continue;
                double n = per_call(dir, f->direct[k][op].lat, state, &c);
                bad += !c;
                printf("ROW\t%s\t%s\tfieldgen/direct\t%s\t%.2f\t%d\n", f->name, fgb_op_names[op],
                       fgb_kernel_names[k], n, c);
            }
            /* dispatch overhead: entry point and kernel through the same loop code */
            if (op < FGB_NKERNEL_OPS && fgb_in_list(level_list, "dispatch") && f->via[op][0].lat.fn) {
                int k = f->uses[fg_tune_active()][op][best];
                if (f->direct[k][op].lat.fn) {
                    int c0, c1;
                    double a = per_call(dir, f->via[op][0].lat, f->via_state(state, -1), &c0);
                    double b = per_call(dir, f->via[op][1].lat, f->via_state(state, k), &c1);
                    bad += !c0 + !c1;
                    printf("VIA\t%s\t%s\t%s\t%.2f\t%.2f\t%d\n", f->name, fgb_op_names[op], fgb_kernel_names[k],
                           a, b, c0 && c1);
                }
            }
        }
        for (int k = 0; k < np; k++)
            free(peers[k].state);
        free(state);
    }
    fflush(stdout);
    return bad ? 1 : 0;
}
#else
int fgb_icount_child(const char *dir, const struct fgb_field *const *fields, int nfields,
                     const char *field_list, const char *op_list, const char *level_list, uint64_t seed,
                     int no_peers)
{
    (void)dir, (void)fields, (void)nfields, (void)field_list, (void)op_list, (void)level_list, (void)seed,
        (void)no_peers;
    fprintf(stderr, "fieldgen-bench: built without <valgrind/callgrind.h>\n");
    return 2;
}
#endif

int fgb_icount_run(const char *field_list, const char *op_list, const char *level_list, uint64_t seed,
                   int no_peers)
{
#if !defined(FGB_HAVE_CALLGRIND)
    (void)field_list, (void)op_list, (void)level_list, (void)seed, (void)no_peers;
    fprintf(stderr, "fieldgen-bench: --instructions needs Valgrind's <valgrind/callgrind.h> at build time "
                    "(apt-get install valgrind, then reconfigure)\n");
    return 2;
#else
    char exe[4096], dir[] = "/tmp/fieldgen-icount.XXXXXX", out[4200], seedbuf[32];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0 || !mkdtemp(dir)) {
        fprintf(stderr, "fieldgen-bench: --instructions: %s\n", n <= 0 ? "cannot find own executable"
                                                                         : strerror(errno));
        return 2;
    }
    exe[n] = 0;
    const char *valgrind = getenv("FIELDGEN_VALGRIND");
    if (!valgrind || !*valgrind)
        valgrind = "valgrind";
    fg_isa isa = fg_isa_best() > FG_ISA_ADX ? FG_ISA_ADX : fg_isa_best();
    fg_tune tune = fg_tune_best();
    snprintf(out, sizeof out, "--callgrind-out-file=%s/cg.out", dir);
    snprintf(seedbuf, sizeof seedbuf, "%llu", (unsigned long long)seed);
    const char *args[20];
    int a = 0;
    args[a++] = valgrind;
    args[a++] = "--tool=callgrind";
    args[a++] = "--quiet";
    args[a++] = out;
    args[a++] = exe;
    args[a++] = "--instructions-child";
    args[a++] = dir;
    args[a++] = "--seed";
    args[a++] = seedbuf;
    a = fgb_selection_args(args, a, field_list, op_list, level_list);
    if (no_peers)
        args[a++] = "--no-peers";
    args[a] = NULL;
    char cap[64] = "";
    if (!no_peers && !getenv("OPENSSL_ia32cap")) {
        fgb_peers_init();
        fgb_peers_openssl_cap(cap, sizeof cap); /* OpenSSL's native paths, ADX included */
    }
    const char *env[] = {"FIELDGEN_ISA", fg_isa_name(isa), "FIELDGEN_ISA_UNCHECKED", "1",
                         "FIELDGEN_TUNE", fg_tune_name(tune), cap[0] ? "OPENSSL_ia32cap" : NULL, cap, NULL};
    pid_t pid;
    FILE *in = fgb_spawn_piped(args, env, &pid);
    if (!in) {
        rmdir(dir);
        return 2;
    }
    char line[512];
    int rows = 0, varying = 0, detect = 0;
    printf("fieldgen-bench: instructions per call, counted by callgrind (exact: the same on every run)\n"
           "  level %s (this CPU's, capped at adx, which Valgrind runs), tuning %s, seed %s;\n"
           "  OpenSSL on its native paths (OPENSSL_ia32cap=%s)\n"
           "  per call = (count of 3K iterations - count of 2K) / (K calls), K = %d; the loop's own\n"
           "  instructions included (chained calls: each output is the next input)\n",
           fg_isa_name(isa), fg_tune_name(tune), seedbuf, cap[0] ? cap : "-", K_ITERS);
    while (fgets(line, sizeof line, in)) {
        line[strcspn(line, "\n")] = 0;
        char *f[8] = {0}, *save = NULL;
        int nf = 0;
        for (char *t = strtok_r(line, "\t", &save); t && nf < 8; t = strtok_r(NULL, "\t", &save))
            f[nf++] = t;
        if (nf == 2 && !strcmp(f[0], "EMPTY")) {
            printf("  the empty loop: %s instructions per iteration\n\n"
                   "field    op         impl                 level    instructions/call\n", f[1]);
        } else if (nf == 7 && !strcmp(f[0], "ROW")) {
            int constant = atoi(f[6]);
            printf("%-8s %-10s %-20s %-8s %12s%s\n", f[1], f[2], f[3], f[4], f[5],
                   constant ? "" : "  VARIES WITH THE INPUT");
            rows++;
            varying += !constant;
        } else if (nf == 2 && !strcmp(f[0], "DETECT")) {
            detect = atoi(f[1]);
        } else if (nf == 5 && !strcmp(f[0], "BADPEER")) {
            printf("ERROR: %s %s %s: %s\n", f[1], f[2], f[3], f[4]);
            varying++;
        } else if (nf == 7 && !strcmp(f[0], "VIA")) {
            double d = atof(f[4]) - atof(f[5]);
            int constant = atoi(f[6]);
            printf("%-8s %-10s dispatch overhead: entry point %s - kernel %s %s = %+.2f instructions%s\n", f[1],
                   f[2], f[4], f[3], f[5], d, constant ? "" : "  VARIES WITH THE INPUT");
            varying += !constant;
        }
    }
    fclose(in);
    int status = 0;
    waitpid(pid, &status, 0);
    remove(out + strlen("--callgrind-out-file="));
    rmdir(dir);
    if (!WIFEXITED(status) || (WEXITSTATUS(status) != 0 && WEXITSTATUS(status) != 1)) {
        fprintf(stderr, "fieldgen-bench: --instructions: the callgrind run failed (status %d)%s\n",
                WIFEXITED(status) ? WEXITSTATUS(status) : -1,
                WIFEXITED(status) && WEXITSTATUS(status) == 127
                    ? ": apt-get install valgrind, or name it with FIELDGEN_VALGRIND" : "");
        return 1;
    }
    if (!rows) {
        fprintf(stderr, "fieldgen-bench: --instructions: no row matched --field/--op/--level "
                        "(levels up to %s: Valgrind cannot execute AVX-512)\n", fg_isa_name(isa));
        return 2;
    }
    if (!detect) {
        printf("\nERROR: the check for counts that vary with the input did not fire on a loop built to vary\n");
        return 1;
    }
    if (varying)
        printf("\n%d ERROR(S): a count changed with the input (not constant time), or a peer's check "
               "failed\n", varying);
    return varying ? 1 : 0;
#endif
}
