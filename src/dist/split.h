// Which rank owns which part of the plane in a split world (crowd/dist.h): a recursive bisection
// of the hash-cell lattice (columns floor(x / cell), rows floor(y / cell)) into one rectangle of
// cells per rank.
//
// The tree's shape depends on the rank count alone: a node of n ranks gives its first n / 2 to
// its low child and the rest to its high one. Its cuts come from the agents: each node cuts its
// agents across the longer side of their occupied box (columns when the split is strips), at the
// bin boundary of a histogram of their cells whose running count is nearest the low child's share
// of the ranks (at least one bin on the low side). The histograms are
// integers summed over the ranks (a caller's reduction), so every rank computes the same tree.
// The outermost rectangles reach to infinity, so every cell has an owner whatever the tree.
#ifndef CS_DIST_SPLIT_H
#define CS_DIST_SPLIT_H

#include "core/internal.h"

typedef struct cs_split_node {
    int64_t cut; // cells whose coordinate on `axis` is below it belong to the low child
    int axis;    // 0: columns, 1: rows
    int depth;   // the root's is 0
    int lo, hi;  // children, -1 for a leaf
    int first;   // the node's ranks: [first, first + ranks)
    int ranks;
} cs_split_node;

// A node of one level while the tree is cut.
typedef struct cs_split_level {
    int n;            // the node
    int64_t lo, span; // its agents' cells on the cut's axis
    int64_t bins, at; // its histogram: bins from buf[at]
} cs_split_level;

typedef struct cs_split {
    cs_split_node* node;     // node 0 is the root
    int ranks, nodes, depth; // depth: the deepest leaf's
    // Room for cutting, sized by the rank count: per node of a level, 4 range values (min column,
    // -max column, min row, -max row), then the level's histograms one after the other.
    int64_t* buf;
    size_t buf_len;
    cs_split_level* level; // the nodes of a level with children
    int* slot;             // per node: its place in `level`
} cs_split;

// The tree of `ranks` ranks, every cut at +infinity (rank 0 owns everything).
crowd_status cs_split_init(crowd_world* w, cs_split* s, int ranks);
void cs_split_free(crowd_world* w, cs_split* s);

// Combines `n` integers in place over every rank: their minimum (`min`) or their sum. NULL when the
// calling rank holds every agent.
typedef void cs_split_reduce_fn(void* ctx, int64_t* v, int n, bool min);

// Cuts the tree again from the agents stored in `w` and `extra_count` more points at `extra` (x,
// y pairs: agents not stored yet), each rank's own; `reduce` combines them, two reductions per
// level. `strips`: every cut across columns.
void cs_split_compute(const crowd_world* w, const float* extra, int extra_count, cs_split* s,
                      bool strips, cs_split_reduce_fn* reduce, void* ctx);

// The cell of a point, and the rank that owns a cell.
int64_t cs_split_column(const crowd_world* w, float x);
int64_t cs_split_row(const crowd_world* w, float y);
int cs_split_owner(const cs_split* s, int64_t col, int64_t row);

// The ranks whose rectangle meets the box of cells [c0, c1] x [r0, r1], in increasing order, into
// `out` (room for every rank); their count.
int cs_split_ranks_in(const cs_split* s, int64_t c0, int64_t c1, int64_t r0, int64_t r1, int* out);

// Rank r's rectangle: columns [box[0], box[1]], rows [box[2], box[3]] (INT64_MIN and INT64_MAX
// for open sides; empty when a first exceeds its last).
void cs_split_region(const cs_split* s, int rank, int64_t box[4]);

#endif
