#ifndef JOURNEY_CSUPPORT_H
#define JOURNEY_CSUPPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/inotify.h>
#include <sys/signalfd.h>

/// Atomic operations on 64-bit words in memory shared between processes (a MAP_SHARED
/// mapping): Swift's atomics only cover memory Swift itself owns.
uint64_t journey_atomic_load(const uint64_t *word);
void journey_atomic_store(uint64_t *word, uint64_t value);
uint64_t journey_atomic_add(uint64_t *word, uint64_t delta);
bool journey_atomic_compare_exchange(uint64_t *word, uint64_t expected, uint64_t desired);
/// A full memory barrier.
void journey_memory_fence(void);

/// Asks the kernel to send `signal` to this process when its parent dies (prctl is variadic).
int journey_set_parent_death_signal(int signal);

/// Starts `path` with `argv` and `envp` (NULL-terminated). The descriptors `fds[0..<count]`
/// become descriptors 3, 4, … of the child; every other descriptor marked close-on-exec is
/// closed. The child starts with an empty signal mask and default signal handlers.
/// Returns 0 and sets `pid`, or an errno value.
int journey_spawn(const char *path, char *const argv[], char *const envp[], const int *fds, int count, pid_t *pid);

/// A pipe whose both ends are close-on-exec (pipe2 with O_CLOEXEC); 0 or -1 with errno set.
int journey_pipe(int fds[2]);

/// An anonymous shared-memory file (memfd_create), or -1 with errno set.
int journey_shared_memory_file(const char *name);

/// Whether a wait status means the process exited / was killed by a signal, and the code.
bool journey_wait_exited(int status);
int journey_wait_exit_code(int status);
bool journey_wait_signaled(int status);
int journey_wait_signal(int status);

#endif
