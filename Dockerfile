# Production image of the copyright-tracking platform: the same image runs the web server
# (gunicorn), the Celery workers and beat; docker-compose.yml chooses the command.

# Build stage: the engine's compiled query path (fingerprint/compiled/*.pyx, Cython) needs a C
# compiler, which the runtime image does without.
FROM python:3.11-slim AS build
RUN apt-get update && apt-get install -y --no-install-recommends build-essential \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY pyproject.toml setup.py README.md ./
COPY tracker ./tracker
COPY core ./core
COPY lib ./lib
COPY fingerprint ./fingerprint
COPY crawler ./crawler
COPY dashboard ./dashboard
RUN pip install -U pip "setuptools>=69" "Cython>=3.0,<4" \
    && python setup.py build_ext --inplace && pip wheel --no-deps -w /wheels .

FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 \
    TRACKER_VAR_DIR=/data DJANGO_SETTINGS_MODULE=tracker.settings
WORKDIR /app
# Debian's Chromium renders the pages of sites that need a browser (lib.crawl.render, queue
# "render"); fonts-noto-cjk so that Chinese pages lay out as in a reader's browser.
RUN apt-get update && apt-get install -y --no-install-recommends chromium fonts-noto-cjk \
    && rm -rf /var/lib/apt/lists/*

COPY pyproject.toml README.md manage.py ./
COPY tracker ./tracker
COPY core ./core
COPY lib ./lib
COPY fingerprint ./fingerprint
COPY crawler ./crawler
COPY dashboard ./dashboard
COPY demo ./demo
# the extensions built above, beside the sources the processes import from /app
COPY --from=build /src/fingerprint/compiled/ ./fingerprint/compiled/
COPY --from=build /wheels /wheels
RUN pip install -U pip && pip install /wheels/*.whl && rm -rf /wheels \
    && useradd --create-home --uid 1000 tracker && mkdir -p /data && chown tracker /data
USER tracker
EXPOSE 8000
CMD ["gunicorn", "tracker.wsgi", "--bind", "0.0.0.0:8000", "--workers", "3", "--timeout", "120"]
