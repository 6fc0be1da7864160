"""Alembic environment (async).

Where the database comes from, in order:
1. ``config.attributes["connection"]``: a synchronous Connection handed over by
   ``server.store.Store.migrate()`` (via ``AsyncConnection.run_sync``); used as is.
2. ``config.attributes["url"]`` or the ``sqlalchemy.url`` main option, if set.
3. ``DATABASE_URL`` from the environment (``server.config.Settings``).

Concurrent runs are serialised (several replicas, or ``alembic upgrade head`` run twice):
on PostgreSQL by a transaction-scoped advisory lock taken before Alembic reads the current
revision, on SQLite by an exclusive lock on the file ``<database>-migrate.lock``
(:func:`server.store.schema.sqlite_migration_lock`). A connection handed over by
``Store.migrate()`` is already under its caller's lock.
"""

from __future__ import annotations

import asyncio
from logging.config import fileConfig

from alembic import context
from sqlalchemy import pool, text
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import create_async_engine

from server.store.models import Base
from server.store.schema import PG_MIGRATION_LOCK, sqlite_migration_lock

config = context.config

if config.config_file_name is not None and config.attributes.get("configure_logger", True):
    fileConfig(config.config_file_name, disable_existing_loggers=False)

target_metadata = Base.metadata


def _url() -> str:
    url = config.attributes.get("url") or config.get_main_option("sqlalchemy.url")
    if url:
        return str(url)
    from server.config import Settings

    return Settings().database_url


def run_migrations_offline() -> None:
    """Emit the SQL to stdout instead of running it (``alembic upgrade head --sql``)."""
    context.configure(
        url=_url(),
        target_metadata=target_metadata,
        literal_binds=True,
        dialect_opts={"paramstyle": "named"},
        render_as_batch=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def do_run_migrations(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
    )
    with context.begin_transaction():
        context.run_migrations()


async def run_async_migrations() -> None:
    url = _url()
    engine = create_async_engine(url, poolclass=pool.NullPool)
    try:
        # The file lock (SQLite) is held until the migration is committed.
        with sqlite_migration_lock(url):
            async with engine.connect() as connection:
                if connection.dialect.name == "postgresql":
                    await connection.execute(
                        text(f"SELECT pg_advisory_xact_lock({PG_MIGRATION_LOCK})")
                    )
                await connection.run_sync(do_run_migrations)
                await connection.commit()
    finally:
        await engine.dispose()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        do_run_migrations(connection)
    else:
        asyncio.run(run_async_migrations())


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
