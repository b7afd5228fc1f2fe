// Preloaded (LD_PRELOAD) into a test process to say where it crashed: on SIGSEGV, SIGBUS, SIGILL,
// SIGFPE or SIGABRT it writes the signal, the faulting address, the thread, a backtrace and the
// executable mappings (to resolve library offsets) to stderr and, when CRASH_LOG names a file,
// appends them there; then it re-raises the signal with its default action. Used by
// test/gpu/suite_loop.sh to hunt intermittent crashes on an H100 80GB HBM3.
#define _GNU_SOURCE
#include <execinfo.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

static int gLog = -1;
static char gStack[1 << 16];

static void out(const char* s, size_t n) {
    if (write(2, s, n) < 0) {
    }
    if (gLog >= 0 && write(gLog, s, n) < 0) {
    }
}

static void outText(const char* s) { out(s, strlen(s)); }

static void handler(int sig, siginfo_t* info, void* raw) {
    char line[256];
    ucontext_t* uc = (ucontext_t*)raw;
    unsigned long long ip = 0;
#if defined(__x86_64__)
    ip = (unsigned long long)uc->uc_mcontext.gregs[REG_RIP];
#endif
    int n = snprintf(line, sizeof line, "\n=== CRASH: signal %d (%s) at address %p, ip 0x%llx, pid %d, tid %ld\n",
                     sig, strsignal(sig), info ? info->si_addr : NULL, ip, (int)getpid(),
                     (long)syscall(SYS_gettid));
    out(line, (size_t)n);
    void* frames[96];
    const int count = backtrace(frames, 96);
    backtrace_symbols_fd(frames, count, 2);
    if (gLog >= 0)
        backtrace_symbols_fd(frames, count, gLog);
    outText("=== executable mappings\n");
    int maps = open("/proc/self/maps", O_RDONLY);
    if (maps >= 0) {
        char buf[4096];
        char lineBuf[512];
        size_t len = 0;
        ssize_t got;
        while ((got = read(maps, buf, sizeof buf)) > 0) {
            for (ssize_t i = 0; i < got; ++i) {
                if (len < sizeof lineBuf - 1)
                    lineBuf[len++] = buf[i];
                if (buf[i] == '\n') {
                    lineBuf[len] = 0;
                    if (strstr(lineBuf, " r-xp ") || strstr(lineBuf, " r--p 00000000"))
                        out(lineBuf, len);
                    len = 0;
                }
            }
        }
        close(maps);
    }
    outText("=== end of crash report\n");
    signal(sig, SIG_DFL);
    raise(sig);
}

__attribute__((constructor)) static void install(void) {
    const char* path = getenv("CRASH_LOG");
    if (path && *path)
        gLog = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
    stack_t ss;
    ss.ss_sp = gStack;
    ss.ss_size = sizeof gStack;
    ss.ss_flags = 0;
    sigaltstack(&ss, NULL);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = handler;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    const int signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
    for (unsigned i = 0; i < sizeof signals / sizeof signals[0]; ++i)
        sigaction(signals[i], &sa, NULL);
    void* warm[2];
    backtrace(warm, 2); // loads libgcc now, not inside the handler
}
