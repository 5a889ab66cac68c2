# hograd in a container: the same install and start as `make run`, as a non-root user.
#   docker build -t hograd .
#   docker run -p 8501:8501 hograd          # one process; compose.yaml runs replicas
# deploy/docker_check.py builds and tests it here, where Docker Hub and PyTorch's server cannot
# be reached: BASE names a stand-in built from Debian's packages, and PIP_FIND_LINKS a local
# folder of wheels holding the CPU torch. Left as they are, neither changes anything.
# To pin the base image by digest (docs/deploy.md says how to read it), name it in full:
#   ARG BASE=python:3.11-slim@sha256:<the digest that `docker buildx imagetools inspect
#   python:3.11-slim` prints>
# No digest is pinned here: Docker Hub cannot be reached where this file is built and tested,
# so none could be verified.
ARG BASE=python:3.11-slim
FROM ${BASE}

# Debian's packages the app uses (packages.txt: graphviz's dot for the SVG download), and
# haproxy: compose.yaml's proxy runs from this image (Debian's haproxy, the version
# deploy/haproxy.cfg is tested with).
COPY packages.txt /tmp/packages.txt
RUN apt-get update \
    && xargs -a /tmp/packages.txt apt-get install -y --no-install-recommends haproxy \
    && rm -rf /var/lib/apt/lists/* /tmp/packages.txt

RUN useradd --create-home --uid 10001 hograd
WORKDIR /app

# The CPU build of torch (requirements.txt says how), before the code, so a code change does not
# reinstall the packages.
COPY requirements.txt .
ARG PIP_FIND_LINKS=
RUN pip install --no-cache-dir --retries 1 -r requirements.txt

# The code belongs to root and is only readable by the app's user: the app cannot rewrite
# itself. Its bytecode is compiled here, since the app cannot write __pycache__ either.
COPY . .
RUN python -m compileall -q /app
USER hograd

# HOGRAD_WAIT_FOR_WARMUP: the health endpoint says "warming" until the warm-up below is done,
# so a proxy sends the replica no student before.
ENV PYTHONUNBUFFERED=1 \
    HOGRAD_WAIT_FOR_WARMUP=1 \
    STREAMLIT_SERVER_PORT=8501 \
    STREAMLIT_SERVER_ADDRESS=0.0.0.0 \
    STREAMLIT_SERVER_HEADLESS=true
EXPOSE 8501
# Healthy only while the server says it can serve a class (/_hograd/health: warmed up, heavy
# work not stuck past its deadlines, no script run holding the floor), not merely while it
# answers /_stcore/health, which it does in all those cases. --endpoint-only: one HTTP request
# from a Python that imports nothing else (about 0.05 CPU seconds, docs/deploy.md).
HEALTHCHECK --interval=30s --timeout=15s --start-period=60s --retries=3 \
    CMD ["python", "-m", "hograd_serving.health", "http://127.0.0.1:8501", "--timeout", "10", \
         "--endpoint-only"]
# The warm-up makes the first visit itself once the server answers (hograd_serving/warmup.py),
# so the first student gets a warm server; it tells the server when it is done, and exits. The server's process id goes to
# /tmp/hograd-app.pid, for compose.yaml's health check, which kills a hung server.
# hograd_serving/asgi.py: app.py with Streamlit's static bundles gzipped once (as `make run`).
CMD ["sh", "-c", "python -m hograd_serving.warmup http://127.0.0.1:8501 & echo $$ > /tmp/hograd-app.pid; exec python -m streamlit run hograd_serving/asgi.py --server.port 8501 --server.address 0.0.0.0"]
