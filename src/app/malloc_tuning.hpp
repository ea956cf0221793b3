// How grundy asks glibc's malloc for huge pages and a single arena.
#pragma once

namespace grundy::app {

// Starts grundy again, same arguments, with glibc's malloc tuned for the engine's windows:
// huge pages (glibc.malloc.hugetlb=1), one arena for all threads (glibc.malloc.arena_max=1), and
// freed memory kept for reuse (trim_threshold, mmap_threshold).
// glibc reads these only when a program starts, hence the exec. Returns (doing nothing) where
// they are set already, where GLIBC_TUNABLES names any glibc.malloc setting of the user's, where
// LD_PRELOAD is set (valgrind, another allocator), where GRUNDY_MALLOC_TUNING=0, in sanitizer
// builds, and when the exec fails.
void tune_malloc(char** argv);

}  // namespace grundy::app
