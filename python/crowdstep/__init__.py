"""crowdstep: a deterministic, multithreaded crowd-steering engine, from Python.

A :class:`World` holds agents in structure-of-arrays columns; :attr:`World.columns` views them as
read-only numpy arrays without copying, :meth:`World.positions` gathers by id into a new array.
Every failing call raises :class:`Error` (a subclass per C status, for instance
:class:`StaleHandleError`) and leaves the world as it was.

Agent ids are ``uint64`` numbers: the C handle ``crowd_agent_id`` packed as
``index1 | generation << 32 | world << 48``, so an id stays unique to one agent for the world's
life. Paths, exit sets and obstacles have ids of the same form (Python ints).

    >>> import numpy as np, crowdstep
    >>> with crowdstep.World(threads=1) as world:
    ...     ids = world.add_agents(np.zeros((1, 2)), goals=[10.0, 0.0])
    ...     world.step(ticks=100)
    ...     float(world.positions(ids)[0, 0]) > 9.0
    True
"""

from __future__ import annotations

import os
from typing import Any, Optional

import numpy as np

from . import _crowdstep
from ._crowdstep import ClosedError, Error, StaleViewError, _World, errors_by_status

__all__ = [
    "World",
    "Columns",
    "Error",
    "StaleViewError",
    "ClosedError",
    "errors_by_status",
    "load_scenario",
    "index_of",
    "__version__",
]

__version__ = "%d.%d.%d" % (
    _crowdstep.VERSION_MAJOR,
    _crowdstep.VERSION_MINOR,
    _crowdstep.VERSION_PATCH,
)

# One exception class per C status (crowd_status), e.g. StaleHandleError, InsideObstacleError.
for _name, _cls in errors_by_status.items():
    globals()[_cls.__name__] = _cls
    __all__.append(_cls.__name__)
del _name, _cls

_COLUMNS = ("x", "y", "vx", "vy", "hx", "hy", "id")


def index_of(ids: Any) -> np.ndarray:
    """The agent index (``id`` column value, ``index1 - 1``) of each agent id."""
    return (np.asarray(ids, dtype=np.uint64) & np.uint64(0xFFFFFFFF)).astype(np.uint32) - np.uint32(1)


class Columns:
    """Zero-copy, read-only views of a world's current agent columns.

    The arrays ``x``, ``y`` (positions), ``vx``, ``vy`` (velocities), ``hx``, ``hy`` (headings,
    unit length) and ``id`` (``uint32`` agent index, ``index1 - 1`` of its id) are the engine's own
    buffers, one row per live agent in the engine's storage order (cell order after a step, not
    the order agents were added in). ``id`` says which agent each row is; :meth:`ids` turns it
    into agent ids and :func:`index_of` goes the other way.

    Lifetime: the object is :attr:`valid` until its world steps or changes in any way (an add, a
    remove, a setter, close). Taking an array from an invalid Columns raises
    :class:`StaleViewError`. An array already taken is *not* updated or invalidated: after the
    next step or change it shows whatever that buffer then holds (rotated buffers hold another
    column or scratch data), so use it only while ``columns.valid`` or copy it (``x.copy()``).
    Reading it is always memory-safe: a taken array keeps the world's memory alive, even past
    ``World.close()``.
    """

    __slots__ = ("_world", "_token", "_cache", "__weakref__")

    def __init__(self, world: "World") -> None:
        self._world = world
        self._token = world._view_token()
        self._cache: dict = {}
        if self._token is None:
            raise ClosedError("the world is closed")

    @property
    def valid(self) -> bool:
        """True until the world steps or changes: arrays may be taken while it holds."""
        return self._world._view_token() == self._token

    def _get(self, k: int) -> np.ndarray:
        if not self.valid:
            raise StaleViewError(
                "the columns changed (a step or a change of the world): take World.columns again"
            )
        a = self._cache.get(k)
        if a is None:
            a = self._cache[k] = self._world._column(k, self._token)
        return a

    @property
    def x(self) -> np.ndarray:
        """Position x of each row (float32, read-only view)."""
        return self._get(0)

    @property
    def y(self) -> np.ndarray:
        """Position y of each row (float32, read-only view)."""
        return self._get(1)

    @property
    def vx(self) -> np.ndarray:
        """Velocity x of each row (float32, read-only view)."""
        return self._get(2)

    @property
    def vy(self) -> np.ndarray:
        """Velocity y of each row (float32, read-only view)."""
        return self._get(3)

    @property
    def hx(self) -> np.ndarray:
        """Heading x of each row (float32, read-only view)."""
        return self._get(4)

    @property
    def hy(self) -> np.ndarray:
        """Heading y of each row (float32, read-only view)."""
        return self._get(5)

    @property
    def id(self) -> np.ndarray:
        """Agent index of each row (uint32, read-only view): ``index1 - 1`` of its id."""
        return self._get(6)

    def ids(self) -> np.ndarray:
        """The agent id (uint64) of each row, a new array."""
        return self._world.handles(self.id)

    def __len__(self) -> int:
        return len(self.id)

    def __repr__(self) -> str:
        state = "valid" if self.valid else "stale"
        return f"<crowdstep.Columns {state}>"


def _column(value: Any, n: int, cols: int = 1, dtype: Any = np.float32) -> Optional[np.ndarray]:
    """None, or `value` broadcast to n rows (of `cols` values)."""
    if value is None:
        return None
    a = np.asarray(value, dtype=dtype)
    shape = (n,) if cols == 1 else (n, cols)
    return np.broadcast_to(a, shape)


class World(_World):
    """A crowd: agents, obstacles, paths, exit sets; stepped deterministically on any threads.

    Parameters are those of ``crowd_world_def`` (crowd/world.h): ``threads`` (0 = all cores,
    1 = the calling thread only), ``dt`` (s, default 0.1), ``cell_size`` (m, 2.5), ``capacity``,
    ``max_agents``, ``max_neighbors`` (0 = no cap), ``seed``, ``world_tag`` (stamped on ids; 0 =
    from the world's address), and navigation: ``nav`` (routing around obstacles on),
    ``nav_cell_size``, ``nav_clearance``, ``nav_budget`` (bytes) and ``nav_max_cells``.

    A World is a context manager: leaving the ``with`` block closes it, freeing the engine's
    memory at once (or, for memory numpy views from :attr:`columns` still read, when the last of
    them goes). Calls on a closed world raise :class:`ClosedError`. A world may be used from
    several threads: calls are serialized per world and :meth:`step` runs without the GIL.
    """

    def __init__(self, threads: int = 0, **kwargs: Any) -> None:
        super().__init__(threads=threads, **kwargs)

    def __enter__(self) -> "World":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        if self.closed:
            return "<crowdstep.World closed>"
        return f"<crowdstep.World agents={self.count} tick={self.tick} threads={self.threads}>"

    @property
    def columns(self) -> Columns:
        """Zero-copy read-only views of the current columns; see :class:`Columns`."""
        return Columns(self)

    def add_agents(
        self,
        positions: Any,
        goals: Any = None,
        *,
        mode: str = "arrive",
        route: str = "field",
        exits: Optional[int] = None,
        form: str = "pedestrian",
        velocities: Any = None,
        headings: Any = None,
        radius: Any = None,
        max_speed: Any = None,
        max_force: Any = None,
        separation_radius: Any = None,
        separation_weight: Any = None,
        slow_radius: Any = None,
        goal_weight: Any = None,
        wall_weight: Any = None,
        wall_look_ahead: Any = None,
        user_data: Any = None,
    ) -> np.ndarray:
        """Adds ``len(positions)`` agents in one call and returns their ids (uint64 array).

        ``positions`` is an (n, 2) array. ``goals`` (an (n, 2) array or one point for all) gives
        each agent a goal of ``mode`` ('seek', 'arrive', 'flee', 'arrive_literal'), reached around
        walls unless ``route='straight'``; ``exits`` (an exit set id) makes the goal the nearest
        exit instead. ``form`` is 'pedestrian' (the default: a headway speed behind the one ahead,
        separation without the spec's drag) or 'literal' (the spec's seek and arrive). Every other parameter is a scalar for all agents or an array of n values
        (``velocities``, ``headings``: (n, 2)); None keeps ``crowd_agent_def_default()``.

        All or nothing: when any agent would be refused (a bad value, a disc inside an obstacle,
        ``max_agents``, a stale exit set), the exception names the first such agent and no agent
        is added. The one refusal only the add itself sees, a goal that would take the navigation
        fields beyond ``nav_budget`` (CapacityError), removes the agents of the call added before
        it: the world's state and hash are as before, but the agent indices they took come back
        later with a new generation (other ids than an untouched world would hand out).
        """
        pos = np.asarray(positions, dtype=np.float32)
        if pos.ndim == 1 and pos.shape == (2,):
            pos = pos.reshape(1, 2)
        if pos.ndim != 2 or pos.shape[1] != 2:
            raise ValueError("positions must have shape (n, 2)")
        n = pos.shape[0]
        return super().add_agents(
            pos,
            _column(goals, n, 2),
            _column(velocities, n, 2),
            _column(headings, n, 2),
            _column(radius, n),
            _column(max_speed, n),
            _column(max_force, n),
            _column(separation_radius, n),
            _column(separation_weight, n),
            _column(slow_radius, n),
            _column(goal_weight, n),
            _column(wall_weight, n),
            _column(wall_look_ahead, n),
            _column(user_data, n, 1, np.uint64),
            mode=mode,
            route=route,
            exits=exits,
            form=form,
        )

    def add_agent(self, position: Any, goal: Any = None, **kwargs: Any) -> int:
        """Adds one agent (the parameters of :meth:`add_agents`) and returns its id."""
        return int(self.add_agents([position], None if goal is None else [goal], **kwargs)[0])

    def remove_agents(self, ids: Any) -> None:
        """Removes the agents; all or nothing (each id must be live and given once)."""
        super().remove_agents(np.atleast_1d(np.asarray(ids, dtype=np.uint64)))

    def __contains__(self, id: Any) -> bool:
        return self.contains(id)

    def __len__(self) -> int:
        return self.count

    @classmethod
    def load(cls, data: bytes, threads: Optional[int] = None) -> "World":
        """A world from a snapshot made by :meth:`save` (``threads``: None = the saved count).

        It continues bit-identically to the saved world; every id stays valid."""
        return cls._load(data, -1 if threads is None else threads)


def load_scenario(path: "os.PathLike[str] | str", threads: int = 0, agents_scale: float = 1.0) -> World:
    """The world ``crowd run`` builds from a scenario file (tools/scenarios/README.md).

    ``world.scenario`` holds the file's name, description, default ``ticks``, ``dt``, ``seed``,
    the agents it added and its paths and exit sets by name. Stepping it ``ticks`` times gives
    the state hash ``crowd run FILE --ticks N --hash`` prints, on any thread count. A file that
    cannot be read or is not a valid scenario raises ValueError with the file, line and column.
    """
    return World._scenario(os.fspath(path), threads, agents_scale)
