"""The classroom: a lecturer opens a class, students join it with a nickname, every Check they
make is recorded on the server, and the lecturer's dashboard shows the class live."""

from hograd_ui.lab import Lab

#: What the app needs to know of this lab (hograd_ui/lab.py): read by pages/__init__.py. Its
#: panels are drawn on the lesson page; its settings are each student's own, never in a link.
LAB = Lab(__name__)
