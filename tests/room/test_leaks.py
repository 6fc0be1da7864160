"""No message to any seat or spectator ever holds what it may not see, in either game.

Guiyang: 200+ bot hands (48, one room of each size, without ``--slow``) in bot-only rooms of
4, 3 and 2 players, 16 hands each. Jintan: 200+ bot hands in four-player rooms of 16 hands
(8, one room, without ``--slow``). The rooms run through the real `RoomActor` (playing the `Game`
found by name), the real store (SQLite) and the in-memory bus; the test subscribes to every
seat's channel and the spectators' (exactly what the WebSocket handler forwards) and asks for
snapshots while the hands run. Each hand is then replayed from the store's seed and action
log through the same `Game`, and every message is checked against the state it was sent in:

* the seed never appears before the hand's end;
* a seat's ``view`` holds its own concealed tiles (exactly) and nothing of any other seat's
  concealed tiles or the wall: no ``hand``/``drawn``/``wall``/``hands`` anywhere else, other
  seats show only counts, melds and rivers (and Jintan's open flowers); Guiyang's 定缺 stays
  hidden until all have chosen; Jintan's ``deal_flowers`` are the flowers laid at the deal,
  never their replacement tiles;
* events: another seat's drawn tile (a Jintan flower's replacement too), claim answer and 定缺
  suit are never sent;
* on a sample of messages: ``view`` equals the game's ``view`` of the replayed state, and
  that view does not change when the hidden information is reshuffled (other seats' concealed
  tiles and the wall order, and Guiyang's undisclosed 定缺; Jintan's wall holds flowers, which
  stay in the wall: no hand ever holds one).
"""

from __future__ import annotations

import asyncio
import json
import random
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from server.bus.memory import MemoryBus
from server.room.actor import RoomActor, Seat, Timing, seat_channel
from server.room.clock import ManualClock
from server.rules.game import Game
from server.rules.registry import find_game
from server.rules.tiles import is_flower, tile_index, tile_name
from server.rules.types import Action
from server.store import Store

SECRET_KEYS = {"hand", "drawn", "wall", "hands", "seed_tiles", "live_wall"}


def concealed(state: Any, seat: int) -> list[str]:
    return sorted(tile_name(k) for k, n in enumerate(state.hands[seat]) for _ in range(n))


def perturbed_guiyang(state: Any, me: int | None, rng: random.Random) -> Any:
    """``state`` with everything hidden from ``me`` reshuffled: other seats' concealed tiles
    and the live wall (same counts), and undisclosed 定缺 choices of others."""
    s = state.clone()
    others = [y for y in range(s.players) if y != me]
    pool = [k for y in others for k, n in enumerate(s.hands[y]) for _ in range(n)]
    pool += list(s.wall[s.front : s.back])
    rng.shuffle(pool)
    for y in others:
        n = sum(s.hands[y])
        mine, pool = pool[:n], pool[n:]
        counts = [0] * len(s.hands[y])
        for k in mine:
            counts[k] += 1
        s.hands[y] = counts
        if s.drawn[y] is not None:
            s.drawn[y] = mine[0]
    s.wall = list(s.wall[: s.front]) + pool + list(s.wall[s.back :])
    if not all(d is not None for d in s.ding_que):
        for y in others:
            if s.ding_que[y] is not None:
                s.ding_que[y] = rng.randrange(3)
    return s


def perturbed_jintan(state: Any, me: int | None, rng: random.Random) -> Any:
    """``state`` with everything hidden from ``me`` reshuffled: the number tiles and honours
    of other seats' concealed tiles and of the live wall are dealt out again (each of those
    seats keeps its count, a drawn tile stays one of its own), then the live wall, flowers
    included, is shuffled. Every kind keeps its count and no hand holds a flower (a flower is
    never held, §J2), so the state is one the hand could be in."""
    s = state.clone()
    others = [y for y in range(s.players) if y != me]
    live = list(s.wall[s.front : s.back])
    pool = [k for y in others for k, n in enumerate(s.hands[y]) for _ in range(n)]
    pool += [k for k in live if not is_flower(k)]
    rng.shuffle(pool)
    for y in others:
        n = sum(s.hands[y])
        mine, pool = pool[:n], pool[n:]
        counts = [0] * len(s.hands[y])
        for k in mine:
            counts[k] += 1
        s.hands[y] = counts
        if s.drawn[y] is not None:
            s.drawn[y] = mine[0]
    rest = pool + [k for k in live if is_flower(k)]
    rng.shuffle(rest)
    s.wall = list(s.wall[: s.front]) + rest + list(s.wall[s.back :])

    def hidden(st: Any) -> Counter[int]:
        held = Counter(k for y in others for k, n in enumerate(st.hands[y]) for _ in range(n))
        return held + Counter(st.wall[st.front : st.back])

    assert hidden(s) == hidden(state)  # every kind keeps its count
    return s


def guiyang_seats(v: dict[str, Any], state: Any, me: int | None) -> None:
    """Another seat's 定缺 stays hidden until all have chosen."""
    all_chosen = all(d is not None for d in state.ding_que)
    for s in v["seats"]:
        if s["seat"] != me and not all_chosen:
            assert s["ding_que"] is None, f"another seat's 定缺 before all chose: {v}"


def jintan_seats(v: dict[str, Any], state: Any, me: int | None) -> None:
    """Flowers lie open: each seat shows its own, in the order laid; ``deal_flowers`` are the
    flowers laid at the deal (never a replacement tile), each seat's the first it shows."""
    for s in v["seats"]:
        assert s["flowers"] == [tile_name(f) for f in state.flowers[s["seat"]]], s
    dealt: dict[int, list[str]] = {}
    for f in v["deal_flowers"]:
        assert set(f) == {"seat", "tile"} and is_flower(tile_index(f["tile"])), f
        dealt.setdefault(f["seat"], []).append(f["tile"])
    for seat, tiles in dealt.items():
        assert v["seats"][seat]["flowers"][: len(tiles)] == tiles, v["deal_flowers"]


@dataclass(frozen=True)
class Profile:
    """How one game's rooms are made and checked."""

    game: str
    #: players per room, taken in turn
    sizes: tuple[int, ...]
    #: hands per room (an allowed ``hands`` option), fewer if fewer are asked for in all
    room_hands: int
    #: total hands under --slow, and by default
    hands: int
    quick_hands: int
    #: every key a seat's public entry in a view may have
    seat_keys: frozenset[str]
    perturb: Callable[[Any, int | None, random.Random], Any]
    #: game-specific checks of a view's public seat information
    check_seats: Callable[[dict[str, Any], Any, int | None], None]

    def options(self, players: int, hands: int) -> dict[str, Any]:
        raw: dict[str, Any] = {"hands": hands}
        if players != 4:  # four is the default (Jintan, played by four only, has no option)
            raw["players"] = players
        return find_game(self.game).options(raw).model_dump()


PROFILES = {
    "guiyang": Profile(
        "guiyang",
        sizes=(4, 3, 2),
        room_hands=16,
        hands=200,  # under --slow (CI)
        quick_hands=48,  # by default: one room of each size
        seat_keys=frozenset(
            {
                "seat",
                "concealed_count",
                "melds",
                "discards",
                "claimed",
                "bao_ting",
                "ding_que",
                "ding_que_chosen",
            }
        ),
        perturb=perturbed_guiyang,
        check_seats=guiyang_seats,
    ),
    "jintan": Profile(
        "jintan",
        sizes=(4,),
        room_hands=16,
        hands=200,  # under --slow (CI), as for Guiyang
        quick_hands=8,  # by default: one room of 8 hands
        seat_keys=frozenset({"seat", "concealed_count", "melds", "flowers", "discards", "claimed"}),
        perturb=perturbed_jintan,
        check_seats=jintan_seats,
    ),
}


def secrets_in(d: dict[str, Any]) -> set[str]:
    """Keys of ``d`` that would carry hidden tiles (``hands`` as a list; room info's
    ``hands`` is a count)."""
    return {k for k in SECRET_KEYS & d.keys() if k != "hands" or isinstance(d[k], list)}


def walk(node: Any, path: str = "") -> list[tuple[str, Any]]:
    """Every (path, dict) in ``node``."""
    out: list[tuple[str, Any]] = []
    if isinstance(node, dict):
        out.append((path, node))
        for k, v in node.items():
            out += walk(v, f"{path}.{k}")
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += walk(v, f"{path}[{i}]")
    return out


class Replay:
    """One hand of ``game`` replayed from the store: the state after each event version."""

    def __init__(self, game: Game, opts: Any, hand: Any, actions: list[Any]) -> None:
        self.game = game
        self.seed = hand.seed
        state = game.deal(opts, hand.seed, hand.dealer, hand.dealer_streak, hand.weekday)
        self.states = [state]  # states[v]: the state after the action that made event v
        self.events: list[Any] = [None]  # events[v]: event v (typed), as the game made it
        # States reached by claim answers, which make no event: same version, later state.
        self.quiet: dict[int, list[Any]] = {}
        steps: list[tuple[int, Action] | None] = []
        for seat, payload in actions:
            # None: close the window if it is decided (unless the action answers it, §3)
            steps += [None, (seat, Action.from_dict(payload["action"]))]
        for n, step in enumerate([*steps, None]):
            if step is None:
                if not game.claims_decided(state):
                    continue
                after = steps[n + 1] if n + 1 < len(steps) else None
                if after is not None and after[1] in game.legal_actions(state, after[0]):
                    continue  # a late answer, accepted before the room closed the window
                state, events = game.resolve_claims(state)  # as the room closes it
            else:
                state, events = game.apply(state, step[0], step[1])
                if not events:
                    self.quiet.setdefault(len(self.states) - 1, []).append(state)
            for e in events:
                self.states.append(state)
                self.events.append(e)


def check(
    msg: dict[str, Any],
    me: int | None,
    rep: Replay,
    profile: Profile,
    rng: random.Random,
    deep: bool,
) -> None:
    """Assert ``msg`` (sent to ``me``; None = spectators) reveals nothing hidden from ``me``."""
    game = rep.game
    kind = msg["type"]
    if kind in ("hand_end", "session_end"):
        return
    text = json.dumps(msg)
    version = msg.get("version")
    if version is None or kind not in ("snapshot", "event"):
        assert rep.seed not in text, f"seed in {msg}"
        for path, d in walk(msg):
            assert not secrets_in(d), (path, msg)
        return
    state = rep.states[version] if version < len(rep.states) else rep.states[-1]
    if state.ended:
        return
    assert rep.seed not in text, f"seed before the end: {msg}"
    assert msg.get("settlement") is None
    v = msg["view"]
    previous = msg.get("previous")  # an earlier hand's settlement: over, all of it public
    if previous is not None:
        assert kind == "snapshot" and previous["hand_no"] < msg["hand_no"], msg
        assert previous["settlement"]["seed"] != rep.seed
        assert me is not None or previous["replay"] is None  # no replay key to spectators
    for path, d in walk({k: x for k, x in msg.items() if k != "previous"}):
        if path != ".view":
            assert not secrets_in(d), f"secret key at {path}: {msg}"
    assert "wall" not in v and v.get("seed") is None and "settlement" not in v
    if me is None:
        assert "hand" not in v and "drawn" not in v
    else:
        own = sorted(v["hand"] + ([v["drawn"]] if v["drawn"] else []))
        assert own == concealed(state, me)
    for s in v["seats"]:
        assert set(s) <= profile.seat_keys, s
        assert s["concealed_count"] == sum(state.hands[s["seat"]])
    profile.check_seats(v, state, me)
    if kind == "event":
        events = msg["events"]  # the change's events: versions version-len+1 .. version
        first = version - len(events) + 1
        assert events == [game.project_event(rep.events[first + i], me) for i in range(len(events))]
        for e in events:
            if e.get("seat") != me:
                assert e["type"] != "claim_answer", msg
                if e["type"] == "draw":
                    assert "tile" not in e, msg
                if e["type"] == "ding_que_chosen":
                    assert "suit" not in e, msg
    if deep:
        candidates = [state, *rep.quiet.get(version, [])] if version < len(rep.states) else [state]
        matching = [c for c in candidates if game.view(c, me).to_dict() == v]
        assert matching, f"view of no state at version {version}: {msg}"
        if me is not None:
            legal = msg["legal"]
            assert any(legal == [a.to_dict() for a in game.legal_actions(c, me)] for c in matching)
        for _ in range(2):
            hidden = profile.perturb(state, me, rng)
            assert game.view(hidden, me).to_dict() == v, "view depends on hidden tiles"


async def play_room(
    store: Any, code: str, profile: Profile, players: int, hands: int, seed_base: int
) -> dict[Any, list]:
    """Run a bot room of ``profile``'s game for ``hands`` hands; return every message per
    audience (snapshots included)."""
    bus = MemoryBus(maxsize=10**7)
    game = find_game(profile.game)
    opts = profile.options(players, hands)
    await store.create_room(code, profile.game, opts)
    for i in range(players):
        await store.add_player(code, i, f"bot{i}", f"h{i}", True)
    actor = RoomActor(
        code,
        opts,
        store,
        bus,
        ManualClock(),
        Timing(claim_min_ms=0),
        seats=[Seat(i, f"bot{i}", True, f"h{i}") for i in range(players)],
        game=game,
    )
    assert actor.game is game and actor.players == players
    seeds = iter(f"leak-{seed_base}-{n}" for n in range(100))
    actor.new_seed = lambda: next(seeds)
    audiences: list[int | None] = [*range(players), None]
    got: dict[Any, list] = {a: [] for a in audiences}
    subs = {a: await bus.subscribe(seat_channel(code, a)) for a in audiences}

    async def drain(a: int | None) -> None:
        async for m in subs[a]:
            got[a].append(m)

    tasks = [asyncio.create_task(drain(a)) for a in audiences]
    actor.start()
    rng = random.Random(seed_base)
    for _ in range(1_000_000):
        if actor.status == "finished":
            break
        if rng.random() < 0.1:
            a = rng.choice(audiences)
            got[a].append(await actor.snapshot(a))  # interleaved with the hands, in order
        else:
            await asyncio.sleep(0)
    await actor.idle()
    assert actor.status == "finished"
    await actor.stop()
    for sub in subs.values():
        await sub.close()
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    await bus.close()
    return got


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(PROFILES))
async def test_no_message_leaks_hidden_tiles(tmp_path: Path, full_size: bool, name: str) -> None:
    profile = PROFILES[name]
    # one database is enough here (the store's own tests cover both): SQLite in a temp file
    shm = Path("/dev/shm")  # memory-backed when there is one: 25k small transactions
    where = shm / f"zhuoji-leaks-{uuid.uuid4().hex}.db" if shm.is_dir() else tmp_path / "l.db"
    store = Store(f"sqlite+aiosqlite:///{where}")
    await store.migrate()
    try:
        await check_rooms(store, profile, profile.hands if full_size else profile.quick_hands)
    finally:
        await store.close()
        for f in where.parent.glob(where.name + "*"):
            f.unlink()


def no_gaps(messages: list[dict[str, Any]]) -> None:
    """Every audience sees every event number of a hand: a gap would tell it that another
    seat did something private (such as answering a claim it could make). After an event
    the next one follows it exactly; after a snapshot it may overlap it (a snapshot served
    while the room waits for its database can show a change whose message is still to
    come, as the client allows: ``missedBefore`` in web/app.js) but never leave a gap."""
    last: dict[int, int] = {}
    from_event: dict[int, bool] = {}
    for msg in messages:
        hand, version = msg.get("hand_no"), msg.get("version")
        if version is None or not hand:
            continue
        is_event = msg["type"] in ("event", "hand_end")
        if is_event and hand in last:
            # one message per change: its events are numbered version-step+1 .. version
            # (and a hand_end counts once more itself)
            step = len(msg["events"]) + (msg["type"] == "hand_end")
            first = version - step + 1
            if from_event[hand]:
                assert first == last[hand] + 1, f"event numbers jump {last[hand]} -> {version}"
            else:
                assert first <= last[hand] + 1, f"event numbers jump {last[hand]} -> {version}"
        # snapshots are fetched beside the stream, so one may arrive after a later event
        if version >= last.get(hand, 0):
            from_event[hand] = is_event
        last[hand] = max(version, last.get(hand, 0))


async def check_rooms(store: Any, profile: Profile, hands: int) -> None:
    rng = random.Random(7)
    game = find_game(profile.game)
    total = 0
    checked = 0
    n = 0
    room_hands = min(profile.room_hands, hands)
    while total < hands:
        players = profile.sizes[n % len(profile.sizes)]
        code = f"LEAK{n:02d}"
        got = await play_room(store, code, profile, players, room_hands, n)
        n += 1
        opts = game.options(profile.options(players, room_hands))
        replays = {}
        for hand in await store.hands(code):
            actions = await store.hand_actions(code, hand.hand_no)
            replays[hand.hand_no] = Replay(game, opts, hand, actions)
        total += len(replays)
        for me, messages in got.items():
            no_gaps(messages)
            for i, msg in enumerate(messages):
                hand_no = msg.get("hand_no")
                if not hand_no:
                    if msg["type"] == "snapshot":
                        continue  # before the first deal
                    rep = replays[max(replays)]
                else:
                    rep = replays[hand_no]
                check(msg, me, rep, profile, rng, deep=(i % 23 == 0))
                checked += 1
    assert total >= hands and checked > 50 * hands  # 10,000 messages for 200 hands
