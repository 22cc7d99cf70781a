#ifndef PIANOLA_ALLOCATION_COUNTER_H
#define PIANOLA_ALLOCATION_COUNTER_H
/// Counts heap allocations made by the calling thread between start and stop. The test
/// process's malloc, calloc, realloc, posix_memalign, aligned_alloc and memalign are
/// replaced by counting versions that forward to glibc's. Allocations made directly by
/// libgomp (the OpenMP runtime Debian's libfluidsynth renders inside) are counted apart, so
/// a test can tell the project's allocations from that library's. Test support only.
void pianola_allocations_start(void);
/// Stops counting on the calling thread and returns the count since start, libgomp's excluded.
long pianola_allocations_stop(void);
/// The allocations libgomp made on the calling thread between the last start and stop.
long pianola_allocations_by_openmp(void);
/// The locks (pthread mutexes and read-write locks: C libraries' locks, and malloc's) the
/// calling thread took between the last start and stop; -1 where nothing is counted. Swift's
/// own `Mutex` takes futexes directly and is not seen here.
long pianola_locks_taken(void);
#endif
