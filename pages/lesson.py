"""The guided lesson (hograd_labs/lesson), with the class's panels (hograd_labs/classroom), the
Newton lab's race (the view its declaration offers to the lesson) as its last step's view, and
what the derivatives, graph and HVP labs draw for its other steps: labs never import each other,
so this page script composes them."""

from hograd_labs import newton
from hograd_labs.classroom import page as classroom
from hograd_labs.derivatives import embed as derivatives
from hograd_labs.graph import embed as graph
from hograd_labs.hvp import embed as hvp
from hograd_labs.lesson import page as lesson
from hograd_labs.lesson.views import Lent

lesson.draw(
    classroom, views={"newton": newton.LAB.view("lesson")}, lent=Lent(derivatives, graph, hvp)
)
