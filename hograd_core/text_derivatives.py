"""English and Chinese strings of the derivatives page. Keys are prefixed ``deriv.``."""

TEXT: dict[str, tuple[str, str]] = {
    "deriv.title": ("Derivatives of every order", "任意阶导数"),
    "deriv.lead": (
        "Each derivative is the derivative of the one before. With `create_graph=True`, "
        "`torch.autograd.grad` records its own work, so its result can be differentiated again.",
        "每一阶导数都是前一阶导数的导数。设置 `create_graph=True` 后，`torch.autograd.grad` "
        "会记录自己的计算过程，因此它的结果还能继续求导。",
    ),
    "deriv.function": ("Function f(x) =", "函数 f(x) ="),
    "deriv.method": ("Method", "计算方法"),
    "deriv.method.taylor": ("Taylor mode (fast)", "Taylor 模式（快速）"),
    "deriv.method.autograd": ("Nested autograd", "嵌套 autograd"),
    "deriv.method.help": (
        "Taylor mode pushes truncated Taylor series through the formula: all orders in one "
        "pass. Nested autograd calls torch.autograd.grad again for every order, as the code "
        "below does; its graph grows about 2.5x per order, so it stops at order 10.",
        "Taylor 模式把截断的 Taylor 级数沿公式传播，一次就得到所有阶导数。"
        "嵌套 autograd 每求一阶就再调用一次 torch.autograd.grad，和下方代码的做法一样；"
        "它的计算图每阶约扩大 2.5 倍，所以最高只到 10 阶。",
    ),
    "deriv.order": ("Highest order", "最高阶数"),
    "deriv.range": ("x range", "x 范围"),
    "deriv.points": ("Points", "点数"),
    "deriv.separate": ("One panel per order", "每阶单独一个面板"),
    "deriv.separate.help": (
        "High orders can be thousands of times larger than f; separate panels give each its "
        "own scale.",
        "高阶导数可能比 f 大上千倍；分开的面板让每一阶都有自己的坐标尺度。",
    ),
    "deriv.chart.legend": ("order (click to hide)", "阶数（点击可隐藏）"),
    "deriv.computed": (
        "Orders 0 to {order} on {points} points by {method} in {ms} ms.",
        "计算方法：{method}；在 {points} 个点上算出 0 到 {order} 阶，用时 {ms} 毫秒。",
    ),
    "deriv.gap": (
        "f is undefined (or infinite) for {where}: the curves have gaps there.",
        "f 在 {where} 上没有定义（或为无穷大）：曲线在那里断开。",
    ),
    "deriv.gap.more": ("and {count} more intervals", "以及另外 {count} 个区间"),
    "deriv.nonfinite": (
        "{label} is NaN or infinite at {count} of the points (left out of the chart).",
        "{label} 在 {count} 个点上为 NaN 或无穷大（图中未画出）。",
    ),
    "deriv.undefined_everywhere": (
        "f is undefined (NaN or infinite) at every point of the range {low} to {high}. Choose a "
        "range inside its domain, e.g. x > 0 for log(x).",
        "f 在区间 {low} 到 {high} 的每一个点上都没有定义（NaN 或无穷大）。"
        "请选择它定义域内的范围，例如 log(x) 取 x > 0。",
    ),
    "deriv.constant": (
        "Order {k} is constant: {label} does not depend on {var}, so every derivative from "
        "order {next} on is exactly 0, and that is what is shown.",
        "第 {k} 阶是常数：{label} 与 {var} 无关，因此从第 {next} 阶起的每一阶导数都恰好是 0，"
        "图中显示的正是 0。",
    ),
    "deriv.constant.torch": (
        "PyTorch notices this only at order {r}: the derivative before it has no grad_fn left, "
        "and torch.autograd.grad raises 'element 0 of tensors does not require grad and does "
        "not have a grad_fn'. The answer is 0, not an error; hograd returns zeros there.",
        "PyTorch 直到第 {r} 阶才察觉这一点：此前的那一阶导数已经没有 grad_fn，"
        "torch.autograd.grad 会报错“element 0 of tensors does not require grad and does not "
        "have a grad_fn”。正确答案是 0 而不是错误；hograd 在这里返回 0。",
    ),
    "deriv.inspector.disagree": (
        "At order {k}, nested autograd gives {auto} but sympy and Taylor mode give {exact}. "
        "PyTorch's backward of a power skips a term wherever an exponent is exactly 0 (for "
        "x**x at whole numbers; pytorch/pytorch issue 89757): move x₀ slightly and they agree.",
        "在第 {k} 阶，嵌套 autograd 得到 {auto}，而 sympy 和 Taylor 模式得到 {exact}。"
        "PyTorch 对幂运算求反向传播时，只要指数恰好为 0 就会漏掉一项"
        "（例如 x**x 在整数点处；见 pytorch/pytorch 第 89757 号 issue）：把 x₀ 稍微移动一点，结果就会一致。",
    ),
    "deriv.x0": ("Inspect at x₀", "在 x₀ 处检查"),
    "deriv.tab.inspector": ("Point inspector", "逐点检查"),
    "deriv.tab.taylor": ("Taylor polynomial", "Taylor 多项式"),
    "deriv.tab.symbolic": ("Formulas", "公式"),
    "deriv.tab.code": ("Show the PyTorch code", "查看 PyTorch 代码"),
    "deriv.tab.cost": ("What it costs", "计算代价"),
    "deriv.col.order": ("order k", "阶数 k"),
    "deriv.col.taylor": ("Taylor mode", "Taylor 模式"),
    "deriv.col.autograd": ("nested autograd", "嵌套 autograd"),
    "deriv.col.sympy": ("sympy (exact)", "sympy（精确）"),
    "deriv.col.fd": ("finite difference", "有限差分"),
    "deriv.col.diff_taylor": ("Δ Taylor", "Taylor 误差"),
    "deriv.col.diff_autograd": ("Δ autograd", "autograd 误差"),
    "deriv.col.diff_fd": ("Δ FD", "差分误差"),
    "deriv.inspector.help": (
        "Four independent roads to the same numbers. Taylor mode and nested autograd agree "
        "with sympy's exact derivative to about 15 digits; finite differences lose about three "
        "digits per order, so they are shown up to order {fd}. Δ is the distance from sympy.",
        "四条彼此独立的途径得到同样的数值。Taylor 模式和嵌套 autograd 与 sympy 的精确导数"
        "大约吻合到 15 位有效数字；有限差分每升一阶大约损失三位精度，因此只显示到第 {fd} 阶。"
        "“误差”指与 sympy 结果之差。",
    ),
    "deriv.inspector.sympy_working": (
        "sympy is still working out the exact derivatives in the background ({done} of {total} "
        "orders so far). Its column fills in by itself in a moment.",
        "sympy 仍在后台推导精确导数（已完成 {done}/{total} 阶）。这一列稍后会自动补全。",
    ),
    "deriv.inspector.sympy_time": (
        "sympy stopped after order {k}: this function has used up the {seconds} s of sympy time "
        "the server gives each function. Its column is empty beyond; the other three methods "
        "are not affected.",
        "sympy 在第 {k} 阶之后停止了：服务器给每个函数的 {seconds} 秒 sympy 时间已经用完。"
        "之后各阶这一列留空；其余三种方法不受影响。",
    ),
    "deriv.inspector.sympy_stopped": (
        "sympy stopped after order {k}: the exact derivative grew past {ops} operations (this "
        "swell is why automatic differentiation exists). Its column is empty beyond.",
        "sympy 在第 {k} 阶之后停止了：精确导数的表达式已超过 {ops} 个运算"
        "（正是这种表达式膨胀让自动微分变得必要）。之后各阶这一列留空。",
    ),
    "deriv.inspector.autograd_working": (
        "Nested autograd is still building its graph at x₀ in the background. Its column fills "
        "in by itself in a moment.",
        "嵌套 autograd 仍在后台构建 x₀ 处的计算图。这一列稍后会自动补全。",
    ),
    "deriv.inspector.autograd_limit": (
        "Nested autograd is shown up to order {limit}.",
        "嵌套 autograd 只显示到第 {limit} 阶。",
    ),
    "deriv.taylor.caption": (
        "The Taylor polynomial of degree {n} at x₀ = {x0} uses only the derivatives at that one "
        "point, yet follows f around it; raise the order to see it hold on for longer.",
        "x₀ = {x0} 处的 {n} 次 Taylor 多项式只用到这一点上的各阶导数，却能在附近贴合 f；"
        "提高阶数，它贴合的范围会变大。",
    ),
    "deriv.taylor.trace": ("Taylor polynomial, degree {n}", "{n} 次 Taylor 多项式"),
    "deriv.symbolic.caption": (
        "sympy's exact derivatives, built from the same parsed formula (not simplified).",
        "sympy 给出的精确导数，由同一个解析后的公式构建（未化简）。",
    ),
    "deriv.symbolic.too_big": (
        "{label}: {ops} operations, too long to print usefully.",
        "{label}：共 {ops} 个运算，太长，印出来也难以阅读。",
    ),
    "deriv.symbolic.stopped": (
        "{label}: not computed; sympy's expression grew past its budget.",
        "{label}：未计算；sympy 的表达式超出了预算。",
    ),
    "deriv.symbolic.time": (
        "{label}: not computed; sympy ran out of time for this function.",
        "{label}：未计算；sympy 在这个函数上的时间已经用完。",
    ),
    "deriv.symbolic.working": (
        "{label}: sympy is still working on it…",
        "{label}：sympy 仍在推导……",
    ),
    "deriv.code.caption": (
        "This script reproduces the nested-autograd column of the inspector at x₀ = {x0}. "
        "Copy it into Python with PyTorch installed.",
        "这段脚本可以重现检查表中 x₀ = {x0} 处的嵌套 autograd 一列。"
        "把它复制到装有 PyTorch 的 Python 中运行即可。",
    ),
    "deriv.cost.caption": (
        "How the three methods scale with the order for your function on {points} points. "
        "Nested autograd's graph grows about 2.5x per order; Taylor mode's work grows only "
        "with the square of the order; sympy's formulas swell.",
        "针对你的函数、在 {points} 个点上，比较三种方法的代价如何随阶数增长。"
        "嵌套 autograd 的计算图每阶约扩大 2.5 倍；Taylor 模式的工作量只按阶数的平方增长；"
        "sympy 的公式则会不断膨胀。",
    ),
    "deriv.cost.estimate": (
        "Estimate before running: nested autograd to order {order} builds {nodes} graph nodes "
        "per point, about {mb} MB on {points} points.",
        "运行前的估计：嵌套 autograd 求到 {order} 阶，每个点约有 {nodes} 个计算图节点，"
        "在 {points} 个点上约需 {mb} MB。",
    ),
    "deriv.cost.run": ("Measure", "开始测量"),
    "deriv.cost.time_title": (
        "time to reach each order ({points} points)",
        "求到各阶所需时间（{points} 个点）",
    ),
    "deriv.cost.nodes_title": (
        "nested-autograd graph nodes per point",
        "每个点的嵌套 autograd 计算图节点数",
    ),
    "deriv.cost.autograd": ("nested autograd", "嵌套 autograd"),
    "deriv.cost.taylor": ("Taylor mode", "Taylor 模式"),
    "deriv.cost.sympy": ("sympy diff", "sympy 求导"),
    "deriv.cost.nodes": ("graph nodes", "计算图节点"),
    "deriv.cost.table.order": ("order", "阶数"),
    "deriv.cost.table.mb": ("autograd MB (est.)", "autograd 内存估计 (MB)"),
}
