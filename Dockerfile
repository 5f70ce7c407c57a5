# ancath-bot: the An Cath referee on a real IRC network.
#
#   docker build -t ancath-bot .
#   docker volume create ancath-data
#   docker run -d --name ancath --init --restart unless-stopped \
#     -v ancath-data:/data -v "$PWD/bot.yaml:/config/bot.yaml:ro" \
#     -e ANCATH_SASL_PASSWORD ancath-bot
#
# The leadership pages are the same image as a second container on the same volume:
#   docker run -d --name ancath-web --init -v ancath-data:/data \
#     -v "$PWD/bot.yaml:/config/bot.yaml:ro" -e ANCATH_WEB_TOKEN \
#     --no-healthcheck -p 127.0.0.1:8080:8080 \
#     ancath-bot ancath-bot web --config /config/bot.yaml --host 0.0.0.0
#
# The SQLite records live on the /data volume (the config says
# `database: sqlite:////data/ancath.sqlite3`); the config is a mounted file at
# /config/bot.yaml; secrets come only from the environment. See docs/operations.md,
# "In a container".
#
# The base image by its exact tag: Python 3.11.15 on Debian 12 (bookworm). To pin its
# digest as well, where the registry can be reached:
#   docker buildx imagetools inspect python:3.11.15-slim-bookworm
# and write FROM python:3.11.15-slim-bookworm@sha256:<the digest shown>.
FROM python:3.11.15-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

# An unprivileged user with a fixed uid, so a bind-mounted /data can be chowned to it.
RUN groupadd --system --gid 10001 ancath \
 && useradd --system --uid 10001 --gid ancath --home-dir /data --no-create-home \
      --shell /usr/sbin/nologin ancath

# The dependencies first, from the lock alone: every file pinned by its hash
# (requirements/image.lock, made from pyproject.toml by `uv pip compile`, as its first
# lines say, and checked against it by tests/unit/test_image.py). A change of the code
# (or of pyproject.toml's tool settings) reuses this layer; a change of the lock does not.
WORKDIR /src
COPY requirements/image.lock requirements/
RUN pip install --no-cache-dir --require-hashes -r requirements/image.lock

# Then the package alone (pyproject.toml names README.md as its readme), built with the
# locked setuptools: nothing unlocked is fetched.
COPY pyproject.toml README.md ./
COPY bot ./bot
COPY rules ./rules
COPY storage ./storage
RUN pip install --no-cache-dir --no-deps --no-build-isolation . \
 && rm -rf /src/build /src/*.egg-info

# /data must exist and belong to the bot before VOLUME: a new named volume starts as a
# copy of it. The default database URL (sqlite:///ancath.sqlite3) is relative to the
# working directory, so even a config without `database:` writes to the volume.
RUN mkdir -p /data /config && chown ancath:ancath /data
WORKDIR /data
VOLUME ["/data"]

# `ancath-bot web` listens on 8080 (the bot itself needs no port).
EXPOSE 8080

# Healthy while the bot's heartbeat (rewritten every 30 s, bot/heartbeat.py) is fresh and
# says it is connected; `docker inspect ancath` shows the line `ancath-bot status` said.
# `|| exit 1`: Docker reserves exit status 2, which ancath-bot gives for a bad config.
HEALTHCHECK --interval=30s --timeout=10s --start-period=60s --retries=3 \
  CMD ["/bin/sh", "-c", "ancath-bot status --config /config/bot.yaml || exit 1"]

# `docker stop` sends SIGINT: the bot stops as on Ctrl-C (Python ignores SIGTERM as PID 1).
STOPSIGNAL SIGINT
USER 10001:10001
CMD ["ancath-bot", "run", "--config", "/config/bot.yaml"]
