FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app

# Dependencies first (better layer caching), then the code.
COPY pyproject.toml README.md ./
COPY server ./server
RUN pip install .

# Run from /app: `python -m server` imports the source tree here, next to migrations/ and
# web/ (the static client), which the package looks up relative to itself.
COPY alembic.ini ./
COPY migrations ./migrations
COPY web ./web

RUN useradd --create-home --uid 1000 zhuoji && chown -R zhuoji /app
USER zhuoji

EXPOSE 8000
CMD ["sh", "-c", "python -m server migrate && exec python -m server serve --host 0.0.0.0 --port 8000 --no-migrate"]
