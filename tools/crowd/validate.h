// crowd validate: the validation cases (RiMEA tests and measured pedestrian flows), what each
// one reports, and the helpers they share.
#ifndef CROWD_VALIDATE_H
#define CROWD_VALIDATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crowd/crowd.h"

// ---- a plot: a few series on linear axes, written as hand-made SVG (validate_svg.c) ------------

enum { VPLOT_MAX_SERIES = 6, VPLOT_MAX_POINTS = 256 };

typedef enum vseries_kind {
    VSERIES_LINE,   // a polyline through (x, y)
    VSERIES_POINTS, // markers at (x, y)
    VSERIES_BAND,   // a filled band between y (lower) and y2 (upper) over x
} vseries_kind;

typedef struct vseries {
    vseries_kind kind;
    const char* label;
    const char* color; // an SVG colour
    int n;
    double x[VPLOT_MAX_POINTS], y[VPLOT_MAX_POINTS], y2[VPLOT_MAX_POINTS];
} vseries;

typedef struct vplot {
    const char* xlabel;
    const char* ylabel;
    double xmin, xmax, ymin, ymax;
    int series;
    vseries s[VPLOT_MAX_SERIES];
} vplot;

// Appends a series and returns it (NULL when the plot is full).
vseries* vplot_add(vplot* p, vseries_kind kind, const char* label, const char* color);
void vseries_push(vseries* s, double x, double y, double y2);
// Writes the plot as a standalone SVG file; false when the file cannot be written.
bool vplot_write_svg(const vplot* p, const char* title, const char* path);

// ---- a case and its result ---------------------------------------------------------------------

enum { VTEXT = 2048 };

typedef struct vresult {
    bool pass;
    char setup[VTEXT];     // the geometry, the agents and what is measured
    char measured[VTEXT];  // the figure(s) the engine gave
    char reference[VTEXT]; // the figure it is held against, with its tolerance
    char source[VTEXT];    // where the reference comes from
    bool has_plot;
    vplot plot;
} vresult;

typedef struct vopts {
    bool small; // scaled down (CROWD_TEST_SCALE=small: the sanitizer builds)
    int seeds;  // seeds of the bottleneck case (0: its default)
} vopts;

typedef struct vcase {
    const char* name;  // for --case
    const char* title; // the heading in the report
    void (*run)(const vopts* o, vresult* r);
} vcase;

// Appends printf-formatted text to a result field.
void vcat(char* dst, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

// ---- shared set-up (validate_world.c) ---------------------------------------------------------

// The pedestrian every case starts from: the library's default agent with Weidmann's mean free
// walking speed (1.34 m/s); cases state any other change.
#define V_FREE_SPEED 1.34f
crowd_agent_def v_pedestrian(void);

// A world of library defaults on one thread (the cases are small; several run side by side).
crowd_world* v_world(int capacity);

// The wall segments a case added, kept to measure the agents' clearance from them.
enum { V_MAX_WALLS = 64 };
typedef struct vwalls {
    int n;
    crowd_vec2 a[V_MAX_WALLS], b[V_MAX_WALLS];
} vwalls;

// Adds the segment a-b as a wall (and to `keep` when not NULL); false on an engine error.
bool v_wall(crowd_world* w, vwalls* keep, float ax, float ay, float bx, float by);
// Distance from p to the nearest kept wall segment (a large value without walls).
float v_wall_distance(const vwalls* walls, crowd_vec2 p);

// Adds n agents of def d on a jittered grid over [x0, x1] x [y0, y1] (keyed by seed) into ids;
// false on an engine error.
bool v_place(crowd_world* w, crowd_agent_def d, int n, float x0, float x1, float y0, float y1,
             uint64_t seed, crowd_agent_id* ids);

// Deterministic keyed draws: a value in [0, 1) from (seed, key), the same on every machine.
double v_draw(uint64_t seed, uint64_t key);

// Weidmann (1993): walking speed at density rho (persons/m^2), 0 at and beyond 5.4.
double v_weidmann_speed(double rho);

// ---- the cases ---------------------------------------------------------------------------------

void vcase_rimea1(const vopts* o, vresult* r);
void vcase_rimea4(const vopts* o, vresult* r);
void vcase_rimea5(const vopts* o, vresult* r);
void vcase_rimea6(const vopts* o, vresult* r);
void vcase_rimea7(const vopts* o, vresult* r);
void vcase_rimea9(const vopts* o, vresult* r);
void vcase_rimea10(const vopts* o, vresult* r);
void vcase_rimea11(const vopts* o, vresult* r);
void vcase_rimea12(const vopts* o, vresult* r);
void vcase_rimea14(const vopts* o, vresult* r);
void vcase_bottleneck(const vopts* o, vresult* r);
void vcase_door_route(const vopts* o, vresult* r);
void vcase_counterflow(const vopts* o, vresult* r);
void vcase_crossing(const vopts* o, vresult* r);

extern const vcase v_cases[];
extern const int v_case_count;

#endif
