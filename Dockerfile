# The app with its strategies solved at build time: `docker run -p 8000:8000 IMAGE`.

# htmx and Swagger UI come from the npm registry, pinned by package-lock.json; only the files
# the pages load are kept.
FROM python:3.11-slim AS assets
RUN apt-get update -qq \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends npm >/dev/null \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /build
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund --loglevel=error

FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    SOLVER_CACHE=/srv/cache \
    NUMBA_CACHE_DIR=/srv/cache/numba \
    HOST=0.0.0.0 \
    PORT=8000 \
    STRATEGY_STORE=/srv/app/data/strategies.sqlite
WORKDIR /srv/app
# The Python packages from the lock: every version pinned and its hash checked (scripts/lock).
COPY requirements/lock.txt requirements/lock.txt
RUN pip install --no-cache-dir --disable-pip-version-check --require-hashes \
    -r requirements/lock.txt
COPY pyproject.toml README.md ./
COPY solver solver
COPY strategies strategies
COPY app app
COPY templates templates
COPY static static
COPY --from=assets /build/node_modules/htmx.org/dist node_modules/htmx.org/dist
COPY --from=assets /build/node_modules/swagger-ui-dist/swagger-ui-bundle.js \
     /build/node_modules/swagger-ui-dist/swagger-ui.css node_modules/swagger-ui-dist/
# The quick games are solved into the image; the long ones are built in the background when
# the container first starts (the lobby shows their progress).
RUN python -m solver build --quiet \
    && python -m solver list \
    && useradd --system --home-dir /srv/app app \
    && mkdir -p data && chown -R app /srv/app/data /srv/app/strategies /srv/cache
USER app
# The play database, the secret that signs the session cookies and the strategy store (with
# what the background build adds to it) live here: mount a volume (`docker run -v
# solved-bots-data:/srv/app/data ...`) so that they survive the container.
VOLUME ["/srv/app/data"]
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
    CMD ["python", "-c", "import os, sys, urllib.request; url = f\"http://127.0.0.1:{os.environ.get('PORT', '8000')}/healthz\"; sys.exit(0 if urllib.request.urlopen(url, timeout=4).status == 200 else 1)"]
CMD ["python", "-m", "app"]
