// The CPython extension behind the crowdstep package (python/crowdstep/): one World type over the
// C API, exceptions per status, zero-copy numpy views of the columns and the scenario loader of
// `crowd run` (tools/crowd, linked as the crowd_scenario library).
//
// Lifetime. A numpy array viewing the engine's columns holds a lease: a small object that keeps
// the World object alive and counts the leases out. The world is created with allocator hooks
// whose free keeps every block alive while a lease is out (the column buffers rotate and grow;
// a world closed while views exist frees its memory when the last view goes), so no array ever
// points at freed memory. The values an array shows are the engine's current ones only while its
// Columns object is valid (crowdstep/__init__.py).
//
// Threads. Every call on a world holds the world's lock; World.step releases the GIL (and waits
// for the lock without it), so other worlds and other Python code run during a step.
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "build.h"
#include "crowd/crowd.h"
#include "scenario.h"

// ---- statuses -----------------------------------------------------------------------------------

#define STATUS_NAMES(X)                                                                            \
    X(CROWD_OK)                                                                                    \
    X(CROWD_ERR_NULL_ARGUMENT)                                                                     \
    X(CROWD_ERR_INVALID_ENUM)                                                                      \
    X(CROWD_ERR_NOT_FINITE)                                                                        \
    X(CROWD_ERR_BAD_RADIUS)                                                                        \
    X(CROWD_ERR_BAD_SPEED)                                                                         \
    X(CROWD_ERR_BAD_WEIGHT)                                                                        \
    X(CROWD_ERR_BAD_HEADING)                                                                       \
    X(CROWD_ERR_BAD_DT)                                                                            \
    X(CROWD_ERR_BAD_CELL_SIZE)                                                                     \
    X(CROWD_ERR_BAD_THREADS)                                                                       \
    X(CROWD_ERR_BAD_CAPACITY)                                                                      \
    X(CROWD_ERR_CAPACITY)                                                                          \
    X(CROWD_ERR_OUT_OF_MEMORY)                                                                     \
    X(CROWD_ERR_NULL_HANDLE)                                                                       \
    X(CROWD_ERR_STALE_HANDLE)                                                                      \
    X(CROWD_ERR_FOREIGN_HANDLE)                                                                    \
    X(CROWD_ERR_BUFFER_TOO_SMALL)                                                                  \
    X(CROWD_ERR_BAD_CONE)                                                                          \
    X(CROWD_ERR_BAD_AREA)                                                                          \
    X(CROWD_ERR_NOT_QUEUEING)                                                                      \
    X(CROWD_ERR_PATH_TOO_SHORT)                                                                    \
    X(CROWD_ERR_PATH_TOO_LONG)                                                                     \
    X(CROWD_ERR_PATH_REPEATED_POINT)                                                               \
    X(CROWD_ERR_NULL_PATH)                                                                         \
    X(CROWD_ERR_STALE_PATH)                                                                        \
    X(CROWD_ERR_FOREIGN_PATH)                                                                      \
    X(CROWD_ERR_BAD_PATH_INDEX)                                                                    \
    X(CROWD_ERR_FOLLOW_CYCLE)                                                                      \
    X(CROWD_ERR_BAD_COUNT)                                                                         \
    X(CROWD_ERR_WRITE_FAILED)                                                                      \
    X(CROWD_ERR_SNAPSHOT_MAGIC)                                                                    \
    X(CROWD_ERR_SNAPSHOT_VERSION)                                                                  \
    X(CROWD_ERR_SNAPSHOT_TRUNCATED)                                                                \
    X(CROWD_ERR_SNAPSHOT_OVERSIZED)                                                                \
    X(CROWD_ERR_SNAPSHOT_CHECKSUM)                                                                 \
    X(CROWD_ERR_SNAPSHOT_SECTION)                                                                  \
    X(CROWD_ERR_SNAPSHOT_CORRUPT)                                                                  \
    X(CROWD_ERR_SNAPSHOT_TOO_LARGE)                                                                \
    X(CROWD_ERR_OUT_OF_RANGE)                                                                      \
    X(CROWD_ERR_NULL_OBSTACLE)                                                                     \
    X(CROWD_ERR_STALE_OBSTACLE)                                                                    \
    X(CROWD_ERR_FOREIGN_OBSTACLE)                                                                  \
    X(CROWD_ERR_OBSTACLE_TOO_SHORT)                                                                \
    X(CROWD_ERR_OBSTACLE_TOO_LONG)                                                                 \
    X(CROWD_ERR_OBSTACLE_REPEATED_POINT)                                                           \
    X(CROWD_ERR_OBSTACLE_SELF_INTERSECTING)                                                        \
    X(CROWD_ERR_INSIDE_OBSTACLE)                                                                   \
    X(CROWD_ERR_NOT_DISTRIBUTABLE)                                                                 \
    X(CROWD_ERR_RANK_FAILED)                                                                       \
    X(CROWD_ERR_NULL_EXITS)                                                                        \
    X(CROWD_ERR_STALE_EXITS)                                                                       \
    X(CROWD_ERR_FOREIGN_EXITS)                                                                     \
    X(CROWD_ERR_IN_USE)

#define NAME_ENTRY(s) [s] = #s,
static const char* const status_names[CROWD_STATUS_COUNT] = {STATUS_NAMES(NAME_ENTRY)};
#define COUNT_ENTRY(s) +1
_Static_assert(0 STATUS_NAMES(COUNT_ENTRY) == CROWD_STATUS_COUNT, "a status without a name");

static PyObject* error_base;                        // crowdstep.Error
static PyObject* status_errors[CROWD_STATUS_COUNT]; // its subclass per status
static PyObject* stale_view_error;                  // crowdstep.StaleViewError
static PyObject* closed_error;                      // crowdstep.ClosedError

// Raises the status's exception: "CROWD_ERR_X: description" (with `what` before it when given),
// with .status (the name) and .code (the number).
static PyObject* raise_status(crowd_status st, const char* what) {
    if (st <= CROWD_OK || st >= CROWD_STATUS_COUNT) st = CROWD_ERR_INVALID_ENUM;
    PyObject* cls = status_errors[st];
    PyObject* msg =
        what && *what
            ? PyUnicode_FromFormat("%s: %s (%s)", status_names[st], crowd_status_string(st), what)
            : PyUnicode_FromFormat("%s: %s", status_names[st], crowd_status_string(st));
    PyObject* exc = msg ? PyObject_CallOneArg(cls, msg) : NULL;
    Py_XDECREF(msg);
    if (!exc) return NULL;
    PyErr_SetObject(cls, exc);
    Py_DECREF(exc);
    return NULL;
}

static PyObject* raise_at(crowd_status st, const char* what, Py_ssize_t k) {
    char buf[160];
    snprintf(buf, sizeof buf, "%s %zd", what, k);
    return raise_status(st, buf);
}

// ---- handles: every handle type is {uint32 index1, uint16 generation, uint16 world} -------------

_Static_assert(sizeof(crowd_agent_id) == 8 && sizeof(crowd_path_id) == 8 &&
                   sizeof(crowd_exits_id) == 8 && sizeof(crowd_obstacle_id) == 8,
               "handles pack into 64 bits");

static uint64_t pack(const void* id) {
    const crowd_agent_id* a = id;
    return (uint64_t)a->index1 | (uint64_t)a->generation << 32 | (uint64_t)a->world << 48;
}

static crowd_agent_id unpack(uint64_t v) {
    return (crowd_agent_id){
        .index1 = (uint32_t)v, .generation = (uint16_t)(v >> 32), .world = (uint16_t)(v >> 48)};
}

#define UNPACK_AS(type, v)                                                                         \
    ((type){.index1 = (uint32_t)(v),                                                               \
            .generation = (uint16_t)((v) >> 32),                                                   \
            .world = (uint16_t)((v) >> 48)})

// "O&" converter: a Python int (or numpy integer) into a 64-bit handle; None is the null handle.
static int conv_handle(PyObject* o, void* out) {
    if (o == Py_None) {
        *(uint64_t*)out = 0;
        return 1;
    }
    PyObject* i = PyNumber_Index(o);
    if (!i) return 0;
    const unsigned long long v = PyLong_AsUnsignedLongLong(i);
    Py_DECREF(i);
    if (v == (unsigned long long)-1 && PyErr_Occurred()) return 0;
    *(uint64_t*)out = v;
    return 1;
}

// ---- enums by name ----------------------------------------------------------------------------

typedef struct enum_names {
    const char* what;
    const char* const* names;
    int count;
} enum_names;

#define ENUM(var, what, ...)                                                                       \
    static const char* const var##_list[] = {__VA_ARGS__};                                         \
    static const enum_names var = {what, var##_list, sizeof var##_list / sizeof *var##_list}

ENUM(goal_modes, "goal mode", "none", "seek", "arrive", "flee", "arrive_literal");
ENUM(routes, "route", "field", "straight");
ENUM(goal_forms, "goal form", "pedestrian", "literal");
ENUM(queue_policies, "arrival policy", "stop", "remove", "respawn");
ENUM(queue_forms, "queue form", "file", "literal");
ENUM(path_kinds, "path kind", "waypoints", "tube");
ENUM(path_modes, "path mode", "one_shot", "loop", "ping_pong");
ENUM(path_forms, "path form", "flow", "literal");
ENUM(follow_targets, "follow target", "behind", "slot");
ENUM(follow_forms, "follow form", "keep_up", "literal");
ENUM(shapes, "formation shape", "column", "line", "wedge", "block", "circle", "custom");
ENUM(obstacle_kinds, "obstacle kind", "wall", "polygon");
ENUM(route_states, "route state", "none", "straight", "pending", "routed", "unreachable");
ENUM(path_states, "path state", "none", "following", "finished", "detached");
ENUM(follow_states, "follow state", "none", "active", "stopped");

static int enum_value(const enum_names* e, PyObject* o, int* out) {
    if (PyUnicode_Check(o)) {
        const char* s = PyUnicode_AsUTF8(o);
        if (!s) return 0;
        for (int k = 0; k < e->count; ++k)
            if (!strcmp(s, e->names[k])) {
                *out = k;
                return 1;
            }
    }
    char buf[160];
    snprintf(buf, sizeof buf, "unknown %s", e->what);
    raise_status(CROWD_ERR_INVALID_ENUM, buf);
    return 0;
}

#define ENUM_CONV(var)                                                                             \
    static int conv_##var(PyObject* o, void* out) {                                                \
        int v;                                                                                     \
        if (!enum_value(&var, o, &v)) return 0;                                                    \
        *(int*)out = v;                                                                            \
        return 1;                                                                                  \
    }
ENUM_CONV(goal_modes)
ENUM_CONV(routes)
ENUM_CONV(goal_forms)
ENUM_CONV(queue_policies)
ENUM_CONV(queue_forms)
ENUM_CONV(path_kinds)
ENUM_CONV(path_modes)
ENUM_CONV(path_forms)
ENUM_CONV(follow_targets)
ENUM_CONV(follow_forms)
ENUM_CONV(shapes)
ENUM_CONV(obstacle_kinds)

static PyObject* enum_name(const enum_names* e, int v) {
    return v >= 0 && v < e->count ? PyUnicode_FromString(e->names[v]) : PyLong_FromLong(v);
}

// "O&" converter: a point (any sequence of two numbers) into a crowd_vec2.
static int conv_vec2(PyObject* o, void* out) {
    PyObject* a = PyArray_FROMANY(o, NPY_FLOAT32, 1, 1, NPY_ARRAY_IN_ARRAY | NPY_ARRAY_FORCECAST);
    if (!a) return 0;
    if (PyArray_DIM((PyArrayObject*)a, 0) != 2) {
        Py_DECREF(a);
        PyErr_SetString(PyExc_ValueError, "a point is two numbers (x, y)");
        return 0;
    }
    memcpy(out, PyArray_DATA((PyArrayObject*)a), sizeof(crowd_vec2));
    Py_DECREF(a);
    return 1;
}

// A (n, 2) float32 C-contiguous array of points from anything array-like; a new reference.
static PyArrayObject* points_array(PyObject* o) {
    PyArrayObject* a = (PyArrayObject*)PyArray_FROMANY(o, NPY_FLOAT32, 2, 2,
                                                       NPY_ARRAY_IN_ARRAY | NPY_ARRAY_FORCECAST);
    if (!a) return NULL;
    if (PyArray_DIM(a, 1) != 2) {
        Py_DECREF(a);
        PyErr_SetString(PyExc_ValueError, "points are an array of shape (n, 2)");
        return NULL;
    }
    if (PyArray_DIM(a, 0) > INT32_MAX) {
        Py_DECREF(a);
        raise_status(CROWD_ERR_BAD_COUNT, "too many points");
        return NULL;
    }
    return a;
}

static PyObject* vec2_tuple(crowd_vec2 v) {
    return Py_BuildValue("(dd)", (double)v.x, (double)v.y);
}

static PyObject* points_out(const crowd_vec2* p, int n) {
    npy_intp dims[2] = {n, 2};
    PyObject* a = PyArray_SimpleNew(2, dims, NPY_FLOAT32);
    if (a && n) memcpy(PyArray_DATA((PyArrayObject*)a), p, sizeof *p * (size_t)n);
    return a;
}

// ---- allocation hooks that never free under a view --------------------------------------------

typedef struct deferred {
    void* p;
    struct deferred* next;
} deferred;

typedef struct heap {
    pthread_mutex_t mu;
    long leases;       // numpy arrays viewing this world's memory
    deferred* pending; // blocks freed while leases > 0
} heap;

static void* heap_alloc(size_t size, size_t align, void* user) {
    (void)user;
    if (align < sizeof(void*)) align = sizeof(void*);
    size_t n = (size + align - 1) / align * align;
    return aligned_alloc(align, n ? n : align);
}

static void heap_free(void* p, size_t size, void* user) {
    (void)size;
    if (!p) return;
    heap* h = user;
    pthread_mutex_lock(&h->mu);
    if (h->leases > 0) {
        deferred* d = malloc(sizeof *d);
        // Without memory for the note the block is kept for good: a view may still read it.
        if (d) *d = (deferred){p, h->pending}, h->pending = d;
        pthread_mutex_unlock(&h->mu);
        return;
    }
    pthread_mutex_unlock(&h->mu);
    free(p);
}

static void heap_release(heap* h) {
    pthread_mutex_lock(&h->mu);
    deferred* d = --h->leases == 0 ? h->pending : NULL;
    if (d) h->pending = NULL;
    pthread_mutex_unlock(&h->mu);
    while (d) {
        deferred* next = d->next;
        free(d->p);
        free(d);
        d = next;
    }
}

// ---- the world ----------------------------------------------------------------------------------

typedef struct world_object {
    PyObject_HEAD crowd_world* w;
    PyThread_type_lock lock;
    heap hp;
    uint64_t changes;   // every call that may change the world adds one (the views' validity)
    PyObject* scenario; // dict for worlds from load_scenario, else None
    PyObject* weakrefs;
} world_object;

static PyTypeObject world_type;

// The lock of the world, taken without the GIL when another thread holds it.
static void world_lock(world_object* self) {
    if (!PyThread_acquire_lock(self->lock, NOWAIT_LOCK)) {
        Py_BEGIN_ALLOW_THREADS PyThread_acquire_lock(self->lock, WAIT_LOCK);
        Py_END_ALLOW_THREADS
    }
}

// Takes the lock of an open world; false with ClosedError raised when it is closed.
static bool enter(world_object* self) {
    world_lock(self);
    if (!self->w) {
        PyThread_release_lock(self->lock);
        PyErr_SetString(closed_error, "the world is closed");
        return false;
    }
    return true;
}

static void leave(world_object* self) {
    PyThread_release_lock(self->lock);
}

// Enters a call that changes the world.
static bool enter_change(world_object* self) {
    if (!enter(self)) return false;
    self->changes++;
    return true;
}

static PyObject* world_new(PyTypeObject* type, PyObject* args, PyObject* kw) {
    (void)args;
    (void)kw;
    world_object* self = (world_object*)type->tp_alloc(type, 0);
    if (!self) return NULL;
    self->lock = PyThread_allocate_lock();
    if (!self->lock) {
        Py_DECREF(self);
        return PyErr_NoMemory();
    }
    pthread_mutex_init(&self->hp.mu, NULL);
    self->scenario = Py_NewRef(Py_None);
    return (PyObject*)self;
}

static int world_init(world_object* self, PyObject* args, PyObject* kw) {
    static char* names[] = {
        "threads",   "dt",  "cell_size",     "capacity",      "max_agents", "max_neighbors", "seed",
        "world_tag", "nav", "nav_cell_size", "nav_clearance", "nav_budget", "nav_max_cells", NULL};
    crowd_world_def d = crowd_world_def_default();
    int nav = d.nav.enable;
    unsigned long long seed = d.seed, budget = d.nav.budget;
    long long max_cells = d.nav.max_cells;
    unsigned short tag = d.world_tag;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|$iffiiiKHpffKL", names, &d.threads, &d.dt,
                                     &d.cell_size, &d.capacity, &d.max_agents, &d.max_neighbors,
                                     &seed, &tag, &nav, &d.nav.cell_size, &d.nav.clearance, &budget,
                                     &max_cells))
        return -1;
    if (self->w) {
        PyErr_SetString(PyExc_RuntimeError, "World.__init__ called twice");
        return -1;
    }
    d.seed = seed;
    d.world_tag = tag;
    d.nav.enable = nav;
    d.nav.budget = (size_t)budget;
    d.nav.max_cells = max_cells;
    d.alloc = heap_alloc;
    d.free = heap_free;
    d.alloc_user = &self->hp;
    crowd_status st = crowd_world_create(&d, &self->w);
    if (st != CROWD_OK) {
        raise_status(st, "World()");
        return -1;
    }
    return 0;
}

static void world_close_now(world_object* self) {
    if (self->w) crowd_world_destroy(self->w); // through heap_free: deferred under views
    self->w = NULL;
    self->changes++;
}

static void world_dealloc(world_object* self) {
    if (self->weakrefs) PyObject_ClearWeakRefs((PyObject*)self);
    world_close_now(self);
    // No lease is out (each holds a reference): everything deferred can go.
    for (deferred* d = self->hp.pending; d;) {
        deferred* next = d->next;
        free(d->p);
        free(d);
        d = next;
    }
    pthread_mutex_destroy(&self->hp.mu);
    if (self->lock) PyThread_free_lock(self->lock);
    Py_XDECREF(self->scenario);
    Py_TYPE(self)->tp_free((PyObject*)self);
}

static PyObject* world_close(world_object* self, PyObject* unused) {
    (void)unused;
    world_lock(self);
    world_close_now(self);
    leave(self);
    Py_RETURN_NONE;
}

static PyObject* world_get_closed(world_object* self, void* c) {
    (void)c;
    return PyBool_FromLong(self->w == NULL);
}

#define SIMPLE_GETTER(name, expr, build)                                                           \
    static PyObject* world_get_##name(world_object* self, void* c) {                               \
        (void)c;                                                                                   \
        if (!enter(self)) return NULL;                                                             \
        PyObject* r = build(expr);                                                                 \
        leave(self);                                                                               \
        return r;                                                                                  \
    }
SIMPLE_GETTER(count, crowd_world_agent_count(self->w), PyLong_FromLong)
SIMPLE_GETTER(tick, crowd_world_tick(self->w), PyLong_FromUnsignedLongLong)
SIMPLE_GETTER(dt, (double)crowd_world_get_dt(self->w), PyFloat_FromDouble)
SIMPLE_GETTER(threads, crowd_world_get_threads(self->w), PyLong_FromLong)
SIMPLE_GETTER(max_neighbors, crowd_world_get_max_neighbors(self->w), PyLong_FromLong)
SIMPLE_GETTER(obstacle_count, crowd_world_obstacle_count(self->w), PyLong_FromLong)
SIMPLE_GETTER(path_count, crowd_world_path_count(self->w), PyLong_FromLong)

static PyObject* world_get_scenario(world_object* self, void* c) {
    (void)c;
    return Py_NewRef(self->scenario);
}

static int set_int(world_object* self, PyObject* v, crowd_status (*fn)(crowd_world*, int)) {
    if (!v) {
        PyErr_SetString(PyExc_AttributeError, "cannot delete");
        return -1;
    }
    const long n = PyLong_AsLong(v);
    if (n == -1 && PyErr_Occurred()) return -1;
    if (!enter_change(self)) return -1;
    const crowd_status st =
        n < INT32_MIN || n > INT32_MAX ? CROWD_ERR_BAD_COUNT : fn(self->w, (int)n);
    leave(self);
    if (st != CROWD_OK) return raise_status(st, NULL), -1;
    return 0;
}

static int world_set_threads(world_object* self, PyObject* v, void* c) {
    (void)c;
    return set_int(self, v, crowd_world_set_threads);
}

static int world_set_max_neighbors(world_object* self, PyObject* v, void* c) {
    (void)c;
    return set_int(self, v, crowd_world_set_max_neighbors);
}

static PyObject* world_step(world_object* self, PyObject* args, PyObject* kw) {
    static char* names[] = {"ticks", NULL};
    long long ticks = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|L", names, &ticks)) return NULL;
    if (ticks < 0) return raise_status(CROWD_ERR_BAD_COUNT, "ticks < 0");
    if (!enter_change(self)) return NULL;
    crowd_status st = CROWD_OK;
    long long done = 0;
    Py_BEGIN_ALLOW_THREADS for (; done < ticks && st == CROWD_OK; ++done) st =
        crowd_world_step(self->w);
    Py_END_ALLOW_THREADS leave(self);
    if (st != CROWD_OK) return raise_at(st, "step of tick", (Py_ssize_t)done - 1);
    Py_RETURN_NONE;
}

static PyObject* world_state_hash(world_object* self, PyObject* unused) {
    (void)unused;
    if (!enter(self)) return NULL;
    const uint64_t h = crowd_world_state_hash(self->w);
    leave(self);
    return PyLong_FromUnsignedLongLong(h);
}

static PyObject* world_reserve(world_object* self, PyObject* args) {
    int n;
    if (!PyArg_ParseTuple(args, "i", &n)) return NULL;
    if (!enter_change(self)) return NULL;
    const crowd_status st = crowd_world_reserve(self->w, n);
    leave(self);
    if (st != CROWD_OK) return raise_status(st, "reserve");
    Py_RETURN_NONE;
}

// ---- agents -------------------------------------------------------------------------------------

// A float32 C-contiguous array of exactly `n` rows of `cols` (1 or 2) values, or NULL for None
// when optional. Sets *out to a new reference (or NULL).
static bool column_arg(PyObject* o, const char* name, npy_intp n, int cols, int type,
                       PyArrayObject** out) {
    *out = NULL;
    if (o == Py_None) return true;
    PyArrayObject* a = (PyArrayObject*)PyArray_FROMANY(
        o, type, cols == 1 ? 1 : 2, cols == 1 ? 1 : 2, NPY_ARRAY_IN_ARRAY | NPY_ARRAY_FORCECAST);
    if (!a) return false;
    if (PyArray_DIM(a, 0) != n || (cols == 2 && PyArray_DIM(a, 1) != 2)) {
        PyErr_Format(PyExc_ValueError, "%s must have %zd rows%s", name, (Py_ssize_t)n,
                     cols == 2 ? " of 2 values" : "");
        Py_DECREF(a);
        return false;
    }
    *out = a;
    return true;
}

#define F32(a, k) (((const float*)PyArray_DATA(a))[k])
#define V2(a, k) (((const crowd_vec2*)PyArray_DATA(a))[k])

typedef struct add_batch {
    PyArrayObject *pos, *vel, *head, *radius, *max_speed, *max_force, *sep_radius, *sep_weight;
    PyArrayObject *goals, *slow_radius, *goal_weight, *wall_weight, *wall_look, *user_data;
    int mode, route, form;
    crowd_exits_id exits;
} add_batch;

static crowd_agent_def batch_def(const add_batch* b, npy_intp k) {
    crowd_agent_def d = crowd_agent_def_default();
    d.position = V2(b->pos, k);
    if (b->vel) d.velocity = V2(b->vel, k);
    if (b->head) d.heading = V2(b->head, k);
    if (b->radius) d.radius = F32(b->radius, k);
    if (b->max_speed) d.max_speed = F32(b->max_speed, k);
    if (b->max_force) d.max_force = F32(b->max_force, k);
    if (b->sep_radius) d.separation_radius = F32(b->sep_radius, k);
    if (b->sep_weight) d.separation_weight = F32(b->sep_weight, k);
    if (b->wall_weight) d.walls.weight = F32(b->wall_weight, k);
    if (b->wall_look) d.walls.look_ahead = F32(b->wall_look, k);
    if (b->user_data) d.user_data = ((const uint64_t*)PyArray_DATA(b->user_data))[k];
    if (b->goals || !crowd_exits_id_is_null(b->exits)) {
        d.goal.mode = (crowd_goal_mode)b->mode;
        if (b->goals) d.goal.target = V2(b->goals, k);
        d.goal.route = (crowd_route)b->route;
        d.goal.form = (crowd_goal_form)b->form;
        d.goal.exits = b->exits;
        if (b->slow_radius) d.goal.slow_radius = F32(b->slow_radius, k);
        if (b->goal_weight) d.goal.weight = F32(b->goal_weight, k);
    }
    return d;
}

static PyObject* world_add_agents(world_object* self, PyObject* args, PyObject* kw) {
    static char* names[] = {"positions",
                            "goals",
                            "velocities",
                            "headings",
                            "radius",
                            "max_speed",
                            "max_force",
                            "separation_radius",
                            "separation_weight",
                            "slow_radius",
                            "goal_weight",
                            "wall_weight",
                            "wall_look_ahead",
                            "user_data",
                            "mode",
                            "route",
                            "exits",
                            "form",
                            NULL};
    PyObject* o[14] = {0};
    for (int k = 1; k < 14; ++k) o[k] = Py_None;
    add_batch b = {
        .mode = CROWD_GOAL_ARRIVE, .route = CROWD_ROUTE_FIELD, .form = crowd_goal_default().form};
    uint64_t exits = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|OOOOOOOOOOOOO$O&O&O&O&", names, &o[0], &o[1],
                                     &o[2], &o[3], &o[4], &o[5], &o[6], &o[7], &o[8], &o[9], &o[10],
                                     &o[11], &o[12], &o[13], conv_goal_modes, &b.mode, conv_routes,
                                     &b.route, conv_handle, &exits, conv_goal_forms, &b.form))
        return NULL;
    b.exits = UNPACK_AS(crowd_exits_id, exits);
    PyArrayObject* pos = points_array(o[0]);
    if (!pos) return NULL;
    b.pos = pos;
    const npy_intp n = PyArray_DIM(pos, 0);
    PyArrayObject** f[13] = {&b.goals,       &b.vel,         &b.head,        &b.radius,
                             &b.max_speed,   &b.max_force,   &b.sep_radius,  &b.sep_weight,
                             &b.slow_radius, &b.goal_weight, &b.wall_weight, &b.wall_look,
                             &b.user_data};
    bool ok = true;
    for (int k = 0; k < 13 && ok; ++k)
        ok = column_arg(o[k + 1], names[k + 1], n, k < 3 ? 2 : 1,
                        k == 12 ? NPY_UINT64 : NPY_FLOAT32, f[k]);
    npy_intp dims[1] = {n};
    PyArrayObject* ids = ok ? (PyArrayObject*)PyArray_SimpleNew(1, dims, NPY_UINT64) : NULL;
    PyObject* result = NULL;
    if (ids && n > INT32_MAX - 1) {
        raise_status(CROWD_ERR_CAPACITY, "too many agents");
    } else if (ids && enter(self)) {
        crowd_world* w = self->w;
        uint64_t* out = PyArray_DATA(ids);
        crowd_status st = CROWD_OK;
        npy_intp bad = -1;
        // Nothing changes unless every agent passes: the add's checks first, then the room.
        Py_BEGIN_ALLOW_THREADS if (!crowd_exits_id_is_null(b.exits)) st =
            crowd_exits_validate(w, b.exits);
        for (npy_intp k = 0; k < n && st == CROWD_OK; ++k) {
            const crowd_agent_def d = batch_def(&b, k);
            st = crowd_agent_check(w, &d, (int)k);
            if (st != CROWD_OK) bad = k;
        }
        Py_END_ALLOW_THREADS if (st == CROWD_OK && n > 0) {
            self->changes++;
            st = crowd_world_reserve(w, crowd_world_agent_count(w) + (int)n);
        }
        if (st == CROWD_OK && n > 0) {
            Py_BEGIN_ALLOW_THREADS for (npy_intp k = 0; k < n && st == CROWD_OK; ++k) {
                const crowd_agent_def d = batch_def(&b, k);
                crowd_agent_id id;
                st = crowd_agent_add(w, &d, &id);
                if (st == CROWD_OK)
                    out[k] = pack(&id);
                else
                    bad = k;
            }
            // What the checks cannot foresee (the navigation budget): the agents added go again.
            if (st != CROWD_OK)
                for (npy_intp k = bad - 1; k >= 0; --k) crowd_agent_remove(w, unpack(out[k]));
            Py_END_ALLOW_THREADS
        }
        leave(self);
        if (st != CROWD_OK && bad >= 0)
            raise_at(st, "agent", bad);
        else if (st != CROWD_OK)
            raise_status(st, "exits");
        else
            result = Py_NewRef((PyObject*)ids);
    }
    Py_DECREF(pos);
    for (int k = 0; k < 13; ++k) Py_XDECREF(*f[k]);
    Py_XDECREF(ids);
    return result;
}

// A uint64 array of handles from anything array-like (a single int is one handle).
static PyArrayObject* ids_array(PyObject* o) {
    return (PyArrayObject*)PyArray_FROMANY(o, NPY_UINT64, 0, 1,
                                           NPY_ARRAY_IN_ARRAY | NPY_ARRAY_FORCECAST);
}

static int cmp_u64(const void* a, const void* b) {
    const uint64_t x = *(const uint64_t*)a, y = *(const uint64_t*)b;
    return (x > y) - (x < y);
}

static PyObject* world_remove_agents(world_object* self, PyObject* args) {
    PyObject* o;
    if (!PyArg_ParseTuple(args, "O", &o)) return NULL;
    PyArrayObject* ids = ids_array(o);
    if (!ids) return NULL;
    const npy_intp n = PyArray_SIZE(ids);
    const uint64_t* v = PyArray_DATA(ids);
    PyObject* r = NULL;
    if (enter(self)) {
        crowd_status st = CROWD_OK;
        npy_intp k = 0;
        for (; k < n && st == CROWD_OK; ++k) st = crowd_agent_validate(self->w, unpack(v[k]));
        // A handle twice: its second removal would fail after the first.
        for (npy_intp j = 1; j < n && st == CROWD_OK; ++j)
            if (v[j] == v[j - 1]) st = CROWD_ERR_STALE_HANDLE, k = j + 1;
        if (st == CROWD_OK && n > 1) {
            // Sorted copy for the duplicate check beyond neighbors.
            uint64_t* s = malloc(sizeof *s * (size_t)n);
            if (!s)
                st = CROWD_ERR_OUT_OF_MEMORY;
            else {
                memcpy(s, v, sizeof *s * (size_t)n);
                qsort(s, (size_t)n, sizeof *s, cmp_u64);
                for (npy_intp j = 1; j < n && st == CROWD_OK; ++j)
                    if (s[j] == s[j - 1]) st = CROWD_ERR_STALE_HANDLE, k = 0;
                free(s);
            }
        }
        if (st == CROWD_OK) {
            self->changes++;
            for (npy_intp j = 0; j < n; ++j) crowd_agent_remove(self->w, unpack(v[j]));
        }
        leave(self);
        if (st != CROWD_OK)
            k > 0 ? raise_at(st, "id", k - 1) : raise_status(st, "the same id twice");
        else
            r = Py_NewRef(Py_None);
    }
    Py_DECREF(ids);
    return r;
}

// positions(ids), velocities(ids), headings(ids): gathered by handle into a new (n, 2) array.
static PyObject* gather(world_object* self, PyObject* args,
                        crowd_status (*get)(const crowd_world*, crowd_agent_id, crowd_vec2*)) {
    PyObject* o;
    if (!PyArg_ParseTuple(args, "O", &o)) return NULL;
    PyArrayObject* ids = ids_array(o);
    if (!ids) return NULL;
    const npy_intp n = PyArray_SIZE(ids);
    const uint64_t* v = PyArray_DATA(ids);
    npy_intp dims[2] = {n, 2};
    PyArrayObject* out = (PyArrayObject*)PyArray_SimpleNew(2, dims, NPY_FLOAT32);
    if (out && enter(self)) {
        crowd_vec2* p = PyArray_DATA(out);
        crowd_status st = CROWD_OK;
        npy_intp k = 0;
        for (; k < n && st == CROWD_OK; ++k) st = get(self->w, unpack(v[k]), &p[k]);
        leave(self);
        if (st != CROWD_OK) {
            Py_CLEAR(out);
            raise_at(st, "id", k - 1);
        }
    } else {
        Py_CLEAR(out);
    }
    Py_DECREF(ids);
    return (PyObject*)out;
}

static PyObject* world_positions(world_object* self, PyObject* args) {
    return gather(self, args, crowd_agent_get_position);
}
static PyObject* world_velocities(world_object* self, PyObject* args) {
    return gather(self, args, crowd_agent_get_velocity);
}
static PyObject* world_headings(world_object* self, PyObject* args) {
    return gather(self, args, crowd_agent_get_heading);
}

static PyObject* world_agents(world_object* self, PyObject* unused) {
    (void)unused;
    if (!enter(self)) return NULL;
    npy_intp dims[1] = {crowd_world_agent_count(self->w)};
    PyArrayObject* ids = (PyArrayObject*)PyArray_SimpleNew(1, dims, NPY_UINT64);
    crowd_agent_id* tmp = ids ? malloc(sizeof *tmp * (size_t)(dims[0] ? dims[0] : 1)) : NULL;
    if (ids && !tmp) PyErr_NoMemory();
    if (tmp) {
        int count;
        crowd_world_get_agents(self->w, tmp, NULL, NULL, (int)dims[0], &count);
        uint64_t* out = PyArray_DATA(ids);
        for (int k = 0; k < count; ++k) out[k] = pack(&tmp[k]);
        free(tmp);
    } else {
        Py_CLEAR(ids);
    }
    leave(self);
    return (PyObject*)ids;
}

static PyObject* world_contains(world_object* self, PyObject* args) {
    uint64_t id;
    if (!PyArg_ParseTuple(args, "O&", conv_handle, &id)) return NULL;
    if (!enter(self)) return NULL;
    const crowd_status st = crowd_agent_validate(self->w, unpack(id));
    leave(self);
    return PyBool_FromLong(st == CROWD_OK);
}

// One call on one agent with a vec2 argument.
static PyObject* agent_vec2(world_object* self, PyObject* args,
                            crowd_status (*fn)(crowd_world*, crowd_agent_id, crowd_vec2),
                            const char* what) {
    uint64_t id;
    crowd_vec2 v;
    if (!PyArg_ParseTuple(args, "O&O&", conv_handle, &id, conv_vec2, &v)) return NULL;
    if (!enter_change(self)) return NULL;
    const crowd_status st = fn(self->w, unpack(id), v);
    leave(self);
    if (st != CROWD_OK) return raise_status(st, what);
    Py_RETURN_NONE;
}

static PyObject* world_set_position(world_object* self, PyObject* args) {
    return agent_vec2(self, args, crowd_agent_set_position, "set_position");
}
static PyObject* world_set_velocity(world_object* self, PyObject* args) {
    return agent_vec2(self, args, crowd_agent_set_velocity, "set_velocity");
}

static PyObject* world_set_limits(world_object* self, PyObject* args, PyObject* kw) {
    static char* names[] = {"id", "max_speed", "max_force", NULL};
    uint64_t id;
    float s, f;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&ff", names, conv_handle, &id, &s, &f))
        return NULL;
    if (!enter_change(self)) return NULL;
    const crowd_status st = crowd_agent_set_limits(self->w, unpack(id), s, f);
    leave(self);
    if (st != CROWD_OK) return raise_status(st, "set_limits");
    Py_RETURN_NONE;
}

static PyObject* world_set_radius(world_object* self, PyObject* args) {
    uint64_t id;
    float r;
    if (!PyArg_ParseTuple(args, "O&f", conv_handle, &id, &r)) return NULL;
    if (!enter_change(self)) return NULL;
    const crowd_status st = crowd_agent_set_radius(self->w, unpack(id), r);
    leave(self);
    if (st != CROWD_OK) return raise_status(st, "set_radius");
    Py_RETURN_NONE;
}

static PyObject* world_set_separation(world_object* self, PyObject* args, PyObject* kw) {
    static char* names[] = {"id", "radius", "weight", NULL};
    uint64_t id;
    float r, wt;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&ff", names, conv_handle, &id, &r, &wt))
        return NULL;
    if (!enter_change(self)) return NULL;
    const crowd_status st = crowd_agent_set_separation(self->w, unpack(id), r, wt);
    leave(self);
    if (st != CROWD_OK) return raise_status(st, "set_separation");
    Py_RETURN_NONE;
}

static PyObject* world_set_goal(world_object* self, PyObject* args, PyObject* kw) {
    static char* names[] = {"id",    "target", "mode", "slow_radius", "weight",
                            "route", "exits",  "form", NULL};
    uint64_t id, exits = 0;
    PyObject* target = Py_None;
    crowd_goal g = crowd_goal_default();
    int mode = CROWD_GOAL_ARRIVE, route = g.route, form = g.form;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&|O$O&ffO&O&O&", names, conv_handle, &id, &target,
                                     conv_goal_modes, &mode, &g.slow_radius, &g.weight, conv_routes,
                                     &route, conv_handle, &exits, conv_goal_forms, &form))
        return NULL;
    g.form = (crowd_goal_form)form;
    if (target == Py_None && !exits)
        mode = CROWD_GOAL_NONE;
    else if (target != Py_None && !conv_vec2(target, &g.target))
        return NULL;
    g.mode = (crowd_goal_mode)mode;
    g.route = (crowd_route)route;
    g.exits = UNPACK_AS(crowd_exits_id, exits);
    if (!enter_change(self)) return NULL;
    const crowd_status st = crowd_agent_set_goal(self->w, unpack(id), &g);
    leave(self);
    if (st != CROWD_OK) return raise_status(st, "set_goal");
    Py_RETURN_NONE;
}

static PyObject* world_agent(world_object* self, PyObject* args) {
    uint64_t id;
    if (!PyArg_ParseTuple(args, "O&", conv_handle, &id)) return NULL;
    if (!enter(self)) return NULL;
    crowd_agent_def d;
    const crowd_status st = crowd_agent_get_def(self->w, unpack(id), &d);
    leave(self);
    if (st != CROWD_OK) return raise_status(st, "agent");
    PyObject* goal = Py_BuildValue(
        "{s:N,s:N,s:d,s:d,s:N,s:K,s:N}", "mode", enum_name(&goal_modes, d.goal.mode), "target",
        vec2_tuple(d.goal.target), "slow_radius", (double)d.goal.slow_radius, "weight",
        (double)d.goal.weight, "route", enum_name(&routes, d.goal.route), "exits",
        (unsigned long long)pack(&d.goal.exits), "form", enum_name(&goal_forms, d.goal.form));
    if (!goal) return NULL;
    return Py_BuildValue("{s:N,s:N,s:N,s:d,s:d,s:d,s:d,s:d,s:N,s:d,s:d,s:K}", "position",
                         vec2_tuple(d.position), "velocity", vec2_tuple(d.velocity), "heading",
                         vec2_tuple(d.heading), "radius", (double)d.radius, "max_speed",
                         (double)d.max_speed, "max_force", (double)d.max_force, "separation_radius",
                         (double)d.separation_radius, "separation_weight",
                         (double)d.separation_weight, "goal", goal, "wall_weight",
                         (double)d.walls.weight, "wall_look_ahead", (double)d.walls.look_ahead,
                         "user_data", (unsigned long long)d.user_data);
}

static PyObject* world_set_walls(world_object* self, PyObject* args, PyObject* kw) {
    static char* names[] = {"id", "weight", "look_ahead", NULL};
    uint64_t id;
    crowd_wall_def d = crowd_wall_def_default();
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&|ff", names, conv_handle, &id, &d.weight,
                                     &d.look_ahead))
        return NULL;
    if (!enter_change(self)) return NULL;
    const crowd_status st = crowd_agent_set_walls(self->w, unpack(id), &d);
    leave(self);
    if (st != CROWD_OK) return raise_status(st, "set_walls");
    Py_RETURN_NONE;
}

static PyObject* world_route(world_object* self, PyObject* args) {
    uint64_t id;
    if (!PyArg_ParseTuple(args, "O&", conv_handle, &id)) return NULL;
    if (!enter(self)) return NULL;
    crowd_route_info r;
    const crowd_status st = crowd_agent_get_route(self->w, unpack(id), &r);
    leave(self);
    if (st != CROWD_OK) return raise_status(st, "route");
    return Py_BuildValue("{s:N,s:N,s:N,s:d}", "state", enum_name(&route_states, r.state),
                         "destination", vec2_tuple(r.destination), "aim", vec2_tuple(r.aim),
                         "distance", (double)r.distance);
}

static PyObject* world_nav_update(world_object* self, PyObject* unused) {
    (void)unused;
    if (!enter_change(self)) return NULL;
    crowd_status st;
    Py_BEGIN_ALLOW_THREADS st = crowd_world_nav_update(self->w);
    Py_END_ALLOW_THREADS leave(self);
    if (st != CROWD_OK) return raise_status(st, "nav_update");
    Py_RETURN_NONE;
}

static PyObject* world_nav_stats(world_object* self, PyObject* unused) {
    (void)unused;
    if (!enter(self)) return NULL;
    const crowd_nav_stats s = crowd_world_nav_stats(self->w);
    leave(self);
    return Py_BuildValue("{s:i,s:i,s:N,s:d,s:L,s:i,s:i,s:n,s:K,s:d,s:d,s:O}", "grid_w", s.grid_w,
                         "grid_h", s.grid_h, "grid_origin", vec2_tuple(s.grid_origin), "cell_size",
                         (double)s.cell_size, "blocked_cells", (long long)s.blocked_cells, "fields",
                         s.fields, "fields_in_use", s.fields_in_use, "field_bytes",
                         (Py_ssize_t)s.field_bytes, "builds", (unsigned long long)s.builds,
                         "last_build_ms", s.last_build_ms, "last_grid_ms", s.last_grid_ms,
                         "suspended", s.suspended ? Py_True : Py_False);
}

static PyObject* world_profile(world_object* self, PyObject* unused) {
    (void)unused;
    if (!enter(self)) return NULL;
    const crowd_profile p = crowd_world_get_profile(self->w);
    leave(self);
    PyObject* phases = PyDict_New();
    for (int k = 0; phases && k < CROWD_PHASE_COUNT; ++k) {
        PyObject* v = PyFloat_FromDouble(p.phase_ms[k]);
        if (!v || PyDict_SetItemString(phases, crowd_phase_name((crowd_phase)k), v) < 0)
            Py_CLEAR(phases);
        Py_XDECREF(v);
    }
    if (!phases) return NULL;
    return Py_BuildValue("{s:N,s:d,s:K,s:i,s:i}", "phase_ms", phases, "step_ms", p.step_ms,
                         "candidates", (unsigned long long)p.candidates, "agents", p.agents,
                         "threads", p.threads);
}

// ---- obstacles, paths, exit sets ----------------------------------------------------------------

static PyObject* world_add_obstacle(world_object* self, PyObject* args, PyObject* kw) {
    static char* names[] = {"points", "kind", NULL};
    PyObject* o;
    int kind = CROWD_OBSTACLE_POLYGON;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O&", names, &o, conv_obstacle_kinds, &kind))
        return NULL;
    PyArrayObject* p = points_array(o);
    if (!p) return NULL;
    PyObject* r = NULL;
    if (enter_change(self)) {
        crowd_obstacle_id id;
        const crowd_status st = crowd_obstacle_add(self->w, (crowd_obstacle_kind)kind,
                                                   PyArray_DATA(p), (int)PyArray_DIM(p, 0), &id);
        leave(self);
        r = st == CROWD_OK ? PyLong_FromUnsignedLongLong(pack(&id))
                           : raise_status(st, "add_obstacle");
    }
    Py_DECREF(p);
    return r;
}

static PyObject* world_remove_obstacle(world_object* self, PyObject* args) {
    uint64_t id;
    if (!PyArg_ParseTuple(args, "O&", conv_handle, &id)) return NULL;
    if (!enter_change(self)) return NULL;
    const crowd_status st = crowd_obstacle_remove(self->w, UNPACK_AS(crowd_obstacle_id, id));
    leave(self);
    if (st != CROWD_OK) return raise_status(st, "remove_obstacle");
    Py_RETURN_NONE;
}

// The points of an obstacle, a path or an exit set: a size query, then the copy.
#define POINTS_GETTER(fname, type, fn)                                                             \
    static PyObject* world_##fname(world_object* self, PyObject* args) {                           \
        uint64_t id;                                                                               \
        if (!PyArg_ParseTuple(args, "O&", conv_handle, &id)) return NULL;                          \
        if (!enter(self)) return NULL;                                                             \
        int n = 0;                                                                                 \
        crowd_status st = fn(self->w, UNPACK_AS(type, id), NULL, 0, &n);                           \
        crowd_vec2* p = NULL;                                                                      \
        if (st == CROWD_ERR_BUFFER_TOO_SMALL || st == CROWD_OK) {                                  \
            p = malloc(sizeof *p * (size_t)(n > 0 ? n : 1));                                       \
            st = p ? fn(self->w, UNPACK_AS(type, id), p, n, &n) : CROWD_ERR_OUT_OF_MEMORY;         \
        }                                                                                          \
        leave(self);                                                                               \
        PyObject* r = st == CROWD_OK ? points_out(p, n) : raise_status(st, #fname);                \
        free(p);                                                                                   \
        return r;                                                                                  \
    }
static crowd_status obstacle_points(const crowd_world* w, crowd_obstacle_id id, crowd_vec2* p,
                                    int capacity, int* count) {
    return crowd_obstacle_get_points(w, id, NULL, p, capacity, count);
}
POINTS_GETTER(obstacle_points, crowd_obstacle_id, obstacle_points)
POINTS_GETTER(path_points, crowd_path_id, crowd_path_get_points)
POINTS_GETTER(exits_points, crowd_exits_id, crowd_exits_get_points)

static PyObject* world_obstacles(world_object* self, PyObject* unused) {
    (void)unused;
    if (!enter(self)) return NULL;
    int n = crowd_world_obstacle_count(self->w);
    crowd_obstacle_id* ids = malloc(sizeof *ids * (size_t)(n > 0 ? n : 1));
    crowd_status st =
        ids ? crowd_world_get_obstacles(self->w, ids, n, &n) : CROWD_ERR_OUT_OF_MEMORY;
    leave(self);
    PyObject* r = st == CROWD_OK ? PyList_New(n) : raise_status(st, "obstacles");
    for (int k = 0; r && k < n; ++k) {
        PyObject* v = PyLong_FromUnsignedLongLong(pack(&ids[k]));
        if (!v)
            Py_CLEAR(r);
        else
            PyList_SET_ITEM(r, k, v);
    }
    free(ids);
    return r;
}

// create_path(points), create_exits(points): a new handle.
#define CREATOR(fname, type, fn)                                                                   \
    static PyObject* world_##fname(world_object* self, PyObject* args) {                           \
        PyObject* o;                                                                               \
        if (!PyArg_ParseTuple(args, "O", &o)) return NULL;                                         \
        PyArrayObject* p = points_array(o);                                                        \
        if (!p) return NULL;                                                                       \
        PyObject* r = NULL;                                                                        \
        if (enter_change(self)) {                                                                  \
            type id;                                                                               \
            const crowd_status st = fn(self->w, PyArray_DATA(p), (int)PyArray_DIM(p, 0), &id);     \
            leave(self);                                                                           \
            r = st == CROWD_OK ? PyLong_FromUnsignedLongLong(pack(&id))                            \
                               : raise_status(st, #fname);                                         \
        }                                                                                          \
        Py_DECREF(p);                                                                              \
        return r;                                                                                  \
    }
CREATOR(create_path, crowd_path_id, crowd_path_create)
CREATOR(create_exits, crowd_exits_id, crowd_exits_create)

#define DESTROYER(fname, type, fn)                                                                 \
    static PyObject* world_##fname(world_object* self, PyObject* args) {                           \
        uint64_t id;                                                                               \
        if (!PyArg_ParseTuple(args, "O&", conv_handle, &id)) return NULL;                          \
        if (!enter_change(self)) return NULL;                                                      \
        const crowd_status st = fn(self->w, UNPACK_AS(type, id));                                  \
        leave(self);                                                                               \
        if (st != CROWD_OK) return raise_status(st, #fname);                                       \
        Py_RETURN_NONE;                                                                            \
    }
DESTROYER(destroy_path, crowd_path_id, crowd_path_destroy)
DESTROYER(destroy_exits, crowd_exits_id, crowd_exits_destroy)
DESTROYER(clear_path, crowd_agent_id, crowd_agent_clear_path)
DESTROYER(clear_queue, crowd_agent_id, crowd_agent_clear_queue)
DESTROYER(unfollow, crowd_agent_id, crowd_agent_unfollow)

static PyObject* world_replace_path(world_object* self, PyObject* args) {
    uint64_t id;
    PyObject* o;
    if (!PyArg_ParseTuple(args, "O&O", conv_handle, &id, &o)) return NULL;
    PyArrayObject* p = points_array(o);
    if (!p) return NULL;
    PyObject* r = NULL;
    if (enter_change(self)) {
        const crowd_status st = crowd_path_replace(self->w, UNPACK_AS(crowd_path_id, id),
                                                   PyArray_DATA(p), (int)PyArray_DIM(p, 0));
        leave(self);
        r = st == CROWD_OK ? Py_NewRef(Py_None) : raise_status(st, "replace_path");
    }
    Py_DECREF(p);
    return r;
}

static PyObject* world_set_path(world_object* self, PyObject* args, PyObject* kw) {
    static char* names[] = {
        "id",          "path",        "kind",          "mode",   "arrive_radius",
        "slow_radius", "tube_radius", "predict_ahead", "weight", "start_index",
        "reverse",     "form",        "route",         NULL};
    uint64_t id, path;
    crowd_path_follow_def d = crowd_path_follow_def_default();
    int kind = d.kind, mode = d.mode, form = d.form, route = d.route, reverse = d.reverse;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&|$O&O&fffffipO&O&", names, conv_handle, &id,
                                     conv_handle, &path, conv_path_kinds, &kind, conv_path_modes,
                                     &mode, &d.arrive_radius, &d.slow_radius, &d.tube_radius,
                                     &d.predict_ahead, &d.weight, &d.start_index, &reverse,
                                     conv_path_forms, &form, conv_routes, &route))
        return NULL;
    d.path = UNPACK_AS(crowd_path_id, path);
    d.kind = (crowd_path_kind)kind;
    d.mode = (crowd_path_mode)mode;
    d.form = (crowd_path_form)form;
    d.route = (crowd_route)route;
    d.reverse = reverse;
    if (!enter_change(self)) return NULL;
    const crowd_status st = crowd_agent_set_path(self->w, unpack(id), &d);
    leave(self);
    if (st != CROWD_OK) return raise_status(st, "set_path");
    Py_RETURN_NONE;
}

static PyObject* world_path_state(world_object* self, PyObject* args) {
    uint64_t id;
    if (!PyArg_ParseTuple(args, "O&", conv_handle, &id)) return NULL;
    if (!enter(self)) return NULL;
    crowd_path_follow_def d;
    crowd_path_cursor c;
    const crowd_status st = crowd_agent_get_path(self->w, unpack(id), &d, &c);
    leave(self);
    if (st != CROWD_OK) return raise_status(st, "path_state");
    return Py_BuildValue("{s:N,s:K,s:N,s:N,s:i,s:i}", "state", enum_name(&path_states, c.state),
                         "path", (unsigned long long)pack(&d.path), "kind",
                         enum_name(&path_kinds, d.kind), "mode", enum_name(&path_modes, d.mode),
                         "index", c.index, "direction", c.direction);
}

// ---- queues -------------------------------------------------------------------------------------

static PyObject* world_set_queue(world_object* self, PyObject* args, PyObject* kw) {
    static char* names[] = {"id",          "goal",      "cone_length",    "cone_width",
                            "slow_radius", "weight",    "arrival_radius", "on_arrival",
                            "start_min",   "start_max", "form",           NULL};
    uint64_t id;
    crowd_queue_def d = crowd_queue_def_default();
    int policy = d.on_arrival, form = d.form;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&|$fffffO&O&O&O&", names, conv_handle, &id,
                                     conv_vec2, &d.goal, &d.cone_length, &d.cone_width,
                                     &d.slow_radius, &d.weight, &d.arrival_radius,
                                     conv_queue_policies, &policy, conv_vec2, &d.start_min,
                                     conv_vec2, &d.start_max, conv_queue_forms, &form))
        return NULL;
    d.on_arrival = (crowd_queue_policy)policy;
    d.form = (crowd_queue_form)form;
    if (!enter_change(self)) return NULL;
    const crowd_status st = crowd_agent_set_queue(self->w, unpack(id), &d);
    leave(self);
    if (st != CROWD_OK) return raise_status(st, "set_queue");
    Py_RETURN_NONE;
}

static PyObject* world_arrivals(world_object* self, PyObject* unused) {
    (void)unused;
    if (!enter(self)) return NULL;
    int n = crowd_world_arrival_count(self->w);
    crowd_arrival* a = malloc(sizeof *a * (size_t)(n > 0 ? n : 1));
    crowd_status st = a ? crowd_world_get_arrivals(self->w, a, n, &n) : CROWD_ERR_OUT_OF_MEMORY;
    leave(self);
    PyObject* r = NULL;
    if (st != CROWD_OK) {
        raise_status(st, "arrivals");
    } else {
        npy_intp dims[1] = {n}, dims2[2] = {n, 2};
        PyArrayObject* ids = (PyArrayObject*)PyArray_SimpleNew(1, dims, NPY_UINT64);
        PyArrayObject* pos = (PyArrayObject*)PyArray_SimpleNew(2, dims2, NPY_FLOAT32);
        if (ids && pos) {
            for (int k = 0; k < n; ++k) {
                ((uint64_t*)PyArray_DATA(ids))[k] = pack(&a[k].id);
                ((crowd_vec2*)PyArray_DATA(pos))[k] = a[k].position;
            }
            r = Py_BuildValue("(OO)", ids, pos);
        }
        Py_XDECREF(ids);
        Py_XDECREF(pos);
    }
    free(a);
    return r;
}

// ---- leaders and followers ----------------------------------------------------------------------

static PyObject* world_follow(world_object* self, PyObject* args, PyObject* kw) {
    static char* names[] = {"follower",
                            "leader",
                            "behind_dist",
                            "ahead_dist",
                            "ahead_radius",
                            "slow_radius",
                            "evade_weight",
                            "separation_weight",
                            "weight",
                            "predict",
                            "target",
                            "form",
                            NULL};
    uint64_t f, l;
    crowd_follow_def d = crowd_follow_def_default();
    int predict = d.predict, target = d.target, form = d.form;
    if (!PyArg_ParseTupleAndKeywords(
            args, kw, "O&O&|$fffffffpO&O&", names, conv_handle, &f, conv_handle, &l, &d.behind_dist,
            &d.ahead_dist, &d.ahead_radius, &d.slow_radius, &d.evade_weight, &d.separation_weight,
            &d.weight, &predict, conv_follow_targets, &target, conv_follow_forms, &form))
        return NULL;
    d.predict = predict;
    d.target = (crowd_follow_target)target;
    d.form = (crowd_follow_form)form;
    if (!enter_change(self)) return NULL;
    const crowd_status st = crowd_agent_follow(self->w, unpack(f), unpack(l), &d);
    leave(self);
    if (st != CROWD_OK) return raise_status(st, "follow");
    Py_RETURN_NONE;
}

static PyObject* world_follow_state(world_object* self, PyObject* args) {
    uint64_t id;
    if (!PyArg_ParseTuple(args, "O&", conv_handle, &id)) return NULL;
    if (!enter(self)) return NULL;
    crowd_follow_info i;
    const crowd_status st = crowd_agent_get_follow(self->w, unpack(id), &i);
    leave(self);
    if (st != CROWD_OK) return raise_status(st, "follow_state");
    return Py_BuildValue("{s:N,s:K,s:N}", "state", enum_name(&follow_states, i.state), "leader",
                         (unsigned long long)pack(&i.leader), "target", vec2_tuple(i.target));
}

static PyObject* world_set_formation(world_object* self, PyObject* args, PyObject* kw) {
    static char* names[] = {"leader", "shape", "spacing", "distance", "columns", "offsets", NULL};
    uint64_t id;
    crowd_formation_def d = crowd_formation_def_default();
    int shape = d.shape;
    PyObject* offsets = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&|O&$ffiO", names, conv_handle, &id, conv_shapes,
                                     &shape, &d.spacing, &d.distance, &d.columns, &offsets))
        return NULL;
    d.shape = (crowd_formation_shape)shape;
    PyArrayObject* p = NULL;
    if (offsets != Py_None) {
        if (!(p = points_array(offsets))) return NULL;
        d.offsets = PyArray_DATA(p);
        d.offset_count = (int)PyArray_DIM(p, 0);
    }
    PyObject* r = NULL;
    if (enter_change(self)) {
        const crowd_status st = crowd_leader_set_formation(self->w, unpack(id), &d);
        leave(self);
        r = st == CROWD_OK ? Py_NewRef(Py_None) : raise_status(st, "set_formation");
    }
    Py_XDECREF(p);
    return r;
}

static PyObject* world_set_fallback(world_object* self, PyObject* args) {
    uint64_t l, f;
    if (!PyArg_ParseTuple(args, "O&O&", conv_handle, &l, conv_handle, &f)) return NULL;
    if (!enter_change(self)) return NULL;
    const crowd_status st = crowd_leader_set_fallback(self->w, unpack(l), unpack(f));
    leave(self);
    if (st != CROWD_OK) return raise_status(st, "set_fallback");
    Py_RETURN_NONE;
}

static PyObject* world_followers(world_object* self, PyObject* args) {
    uint64_t id;
    if (!PyArg_ParseTuple(args, "O&", conv_handle, &id)) return NULL;
    if (!enter(self)) return NULL;
    crowd_leader_info info;
    crowd_status st = crowd_leader_get_info(self->w, unpack(id), &info);
    int n = st == CROWD_OK ? info.followers : 0;
    crowd_agent_id* f = malloc(sizeof *f * (size_t)(n > 0 ? n : 1));
    if (st == CROWD_OK)
        st =
            f ? crowd_leader_get_followers(self->w, unpack(id), f, n, &n) : CROWD_ERR_OUT_OF_MEMORY;
    leave(self);
    PyObject* r = NULL;
    if (st != CROWD_OK) {
        raise_status(st, "followers");
    } else {
        npy_intp dims[1] = {n};
        r = PyArray_SimpleNew(1, dims, NPY_UINT64);
        for (int k = 0; r && k < n; ++k)
            ((uint64_t*)PyArray_DATA((PyArrayObject*)r))[k] = pack(&f[k]);
    }
    free(f);
    return r;
}

// ---- snapshots ----------------------------------------------------------------------------------

static PyObject* world_save(world_object* self, PyObject* unused) {
    (void)unused;
    if (!enter(self)) return NULL;
    const size_t n = crowd_world_save_size(self->w);
    PyObject* b = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)n);
    crowd_status st = CROWD_ERR_OUT_OF_MEMORY;
    size_t size = 0;
    if (b) st = crowd_world_save(self->w, PyBytes_AS_STRING(b), n, &size);
    leave(self);
    if (!b) return NULL;
    if (st != CROWD_OK) {
        Py_DECREF(b);
        return raise_status(st, "save");
    }
    return b;
}

// _World._load(data, threads=-1): a new world from a snapshot.
static PyObject* world_load(PyObject* cls, PyObject* args, PyObject* kw) {
    static char* names[] = {"data", "threads", NULL};
    Py_buffer buf;
    crowd_load_def d = crowd_load_def_default();
    if (!PyArg_ParseTupleAndKeywords(args, kw, "y*|i", names, &buf, &d.threads)) return NULL;
    world_object* self = (world_object*)PyObject_CallNoArgs(cls); // an open default world ...
    if (!self) {
        PyBuffer_Release(&buf);
        return NULL;
    }
    d.alloc = heap_alloc;
    d.free = heap_free;
    d.alloc_user = &self->hp;
    crowd_world* w = NULL;
    crowd_status st;
    Py_BEGIN_ALLOW_THREADS st = crowd_world_load(buf.buf, (size_t)buf.len, &d, &w);
    Py_END_ALLOW_THREADS PyBuffer_Release(&buf);
    if (st != CROWD_OK) {
        Py_DECREF(self);
        return raise_status(st, "load");
    }
    world_close_now(self); // ... whose world is replaced by the loaded one
    self->w = w;
    return (PyObject*)self;
}

// ---- scenario files -----------------------------------------------------------------------------

static PyObject* handles_by_name(char* const* names, const uint64_t* ids, int n) {
    PyObject* d = PyDict_New();
    for (int k = 0; d && k < n; ++k) {
        PyObject* v = PyLong_FromUnsignedLongLong(ids[k]);
        if (!v || PyDict_SetItemString(d, names[k], v) < 0) Py_CLEAR(d);
        Py_XDECREF(v);
    }
    return d;
}

// _World._scenario(path, threads=0, agents_scale=1.0): the world `crowd run` builds.
static PyObject* world_scenario(PyObject* cls, PyObject* args, PyObject* kw) {
    static char* names[] = {"path", "threads", "agents_scale", NULL};
    PyObject* path_obj;
    int threads = 0;
    double scale = 1.0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&|id", names, PyUnicode_FSConverter, &path_obj,
                                     &threads, &scale))
        return NULL;
    world_object* self = (world_object*)PyObject_CallNoArgs(cls);
    if (!self) {
        Py_DECREF(path_obj);
        return NULL;
    }
    world_close_now(self);
    char err[1024] = "";
    scenario sc;
    built_world b = {0};
    bool ok;
    build_options bo = {.threads = threads,
                        .agents_scale = scale,
                        .alloc = heap_alloc,
                        .free = heap_free,
                        .alloc_user = &self->hp};
    Py_BEGIN_ALLOW_THREADS ok = scenario_load(PyBytes_AS_STRING(path_obj), &sc, err, sizeof err);
    if (ok && !(scale > 0.0)) {
        snprintf(err, sizeof err, "agents_scale must be > 0");
        scenario_free(&sc);
        ok = false;
    } else if (ok && !scenario_build(&sc, &bo, &b, err, sizeof err)) {
        scenario_free(&sc);
        ok = false;
    }
    Py_END_ALLOW_THREADS Py_DECREF(path_obj);
    if (!ok) {
        Py_DECREF(self);
        PyErr_SetString(PyExc_ValueError, err);
        return NULL;
    }
    // The world is the object's; the builder's tables are described in a dict and go.
    self->w = b.world;
    b.world = NULL;
    char** pn = malloc(sizeof *pn * (size_t)(sc.path_count + sc.exits_count + 1));
    uint64_t* pid = malloc(sizeof *pid * (size_t)(sc.path_count + sc.exits_count + 1));
    PyObject* info = NULL;
    if (pn && pid) {
        int np = 0, ne = 0;
        for (int k = 0; k < sc.path_count; ++k)
            if (b.paths && !crowd_path_id_is_null(b.paths[k]))
                pn[np] = sc.paths[k].name, pid[np++] = pack(&b.paths[k]);
        PyObject* paths = handles_by_name(pn, pid, np);
        for (int k = 0; k < sc.exits_count; ++k)
            if (b.exits && !crowd_exits_id_is_null(b.exits[k]))
                pn[ne] = sc.exits[k].name, pid[ne++] = pack(&b.exits[k]);
        PyObject* exits = handles_by_name(pn, pid, ne);
        if (paths && exits)
            info =
                Py_BuildValue("{s:s,s:s,s:i,s:d,s:K,s:i,s:O,s:O}", "name", sc.name ? sc.name : "",
                              "description", sc.description ? sc.description : "", "ticks",
                              sc.ticks, "dt", (double)sc.dt, "seed", (unsigned long long)sc.seed,
                              "agents", b.agents, "paths", paths, "exits", exits);
        Py_XDECREF(paths);
        Py_XDECREF(exits);
    } else {
        PyErr_NoMemory();
    }
    free(pn);
    free(pid);
    built_world_free(&b);
    scenario_free(&sc);
    if (!info) {
        Py_DECREF(self);
        return NULL;
    }
    Py_SETREF(self->scenario, info);
    return (PyObject*)self;
}

// ---- zero-copy columns --------------------------------------------------------------------------

// A lease: the base object of a numpy array viewing a world's memory.
typedef struct lease_object {
    PyObject_HEAD world_object* world;
} lease_object;

static void lease_dealloc(lease_object* self) {
    heap_release(&self->world->hp);
    Py_DECREF(self->world);
    Py_TYPE(self)->tp_free((PyObject*)self);
}

static PyTypeObject lease_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "crowdstep._crowdstep._Lease",
    .tp_basicsize = sizeof(lease_object),
    .tp_dealloc = (destructor)lease_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Keeps a world's memory alive while a numpy array views it.",
};

// The view's token: the engine's column epoch and the world's change count, as one tuple.
static PyObject* world_view_token(world_object* self, PyObject* unused) {
    (void)unused;
    world_lock(self);
    PyObject* r =
        self->w ? Py_BuildValue("(KK)", (unsigned long long)crowd_world_columns_epoch(self->w),
                                (unsigned long long)self->changes)
                : Py_NewRef(Py_None);
    leave(self);
    return r;
}

// _column(k, token): column k (x, y, vx, vy, hx, hy, id) as a read-only numpy view, when token is
// still the world's; else StaleViewError.
static PyObject* world_column(world_object* self, PyObject* args) {
    int k;
    unsigned long long epoch, changes;
    if (!PyArg_ParseTuple(args, "i(KK)", &k, &epoch, &changes)) return NULL;
    if (k < 0 || k > 6) return PyErr_Format(PyExc_IndexError, "no column %d", k);
    if (!enter(self)) return NULL;
    crowd_columns_view v;
    crowd_world_columns(self->w, &v);
    if (v.epoch != epoch || self->changes != changes) {
        leave(self);
        PyErr_SetString(stale_view_error,
                        "the columns changed (a step or a change of the world): take "
                        "World.columns again");
        return NULL;
    }
    const void* ptr[7] = {v.x, v.y, v.vx, v.vy, v.hx, v.hy, v.id};
    npy_intp dims[1] = {v.count};
    const int type = k == 6 ? NPY_UINT32 : NPY_FLOAT32;
    PyObject* a;
    if (v.count == 0) {
        a = PyArray_SimpleNew(1, dims, type);
        if (a) PyArray_CLEARFLAGS((PyArrayObject*)a, NPY_ARRAY_WRITEABLE);
    } else {
        a = PyArray_New(&PyArray_Type, 1, dims, type, NULL, (void*)ptr[k], 0, NPY_ARRAY_CARRAY_RO,
                        NULL);
        lease_object* l = a ? PyObject_New(lease_object, &lease_type) : NULL;
        if (l) {
            l->world = (world_object*)Py_NewRef(self);
            pthread_mutex_lock(&self->hp.mu);
            self->hp.leases++;
            pthread_mutex_unlock(&self->hp.mu);
            if (PyArray_SetBaseObject((PyArrayObject*)a, (PyObject*)l) < 0) Py_CLEAR(a); // stolen
        } else {
            Py_CLEAR(a);
        }
    }
    leave(self);
    return a;
}

// handles(indices): the live agents' handles of agent indices (a view's id column), 0 where none.
static PyObject* world_handles(world_object* self, PyObject* args) {
    PyObject* o;
    if (!PyArg_ParseTuple(args, "O", &o)) return NULL;
    PyArrayObject* idx = (PyArrayObject*)PyArray_FROMANY(o, NPY_UINT32, 1, 1,
                                                         NPY_ARRAY_IN_ARRAY | NPY_ARRAY_FORCECAST);
    if (!idx) return NULL;
    npy_intp dims[1] = {PyArray_DIM(idx, 0)};
    PyArrayObject* out = (PyArrayObject*)PyArray_SimpleNew(1, dims, NPY_UINT64);
    if (out && enter(self)) {
        const uint32_t* in = PyArray_DATA(idx);
        uint64_t* h = PyArray_DATA(out);
        for (npy_intp k = 0; k < dims[0]; ++k) {
            crowd_agent_id id;
            crowd_world_columns_handle(self->w, in[k], &id);
            h[k] = pack(&id);
        }
        leave(self);
    } else {
        Py_CLEAR(out);
    }
    Py_DECREF(idx);
    return (PyObject*)out;
}

// ---- type ---------------------------------------------------------------------------------------

#define M(name, flags, doc)                                                                        \
    { #name, (PyCFunction)(void (*)(void))world_##name, flags, doc }
static PyMethodDef world_methods[] = {
    M(close, METH_NOARGS,
      "close()\n\nFrees the world now (memory numpy views still read is freed "
      "when the last of them goes). Idempotent."),
    M(step, METH_VARARGS | METH_KEYWORDS,
      "step(ticks=1)\n\nAdvances the world by `ticks` ticks without holding the GIL. A tick that "
      "fails (out of memory for a navigation field) changes nothing and raises; the ticks before "
      "it stand."),
    M(state_hash, METH_NOARGS, "state_hash() -> int\n\nThe engine's 64-bit state hash."),
    M(reserve, METH_VARARGS, "reserve(agents)\n\nSizes the storage for `agents` agents."),
    M(add_agents, METH_VARARGS | METH_KEYWORDS, "Low-level batch add; see World.add_agents."),
    M(remove_agents, METH_VARARGS,
      "remove_agents(ids)\n\nRemoves the agents; none is removed unless every id is live and "
      "given once."),
    M(positions, METH_VARARGS, "positions(ids) -> ndarray (n, 2) float32, a copy gathered by id."),
    M(velocities, METH_VARARGS, "velocities(ids) -> ndarray (n, 2) float32, gathered by id."),
    M(headings, METH_VARARGS, "headings(ids) -> ndarray (n, 2) float32, gathered by id."),
    M(agents, METH_NOARGS, "agents() -> ndarray uint64: every live agent's id in handle order."),
    M(contains, METH_VARARGS, "contains(id) -> bool: the id names a live agent of this world."),
    M(agent, METH_VARARGS, "agent(id) -> dict: the agent's parameters and state."),
    M(set_position, METH_VARARGS, "set_position(id, (x, y)): teleport."),
    M(set_velocity, METH_VARARGS, "set_velocity(id, (vx, vy))"),
    M(set_limits, METH_VARARGS | METH_KEYWORDS, "set_limits(id, max_speed, max_force)"),
    M(set_radius, METH_VARARGS, "set_radius(id, radius)"),
    M(set_separation, METH_VARARGS | METH_KEYWORDS, "set_separation(id, radius, weight)"),
    M(set_goal, METH_VARARGS | METH_KEYWORDS,
      "set_goal(id, target=None, *, mode='arrive', slow_radius=1, weight=1, route='field', "
      "exits=None, form='pedestrian')\n\nNo target and no exits: the goal is cleared. form: "
      "'pedestrian' (the default: headway speed, no separation drag) or 'literal' (the spec's)."),
    M(set_walls, METH_VARARGS | METH_KEYWORDS, "set_walls(id, weight=1, look_ahead=1)"),
    M(route, METH_VARARGS, "route(id) -> dict(state, destination, aim, distance)"),
    M(nav_update, METH_NOARGS, "nav_update()\n\nBuilds the navigation fields in use now."),
    M(nav_stats, METH_NOARGS, "nav_stats() -> dict"),
    M(profile, METH_NOARGS, "profile() -> dict: wall time of the last step's phases."),
    M(add_obstacle, METH_VARARGS | METH_KEYWORDS,
      "add_obstacle(points, kind='polygon') -> int\n\nA solid polygon or ('wall') an open "
      "polyline."),
    M(remove_obstacle, METH_VARARGS, "remove_obstacle(id)"),
    M(obstacle_points, METH_VARARGS, "obstacle_points(id) -> ndarray (n, 2)"),
    M(obstacles, METH_NOARGS, "obstacles() -> list of int"),
    M(create_path, METH_VARARGS, "create_path(points) -> int"),
    M(replace_path, METH_VARARGS, "replace_path(path, points)"),
    M(destroy_path, METH_VARARGS, "destroy_path(path): its followers are detached."),
    M(path_points, METH_VARARGS, "path_points(path) -> ndarray (n, 2)"),
    M(set_path, METH_VARARGS | METH_KEYWORDS,
      "set_path(id, path, *, kind='waypoints', mode='loop', arrive_radius=0.8, slow_radius=1.5, "
      "tube_radius=1, predict_ahead=0.5, weight=1, start_index=0, reverse=False, form='flow', "
      "route='field')"),
    M(clear_path, METH_VARARGS, "clear_path(id)"),
    M(path_state, METH_VARARGS, "path_state(id) -> dict"),
    M(create_exits, METH_VARARGS, "create_exits(points) -> int: an exit set for goals."),
    M(destroy_exits, METH_VARARGS, "destroy_exits(exits)"),
    M(exits_points, METH_VARARGS, "exits_points(exits) -> ndarray (n, 2)"),
    M(set_queue, METH_VARARGS | METH_KEYWORDS,
      "set_queue(id, goal, *, cone_length=2.5, cone_width=0.6, slow_radius=1, weight=1, "
      "arrival_radius=0.5, on_arrival='stop', start_min=(0, 0), start_max=(0, 0), form='file')"),
    M(clear_queue, METH_VARARGS, "clear_queue(id)"),
    M(arrivals, METH_NOARGS, "arrivals() -> (ids, positions) of the last step's queue arrivals."),
    M(follow, METH_VARARGS | METH_KEYWORDS,
      "follow(follower, leader, *, behind_dist=2, ahead_dist=1.5, ahead_radius=1.5, "
      "slow_radius=6, evade_weight=2, separation_weight=0.6, weight=1, predict=False, "
      "target='behind', form='keep_up')"),
    M(unfollow, METH_VARARGS, "unfollow(follower)"),
    M(follow_state, METH_VARARGS, "follow_state(follower) -> dict(state, leader, target)"),
    M(set_formation, METH_VARARGS | METH_KEYWORDS,
      "set_formation(leader, shape='column', *, spacing=1.5, distance=2, columns=3, "
      "offsets=None)"),
    M(set_fallback, METH_VARARGS, "set_fallback(leader, fallback)"),
    M(followers, METH_VARARGS, "followers(leader) -> ndarray uint64"),
    M(save, METH_NOARGS, "save() -> bytes: a snapshot (crowd_world_save)."),
    {"_load", (PyCFunction)(void (*)(void))world_load, METH_VARARGS | METH_KEYWORDS | METH_CLASS,
     "A world from a snapshot."},
    {"_scenario", (PyCFunction)(void (*)(void))world_scenario,
     METH_VARARGS | METH_KEYWORDS | METH_CLASS, "The world `crowd run` builds from a file."},
    {"_view_token", (PyCFunction)world_view_token, METH_NOARGS, NULL},
    {"_column", (PyCFunction)world_column, METH_VARARGS, NULL},
    M(handles, METH_VARARGS,
      "handles(indices) -> ndarray uint64: the ids of agent indices (0 where no live agent)."),
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef world_getset[] = {
    {"closed", (getter)world_get_closed, NULL, "True once close() ran.", NULL},
    {"count", (getter)world_get_count, NULL, "Live agents.", NULL},
    {"tick", (getter)world_get_tick, NULL, "Ticks stepped.", NULL},
    {"dt", (getter)world_get_dt, NULL, "Tick length in seconds.", NULL},
    {"threads", (getter)world_get_threads, (setter)world_set_threads, "Threads of a step.", NULL},
    {"max_neighbors", (getter)world_get_max_neighbors, (setter)world_set_max_neighbors,
     "Per-agent neighbor cap (0: none).", NULL},
    {"obstacle_count", (getter)world_get_obstacle_count, NULL, "Obstacles.", NULL},
    {"path_count", (getter)world_get_path_count, NULL, "Paths.", NULL},
    {"scenario", (getter)world_get_scenario, NULL,
     "For a world from load_scenario: its name, ticks, dt, paths and exits by name; else None.",
     NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject world_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "crowdstep._crowdstep._World",
    .tp_basicsize = sizeof(world_object),
    .tp_dealloc = (destructor)world_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "The engine's world (crowdstep.World is the documented class).",
    .tp_methods = world_methods,
    .tp_getset = world_getset,
    .tp_init = (initproc)world_init,
    .tp_new = world_new,
    .tp_weaklistoffset = offsetof(world_object, weakrefs),
};

// ---- module -------------------------------------------------------------------------------------

static PyObject* agent_defaults(PyObject* m, PyObject* unused) {
    (void)m;
    (void)unused;
    const crowd_agent_def d = crowd_agent_def_default();
    return Py_BuildValue("{s:d,s:d,s:d,s:d,s:d,s:d,s:d,s:d,s:d}", "radius", (double)d.radius,
                         "max_speed", (double)d.max_speed, "max_force", (double)d.max_force,
                         "separation_radius", (double)d.separation_radius, "separation_weight",
                         (double)d.separation_weight, "slow_radius", (double)d.goal.slow_radius,
                         "goal_weight", (double)d.goal.weight, "wall_weight",
                         (double)d.walls.weight, "wall_look_ahead", (double)d.walls.look_ahead);
}

static PyMethodDef module_methods[] = {
    {"agent_defaults", agent_defaults, METH_NOARGS, "crowd_agent_def_default() as a dict."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "crowdstep._crowdstep",
    .m_doc = "The C extension of crowdstep (use the crowdstep package).",
    .m_size = -1,
    .m_methods = module_methods,
};

// CROWD_ERR_STALE_HANDLE -> "StaleHandleError".
static void class_name(const char* status, char* out, size_t len) {
    const char* s = status + strlen("CROWD_ERR_");
    size_t n = 0;
    bool up = true;
    for (; *s && n + 6 < len; ++s) {
        if (*s == '_') {
            up = true;
            continue;
        }
        out[n++] = up ? *s : (char)(*s - 'A' + 'a');
        if (*s >= '0' && *s <= '9') out[n - 1] = *s;
        up = false;
    }
    memcpy(out + n, "Error", 6);
}

PyMODINIT_FUNC PyInit__crowdstep(void) {
    import_array();
    if (PyType_Ready(&world_type) < 0 || PyType_Ready(&lease_type) < 0) return NULL;
    PyObject* m = PyModule_Create(&module_def);
    if (!m) return NULL;
    error_base = PyErr_NewExceptionWithDoc(
        "crowdstep.Error",
        "A crowdstep call failed. .status is the C status name (\"CROWD_ERR_STALE_HANDLE\"), "
        ".code its number. A failed call has left the world as it was.",
        NULL, NULL);
    if (!error_base || PyModule_AddObjectRef(m, "Error", error_base) < 0) return NULL;
    PyObject* cls_dict = PyDict_New();
    if (!cls_dict) return NULL;
    for (int st = 1; st < CROWD_STATUS_COUNT; ++st) {
        char name[96], qual[128];
        class_name(status_names[st], name, sizeof name);
        snprintf(qual, sizeof qual, "crowdstep.%s", name);
        PyObject* dict = Py_BuildValue("{s:s,s:i}", "status", status_names[st], "code", st);
        status_errors[st] =
            dict ? PyErr_NewExceptionWithDoc(qual, crowd_status_string((crowd_status)st),
                                             error_base, dict)
                 : NULL;
        Py_XDECREF(dict);
        if (!status_errors[st] || PyModule_AddObjectRef(m, name, status_errors[st]) < 0 ||
            PyDict_SetItemString(cls_dict, status_names[st], status_errors[st]) < 0)
            return NULL;
    }
    if (PyModule_AddObject(m, "errors_by_status", cls_dict) < 0) return NULL;
    PyObject* d = Py_BuildValue("{s:s,s:i}", "status", "STALE_VIEW", "code", -1);
    stale_view_error = PyErr_NewExceptionWithDoc(
        "crowdstep.StaleViewError",
        "A Columns object was used after a step or a change of its world.", error_base, d);
    Py_XDECREF(d);
    d = Py_BuildValue("{s:s,s:i}", "status", "CLOSED", "code", -2);
    closed_error =
        PyErr_NewExceptionWithDoc("crowdstep.ClosedError", "The world was closed.", error_base, d);
    Py_XDECREF(d);
    if (!stale_view_error || !closed_error ||
        PyModule_AddObjectRef(m, "StaleViewError", stale_view_error) < 0 ||
        PyModule_AddObjectRef(m, "ClosedError", closed_error) < 0 ||
        PyModule_AddObjectRef(m, "_World", (PyObject*)&world_type) < 0)
        return NULL;
    PyModule_AddIntConstant(m, "VERSION_MAJOR", CROWD_VERSION_MAJOR);
    PyModule_AddIntConstant(m, "VERSION_MINOR", CROWD_VERSION_MINOR);
    PyModule_AddIntConstant(m, "VERSION_PATCH", CROWD_VERSION_PATCH);
    return m;
}
