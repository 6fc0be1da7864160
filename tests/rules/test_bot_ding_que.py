"""Bots honour 定缺 in 三丁拐 / 二丁拐 (spec §11): they clear their void suit first, so they get
ready and win about as often as in four-player hands.

Bot-only hands through the engine (no room): 200 per player count under ``--slow``, fewer by
default. The win rates are printed (``-s`` shows them).
"""

from __future__ import annotations

import pytest

from server.room.bots import choose_action
from server.rules.guiyang import (
    GuiyangOptions,
    State,
    acting_seats,
    apply,
    claims_decided,
    deal,
    default_action,
    legal_actions,
    resolve_claims,
)
from server.rules.guiyang.scoring import waits


def _void_held(state: State, seat: int) -> int:
    void = state.ding_que[seat]
    if void is None:
        return 0
    return sum(state.hands[seat][void * 9 : void * 9 + 9])


def _play(players: int, n: int) -> tuple[State, list[list[int]]]:
    """One bot-only hand; returns the ended state and, per seat, the number of void-suit
    tiles it held after each of its discards."""
    state = deal(GuiyangOptions(players=players), f"void-{players}-{n}", n % players, 1)
    after_discards: list[list[int]] = [[] for _ in range(players)]
    for _ in range(2000):
        if state.ended:
            break
        if claims_decided(state):
            state, _ = resolve_claims(state)
            continue
        for seat in acting_seats(state):
            if state.ended or seat not in acting_seats(state):
                continue
            action = choose_action(state, seat)
            assert action in legal_actions(state, seat)
            held = _void_held(state, seat)
            if action.kind == "discard" and held:
                void = state.ding_que[seat]
                assert action.tile is not None and action.tile[1] == "mps"[void or 0], (
                    f"seat {seat} kept a void tile and threw {action.tile}"
                )
            state, _ = apply(state, seat, action)
            if action.kind == "discard":
                after_discards[seat].append(_void_held(state, seat))
                if waits(state, seat):
                    assert _void_held(state, seat) == 0
    assert state.ended
    return state, after_discards


def _win_rate(players: int, hands: int) -> tuple[float, int]:
    """(share of hands won, 黄庄 hands ending with a seat still holding a void tile)."""
    wins = stuck = 0
    for n in range(hands):
        state, after = _play(players, n)
        wins += bool(state.winners)
        if not state.winners:
            stuck += sum(1 for s in range(players) if _void_held(state, s))
        for seat, seq in enumerate(after):
            # Each discard throws a void tile while one is held (asserted in _play), so the
            # count after each own discard never grows (a drawn void tile is thrown at once)
            # and, once 0, stays 0.
            for before, now in zip(seq, seq[1:], strict=False):
                assert now <= before, (players, n, seat, seq)
    return wins / hands, stuck


@pytest.mark.slow
def test_bots_clear_their_void_suit_and_win_like_four_players(full_size: bool) -> None:
    hands = 200 if full_size else 40
    four, _ = _win_rate(4, hands)
    rates = {}
    for players in (3, 2):
        rate, stuck = _win_rate(players, hands)
        rates[players] = rate
        assert stuck == 0, f"{players} players: {stuck} seats held a void tile at 黄庄"
    print(
        f"\nbot-only win rates over {hands} hands: 4 players {four:.0%}, "
        f"3 players {rates[3]:.0%}, 2 players {rates[2]:.0%}"
    )
    assert four > 0.3
    for players, rate in rates.items():
        assert rate >= four / 2, f"{players} players win {rate:.0%} vs {four:.0%} with four"


def test_bot_chooses_the_void_suit_with_fewest_tiles_then_least_worth() -> None:
    from server.rules.guiyang import engine
    from server.rules.guiyang.bot import choose_action as bot

    state = deal(GuiyangOptions(players=3), "que-choice", 0, 1)
    for seat in range(3):
        by_suit = [sum(state.hands[seat][s * 9 : s * 9 + 9]) for s in range(3)]
        action = bot(state, seat)
        assert action.kind == "ding_que"
        assert by_suit["mps".index(action.suit or "")] == min(by_suit)
    # A tie on count: two suits of 3 tiles, the one that is a set is kept.
    hands = [[0] * 27 for _ in range(3)]
    for t in ("1m", "2m", "3m", "1p", "5p", "9p", "1s", "1s", "2s", "3s", "4s", "5s", "6s", "7s"):
        i = "mps".index(t[1]) * 9 + int(t[0]) - 1
        hands[0][i] += 1
    state.hands[0] = hands[0]
    state.drawn[0] = None
    assert engine.legal_actions(state, 0)[0].kind == "ding_que"
    assert bot(state, 0).suit == "p"


@pytest.mark.parametrize("players", [2, 3])
def test_auto_play_discards_the_void_suit_first(players: int) -> None:
    """托管 (the timeout's default action) clears the void suit as the bots do: every
    discard of a seat that still holds a void-suit tile is one (the drawn tile if it is of
    that suit, else the highest), so a seat on 托管 does not end the hand paying 查缺 for
    tiles it could have thrown. Whole hands with every seat on 托管."""
    checked = 0
    for n in range(6):
        state = deal(GuiyangOptions(players=players), f"auto-void-{players}-{n}", 0, 1)
        for _ in range(2000):
            if state.ended:
                break
            if claims_decided(state):
                state, _ = resolve_claims(state)
                continue
            seat = acting_seats(state)[0]
            action = default_action(state, seat)
            void = state.ding_que[seat]
            if action.kind == "discard" and void is not None and _void_held(state, seat):
                drawn = state.drawn[seat]
                held = [k for k in range(void * 9, void * 9 + 9) if state.hands[seat][k]]
                want = drawn if drawn is not None and drawn // 9 == void else held[-1]
                assert action.tile == f"{want % 9 + 1}{'mps'[void]}", (state.hands[seat], action)
                checked += 1
            state, _ = apply(state, seat, action)
        assert state.ended
    assert checked > 0  # the case was met
