"""How long a test lets one of Streamlit's AppTest runs take before calling it hung.

AppTest's ``default_timeout`` is a timer: a run that has not finished by then raises "AppTest
script run timed out", although it would have finished. On a quiet machine the slowest page run
here takes a few seconds; on a 2-core machine running the rest of the suite beside it, the same
run took over a minute. The ceiling only ends a run that never finishes, so it is far above
either; a run that finishes returns at once, whatever the ceiling.
"""

APP_TEST_CEILING = 900.0  # s
