"""Streamlit pages (thin: read widgets, call hograd_core, render)."""
