"""The guided lesson (hograd_labs/lesson), with the class's panels (hograd_labs/classroom) and
the Newton lab's race, the view its declaration offers to the lesson, as its last step's view:
labs never import each other, so this page script composes them."""

from hograd_labs import newton
from hograd_labs.classroom import page as classroom
from hograd_labs.lesson import page as lesson

lesson.draw(classroom, views={"newton": newton.LAB.view("lesson")})
