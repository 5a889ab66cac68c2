"""The classroom: a lecturer opens a class, students join it with a nickname, every Check they
make is recorded on the server, and the lecturer's dashboard shows the class live."""
