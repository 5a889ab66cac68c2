"""The flag lab's runs and classic cases in C++ (LibTorch): the same calls, the same printout.

Each program is the line-for-line twin of the Python snippet the page shows (a run of
:func:`.flags.run_flags` or a case of :mod:`.cases`), made by translating that snippet's lines,
so a new snippet line without a translation is refused (``KeyError``) instead of guessed. The
program prints what the snippet prints: every ``print(...)`` as Python's ``print`` writes it
(a 0-d float64 tensor as ``tensor(12., dtype=torch.float64, grad_fn=<PowBackward0>)``, torch's
default print options; ``None`` for a gradient that is not there; ``True``/``False``), and an
error as Python's last traceback line, ``RuntimeError: <message>``: PyTorch's errors are C++
``c10::Error``\\ s, raised in Python as RuntimeError (``c10::ValueError`` as ValueError, ...),
with the same message (the first line of ``what_without_backtrace()``).

Python features with no LibTorch twin are written as what they do:
``materialize_grads=True`` (a Python-side option of ``torch.autograd.grad``) as
``allow_unused=true`` and zeros for the missing gradients, as torch/autograd/__init__.py does;
``with torch.autograd.detect_anomaly():`` as a block holding a ``DetectAnomalyGuard``. One
line cannot print the same: ``dz * 2`` with ``dz`` None is Python's own TypeError (None has no
``*``), while C++ has an undefined tensor instead of None and LibTorch refuses it with its own
message (:data:`PYTHON_ONLY_ERRORS`).
"""

from __future__ import annotations

import re

from ..cpp_code import build_lines
from ..language import Function
from ..language.to_cpp import cpp_name, cpp_source

__all__ = ["PYTHON_ONLY_ERRORS", "flag_cpp", "libtorch_message"]

#: Python errors the C++ twin cannot raise with the same text (Python's own operators on None).
PYTHON_ONLY_ERRORS = ("unsupported operand type(s) for *: 'NoneType' and 'int'",)

#: Where LibTorch's text differs from Python's for the same check, as (Python's pattern, C++'s
#: form): an unused input of grad without allow_unused (Python's engine,
#: torch/csrc/autograd/python_engine.cpp, says "The differentiated Tensor at index 1 ...";
#: torch::autograd::grad, torch/csrc/autograd/autograd.cpp, says "element 1of the
#: differentiated Tensors ...", without the space); and a tensor's type inside a message, which
#: Python names as its Python class (torch.DoubleTensor) and C++ by dispatch key and dtype
#: (CPUDoubleType; the lab's tensors are all on the CPU).
_REWORDED = (
    (
        re.compile(r"The differentiated Tensor at index (\d+) appears"),
        r"element \1of the differentiated Tensors appears",
    ),
    (re.compile(r"\[torch\.(\w+)Tensor "), r"[CPU\1Type "),
)


def libtorch_message(message: str) -> str:
    """The message LibTorch gives for the check that gave Python's ``message`` (the same text
    but for the rewording above)."""
    for pattern, form in _REWORDED:
        message = pattern.sub(form, message)
    return message


_HELPERS = r"""// What Python's print writes for a 0-d float64 tensor with torch's default print options
// (torch/_tensor_str.py: 4 digits, "12." for a whole number, 1.2346e+08 beyond 1e8 or below
// 1e-4), then grad_fn or requires_grad; None for an undefined tensor (Python's None).
std::string py_repr(const torch::Tensor& t) {
  if (!t.defined()) return "None";
  double v = t.item<double>();
  bool nonzero_finite = std::isfinite(v) && v != 0;
  bool whole = !nonzero_finite || v == std::ceil(v);
  bool sci = nonzero_finite && (std::fabs(v) > 1e8 || std::fabs(v) < 1e-4);
  char buf[64];
  std::snprintf(buf, sizeof buf, sci ? "%.4e" : whole ? "%.0f" : "%.4f", v);
  std::string value = buf;
  if (std::isnan(v)) value = "nan";  // printf may write -nan
  if (whole && !sci && std::isfinite(v)) value += ".";
  std::string out = "tensor(" + value + ", dtype=torch.float64";
  if (t.grad_fn()) {  // Python shows the class name: CopyBackwards, not torch::autograd::...
    std::string name = t.grad_fn()->name();
    return out + ", grad_fn=<" + name.substr(name.rfind(':') + 1) + ">)";
  }
  return out + (t.requires_grad() ? ", requires_grad=True)" : ")");
}

std::string py_repr(bool b) { return b ? "True" : "False"; }

// print(a, b): the values separated by one space, then a newline.
void print(const std::vector<std::string>& values) {
  std::string line;
  for (std::size_t i = 0; i < values.size(); ++i) line += (i ? " " : "") + values[i];
  std::printf("%s\n", line.c_str());
}

// The Python exception a c10::Error becomes (torch/csrc/Exceptions.h).
const char* python_type(const c10::Error& err) {
  if (dynamic_cast<const c10::ValueError*>(&err)) return "ValueError";
  if (dynamic_cast<const c10::TypeError*>(&err)) return "TypeError";
  if (dynamic_cast<const c10::IndexError*>(&err)) return "IndexError";
  if (dynamic_cast<const c10::NotImplementedError*>(&err)) return "NotImplementedError";
  return "RuntimeError";
}
"""

# The helpers' declarations: main comes first, to read; they are defined after it.
_DECLARED = """// Python's print and exception names, defined at the end
std::string py_repr(const torch::Tensor& t);  // print(t), or None
std::string py_repr(bool b);                  // True / False
void print(const std::vector<std::string>& values);
const char* python_type(const c10::Error& err);
"""

_INCLUDES = """#include <torch/torch.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>
"""

# Names the programs use themselves: the function's variable is renamed if it is one of them.
_TAKEN = {
    "py_repr",
    "print",
    "python_type",
    "main",
    "grads",
    "anomaly",
    "err",
    "message",
    "y",
    "z",
    "dy",
    "dz",
    "d2y",
    "dy_again",
}

# The right-hand sides the classic cases use, translated (x is the cases' only variable).
_EXPRESSIONS = {
    "x**3": "torch::pow(x, 3)",
    "a**2": "torch::pow(a, 2)",
    "2 * x": "torch::scalar_tensor(2, torch::kFloat64) * x",  # Python wraps 2 as a tensor
    "a * 2": "a * torch::scalar_tensor(2, torch::kFloat64)",
    "torch.tanh(x)": "torch::tanh(x)",
    "torch.relu(x)": "torch::relu(x)",
    "torch.sin(x)": "torch::sin(x)",
    "torch.clamp(x, min=0.0)": "torch::clamp(x, /*min=*/0.0)",
    "torch.sqrt(x**2)": "torch::sqrt(torch::pow(x, 2))",
    "torch.where(x > 0, torch.log(x), 0.0)": "torch::where(x > 0, torch::log(x), 0.0)",
    "torch.where(x > 0, x, 1.0)": "torch::where(x > 0, x, 1.0)",
    "torch.where(x > 0, torch.log(safe), 0.0)": "torch::where(x > 0, torch::log(safe), 0.0)",
    "torch.zeros_like(x)": "torch::zeros_like(x)",
}

_LEAF = re.compile(r"(\w+) = torch\.tensor\(([-\w.+]+), dtype=torch\.float64, requires_grad=True\)")
_GRAD = re.compile(
    r"(?P<out>\w+(?:, \w+)?) = torch\.autograd\.grad\((?P<of>\w+), "
    r"(?P<wrt>\(\w+(?:, \w+)*\)|\w+)(?P<kw>(?:, \w+=\w+)*)\)(?P<index>\[0\])?"
)
_BACKWARD = re.compile(r"(\w+)\.backward\((?P<kw>(?:\w+=\w+(?:, )?)*)\)")
_ASSIGN = re.compile(r"(\w+) = (.+)")


def _keywords(text: str) -> dict[str, str]:
    return dict(item.split("=") for item in text.strip(", ").split(", ") if item)


def _optional(value: str | None) -> str:
    return "std::nullopt" if value is None else value.lower()


def _grad(m: re.Match) -> list[str]:
    """``torch.autograd.grad(...)`` as ``torch::autograd::grad``; materialize_grads by hand."""
    kw = _keywords(m["kw"])
    outs = m["out"].split(", ")
    wrt = m["wrt"].strip("()").split(", ")
    materialize = kw.get("materialize_grads") == "True"
    unused = kw.get("allow_unused") == "True" or materialize
    args = [
        "{}",
        _optional(kw.get("retain_graph")),
        kw.get("create_graph", "False").lower(),
        str(unused).lower(),
    ]
    while args and args[-1] == ("{}", "std::nullopt", "false", "false")[len(args) - 1]:
        args.pop()  # PyTorch's defaults, as Python leaves them out
    names = ("", "/*retain_graph=*/", "/*create_graph=*/", "/*allow_unused=*/")
    rest = "".join(f", {names[i]}{a}" for i, a in enumerate(args))
    call = f"torch::autograd::grad({{{m['of']}}}, {{{', '.join(wrt)}}}{rest})"
    if m["index"]:
        lines = [f"{outs[0]} = {call}[0];"]
    else:
        lines = [f"std::vector<torch::Tensor> grads = {call};"]
        lines += [f"{name} = grads[{i}];" for i, name in enumerate(outs)]
    if materialize:  # what Python's grad does with materialize_grads=True
        create = kw.get("create_graph", "False").lower()
        lines.append("// materialize_grads=True: zeros where grad found none (requiring grad")
        lines.append("// with create_graph), as torch.autograd.grad does in Python")
        lines += [
            f"if (!{name}.defined()) {name} = torch::zeros_like({x}, "
            f"{x}.options().requires_grad({create}));"
            for name, x in zip(outs, wrt, strict=True)
        ]
    return lines


def _printed(arg: str) -> str:
    if re.fullmatch(r"\w+", arg):
        return f"py_repr({arg})"
    if m := re.fullmatch(r"(\w+)\.(grad|requires_grad)", arg):
        return f"py_repr({m[1]}.{m[2]}())"
    if m := re.fullmatch(r"(\w+) \* 2", arg):
        return f"py_repr({m[1]} * torch::scalar_tensor(2, torch::kFloat64))"
    raise KeyError(arg)


def _statement(line: str, y_source: str | None) -> list[str]:
    """One Python statement (no indentation) as C++ lines; assignments keep Python's form
    ``name = ...`` (the declarations are added by :func:`_declare`)."""
    if m := _LEAF.fullmatch(line):
        return [
            f"{m[1]} = torch::tensor({m[2]}, torch::dtype(torch::kFloat64).requires_grad(true));"
        ]
    if m := _GRAD.fullmatch(line):
        return _grad(m)
    if m := re.fullmatch(r"print\((.*)\)", line):
        return [f"print({{{', '.join(_printed(a) for a in m[1].split(', '))}}});"]
    if m := _BACKWARD.fullmatch(line):
        kw = _keywords(m["kw"])
        return [
            f"{m[1]}.backward(/*gradient=*/{{}}, /*retain_graph=*/"
            f"{_optional(kw.get('retain_graph'))}, "
            f"/*create_graph=*/{kw.get('create_graph', 'False').lower()});"
        ]
    if m := re.fullmatch(r"(\w+)\.grad = None", line):
        return [f"{m[1]}.mutable_grad().reset();  // {line}"]
    if m := re.fullmatch(r"(\w+)\.mul_\((\d+)\)", line):
        return [f"{m[1]}.mul_(torch::scalar_tensor({m[2]}, torch::kFloat64));"]
    if line == "if dy.requires_grad:":
        return ["if (dy.requires_grad()) {"]
    if line == "else:":
        return ["} else {"]
    if line == "with torch.autograd.detect_anomaly():":
        return [
            "{  // with torch.autograd.detect_anomaly():",
            "  torch::autograd::DetectAnomalyGuard anomaly;",
        ]
    if m := _ASSIGN.fullmatch(line):
        if m[1] == "y" and y_source is not None:
            return [f"y = {y_source};"]
        return [f"{m[1]} = {_EXPRESSIONS[m[2]]};"]
    raise KeyError(line)


def _translate(snippet: str, y_source: str | None) -> list[str]:
    """The snippet's lines as C++ (blocks by indentation, as Python reads them)."""
    out: list[str] = []
    depth = 0
    for raw in snippet.splitlines():
        if raw.startswith("import ") or not raw.strip():
            if out and out[-1]:
                out.append("")
            continue
        indent = (len(raw) - len(raw.lstrip())) // 4
        line = raw.strip()
        while depth > indent and line != "else:":
            depth -= 1
            out.append("  " * depth + "}")
        if line == "else:":
            depth -= 1
        lines = _statement(line, y_source)
        out += ["  " * depth + text for text in lines]
        if line.endswith(":"):
            depth += 1
    while depth:
        depth -= 1
        out.append("  " * depth + "}")
    return _declare(out[:-1] if out and not out[-1] else out)


def _declare(lines: list[str]) -> list[str]:
    """``torch::Tensor`` before the first assignment of each name at the top level; names
    first assigned inside a block are declared on top."""
    seen: set[str] = set()
    inner: list[str] = []
    out = []
    for line in lines:
        m = re.match(r"( *)(\w+) = ", line)
        if m and m[2] not in seen:
            seen.add(m[2])
            if m[1]:
                inner.append(m[2])
            else:
                line = f"torch::Tensor {line}"
        out.append(line)
    return (
        [f"torch::Tensor {', '.join(inner)};  // assigned in a block below", ""] if inner else []
    ) + out


def flag_cpp(snippet: str, fn: Function | None = None, name: str = "hograd_flag_lab") -> str:
    """The C++ twin of a flag-lab snippet (``FlagOutcome.snippet``).

    Args:
        snippet: the Python snippet of a run of the flag lab or of a classic case.
        fn: the flag lab's function (its ``y = ...`` line is written by
            :func:`hograd_core.language.to_cpp.cpp_source`, its variable renamed as C++
            needs); None for a classic case.
        name: the file's name without ``.cpp`` (for the build lines on top).

    Returns:
        A C++ program that prints what the snippet prints.

    Raises:
        KeyError: a snippet line this module has no translation for.

    Example:
        >>> "torch::pow(x, 3)" in flag_cpp("import torch\\n\\nx = torch.tensor(2.0, "
        ...     "dtype=torch.float64, requires_grad=True)\\ny = x**3")
        True
    """
    y_source = None
    if fn is not None:
        own = fn.variables[0] if fn.variables else "x"
        leaf = _LEAF.search(snippet)
        py_name = leaf[1] if leaf else "x"
        var = cpp_name(own, _TAKEN)
        y_source = cpp_source(fn, {own: var})
        if var != py_name:  # a name C++ cannot use (or that the program uses itself)
            snippet = re.sub(rf"\b{re.escape(py_name)}\b", var, snippet)
    body = _translate(snippet, y_source)
    header = [f"//   {line}" for line in build_lines(name)]
    main = [
        "int main() {",
        "  std::setvbuf(stdout, nullptr, _IONBF, 0);  // unbuffered: no line is lost on an error",
        "  try {",
        *[f"    {line}" if line else "" for line in body],
        "  } catch (const c10::Error& err) {  // as Python's last traceback line shows it",
        "    std::string message = err.what_without_backtrace();",
        "    std::printf(\"%s: %s\\n\", python_type(err), message.substr(0, message.find('\\n')).c_str());",
        "    return 1;",
        "  }",
        "  return 0;",
        "}",
    ]
    lines = [
        "// Build with the torch wheel of the Python on your PATH, then run:",
        *header,
        "",
        _INCLUDES,
        _DECLARED,
        *main,
        "",
        "// ---- the helpers: printing as Python prints ----",
        "",
        _HELPERS.rstrip("\n"),
    ]
    return "\n".join(lines) + "\n"
