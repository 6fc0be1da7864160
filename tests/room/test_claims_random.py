"""The claim holds' random source: the operating system's bytes, read in chunks."""

from __future__ import annotations

from collections import Counter

from server.room.claims import BufferedSystemRandom


def test_buffered_system_random_draws_in_range_and_evenly() -> None:
    rng = BufferedSystemRandom()
    assert rng.getrandbits(0) == 0
    for k in (1, 7, 8, 9, 31, 64, 200):
        draws = [rng.getrandbits(k) for _ in range(200)]
        assert all(0 <= d < 2**k for d in draws)
        assert max(draws) >= 2 ** (k - 1)  # the top bit is used (p of failing: 2**-200)
    floats = [rng.random() for _ in range(2000)]
    assert all(0.0 <= f < 1.0 for f in floats)
    # well past one chunk (4096 bytes): 20,000 draws of 4 choices, each within 5 sigma
    counts = Counter(rng.choice("abcd") for _ in range(20_000))
    assert set(counts) == set("abcd")
    assert all(abs(n - 5000) < 5 * 61 for n in counts.values()), counts
    assert len(rng.randbytes(10_000)) == 10_000


def test_two_sources_do_not_repeat_each_other() -> None:
    one, two = BufferedSystemRandom(), BufferedSystemRandom()
    assert [one.getrandbits(64) for _ in range(4)] != [two.getrandbits(64) for _ in range(4)]
