# Alexandros on Discord: a small image that runs the bot as a non-root user, with the database in /data.
#   docker build -t alexandros .
#   docker run -d --name alexandros -v alexandros-data:/data -e DISCORD_TOKEN=... alexandros
# See docs/HOSTING.md. CI lints this file with hadolint (ci/check_dockerfile.sh).

# Build stage: install the project and its dependencies into a virtual environment. Only the
# environment is copied into the final image, so build files and pip's caches stay behind.
FROM python:3.11-slim AS build
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1 \
    PYTHONDONTWRITEBYTECODE=1
WORKDIR /src
COPY . .
# Exact versions, checked against their hashes, from the lock (requirements/run.lock, made by tools/lock.sh);
# then the project itself, with nothing more.
RUN python -m venv /venv \
    && /venv/bin/pip install --no-cache-dir --require-hashes -r requirements/run.lock \
    && /venv/bin/pip install --no-cache-dir --no-deps .

FROM python:3.11-slim
ENV PATH=/venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    ALEXANDROS_DATA_DIR=/data
# A fixed uid/gid, so that a bind-mounted data folder can be given to it: chown 10001:10001 DIR.
# -l: no lastlog entry (a large uid would otherwise make a huge sparse file in the image).
RUN groupadd --system --gid 10001 alexandros \
    && useradd --system --uid 10001 --gid alexandros --no-log-init --home-dir /data --no-create-home \
        --shell /usr/sbin/nologin alexandros \
    && mkdir /data \
    && chown alexandros:alexandros /data
COPY --from=build /venv /venv
# Numeric, so the host and orchestrators can tell it is not root without reading /etc/passwd.
USER 10001:10001
WORKDIR /data
# The database, its backups and the heartbeat live here: keep it in a named volume or a bind mount.
VOLUME ["/data"]
# Python turns SIGINT into KeyboardInterrupt, which discord.py handles by closing cleanly (SQLite
# checkpoints its WAL); SIGTERM would be ignored by python as PID 1 until docker stop kills it.
STOPSIGNAL SIGINT
# With the web face on (ALEXANDROS_WEB_PORT), the check asks the bot's own /healthz (its event loop
# answers, its store is reachable); without it, the bot's /data/heartbeat (written every minute) must be
# under 3 minutes old and the database readable. start-period: the first login and migrations take a while.
HEALTHCHECK --interval=60s --timeout=10s --start-period=120s --retries=3 \
    CMD ["python", "-m", "bot.process.health"]
# The web face's port, when a host turns it on (docs/HOSTING.md).
EXPOSE 8080
CMD ["python", "-m", "bot"]
