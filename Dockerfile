# habicht: the bot as a container. Build: docker compose build; run: docker compose up -d.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    HABICHT_DB=/app/data/habicht.sqlite3

WORKDIR /app
RUN useradd --create-home --uid 10001 --shell /usr/sbin/nologin habicht

# Dependencies in their own layer, read from pyproject.toml: rebuilt only when it changes.
COPY pyproject.toml ./
RUN python -c "import tomllib; print('\n'.join(tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies']))" > /tmp/requirements.txt \
    && pip install -r /tmp/requirements.txt \
    && rm /tmp/requirements.txt

# The application itself: a small layer on top.
COPY README.md ./
COPY habicht ./habicht
RUN pip install --no-deps . \
    && mkdir -p /app/data /app/replica \
    && chown habicht:habicht /app/data /app/replica

USER habicht
# The database. Mount a named volume here (compose does: habicht-data); without one, each new
# container gets an anonymous volume and so a new, empty database, which habicht reports.
# The live replica (HABICHT_REPLICA, which compose points here): a volume of its own.
VOLUME ["/app/data", "/app/replica"]

# Exit 0 while the scrape and drain cycles keep finishing (see README "Operations").
HEALTHCHECK --interval=60s --timeout=15s --start-period=120s --retries=3 \
    CMD ["habicht", "health"]

# SIGTERM (docker stop) ends it cleanly within 10 s; a stalled process exits on its own.
STOPSIGNAL SIGTERM
CMD ["habicht", "run"]
