"""apps/stuck.py served as the app is (hograd_serving/asgi.py), with the server's middleware:
the health endpoint, the warm-up's announcement and the browser cookie."""

import sys
from pathlib import Path

import streamlit as st
from starlette.middleware import Middleware

sys.path.insert(1, str(Path(__file__).resolve().parents[3]))

from hograd_serving.serving_middleware import ServingMiddleware

app = st.App(Path(__file__).with_name("stuck.py"), middleware=[Middleware(ServingMiddleware)])
