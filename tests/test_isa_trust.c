// SPDX-License-Identifier: MIT OR Apache-2.0
/* The level override is not trusted (issue 53 defect 1): a FIELDGEN_ISA above
 * what the CPU reports is clamped with one line on stderr, FIELDGEN_ISA_UNCHECKED=1
 * alone trusts it, privileged processes read none of the variables, and
 * fg_isa_force refuses what the resolved level does not allow.
 *
 * This program links its own copy of runtime/fg_cpu.c, compiled with
 * FG_TEST_HOOKS: the variables fg_test_cpu_level and fg_test_secure pretend a
 * CPU and a privileged process, so every case runs on any x86-64 CPU. The
 * runtime resolves its level in a constructor, once per process, so each case
 * is a fresh process: the driver (no arguments) re-executes this program per
 * case with the case's environment, and the child checks and reports.
 *
 *   test_isa_trust                      run every case; prints "N passed, N failed"
 *   test_isa_trust --child BEST TUNE MSG   (internal) expect level BEST, tuning
 *                                       TUNE ("-": the CPU's), MSG on stderr ("-": nothing)
 *   test_isa_trust --print              the resolved level and tuning (secure_env.sh)
 *
 * Exit 77 (skipped) without the x86-64 assembly or under compile-time dispatch,
 * where no override applies. */
#define _GNU_SOURCE 1
#include "fg_cpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern int fg_test_cpu_level, fg_test_secure;

static FILE *captured; /* the runtime's stderr, redirected before its constructor runs */
static int real_stderr = -1;

/* Before the runtime's constructor (default priority): the hooks from the
 * test-only variables FG_TEST_CPU / FG_TEST_SECURE, and stderr into a file. */
__attribute__((constructor(101))) static void before_runtime(void)
{
    const char *cpu = getenv("FG_TEST_CPU"), *secure = getenv("FG_TEST_SECURE");
    if (cpu != NULL)
        fg_test_cpu_level = fg_isa_parse(cpu);
    if (secure != NULL)
        fg_test_secure = atoi(secure);
    if (getenv("FG_TEST_CHILD") != NULL) {
        captured = tmpfile();
        real_stderr = dup(2);
        if (captured == NULL || real_stderr < 0 || dup2(fileno(captured), 2) < 0)
            abort();
    }
}

static int fails;
#define CHECK(c, ...)                                                     \
    do {                                                                  \
        if (!(c)) {                                                       \
            printf("  FAIL line %d: %s: ", __LINE__, #c);                 \
            printf(__VA_ARGS__);                                          \
            printf("\n");                                                 \
            fails++;                                                      \
        }                                                                 \
    } while (0)

static int child(const char *best_name, const char *tune_name, const char *msg)
{
    int best = fg_isa_parse(best_name), i;
    fg_isa got = fg_isa_best();
    char text[1024];
    size_t n;
    CHECK(best >= 0, "bad expectation %s", best_name);
    CHECK((int)got == best, "fg_isa_best() = %s, expected %s", fg_isa_name(got), best_name);
    CHECK((int)fg_isa_active() == best, "the constructor chose %s, expected %s", fg_isa_name(fg_isa_active()),
          best_name);
    CHECK(fg_isa_best() == got, "a second call differs");
    if (strcmp(tune_name, "-") != 0)
        CHECK(strcmp(fg_tune_name(fg_tune_best()), tune_name) == 0, "tuning %s, expected %s",
              fg_tune_name(fg_tune_best()), tune_name);
    (void)fg_tune_best();
    /* fg_isa_force: every level up to the resolved one, none above */
    for (i = FG_ISA_LEVELS - 1; i >= 0; i--) {
        int ok = fg_isa_force((fg_isa)i);
        CHECK(ok == (i <= best), "fg_isa_force(%s) returned %d with best %s", fg_isa_name((fg_isa)i), ok,
              best_name);
        if (!ok)
            CHECK((int)fg_isa_active() <= best, "a refused force changed the level to %s",
                  fg_isa_name(fg_isa_active()));
    }
    CHECK(fg_isa_force((fg_isa)-1) == 0 && fg_isa_force((fg_isa)FG_ISA_LEVELS) == 0, "out-of-range force accepted");
    /* what the runtime printed: exactly the expected line, once, or nothing */
    fflush(stderr);
    rewind(captured);
    n = fread(text, 1, sizeof text - 1, captured);
    text[n] = '\0';
    if (strcmp(msg, "-") == 0) {
        CHECK(n == 0, "unexpected stderr: %s", text);
    } else {
        char *at = strstr(text, msg);
        CHECK(at != NULL, "stderr lacks \"%s\": \"%s\"", msg, text);
        CHECK(at == NULL || strstr(at + 1, msg) == NULL, "printed more than once: %s", text);
        CHECK(n > 0 && strchr(text, '\n') == text + n - 1, "not exactly one line: \"%s\"", text);
    }
    return fails ? 1 : 0;
}

struct trust_case {
    const char *what;
    const char *env[5]; /* NAME=VALUE, NULL-terminated */
    const char *best, *tune, *msg;
};

static const struct trust_case cases[] = {
    {"adx forced on a CPU without ADX (qemu -cpu Haswell) is clamped to bmi2",
     {"FG_TEST_CPU=bmi2", "FIELDGEN_ISA=adx"}, "bmi2", "-",
     "fieldgen: FIELDGEN_ISA=adx needs instructions this CPU does not report (CPUID and XCR0 allow bmi2): running bmi2"},
    {"bmi2 forced on a CPU without BMI2 (qemu -cpu Nehalem) is clamped to x86_64",
     {"FG_TEST_CPU=x86_64", "FIELDGEN_ISA=bmi2"}, "x86_64", "-", "FIELDGEN_ISA=bmi2 needs instructions"},
    {"ifma forced where CPUID hides AVX-512 (valgrind) is clamped to adx",
     {"FG_TEST_CPU=adx", "FIELDGEN_ISA=ifma"}, "adx", "-", "allow adx): running adx"},
    {"FIELDGEN_ISA_UNCHECKED=1 trusts the override",
     {"FG_TEST_CPU=adx", "FIELDGEN_ISA=ifma", "FIELDGEN_ISA_UNCHECKED=1"}, "ifma", "-", "-"},
    {"FIELDGEN_ISA_UNCHECKED other than 1 does not",
     {"FG_TEST_CPU=adx", "FIELDGEN_ISA=ifma", "FIELDGEN_ISA_UNCHECKED=yes"}, "adx", "-", "running adx"},
    {"a level below the CPU's is taken silently",
     {"FG_TEST_CPU=ifma", "FIELDGEN_ISA=bmi2"}, "bmi2", "-", "-"},
    {"the CPU's own level is taken silently", {"FG_TEST_CPU=adx", "FIELDGEN_ISA=adx"}, "adx", "-", "-"},
    {"no override: the CPU's level", {"FG_TEST_CPU=bmi2"}, "bmi2", "-", "-"},
    {"an unknown level is ignored with one line",
     {"FG_TEST_CPU=adx", "FIELDGEN_ISA=avx9000"}, "adx", "-", "ignoring FIELDGEN_ISA=avx9000"},
    {"a privileged process ignores FIELDGEN_ISA",
     {"FG_TEST_CPU=adx", "FG_TEST_SECURE=1", "FIELDGEN_ISA=c"}, "adx", "-", "-"},
    {"a privileged process ignores FIELDGEN_ISA_UNCHECKED",
     {"FG_TEST_CPU=bmi2", "FG_TEST_SECURE=1", "FIELDGEN_ISA=adx", "FIELDGEN_ISA_UNCHECKED=1"}, "bmi2", "-", "-"},
    {"FIELDGEN_TUNE is honoured", {"FG_TEST_CPU=adx", "FIELDGEN_TUNE=zen4"}, "adx", "zen4", "-"},
    {"an unknown tuning is ignored with one line",
     {"FG_TEST_CPU=adx", "FIELDGEN_TUNE=fast"}, "adx", "-", "ignoring FIELDGEN_TUNE=fast"},
};

/* FG_TEST_SECURE=1 with FIELDGEN_TUNE set to each tuning: the tuning must be
 * the CPU's (the one resolved with no variable set) every time. */
static const char *const tunes[] = {"generic", "zen", "zen4"};

static int run_case(const char *self, const char *const *env, const char *best, const char *tune, const char *msg)
{
    pid_t pid = fork();
    int status, i;
    if (pid < 0)
        return 0;
    if (pid == 0) {
        const char *names[] = {"FIELDGEN_ISA", "FIELDGEN_TUNE", "FIELDGEN_ISA_UNCHECKED", "FG_TEST_CPU", "FG_TEST_SECURE"};
        for (i = 0; i < 5; i++)
            unsetenv(names[i]);
        for (i = 0; env[i] != NULL; i++)
            putenv((char *)env[i]);
        setenv("FG_TEST_CHILD", "1", 1);
        execl(self, self, "--child", best, tune, msg, (char *)NULL);
        _exit(127);
    }
    if (waitpid(pid, &status, 0) != pid)
        return 0;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int main(int argc, char **argv)
{
    char self[4096];
    ssize_t len;
    int passed = 0, failed = 0;
    size_t i;
    if (argc == 5 && strcmp(argv[1], "--child") == 0) {
        int rc = child(argv[2], argv[3], argv[4]);
        if (real_stderr >= 0)
            dup2(real_stderr, 2);
        return rc;
    }
    if (argc == 2 && strcmp(argv[1], "--print") == 0) {
#if !FG_HAVE_X86_64_ASM || defined(FG_STATIC_ISA)
        return 77;
#endif
        printf("%s %s\n", fg_isa_name(fg_isa_best()), fg_tune_name(fg_tune_best()));
        return 0;
    }
#if !FG_HAVE_X86_64_ASM || defined(FG_STATIC_ISA)
    puts("test_isa_trust: skipped (no x86-64 assembly, or compile-time dispatch: no override applies)");
    return 77;
#endif
    len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0) {
        puts("test_isa_trust: cannot find /proc/self/exe");
        return 1;
    }
    self[len] = '\0';
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int ok = run_case(self, cases[i].env, cases[i].best, cases[i].tune, cases[i].msg);
        printf("%s: %s\n", ok ? "ok  " : "FAIL", cases[i].what);
        ok ? passed++ : failed++;
    }
    {
        /* the CPU's tuning, from a child with no variable set */
        char line[64] = "";
        FILE *p;
        char cmd[4200];
        snprintf(cmd, sizeof cmd, "env -u FIELDGEN_ISA -u FIELDGEN_TUNE FG_TEST_CPU=adx '%s' --print", self);
        p = popen(cmd, "r");
        if (p != NULL && fgets(line, sizeof line, p) != NULL) {
            char *tune = strchr(line, ' ');
            pclose(p);
            if (tune != NULL) {
                tune++;
                tune[strcspn(tune, "\n")] = '\0';
                for (i = 0; i < 3; i++) {
                    char var[32];
                    const char *env[] = {"FG_TEST_CPU=adx", "FG_TEST_SECURE=1", var, NULL};
                    int ok;
                    snprintf(var, sizeof var, "FIELDGEN_TUNE=%s", tunes[i]);
                    ok = run_case(self, env, "adx", tune, "-");
                    printf("%s: a privileged process ignores FIELDGEN_TUNE=%s (runs %s)\n", ok ? "ok  " : "FAIL",
                           tunes[i], tune);
                    ok ? passed++ : failed++;
                }
            } else {
                failed++;
            }
        } else {
            puts("FAIL: --print gave nothing");
            failed++;
        }
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
