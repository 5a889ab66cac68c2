"""The C++ (LibTorch) programs beside the pages' PyTorch scripts: the same calls, the same output.

The PyTorch wheel ships LibTorch: its headers in ``torch/include`` and its libraries in
``torch/lib``, so a program here builds with g++ against the installed wheel
(:func:`build_command`) and prints, line for line, what its Python script prints: the same
numbers (a double is printed as Python prints a float), the same ``grad_fn`` names, the same
node counts. Each program catches ``c10::Error`` and prints its message (an uncaught one aborts
and loses buffered output), and writes unbuffered.

The function's source comes from the one generator, :func:`.language.to_cpp.cpp_source`, with
the renaming rule of the Python scripts (:func:`.language.to_cpp.cpp_name`).
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np
import torch

from .hessian import point_vector
from .hvp_code import gradient_is_constant
from .language import Function
from .language.to_cpp import cpp_name, cpp_source

__all__ = [
    "FIND_TORCH",
    "build_command",
    "build_lines",
    "derivatives_cpp",
    "hvp_cpp",
    "hvp_graph_cpp",
    "torch_paths",
]


#: The shell line that finds the torch wheel of the Python on PATH: the programs' build line
#: names its folders through ``$TORCH``.
FIND_TORCH = "TORCH=$(python -c 'import os, torch; print(os.path.dirname(torch.__file__))')"


def torch_paths(root: str | None = None) -> tuple[tuple[str, ...], str, int]:
    """The torch wheel's include folders, its library folder and the C++ ABI its libraries
    were built with (``-D_GLIBCXX_USE_CXX11_ABI``): what
    ``torch.utils.cpp_extension.include_paths()`` and ``library_paths()`` name for CPU.

    Args:
        root: the wheel's folder (``torch/``); None for this Python's.
    """
    root = os.path.dirname(torch.__file__) if root is None else root
    include = f"{root}/include"
    return (include, f"{include}/torch/csrc/api/include"), f"{root}/lib", _abi()


def _abi() -> int:
    return int(torch._C._GLIBCXX_USE_CXX11_ABI)


def build_command(
    source: str = "program.cpp", output: str = "program", root: str | None = None
) -> str:
    """The one-line g++ command that builds ``source`` against a torch wheel's LibTorch.

    ``-std=c++20``: the standard the wheel's headers are written for (and what
    ``torch.utils.cpp_extension`` passes); ``-Wl,-rpath`` lets the program find
    ``libtorch.so`` where the wheel keeps it, so it runs without ``LD_LIBRARY_PATH``; ``-O0``:
    these programs are small, and compiling ``<torch/torch.h>`` dominates (about 15 s).

    Args:
        source, output: the file to build and the program to write.
        root: the wheel's folder; None for this Python's, ``"$TORCH"`` for the line printed in
            the programs (after :data:`FIND_TORCH`).
    """
    includes, lib, abi = torch_paths(root)
    flags = " ".join(f"-I{path}" for path in includes)
    return (
        f"g++ -std=c++20 -O0 {source} -o {output} {flags} -L{lib} -ltorch -ltorch_cpu -lc10 "
        f"-Wl,-rpath,{lib} -D_GLIBCXX_USE_CXX11_ABI={abi}"
    )


def build_lines(name: str) -> tuple[str, str, str]:
    """The shell lines that build and run ``name``.cpp with the torch wheel of the Python on
    PATH: :data:`FIND_TORCH`, the g++ line, and ``./name``."""
    return FIND_TORCH, build_command(f"{name}.cpp", name, "$TORCH"), f"./{name}"


#: Helpers every program holds: a double as Python's print writes it, a tensor's values as
#: ``tolist()`` prints them, a grad_fn's name, and the graph's node count.
HELPERS = r"""// x as Python's print writes a float: the fewest digits that read back as the same double
// (std::to_chars), positional from 1e-4 to 1e16 with ".0" on whole numbers, else 1e-05.
std::string py(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  char buf[40];
  char* end = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::scientific).ptr;
  std::string s(buf, end);  // "-1.2345e+02"
  std::string sign = s[0] == '-' ? "-" : "";
  std::size_t e = s.find('e');
  int exponent = std::stoi(s.substr(e + 1));
  std::string digits = s.substr(sign.size(), e - sign.size());
  digits.erase(std::remove(digits.begin(), digits.end(), '.'), digits.end());  // "12345"
  int n = static_cast<int>(digits.size());
  if (exponent < -4 || exponent >= 16) {
    std::string mantissa = n > 1 ? digits.substr(0, 1) + "." + digits.substr(1) : digits;
    char tail[8];
    std::snprintf(tail, sizeof tail, "e%c%02d", exponent < 0 ? '-' : '+', std::abs(exponent));
    return sign + mantissa + tail;
  }
  if (exponent < 0) return sign + "0." + std::string(-exponent - 1, '0') + digits;
  if (n <= exponent + 1) return sign + digits + std::string(exponent + 1 - n, '0') + ".0";
  return sign + digits.substr(0, exponent + 1) + "." + digits.substr(exponent + 1);
}

// A 1-d tensor as Python prints t.tolist(): [1.0, -0.5]
std::string py_list(const torch::Tensor& t) {
  std::string out = "[";
  for (int64_t i = 0; i < t.numel(); ++i) {
    out += (i ? ", " : "") + py(t[i].item<double>());
  }
  return out + "]";
}

// The grad_fn's name, as Python's t.grad_fn.name(); None without one.
std::string op(const torch::Tensor& t) { return t.grad_fn() ? t.grad_fn()->name() : "None"; }

// Autograd nodes reachable from t: the graph a backward through t would walk.
std::size_t nodes(const torch::Tensor& t) {
  std::unordered_set<torch::autograd::Node*> seen;
  std::vector<torch::autograd::Node*> stack{t.grad_fn().get()};
  while (!stack.empty()) {
    torch::autograd::Node* node = stack.back();
    stack.pop_back();
    if (node == nullptr || !seen.insert(node).second) continue;
    for (const auto& edge : node->next_edges()) stack.push_back(edge.function.get());
  }
  return seen.size();
}
"""

_INCLUDES = """#include <torch/torch.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <string>
#include <unordered_set>
#include <vector>
"""

# Names the programs use themselves: a variable of the language with one of these is renamed.
_PROGRAM_NAMES = {
    "py",
    "py_list",
    "op",
    "nodes",
    "y",
    "derivatives",
    "k",
    "d",
    "err",
    "f",
    "w",
    "v",
    "g",
    "hv",
    "hv2",
    "hv3",
    "vh",
    "level",
    "t",
    "x",
}
# ... and the names of hvp_graph_cpp's program (the Python script's, plus its helpers')
_GRAPH_NAMES = {
    "py",
    "py_list",
    "op",
    "nodes",
    "err",
    "f",
    "g",
    "gv",
    "hv",
    "v",
    "w",
    "filled",
    "zeros",
    "grads",
    "out",
    "i",
    "t",
}


def _header(name: str) -> list[str]:
    """Build and run lines on top (the ABI flag is this wheel's: 1 for the wheels of recent
    PyTorch releases)."""
    lines = [f"//   {line}" for line in build_lines(name)]
    return ["// Build with the torch wheel of the Python on your PATH, then run:", *lines, ""]


def _main(body: list[str]) -> list[str]:
    """``int main`` around ``body``: output unbuffered, c10::Error caught and printed."""
    return [
        "int main() {",
        "  std::setvbuf(stdout, nullptr, _IONBF, 0);  // unbuffered: no line is lost on a crash",
        "  try {",
        *[f"    {line}" if line else "" for line in body],
        "  } catch (const c10::Error& err) {  // PyTorch's message, as Python shows it",
        '    std::printf("%s\\n", err.what_without_backtrace());',
        "    return 1;",
        "  }",
        "}",
    ]


def _double(value: float) -> str:
    return repr(float(value))


def derivatives_cpp(fn: Function, x0: float, order: int, name: str = "derivatives") -> str:
    """The C++ twin of :func:`hograd_core.inspector.pytorch_snippet`: f and its derivatives
    to ``order`` at ``x0`` by nested ``torch::autograd::grad(..., create_graph=true)``, each
    printed as ``k value grad_fn nodes``, as the Python snippet prints them.

    Args:
        fn: a function of at most one variable.
        x0: the point.
        order: the highest derivative.
        name: the file's name without ``.cpp`` (for the build line on top).

    Example:
        >>> from hograd_core import parse
        >>> "torch::pow(x, 3)" in derivatives_cpp(parse("x**3"), 2.0, 2)
        True
    """
    own = fn.variables[0] if fn.variables else "x"
    taken = _PROGRAM_NAMES - {"x"}
    var = cpp_name(own, taken)
    body = [
        f"torch::Tensor {var} = torch::tensor({_double(x0)}, "
        "torch::dtype(torch::kFloat64).requires_grad(true));",
        f"torch::Tensor y = {cpp_source(fn, {own: var})};",
        "",
        "std::vector<torch::Tensor> derivatives{y};",
        f"for (int k = 1; k <= {order}; ++k) {{",
        "  if (!derivatives.back().requires_grad()) {",
        "    // No grad_fn: the backward that made this derivative used no tensor that requires",
        f"    // grad. With create_graph (below) that means it no longer depends on {var}: the",
        "    // next one is exactly 0 (grad() would throw 'element 0 of tensors does not",
        "    // require grad').",
        f"    derivatives.push_back(torch::zeros_like({var}));",
        "    continue;",
        "  }",
        "  derivatives.push_back(torch::autograd::grad({derivatives.back()}, "
        f"{{{var}}}, /*grad_outputs=*/{{}},",
        "                                              /*retain_graph=*/std::nullopt, "
        "/*create_graph=*/true)[0]);",
        "}",
        "",
        "for (std::size_t k = 0; k < derivatives.size(); ++k) {",
        "  const torch::Tensor& d = derivatives[k];",
        '  std::printf("%zu %s %s %zu\\n", k, py(d.item<double>()).c_str(), op(d).c_str(), '
        "nodes(d));",
        "}",
        "return 0;",
    ]
    lines = [*_header(name), _INCLUDES, HELPERS, *_main(body)]
    return "\n".join(lines) + "\n"


def hvp_cpp(
    fn: Function,
    point: Sequence[float] | np.ndarray,
    vector: Sequence[float] | np.ndarray,
    name: str = "hvp",
) -> str:
    """The C++ twin of :func:`hograd_core.hvp_code.hvp_snippet`: ∇f, and Hv three ways (double
    backward; forward-over-reverse, with LibTorch's forward-mode dual tensors where Python
    uses ``torch.func.jvp(grad(f))``; the double-backward trick of
    ``torch.autograd.functional.hvp``) and vᵀH as ``functional.vhp`` computes it, printed as
    the Python script prints them.

    Raises:
        BudgetError, ArgumentError: as :func:`hograd_core.hessian.hvp` for the point and vector.
    """
    p = point_vector(point, fn, "point")
    v = point_vector(vector, fn, "vector")
    body_f = cpp_source(fn, {name: f"w[{i}]" for i, name in enumerate(fn.variables)})
    names = ", ".join(fn.variables)
    constant = gradient_is_constant(fn, p)
    listed = ", ".join(_double(x) for x in p)
    vlisted = ", ".join(_double(x) for x in v)
    grad = "torch::autograd::grad"
    if constant:  # ∇f does not depend on w: H = 0, and grad() would throw
        routes = [
            "// ∇f does not depend on w: H = 0, so Hv = 0 by every route",
            "torch::Tensor hv = torch::zeros_like(w);",
            "torch::Tensor hv2 = torch::zeros_like(w);",
            "torch::Tensor hv3 = torch::zeros_like(w);",
            "torch::Tensor vh = torch::zeros_like(w);",
        ]
    else:
        routes = [
            "// 1. double backward: the gradient of g·v",
            f"torch::Tensor hv = {grad}({{torch::matmul(g, v)}}, {{w}}, {{}}, "
            "/*retain_graph=*/true)[0];",
            "",
            "// 2. forward over reverse: w carries the tangent v (a dual tensor); the backward",
            "// that makes ∇f then carries ∇f's tangent, H v",
            "uint64_t level = torch::autograd::forward_ad::enter_dual_level();",
            "torch::Tensor dual = at::_make_dual(w.detach().requires_grad_(), v, level);",
            f"torch::Tensor g2 = {grad}({{f(dual)}}, {{dual}}, {{}}, std::nullopt, true)[0];",
            "torch::Tensor hv2 = std::get<1>(at::_unpack_dual(g2, level)).clone();",
            "torch::autograd::forward_ad::exit_dual_level(level);",
            "",
            "// 3. the double-backward trick of torch.autograd.functional.hvp: a backward of",
            "// ∇f with a dummy u, (∇²f) u, then a backward of that to u along v",
            "torch::Tensor u = torch::zeros_like(w).requires_grad_();",
            f"torch::Tensor hu = {grad}({{g}}, {{w}}, {{u}}, std::nullopt, true)[0];",
            f"torch::Tensor hv3 = {grad}({{hu}}, {{u}}, {{v}})[0];",
            "// vᵀH as torch.autograd.functional.vhp: a backward of ∇f along v",
            f"torch::Tensor vh = {grad}({{g}}, {{w}}, {{v}})[0];",
        ]
    body = [
        f"torch::Tensor w = torch::tensor({{{listed}}}, "
        "torch::dtype(torch::kFloat64).requires_grad(true));",
        f"torch::Tensor v = torch::tensor({{{vlisted}}}, torch::kFloat64);",
        "",
        f"torch::Tensor g = {grad}({{f(w)}}, {{w}}, {{}}, std::nullopt, true)[0];",
        *routes,
        "",
        'std::printf("gradient %s\\n", py_list(g).c_str());',
        'std::printf("Hv %s %s %s\\n", py_list(hv).c_str(), py_list(hv2).c_str(), '
        "py_list(hv3).c_str());",
        'std::printf("vH %s\\n", py_list(vh).c_str());',
        "return 0;",
    ]
    lines = [
        *_header(name),
        _INCLUDES,
        HELPERS,
        f"torch::Tensor f(const torch::Tensor& w) {{  // w = ({names})",
        f"  return {body_f};",
        "}",
        "",
        *_main(body),
    ]
    return "\n".join(lines) + "\n"


def hvp_graph_cpp(
    fn: Function,
    point: Sequence[float] | np.ndarray,
    vector: Sequence[float] | np.ndarray,
    record_second: bool = False,
    reaches: tuple[bool, bool] = (True, True),
    name: str = "hvp_graph",
) -> str:
    """The C++ twin of :func:`hograd_core.hvp_graph.hvp_code`, the graph page's script for a
    function of several variables: g = grad(f, w, create_graph), g·v, then grad(g·v, w), on
    the function's own variable names, printing f, ∇f, g·v and Hv as the script prints them.

    ``materialize_grads=True`` (Python only) is written as what it does: ``allow_unused`` and
    zeros for an input f does not use. ``reaches`` as for ``hvp_code``: where no variable
    reaches f's graph (or g's), the derivatives are zeros instead of a call that would throw.
    """
    p = point_vector(point, fn, "point")
    v = point_vector(vector, fn, "vector")
    names: dict[str, str] = {}
    for own in fn.variables:
        taken = _GRAPH_NAMES | (set(fn.variables) - {own}) | set(names.values())
        names[own] = cpp_name(own, taken)
    leaves = ", ".join(names.values())
    grad = "torch::autograd::grad"
    zeros = "zeros(w);  // {}"
    body = [
        *[
            f"torch::Tensor {names[n]} = torch::tensor({_double(a)}, "
            "torch::dtype(torch::kFloat64).requires_grad(true));"
            for n, a in zip(fn.variables, p, strict=True)
        ],
        f"std::vector<torch::Tensor> w{{{leaves}}};",
        f"torch::Tensor f = {cpp_source(fn, names)};",
        (
            f"std::vector<torch::Tensor> g = filled({grad}({{f}}, w, {{}}, std::nullopt, "
            "/*create_graph=*/true, /*allow_unused=*/true), w);"
            if reaches[0]
            else "std::vector<torch::Tensor> g = "
            + zeros.format("no variable reaches f: grad() would throw; ∇f = 0")
        ),
        "torch::Tensor gv = torch::dot(torch::stack(g), "
        f"torch::tensor({{{', '.join(_double(x) for x in v)}}}, torch::kFloat64));",
        (
            f"std::vector<torch::Tensor> hv = filled({grad}({{gv}}, w, {{}}, std::nullopt, "
            f"/*create_graph=*/{'true' if record_second else 'false'}, /*allow_unused=*/true), w);"
            "  // H v"
            if reaches[1]
            else "std::vector<torch::Tensor> hv = "
            + zeros.format("∇f has no graph (f linear): grad() would throw; Hv = 0")
        ),
        "",
        'std::printf("f %s\\n", py(f.item<double>()).c_str());',
        'std::printf("gradient %s\\n", py_list(torch::stack(g)).c_str());',
        'std::printf("g·v %s\\n", py(gv.item<double>()).c_str());',
        'std::printf("Hv %s\\n", py_list(torch::stack(hv)).c_str());',
        "return 0;",
    ]
    helpers = [
        "// Python's materialize_grads=True: zeros for an input the output does not use",
        "std::vector<torch::Tensor> filled(std::vector<torch::Tensor> grads,",
        "                                  const std::vector<torch::Tensor>& w) {",
        "  for (std::size_t i = 0; i < grads.size(); ++i) {",
        "    if (!grads[i].defined()) grads[i] = torch::zeros_like(w[i]);",
        "  }",
        "  return grads;",
        "}",
        "",
        "std::vector<torch::Tensor> zeros(const std::vector<torch::Tensor>& w) {",
        "  std::vector<torch::Tensor> out;",
        "  for (const auto& t : w) out.push_back(torch::zeros_like(t));",
        "  return out;",
        "}",
        "",
    ]
    lines = [*_header(name), _INCLUDES, HELPERS, *helpers, *_main(body)]
    return "\n".join(lines) + "\n"
