/* io/probe.c — the sandbox for parsing untrusted files (issue 8). HDF5 has had many crashes and
 * endless loops on crafted files (e.g. a chunk B-tree whose node lists itself as its child:
 * unbounded recursion in 1.10.8); gpipe cannot fix the library, so rank 0 lets a child process
 * parse the file first: `gpipe __probe input FILE [DATASET]` runs gp_h5_check_input, `gpipe
 * __probe info FILE [json]` prints `gpipe info`'s listing. The child is gpipe itself, started
 * with posix_spawn (no fork of the MPI process) and without MPI; it reports a refusal as one
 * line on a pipe (fd 3) and exit code 2. A child killed by a signal, or still busy after
 * GPIPE_PROBE_SECONDS (default 300), turns into one error line naming the file.
 *
 * The sandbox is on when main.c says the process is the gpipe executable (gp_probe_enable);
 * other programs linking the library (unit tests, benchmarks) and GPIPE_PROBE=0 run the same
 * checks in-process. */
#define _GNU_SOURCE 1
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "io/h5.h"
#include "io/probe.h"

extern char **environ;

static int probe_on = 0;

void gp_probe_enable(int on)
{
    probe_on = on;
}

static int sandboxed(void)
{
    const char *s = getenv("GPIPE_PROBE");
    if (s && !strcmp(s, "0")) return 0;
    return probe_on && access("/proc/self/exe", X_OK) == 0;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The child's environment: the parent's, and under AddressSanitizer handle_segv=0, so that a
 * stack overflow inside HDF5 (not instrumented) ends the child with SIGSEGV like in a normal
 * build instead of an ASan report; errors in gpipe's own code are still reported by ASan. */
static char **child_env(char **extra)
{
    *extra = NULL;
#if defined(__SANITIZE_ADDRESS__)
    size_t n = 0;
    while (environ[n]) n++;
    char **env = calloc(n + 2, sizeof *env);
    if (!env) return environ;
    const char *old = getenv("ASAN_OPTIONS");
    size_t len = (old ? strlen(old) : 0) + 64;
    *extra = malloc(len);
    if (!*extra) { free(env); return environ; }
    snprintf(*extra, len, "ASAN_OPTIONS=%s%shandle_segv=0", old ? old : "", old && *old ? ":" : "");
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], "ASAN_OPTIONS=", 13)) env[k++] = environ[i];
    env[k++] = *extra;
    env[k] = NULL;
    return env;
#else
    return environ;
#endif
}

/* Runs `gpipe __probe MODE PATH ARG` and turns its end into e. out: the child's stdout. */
static gp_status run_child(const char *mode, const char *path, const char *arg, FILE *out, gp_error *e)
{
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return gp__fail(e, GP_EIO, "%s: cannot check the file: pipe: %s", path, strerror(errno));
    if (fds[1] == 3) {   /* dup2(3, 3) would leave FD_CLOEXEC set on older C libraries */
        int t = fcntl(fds[1], F_DUPFD_CLOEXEC, 4);
        if (t >= 0) { close(fds[1]); fds[1] = t; }
    }
    fflush(NULL);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 3);   /* dup2 clears FD_CLOEXEC on fd 3 */
    if (out && fileno(out) >= 0 && fileno(out) != 1) posix_spawn_file_actions_adddup2(&fa, fileno(out), 1);
    char *argv[] = {"gpipe", "__probe", (char *)mode, (char *)path, (char *)(arg ? arg : ""), NULL};
    char *extra;
    char **env = child_env(&extra);
    /* The child starts with the stop signals blocked: SIGTERM/SIGINT/SIGUSR1 (a batch system's
     * notice, mpirun forwards it to the process group) are the parent's to handle at a panel
     * boundary; the probe is short and bounded, and must not die of them as if HDF5 crashed. */
    posix_spawnattr_t at;
    posix_spawnattr_init(&at);
    sigset_t blk;
    sigemptyset(&blk);
    sigaddset(&blk, SIGTERM);
    sigaddset(&blk, SIGINT);
    sigaddset(&blk, SIGUSR1);
    sigaddset(&blk, SIGUSR2);
    sigaddset(&blk, SIGHUP);
    posix_spawnattr_setsigmask(&at, &blk);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK);
    pid_t pid;
    int rc = posix_spawn(&pid, "/proc/self/exe", &fa, &at, argv, env);
    posix_spawnattr_destroy(&at);
    posix_spawn_file_actions_destroy(&fa);
    if (env != environ) free(env);
    free(extra);
    close(fds[1]);
    if (rc != 0) {
        close(fds[0]);
        return gp__fail(e, GP_EIO, "%s: cannot start the file check (posix_spawn: %s)", path, strerror(rc));
    }

    const char *ls = getenv("GPIPE_PROBE_SECONDS");
    double limit = ls && atof(ls) > 0 ? atof(ls) : 300.0, t0 = now_s();
    char msg[sizeof e->msg] = "";
    size_t used = 0;
    int timed_out = 0;
    for (;;) {   /* read the child's line until it closes the pipe (exits) or time is up */
        double left = limit - (now_s() - t0);
        if (left <= 0) { timed_out = 1; break; }
        struct pollfd p = {fds[0], POLLIN, 0};
        int pr = poll(&p, 1, left > 1.0 ? 1000 : (int)(left * 1000) + 1);
        if (pr < 0 && errno == EINTR) continue;
        if (pr <= 0) continue;
        ssize_t r = read(fds[0], msg + used, sizeof msg - 1 - used);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        used += (size_t)r;
        if (used >= sizeof msg - 1) {   /* more than a line: keep draining */
            char junk[256];
            while (read(fds[0], junk, sizeof junk) > 0) {}
            break;
        }
    }
    close(fds[0]);
    msg[used] = 0;
    if (timed_out) kill(pid, SIGKILL);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    char *nl = strchr(msg, '\n');
    if (nl) *nl = 0;

    if (timed_out)
        return gp__fail(e, GP_EFORMAT, "%s: reading the file's metadata did not finish within %.0f s (HDF5 stuck on "
                        "a corrupt file?; GPIPE_PROBE_SECONDS sets the limit)", path, limit);
    if (WIFSIGNALED(status))
        return gp__fail(e, GP_EFORMAT, "%s: HDF5 crashed (signal %d, %s) reading the file's metadata: the file is "
                        "corrupt", path, WTERMSIG(status), strsignal(WTERMSIG(status)));
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (code == 0) return GP_OK;
    if (code == 2 && msg[0]) return gp__fail(e, GP_EFORMAT, "%s", msg);
    return gp__fail(e, GP_EFORMAT, "%s: the check of the file's metadata failed (exit %d)%s%s", path, code,
                    msg[0] ? ": " : "", msg);
}

gp_status gp__probe_input(const char *path, const char *dataset, gp_error *e)
{
    if (!sandboxed()) return gp_h5_check_input(path, dataset, e);
    return run_child("input", path, dataset, NULL, e);
}

gp_status gp__probe_info(const char *path, int json, FILE *out, gp_error *e)
{
    if (!sandboxed() || !out || fileno(out) < 0) return gp__info_list(path, json, out, e);
    return run_child("info", path, json ? "json" : "", out, e);
}

int gp_probe_main(int argc, char **argv)
{
    /* argv: gpipe __probe MODE PATH ARG; the parent reads fd 3. Stop signals stay blocked (the
     * parent handles them); a parent that dies takes the child with it. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    gp_error e;
    memset(&e, 0, sizeof e);
    e.rank = -1;
    if (argc < 5) {
        fprintf(stderr, "gpipe: __probe is internal (gpipe __probe input|info FILE ARG)\n");
        return 3;
    }
    const char *mode = argv[2], *path = argv[3], *arg = argv[4];
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    gp_status st;
    if (!strcmp(mode, "input")) st = gp_h5_check_input(path, arg[0] ? arg : NULL, &e);
    else if (!strcmp(mode, "info")) st = gp__info_list(path, !strcmp(arg, "json"), stdout, &e);
    else return 3;
    fflush(stdout);
    if (!st) return 0;
    size_t len = strlen(e.msg);
    e.msg[len] = '\n';
    if (write(3, e.msg, len + 1) < 0) fprintf(stderr, "gpipe: error: %s\n", e.msg);
    return 2;
}
