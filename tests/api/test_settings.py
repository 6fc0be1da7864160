"""Settings of the cluster and the join wait reach the room manager."""

from __future__ import annotations

from pathlib import Path

import pytest

from server.api.app import create_app
from server.config import Settings


def test_wait_and_margin_are_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("START_WAIT_SECONDS", "2.5")
    monkeypatch.setenv("LEASE_MARGIN_SECONDS", "0.75")
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    assert settings.start_wait_seconds == 2.5
    assert settings.lease_margin_seconds == 0.75
    monkeypatch.delenv("START_WAIT_SECONDS")
    monkeypatch.delenv("LEASE_MARGIN_SECONDS")
    defaults = Settings(_env_file=None)  # type: ignore[call-arg]
    assert defaults.start_wait_seconds == 10 and defaults.lease_margin_seconds is None
    with pytest.raises(ValueError):
        Settings(_env_file=None, start_wait_seconds=0)  # type: ignore[call-arg]


async def test_the_manager_waits_as_configured(tmp_path: Path) -> None:
    settings = Settings(
        database_url=f"sqlite+aiosqlite:///{tmp_path / 'z.db'}",
        redis_url=None,
        start_wait_seconds=3.5,
    )
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        assert app.state.manager.start_wait == 3.5


@pytest.mark.redis
async def test_the_cluster_margin_is_configured(tmp_path: Path, redis_url: str) -> None:
    settings = Settings(
        database_url=f"sqlite+aiosqlite:///{tmp_path / 'z.db'}",
        redis_url=redis_url,
        lease_seconds=3,
        lease_margin_seconds=0.25,
    )
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        cluster = app.state.manager.cluster
        assert (cluster.lease_seconds, cluster.margin) == (3, 0.25)
