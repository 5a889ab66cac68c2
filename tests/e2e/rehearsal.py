"""The lecture hall's walk, written once and run against any base URL (issue 48): the lecturer
projects at 1920x1080 in presentation mode with the teacher's key; students on phones (touch,
device scale factor 3; 390x844 unless asked otherwise) and laptops (1280x800) join from the
class's link. Each action of the lecturer is clicked where the projector shows it (visible, in
the viewport, and the element a click at its centre reaches), and what every student sees
after it is asserted, in the lecture's language.

:func:`rehearse` is the whole lecture: open a class, project, share three views (by default
the HVP page, the graph page, then always the lesson's first step), pause, resume, answers, the
lecturer's own screen in a second tab (and a student's second tab refused), reveal, reset,
answers again, export, delete. tests/e2e/test_lecture_browser.py runs it on one server with
SQLite; tests/deploy/test_lecture_replicas.py on two replicas behind haproxy with PostgreSQL.
What differs between the two (the base URL, the key, the language, the phone's size, the
class's size, the views shared) is an argument; :func:`from_env` reads the ``HOGRAD_REHEARSAL_*``
overrides both tests accept.

Every check waits for its state with the 120 s ceiling (``expect``, :func:`wait_for_app`,
``wait_for_function``): none is decided by a sleep or a short timeout.
"""

from __future__ import annotations

import csv
import io
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import parse_qs, urlparse

from playwright.sync_api import expect

from hograd_labs.classroom.page import CSV_COLUMNS
from hograd_ui.i18n import tr
from tests.e2e.conftest import ARTIFACTS, TEACHER_KEY, screenshot, wait_for_app

WAIT = 120_000  # ms: the ceiling of every wait (each ends at its event)
LAPTOP = {"viewport": {"width": 1280, "height": 800}}
PROJECTOR = {"viewport": {"width": 1920, "height": 1080}, "accept_downloads": True}
#: The title key of each page a lecturer can share, by its path (app.py's st.Page titles).
TITLES = {
    "/derivatives": "app.page.derivatives",
    "/graph": "app.page.graph",
    "/hvp": "app.page.hvp",
    "/why": "app.page.why",
    "/backward": "backward.page",
    "/memory": "memory.page",
    "/code": "code.page",
    "/lesson": "lesson.page",
}
#: The views shared before the lesson's first step (which is always shared last: the answers,
#: the pause, the reveal and the reset happen on it).
VIEWS = ("/hvp", "/graph")

#: Whether a click at the centre of ``el`` reaches ``el`` (or an element inside it): what a
#: finger or a mouse would get, which a hidden overlay or ``pointer-events: none`` changes.
HIT_JS = """(el) => { el.scrollIntoView({block: 'center'}); const r = el.getBoundingClientRect();
  const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return r.width > 0 && r.height > 0 && !!hit && (hit === el || el.contains(hit)); }"""


def phone(width: int = 390, height: int = 844) -> dict:
    """A phone's browser context options: ``width`` x ``height`` CSS pixels, touch, scale 3."""
    return {
        "viewport": {"width": width, "height": height},
        "is_mobile": True,
        "has_touch": True,
        "device_scale_factor": 3,
    }


PHONE = phone()


@dataclass(frozen=True)
class Class:
    """Who is in the lecture and what it shows.

    Args:
        lang: the lecture's language, the lecturer's and every student's ("en" or "zh").
        phones: students on phones (all follow the lecturer).
        laptops: students on laptops (all but the last follow; at least 1).
        phone: the phones' browser context options (:func:`phone`).
        views: the pages shared before the lesson's first step (keys of :data:`TITLES`).
    """

    lang: str = "en"
    phones: int = 2
    laptops: int = 2
    phone: dict = field(default_factory=lambda: PHONE)
    views: tuple[str, ...] = VIEWS


def from_env(**defaults: object) -> Class:
    """The class of ``defaults`` (:class:`Class`'s fields), each overridden by its variable:
    ``HOGRAD_REHEARSAL_LANG`` (en, zh), ``_PHONES``, ``_LAPTOPS``, ``_PHONE`` (``360x780``),
    ``_VIEWS`` (``/derivatives,/backward``)."""
    base = Class(**defaults)  # type: ignore[arg-type]
    env = os.environ.get
    size = env("HOGRAD_REHEARSAL_PHONE")
    views = env("HOGRAD_REHEARSAL_VIEWS")
    return Class(
        lang=env("HOGRAD_REHEARSAL_LANG", base.lang),
        phones=int(env("HOGRAD_REHEARSAL_PHONES", str(base.phones))),
        laptops=int(env("HOGRAD_REHEARSAL_LAPTOPS", str(base.laptops))),
        phone=phone(*map(int, size.lower().split("x"))) if size else base.phone,
        views=tuple(v.strip() for v in views.split(",")) if views else base.views,
    )


#: The errors of a broken Streamlit tree (hograd_serving/recover.js's ``BROKEN``).
TREE_BROKEN = re.compile(r"Bad delta path index|Cannot set a node at a delta path")


@dataclass
class Hall:
    """The browsers of one lecture at ``base``: every context it opens is closed on exit."""

    browser: object
    base: str
    lang: str = "en"
    key: str = TEACHER_KEY
    tag: str = "lecture"  # the screenshots' prefix (tests/artifacts/<tag>_*.png)
    contexts: list = field(default_factory=list)
    #: each uncaught error of the pages' scripts (a crashed Streamlit front end shows a blank
    #: page): (the page, its address then, its loads so far, the error); and each page's loads
    broken: list = field(default_factory=list)
    loads: dict = field(default_factory=dict)

    def __enter__(self) -> Hall:
        return self

    def __exit__(self, kind: object, *exc: object) -> None:
        if self.errors:  # shown by pytest with a failure's captured output
            print("uncaught errors in the pages:", *self.errors, sep="\n  ")
        if kind is not None:  # what each page and its server said to each other, lately
            for context in self.contexts:
                for page in context.pages:
                    runs = getattr(page, "hograd_runs", None)
                    if runs is not None:
                        print(f"--- {page.url}\n{runs.story()}")
        for context in self.contexts:
            context.close()

    def t(self, key: str, **params: object) -> str:
        return tr(key, self.lang, **params)

    def new(self, **options: object):
        context = self.browser.new_context(**options)
        self.contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(WAIT)
        page.on("pageerror", lambda err, pg=page: self._error(pg, err))
        page.on("load", lambda pg: self.loads.__setitem__(id(pg), self.loads.get(id(pg), 0) + 1))
        return page

    def _error(self, page, err: object) -> None:
        self.broken.append((page, page.url, self.loads.get(id(page), 0), str(err)))

    @property
    def errors(self) -> list[str]:
        return [f"{url}: {err}" for _, url, _, err in self.broken]

    def unrecovered(self) -> list[str]:
        """The pages' uncaught errors but a broken Streamlit tree that its page recovered from
        by loading itself again (hograd_serving/recover.js): each such error needs a load of
        its page after it. Streamlit's own front end throws it now and then under load (a
        fragment's update reaching a page that has moved on, docs/lesson.md)."""
        return [
            f"{url}: {err}"
            for page, url, loads, err in self.broken
            if not (TREE_BROKEN.search(err) and self.loads.get(id(page), 0) > loads)
        ]

    def shot(self, page, name: str) -> None:
        screenshot(page, f"{self.tag}_{name}")

    def teacher(self):
        """The projector: the teacher's link in presentation mode, a class opened; (page,
        the students' link)."""
        teacher = self.new(**PROJECTOR)
        teacher.goto(f"{self.base}/lesson?lang={self.lang}&present=1&key={self.key}")
        wait_for_app(teacher)
        assert self.key not in teacher.url
        panel = main(teacher).locator("[data-testid='stExpander']").first
        click(teacher, panel.locator("summary"))
        click(teacher, teacher.get_by_role("button", name=self.t("classroom.open")))
        code = main(teacher).locator("[data-testid='stCode']", has_text="class=")
        link = code.inner_text().strip()
        assert self.key not in link and "lang" not in link
        return teacher, link

    def join(self, link: str, nickname: str, options: dict, follow: bool):
        """A student opens the class's link (in the lecture's language), joins as
        ``nickname``, and switches follow on (on a phone, in the sidebar's drawer, closed again
        after)."""
        page = self.new(**options)
        page.goto(link if self.lang == "en" else f"{link}&lang={self.lang}")
        wait_for_app(page)
        box = main(page).get_by_role("textbox", name=self.t("classroom.nickname"))
        box.fill(nickname)
        box.press("Tab")
        page.locator("[data-testid='stFormSubmitButton'] button").click()
        expect(page.locator("[data-testid='stProgress']")).to_have_count(1, timeout=WAIT)
        if follow:
            sidebar = page.locator("[data-testid='stSidebar']")
            opener = page.locator("[data-testid='stExpandSidebarButton']")
            expect(sidebar).to_have_attribute("data-collapsed", re.compile("^(true|false)$"))
            if sidebar.get_attribute("data-collapsed") == "true":  # a narrow screen: a drawer
                opener.click()
                expect(sidebar).to_have_attribute("data-collapsed", "false")
            sidebar.get_by_text(self.t("classroom.follow"), exact=True).click()
            expect(sidebar.get_by_text(self.t("classroom.follow.none"))).to_be_visible()
            if options.get("is_mobile"):  # the drawer covers the page: closed, as a student would
                page.locator("[data-testid='stSidebarCollapseButton'] button").click(force=True)
                expect(sidebar).to_have_attribute("data-collapsed", "true")
                expect(opener).to_be_visible()
        return page

    def share(self, teacher, n: int) -> None:
        share = teacher.get_by_role("button", name=self.t("classroom.share"), exact=True)
        click(teacher, share)
        expect(teacher.get_by_text(self.t("classroom.shared", n=n))).to_be_visible()

    def go(self, teacher, path: str) -> None:
        """The projector opens another page from the top navigation (in the same session)."""
        title = self.t(TITLES[path])
        link = teacher.get_by_role("link", name=title, exact=True).first
        if not link.is_visible():  # the pages that do not fit the bar: under its last section
            click(teacher, teacher.locator("[data-testid='stTopNavSection']").last)
            popover = teacher.locator("[data-testid='stTopNavPopover']")
            link = popover.get_by_text(title, exact=True)
        click(teacher, link)
        teacher.wait_for_function("p => location.pathname === p", arg=path, timeout=WAIT)
        wait_for_app(teacher)

    def check(self, page, value: str) -> None:
        box = main(page).get_by_role("textbox", name=self.t("lesson.answer.label"))
        # one box, waited for: a phone's page once held two for a moment after a Check (the
        # run's copy and the one it replaces), and a locator of two refuses to fill (CI)
        expect(box).to_have_count(1, timeout=WAIT)
        box.fill(value)
        box.press("Enter")
        wait_for_app(page)
        main(page).get_by_role("button", name=self.t("lesson.check"), exact=True).click()
        wait_for_app(page)

    def paused_view(self, page) -> None:
        """A paused follower: the notice, no sidebar, none of the view's settings, part switch
        or projected row, no class bar or seat note, and the lesson's Check (still shown) out
        of reach of a click."""
        expect(page.get_by_text(self.t("classroom.paused"))).to_be_visible(timeout=WAIT)
        expect(page.locator("[data-testid='stSidebar']")).to_be_hidden()
        expect(page.locator(f"{FRAME_PARTS} >> visible=true")).to_have_count(0)
        leave = main(page).get_by_role("button", name=self.t("classroom.leave"))
        expect(leave).to_be_hidden()  # no control that would do nothing when clicked
        expect(main(page).get_by_text(self.t("classroom.seat_note"))).to_be_hidden()
        check = main(page).get_by_role("button", name=self.t("lesson.check"), exact=True)
        expect(check).to_be_visible(timeout=WAIT)
        page.wait_for_function(f"(el) => !({HIT_JS})(el)", arg=check.element_handle())

    def free_view(self, page) -> None:
        """Not paused: no notice, the view's own parts back, the lesson's Check answers a
        click."""
        expect(page.get_by_text(self.t("classroom.paused"))).to_have_count(0, timeout=WAIT)
        expect(page.locator(f"{FRAME_PARTS} >> visible=true").first).to_be_visible()
        expect(main(page).get_by_role("button", name=self.t("classroom.leave"))).to_be_visible()
        expect(main(page).get_by_text(self.t("classroom.seat_note"))).to_be_visible()
        check = main(page).get_by_role("button", name=self.t("lesson.check"), exact=True)
        expect(check).to_be_visible()
        assert check.evaluate(HIT_JS)


#: A framed view's own parts beside its result (hograd_ui/parts/frame.py): settings, the
#: switch between its parts, the projected row of buttons. A paused follower sees none.
FRAME_PARTS = (
    "[class*='st-key-frame-controls-'], [class*='st-key-frame-top-'],"
    " [class*='st-key-present-row-']"
)


def main(page):
    return page.locator("[data-testid='stMain']")


def usable(page, locator) -> None:
    """Visible, inside the viewport once scrolled to, and what a click at its centre hits."""
    expect(locator).to_be_visible()
    locator.scroll_into_view_if_needed()
    box = locator.bounding_box()
    view = page.viewport_size
    assert box is not None and box["width"] > 0 and box["height"] > 0, box
    assert box["y"] >= -1 and box["y"] + box["height"] <= view["height"] + 1, box
    assert box["x"] >= -1 and box["x"] + box["width"] <= view["width"] + 1, box
    assert locator.evaluate(HIT_JS), "a click at its centre reaches another element"


def click(page, locator) -> None:
    usable(page, locator)
    locator.click()
    wait_for_app(page)


def path_of(page) -> str:
    return urlparse(page.url).path


def on(page, path: str) -> None:
    """Wait until the student's page is ``path`` (the address bar; not for an idle app: a
    follower's page reruns its follow fragment every 2 s). A failure says the page's last
    runs."""
    try:
        page.wait_for_function("p => location.pathname === p", arg=path, timeout=WAIT)
    except Exception as err:
        raise AssertionError(f"{page.url} never reached {path}:\n{_runs_told(page)}") from err


def shows(page, locator) -> None:
    """Wait until ``locator`` is visible; a failure says the page's last runs."""
    try:
        expect(locator).to_be_visible(timeout=WAIT)
    except AssertionError as err:
        raise AssertionError(f"{err}\n{page.url}'s last runs:\n{_runs_told(page)}") from None


def _blip(hall: Hall, during: list, code: str, start: Callable[[], object]) -> None:
    """The database is down and each page of ``during`` has just made its Check: each is told
    that one Check waits, keeps its class and seat; then the database starts, and each page
    says no more that a Check waits (sent again by its retry, and the page ran again)."""
    waiting = hall.t("classroom.unrecorded", n=1)
    for page in during:
        shows(page, main(page).get_by_text(waiting))
        _seated(page, code)
    start()
    for page in during:
        expect(main(page).get_by_text(waiting)).to_have_count(0, timeout=WAIT)
        _seated(page, code)


def _seated(page, code: str) -> None:
    """The student's address still holds the class and their seat."""
    query = parse_qs(urlparse(page.url).query)
    assert query.get("class") == [code] and query.get("seat"), page.url


def _export_rows(teacher) -> list[list[str]]:
    """The class's record as the lecturer's export button gives it: the CSV's rows."""
    export = teacher.locator(".st-key-classroom-export button")
    usable(teacher, export)
    with teacher.expect_download(timeout=WAIT) as info:
        export.click()
    with open(info.value.path(), encoding="utf-8") as f:
        return list(csv.reader(io.StringIO(f.read())))


def _runs_told(page) -> str:
    runs = getattr(page, "hograd_runs", None)
    return runs.runs_told() if runs is not None else "(no record of its runs)"


def rehearse(
    hall: Hall,
    lecture: Class,
    outage: tuple[Callable[[], object], Callable[[], object]] | None = None,
) -> list[tuple[object, str]]:
    """Run the whole lecture in ``hall`` with ``lecture``'s class; the students' (page,
    nickname), phones first (their contexts stay open until the hall closes).

    ``outage``: (stop, start) of the class's database. Given, the database is stopped while
    the first half of the class answers the first step (started again once each of them was
    told): every one of them is told "not yet recorded", keeps the class and the seat in the
    address, and is recorded once the database is back, once (the reset's count)."""
    assert lecture.laptops >= 1 and hall.lang == lecture.lang
    assert "/lesson" not in lecture.views and set(lecture.views) <= set(TITLES), lecture.views
    t = hall.t
    teacher, link = hall.teacher()
    code = parse_qs(urlparse(link).query)["class"][0]
    students = [
        *(
            (hall.join(link, f"phone{i}", lecture.phone, True), f"phone{i}")
            for i in range(lecture.phones)
        ),
        *(
            (hall.join(link, f"laptop{i}", LAPTOP, i < lecture.laptops - 1), f"laptop{i}")
            for i in range(lecture.laptops)
        ),
    ]
    followers, still = [p for p, _ in students[:-1]], [students[-1][0]]
    metric = main(teacher).locator("[data-testid='stMetricValue']").first
    expect(metric).to_have_text(str(len(students)))

    # three views shared: followers move, the student who does not follow stays
    for n, path in enumerate((*lecture.views, "/lesson"), start=1):
        hall.go(teacher, path)
        hall.share(teacher, n)
        for page in followers:
            on(page, path)
            assert parse_qs(urlparse(page.url).query)["class"] == [code]
            assert hall.key not in page.url
        for page in still:
            assert path_of(page) == "/lesson"
    for page in followers:
        expect(main(page).get_by_role("textbox", name=t("lesson.answer.label"))).to_be_visible()
    hall.shot(students[0][0], "followed")

    # pause: followers see the shared view and nothing else; resume
    click(teacher, teacher.get_by_role("button", name=t("classroom.pause")))
    for page in followers:
        hall.paused_view(page)
    for page in still:
        hall.free_view(page)
    click(teacher, teacher.get_by_role("button", name=t("classroom.resume")))
    for page in followers:
        hall.free_view(page)

    # answers: a slip and a right answer, then a right answer from everyone else (with an
    # outage, the database is down for the right answers of the first half of the class)
    first, *others = [p for p, _ in students]
    hall.check(first, "8")
    during = [first, *others[: len(others) // 2]] if outage else []
    if outage:
        outage[0]()
    for page in [first, *others]:
        hall.check(page, "12")
        if outage and page is during[-1]:
            _blip(hall, during, code, outage[1])
    expect(metric).to_have_text(str(len(students)))
    tried = teacher.locator("[data-testid='stTable'] tbody tr").first
    expect(tried).to_contain_text(str(len(students)))

    # the lecturer's own screen in a second tab (the address of the class panel's button, in
    # the lecture's language); a student's second tab is refused
    board = teacher.context.new_page()
    board.goto(f"{hall.base}/lesson?board={code}&lang={hall.lang}")
    expect(board.get_by_text(t("classroom.board.lead", code=code))).to_be_visible()
    expect(main(board).locator("[data-testid='stMetricValue']").first).to_have_text(
        str(len(students))
    )
    expect(main(board).get_by_text(t("lesson.title"), exact=True)).to_have_count(0)
    nosy = students[0][0].context.new_page()
    nosy.goto(f"{hall.base}/lesson?board={code}&lang={hall.lang}")
    expect(nosy.get_by_text(t("classroom.board.refused"))).to_be_visible()
    expect(nosy.locator("[data-testid='stMetricValue']")).to_have_count(0)
    nosy.close()

    # reveal: every student on the step sees the answer
    revealed = t(
        "classroom.revealed",
        answer=t("lesson.teacher.answer_number", value="12", tolerance="0.01"),
    )
    panel = main(teacher).locator("[data-testid='stExpander']").first
    click(teacher, panel.get_by_role("button", name=t("classroom.reveal", n=1)))
    for page, _ in students:
        expect(main(page).get_by_text(revealed)).to_be_visible(timeout=WAIT)
    hall.shot(students[0][0], "revealed")

    # reset step 1: its answers and its reveal go; one student answers again (what the class
    # recorded before, from the export, is what a wrong count is checked against)
    before = _export_rows(teacher)
    click(teacher, panel.get_by_role("button", name=t("classroom.reset", n=1)))
    click(teacher, teacher.locator(".st-key-classroom-reset button"))
    # the note with any count first, then its count: a wrong count fails as such
    note = re.escape(t("classroom.reset.done", n=1, checks="NUMBER")).replace("NUMBER", r"(\d+)")
    shows(teacher, teacher.get_by_text(re.compile(note)))
    said = re.search(note, teacher.get_by_text(re.compile(note)).first.inner_text())
    assert said and int(said.group(1)) == len(students) + 1, (said, before)
    for page, _ in students:
        expect(main(page).get_by_text(revealed)).to_have_count(0, timeout=WAIT)
    again, again_name = students[-1]
    hall.check(again, "12")

    # export: the one Check since the reset, in words of the lecture's language
    expect(teacher.locator("[data-testid='stTable'] tbody tr").first).to_contain_text("1")
    rows = _export_rows(teacher)
    assert rows[0] == [t(c) for c in CSV_COLUMNS]
    assert [(r[0], r[2], r[3]) for r in rows[1:]] == [(again_name, "12", t("classroom.csv.yes"))]

    # delete: every open student is told, and the class leaves their address
    click(teacher, panel.get_by_role("button", name=t("classroom.delete"), exact=True))
    click(teacher, teacher.locator(".st-key-classroom-delete button"))
    for page, _ in students:
        expect(main(page).get_by_text(t("classroom.error.no_class"))).to_be_visible(timeout=WAIT)
        # the run that says so takes the class out of the address before drawing the notice
        page.wait_for_function(
            "() => !new URLSearchParams(location.search).has('class')", timeout=WAIT
        )
    for page in (teacher, *(p for p, _ in students)):
        assert page.locator("[data-testid='stException']").count() == 0
    assert not hall.unrecovered(), hall.unrecovered()
    # recovered, and still worth counting: tests/artifacts/<tag>_recovered.txt, one per page
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / f"{hall.tag}_recovered.txt").write_text(
        "".join(f"{line}\n" for line in hall.errors), encoding="utf-8"
    )
    return students
