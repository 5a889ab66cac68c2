# hograd in a container: the same install and start as `make run`, as a non-root user.
#   docker build -t hograd .
#   docker run -p 8501:8501 hograd          # one process; compose.yaml runs replicas
# deploy/docker_check.py builds and tests it here, where Docker Hub and PyTorch's server cannot
# be reached: BASE names a stand-in built from Debian's packages, and PIP_FIND_LINKS a local
# folder of wheels holding the CPU torch. Left as they are, neither changes anything.
ARG BASE=python:3.11-slim
FROM ${BASE}

# Debian's packages the app uses (packages.txt: graphviz's dot for the SVG download).
COPY packages.txt /tmp/packages.txt
RUN apt-get update \
    && xargs -a /tmp/packages.txt apt-get install -y --no-install-recommends \
    && rm -rf /var/lib/apt/lists/* /tmp/packages.txt

RUN useradd --create-home --uid 10001 hograd
WORKDIR /app

# The CPU build of torch (requirements.txt says how), before the code, so a code change does not
# reinstall the packages.
COPY requirements.txt .
ARG PIP_FIND_LINKS=
RUN pip install --no-cache-dir --retries 1 -r requirements.txt

COPY --chown=hograd:hograd . .
USER hograd

ENV PYTHONUNBUFFERED=1 \
    STREAMLIT_SERVER_PORT=8501 \
    STREAMLIT_SERVER_ADDRESS=0.0.0.0 \
    STREAMLIT_SERVER_HEADLESS=true
EXPOSE 8501
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
    CMD ["python", "-c", "import sys, urllib.request; sys.exit(urllib.request.urlopen('http://127.0.0.1:8501/_stcore/health', timeout=4).status != 200)"]
# The warm-up makes the first visit itself once the server answers (hograd_serving/warmup.py),
# so the first student gets a warm server; it exits when done.
CMD ["sh", "-c", "python -m hograd_serving.warmup http://127.0.0.1:8501 & exec python -m streamlit run app.py --server.port 8501 --server.address 0.0.0.0"]
