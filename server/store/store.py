"""The durable store: rooms, seats, hands, the action log and the ledger.

All methods are coroutines over SQLAlchemy ``AsyncEngine``s; every write is its own
transaction. Errors:

* :class:`NotFound` (a ``LookupError``): unknown room code or hand number.
* :class:`Conflict` (a ``ValueError``): a unique key is taken (room code, seat, hand number,
  action index).
* ``ValueError``: a settlement that does not sum to zero or whose payments do not net to the
  seat deltas.

How writes reach the database (issue 9, "a durable log that keeps up"):

* **The action log is group-committed.** :meth:`Store.append_action` queues the row and
  awaits its batch; one writer task per store takes everything queued during one event-loop
  turn (plus whatever queued while the previous batch was committing) and writes it with one
  executemany ``INSERT`` in one transaction. Each caller returns once *its* batch is committed.
* **SQLite has one writer connection**, in a thread of its own: every write transaction runs
  there whole, as one call (``BEGIN IMMEDIATE`` ... ``COMMIT``), one at a time, so the write
  lock is never held across an ``await`` and is never upgraded mid-transaction (the source of
  ``database is locked``); WAL and ``synchronous=NORMAL``. The action log's batches are the
  exception: each is written at once on the event loop's thread, on a connection of its own
  that never waits for the lock and never checkpoints (a commit there costs less than a hop
  to the thread); when the lock is taken the batch goes to the writer thread instead. Reads
  use the async engine's other connections and never wait for the writer.
* **On PostgreSQL the two hot writes bypass SQLAlchemy's layers** (their Python cost was
  more than their round trips): each action batch is one executemany of a prepared INSERT
  (`PG_INSERT_ACTION`) on the asyncpg connection of a pooled connection the loop's writer
  keeps, pipelined up to one Sync (one implicit transaction, one round trip);
  :meth:`Store.finish_hand` runs its statements (``PG_*``) on the asyncpg connection of a
  pooled connection, in one transaction. Same stored values (each bound by its column's
  type), SQLAlchemy's exceptions; SQLAlchemy's events do not see these statements. Every
  other write uses the ordinary pool through SQLAlchemy.
* **A hand ends in one transaction**: :meth:`Store.finish_hand` settles, sets the room's
  status and returns the new totals.
* No ``pool_pre_ping``: a connection that died is invalidated by SQLAlchemy on the error and
  replaced on the next checkout, without an extra round trip on every checkout.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import sqlite3
from collections.abc import AsyncIterator, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar, cast

import asyncpg
from sqlalchemy import (
    bindparam,
    create_engine,
    delete,
    event,
    exists,
    func,
    insert,
    or_,
    select,
    text,
    update,
)
from sqlalchemy.engine import Connection, Engine, make_url
from sqlalchemy.exc import (
    DBAPIError,
    IntegrityError,
    InterfaceError,
    OperationalError,
    StatementError,
)
from sqlalchemy.exc import TimeoutError as PoolTimeout
from sqlalchemy.ext.asyncio import (
    AsyncConnection,
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)
from sqlalchemy.orm import aliased
from sqlalchemy.pool import QueuePool

from server.jsontext import dumps as json_text
from server.loops import running_loop
from server.store.models import Action, Hand, LedgerEntry, Player, Room, SeatDelta, utcnow

T = TypeVar("T")
log = logging.getLogger(__name__)


class NotFound(LookupError):
    """An unknown room code or hand number."""


class Conflict(ValueError):
    """A unique key is already taken (room code, seat, hand number, action index)."""


class AlreadySeated(Conflict):
    """The profile already holds a seat of the room (one seat per profile and room)."""


#: SQLSTATE classes of failures that say nothing about the data: 08 connection exception,
#: 40 transaction rollback (serialization failure, deadlock), 53 insufficient resources
#: (too many connections), 57 operator intervention (shutdown, starting up).
_TRANSIENT_SQLSTATE = ("08", "40", "53", "57")


def transient(exc: BaseException) -> bool:
    """True if ``exc`` (raised by a :class:`Store` call) means the database could not be
    reached or the connection broke, not that the call was wrong: the same call may succeed
    later (retry it). Such a failed write may or may not have committed (the answer was lost).

    Transient: ``OSError`` (refused, reset, timed out), a pool checkout timeout, an error
    SQLAlchemy reports with ``connection_invalidated``, ``OperationalError`` /
    ``InterfaceError``, and driver errors of SQLSTATE classes 08, 40, 53 and 57. Never
    :class:`Conflict`, :class:`NotFound` or any other ``ValueError``."""
    seen: set[int] = set()
    cur: BaseException | None = exc
    while cur is not None and id(cur) not in seen:
        seen.add(id(cur))
        if isinstance(cur, (Conflict, NotFound, ValueError)):
            return False
        if isinstance(cur, (OSError, PoolTimeout, OperationalError, InterfaceError)):
            return True
        if isinstance(cur, DBAPIError) and cur.connection_invalidated:
            return True
        state = getattr(cur, "sqlstate", None)
        if isinstance(state, str) and state[:2] in _TRANSIENT_SQLSTATE:
            return True
        cur = getattr(cur, "orig", None) or cur.__cause__
    return False


@dataclass(frozen=True, slots=True)
class PlayerRecord:
    """One occupied seat of a room."""

    seat: int
    name: str
    token_hash: str
    is_bot: bool
    #: The seated profile (``None``: a bot, or a seat taken before profiles existed).
    profile_id: int | None = None


@dataclass(frozen=True, slots=True)
class RoomRecord:
    """A room and its occupied seats (``players`` sorted by seat)."""

    code: str
    game: str
    options: dict[str, Any]
    status: str
    players: list[PlayerRecord] = field(default_factory=list)
    created_at: datetime | None = None
    #: The room this session's players went on in (再来一场), once one was made.
    next_code: str | None = None


@dataclass(frozen=True, slots=True)
class HandRecord:
    """One hand of a room. ``result``/``settlement``/``ended_at`` are ``None`` and ``deltas``
    is empty until the hand is settled; ``deltas[i]`` is seat ``i``'s points for the hand."""

    code: str
    hand_no: int
    seed: str
    dealer: int
    dealer_streak: int
    started_at: datetime
    ended_at: datetime | None
    result: str | None
    settlement: dict[str, Any] | None
    deltas: list[int]
    #: The weekday taken at the deal (1 = Monday .. 7 = Sunday), replayed for 星期鸡.
    weekday: int | None = None
    #: The hand's database id (``GET /api/replays/{id}``) and its replay link's key.
    id: int | None = None
    replay_key: str | None = None


@dataclass(frozen=True, slots=True)
class StartedHand:
    """What :meth:`Store.start_hand` made: the hand's database ``id`` and its ``replay_key``
    (32 hex digits), the two parts of its replay link."""

    id: int
    replay_key: str


@dataclass(frozen=True, slots=True)
class FinishedHand:
    """What :meth:`Store.finish_hand` did.

    ``settled``: ``True`` if this call settled the hand, ``False`` if it was already settled
    (nothing of the settlement was written again). ``totals[i]``: seat ``i``'s running total
    over the room's settled hands after this hand, as committed.
    """

    settled: bool
    totals: list[int]


def _aware(ts: datetime | None) -> datetime | None:
    """SQLite hands back naive datetimes; everything stored is UTC."""
    if ts is not None and ts.tzinfo is None:
        return ts.replace(tzinfo=UTC)
    return ts


def _migrations_dir() -> Path:
    """Find ``migrations/``: next to the package (a checkout / editable install), else in
    the working directory (``pip install .`` run from the checkout, as in the Dockerfile)."""
    candidates = [Path(__file__).resolve().parents[2] / "migrations", Path.cwd() / "migrations"]
    for candidate in candidates:
        if (candidate / "env.py").is_file():
            return candidate
    raise FileNotFoundError(
        "migrations/ not found (looked in " + ", ".join(str(c) for c in candidates) + ")"
    )


def _check_int(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{what} must be an int, got {value!r}")
    return value


def _check_settlement(payments: list[dict[str, Any]], deltas: list[int]) -> list[int]:
    """Integers, zero sum, and payments that net to ``deltas``; returns ``deltas``."""
    deltas = [_check_int(d, "delta") for d in deltas]
    if sum(deltas) != 0:
        raise ValueError(f"deltas {deltas} do not sum to zero")
    net = [0] * len(deltas)
    for p in payments:
        frm, to = _check_int(p["from"], "from"), _check_int(p["to"], "to")
        points = _check_int(p["points"], "points")
        if not (0 <= frm < len(deltas) and 0 <= to < len(deltas)):
            raise ValueError(f"payment {p} names a seat outside 0..{len(deltas) - 1}")
        net[frm] -= points
        net[to] += points
    if net != deltas:
        raise ValueError(f"payments net to {net}, not to deltas {deltas}")
    return deltas


_INSERT_ACTIONS = insert(Action)
_ACTION_COLUMNS = ("hand_id", "idx", "seat", "payload", "created_at")
_INSERT_ACTIONS_SQL = (
    f"INSERT INTO actions ({', '.join(_ACTION_COLUMNS)}) VALUES ({', '.join('?' * 5)})"
)


def _bind_processors(dialect: Any, table: Any, columns: Sequence[str]) -> list[Any]:
    """Each column's own bind processor for ``dialect`` (``None``: the value goes as is):
    what SQLAlchemy applies to a value of that column before the driver sees it."""
    return [table.c[name].type._cached_bind_processor(dialect) for name in columns]


def _bound(procs: Sequence[Any], values: Sequence[Any]) -> tuple[Any, ...]:
    """``values`` (one per column of `_bind_processors`' ``procs``, in order) as the driver
    gets them: each through its column's processor, if it has one."""
    return tuple(v if proc is None else proc(v) for v, proc in zip(values, procs, strict=True))


def _action_params(procs: Sequence[Any], rows: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """``rows`` of ``actions`` as the driver's parameter tuples (columns `_ACTION_COLUMNS`,
    ``procs`` their processors): the same stored values as ``insert(Action)``."""
    return [_bound(procs, [row[name] for name in _ACTION_COLUMNS]) for row in rows]


#: Commits of the action log's own connection between two checkpoints (its pages: a few
#: MB of WAL at most; SQLite's own automatic checkpoint comes at 1,000 pages).
LOG_CHECKPOINT_EVERY = 500


def _sqlite_insert_actions(raw: sqlite3.Connection, params: list[tuple[Any, ...]]) -> None:
    """``BEGIN IMMEDIATE``, one executemany of ``params`` into ``actions``, ``COMMIT`` on the
    driver connection ``raw`` (in autocommit mode); rolled back if anything fails."""
    raw.execute("BEGIN IMMEDIATE")
    try:
        raw.executemany(_INSERT_ACTIONS_SQL, params)
        raw.execute("COMMIT")
    except BaseException:
        if raw.in_transaction:
            raw.execute("ROLLBACK")
        raise


def _sqlite_log_connection(path: str) -> sqlite3.Connection:
    """The action log's own connection to the SQLite file ``path`` (see
    `Store._sqlite_append_here`): the store's pragmas, but it never waits for the write
    lock and never checkpoints. Usable from any thread, one at a time (each event loop of
    the store has its own)."""
    raw = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    _sqlite_on_connect(raw, None)
    raw.execute("PRAGMA busy_timeout=0")
    raw.execute("PRAGMA wal_autocheckpoint=0")
    return raw


def _sqlite_error(exc: sqlite3.Error, params: list[tuple[Any, ...]]) -> StatementError:
    """The action log's ``sqlite3`` error as SQLAlchemy's (``IntegrityError`` for a
    duplicate ``idx``), as every other write raises it."""
    return DBAPIError.instance(_INSERT_ACTIONS_SQL, params, exc, sqlite3.Error)


def _log_checkpoint_failure(done: asyncio.Future[None]) -> None:
    if not done.cancelled() and done.exception() is not None:
        log.warning("SQLite checkpoint failed: %r", done.exception())


_INSERT_LEDGER = insert(LedgerEntry)
# seat_deltas.player_id / profile_id are looked up in the INSERT itself: no SELECT round trip
# per hand.
_SEAT_ROW = (Player.room_id == bindparam("room_id"), Player.seat == bindparam("seat"))
_INSERT_SEAT_DELTAS = insert(SeatDelta).values(
    hand_id=bindparam("hand_id"),
    seat=bindparam("seat"),
    delta=bindparam("delta"),
    player_id=select(Player.id).where(*_SEAT_ROW).scalar_subquery(),
    profile_id=select(Player.profile_id).where(*_SEAT_ROW).scalar_subquery(),
)


# Built once: the hot statements' cache keys are then not recomputed on every call.
_SETTLE_HAND = (
    update(Hand)
    .where(Hand.id == bindparam("hid"), Hand.ended_at.is_(None))
    .values(
        ended_at=bindparam("ended_at"),
        result=bindparam("result"),
        settlement=bindparam("settlement"),
    )
)
_SET_STATUS = update(Room).where(Room.id == bindparam("rid")).values(status=bindparam("status"))
#: A hand's end sets the room's status only while no later hand exists: a process that lost
#: the room's lease while stalled, ending a hand the new owner already settled and moved on
#: from, must not put the room back to that hand's status.
_END_STATUS = _SET_STATUS.where(
    ~exists().where(Hand.room_id == bindparam("rid"), Hand.hand_no > bindparam("hand_no"))
)


# ---------------------------------------------------------------------- PostgreSQL
# The hot writes (the action log, the end of a hand) run on the asyncpg connection itself:
# through SQLAlchemy's layers each cost more Python than its round trip (issue 9: <= 2x
# pgbench on the same statements; bench/store.py builds its pgbench scripts from these
# strings). The connection is one of the engine's (its settings, the dialect's JSON codecs);
# values are bound by their columns' own types (`_bind_processors`: what is stored is what
# ``insert(Action)`` etc. store); errors are raised as SQLAlchemy raises them (`_pg_error`).
# SQLAlchemy's events do not see these statements.

PG_INSERT_ACTION = f"INSERT INTO actions ({', '.join(_ACTION_COLUMNS)}) VALUES ($1, $2, $3, $4, $5)"
PG_SETTLE_HAND = (
    "UPDATE hands SET ended_at = $2, result = $3, settlement = $4"
    " WHERE hands.id = $1 AND hands.ended_at IS NULL"
)
_LEDGER_COLUMNS = ("hand_id", "from_seat", "to_seat", "points", "reason", "detail", "created_at")
PG_INSERT_LEDGER = (
    f"INSERT INTO ledger_entries ({', '.join(_LEDGER_COLUMNS)}) VALUES ($1, $2, $3, $4, $5, $6, $7)"
)
# player_id / profile_id looked up in the INSERT itself, as _INSERT_SEAT_DELTAS does.
PG_INSERT_SEAT_DELTA = (
    "INSERT INTO seat_deltas (hand_id, seat, player_id, delta, profile_id) VALUES ($1, $2,"
    " (SELECT players.id FROM players WHERE players.room_id = $3 AND players.seat = $2), $4,"
    " (SELECT players.profile_id FROM players WHERE players.room_id = $3"
    " AND players.seat = $2))"
)
PG_SET_STATUS = (
    "UPDATE rooms SET status = $2 WHERE rooms.id = $1 AND NOT EXISTS"
    " (SELECT 1 FROM hands WHERE hands.room_id = $1 AND hands.hand_no > $3)"
)  # as _END_STATUS
_HAND_START_COLUMNS = (
    "room_id",
    "hand_no",
    "seed",
    "dealer",
    "dealer_streak",
    "weekday",
    "started_at",
    "replay_key",
)
PG_START_HAND = (
    f"INSERT INTO hands ({', '.join(_HAND_START_COLUMNS)})"
    " VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING hands.id"
)
# The same with the room's status set in the same statement ($9), atomic with it.
PG_START_HAND_SET_STATUS = (
    "WITH room AS (UPDATE rooms SET status = $9 WHERE rooms.id = $1) " + PG_START_HAND
)
# Only when this store has not cached the ids / the caller keeps no totals:
_PG_ROOM_ID = "SELECT rooms.id FROM rooms WHERE rooms.code = $1"
_PG_HAND_ID = (
    "SELECT hands.id FROM hands JOIN rooms ON rooms.id = hands.room_id"
    " WHERE rooms.code = $1 AND hands.hand_no = $2"
)
_PG_ROOM_OPTIONS = "SELECT rooms.options FROM rooms WHERE rooms.id = $1"
#: Each seat's total over a room's settled hands with the admin's corrections (as the
#: admin's and 战绩's effective deltas): a voided hand counts for nothing, an adjustment
#: of a hand not voided moves its points. ``{rid}``: the room id's placeholder.
_SEAT_SUMS = (
    "SELECT seat, sum(points) FROM ("
    " SELECT sd.seat AS seat, sd.delta AS points FROM seat_deltas sd"
    " JOIN hands h ON h.id = sd.hand_id WHERE h.room_id = {rid} AND NOT EXISTS"
    " (SELECT 1 FROM corrections v WHERE v.hand_id = h.id AND v.kind = 'void')"
    " UNION ALL SELECT c.from_seat, -c.points FROM corrections c"
    " JOIN hands h ON h.id = c.hand_id WHERE h.room_id = {rid} AND c.kind = 'adjust' AND NOT EXISTS"
    " (SELECT 1 FROM corrections v WHERE v.hand_id = h.id AND v.kind = 'void')"
    " UNION ALL SELECT c.to_seat, c.points FROM corrections c"
    " JOIN hands h ON h.id = c.hand_id WHERE h.room_id = {rid} AND c.kind = 'adjust' AND NOT EXISTS"
    " (SELECT 1 FROM corrections v WHERE v.hand_id = h.id AND v.kind = 'void')"
    ") t GROUP BY seat"
)
_PG_SEAT_SUMS = _SEAT_SUMS.format(rid="$1")
_SQL_SEAT_SUMS = text(_SEAT_SUMS.format(rid=":rid"))
_PG_MAX_SEAT = "SELECT max(players.seat) FROM players WHERE players.room_id = $1"


async def _pg_insert_actions(stmt: Any, params: list[tuple[Any, ...]]) -> None:
    """One batch of the action log on the prepared `PG_INSERT_ACTION` ``stmt``, atomic:
    asyncpg's executemany pipelines every row up to one Sync (one implicit transaction, one
    round trip); a single row is one Bind/Execute/Sync all the same."""
    if len(params) == 1:
        await stmt.fetchval(*params[0])
    else:
        await stmt.executemany(params)


def _pg_error(dialect: Any, exc: Exception, sql: str, params: Any, raw: Any) -> Exception:
    """asyncpg's ``exc`` (from ``sql`` on the driver connection ``raw``) as SQLAlchemy
    raises it for the same statement: the dialect's own translation (``IntegrityError`` for
    SQLSTATE class 23, ``InterfaceError`` for a closed connection, ...) wrapped in
    ``sqlalchemy.exc.DBAPIError``, ``connection_invalidated`` if ``raw`` is closed. Anything
    else (``OSError``, ``TypeError``) as it is, as SQLAlchemy lets it through."""
    dbapi = dialect.loaded_dbapi
    mapping = dbapi._asyncpg_error_translate
    for cls in type(exc).__mro__:
        translated = mapping.get(cls)
        if translated is not None:
            message = exc.args[0] if exc.args else str(exc)
            return cast(
                Exception,
                DBAPIError.instance(
                    sql,
                    params,
                    translated(message, exc),
                    dbapi.Error,
                    connection_invalidated=bool(raw is not None and raw.is_closed()),
                ),
            )
    return exc


async def _pg_totals(raw: Any, room_id: int) -> list[int]:
    """`_read_totals` on the driver connection ``raw``."""
    options = await raw.fetchval(_PG_ROOM_OPTIONS, room_id)
    sums = {seat: total for seat, total in await raw.fetch(_PG_SEAT_SUMS, room_id)}
    max_seat = await raw.fetchval(_PG_MAX_SEAT, room_id)
    return _totals_of(options, sums, max_seat)


@dataclass(slots=True)
class _Queued:
    """One ``append_action`` waiting for its batch."""

    code: str
    hand_no: int
    idx: int
    seat: int
    payload: dict[str, Any]
    future: asyncio.Future[None]
    hand_id: int | None = None


class _LoopState:
    """What the store keeps per event loop: the action queue and its writer task."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.queue: list[_Queued] = []
        self.writer: asyncio.Task[None] | None = None
        # PostgreSQL: the writer keeps one connection checked out of the pool (no checkout
        # per batch) and writes on its asyncpg connection with a prepared INSERT
        self.log_conn: AsyncConnection | None = None
        self.log_raw: Any = None  # its asyncpg connection
        self.log_insert: Any = None  # asyncpg PreparedStatement of PG_INSERT_ACTION
        # SQLite file: the action log's own connection, used on this loop's thread only
        self.sqlite_log: sqlite3.Connection | None = None
        self.sqlite_log_commits = 0


class Store:
    """Async access to the database at ``url`` (``sqlite+aiosqlite://`` or
    ``postgresql+asyncpg://``). Create once per process; ``await close()`` at shutdown.

    The schema is made only by :meth:`migrate` (Alembic ``upgrade head``).

    ``engine`` is the reading engine (on PostgreSQL also the writing one). On a SQLite file
    every write transaction runs whole, as one call, on one connection in one thread of its
    own (a synchronous ``pysqlite`` engine with ``BEGIN IMMEDIATE``): SQLite's write lock is
    taken and released inside that call, never held across an ``await``, and the store's
    writes never contend with each other.
    """

    def __init__(self, url: str, *, echo: bool = False) -> None:
        self.url = url
        self.engine: AsyncEngine = create_async_engine(url, echo=echo, json_serializer=json_text)
        self._sqlite = self.engine.dialect.name == "sqlite"
        self._sqlite_writer: Engine | None = None
        self._sqlite_thread: ThreadPoolExecutor | None = None
        self._sqlite_conn: Connection | None = None  # the writer's, used in its thread only
        self._sqlite_path: str | None = None  # a SQLite file's path (None: PostgreSQL, memory)
        if self._sqlite:
            event.listen(self.engine.sync_engine, "connect", _sqlite_on_connect)
            parsed = make_url(url)
            database = parsed.database
            if database and database != ":memory:" and "mode=memory" not in url:
                writer = create_engine(
                    parsed.set(drivername="sqlite+pysqlite"),
                    echo=echo,
                    json_serializer=json_text,
                    poolclass=QueuePool,
                    pool_size=1,
                    max_overflow=0,
                )
                event.listen(writer, "connect", _sqlite_on_connect)
                # As the SQLAlchemy SQLite docs ("Enabling Non-Legacy SQLite Transactional
                # Modes") show: no implicit BEGIN from the driver, our own BEGIN IMMEDIATE.
                event.listen(writer, "connect", _sqlite_writer_on_connect)
                event.listen(writer, "begin", _sqlite_begin_immediate)
                self._sqlite_writer = writer
                self._sqlite_action_procs = _bind_processors(
                    writer.dialect, Action.__table__, _ACTION_COLUMNS
                )
                self._sqlite_thread = ThreadPoolExecutor(1, thread_name_prefix="store-writer")
                self._sqlite_path = database
            # (an in-memory database is one per connection: there reads and writes share
            # the async engine's single connection)
        if self.engine.dialect.name == "postgresql":
            dialect = self.engine.dialect
            self._pg_action_procs = _bind_processors(dialect, Action.__table__, _ACTION_COLUMNS)
            self._pg_hand_procs = _bind_processors(
                dialect, Hand.__table__, ("ended_at", "settlement")
            )
            self._pg_ledger_procs = _bind_processors(
                dialect, LedgerEntry.__table__, _LEDGER_COLUMNS
            )
            self._pg_start_procs = _bind_processors(dialect, Hand.__table__, _HAND_START_COLUMNS)
        self._sessions = async_sessionmaker(self.engine, expire_on_commit=False)
        self._room_ids: dict[str, int] = {}
        self._hand_ids: dict[tuple[str, int], int] = {}
        self._state: _LoopState | None = None

    @property
    def write_engine(self) -> Engine:
        """The (synchronous) :class:`~sqlalchemy.engine.Engine` whose events see every write:
        the SQLite writer, or :attr:`engine`'s ``sync_engine`` on PostgreSQL."""
        return self._sqlite_writer or self.engine.sync_engine

    async def close(self) -> None:
        """Let the queued actions commit, then close every connection. The store is unusable
        afterwards."""
        state = self._state
        if state is not None and state.loop is _running_loop():
            if state.writer is not None:
                await asyncio.gather(state.writer, return_exceptions=True)
            if state.log_conn is not None:
                await state.log_conn.close()
                state.log_conn = state.log_raw = state.log_insert = None
            if state.sqlite_log is not None:
                state.sqlite_log.close()
                state.sqlite_log = None
        if self._sqlite_thread is not None and self._sqlite_writer is not None:
            await asyncio.get_running_loop().run_in_executor(
                self._sqlite_thread, self._sqlite_dispose
            )
            self._sqlite_thread.shutdown(wait=True)
        await self.engine.dispose()

    async def migrate(self) -> None:
        """Bring the schema up to date (Alembic ``upgrade head``); safe to call repeatedly."""
        from alembic import command
        from alembic.config import Config

        cfg = Config()
        cfg.set_main_option("script_location", str(_migrations_dir()))
        cfg.attributes["configure_logger"] = False

        def upgrade(connection: Connection) -> None:
            if connection.dialect.name == "postgresql":
                # Several processes may start at once: one migrates, the others wait here
                # (the lock ends with the transaction) and then find the schema current.
                connection.execute(text("SELECT pg_advisory_xact_lock(7461303931)"))
            cfg.attributes["connection"] = connection
            command.upgrade(cfg, "head")

        await self._write(upgrade)

    # ------------------------------------------------------------------ helpers

    def _loop_state(self) -> _LoopState:
        loop = running_loop()
        state = self._state
        if state is None or state.loop is not loop:
            state = self._state = _LoopState(loop)
        return state

    async def _write(self, work: Callable[[Connection], T]) -> T:
        """Run ``work(connection)`` as one write transaction: committed if it returns, rolled
        back if it raises. On a SQLite file it runs whole in the writer thread (one at a time,
        in call order); otherwise in the async engine's greenlet bridge."""
        if self._sqlite_thread is not None:
            return await asyncio.get_running_loop().run_in_executor(
                self._sqlite_thread, self._sqlite_transaction, work
            )
        async with self.engine.begin() as conn:
            return await conn.run_sync(work)

    def _writer_connection(self) -> Connection:
        """The writer's connection, kept open in the writer thread (no pool checkout and
        reset per transaction: most of a small write's cost); a fresh one after a failure."""
        assert self._sqlite_writer is not None
        conn = self._sqlite_conn
        if conn is None or conn.closed or conn.invalidated:
            conn = self._sqlite_conn = self._sqlite_writer.connect()
        return conn

    def _drop_writer_connection(self, conn: Connection) -> None:
        """Close the writer's ``conn`` after a failure that may have broken it."""
        self._sqlite_conn = None
        with suppress(Exception):
            conn.close()

    def _sqlite_transaction(self, work: Callable[[Connection], T]) -> T:
        """``work`` in one transaction on the writer's connection, in the writer thread."""
        conn = self._writer_connection()
        try:
            with conn.begin():
                return work(conn)
        except DBAPIError as exc:
            if exc.connection_invalidated or not isinstance(exc, IntegrityError):
                self._drop_writer_connection(conn)
            raise

    def _sqlite_append(self, params: list[tuple[Any, ...]]) -> None:
        """One batch of the action log in one transaction on the writer's connection, in the
        writer thread (when `_sqlite_append_here` found the write lock taken): waits for
        the lock (``busy_timeout``). Run on the ``sqlite3`` connection itself (SQLAlchemy's
        connection layer would double an append's cost; its events do not see these
        statements); a ``sqlite3`` error is raised as SQLAlchemy's (`_sqlite_error`)."""
        conn = self._writer_connection()
        try:
            _sqlite_insert_actions(
                cast(sqlite3.Connection, conn.connection.dbapi_connection), params
            )
        except sqlite3.Error as exc:
            err = _sqlite_error(exc, params)
            if not isinstance(err, IntegrityError):
                self._drop_writer_connection(conn)
            raise err from exc

    def _sqlite_append_here(self, params: list[tuple[Any, ...]]) -> bool:
        """Write one batch of the action log right here, on the event loop's thread, on the
        log's own connection: ``BEGIN IMMEDIATE``, one ``executemany``, ``COMMIT``, a few
        tens of microseconds in WAL with ``synchronous=NORMAL`` (no fsync), where a hop to
        the writer thread and back costs more than the write. Nothing here can block the
        loop: the connection never waits for the write lock (``busy_timeout=0``) and never
        checkpoints (``wal_autocheckpoint=0``; `_sqlite_checkpoint` runs in the writer
        thread every `LOG_CHECKPOINT_EVERY` commits).

        Returns False, having written nothing, when the write lock is taken (the writer
        thread is in a transaction, or another process is): the caller then writes the
        batch in the writer thread (`_sqlite_append`), which waits for it. Raises as
        `_sqlite_append`."""
        state = self._loop_state()
        raw = state.sqlite_log
        if raw is None:
            assert self._sqlite_path is not None
            raw = state.sqlite_log = _sqlite_log_connection(self._sqlite_path)
        try:
            _sqlite_insert_actions(raw, params)
        except sqlite3.Error as exc:
            if exc.sqlite_errorcode & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
                return False
            err = _sqlite_error(exc, params)
            if not isinstance(err, IntegrityError):  # maybe broken: a fresh one next time
                state.sqlite_log = None
                with suppress(Exception):
                    raw.close()
            raise err from exc
        state.sqlite_log_commits += 1
        if state.sqlite_log_commits % LOG_CHECKPOINT_EVERY == 0:
            assert self._sqlite_thread is not None
            done = state.loop.run_in_executor(self._sqlite_thread, self._sqlite_checkpoint)
            done.add_done_callback(_log_checkpoint_failure)
        return True

    def _sqlite_checkpoint(self) -> None:
        """Move the WAL's pages into the database file (``PASSIVE``: waits for nobody), in
        the writer thread, for the commits of the log's connection, which never does."""
        raw = self._writer_connection().connection.dbapi_connection
        assert raw is not None
        raw.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()

    def _sqlite_dispose(self) -> None:
        if self._sqlite_conn is not None:
            with suppress(Exception):
                self._sqlite_conn.close()
            self._sqlite_conn = None
        assert self._sqlite_writer is not None
        self._sqlite_writer.dispose()

    def _room_id_in(self, conn: Connection, code: str) -> int:
        room_id = self._room_ids.get(code)
        if room_id is None:
            room_id = conn.scalar(select(Room.id).where(Room.code == code))
            if room_id is None:
                raise NotFound(f"unknown room {code!r}")
            self._room_ids[code] = room_id
        return room_id

    def forget(self, code: str) -> None:
        """Drop the row ids cached for room ``code`` (looked up again when next needed), so
        that a room no longer in memory leaves nothing behind here either."""
        self._room_ids.pop(code, None)
        for key in [k for k in self._hand_ids if k[0] == code]:
            del self._hand_ids[key]

    def _hand_id_in(self, conn: Connection, code: str, hand_no: int) -> int:
        hand_id = self._hand_ids.get((code, hand_no))
        if hand_id is None:
            hand_id = conn.scalar(
                select(Hand.id)
                .join(Room, Room.id == Hand.room_id)
                .where(Room.code == code, Hand.hand_no == hand_no)
            )
            if hand_id is None:
                raise NotFound(f"unknown hand {hand_no} of room {code!r}")
            self._hand_ids[(code, hand_no)] = hand_id
        return hand_id

    async def _room_id(self, s: AsyncSession, code: str) -> int:
        room_id = self._room_ids.get(code)
        if room_id is None:
            room_id = await s.scalar(select(Room.id).where(Room.code == code))
            if room_id is None:
                raise NotFound(f"unknown room {code!r}")
            self._room_ids[code] = room_id
        return room_id

    async def _hand_id(self, s: AsyncSession, code: str, hand_no: int) -> int:
        hand_id = self._hand_ids.get((code, hand_no))
        if hand_id is None:
            hand_id = await s.scalar(
                select(Hand.id)
                .join(Room, Room.id == Hand.room_id)
                .where(Room.code == code, Hand.hand_no == hand_no)
            )
            if hand_id is None:
                raise NotFound(f"unknown hand {hand_no} of room {code!r}")
            self._hand_ids[(code, hand_no)] = hand_id
        return hand_id

    # ------------------------------------------------------------------ rooms and seats

    async def create_room(self, code: str, game: str, options: dict[str, Any]) -> None:
        """Create room ``code`` with status ``"open"``. Raises :class:`Conflict` if the code
        is taken."""

        def work(conn: Connection) -> int | None:
            return conn.scalar(
                insert(Room)
                .values(code=code, game=game, options=options, status="open")
                .returning(Room.id)
            )

        try:
            room_id = await self._write(work)
        except IntegrityError as exc:
            raise Conflict(f"room code {code!r} is taken") from exc
        if room_id is not None:
            self._room_ids[code] = room_id

    async def add_player(
        self,
        code: str,
        seat: int,
        name: str,
        token_hash: str,
        is_bot: bool,
        *,
        profile_id: int | None = None,
    ) -> None:
        """Put a player in ``seat`` of room ``code``, a human with their ``profile_id``
        (:mod:`server.store.profiles`; ``None`` for a bot). Raises :class:`NotFound` for an
        unknown room, :class:`AlreadySeated` if the profile holds a seat of the room already
        (a unique key: concurrent joins cannot both pass), :class:`Conflict` if the seat is
        taken (or the profile does not exist)."""

        def work(conn: Connection) -> None:
            conn.execute(
                insert(Player).values(
                    room_id=self._room_id_in(conn, code),
                    seat=seat,
                    name=name,
                    token_hash=token_hash,
                    is_bot=is_bot,
                    profile_id=profile_id,
                )
            )

        def seated(conn: Connection) -> bool:
            return (
                conn.scalar(
                    select(Player.id)
                    .where(Player.room_id == self._room_id_in(conn, code))
                    .where(Player.profile_id == profile_id)
                    .limit(1)
                )
                is not None
            )

        try:
            await self._write(work)
        except IntegrityError as exc:
            async with self.engine.connect() as conn:
                taken = profile_id is not None and await conn.run_sync(seated)
            if taken:
                raise AlreadySeated(f"profile {profile_id} holds a seat of room {code!r}") from exc
            raise Conflict(f"seat {seat} of room {code!r} is taken") from exc

    async def remove_bot(self, code: str, seat: int) -> None:
        """Free ``seat`` of room ``code`` if a bot holds it (a room not dealt yet: the
        caller checks). Raises :class:`NotFound` for an unknown room or no bot there."""

        def work(conn: Connection) -> None:
            done = conn.execute(
                delete(Player).where(
                    Player.room_id == self._room_id_in(conn, code),
                    Player.seat == seat,
                    Player.is_bot.is_(True),
                )
            )
            if done.rowcount == 0:
                raise NotFound(f"no bot in seat {seat} of room {code!r}")

        await self._write(work)

    async def set_room_status(self, code: str, status: str) -> None:
        """Set the room's status (e.g. ``"open"``, ``"playing"``, ``"closed"``). Raises
        :class:`NotFound` for an unknown room."""

        def work(conn: Connection) -> None:
            done = conn.execute(update(Room).where(Room.code == code).values(status=status))
            if done.rowcount != 1:
                raise NotFound(f"unknown room {code!r}")

        await self._write(work)

    async def set_next_room(self, code: str, next_code: str) -> str:
        """Record ``next_code`` as room ``code``'s next room (再来一场) unless one is already
        recorded; returns the one recorded (so concurrent callers agree on the first).
        Raises :class:`NotFound` for an unknown room."""

        def work(conn: Connection) -> str:
            conn.execute(
                update(Room)
                .where(Room.code == code, Room.next_code.is_(None))
                .values(next_code=next_code)
            )
            found = conn.execute(select(Room.next_code).where(Room.code == code)).first()
            if found is None:
                raise NotFound(f"unknown room {code!r}")
            return str(found[0])

        return await self._write(work)

    async def next_room(self, code: str) -> str | None:
        """Room ``code``'s next room (再来一场), None before one is made or for an unknown room."""
        async with self._sessions() as s:
            return await s.scalar(select(Room.next_code).where(Room.code == code))

    async def previous_room(self, code: str) -> str | None:
        """The room whose next room (再来一场) is ``code``, None if there is none. (No index:
        asked only when a room not yet dealt is loaded.)"""
        async with self._sessions() as s:
            return await s.scalar(select(Room.code).where(Room.next_code == code).limit(1))

    async def fence(self, code: str) -> int:
        """Start a new lease generation of room ``code`` and return it (1, 2, ...): every
        action logged later with an older ``payload["lease"]`` is refused (:class:`Conflict`),
        by a trigger (migration 0004). Waits for older-generation appends in flight, so what
        the new owner then reads includes them. Raises :class:`NotFound` for an unknown room."""

        def work(conn: Connection) -> int | None:
            return conn.scalar(
                update(Room)
                .where(Room.code == code)
                .values(lease_gen=Room.lease_gen + 1)
                .returning(Room.lease_gen)
            )

        gen = await self._write(work)
        if gen is None:
            raise NotFound(f"unknown room {code!r}")
        return int(gen)

    # ------------------------------------------------------------------ hands and the log

    async def start_hand(
        self,
        code: str,
        hand_no: int,
        seed: str,
        dealer: int,
        dealer_streak: int,
        weekday: int | None = None,
        *,
        status: str | None = None,
    ) -> StartedHand:
        """Record the start of hand ``hand_no`` (numbers are per room) with what its replay
        needs: seed, dealer, streak and the deal's ``weekday`` (1..7, for 星期鸡), and a new
        random replay key (128 bits, 32 hex digits); with ``status``, set the room's status
        to it in the same transaction. Returns the hand's id and that key
        (:class:`StartedHand`). Raises :class:`NotFound` for an unknown room,
        :class:`Conflict` if that hand exists (nothing is written then)."""
        replay_key = secrets.token_hex(16)
        if self.engine.dialect.name == "postgresql":
            started = await self._pg_start(
                code, (hand_no, seed, dealer, dealer_streak, weekday, utcnow(), replay_key), status
            )
            self._hand_ids[(code, hand_no)] = started
            return StartedHand(started, replay_key)

        def work(conn: Connection) -> int | None:
            room_id = self._room_id_in(conn, code)
            if status is not None:
                conn.execute(_SET_STATUS, {"rid": room_id, "status": status})
            return conn.scalar(
                insert(Hand)
                .values(
                    room_id=room_id,
                    hand_no=hand_no,
                    seed=seed,
                    dealer=dealer,
                    dealer_streak=dealer_streak,
                    weekday=weekday,
                    replay_key=replay_key,
                )
                .returning(Hand.id)
            )

        try:
            hand_id = await self._write(work)
        except IntegrityError as exc:
            raise Conflict(f"hand {hand_no} of room {code!r} exists") from exc
        assert hand_id is not None  # INSERT ... RETURNING gives the id
        self._hand_ids[(code, hand_no)] = hand_id
        return StartedHand(int(hand_id), replay_key)

    async def _pg_start(self, code: str, values: tuple[Any, ...], status: str | None) -> int:
        """:meth:`start_hand` on PostgreSQL: `PG_START_HAND` (or, with ``status``,
        `PG_START_HAND_SET_STATUS`), one statement on the asyncpg connection of a pooled
        connection (the room's id looked up first unless cached). ``values``: the columns of
        `_HAND_START_COLUMNS` after ``room_id``."""
        hand_no = values[0]
        async with self._pg_raw() as raw:
            sql = _PG_ROOM_ID
            params: tuple[Any, ...] = (code,)
            try:
                room_id = self._room_ids.get(code)
                if room_id is None:
                    room_id = await raw.fetchval(_PG_ROOM_ID, code)
                    if room_id is None:
                        raise NotFound(f"unknown room {code!r}")
                    self._room_ids[code] = room_id
                params = _bound(self._pg_start_procs, (room_id, *values))
                if status is None:
                    sql = PG_START_HAND
                else:
                    sql, params = PG_START_HAND_SET_STATUS, (*params, status)
                return int(await raw.fetchval(sql, *params))
            except asyncpg.UniqueViolationError as exc:
                raise Conflict(f"hand {hand_no} of room {code!r} exists") from exc
            except NotFound:
                raise
            except Exception as exc:
                raise _pg_error(self.engine.dialect, exc, sql, params, raw) from exc

    @asynccontextmanager
    async def _pg_raw(self) -> AsyncIterator[Any]:
        """The asyncpg connection of a connection checked out of the pool, for one piece of
        work on it: back into the pool after, unless the work raised while a transaction was
        open or raised anything but :class:`NotFound` / :class:`Conflict` (broken,
        interrupted or in doubt: dropped, never back into the pool mid-transaction)."""
        conn = await self.engine.connect()
        raw: Any = None
        clean = False
        try:
            raw = (await conn.get_raw_connection()).driver_connection
            yield raw
            clean = True
        except (NotFound, Conflict):
            clean = raw is not None and not raw.is_in_transaction()
            raise
        finally:
            if not clean:
                with suppress(Exception):
                    await conn.invalidate()
            await conn.close()

    async def hand_by_id(self, hand_id: int) -> HandRecord | None:
        """The hand with database id ``hand_id`` (with its room's code, deltas and replay
        key), or ``None`` if there is none."""
        async with self._sessions() as s:
            row = (
                await s.execute(
                    select(Room.code, Hand)
                    .join(Room, Room.id == Hand.room_id)
                    .where(Hand.id == hand_id)
                )
            ).first()
            if row is None:
                return None
            return (await self._hand_records(s, [(row[0], row[1])]))[0]

    async def append_action(
        self, code: str, hand_no: int, idx: int, seat: int, payload: dict[str, Any]
    ) -> None:
        """Append action number ``idx`` (0, 1, 2, ... per hand) by ``seat`` to the hand's log;
        returns once the row is committed (durable).

        Calls made in the same event-loop turn (and those made while the previous batch was
        being written) are committed together, in call order, by one executemany ``INSERT``
        in one transaction. Within a batch each call stands alone: a duplicate ``idx``
        (already logged, or queued earlier in the same batch) raises :class:`Conflict` for
        that call only, an unknown room/hand raises :class:`NotFound` for that call only, and
        the other rows of the batch are still committed. Any other failure of the batch
        (e.g. a lost connection, a payload that cannot be encoded) is raised to every caller
        of that batch and nothing of it is written. A caller cancelled before its batch is
        written is left out of it.
        """
        state = self._loop_state()
        future: asyncio.Future[None] = state.loop.create_future()
        state.queue.append(
            _Queued(code, hand_no, idx, seat, payload, future, self._hand_ids.get((code, hand_no)))
        )
        if state.writer is None or state.writer.done():
            # The task first runs after the callbacks already ready in this loop turn, so
            # everything they queue lands in the same batch.
            state.writer = state.loop.create_task(self._drain(state))
        await future

    async def _drain(self, state: _LoopState) -> None:
        """The per-store writer: commit batches until the queue is empty."""
        while state.queue:
            batch, state.queue = state.queue, []
            live = [q for q in batch if not q.future.done()]
            try:
                if live:
                    await self._commit_actions(live)
            except BaseException as exc:
                for q in batch:
                    if isinstance(exc, Exception):
                        _fail(q, exc)
                    elif not q.future.done():
                        q.future.cancel()
                if not isinstance(exc, Exception):
                    for q in state.queue:
                        q.future.cancel()
                    raise

    async def _commit_actions(self, batch: list[_Queued]) -> None:
        """Write one batch; resolve each waiter (result, Conflict or NotFound)."""
        missing = [q for q in batch if q.hand_id is None]
        if missing:  # rare: a hand this store did not start or read (another process's)
            async with self._sessions() as s:
                for q in missing:
                    try:
                        q.hand_id = await self._hand_id(s, q.code, q.hand_no)
                    except NotFound as exc:
                        _fail(q, exc)
        now = utcnow()
        rows: list[dict[str, Any]] = []
        keep: list[_Queued] = []
        seen: set[tuple[int, int]] = set()
        for q in batch:
            if q.hand_id is None or q.future.done():
                continue
            if (q.hand_id, q.idx) in seen:
                _fail(q, _action_conflict(q))
                continue
            seen.add((q.hand_id, q.idx))
            keep.append(q)
            rows.append(
                {
                    "hand_id": q.hand_id,
                    "idx": q.idx,
                    "seat": q.seat,
                    "payload": q.payload,
                    "created_at": now,
                }
            )
        if not rows:
            return
        try:
            if self._sqlite_thread is not None:
                params = _action_params(self._sqlite_action_procs, rows)
                if not self._sqlite_append_here(params):
                    await asyncio.get_running_loop().run_in_executor(
                        self._sqlite_thread, self._sqlite_append, params
                    )
            elif self.engine.dialect.name == "postgresql":
                await self._pg_append(rows)
            else:
                await self._insert_autocommit(rows)
        except IntegrityError:
            # Some idx is already logged and nothing of the batch was written: redo it row by
            # row, each in its own savepoint, so only the duplicate's caller fails.
            def one_by_one(conn: Connection) -> list[bool]:
                written = []
                for row in rows:
                    try:
                        with conn.begin_nested():
                            conn.execute(_INSERT_ACTIONS, [row])
                    except IntegrityError:
                        written.append(False)
                    else:
                        written.append(True)
                return written

            written = await self._write(one_by_one)
            for q, ok in zip(keep, written, strict=True):
                if not ok:
                    _fail(q, _action_conflict(q))
        for q in keep:
            if not q.future.done():
                q.future.set_result(None)

    async def _insert_autocommit(self, rows: list[dict[str, Any]]) -> None:
        """One batch through SQLAlchemy on the loop's connection (an in-memory SQLite
        database: its one connection is shared with the reads)."""
        state = self._loop_state()
        conn = state.log_conn
        if conn is None:
            conn = state.log_conn = await self.engine.execution_options(
                isolation_level="AUTOCOMMIT"
            ).connect()
        try:
            await conn.execute(_INSERT_ACTIONS, rows)
        except IntegrityError:
            await conn.rollback()  # no round trip: only SQLAlchemy's own state
            raise
        except BaseException:
            state.log_conn = None  # broken or interrupted: a fresh one next time
            with suppress(Exception):
                await conn.invalidate()
            raise
        await conn.commit()  # likewise no round trip in autocommit

    async def _pg_append(self, rows: list[dict[str, Any]]) -> None:
        """One batch of the action log on PostgreSQL, atomic, in one round trip: the
        prepared `PG_INSERT_ACTION` on the asyncpg connection the loop's writer keeps
        checked out of the pool (`_pg_insert_actions`). An integrity error (a duplicate
        ``idx``, a stale lease generation: nothing of the batch was written, the connection
        is fine) is raised as ``sqlalchemy.exc.IntegrityError``; any other failure drops the
        connection (a fresh one next batch) and is raised as SQLAlchemy would (`_pg_error`)."""
        params = _action_params(self._pg_action_procs, rows)
        state = self._loop_state()
        try:
            if state.log_insert is None:
                if state.log_conn is None:
                    state.log_conn = await self.engine.connect()
                state.log_raw = (await state.log_conn.get_raw_connection()).driver_connection
                state.log_insert = await state.log_raw.prepare(PG_INSERT_ACTION)
            await _pg_insert_actions(state.log_insert, params)
        except asyncpg.IntegrityConstraintViolationError as exc:
            raise _pg_error(
                self.engine.dialect, exc, PG_INSERT_ACTION, params, state.log_raw
            ) from exc
        except BaseException as exc:
            conn, raw = state.log_conn, state.log_raw
            state.log_conn = state.log_raw = state.log_insert = None
            err: BaseException = exc
            if isinstance(exc, Exception):  # before the invalidation below closes ``raw``
                err = _pg_error(self.engine.dialect, exc, PG_INSERT_ACTION, params, raw)
            if conn is not None:  # broken or interrupted: a fresh one next time
                with suppress(Exception):
                    await conn.invalidate()
            if err is exc:
                raise
            raise err from exc

    # ------------------------------------------------------------------ reads

    async def get_room(self, code: str) -> RoomRecord | None:
        """The room with its players sorted by seat, or ``None`` if there is no such room."""
        async with self._sessions() as s:
            room = await s.scalar(select(Room).where(Room.code == code))
            if room is None:
                return None
            players = (
                await s.scalars(
                    select(Player).where(Player.room_id == room.id).order_by(Player.seat)
                )
            ).all()
        return RoomRecord(
            code=room.code,
            game=room.game,
            options=dict(room.options),
            status=room.status,
            players=[
                PlayerRecord(p.seat, p.name, p.token_hash, p.is_bot, p.profile_id) for p in players
            ],
            created_at=_aware(room.created_at),
            next_code=room.next_code,
        )

    async def rooms(self, status: str | None = None) -> list[RoomRecord]:
        """Every room (optionally only those with ``status``), oldest first."""
        async with self._sessions() as s:
            query = select(Room.code).order_by(Room.id)
            if status is not None:
                query = query.where(Room.status == status)
            codes = list((await s.scalars(query)).all())
        out = []
        for code in codes:
            record = await self.get_room(code)
            if record is not None:
                out.append(record)
        return out

    async def unfinished_rooms(self, statuses: Sequence[str]) -> list[tuple[str, bool]]:
        """``[(code, bots_only), ...]`` of the rooms whose status is one of ``statuses``,
        oldest first, in one query (the sweeper's: it runs every lease period over every
        room); ``bots_only`` is true when the room has seats and none of them is human."""
        seated = select(Player.id).where(Player.room_id == Room.id)
        human = seated.where(Player.is_bot.is_(False))
        query = (
            select(Room.code, seated.exists() & ~human.exists())
            .where(Room.status.in_(list(statuses)))
            .order_by(Room.id)
        )
        async with self._sessions() as s:
            return [(code, bool(bots_only)) for code, bots_only in (await s.execute(query)).all()]

    async def hand_actions(self, code: str, hand_no: int) -> list[tuple[int, dict[str, Any]]]:
        """The hand's action log as ``[(seat, payload), ...]`` in ``idx`` order. Raises
        :class:`NotFound` for an unknown room/hand."""
        async with self._sessions() as s:
            hand_id = await self._hand_id(s, code, hand_no)
            rows = await s.execute(
                select(Action.seat, Action.payload)
                .where(Action.hand_id == hand_id)
                .order_by(Action.idx)
            )
            return [(seat, payload) for seat, payload in rows.all()]

    async def hands(self, code: str) -> list[HandRecord]:
        """Every hand of the room in ``hand_no`` order (empty for an unknown room)."""
        async with self._sessions() as s:
            rows = (
                (
                    await s.execute(
                        select(Hand)
                        .join(Room, Room.id == Hand.room_id)
                        .where(Room.code == code)
                        .order_by(Hand.hand_no)
                    )
                )
                .scalars()
                .all()
            )
            return await self._hand_records(s, [(code, h) for h in rows])

    async def all_hands(self) -> list[HandRecord]:
        """Every hand of every room, ordered by room (oldest first) then ``hand_no``."""
        async with self._sessions() as s:
            rows = (
                await s.execute(
                    select(Room.code, Hand)
                    .join(Room, Room.id == Hand.room_id)
                    .order_by(Room.id, Hand.hand_no)
                )
            ).all()
            return await self._hand_records(s, [(code, h) for code, h in rows])

    async def _hand_records(
        self, s: AsyncSession, hands: Sequence[tuple[str, Hand]]
    ) -> list[HandRecord]:
        ids = [h.id for _, h in hands]
        deltas: dict[int, list[tuple[int, int]]] = {}
        for chunk_start in range(0, len(ids), 500):
            chunk = ids[chunk_start : chunk_start + 500]
            rows = await s.execute(
                select(SeatDelta.hand_id, SeatDelta.seat, SeatDelta.delta)
                .where(SeatDelta.hand_id.in_(chunk))
                .order_by(SeatDelta.hand_id, SeatDelta.seat)
            )
            for hand_id, seat, delta in rows.all():
                deltas.setdefault(hand_id, []).append((seat, delta))
        return [
            HandRecord(
                code=code,
                hand_no=h.hand_no,
                seed=h.seed,
                dealer=h.dealer,
                dealer_streak=h.dealer_streak,
                started_at=_aware(h.started_at) or h.started_at,
                ended_at=_aware(h.ended_at),
                result=h.result,
                settlement=h.settlement,
                deltas=[d for _, d in deltas.get(h.id, [])],
                weekday=h.weekday,
                id=h.id,
                replay_key=h.replay_key,
            )
            for code, h in hands
        ]

    # ------------------------------------------------------------------ settlement

    async def settle_hand(
        self,
        code: str,
        hand_no: int,
        result: str,
        settlement: dict[str, Any],
        payments: list[dict[str, Any]],
        deltas: list[int],
    ) -> bool:
        """Settle a hand, once, in one transaction (:meth:`finish_hand` without the room
        status and totals).

        Sets the hand's ``ended_at``/``result``/``settlement``, writes one ``ledger_entries``
        row per payment (``{"from": seat, "to": seat, "points": int > 0, "reason": str,
        "detail": dict | None}``) and one ``seat_deltas`` row per seat (``deltas[i]`` for
        seat ``i``).

        Returns ``True`` if this call settled the hand, ``False`` (writing nothing) if the
        hand was already settled, by this process or any other.

        Raises:
            ValueError: ``deltas`` do not sum to zero, a value is not an int, or the payments
                do not net to ``deltas``.
            NotFound: unknown room or hand.
        """
        deltas = _check_settlement(payments, deltas)
        try:
            return await self._write(
                lambda conn: self._settle(conn, code, hand_no, result, settlement, payments, deltas)
            )
        except IntegrityError:
            return False

    async def finish_hand(
        self,
        code: str,
        hand_no: int,
        result: str,
        settlement: dict[str, Any],
        payments: list[dict[str, Any]],
        deltas: list[int],
        *,
        status: str | None,
        totals: Sequence[int] | None = None,
    ) -> FinishedHand:
        """End a hand in ONE transaction: settle it (once, as :meth:`settle_hand`), set the
        room's status to ``status`` (unless ``None``) and give the room's new totals.

        ``totals`` is the caller's running total per seat *before* this hand (as the room
        actor keeps it): when this call settles the hand the new totals are
        ``totals[i] + deltas[i]`` and no SELECT is made. Without ``totals``, or when the hand
        was already settled (a rebuilt room ending a hand whose settlement survived a crash),
        the totals are read in the same transaction, as :meth:`totals` would give them.

        The status is set whether or not this call settled the hand (a rebuilt room ending
        a hand settled before a crash), but only while the room has no later hand (a stale
        owner's late end of a hand must not undo the next one's status). If anything
        fails, nothing of it is written: no settled hand without its ledger, no status
        without the settlement.

        Returns:
            :class:`FinishedHand` ``(settled, totals)``.

        Raises:
            ValueError: as :meth:`settle_hand`; also ``totals`` not as long as ``deltas``.
            NotFound: unknown room or hand.
            Conflict: ``seat_deltas`` rows exist for a hand not marked settled (nothing is
                written).
        """
        deltas = _check_settlement(payments, deltas)
        if totals is not None and len(totals) != len(deltas):
            raise ValueError(f"totals {list(totals)} and deltas {deltas} differ in length")

        if self.engine.dialect.name == "postgresql":
            return await self._pg_finish(
                code, hand_no, result, settlement, payments, deltas, status, totals
            )

        def work(conn: Connection) -> FinishedHand:
            settled = self._settle(conn, code, hand_no, result, settlement, payments, deltas)
            room_id = self._room_id_in(conn, code)
            if status is not None:
                conn.execute(_END_STATUS, {"rid": room_id, "status": status, "hand_no": hand_no})
            if settled and totals is not None:
                return FinishedHand(True, [int(t) + d for t, d in zip(totals, deltas, strict=True)])
            return FinishedHand(settled, _read_totals(conn, room_id))

        try:
            return await self._write(work)
        except IntegrityError as exc:  # seat_deltas rows without a settled hand: a broken log
            raise Conflict(f"hand {hand_no} of room {code!r} has settlement rows") from exc

    async def _pg_finish(
        self,
        code: str,
        hand_no: int,
        result: str,
        settlement: dict[str, Any],
        payments: list[dict[str, Any]],
        deltas: list[int],
        status: str | None,
        totals: Sequence[int] | None,
    ) -> FinishedHand:
        """:meth:`finish_hand` on PostgreSQL (checked input): the statements of `_settle`
        and `_SET_STATUS` (`PG_SETTLE_HAND`, `PG_INSERT_LEDGER`, `PG_INSERT_SEAT_DELTA`,
        `PG_SET_STATUS`) in one transaction on the asyncpg connection of a pooled
        connection (`_pg_raw`); each executemany is one round trip."""
        async with self._pg_raw() as raw:
            sql = "BEGIN"
            params: Any = ()
            try:
                async with raw.transaction():
                    sql, params = _PG_HAND_ID, (code, hand_no)
                    hand_id = self._hand_ids.get((code, hand_no))
                    if hand_id is None:
                        hand_id = await raw.fetchval(_PG_HAND_ID, code, hand_no)
                        if hand_id is None:
                            raise NotFound(f"unknown hand {hand_no} of room {code!r}")
                        self._hand_ids[(code, hand_no)] = hand_id
                    room_id = self._room_ids.get(code)
                    if room_id is None:
                        sql, params = _PG_ROOM_ID, (code,)
                        room_id = await raw.fetchval(_PG_ROOM_ID, code)
                        if room_id is None:
                            raise NotFound(f"unknown room {code!r}")
                        self._room_ids[code] = room_id
                    now = utcnow()
                    ended_at, stored = _bound(self._pg_hand_procs, (now, settlement))
                    sql = PG_SETTLE_HAND
                    params = (hand_id, ended_at, result, stored)
                    # The conditional UPDATE is the guard (it takes the row lock first);
                    # uq_seat_deltas_hand_seat is the last line.
                    settled = await raw.execute(PG_SETTLE_HAND, *params) == "UPDATE 1"
                    if settled:
                        if payments:
                            sql = PG_INSERT_LEDGER
                            params = self._pg_ledger_rows(hand_id, now, payments)
                            await raw.executemany(PG_INSERT_LEDGER, params)
                        sql = PG_INSERT_SEAT_DELTA
                        params = [(hand_id, seat, room_id, d) for seat, d in enumerate(deltas)]
                        await raw.executemany(PG_INSERT_SEAT_DELTA, params)
                    if status is not None:
                        sql, params = PG_SET_STATUS, (room_id, status, hand_no)
                        await raw.execute(PG_SET_STATUS, room_id, status, hand_no)
                    if settled and totals is not None:
                        done = FinishedHand(
                            True, [int(t) + d for t, d in zip(totals, deltas, strict=True)]
                        )
                    else:
                        sql, params = _PG_SEAT_SUMS, (room_id,)
                        done = FinishedHand(settled, await _pg_totals(raw, room_id))
                    sql, params = "COMMIT", ()
                return done
            except NotFound:
                raise
            except asyncpg.IntegrityConstraintViolationError as exc:
                # seat_deltas rows without a settled hand: a broken log (rolled back)
                raise Conflict(f"hand {hand_no} of room {code!r} has settlement rows") from exc
            except Exception as exc:
                raise _pg_error(self.engine.dialect, exc, sql, params, raw) from exc

    def _pg_ledger_rows(
        self, hand_id: int, now: datetime, payments: list[dict[str, Any]]
    ) -> list[tuple[Any, ...]]:
        """`PG_INSERT_LEDGER`'s parameters, bound as `_settle` binds ``_INSERT_LEDGER``'s."""
        procs = self._pg_ledger_procs
        rows = [
            (
                hand_id,
                p["from"],
                p["to"],
                p["points"],
                str(p.get("reason", "")),
                p.get("detail"),
                now,
            )
            for p in payments
        ]
        return [_bound(procs, row) for row in rows]

    def _settle(
        self,
        conn: Connection,
        code: str,
        hand_no: int,
        result: str,
        settlement: dict[str, Any],
        payments: list[dict[str, Any]],
        deltas: list[int],
    ) -> bool:
        hand_id = self._hand_id_in(conn, code, hand_no)
        room_id = self._room_id_in(conn, code)
        now = utcnow()
        # The conditional UPDATE is the guard (it takes the row lock first on PostgreSQL; on
        # SQLite BEGIN IMMEDIATE already holds the write lock); uq_seat_deltas_hand_seat is
        # the last line.
        done = conn.execute(
            _SETTLE_HAND,
            {"hid": hand_id, "ended_at": now, "result": result, "settlement": settlement},
        )
        if done.rowcount != 1:
            return False  # already settled: nothing was changed
        if payments:
            conn.execute(
                _INSERT_LEDGER,
                [
                    {
                        "hand_id": hand_id,
                        "from_seat": p["from"],
                        "to_seat": p["to"],
                        "points": p["points"],
                        "reason": str(p.get("reason", "")),
                        "detail": p.get("detail"),
                        "created_at": now,
                    }
                    for p in payments
                ],
            )
        conn.execute(
            _INSERT_SEAT_DELTAS,
            [
                {"hand_id": hand_id, "room_id": room_id, "seat": seat, "delta": d}
                for seat, d in enumerate(deltas)
            ],
        )
        return True

    async def totals(self, code: str) -> list[int]:
        """Each seat's running total over the room's settled hands: ``totals[i]`` for seat
        ``i``. The list is as long as the room's seat count (``options["players"]`` if set,
        else the highest seat seen + 1). Raises :class:`NotFound` for an unknown room."""
        async with self._sessions() as s:
            room_id = await self._room_id(s, code)
            conn = await s.connection()
            return await conn.run_sync(_read_totals, room_id)

    async def ledger(
        self,
        code: str | None = None,
        player: str | None = None,
        since: datetime | None = None,
        limit: int = 100,
    ) -> list[dict[str, Any]]:
        """Ledger rows, newest first, at most ``limit``, optionally filtered by room code,
        by player name (as payer or payee) and by time (``created_at >= since``; a naive
        ``since`` is taken as UTC).

        Each row: ``{"id", "room", "hand_no", "from", "to", "from_name", "to_name", "points",
        "reason", "detail", "created_at"}`` (``created_at`` an ISO-8601 string, names ``None``
        for an empty seat).
        """
        payer, payee = aliased(Player), aliased(Player)
        query = (
            select(
                LedgerEntry,
                Room.code,
                Hand.hand_no,
                payer.name,
                payee.name,
            )
            .join(Hand, Hand.id == LedgerEntry.hand_id)
            .join(Room, Room.id == Hand.room_id)
            .outerjoin(payer, (payer.room_id == Room.id) & (payer.seat == LedgerEntry.from_seat))
            .outerjoin(payee, (payee.room_id == Room.id) & (payee.seat == LedgerEntry.to_seat))
            .order_by(LedgerEntry.id.desc())
            .limit(max(0, int(limit)))
        )
        if code is not None:
            query = query.where(Room.code == code)
        if player is not None:
            query = query.where(or_(payer.name == player, payee.name == player))
        if since is not None:
            since_utc = since.replace(tzinfo=UTC) if since.tzinfo is None else since
            since_utc = since_utc.astimezone(UTC)
            if self.engine.dialect.name == "sqlite":
                since_utc = since_utc.replace(tzinfo=None)
            query = query.where(LedgerEntry.created_at >= since_utc)
        async with self._sessions() as s:
            rows = (await s.execute(query)).all()
        out = []
        for entry, room_code, hand_no, from_name, to_name in rows:
            created = _aware(entry.created_at)
            out.append(
                {
                    "id": entry.id,
                    "room": room_code,
                    "hand_no": hand_no,
                    "from": entry.from_seat,
                    "to": entry.to_seat,
                    "from_name": from_name,
                    "to_name": to_name,
                    "points": entry.points,
                    "reason": entry.reason,
                    "detail": entry.detail,
                    "created_at": created.isoformat() if created else None,
                }
            )
        return out

    async def ledger_by_hand(self, code: str, hand_no: int) -> list[dict[str, Any]]:
        """The payments of one hand in insertion order, as ``{"from", "to", "points",
        "reason", "detail"}``. Raises :class:`NotFound` for an unknown room/hand."""
        async with self._sessions() as s:
            hand_id = await self._hand_id(s, code, hand_no)
            rows = (
                await s.scalars(
                    select(LedgerEntry)
                    .where(LedgerEntry.hand_id == hand_id)
                    .order_by(LedgerEntry.id)
                )
            ).all()
        return [
            {
                "from": r.from_seat,
                "to": r.to_seat,
                "points": r.points,
                "reason": r.reason,
                "detail": r.detail,
            }
            for r in rows
        ]


def _read_totals(conn: Connection, room_id: int) -> list[int]:
    """The room's totals, corrections applied (`_SEAT_SUMS`)."""
    options = conn.scalar(select(Room.options).where(Room.id == room_id))
    sums = {seat: total for seat, total in conn.execute(_SQL_SEAT_SUMS, {"rid": room_id})}
    max_seat = conn.scalar(select(func.max(Player.seat)).where(Player.room_id == room_id))
    return _totals_of(options, sums, max_seat)


def _totals_of(options: Any, sums: dict[int, Any], max_seat: int | None) -> list[int]:
    """The totals from a room's ``options``, its per-seat sums of deltas and highest seat."""
    n = options.get("players") if isinstance(options, dict) else None
    if not isinstance(n, int) or isinstance(n, bool):
        n = 0
    n = max(n, (max_seat + 1) if max_seat is not None else 0, max(sums, default=-1) + 1)
    return [int(sums.get(seat) or 0) for seat in range(n)]


def _fail(q: _Queued, exc: BaseException) -> None:
    if not q.future.done():
        q.future.set_exception(exc)


def _action_conflict(q: _Queued) -> Conflict:
    return Conflict(f"action {q.idx} of hand {q.hand_no} in room {q.code!r} exists")


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def _sqlite_on_connect(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA journal_mode=WAL")
        # WAL + NORMAL: a commit is durable against a crash of the process (not of the OS
        # before the next checkpoint) and costs no fsync.
        cursor.execute("PRAGMA synchronous=NORMAL")
        # Only for other processes on the same file: within one store writes never contend.
        cursor.execute("PRAGMA busy_timeout=10000")
    finally:
        cursor.close()


def _sqlite_writer_on_connect(dbapi_connection: Any, _record: Any) -> None:
    # No implicit BEGIN from the driver: the "begin" hook below opens every transaction.
    dbapi_connection.isolation_level = None


def _sqlite_begin_immediate(conn: Connection) -> None:
    # Take the write lock when the transaction opens, never as an upgrade in mid-transaction
    # (which SQLite refuses at once with "database is locked" when another writer is there).
    conn.exec_driver_sql("BEGIN IMMEDIATE")


__all__ = [
    "Conflict",
    "FinishedHand",
    "HandRecord",
    "NotFound",
    "PlayerRecord",
    "RoomRecord",
    "Store",
    "transient",
]
