# Two commands for a fresh Debian machine with Python 3.11:
#   make run    set up .venv and start the app on http://localhost:8501
#   make test   set up .venv with the test tools, install Debian's chromium and graphviz if
#               missing, run every test

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
PORT   ?= 8501

.PHONY: run serve test test-core test-serving test-app test-e2e test-cloud-install test-docker docker-engine lint bench load clean debian screenshots

# --retries 1: requirements.txt names PyTorch's page of CPU wheels, which a machine with only a
# local package mirror cannot reach; pip's default of 5 retries waits 8.5 s for it, one 0.6 s.
$(VENV)/.runtime: requirements.txt
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet --retries 1 -r requirements.txt
	@touch $@

$(VENV)/.dev: requirements-dev.txt $(VENV)/.runtime
	$(PY) -m pip install --quiet --retries 1 -r requirements-dev.txt
	@touch $@

# The warm-up (hograd_serving/warmup.py) makes the first visit in the background once the
# server answers, so the first student gets a warm server. hograd_serving/teacher_key.py makes
# up the lesson's teacher key when neither HOGRAD_TEACHER_KEY nor .streamlit/secrets.toml holds
# one, and prints the teacher's link in the terminal (as Jupyter prints its token).
# hograd_serving/asgi.py serves app.py through Streamlit's st.App with Streamlit's static
# bundles gzipped once (hograd_serving/gzip_static.py); start it from this folder, where
# .streamlit/ is.
run: $(VENV)/.runtime
	$(PY) -m hograd_serving.warmup http://127.0.0.1:$(PORT) &
	$(PY) -m hograd_serving.teacher_key --port $(PORT) -- \
		$(PY) -m streamlit run hograd_serving/asgi.py --server.port $(PORT)

# A class larger than one process serves: REPLICAS identical app processes on loopback ports
# behind haproxy with cookie-based session affinity, on http://localhost:$(PROXY_PORT)
# (deploy/replicas.py; docs/deploy.md).
REPLICAS ?= 2
PROXY_PORT ?= 8080
# HOGRAD_PUBLIC_URL (the address students reach, for the class link and QR code) goes to every
# replica: `make serve HOGRAD_PUBLIC_URL=http://192.168.1.20:8080`.
export HOGRAD_PUBLIC_URL
serve: $(VENV)/.runtime debian
	$(PY) -m hograd_serving.teacher_key --port $(PROXY_PORT) -- \
		$(PY) deploy/replicas.py --replicas $(REPLICAS) --port $(PROXY_PORT)

# Debian packages the tests need: chromium for the browser tests (never a downloaded browser),
# with CJK fonts so the Chinese screenshots are readable, graphviz's dot for the graph page's
# SVG export, haproxy for the replicas (make serve, tests/deploy), openssl for the TLS test's
# certificate and g++ (build-essential) for the C++ programs' tests (tests/cpp). Installed when
# missing and we are root; otherwise a clear message says what to run.
debian:
	@missing=""; \
	[ -x /usr/bin/chromium ] || missing=" chromium fonts-noto-cjk"; \
	command -v dot >/dev/null 2>&1 || missing="$$missing graphviz"; \
	command -v haproxy >/dev/null 2>&1 || missing="$$missing haproxy"; \
	command -v openssl >/dev/null 2>&1 || missing="$$missing openssl"; \
	command -v g++ >/dev/null 2>&1 || missing="$$missing build-essential"; \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if [ "$$(id -u)" = "0" ]; then \
		echo "installing Debian's packages for the tests:$$missing"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	else \
		echo "error: the tests need Debian's packages: run 'sudo apt-get install -y $$missing'" >&2; \
		exit 1; \
	fi

# Every test and doctest, the import contracts among them (tests/project); the 15 slowest are
# listed at the end, so a test that grows slow is seen. TEST_WORKERS pytest-xdist processes
# (one per core of a 2-core machine; 0: one process, no xdist) take the test files in turn,
# the costliest first; the replica tests stay together on one worker, and so do the C++ tests
# (tests/conftest.py says why).
TEST_WORKERS ?= 2
test: $(VENV)/.dev debian
	$(PY) -m pytest -q --durations=15 -n $(TEST_WORKERS) --dist loadfile

# The compute core alone: pure and fast, no processes (and its doctests).
test-core: $(VENV)/.dev
	$(PY) -m pytest -q tests/core

test-serving: $(VENV)/.dev
	$(PY) -m pytest -q tests/serving

test-app: $(VENV)/.dev
	$(PY) -m pytest -q tests/app

test-e2e: $(VENV)/.dev debian
	$(PY) -m pytest -q tests/e2e

# The Docker image and compose.yaml's replicas behind the proxy, built and checked end to end
# (deploy/docker_check.py): non-root, CPU torch, the seed examples, HEALTHCHECK, cookie
# affinity, a replica crashing and coming back. Apart from `make test` because it builds an
# image (minutes; docs/performance.md has the figures) and needs a Docker engine.
# requirements.txt installed as Community Cloud installs it: uv, then pip, from the public index
# in fresh environments with no pip configuration; both must bring the CPU torch at every pin
# (deploy/cloud_install_check.py; a stand-in of PyTorch's page where it cannot be reached).
test-cloud-install: $(VENV)/.runtime
	$(PY) deploy/cloud_install_check.py

test-docker: $(VENV)/.dev docker-engine
	$(PY) deploy/docker_check.py

# A Docker engine for test-docker: Debian's docker.io, docker-compose and debootstrap (for the
# stand-in base images where Docker Hub cannot be reached) installed when missing and we are
# root, and dockerd started when no engine answers.
docker-engine:
	@missing=""; \
	command -v dockerd >/dev/null 2>&1 || missing=" docker.io"; \
	command -v docker-compose >/dev/null 2>&1 || missing="$$missing docker-compose"; \
	command -v debootstrap >/dev/null 2>&1 || missing="$$missing debootstrap"; \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" != "0" ]; then \
			echo "error: the Docker check needs: sudo apt-get install -y $$missing" >&2; exit 1; \
		fi; \
		echo "installing Debian's packages for the Docker check:$$missing"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	fi; \
	docker info >/dev/null 2>&1 && exit 0; \
	if [ "$$(id -u)" != "0" ]; then echo "error: no Docker engine answers: start dockerd" >&2; exit 1; fi; \
	echo "starting dockerd (its log: /tmp/hograd-dockerd.log)"; \
	nohup dockerd </dev/null >/tmp/hograd-dockerd.log 2>&1 & \
	for i in $$(seq 120); do docker info >/dev/null 2>&1 && exit 0; sleep 1; done; \
	echo "error: dockerd did not start: see /tmp/hograd-dockerd.log" >&2; exit 1

# The README's pictures, made again from a server started for it (docs/screenshots.py).
screenshots: $(VENV)/.dev debian
	$(PY) docs/screenshots.py

lint: $(VENV)/.dev
	$(PY) -m ruff check . && $(PY) -m ruff format --check . && $(VENV)/bin/lint-imports

bench: $(VENV)/.dev
	$(PY) benchmarks/derivatives.py
	$(PY) benchmarks/hvp.py

# The classroom load benchmark: starts its own server on a free loopback port (see README).
load: $(VENV)/.dev debian
	$(PY) benchmarks/load.py

clean:
	rm -rf $(VENV) .pytest_cache tests/artifacts
