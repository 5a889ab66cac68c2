"""Streamlit pages (thin: read widgets, call a lab's view, render), and the site they make.

:data:`SITE` is every page by its URL path with the declarations of the labs it draws
(hograd_ui/lab.py): app.py hands it to the links, the warm-up reads its default views, the
locale test its runtime-built keys. A page that groups labs (the why page) lists them itself.
"""

from hograd_labs import backward, classroom, code, derivatives, graph, hvp, lesson, memory
from hograd_ui.lab import Lab, Site
from pages import why

#: The home page's own declaration: it has no settings; it is warmed.
HOME = Lab(f"{__name__}.home", warm=("",))

#: Every page, in the order the warm-up visits them (the one a lecture opens first comes first).
SITE = Site(
    {
        "derivatives": (derivatives.LAB,),
        "graph": (graph.LAB,),
        "hvp": (hvp.LAB,),
        "why": (why.PAGE, *why.TABS),
        "lesson": (lesson.LAB, classroom.LAB),
        "": (HOME,),
        "backward": (backward.LAB,),
        "memory": (memory.LAB,),
        "code": (code.LAB,),
    }
)
