FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app
# /app/data: the server's own SQLite file when no DATABASE_URL is given (a lone `docker run`;
# mount a volume there to keep it); /app itself stays read-only to the server's user.
RUN useradd --create-home --uid 1000 zhuoji \
    && mkdir /app/data && chown 1000:1000 /app/data
ENV DATABASE_URL=sqlite+aiosqlite:////app/data/zhuoji.db

# Dependencies first, pinned and hash-checked (requirements.txt is pip-compile's lock of
# pyproject.toml): a code change reuses this layer.
COPY requirements.txt ./
RUN pip install --no-cache-dir --require-hashes -r requirements.txt

# The code. `python -m server` runs from /app, next to migrations/ and web/ (the static
# client), which the package looks up relative to itself; it is not pip-installed.
COPY alembic.ini ./
COPY migrations ./migrations
COPY web ./web
COPY server ./server

USER 1000:1000
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/readyz', timeout=3)"]
# The compose file runs the one-shot `migrate` service first (and sets DATABASE_URL to its
# PostgreSQL); a lone container migrates its SQLite file in /app/data.
CMD ["python", "-m", "server", "serve", "--host", "0.0.0.0", "--port", "8000"]
