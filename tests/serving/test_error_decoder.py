"""The error decoder finds the gallery case behind every message the gallery really raises or
warns, also reworded by a different shape, number, spacing or a traceback around it; other
text is unknown, and hostile text is only read, up to a bound."""

from __future__ import annotations

import re

import pytest

from hograd_core.flaglab.cases import CASES, run_case
from hograd_core.flaglab.decoder import LINE, MAX_CHARS, decode, signatures, words


@pytest.fixture(scope="module")
def outcomes() -> dict:
    """Every variant run as the page runs it: the isolated cases (anomaly mode, a warning
    PyTorch gives once per process) in a fresh process, so an earlier test in this process
    that already drew the warning cannot take it from the case."""
    from hograd_serving.jobs import run_isolated

    return {
        (c, v): run_case(c, v, isolate=run_isolated)
        for c, case in CASES.items()
        for v in case.variants
    }


def found(match, case: str, variant: str) -> bool:  # noqa: ANN001
    return match is not None and (case, variant) in {(match.case, match.variant), *match.also}


def traceback(message: str) -> str:
    return (
        'Traceback (most recent call last):\n  File "train.py", line 41, in <module>\n'
        '    loss.backward()\n  File "/usr/lib/python3.11/site-packages/torch/_tensor.py"'
        f", line 648, in backward\n    torch.autograd.backward(\n{message}\n"
    )


def renumbered(message: str) -> str:
    """Every number changed, every shape a different one, every Backward function another."""
    message = re.sub(r"\d+", lambda m: str(int(m.group()) + 7), message)
    message = message.replace("[]", "[3, 4]").replace("DoubleTensor", "cuda.FloatTensor")
    return re.sub(r"\w+Backward\d", "AddmmBackward0", message).replace(" Mul,", " ReluBackward0,")


VARIATIONS = {
    "as is": lambda m: m,
    "renumbered": renumbered,
    "spaced": lambda m: "\n\n   " + "  \t ".join(m.split(" ")) + "   \n",
    "traceback": traceback,
    "message only": lambda m: m.split(": ", 1)[-1],
    "upper": str.upper,
}


def test_every_case_that_raises_or_warns_has_a_message(outcomes) -> None:  # noqa: ANN001
    cases = {c for c, _, _ in signatures(outcomes)}
    assert cases == set(CASES)  # each case of the gallery can be found by its message


@pytest.mark.parametrize("how", VARIATIONS)
def test_each_message_and_its_variations_find_their_case(outcomes, how: str) -> None:  # noqa: ANN001
    for case, variant, message in signatures(outcomes):
        match = decode(VARIATIONS[how](message), outcomes)
        assert found(match, case, variant), (how, case, variant, message)


def test_a_shared_message_names_every_case_that_gives_it(outcomes) -> None:  # noqa: ANN001
    match = decode(
        "RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn",
        outcomes,
    )
    assert (match.case, match.variant) == ("no_create_graph", "off")
    assert ("constant_trap", "linear") in match.also
    assert match.message.startswith("RuntimeError: element 0 of tensors")


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   \n",
        "hello world",
        "the graph of the tensor was freed by the user of the grad",
        "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB",
        "ValueError: too many values to unpack (expected 2)",
        "# Heading\n**bold** [x](javascript:1)",
        "<img src=x onerror=alert(1)>",
    ],
)
def test_other_text_is_unknown(outcomes, text: str) -> None:  # noqa: ANN001
    assert decode(text, outcomes) is None


def test_a_huge_text_is_read_only_up_to_the_bound(outcomes) -> None:  # noqa: ANN001
    message = signatures(outcomes)[0][2]
    assert len(words("a " * 100_000)) == MAX_CHARS // 2
    assert decode("<b>x</b> " * 12_000, outcomes) is None  # 100 kB of markup: unknown
    assert found(decode(message + " x" * 50_000, outcomes), "no_create_graph", "off")
    assert decode("x" * MAX_CHARS + message, outcomes) is None  # past the bound: not read


def test_the_in_place_message_with_another_hint_finds_its_case(outcomes) -> None:  # noqa: ANN001
    # the form PyTorch prints when anomaly detection is on: another shape, op and hint
    text = (
        "RuntimeError: one of the variables needed for gradient computation has been "
        "modified by an inplace operation: [torch.FloatTensor [10, 3]], which is output 0 "
        "of ReluBackward0, is at version 2; expected version 1 instead. Hint: the backtrace "
        "further above shows the operation that failed to compute its gradient. The variable "
        "in question was changed in there or anywhere later. Good luck!"
    )
    assert found(decode(text, outcomes), "inplace", "inplace")


def test_the_first_words_of_a_long_message_alone_find_its_case(outcomes) -> None:  # noqa: ANN001
    for case, variant, message in signatures(outcomes):
        head = " ".join(message.split()[: LINE + 2])  # "RuntimeError:" and LINE + 1 words
        assert found(decode(head, outcomes), case, variant), head
    shared = "RuntimeError: Trying to backward through the graph a second time"
    assert found(decode(shared, outcomes), "freed_graph", "default")


def test_anomaly_detections_notes_alone_are_unknown(outcomes) -> None:  # noqa: ANN001
    # they come with any error under detect_anomaly, not only with the NaN case's
    for text in (
        "UserWarning: Error detected in AddmmBackward0.",
        "UserWarning: Anomaly Detection has been enabled. This mode will increase the "
        "runtime and should only be enabled for debugging.",
    ):
        assert decode(text, outcomes) is None


def test_the_match_counts_the_words_it_found(outcomes) -> None:  # noqa: ANN001
    message = run_case("freed_graph").steps[-1]
    full = decode(f"{message.error_type}: {message.error}", outcomes)
    assert full.found == full.total == len(words(full.message))
    pasted = "Trying to backward through the graph a second time"
    head = decode(pasted, outcomes)
    assert (head.found, head.total) == (len(pasted.split()), full.total)  # all pasted words
