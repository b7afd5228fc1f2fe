// Nothing lost at exit: the active session is stopped (and its recording saved) by an atexit
// handler, and on SIGINT/SIGTERM when the application left those signals at their default. The
// signal handler only posts a semaphore (async-signal-safe); a flusher thread stops the session,
// restores the default action and re-raises the signal so the process ends as it would have.
//
// A child forked after the session started (a DataLoader worker, a shell-out) inherits the session
// and the handlers but not the flusher thread: in the child the handlers go back to the default
// and the exit flush does nothing -- the recording is the parent's to save.
#include "session/session_state.hpp"
#include "core/log.hpp"

#include <csignal>
#include <cstdlib>
#include <mutex>
#include <pthread.h>
#include <semaphore.h>
#include <thread>

namespace roofline::collect {
namespace {

sem_t gSignalled;
volatile std::sig_atomic_t gSignal = 0;
bool gInstalled[2] = {false, false};
volatile std::sig_atomic_t gForkedChild = 0;
constexpr int kSignals[2] = {SIGINT, SIGTERM};

// Held while a session is being stopped at exit or on a signal, so that process exit waits for
// a flush the signal handler's thread started (and the reverse).
std::mutex& finishing() {
    static std::mutex* m = new std::mutex(); // never destroyed: used during exit
    return *m;
}

void atExit() {
    if (gForkedChild)
        return;
    std::lock_guard<std::mutex> lock(finishing());
    if (SessionState* s = gActive.load(std::memory_order_acquire))
        s->finish();
}

void onSignal(int sig) {
    gSignal = sig;
    sem_post(&gSignalled);
}

void flusher() {
    while (sem_wait(&gSignalled) != 0) {
    }
    const int sig = gSignal;
    {
        std::lock_guard<std::mutex> lock(finishing());
        if (SessionState* s = gActive.load(std::memory_order_acquire)) {
            core::log().warn("libroofline: signal {} received: stopping the session and saving "
                             "its records before the process ends",
                             sig);
            s->finish();
        }
    }
    std::signal(sig, SIG_DFL);
    std::raise(sig);
}

void inForkedChild() {
    gForkedChild = 1;
    restoreSignals(); // no flusher thread here to act on them
}

} // namespace

void installExitFlush() noexcept {
    static std::once_flag once;
    std::call_once(once, [] {
        std::atexit(&atExit);
        pthread_atfork(nullptr, nullptr, &inForkedChild);
        if (sem_init(&gSignalled, 0, 0) != 0)
            return;
        try {
            std::thread(&flusher).detach();
        } catch (...) {
            return;
        }
    });
    for (int i = 0; i < 2; ++i) {
        struct sigaction current {};
        if (sigaction(kSignals[i], nullptr, &current) != 0)
            continue;
        const bool isDefault = !(current.sa_flags & SA_SIGINFO) && current.sa_handler == SIG_DFL;
        if (!isDefault)
            continue; // the application handles it: its handler stays
        struct sigaction ours {};
        ours.sa_handler = &onSignal;
        sigemptyset(&ours.sa_mask);
        gInstalled[i] = sigaction(kSignals[i], &ours, nullptr) == 0;
    }
}

void restoreSignals() noexcept {
    for (int i = 0; i < 2; ++i) {
        if (!gInstalled[i])
            continue;
        struct sigaction current {};
        if (sigaction(kSignals[i], nullptr, &current) == 0 && current.sa_handler == &onSignal) {
            struct sigaction dfl {};
            dfl.sa_handler = SIG_DFL;
            sigemptyset(&dfl.sa_mask);
            sigaction(kSignals[i], &dfl, nullptr);
        }
        gInstalled[i] = false;
    }
}

} // namespace roofline::collect
