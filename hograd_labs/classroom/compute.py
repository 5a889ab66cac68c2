"""A class on the server: who joined, every Check they made, what the lecturer revealed.

Storage is SQLAlchemy Core on any engine (SQLite in a file by default, PostgreSQL for replicas;
the page gets its engine from ``st.connection``). Every value from a student or a link goes in
as a bound parameter, never into the SQL text. Each write is one statement in its own
transaction (joining: one of two, the student and their seat; deleting a class: one of six).
Times are seconds since the epoch, passed in by the caller, so retention is tested without
waiting.

Names a person types are checked here (:func:`clean_nickname`, :func:`read_code`); what is
stored is plain text that the page shows as text, never as HTML or markdown.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import secrets
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from random import Random

import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError, OperationalError, SQLAlchemyError

from hograd_core.errors import HogradError

__all__ = [
    "CODE_ALPHABET",
    "CODE_LENGTH",
    "DAY",
    "MAX_ANSWER",
    "MAX_DAYS",
    "MAX_NICKNAME",
    "MAX_LINK",
    "RETENTION_DAYS",
    "SCHEMA_VERSION",
    "ClassInfo",
    "Shared",
    "ClassroomError",
    "Slip",
    "STUCK_TRIES",
    "Stuck",
    "stuck",
    "StepCounts",
    "Student",
    "Words",
    "RAW",
    "Summary",
    "MAX_PER_BROWSER",
    "MAX_STUDENTS",
    "clean_nickname",
    "skeleton",
    "create_schema",
    "delete_class",
    "done_steps",
    "export_csv",
    "find_class",
    "Live",
    "live",
    "set_paused",
    "join",
    "new_code",
    "open_class",
    "purge",
    "read_code",
    "Pending",
    "check_id",
    "record_check",
    "record_pending",
    "resume",
    "reset_step",
    "reveal",
    "share",
    "shared_view",
    "summary",
]

#: The version of the tables below. Version 1 (no ``classroom_shared``), 2 (no
#: ``classroom_seats``), 3 (no Check ids) and 4 (no pause) are brought to 5 by creating the
#: tables and adding the columns and indexes they lack (:func:`create_schema`); any other
#: version is refused, not guessed at.
SCHEMA_VERSION = 5
MIGRATES = {1: 5, 2: 5, 3: 5, 4: 5}  # version found -> the version it becomes once the parts exist
#: Class codes: 6 characters of letters and digits without O, I and L, 33⁶ ≈ 1.3·10⁹ codes.
#: Read alike, they are read as one (:data:`READ_AS`): a typed O is 0, a typed I or L is 1.
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ0123456789"
READ_AS = str.maketrans({"O": "0", "I": "1", "L": "1"})
#: what may separate a typed code's characters ("ab2 cd3", "AB2-CD3", "ab2.cd3")
CODE_SEPARATORS = " -_.\t\u00a0\u2010\u2011\u2012\u2013\u2014\u2212"
CODE_LENGTH = 6
MAX_NICKNAME = 24  # characters, suffix included
MAX_STUDENTS = 400  # students one class takes (a large lecture hall), then joins are refused
MAX_PER_BROWSER = 3  # joins of one class from one browser (a cookie, else the session)
MAX_ANSWER = 200  # characters of an answer as the app understood it
MAX_LINK = 2000  # characters of a view's link the lecturer shares (page and query)
CHECK_ID_LENGTH = 32  # hex digits of a Check's id: 128 random bits
MAX_PARAMS = 400  # characters of a verdict's parameters, as JSON
#: the verdicts' values that are numbers the app formatted (hograd_labs/lesson/compute.py's check)
KEPT_PARAMS = ("value", "index")
RETENTION_DAYS, MAX_DAYS = 30, 365
DAY = 86_400.0

metadata = sa.MetaData()
schema = sa.Table(
    "hograd_schema",
    metadata,
    sa.Column("part", sa.String(40), primary_key=True),
    sa.Column("version", sa.Integer, nullable=False),
)
classes = sa.Table(
    "classroom_classes",
    metadata,
    sa.Column("code", sa.String(CODE_LENGTH), primary_key=True),
    sa.Column("created", sa.Float, nullable=False),
    sa.Column("expires", sa.Float, nullable=False, index=True),
    # the lecturer's language when they opened it ("en", "zh"): the export's. NULL before v4.
    sa.Column("lang", sa.String(8), nullable=True),
    # when the lecturer paused the class ("eyes on the projector", :func:`set_paused`), in
    # seconds since the epoch; NULL while it runs (and in rows of version 4 and before)
    sa.Column("paused", sa.Float, nullable=True),
)
students = sa.Table(
    "classroom_students",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("code", sa.String(CODE_LENGTH), nullable=False),
    sa.Column("nickname", sa.String(MAX_NICKNAME * 4), nullable=False),
    sa.Column("joined", sa.Float, nullable=False),
    sa.UniqueConstraint("code", "nickname"),
    # :func:`skeleton` of the nickname: two names that look alike are one name. NULL in rows
    # of version 3 (their names were compared as written).
    sa.Column("skeleton", sa.String(MAX_NICKNAME * 4), nullable=True),
    # the SHA-256 of the joining browser's id (cookie or session), to bound joins per browser
    sa.Column("client", sa.String(64), nullable=True),
    sa.Index("ix_classroom_students_skeleton", "code", "skeleton", unique=True),
)
checks = sa.Table(
    "classroom_checks",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("code", sa.String(CODE_LENGTH), nullable=False, index=True),
    sa.Column("student", sa.Integer, nullable=False),
    sa.Column("step", sa.Integer, nullable=False),
    sa.Column("answer", sa.String(MAX_ANSWER * 4), nullable=False),
    sa.Column("correct", sa.Boolean, nullable=False),
    sa.Column("verdict", sa.String(80), nullable=False),  # its translation key: the slip's name
    sa.Column("params", sa.String(MAX_PARAMS * 4), nullable=False),
    sa.Column("at", sa.Float, nullable=False),
    # The Check's own id, made by the student's session before the first try (:func:`check_id`):
    # a Check sent again after a storage error is stored once. NULL in rows of version 3.
    sa.Column("cid", sa.String(CHECK_ID_LENGTH), nullable=True),
    sa.Index("ix_classroom_checks_cid", "cid", unique=True),
)
reveals = sa.Table(
    "classroom_reveals",
    metadata,
    sa.Column("code", sa.String(CODE_LENGTH), primary_key=True),
    sa.Column("step", sa.Integer, primary_key=True),
)
#: The view the lecturer shares with the class (its link, page and query, as
#: hograd_ui/parts/links.py's ``class_link`` wrote it); ``serial`` counts the shares, so that
#: a following student moves when the lecturer shares again, even the same view.
shared = sa.Table(
    "classroom_shared",
    metadata,
    sa.Column("code", sa.String(CODE_LENGTH), primary_key=True),
    sa.Column("link", sa.String(MAX_LINK), nullable=False),
    sa.Column("serial", sa.Integer, nullable=False),
    sa.Column("at", sa.Float, nullable=False),
)
#: A student's seat: the SHA-256 of a secret only their browser's link holds (``?seat=``), so
#: that a fresh session (a reconnect to another replica, a reload) sits them down again as the
#: same student instead of asking for a nickname. The secret itself is not stored.
seats = sa.Table(
    "classroom_seats",
    metadata,
    sa.Column("token", sa.String(64), primary_key=True),
    sa.Column("code", sa.String(CODE_LENGTH), nullable=False, index=True),
    sa.Column("student", sa.Integer, nullable=False),
)
#: A seat's secret: ``secrets.token_urlsafe(SEAT_BYTES)``, 22 characters of A-Z a-z 0-9 - _
SEAT_BYTES = 16
SEAT_LENGTH = 22
_SEAT_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
_PART = "classroom"
_LOCK = 0x686F67726164  # "hograd": PostgreSQL's advisory lock while the tables are made


class ClassroomError(HogradError):
    """A class code, a nickname or the class database refused, with what to do instead."""


# ---- codes and nicknames ---------------------------------------------------------------------


def new_code(rng: Random | None = None) -> str:
    """A fresh class code (``secrets`` unless a seeded ``rng`` is given, for tests)."""
    choice = rng.choice if rng is not None else secrets.choice
    return "".join(choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def read_code(text: object) -> str:
    """A class code as typed or linked: case, spaces, dashes and dots do not matter, and the
    letters read like a digit are that digit (O is 0; I and L are 1).

    Raises:
        ClassroomError: not :data:`CODE_LENGTH` characters of :data:`CODE_ALPHABET` (the
            text itself is not repeated in the message).

    Example:
        >>> read_code(" abc-def "), read_code("x0 o1il")
        ('ABCDEF', 'X00111')
    """
    if not isinstance(text, str) or len(text) > 4 * CODE_LENGTH:
        raise ClassroomError("classroom.error.code", length=CODE_LENGTH)
    text = unicodedata.normalize("NFKC", text).upper().translate(READ_AS)
    code = "".join(ch for ch in text if ch not in CODE_SEPARATORS)
    if len(code) != CODE_LENGTH or any(ch not in CODE_ALPHABET for ch in code):
        raise ClassroomError("classroom.error.code", length=CODE_LENGTH)
    return code


def clean_nickname(text: object) -> str:
    """A nickname as stored: NFKC (full-width and other compatibility forms become the plain
    letters they show), control and format characters removed, runs of blanks made one space,
    at most :data:`MAX_NICKNAME` characters.

    Raises:
        ClassroomError: nothing left to show, or a name that ends in a space and a number
            (the app's own suffix, "Ada 2", which tells two students of one name apart).

    Example:
        >>> clean_nickname("  Ada\\u200b  Lovelace\\n")
        'Ada Lovelace'
    """
    if not isinstance(text, str):
        raise ClassroomError("classroom.error.nickname", most=MAX_NICKNAME)
    text = unicodedata.normalize("NFKC", text[: 8 * MAX_NICKNAME])
    # categories C* (control, format, surrogate, private use, unassigned) never show as text
    kept = "".join(
        " " if ch.isspace() else ch
        for ch in text
        if ch.isspace() or not unicodedata.category(ch).startswith("C")
    )
    name = " ".join(kept.split())[:MAX_NICKNAME].strip()
    if not name:
        raise ClassroomError("classroom.error.nickname", most=MAX_NICKNAME)
    head, _, tail = name.rpartition(" ")
    if head and tail.isdigit():
        raise ClassroomError("classroom.error.nickname_suffix", name=head)
    return name


#: Letters that look like a Latin letter in common fonts (Cyrillic, Greek, and a few Latin
#: ones), after case folding: "Аda" with a Cyrillic А is "Ada" to the eye. A small table of the
#: look-alikes a keyboard offers, in the spirit of Unicode's confusables (UTS #39), not all of it.
LOOK_ALIKES = str.maketrans(
    {
        # Cyrillic (lower case, as case folding leaves them; "в" and "н" are В and Н folded)
        "а": "a", "в": "b", "е": "e", "ё": "e", "к": "k", "м": "m", "н": "h", "о": "o",
        "р": "p", "с": "c", "т": "t", "у": "y", "х": "x", "і": "i", "ї": "i", "ј": "j",
        "ѕ": "s", "ԁ": "d", "ԛ": "q", "ԝ": "w", "һ": "h", "ӏ": "l", "ү": "y", "ь": "b",
        # Greek (lower case; "η", "ν", "υ" are Η, Ν, Υ folded)
        "α": "a", "β": "b", "ε": "e", "η": "h", "ι": "i", "κ": "k", "μ": "m", "ν": "n",
        "ο": "o", "ρ": "p", "τ": "t", "υ": "y", "χ": "x", "ζ": "z", "ϲ": "c", "ϳ": "j",
        # Latin and digits read alike
        "ı": "i", "0": "o", "1": "l", "|": "l", "ß": "ss",
    }
)  # fmt: skip


def skeleton(name: str) -> str:
    """What a nickname looks like, for telling names apart: NFKC, case folded, look-alike
    letters (:data:`LOOK_ALIKES`) made the Latin letter they look like, "rn" read as "m".

    Example:
        >>> skeleton("\\u0410da") == skeleton("ada") == skeleton("ADA")
        True
    """
    folded = unicodedata.normalize("NFKC", name).casefold().translate(LOOK_ALIKES)
    return folded.replace("rn", "m")


def _with_suffix(name: str, n: int) -> str:
    """``name`` for the n-th student to pick it: "Ada", "Ada 2", "Ada 3", cut to fit."""
    if n == 1:
        return name
    tail = f" {n}"
    return name[: MAX_NICKNAME - len(tail)].rstrip() + tail


# ---- the tables ------------------------------------------------------------------------------


def create_schema(engine: Engine) -> None:
    """Create the tables if missing and record :data:`SCHEMA_VERSION`; a database of an
    earlier version in :data:`MIGRATES` gets its missing tables and the new version.

    On PostgreSQL this is one transaction under an advisory lock, so replicas starting
    together do not race to create the same tables. A newer database is refused: the tables
    of a later app are not guessed at (an older app refuses this one's version 2 likewise,
    so every replica of a class must run the same version).

    SQLite has no such lock here (its driver runs DDL outside the transaction): a start that
    collides with another one's tables tries again, and then finds them.

    Raises:
        ClassroomError: the database holds another version of these tables.
    """
    for attempt in range(3):
        try:
            return _create_schema(engine)
        except (IntegrityError, OperationalError):  # made meanwhile by another start
            if attempt == 2:
                raise


def _create_schema(engine: Engine) -> None:
    with engine.begin() as c:
        if c.dialect.name == "postgresql":
            c.execute(sa.text("SELECT pg_advisory_xact_lock(:k)"), {"k": _LOCK})
        found = None
        if sa.inspect(c).has_table(schema.name):
            found = c.execute(sa.select(schema.c.version).where(schema.c.part == _PART)).scalar()
        if found not in (None, SCHEMA_VERSION, *MIGRATES):
            raise ClassroomError("classroom.error.schema", found=found, needed=SCHEMA_VERSION)
        metadata.create_all(c, checkfirst=True)
        if found in MIGRATES:
            _add_missing(c)
        if found is None:
            c.execute(schema.insert().values(part=_PART, version=SCHEMA_VERSION))
        elif found != SCHEMA_VERSION:  # the missing tables exist now: the version follows
            c.execute(schema.update().where(schema.c.part == _PART).values(version=MIGRATES[found]))


def _add_missing(c: sa.Connection) -> None:
    """The columns and indexes of :data:`metadata` that an older version's tables lack. The
    names are this module's own, never text from outside."""
    inspector = sa.inspect(c)
    for table in metadata.sorted_tables:
        have = {col["name"] for col in inspector.get_columns(table.name)}
        for col in table.columns:
            if col.name not in have:
                kind = col.type.compile(c.dialect)
                c.execute(sa.text(f"ALTER TABLE {table.name} ADD COLUMN {col.name} {kind}"))
        indexes = {ix["name"] for ix in inspector.get_indexes(table.name)}
        for index in table.indexes:
            if index.name not in indexes:
                index.create(c)


@dataclass(frozen=True)
class ClassInfo:
    code: str
    created: float
    expires: float
    revealed: frozenset[int]
    lang: str = ""  # the lecturer's language when they opened it ("" before version 4)
    paused: bool = False  # the lecturer paused the class (:func:`set_paused`)


@dataclass(frozen=True)
class Student:
    id: int
    code: str
    nickname: str
    seat: str = ""  # the seat's secret (:data:`seats`), known to this student's session only


def _seat_hash(seat: str) -> str:
    return hashlib.sha256(seat.encode("ascii")).hexdigest()


def open_class(
    engine: Engine,
    now: float,
    days: int = RETENTION_DAYS,
    rng: Random | None = None,
    lang: str = "",
) -> str:
    """A new class, kept ``days`` days (1 to :data:`MAX_DAYS`) from ``now``; its code.
    ``lang``: the lecturer's language, the one its export is written in."""
    if not isinstance(days, int) or isinstance(days, bool) or not 1 <= days <= MAX_DAYS:
        raise ClassroomError("classroom.error.days", most=MAX_DAYS)
    for _ in range(8):  # a code already taken: draw again
        code = new_code(rng)
        try:
            with engine.begin() as c:
                c.execute(
                    classes.insert().values(
                        code=code, created=now, expires=now + days * DAY, lang=str(lang)[:8]
                    )
                )
            return code
        except IntegrityError:
            continue
    raise ClassroomError("classroom.error.busy")


def find_class(engine: Engine, code: str, now: float) -> ClassInfo | None:
    """The class with this code, None if there is none or it has expired."""
    with engine.connect() as c:
        row = c.execute(
            sa.select(classes).where(classes.c.code == code, classes.c.expires > now)
        ).first()
        if row is None:
            return None
        steps = c.execute(sa.select(reveals.c.step).where(reveals.c.code == code)).scalars()
        return ClassInfo(
            row.code,
            row.created,
            row.expires,
            frozenset(steps),
            row.lang or "",
            row.paused is not None,
        )


def _free_name(names: list[str], name: str) -> str:
    """The first of "name", "name 2", "name 3", ... that looks like nobody's in ``names``."""
    taken = {skeleton(n) for n in names}
    n = 1
    while skeleton(_with_suffix(name, n)) in taken:
        n += 1
    return _with_suffix(name, n)


def _client_hash(client: str) -> str | None:
    return hashlib.sha256(client.encode("utf-8", "surrogatepass")).hexdigest() if client else None


def join(engine: Engine, code: str, nickname: str, now: float, client: str = "") -> Student:
    """A student joins the class ``code`` as ``nickname`` (cleaned); a name that looks like
    one taken already in this class (:func:`skeleton`: "Аda" with a Cyrillic А, "ADA") gets
    the first free suffix ("Ada 2"). The student and their seat are one transaction of two
    statements: a student is never left without the seat they were given.

    Joins are bounded: :data:`MAX_STUDENTS` a class, and :data:`MAX_PER_BROWSER` from one
    ``client`` (the browser's id from its cookie, or the session's; only its hash is kept).

    Raises:
        ClassroomError: no such class (or expired), a nickname with nothing to show or with
            the app's suffix, the class full, this browser's joins used up, or no free suffix
            left.
    """
    name = clean_nickname(nickname)
    if find_class(engine, code, now) is None:
        raise ClassroomError("classroom.error.no_class")
    browser = _client_hash(client)
    for _ in range(50):  # a name another session took between the look and the insert: again
        seat = secrets.token_urlsafe(SEAT_BYTES)
        try:
            with engine.begin() as c:
                # Joins to one class take turns where the database locks rows (PostgreSQL:
                # the class's row, until this transaction ends), so a crowd choosing the same
                # name never collides there; SQLite has no row locks (SQLAlchemy leaves FOR
                # UPDATE out) and one writer at a time: a collision is retried.
                c.execute(sa.select(classes.c.code).where(classes.c.code == code).with_for_update())
                rows = c.execute(
                    sa.select(students.c.nickname, students.c.client).where(students.c.code == code)
                ).all()
                if len(rows) >= MAX_STUDENTS:
                    raise ClassroomError("classroom.error.full", most=MAX_STUDENTS)
                if browser and sum(r.client == browser for r in rows) >= MAX_PER_BROWSER:
                    raise ClassroomError("classroom.error.browser", most=MAX_PER_BROWSER)
                candidate = _free_name([r.nickname for r in rows], name)
                new = c.execute(
                    students.insert().values(
                        code=code,
                        nickname=candidate,
                        joined=now,
                        skeleton=skeleton(candidate),
                        client=browser,
                    )
                ).inserted_primary_key
                c.execute(
                    seats.insert().values(token=_seat_hash(seat), code=code, student=int(new[0]))
                )
            return Student(int(new[0]), code, candidate, seat)
        except IntegrityError:  # taken a moment ago, maybe by another replica
            continue
    raise ClassroomError("classroom.error.busy")


def resume(engine: Engine, code: str, seat: object, now: float) -> Student | None:
    """The student of class ``code`` whose seat's secret is ``seat`` (from their link), or
    None: no such seat in this class, the class gone, or text that is no seat at all (read no
    further than its length)."""
    if not isinstance(seat, str) or len(seat) != SEAT_LENGTH or not set(seat) <= _SEAT_CHARS:
        return None
    if find_class(engine, code, now) is None:
        return None
    with engine.connect() as c:
        row = c.execute(
            sa.select(students.c.id, students.c.nickname)
            .join(seats, seats.c.student == students.c.id)
            .where(seats.c.token == _seat_hash(seat), seats.c.code == code, students.c.code == code)
        ).first()
    return None if row is None else Student(int(row.id), code, row.nickname, seat)


def record_check(
    engine: Engine,
    student: Student,
    step: int,
    answer: str,
    correct: bool,
    verdict: str,
    params: tuple[tuple[str, str], ...],
    now: float,
    cid: str | None = None,
) -> None:
    """One Check: the step, the answer as the app understood it, right or not, and the
    verdict's translation key and values (a known slip is its key, "lesson.trap.value").
    Only the values the app wrote itself are kept (:data:`KEPT_PARAMS`): the part of a typed
    answer that could not be read is the student's own text, and is not stored.

    ``cid`` (:func:`check_id`) makes the Check idempotent: sent again, after an error that
    came when it was stored already (the connection lost on COMMIT's answer), it is stored
    once. A Check that says what the student's last recorded Check of the same step says
    (the same answer, verdict and values) is the same attempt, Check pressed again (a double
    tap, a click sent again by a page that reconnected to another replica): it is not stored
    again. Once the lecturer resets the step, that earlier Check is gone and it is stored.
    Returns only once the Check is in the database (or its earlier one is).

    Raises:
        ClassroomError: ``cid`` is not an id of :func:`check_id`.
        SQLAlchemyError: the database failed; the Check may or may not be stored (send it
            again with the same ``cid``).
    """
    if cid is not None and (
        not isinstance(cid, str)
        or len(cid) != CHECK_ID_LENGTH
        or not set(cid) <= set("0123456789abcdef")
    ):
        raise ClassroomError("classroom.error.check_id", length=CHECK_ID_LENGTH)
    shown = json.dumps({k: str(v) for k, v in params if k in KEPT_PARAMS}, ensure_ascii=False)
    row = {
        "code": student.code,
        "student": student.id,
        "step": int(step),
        "answer": str(answer)[:MAX_ANSWER],
        "correct": bool(correct),
        "verdict": str(verdict)[:80],
        "params": shown if len(shown) <= MAX_PARAMS else "{}",
        "at": float(now),
        "cid": cid,
    }
    mine = (
        checks.c.code == student.code,
        checks.c.student == student.id,
        checks.c.step == int(step),
    )
    last = sa.select(sa.func.max(checks.c.id)).where(*mine).scalar_subquery()
    said = ("answer", "correct", "verdict", "params")
    same = sa.select(checks.c.id).where(
        checks.c.id == last, *(checks.c[name] == row[name] for name in said)
    )
    # one statement: the last Check is read under the write's lock (SQLite has one writer;
    # PostgreSQL's row lock on the student serialises two replicas' Checks of one student)
    values = sa.select(*(sa.literal(v, checks.c[k].type) for k, v in row.items())).where(
        ~sa.exists(same)
    )
    try:
        with engine.begin() as c:
            c.execute(sa.select(students.c.id).where(students.c.id == student.id).with_for_update())
            c.execute(checks.insert().from_select(list(row), values))
    except IntegrityError:
        if cid is None or not _stored(engine, cid):
            raise
        # stored by an earlier try whose answer was lost: that row is this Check


def _stored(engine: Engine, cid: str) -> bool:
    with engine.connect() as c:
        return c.execute(sa.select(checks.c.id).where(checks.c.cid == cid)).first() is not None


def check_id() -> str:
    """A fresh id for one Check, made before its first try (128 random bits, hex)."""
    return secrets.token_hex(CHECK_ID_LENGTH // 2)


@dataclass(frozen=True)
class Pending:
    """A Check not yet in the database: what :func:`record_check` needs, and the student by
    their seat's secret when the session could not look them up yet (``student`` 0)."""

    cid: str
    code: str
    student: int
    seat: str
    step: int
    answer: str
    correct: bool
    verdict: str
    params: tuple[tuple[str, str], ...]
    at: float


def record_pending(engine: Engine, pending: tuple[Pending, ...], now: float) -> tuple[Pending, ...]:
    """Store the Checks waiting in ``pending``, oldest first; the ones still waiting.

    Stops at the first storage error (the database is out: the rest wait too). A Check whose
    student cannot be found any more (the class deleted, the seat gone) is dropped: there is
    nobody to record it for. Each is stored once however often this is called
    (:func:`record_check` with its ``cid``).
    """
    for n, item in enumerate(pending):
        try:
            student: Student | None = Student(item.student, item.code, "", item.seat)
            if not item.student:
                student = resume(engine, item.code, item.seat, now)
            if student is not None:
                record_check(
                    engine,
                    student,
                    item.step,
                    item.answer,
                    item.correct,
                    item.verdict,
                    item.params,
                    item.at,
                    cid=item.cid,
                )
        except SQLAlchemyError:
            return pending[n:]
    return ()


def reveal(engine: Engine, code: str, step: int) -> None:
    """The lecturer reveals the answer of ``step`` to the class (once is enough)."""
    try:
        with engine.begin() as c:
            c.execute(reveals.insert().values(code=code, step=int(step)))
    except IntegrityError:
        pass


@dataclass(frozen=True)
class Shared:
    link: str  # as stored; the page reads it again with the app's link rules
    serial: int  # 1 for the first share, one more for each later one


def share(engine: Engine, code: str, link: str, now: float) -> int:
    """The lecturer shares the view ``link`` with the class ``code``; its serial.

    Raises:
        ClassroomError: a link longer than :data:`MAX_LINK` or not text.
    """
    if not isinstance(link, str) or not 0 < len(link) <= MAX_LINK:
        raise ClassroomError("classroom.error.link", most=MAX_LINK)
    for _ in range(3):  # the first share inserts; a share at the same moment updates
        with engine.begin() as c:
            done = c.execute(
                shared.update()
                .where(shared.c.code == code)
                .values(link=link, serial=shared.c.serial + 1, at=now)
            ).rowcount
            if done:
                return int(
                    c.execute(sa.select(shared.c.serial).where(shared.c.code == code)).scalar_one()
                )
        try:
            with engine.begin() as c:
                c.execute(shared.insert().values(code=code, link=link, serial=1, at=now))
            return 1
        except IntegrityError:
            continue
    raise ClassroomError("classroom.error.busy")


def set_paused(engine: Engine, code: str, paused: bool, now: float) -> None:
    """The lecturer pauses the class ``code`` ("eyes on the projector": the students who
    follow see the view shared last and nothing else) or lets it run again. Pausing a paused
    class keeps the time it was paused first."""
    value = sa.func.coalesce(classes.c.paused, now) if paused else None
    with engine.begin() as c:
        c.execute(classes.update().where(classes.c.code == code).values(paused=value))


@dataclass(frozen=True)
class Live:
    """What a following student's page looks up every second, in one query."""

    shared: Shared | None  # the view shared last, None before the first share
    paused: bool  # the lecturer paused the class


def live(engine: Engine, code: str, now: float) -> Live | None:
    """The class's shared view and whether it is paused; None when there is no such class
    (deleted, or its days are over). One statement: the class's row and its shared view."""
    with engine.connect() as c:
        row = c.execute(
            sa.select(classes.c.paused, shared.c.link, shared.c.serial)
            .select_from(classes.outerjoin(shared, shared.c.code == classes.c.code))
            .where(classes.c.code == code, classes.c.expires > now)
        ).first()
    if row is None:
        return None
    view = None if row.link is None else Shared(row.link, int(row.serial))
    return Live(view, row.paused is not None)


def shared_view(engine: Engine, code: str) -> Shared | None:
    """The view the lecturer of ``code`` shared last, None before the first share."""
    with engine.connect() as c:
        row = c.execute(
            sa.select(shared.c.link, shared.c.serial).where(shared.c.code == code)
        ).first()
    return None if row is None else Shared(row.link, int(row.serial))


def done_steps(engine: Engine, student: Student) -> frozenset[int]:
    """The steps this student got right: the class's record of their progress."""
    with engine.connect() as c:
        rows = c.execute(
            sa.select(checks.c.step)
            .distinct()
            .where(checks.c.code == student.code, checks.c.student == student.id, checks.c.correct)
        ).scalars()
        return frozenset(rows)


# ---- what the lecturer sees ------------------------------------------------------------------


@dataclass(frozen=True)
class Slip:
    """A wrong answer's verdict, as the student read it, and how many students got it."""

    verdict: str
    params: tuple[tuple[str, str], ...]
    students: int


@dataclass(frozen=True)
class StepCounts:
    step: int
    tried: int  # students with at least one Check here
    right: int  # students who got it right at least once
    slips: tuple[Slip, ...]  # most common first


@dataclass(frozen=True)
class Summary:
    joined: int
    steps: tuple[StepCounts, ...]


def summary(engine: Engine, code: str, top: int = 5) -> Summary:
    """Students joined, and per step with a Check: tried, right and the ``top`` slips."""
    student = sa.func.count(sa.distinct(checks.c.student))
    right = sa.func.count(sa.distinct(sa.case((checks.c.correct, checks.c.student))))
    with engine.connect() as c:
        joined = c.execute(
            sa.select(sa.func.count()).select_from(students).where(students.c.code == code)
        ).scalar_one()
        per_step = c.execute(
            sa.select(checks.c.step, student, right)
            .where(checks.c.code == code)
            .group_by(checks.c.step)
            .order_by(checks.c.step)
        ).all()
        wrong = c.execute(
            sa.select(checks.c.step, checks.c.verdict, checks.c.params, student)
            .where(checks.c.code == code, sa.not_(checks.c.correct))
            .group_by(checks.c.step, checks.c.verdict, checks.c.params)
        ).all()
    slips: dict[int, list[Slip]] = {}
    for step, verdict, params, n in wrong:
        slips.setdefault(step, []).append(Slip(verdict, tuple(json.loads(params).items()), n))
    steps = tuple(
        StepCounts(
            step,
            tried,
            got,
            tuple(sorted(slips.get(step, []), key=lambda s: (-s.students, s.verdict))[:top]),
        )
        for step, tried, got in per_step
    )
    return Summary(joined, steps)


#: wrong Checks on a step, and none right, after which a student is "stuck" on it
STUCK_TRIES = 2


@dataclass(frozen=True)
class Stuck:
    """A student with :data:`STUCK_TRIES` or more wrong Checks on a step and none right."""

    nickname: str  # as stored: the page shows it as text
    step: int
    wrong: int  # their wrong Checks on it
    last: float  # the time of their last Check on it


def stuck(engine: Engine, code: str, least: int = STUCK_TRIES) -> tuple[Stuck, ...]:
    """Who is stuck, and where: per student and step, ``least`` or more wrong Checks and no
    right one; most wrong Checks first, then the latest."""
    wrong = sa.func.sum(sa.case((checks.c.correct, 0), else_=1))
    right = sa.func.sum(sa.case((checks.c.correct, 1), else_=0))
    with engine.connect() as c:
        rows = c.execute(
            sa.select(students.c.nickname, checks.c.step, wrong, sa.func.max(checks.c.at))
            .join(students, students.c.id == checks.c.student)
            .where(checks.c.code == code)
            .group_by(checks.c.student, students.c.nickname, checks.c.step)
            .having(sa.and_(right == 0, wrong >= least))
        ).all()
    found = (Stuck(name, int(step), int(n), float(at)) for name, step, n, at in rows)
    return tuple(sorted(found, key=lambda s: (-s.wrong, -s.last, s.step, s.nickname)))


def _cell(text: str) -> str:
    """A CSV cell a spreadsheet shows as text, never runs as a formula (OWASP's advice)."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


@dataclass(frozen=True)
class Words:
    """How the export says each cell: the page fills these from the translation catalogue in
    the class's language (this module knows no language); :data:`RAW` says them as stored."""

    header: tuple[str, str, str, str, str, str]  # nickname, step, answer, right, verdict, time
    step: Callable[[int], str]  # a step's number -> its name
    answer: Callable[[str], str]  # the answer as stored (a choice: its option's key) -> words
    right: Callable[[bool], str]
    verdict: Callable[[str, tuple[tuple[str, str], ...]], str]  # key and values -> words
    time: Callable[[float], str]  # seconds since the epoch -> a date and time


def _utc(at: float) -> str:
    return datetime.fromtimestamp(at, UTC).isoformat(timespec="seconds")


#: the cells as stored: keys, numbers, ISO 8601 times in UTC
RAW = Words(
    ("nickname", "step", "answer", "correct", "verdict", "time"),
    str,
    str,
    lambda right: str(int(right)),
    lambda key, params: key + (json.dumps(dict(params), ensure_ascii=False) if params else ""),
    _utc,
)


def export_csv(engine: Engine, code: str, words: Words = RAW) -> str:
    """Every Check of the class, one row each, oldest first, as CSV text, each cell said by
    ``words`` (the page's: in the class's language and the lecturer's local time)."""
    with engine.connect() as c:
        rows = c.execute(
            sa.select(
                students.c.nickname,
                checks.c.step,
                checks.c.answer,
                checks.c.correct,
                checks.c.verdict,
                checks.c.params,
                checks.c.at,
            )
            .join(students, students.c.id == checks.c.student)
            .where(checks.c.code == code)
            .order_by(checks.c.at, checks.c.id)
        ).all()
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(words.header)
    for nick, step, answer, correct, verdict, params, at in rows:
        values = tuple(json.loads(params).items())
        writer.writerow(
            [
                _cell(nick),
                _cell(words.step(step)),
                _cell(words.answer(answer)),
                words.right(bool(correct)),
                _cell(words.verdict(verdict, values)),
                words.time(at),
            ]
        )
    return out.getvalue()


def reset_step(engine: Engine, code: str, step: int) -> int:
    """The lecturer clears step ``step`` of the class ``code``: its Checks and its reveal are
    deleted (one transaction), so the class can try it afresh; how many Checks went."""
    with engine.begin() as c:
        gone = c.execute(
            checks.delete().where(checks.c.code == code, checks.c.step == int(step))
        ).rowcount
        c.execute(reveals.delete().where(reveals.c.code == code, reveals.c.step == int(step)))
    return int(gone)


def delete_class(engine: Engine, code: str) -> None:
    """The class and everything recorded in it, gone (one transaction)."""
    with engine.begin() as c:
        for table in (checks, seats, students, reveals, shared, classes):
            c.execute(table.delete().where(table.c.code == code))


def purge(engine: Engine, now: float) -> int:
    """Delete every class whose time is up, with its records; how many were deleted."""
    with engine.connect() as c:
        old = c.execute(sa.select(classes.c.code).where(classes.c.expires <= now)).scalars().all()
    for code in old:
        delete_class(engine, code)
    return len(old)
