"""English and Chinese strings of the graph page. Keys are prefixed ``graph.``."""

TEXT: dict[str, tuple[str, str]] = {
    # ---- passes and legend ------------------------------------------------------------------
    "graph.pass.0": ("forward pass", "前向传播"),
    "graph.pass.1": ("1st backward pass", "第 1 次反向传播"),
    "graph.pass.2": ("2nd backward pass", "第 2 次反向传播"),
    "graph.pass.3": ("3rd backward pass", "第 3 次反向传播"),
    "graph.pass.4": ("4th backward pass", "第 4 次反向传播"),
    "graph.pass.5": ("5th backward pass", "第 5 次反向传播"),
    "graph.pass.6": ("6th backward pass", "第 6 次反向传播"),
    "graph.legend.pass": ("{name}: {n} nodes", "{name}：{n} 个节点"),
    "graph.legend.pass_one": ("{name}: {n} node", "{name}：{n} 个节点"),
    "graph.legend.shapes": (
        "box: backward function (grad_fn)   oval: tensor   dashed: saved for backward   "
        "thick outline: new in this step",
        "方框：反向函数（grad_fn）   椭圆：张量   虚线：为反向传播保存的张量   粗边框：这一步新增",
    ),
    # ---- growth chart -----------------------------------------------------------------------
    "graph.growth.nodes": ("graph nodes", "计算图节点数"),
    "graph.growth.bytes": ("saved tensors (bytes)", "保存的张量（字节）"),
    "graph.growth.ms": ("time of the pass (ms)", "这一遍的耗时（毫秒）"),
    "graph.growth.order": ("order", "阶数"),
    "graph.growth.hover": ("order %{x}: %{y:,.4g}", "第 %{x} 阶：%{y:,.4g}"),
    # ---- budgets ----------------------------------------------------------------------------
    "graph.budget.order": (
        "order: expected 0 to {high}, got {got}. Every order multiplies the graph about "
        "2.2-2.9x; above {high} even simple functions give graphs nobody can read.",
        "阶数：应在 0 到 {high} 之间，实际为 {got}。每多求一阶，计算图大约扩大 2.2 到 2.9 倍；"
        "超过 {high} 阶，即使是简单函数，图也大到无法阅读。",
    ),
    "graph.budget.x0": (
        "x0: expected a finite number within ±{limit}, got {got}.",
        "x0：应为 ±{limit} 以内的有限数，实际为 {got}。",
    ),
    "graph.budget.nodes": (
        "order {order}: the graph of f and its first {order} derivatives has {nodes} nodes, "
        "over the budget of {limit} nodes that one request may build on this shared server. "
        "Orders up to {built} are available.",
        "第 {order} 阶：f 及其前 {order} 阶导数的计算图有 {nodes} 个节点，"
        "超出了这台共享服务器为单个请求设定的 {limit} 个节点的上限。最高可以查看到第 {built} 阶。",
    ),
    "graph.budget.draw": (
        "The graph has {nodes} nodes, more than the {limit} that are drawn: graphviz needs "
        "seconds to minutes to lay it out (about 40 s at 2,000 nodes) and nobody could read "
        "it. The counts below describe it instead.",
        "这个计算图有 {nodes} 个节点，超过了绘制上限 {limit}：graphviz 排版它需要几秒到几分钟"
        "（2,000 个节点约需 40 秒），而且画出来也没人看得清。下面改用统计数字来描述它。",
    ),
    "graph.budget.direction": (
        "direction: expected TB or LR, got {got}.",
        "方向：应为 TB 或 LR，实际为 {got}。",
    ),
    "graph.budget.svg_timeout": (
        "SVG: the dot program did not finish within {seconds} s. Download the DOT source and "
        "lay it out on your own computer.",
        "SVG：dot 程序在 {seconds} 秒内没有完成排版。请下载 DOT 源文件，在自己的电脑上排版。",
    ),
    "graph.budget.svg_failed": (
        "SVG: the dot program failed ({detail}). The DOT download still works.",
        "SVG：dot 程序运行失败（{detail}）。DOT 源文件仍然可以下载。",
    ),
    # ---- page -------------------------------------------------------------------------------
    "graph.title": ("Double-backward graph lab", "二次反向传播计算图实验室"),
    "graph.lead": (
        "Every `torch.autograd.grad(..., create_graph=True)` runs a backward pass **and records "
        "it**, so the derivative gets a graph of its own that the next `grad` can walk. Pick a "
        "function and an order k: the graph of f, f′, …, f⁽ᵏ⁾ is drawn with every node coloured "
        "by the pass that created it.",
        "每次调用 `torch.autograd.grad(..., create_graph=True)`，PyTorch 都会执行一次反向传播，"
        "**并把这次计算本身也记录下来**，于是导数拥有了自己的计算图，"
        "下一次 `grad` 可以沿着它继续求导。"
        "选一个函数和阶数 k：下图画出 f、f′、…、f⁽ᵏ⁾ 的计算图，每个节点按创建它的那一遍着色。",
    ),
    "graph.fn.label": ("f(x) =", "函数 f(x) ="),
    "graph.x0": ("at x =", "在 x ="),
    "graph.order": ("order k", "阶数 k"),
    "graph.order.help": (
        "The graph of f and its first k derivatives, each taken by one more "
        "grad(..., create_graph=True).",
        "f 及其前 k 阶导数的计算图，每多一阶就多调用一次 grad(..., create_graph=True)。",
    ),
    "graph.step.prev": ("One pass back", "退回一遍"),
    "graph.step.next": ("Next backward pass", "再做一次反向传播"),
    "graph.saved": ("Show saved tensors", "显示保存的张量"),
    "graph.saved.help": (
        "Tensors each backward function keeps for its own backward (torchviz show_saved).",
        "每个反向函数为自身求导而保存的张量（相当于 torchviz 的 show_saved）。",
    ),
    "graph.highlight": ("Outline the newest pass", "给最新一遍加粗边框"),
    "graph.direction": ("Layout", "布局"),
    "graph.direction.TB": ("top to bottom", "从上到下"),
    "graph.direction.LR": ("left to right", "从左到右"),
    "graph.caption": (
        "Order {order} at x = {x0}: the graph of y, …, {last} has **{nodes}** backward nodes; "
        "the {newest} added **{new}** of them (outlined).",
        "x = {x0} 处的 {order} 阶：y、…、{last} 的计算图共有 **{nodes}** 个反向节点，"
        "其中 **{new}** 个由{newest}新增（粗边框标出）。",
    ),
    "graph.constant": (
        "From order {k} on, the derivative is a constant with no `grad_fn`: the next `grad` "
        "would raise *element 0 of tensors does not require grad*, although the answer is "
        "exactly 0 (see the constant-derivative trap below). The graph stops growing and "
        "hograd fills in the zeros.",
        "从第 {k} 阶起，导数是一个没有 `grad_fn` 的常数：再调用 `grad` 会报错 "
        "*element 0 of tensors does not require grad*，尽管正确答案恰好是 0"
        "（见下方的“常数导数陷阱”）。计算图不再增长，hograd 直接补上 0。",
    ),
    "graph.too_large": ("Too large to draw.", "图太大，不予绘制。"),
    "graph.too_large.saved": (
        "Without the saved tensors it can be drawn: switch off “Show saved tensors”.",
        "不显示保存的张量就可以画出来：请关闭“显示保存的张量”。",
    ),
    "graph.values": ("Values at x = {x0}", "x = {x0} 处的数值"),
    "graph.download.dot": ("Download DOT", "下载 DOT 源文件"),
    "graph.download.svg": ("Download SVG", "下载 SVG"),
    "graph.download.no_dot": (
        "SVG needs the graphviz `dot` program, which this server does not have; the DOT file "
        "opens in any graphviz viewer.",
        "生成 SVG 需要 graphviz 的 `dot` 程序，而这台服务器没有安装；"
        "DOT 文件可以用任何 graphviz 查看器打开。",
    ),
    "graph.growth.title": ("How the graph grows", "计算图如何增长"),
    "graph.growth.factor": (
        "Over the last orders the graph grew about **{factor}×** per order.",
        "最近几阶里，计算图每多一阶大约扩大 **{factor} 倍**。",
    ),
    "graph.growth.flat": (
        "The graph has stopped growing: the last derivative no longer depends on x.",
        "计算图已经不再增长：最后一阶导数已不再依赖 x。",
    ),
    "graph.growth.stopped": (
        "Orders above {built} were not built: {nodes} nodes exceed this server's budget of "
        "{limit}.",
        "高于 {built} 阶的部分没有构建：{nodes} 个节点超出了本服务器 {limit} 个节点的预算。",
    ),
    "graph.table.title": ("Numbers per order", "每一阶的数字"),
    "graph.table.order": ("order", "阶数"),
    "graph.table.value": ("value at x0", "在 x0 处的值"),
    "graph.table.nodes": ("nodes", "节点数"),
    "graph.table.new": ("new", "新增"),
    "graph.table.saved": ("saved tensors", "保存的张量"),
    "graph.table.bytes": ("saved bytes", "保存的字节数"),
    "graph.table.ms": ("time (ms)", "耗时（毫秒）"),
    "graph.table.grad_fn": ("grad_fn", "grad_fn（反向函数）"),
    "graph.summary.title": ("Nodes by type and pass", "按类型和遍次统计的节点"),
    "graph.summary.type": ("node type", "节点类型"),
    "graph.summary.total": ("total", "合计"),
    # ---- flag lab: the toggles --------------------------------------------------------------
    "graph.flags.title": (
        "Flag lab: flip the flags, run the real call",
        "参数实验：切换参数，运行真实调用",
    ),
    "graph.flags.lead": (
        "Each change runs PyTorch for real on f at x, in a fresh graph, and shows what it "
        "printed or the error it raised, word for word.",
        "每次改动都会在 x 处对 f 真实地运行 PyTorch（每次都是全新的计算图），"
        "并原样显示它打印的结果或抛出的错误。",
    ),
    "graph.flags.create_graph": ("create_graph", "create_graph（记录反向传播）"),
    "graph.flags.create_graph.help": (
        "Record the backward pass, so dy has a grad_fn and can be differentiated again.",
        "把反向传播本身记录下来，使 dy 拥有 grad_fn，从而可以再次求导。",
    ),
    "graph.flags.retain_graph": ("retain_graph", "retain_graph（保留计算图）"),
    "graph.flags.retain_graph.help": (
        "Keep the graph's saved tensors after the call. None (the default) means: the same "
        "as create_graph.",
        "调用结束后保留计算图中保存的张量。None（默认值）表示与 create_graph 取相同的值。",
    ),
    "graph.flags.retain.default": ("None (default)", "None（默认）"),
    "graph.flags.allow_unused": ("allow_unused", "allow_unused（允许未使用的输入）"),
    "graph.flags.allow_unused.help": (
        "Return None for an input y does not depend on, instead of raising.",
        "对 y 并不依赖的输入返回 None，而不是报错。",
    ),
    "graph.flags.materialize_grads": ("materialize_grads", "materialize_grads（用 0 代替 None）"),
    "graph.flags.materialize_grads.help": (
        "Return zeros instead of None for such an input (implies allow_unused).",
        "对这样的输入返回 0 而不是 None（隐含 allow_unused）。",
    ),
    "graph.flags.unused": ("Also ask for dy/dz (y does not use z)", "同时求 dy/dz（y 并不使用 z）"),
    "graph.flags.action": ("Then", "然后"),
    "graph.flags.action.next": ("take the next derivative", "再求一阶导数"),
    "graph.flags.action.again": (
        "call grad again on the same graph",
        "在同一个计算图上再调用一次 grad",
    ),
    "graph.flags.action.backward": ("use .backward() instead, twice", "改用 .backward()，调用两次"),
    "graph.flags.backward_note": (
        "`.backward()` has no `allow_unused` or `materialize_grads`: it writes into `.grad` "
        "and leaves an unused input's `.grad` as None.",
        "`.backward()` 没有 `allow_unused` 和 `materialize_grads` 参数：它把结果写进 `.grad`，"
        "未被使用的输入的 `.grad` 保持为 None。",
    ),
    "graph.flags.isolated": (
        "This call runs in a fresh Python process of its own (a copy of a helper that has torch "
        "loaded, so it starts at once): {why}",
        "这个调用在一个单独的全新 Python 进程里运行（复制自一个已载入 torch 的辅助进程，所以能立即开始）：{why}",
    ),
    "graph.flags.isolated.warn_once": (
        "PyTorch gives this warning only once per process, and every learner should see it.",
        "PyTorch 每个进程只发出一次这个警告，而每位学习者都应该看到它。",
    ),
    "graph.flags.isolated.anomaly": (
        "anomaly detection is a switch for the whole process and would slow down everyone "
        "else's computations on this server.",
        "异常检测是整个进程范围的开关，打开它会拖慢这台服务器上其他所有人的计算。",
    ),
    # ---- flag lab: results ------------------------------------------------------------------
    "graph.result.code": ("Show the PyTorch code", "显示 PyTorch 代码"),
    "graph.result.ran": ("It ran. PyTorch printed:", "运行成功。PyTorch 打印出："),
    "graph.result.raised": ("PyTorch raised {error_type}:", "PyTorch 抛出了 {error_type}："),
    "graph.result.warned": ("PyTorch warned:", "PyTorch 发出警告："),
    "graph.result.results": ("The results", "结果"),
    "graph.result.name": ("name", "名称"),
    "graph.result.value": ("value", "值"),
    "graph.result.requires_grad": ("requires_grad", "requires_grad（需要梯度）"),
    "graph.result.grad_fn": ("grad_fn", "grad_fn（反向函数）"),
    "graph.result.why": ("Why.", "原因："),
    "graph.result.fix": ("The fix.", "解决办法："),
    # ---- flag lab: the classic cases --------------------------------------------------------
    "graph.cases.title": ("The errors learners hit", "学习者常遇到的错误"),
    "graph.cases.lead": (
        "Each case is a short script, run as written: the trap first, then its fixes.",
        "每个案例都是一小段脚本，按原样运行：先看陷阱，再看解决办法。",
    ),
    "graph.cases.pick": ("Case", "案例"),
    "graph.cases.variant": ("Variant", "变体"),
    "graph.case.no_create_graph": (
        "Second derivative without create_graph",
        "不设 create_graph 求二阶导数",
    ),
    "graph.case.no_create_graph.off": (
        "create_graph=False (the default)",
        "create_graph=False（默认）",
    ),
    "graph.case.no_create_graph.on": ("create_graph=True", "设 create_graph=True"),
    "graph.case.freed_graph": ("Backward through a freed graph", "在已释放的计算图上反向传播"),
    "graph.case.freed_graph.default": ("grad twice, default flags", "默认参数下调用两次 grad"),
    "graph.case.freed_graph.retain": ("retain_graph=True", "设 retain_graph=True"),
    "graph.case.retain_default": (
        "retain_graph defaults to create_graph",
        "retain_graph 默认等于 create_graph",
    ),
    "graph.case.retain_default.create_graph": (
        "create_graph=True, then grad again",
        "create_graph=True，然后再调用 grad",
    ),
    "graph.case.retain_default.no_retain": (
        "… with retain_graph=False",
        "……并设 retain_graph=False",
    ),
    "graph.case.retain_default.no_retain_next": (
        "retain_graph=False, then the next derivative of tanh",
        "retain_graph=False，然后对 tanh 再求一阶导",
    ),
    "graph.case.unused_input": ("An input the output does not use", "输出没有用到的输入"),
    "graph.case.unused_input.plain": ("default flags", "默认参数"),
    "graph.case.unused_input.allow_unused": ("allow_unused=True", "设 allow_unused=True"),
    "graph.case.unused_input.materialize": ("materialize_grads=True", "设 materialize_grads=True"),
    "graph.case.constant_trap": (
        "The constant-derivative trap (2*x, ReLU)",
        "常数导数陷阱（2*x、ReLU）",
    ),
    "graph.case.constant_trap.linear": ("y = 2 * x", "y = 2 * x（线性函数）"),
    "graph.case.constant_trap.relu": ("y = torch.relu(x)", "y = torch.relu(x)（内置 ReLU）"),
    "graph.case.constant_trap.clamp": ("ReLU as clamp(x, min=0)", "用 clamp(x, min=0) 写的 ReLU"),
    "graph.case.constant_trap.fixed": ("2 * x, with the fix", "2 * x，加上修正"),
    "graph.case.backward_accumulates": (
        ".backward(create_graph=True) adds up in .grad",
        ".backward(create_graph=True) 会在 .grad 中累加",
    ),
    "graph.case.backward_accumulates.twice": ("backward twice", "调用两次 backward"),
    "graph.case.backward_accumulates.reset": ("x.grad = None in between", "中间设置 x.grad = None"),
    "graph.case.backward_accumulates.grad": ("autograd.grad instead", "改用 autograd.grad"),
    "graph.case.inplace": ("In-place change of a saved tensor", "原地修改了被保存的张量"),
    "graph.case.inplace.inplace": ("in place: a.mul_(2)", "原地修改：a.mul_(2)"),
    "graph.case.inplace.out_of_place": ("a new tensor: a = a * 2", "新建张量：a = a * 2"),
    "graph.case.nan_anomaly": ("NaN gradients and detect_anomaly", "NaN 梯度与 detect_anomaly"),
    "graph.case.nan_anomaly.sqrt": ("sqrt(x**2) at 0", "0 处的 sqrt(x**2)"),
    "graph.case.nan_anomaly.log": (
        "where(x > 0, log(x), 0) at 0",
        "0 处的 where(x > 0, log(x), 0)",
    ),
    "graph.case.nan_anomaly.log_fixed": ("the double-where fix", "双重 where 修正"),
    # ---- flag lab: explanations -------------------------------------------------------------
    "graph.flag.explain.next_ok": (
        "With `create_graph=True` the first `grad` recorded its own computation, so `dy` has a "
        "`grad_fn` and the next `grad` differentiates it: `d2y` is the second derivative.",
        "设置 `create_graph=True` 后，第一次 `grad` 把自身的计算也记录了下来，所以 `dy` 带有 "
        "`grad_fn`，下一次 `grad` 可以对它求导：`d2y` 就是二阶导数。",
    ),
    "graph.flag.explain.no_create_graph": (
        "Without `create_graph=True`, `grad` returns a plain number: `dy` has no `grad_fn`, so "
        "there is no graph to differentiate and the next `grad` refuses. The message says "
        "*element 0 of tensors does not require grad*, meaning `dy` itself.",
        "没有 `create_graph=True` 时，`grad` 返回的只是一个普通数值：`dy` 没有 `grad_fn`，"
        "没有可以求导的计算图，于是下一次 `grad` 拒绝执行。报错中的"
        " *element 0 of tensors does not require grad* 指的正是 `dy`。",
    ),
    "graph.flag.explain.constant_trap": (
        "`create_graph=True` was set, yet `dy` has no `grad_fn`: the derivative is a constant "
        "(2 for 2*x), and a constant depends on nothing, so autograd records no graph for it. "
        "The true second derivative is exactly 0, but PyTorch raises instead of returning it.",
        "虽然设置了 `create_graph=True`，`dy` 仍然没有 `grad_fn`："
        "导数是一个常数（2*x 的导数是 2），"
        "常数不依赖任何东西，autograd 不会为它记录计算图。真正的二阶导数恰好是 0，"
        "但 PyTorch 选择报错，而不是返回 0。",
    ),
    "graph.flag.explain.relu_ok": (
        "No error: `torch.relu`'s backward (`threshold_backward`) is itself differentiable, "
        "with derivative 0, so `dy` keeps a `grad_fn` and every higher derivative is a 0 that "
        "still carries a graph. The kink at 0 is simply ignored.",
        "没有报错：`torch.relu` 的反向函数（`threshold_backward`）本身可导，导数为 0，"
        "所以 `dy` 保留了 `grad_fn`，更高阶的导数都是带着计算图的 0。0 处的折点被直接忽略。",
    ),
    "graph.flag.explain.relu_clamp": (
        "The same ReLU written as `torch.clamp(x, min=0.0)` falls into the trap: clamp's "
        "backward only masks the incoming gradient, so `dy` is a constant with no `grad_fn` "
        "and the next `grad` raises. `torch.where` and `torch.maximum` behave the same way.",
        "同样的 ReLU 写成 `torch.clamp(x, min=0.0)` 就会掉进陷阱："
        "clamp 的反向只是对传入的梯度做掩码，"
        "`dy` 是没有 `grad_fn` 的常数，下一次 `grad` 就会报错。"
        "`torch.where` 和 `torch.maximum` 也是如此。",
    ),
    "graph.flag.explain.fixed_zero": (
        "Checking `dy.requires_grad` first turns the error into the right answer: a derivative "
        "that is off the graph does not depend on x, so its derivative is exactly 0.",
        "先检查 `dy.requires_grad`，就能把报错变成正确答案：不在计算图上的导数与 x 无关，"
        "所以它的导数恰好是 0。",
    ),
    "graph.flag.explain.const_output": (
        "`y` itself does not depend on x (f is a constant), so it has no `grad_fn` and there is "
        "nothing to differentiate.",
        "`y` 本身不依赖 x（f 是常数），所以它没有 `grad_fn`，没有任何可以求导的东西。",
    ),
    "graph.flag.explain.unused_error": (
        "`y` does not depend on `z`, so no path in the graph leads to it. By default `grad` "
        "treats that as a mistake in your code and raises.",
        "`y` 不依赖 `z`，计算图里没有通向它的路径。默认情况下，`grad` 认为这是代码里的错误，"
        "于是报错。",
    ),
    "graph.flag.explain.unused_none": (
        'With `allow_unused=True`, `grad` returns None for `z`: "no path", not the number 0.',
        "设置 `allow_unused=True` 后，`grad` 对 `z` 返回 None：意思是“没有路径”，而不是数字 0。",
    ),
    "graph.flag.explain.none_arith": (
        "None is not a tensor, so the first arithmetic with it fails, often far from the "
        "`grad` call that produced it.",
        "None 不是张量，所以第一次用它做运算就会失败，而出错的地方往往离产生它的 `grad` 调用很远。",
    ),
    "graph.flag.explain.unused_zero": (
        "With `materialize_grads=True`, `grad` returns a tensor of zeros for `z` (and allows "
        "unused inputs by itself): the mathematically right answer, safe to compute with.",
        "设置 `materialize_grads=True` 后，`grad` 对 `z` 返回全零张量（它本身就允许未使用的输入）："
        "这在数学上是正确答案，可以放心参与运算。",
    ),
    "graph.flag.explain.unused_backward": (
        "`z.grad` stays None: `.backward()` only writes into the `.grad` of leaves it reaches.",
        "`z.grad` 仍为 None：`.backward()` 只会写入它能到达的叶子张量的 `.grad`。",
    ),
    "graph.flag.explain.freed_default": (
        "To save memory, a backward pass frees the tensors the graph saved (such as x for x³) "
        "as soon as it has used them. `retain_graph` defaults to `create_graph`, which was "
        "False, so the first call freed them and the second call on the same graph fails.",
        "为了节省内存，反向传播在用完计算图保存的张量（比如 x³ 保存的 x）之后会立即释放它们。"
        "`retain_graph` 默认等于 `create_graph`，而它是 False，所以第一次调用释放了这些张量，"
        "在同一个计算图上的第二次调用就失败了。",
    ),
    "graph.flag.explain.freed_explicit": (
        "`retain_graph=False` freed the graph's saved tensors during the first call, so the "
        "second call on the same graph fails, whatever `create_graph` was.",
        "`retain_graph=False` 让第一次调用释放了计算图保存的张量，"
        "所以无论 `create_graph` 取什么值，"
        "在同一个计算图上的第二次调用都会失败。",
    ),
    "graph.flag.explain.freed_forward": (
        "`create_graph=True` built a graph for `dy`, but `retain_graph=False` freed the forward "
        "graph's saved tensors. The graph of `dy` runs back through forward nodes (for tanh, "
        "TanhBackward0 and its saved output), so differentiating `dy` needs what was freed. "
        "Functions whose backward only uses x itself (x³, sin) happen to survive.",
        "`create_graph=True` 为 `dy` 建立了计算图，"
        "但 `retain_graph=False` 释放了前向计算图保存的张量。"
        "`dy` 的计算图会回到前向节点（对 tanh 而言是 TanhBackward0 及其保存的输出），"
        "所以对 `dy` 求导需要那些已被释放的张量。反向只用到 x 本身的函数（x³、sin）碰巧不受影响。",
    ),
    "graph.flag.explain.retain_default": (
        "`retain_graph` was not given, so it took the value of `create_graph`, True: the graph "
        "was kept and `grad` can run on it again.",
        "没有指定 `retain_graph`，它就取 `create_graph` 的值 True：计算图被保留，"
        "可以再次运行 `grad`。",
    ),
    "graph.flag.explain.retained": (
        "`retain_graph=True` kept the graph's saved tensors, so `grad` can run on it again.",
        "`retain_graph=True` 保留了计算图保存的张量，所以可以再次运行 `grad`。",
    ),
    "graph.flag.explain.backward_grad": (
        "`.backward()` returns nothing: it adds the gradient into `x.grad`.",
        "`.backward()` 不返回任何值：它把梯度累加进 `x.grad`。",
    ),
    "graph.flag.explain.accumulates": (
        "The second `.backward()` added to `x.grad` instead of replacing it: it now holds twice "
        "f′(x). Gradients accumulate by design (for summing over mini-batches), which silently "
        "gives wrong derivatives when you call backward more than once.",
        "第二次 `.backward()` 是累加到 `x.grad` 上，而不是覆盖它：现在里面是 f′(x) 的两倍。"
        "梯度累加是有意设计的（便于在多个小批量上求和），但多次调用 backward 时，"
        "它会悄无声息地给出错误的导数。",
    ),
    "graph.flag.explain.cycle": (
        "With `create_graph=True`, `x.grad` has a `grad_fn` whose graph refers back to x: x "
        "and its gradient keep each other alive, and memory is not freed. This is why PyTorch "
        "warns and recommends `torch.autograd.grad` for higher derivatives.",
        "在 `create_graph=True` 下，`x.grad` 带有 `grad_fn`，其计算图又引用了 x："
        "x 和它的梯度互相引用，"
        "内存无法释放。这正是 PyTorch 发出警告、并建议用 `torch.autograd.grad` 求高阶导数的原因。",
    ),
    "graph.flag.explain.reset": (
        "Setting `x.grad = None` before the second call starts it from nothing, so `x.grad` "
        "is f′(x) again, and breaks the reference cycle once you are done.",
        "在第二次调用前设置 `x.grad = None`，累加就从零开始，`x.grad` 又是 f′(x)；"
        "用完后这样做也能打破循环引用。",
    ),
    "graph.flag.explain.grad_returns": (
        "`torch.autograd.grad` returns the derivative instead of storing it: nothing "
        "accumulates, `x.grad` stays None, no cycle, no warning.",
        "`torch.autograd.grad` 直接返回导数，而不是把它存起来：不会累加，`x.grad` 保持为 None，"
        "没有循环引用，也没有警告。",
    ),
    "graph.flag.explain.inplace": (
        "`y = a**2` saved `a` to compute its derivative 2a, and the graph of `dy` saved it too. "
        "`a.mul_(2)` changed `a` in place, which bumps its version counter; autograd notices "
        "that the saved value is stale and refuses rather than return a wrong derivative.",
        "`y = a**2` 为计算导数 2a 保存了 `a`，`dy` 的计算图也保存了它。`a.mul_(2)` 原地修改了 `a`，"
        "使它的版本号加一；autograd 发现保存的值已经过期，宁可报错也不返回错误的导数。",
    ),
    "graph.flag.explain.out_of_place": (
        "`a = a * 2` makes a new tensor and leaves the saved one untouched, so the graph stays "
        "valid and `d2y` is the true second derivative of sin²(x).",
        "`a = a * 2` 创建了一个新张量，保存的那个没有被改动，所以计算图依然有效，"
        "`d2y` 就是 sin²(x) 真正的二阶导数。",
    ),
    "graph.flag.explain.nan_silent": (
        "Without anomaly detection the NaN passes silently: the value is fine, the gradient is "
        "nan, and nothing says where it came from. One infinite factor (1/(2√0), or 1/x at 0) "
        "times a zero factor gives nan.",
        "不开异常检测时，NaN 会悄无声息地传下去：函数值正常，梯度却是 nan，"
        "没有任何提示说明它来自哪里。"
        "一个无穷大的因子（1/(2√0) 或 0 处的 1/x）乘以一个零因子，结果就是 nan。",
    ),
    "graph.flag.explain.anomaly": (
        "Inside `torch.autograd.detect_anomaly()` every backward function's output is checked: "
        "the first one that returns nan raises, and the warning names it. Run the snippet "
        "yourself and the warning also prints the traceback of the forward line that created "
        "that function.",
        "在 `torch.autograd.detect_anomaly()` 之内，每个反向函数的输出都会被检查："
        "第一个返回 nan 的函数会报错，警告里会写出它的名字。自己运行这段代码时，"
        "警告还会打印出创建该函数的那行前向代码的调用栈。",
    ),
    "graph.flag.explain.double_where": (
        "The inner `where` replaces x by a harmless 1 before `log` sees it, so the branch that "
        "is not taken has a finite derivative, and its zero weight gives 0, not nan.",
        "内层的 `where` 在 `log` 看到 x 之前先把它换成无害的 1，于是未被选中的分支导数有限，"
        "乘以零权重得到的是 0，而不是 nan。",
    ),
    # ---- flag lab: fixes --------------------------------------------------------------------
    "graph.flag.fix.create_graph": (
        "Pass `create_graph=True` to every `grad` call whose result you will differentiate again.",
        "凡是结果还要再求导的 `grad` 调用，都要传入 `create_graph=True`。",
    ),
    "graph.flag.fix.constant": (
        "Check `dy.requires_grad` before the next call and use `torch.zeros_like(x)` when it "
        "is False (hograd's graph lab does exactly that).",
        "在下一次调用之前检查 `dy.requires_grad`，为 False 时直接用 `torch.zeros_like(x)`"
        "（hograd 的计算图实验正是这样做的）。",
    ),
    "graph.flag.fix.const_output": (
        "Use a function of x, such as x**2, or treat the derivative of a constant as 0.",
        "使用一个含 x 的函数，例如 x**2；或者把常数的导数直接当作 0。",
    ),
    "graph.flag.fix.unused": (
        "If an unused input is expected, pass `materialize_grads=True` to get zeros; "
        "`allow_unused=True` gives None, which you must check before using.",
        "如果确实会有未使用的输入，传入 `materialize_grads=True` 得到 0；"
        "`allow_unused=True` 返回的是 None，使用前必须先检查。",
    ),
    "graph.flag.fix.retain": (
        "Pass `retain_graph=True` to the first call (or `create_graph=True`, which retains by "
        "default), or run the forward pass again to build a fresh graph.",
        "在第一次调用时传入 `retain_graph=True`（或者 `create_graph=True`，它默认会保留计算图），"
        "或者重新运行一遍前向计算，构建新的计算图。",
    ),
    "graph.flag.fix.retain_forward": (
        "Leave `retain_graph` at its default when you set `create_graph=True`: the next "
        "derivative needs the forward graph too.",
        "设置 `create_graph=True` 时让 `retain_graph` 保持默认值：下一阶导数同样需要前向计算图。",
    ),
    "graph.flag.fix.zero_grad": (
        "Set `x.grad = None` (or call `optimizer.zero_grad()`) before each backward.",
        "每次 backward 之前先设置 `x.grad = None`（或者调用 `optimizer.zero_grad()`）。",
    ),
    "graph.flag.fix.use_grad": (
        "For derivatives of derivatives, use `torch.autograd.grad(y, x, create_graph=True)`: "
        "it returns the result and leaves `.grad` alone.",
        "求导数的导数时，用 `torch.autograd.grad(y, x, create_graph=True)`：它直接返回结果，"
        "不会动 `.grad`。",
    ),
    "graph.flag.fix.inplace": (
        "Write `a = a * 2` instead of `a.mul_(2)` (or clone before changing): never modify a "
        "tensor that a graph you still need has saved.",
        "用 `a = a * 2` 代替 `a.mul_(2)`（或者修改前先 clone）："
        "不要原地修改仍被需要的计算图所保存的张量。",
    ),
    "graph.flag.fix.nan_sqrt": (
        "Use `torch.linalg.vector_norm`, whose gradient at 0 is defined as 0, or add a small "
        "epsilon inside the square root.",
        "改用 `torch.linalg.vector_norm`，它在 0 处的梯度定义为 0；"
        "或者在平方根里加一个很小的 epsilon。",
    ),
    "graph.flag.fix.nan_where": (
        "Guard the input of `log` with a second `where` (the next variant), so the branch that "
        "is not taken never sees x = 0.",
        "用第二个 `where` 保护 `log` 的输入（见下一个变体），让未被选中的分支永远看不到 x = 0。",
    ),
    # ---- flag lab: errors of the core -------------------------------------------------------
    "graph.flag.action": (
        "action: expected one of {known}, got {got}.",
        "操作：应为 {known} 之一，实际为 {got}。",
    ),
    "graph.flag.case": (
        "case: expected one of {known}, got {got}.",
        "案例：应为 {known} 之一，实际为 {got}。",
    ),
    "graph.flag.variant": (
        "variant: expected one of {known}, got {got}.",
        "变体：应为 {known} 之一，实际为 {got}。",
    ),
    "graph.flag.child_timeout": (
        "The separate Python process for this case did not finish within {seconds} s. The "
        "server may be overloaded; try again in a moment.",
        "运行这个案例的独立 Python 进程没有在 {seconds} 秒内结束。服务器可能负载过高，请稍后再试。",
    ),
    "graph.flag.child_failed": (
        "The separate Python process for this case failed: {detail}",
        "运行这个案例的独立 Python 进程失败了：{detail}",
    ),
}
