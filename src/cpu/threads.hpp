// Threads of the CPU backend (OpenMP).
#pragma once

namespace upsample::cpu {

// UPSAMPLE_NUM_THREADS if set to a positive integer, else every core.
int default_threads();

// The team size for a run: `requested` (> 0) or default_threads(), except in a process forked
// from another: GNU OpenMP cannot start threads in a forked child whose parent ran parallel
// regions (it waits forever for the parent's workers), and a library cannot know whether some
// other component of the process did, so a forked child runs single-threaded.
int resolve_threads(int requested);

// True in a process created by fork() after this library was loaded.
bool in_forked_child();

}  // namespace upsample::cpu
