// The split-world tests' check: on failure the rank, the place and the message go to stderr and
// every rank stops (MPI_Abort), so a test run under mpiexec exits 1 at its first failed check. The
// including file defines `rank`.
#ifndef CROWD_TESTS_DIST_CHECK_H
#define CROWD_TESTS_DIST_CHECK_H

#include <stdio.h>

#include "crowd/dist.h"

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "rank %d: %s:%d: ", rank, __FILE__, __LINE__);                         \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                          \
        }                                                                                          \
    } while (0)

#endif
