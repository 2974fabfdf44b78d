// The search a field is built with (nav_build.c), as the repair (nav_repair.c) runs it again over
// part of a field: its state, and the steps the repair takes one by one.
#ifndef CS_NAV_SEARCH_H
#define CS_NAV_SEARCH_H

#include "nav/nav.h"
#include "walls/walls_store.h"

typedef struct cs_nav_search {
    const cs_nav* nav;
    const cs_walls* walls;
    const uint8_t* blocked;
    uint32_t* anchor;
    float* g;
    uint64_t* heap;
    uint8_t* closed;
    uint32_t hn, cap; // entries in the heap, room for them
    int32_t gw, gh;
    float h;
    double ox, oy;                         // the grid's lower left corner (world coordinates)
    crowd_vec2 tp[CROWD_EXITS_MAX_POINTS]; // targets, in grid coordinates (metres from ox, oy)
    int tn;
    // A repair's search (nav_repair.c): the cells not being solved again are settled with their
    // anchors, and their distances are read from those (cs_nav_search_g) when first needed
    // (`lazy`); with `reopen` a settled cell takes a strictly shorter way it sees when a neighbor
    // offers one. Every cell whose g or closed state the repair changes goes into `list`.
    bool lazy, reopen;
    uint32_t* list;
    uint32_t nlist;
} cs_nav_search;

// The search's state for field `anchor` of destination key; nothing of the arrays is reset.
void cs_nav_search_init(cs_nav_search* b, const struct crowd_world* w, const cs_nav* nav,
                        cs_nav_key key, uint32_t* anchor, cs_nav_scratch* s);
// The search over FREE cells from whatever the heap holds.
void cs_nav_search_run(cs_nav_search* b);
// Settled cell c offers its anchor to its neighbors that are not settled, as the search does when
// it settles a cell.
void cs_nav_search_expand(cs_nav_search* b, uint32_t c);
// The walking distance of a cell along its anchors (a repair's settled cells): the anchor's plus
// the straight line to it (a NEAR cell: its neighbor's plus a cell), FLT_MAX for a cell with no
// way. Kept in g, the cells it sets listed.
float cs_nav_search_g(cs_nav_search* b, uint32_t c);
// The neighbor a NEAR cell points to (see near_cells in nav_build.c), from the settled cells
// round it, whose g must be known.
uint32_t cs_nav_search_near_anchor(const cs_nav_search* b, uint32_t c);

#endif
