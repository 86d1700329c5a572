#define _GNU_SOURCE
#include "CSupport.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>

uint64_t journey_atomic_load(const uint64_t *word) { return __atomic_load_n(word, __ATOMIC_ACQUIRE); }

void journey_atomic_store(uint64_t *word, uint64_t value) { __atomic_store_n(word, value, __ATOMIC_RELEASE); }

uint64_t journey_atomic_add(uint64_t *word, uint64_t delta)
{
    return __atomic_add_fetch(word, delta, __ATOMIC_ACQ_REL);
}

bool journey_atomic_compare_exchange(uint64_t *word, uint64_t expected, uint64_t desired)
{
    return __atomic_compare_exchange_n(word, &expected, desired, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

void journey_memory_fence(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

int journey_set_parent_death_signal(int signal) { return prctl(PR_SET_PDEATHSIG, (unsigned long)signal, 0, 0, 0); }

int journey_spawn(const char *path, char *const argv[], char *const envp[], const int *fds, int count, pid_t *pid)
{
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    int error = posix_spawn_file_actions_init(&actions);
    if (error != 0) return error;
    error = posix_spawnattr_init(&attributes);
    if (error != 0) {
        posix_spawn_file_actions_destroy(&actions);
        return error;
    }
    // Every descriptor goes through a spare number first, so that one already sitting where
    // another must go is not overwritten; dup2 to the final number clears close-on-exec. The
    // spares lie above every descriptor given (a fixed number could be one of them, in a
    // process with that many open: the copy would then overwrite it).
    int spare = 3 + count;
    for (int i = 0; i < count; i++) if (fds[i] >= spare) spare = fds[i] + 1;
    for (int i = 0; i < count && error == 0; i++) error = posix_spawn_file_actions_adddup2(&actions, fds[i], spare + i);
    for (int i = 0; i < count && error == 0; i++) {
        error = posix_spawn_file_actions_adddup2(&actions, spare + i, 3 + i);
        if (error == 0) error = posix_spawn_file_actions_addclose(&actions, spare + i);
    }
    sigset_t empty, all;
    sigemptyset(&empty);
    sigfillset(&all);
    if (error == 0) error = posix_spawnattr_setsigmask(&attributes, &empty);
    if (error == 0) error = posix_spawnattr_setsigdefault(&attributes, &all);
    if (error == 0) error = posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    if (error == 0) error = posix_spawn(pid, path, &actions, &attributes, argv, envp);
    posix_spawnattr_destroy(&attributes);
    posix_spawn_file_actions_destroy(&actions);
    return error;
}

bool journey_wait_exited(int status) { return WIFEXITED(status); }
int journey_wait_exit_code(int status) { return WEXITSTATUS(status); }
bool journey_wait_signaled(int status) { return WIFSIGNALED(status); }
int journey_wait_signal(int status) { return WTERMSIG(status); }

int journey_shared_memory_file(const char *name) { return memfd_create(name, MFD_CLOEXEC); }

int journey_pipe(int fds[2]) { return pipe2(fds, O_CLOEXEC); }
