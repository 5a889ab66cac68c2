"""The error decoder, measured on messages the installed PyTorch really gives: the corpus of
mistakes (tests/core/decoder_corpus.py) is run here, and the decoder must place each message
right or say it cannot; never wrong. Then the same messages reworded the way another run words
them (other names, shapes, indices, a traceback around them, cut short), and the strings."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from hograd_core.flaglab.decoder import ENTRIES, EXACT, MAX_CHARS, PARTIAL, decode
from hograd_ui.i18n import DECODER_ENTRIES, LANGUAGES, placeholders, tr
from tests.core.decoder_corpus import CORPUS

ROOT = Path(__file__).resolve().parents[2]
#: Runs every mistake of the corpus in a fresh interpreter and prints {name: message}.
RUN_CORPUS = """
import json, warnings
warnings.simplefilter("ignore")
from tests.core.decoder_corpus import CORPUS, message
print(json.dumps({f.__name__: message(f) for f in CORPUS}))
"""

pytestmark = pytest.mark.filterwarnings("ignore")  # the corpus provokes warnings on purpose


@pytest.fixture(scope="module")
def messages() -> dict[str, tuple[str, str | None]]:
    """Each mistake's name: (its message, made now by torch; the entry it should find).

    In a fresh interpreter: PyTorch gives some warnings once per process (TORCH_WARN_ONCE), so
    a test that ran earlier in this worker could have used up the one the corpus provokes."""
    out = subprocess.run(
        [sys.executable, "-c", RUN_CORPUS], cwd=ROOT, capture_output=True, text=True, check=True
    )
    made = json.loads(out.stdout.strip().splitlines()[-1])
    return {f.__name__: (made[f.__name__], expected) for f, expected in CORPUS.items()}


def _counts(messages: dict) -> dict[str, list[str]]:
    verdicts: dict[str, list[str]] = {"right": [], "wrong": [], "unknown": []}
    for name, (text, expected) in messages.items():
        got = decode(text)
        if (got.id if got else None) == expected:
            verdicts["right"].append(name)
        elif got is None:
            verdicts["unknown"].append(name)
        else:
            verdicts["wrong"].append(f"{name}: {got.id}, expected {expected}")
    return verdicts


def test_the_corpus_is_real_and_large_enough(messages) -> None:
    assert len(messages) >= 30
    assert len({text for text, _ in messages.values()}) >= 30  # distinct messages
    kinds = {expected for _, expected in messages.values()}
    assert kinds == {e.id for e in ENTRIES} | {None}  # every entry, and text it cannot place


def test_the_decoder_is_never_wrong_on_the_corpus(messages) -> None:
    verdicts = _counts(messages)
    print({k: len(v) for k, v in verdicts.items()})  # the counts, for the report (pytest -s)
    assert verdicts["wrong"] == []
    assert verdicts["unknown"] == []
    assert len(verdicts["right"]) == len(messages)


def _traceback(text: str) -> str:
    return (
        'Traceback (most recent call last):\n  File "train.py", line 41, in <module>\n'
        "    loss.backward()\n"
        f'  File "/usr/lib/python3/site-packages/torch/_tensor.py", line 648\n{text}\n'
    )


def _renumbered(text: str) -> str:
    """Every number that stands alone moved by 7 (indices, shapes, versions, counts); the
    digits of a name (PowBackward0) and of an ordinal (0th output) keep what they say."""
    return re.sub(r"(?<!\w)\d+(?!\w)", lambda m: str(int(m.group()) + 7), text)


VARIATIONS = {
    "traceback": _traceback,
    "renumbered": _renumbered,
    "spaced": lambda m: "\n\n   " + "  \t ".join(m.split(" ")) + "   \n",
    "message only": lambda m: m.split(": ", 1)[-1],
    "upper": str.upper,
    "twice, other text between": lambda m: f"{m}\nsome log line\n{m}",
}


@pytest.mark.parametrize("how", VARIATIONS)
def test_variants_of_each_message_find_the_same_entry(messages, how: str) -> None:
    for name, (text, expected) in messages.items():
        got = decode(VARIATIONS[how](text))
        assert (got.id if got else None) == expected, (how, name, text)


@pytest.mark.parametrize(
    ("text", "entry", "facts"),
    [
        # the function name decides the cause; other versions and names of the same kind
        ("Function 'PowBackward1' returned nan values in its 0th output.", "nan_pow", {}),
        ("Function 'DivBackward1' returned nan values in its 0th output.", "nan_div", {}),
        # the same names where the entry's formula does not hold: the general entry
        ("Function 'PowBackward1' returned nan values in its 1st output.", "nan_other", {}),
        ("Function 'PowBackward2' returned nan values in its 0th output.", "nan_other", {}),
        ("Function 'LogSoftmaxBackward0' returned nan values in its 0th output.", "nan_other", {}),
        ("Function 'SqrtBackward0' returned nan values in its 0th output.", "nan_sqrt", {}),
        (
            "Function 'AtanhBackward0' returned nan values in its 0th output.",
            "nan_other",
            {"fn": "AtanhBackward0", "index": "0"},
        ),
        (
            "one of the variables needed for gradient computation has been modified by an "
            "inplace operation: [torch.cuda.FloatTensor [128, 64, 3]], which is output 0 of "
            "ReluBackward0, is at version 4; expected version 3 instead. Hint: the backtrace "
            "further above shows the operation that failed to compute its gradient.",
            "inplace",
            {"shape": "128, 64, 3", "fn": "ReluBackward0", "version": "4", "expected": "3"},
        ),
        (
            "function LinearFunctionBackward returned an incorrect number of gradients "
            "(expected 3, got 2)",
            "custom_count",
            {"fn": "LinearFunctionBackward", "expected": "3", "got": "2"},
        ),
        (
            "Function MySquareBackward returned an invalid gradient at index 2 - got [4, 1, 8] "
            "but expected shape compatible with [4, 8]",
            "custom_shape",
            {"index": "2", "got": "4, 1, 8", "expected": "4, 8"},
        ),
        (
            "Mismatch in shape: grad_output[1] has a shape of torch.Size([]) and output[1] has "
            "a shape of torch.Size([10, 10]).",
            "grad_outputs_shape",
            {"index": "1", "got": "", "expected": "10, 10"},
        ),
        (
            "TypeError: unsupported operand type(s) for @: 'Tensor' and 'NoneType'",
            "none_gradient",
            {},
        ),
        ("TypeError: bad operand type for unary -: 'NoneType'", "none_gradient", {}),
        (
            "Checkpointing is not compatible with .grad() or when an `inputs` parameter is "
            "passed to .backward(). Please use .backward() and do not pass its `inputs` argument.",
            "checkpoint_reentrant",
            {},
        ),
        # the words of older PyTorch releases
        (
            "RuntimeError: Trying to backward through the graph a second time, but the saved "
            "intermediate results have already been freed. Specify retain_graph=True when "
            "calling backward the first time.",
            "freed_graph",
            {},
        ),
        ("Function 'SqrtBackward' returned nan values in its 0th output.", "nan_sqrt", {}),
        (
            "RuntimeError: a leaf Variable that requires grad has been used in an in-place "
            "operation.",
            "leaf_inplace",
            {},
        ),
        (
            "RuntimeError: Can't call numpy() on Variable that requires grad. Use "
            "var.detach().numpy() instead.",
            "numpy_requires_grad",
            {},
        ),
        (
            "One of the differentiated Tensors appears to not have been used in the graph. Set "
            "allow_unused=True if this is the desired behavior.",
            "unused_input",
            {"index": ""},
        ),
    ],
)
def test_other_names_shapes_and_wordings_of_a_kind(text: str, entry: str, facts: dict) -> None:
    got = decode(text)
    assert got is not None and got.id == entry
    assert facts.items() <= dict(got.facts).items()


def test_how_sure_it_says_it_is(messages) -> None:
    div = decode(messages["nan_x_over_x_at_zero"][0])
    assert (div.sure, div.whole, dict(div.facts)["fn"]) == (EXACT, True, "DivBackward0")
    general = decode(messages["nan_acos_at_one"][0])  # no entry for acos: the general one
    assert (general.id, general.sure, general.whole) == ("nan_other", PARTIAL, True)
    python = decode(messages["nonleaf_grad_times_two"][0])  # Python's words: any None
    assert (python.id, python.sure) == ("none_gradient", PARTIAL)
    cut = decode("RuntimeError: Trying to backward through the graph a second")  # cut short
    assert (cut.id, cut.sure, cut.whole) == ("freed_graph", PARTIAL, False)
    assert cut.found == "Trying to backward through the graph"


def test_the_last_message_of_a_traceback_wins_and_the_others_are_named(messages) -> None:
    warning = messages["backward_create_graph_once"][0]
    error = messages["backward_twice"][0]
    got = decode(f"{warning}\n{_traceback(error)}")
    assert (got.id, got.also) == ("freed_graph", ("reference_cycle",))
    none = messages["nonleaf_grad_times_two"][0]  # a partial entry raised last still wins
    got = decode(f"{warning}\n{_traceback(none)}")
    assert (got.id, got.sure, got.also) == ("none_gradient", PARTIAL, ("reference_cycle",))


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   \n",
        "hello world",
        "my model does not learn, please help",
        "the graph of the tensor was freed by the user of the grad",
        "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB",
        "ValueError: too many values to unpack (expected 2)",
        "UserWarning: Anomaly Detection has been enabled. This mode will increase the runtime.",
        "# Heading\n**bold** [x](javascript:1)",
        "<img src=x onerror=alert(1)>",
    ],
)
def test_other_text_is_unknown(text: str) -> None:
    assert decode(text) is None


def test_a_huge_text_is_read_only_up_to_the_bound(messages) -> None:
    text = messages["backward_twice"][0]
    assert decode("<b>x</b> " * 12_000) is None  # 100 kB of markup
    assert decode(text + " x" * 50_000).id == "freed_graph"
    assert decode("x" * MAX_CHARS + text) is None  # past the bound: not read


def test_every_entry_has_its_strings_in_both_languages_with_its_own_facts() -> None:
    assert tuple(e.id for e in ENTRIES) == DECODER_ENTRIES  # the catalogue's runtime keys
    for entry in ENTRIES:
        for lang in LANGUAGES:
            for key in (
                f"decoder.{entry.id}",
                f"decoder.{entry.id}.why",
                f"decoder.{entry.id}.fix",
            ):
                text = tr(key, lang)
                assert placeholders(text) <= set(entry.groups), (key, lang)
                tr(key, lang, **{g: "x" for g in entry.groups})  # fills without an error


def test_every_gallery_case_an_entry_names_exists() -> None:
    from hograd_core.flaglab.cases import CASES

    for entry in ENTRIES:
        if entry.case:
            assert entry.variant in CASES[entry.case].variants, entry.id
