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
#     -p 127.0.0.1:8080:8080 ancath-bot ancath-bot web --config /config/bot.yaml --host 0.0.0.0
#
# The SQLite records live on the /data volume (the config says
# `database: sqlite:////data/ancath.sqlite3`); the config is a mounted file at
# /config/bot.yaml; secrets come only from the environment. See README.md,
# "Running on a real network".
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

# An unprivileged user with a fixed uid, so a bind-mounted /data can be chowned to it.
RUN groupadd --system --gid 10001 ancath \
 && useradd --system --uid 10001 --gid ancath --home-dir /data --no-create-home \
      --shell /usr/sbin/nologin ancath

# Only what the package needs (pyproject.toml names README.md as its readme).
WORKDIR /src
COPY pyproject.toml README.md ./
COPY bot ./bot
COPY rules ./rules
COPY storage ./storage
RUN pip install --no-cache-dir ".[postgres]" \
 && rm -rf /src/build /src/*.egg-info

# /data must exist and belong to the bot before VOLUME: a new named volume starts as a
# copy of it. The default database URL (sqlite:///ancath.sqlite3) is relative to the
# working directory, so even a config without `database:` writes to the volume.
RUN mkdir -p /data /config && chown ancath:ancath /data
WORKDIR /data
VOLUME ["/data"]

# `ancath-bot web` listens on 8080 (the bot itself needs no port).
EXPOSE 8080

# `docker stop` sends SIGINT: the bot stops as on Ctrl-C (Python ignores SIGTERM as PID 1).
STOPSIGNAL SIGINT
USER 10001:10001
CMD ["ancath-bot", "run", "--config", "/config/bot.yaml"]
