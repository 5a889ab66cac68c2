"""English and Chinese strings shared by the whole app: the frame, the home page and the
messages of the function language and of the budgets (``expr.*``, ``budget.*``)."""

FUNCTION_LIST = (
    "sin cos tan asin acos atan sinh cosh tanh exp log sqrt abs sigmoid softplus relu erf"
)

TEXT: dict[str, tuple[str, str]] = {
    # ---- the frame --------------------------------------------------------------------------
    "app.title": ("hograd · Higher-Order Gradient Lab", "hograd · 高阶梯度实验室"),
    "app.language": ("Language", "语言"),
    "app.page.home": ("Home", "首页"),
    "app.page.derivatives": ("Derivatives", "各阶导数"),
    "app.page.graph": ("Double-backward graph", "二次反向传播计算图"),
    "app.page.hvp": ("Hessian-vector products", "Hessian-向量积"),
    "app.presets": ("Examples", "示例"),
    "app.error.title": ("This input cannot be used.", "无法使用这个输入。"),
    "app.error.you_typed": ("You typed:", "你输入的是："),
    # ---- home -------------------------------------------------------------------------------
    "home.title": ("Higher-Order Gradient Lab", "高阶梯度实验室"),
    "home.lead": (
        "How does PyTorch take the gradient of a gradient? Type a function, and hograd runs the "
        "real autograd calls on it: derivatives of every order, the graph that `create_graph=True` "
        "builds, and Hessian-vector products, each checked against an independent answer.",
        "PyTorch 是怎样求“梯度的梯度”的？输入一个函数，hograd 就在它上面执行真实的 autograd "
        "调用：任意阶导数、`create_graph=True` 所构建的计算图，以及 Hessian-向量积，"
        "每个结果都与独立的方法相互核对。",
    ),
    "home.derivatives": (
        "f, f′, f″, … in one chart, by nested `torch.autograd.grad`, compared "
        "with sympy and finite differences.",
        "用嵌套的 `torch.autograd.grad` 求出 f、f′、f″……并画在同一张图里，"
        "再与 sympy 和有限差分比较。",
    ),
    "home.graph": (
        "Watch the autograd graph grow with every backward pass, "
        "and see what `create_graph`, `retain_graph` and `allow_unused` really do.",
        "观察每一次反向传播怎样让 autograd 计算图变大，"
        "并看清 `create_graph`、`retain_graph`、`allow_unused` 的真实作用。",
    ),
    "home.hvp": (
        "Gradient, Hessian and Hv without forming H, curvature and its eigen-directions.",
        "梯度、Hessian，以及不构造 H 也能算出的 Hv，还有曲率和它的特征方向。",
    ),
    "home.example.title": ("The idea in four lines", "四行代码看懂核心思想"),
    "home.example.body": (
        "With `create_graph=True` the first `grad` call records how it computed its result, so "
        "that result can be differentiated again. For y = x³ at x = 2:",
        "设置 `create_graph=True` 后，第一次 `grad` 调用会把自己的计算过程也记录进计算图，"
        "于是它的结果还能再求导。以 y = x³、x = 2 为例：",
    ),
    "home.example.result": (
        "PyTorch prints dy/dx = {first} and d²y/dx² = {second} (3x² and 6x at x = 2), computed "
        "just now on this server.",
        "PyTorch 输出 dy/dx = {first}，d²y/dx² = {second}（即 x = 2 处的 3x² 与 6x），"
        "这是刚刚在本服务器上算出来的。",
    ),
    "home.syntax.title": ("What you can type", "可以输入什么"),
    "home.syntax.body": (
        "Numbers (`2`, `0.5`, `1e-3`), variables (`x`, `y`, `w1`, `theta`), the constants `pi` "
        "and `e`, the operators `+ - * /`, powers as `**` or `^`, parentheses, and the "
        "functions " + FUNCTION_LIST + ". Write every product with `*`: `2*x`, not `2x`.",
        "数字（`2`、`0.5`、`1e-3`）、变量（`x`、`y`、`w1`、`theta`）、常数 `pi` 和 `e`、"
        "运算符 `+ - * /`、乘方 `**` 或 `^`、括号，以及函数 " + FUNCTION_LIST + "。"
        "乘法必须写出 `*`：写 `2*x`，不要写 `2x`。",
    ),
    # ---- the function language ----------------------------------------------------------------
    "expr.not_text": (
        "function: expected text, got {got}.",
        "函数：应为文本，实际得到 {got}。",
    ),
    "expr.empty": (
        "function: the box is empty. Type a function such as x**3 or sin(x)*exp(-x^2).",
        "函数：输入框是空的。请输入一个函数，例如 x**3 或 sin(x)*exp(-x^2)。",
    ),
    "expr.too_long": (
        "function: at most {limit} characters, got {length}. Shorten it; a function that long is "
        "hard to read on a slide anyway.",
        "函数：最多 {limit} 个字符，实际有 {length} 个。请缩短它——这么长的函数放在幻灯片上也难以阅读。",
    ),
    "expr.too_many_nodes": (
        "function: at most {limit} numbers, names and operations, and this one has more. "
        "Split it into smaller pieces.",
        "函数：数字、名称和运算合计最多 {limit} 个，这个函数超出了。请把它拆成更小的部分。",
    ),
    "expr.too_deep": (
        "function: nested more than {limit} levels deep (at column {col}). Remove some "
        "parentheses or signs.",
        "函数：嵌套超过 {limit} 层（第 {col} 列）。请去掉一些括号或正负号。",
    ),
    "expr.invalid": (
        "function: could not be read ({detail}). Check the parentheses and operators.",
        "函数：无法读取（{detail}）。请检查括号和运算符。",
    ),
    "expr.unicode_hint": (
        "function: the character {char} at column {col} is not allowed. Write {fix} instead.",
        "函数：第 {col} 列的字符 {char} 不被接受。请改写为 {fix}。",
    ),
    "expr.invisible": (
        "function: an invisible or control character ({char}) at column {col}. Delete it and "
        "retype that spot; it often comes with copied text.",
        "函数：第 {col} 列有一个不可见字符或控制字符（{char}）。请删掉它并重新输入这一处；"
        "从别处复制的文本常会带上这种字符。",
    ),
    "expr.non_ascii": (
        "function: the character {char} at column {col} is not allowed. Use plain ASCII "
        "letters, digits and + - * / ^ ( ); a letter that looks Latin may be Greek or Cyrillic.",
        "函数：第 {col} 列的字符 {char} 不被接受。请只用英文字母、数字和 + - * / ^ ( )；"
        "看起来像拉丁字母的字符可能其实是希腊或西里尔字母。",
    ),
    "expr.base_prefix": (
        "function: '{text}' at column {col} looks like a hexadecimal, binary or octal number; "
        "only decimal numbers are allowed.",
        "函数：第 {col} 列的 '{text}' 像是十六进制、二进制或八进制数；这里只接受十进制数。",
    ),
    "expr.implicit_mul": (
        "function: '{text}' at column {col} needs an explicit multiplication sign: write {fix}.",
        "函数：第 {col} 列的 '{text}' 缺少乘号：请写成 {fix}。",
    ),
    "expr.literal_too_big": (
        "function: the number {text} at column {col} is too large; numbers may be at most {limit} "
        "in size.",
        "函数：第 {col} 列的数字 {text} 太大；数字的绝对值最多为 {limit}。",
    ),
    "expr.attribute": (
        "function: '{text}' at column {col} uses a dot to reach an attribute; that is Python, "
        "not part of the function language. Write the function directly, e.g. sin(x).",
        "函数：第 {col} 列的 '{text}' 用点号访问属性；这是 Python 语法，不属于函数语言。"
        "请直接写函数，例如 sin(x)。",
    ),
    "expr.stray_dot": (
        "function: a dot at column {col} that is not part of a number. Write decimals as 0.5.",
        "函数：第 {col} 列的点号不属于任何数字。小数请写成 0.5 这样的形式。",
    ),
    "expr.comparison": (
        "function: '{text}' at column {col} is a comparison or test; a function must give a "
        "number. Remove it.",
        "函数：第 {col} 列的 '{text}' 是比较或判断；函数必须给出一个数值。请去掉它。",
    ),
    "expr.assignment": (
        "function: '=' at column {col}. Write only the right-hand side (x**2, not f = x**2); "
        "functions take no keyword arguments.",
        "函数：第 {col} 列出现了 '='。只写等号右边的部分（写 x**2，不要写 f = x**2）；"
        "函数也不接受关键字参数。",
    ),
    "expr.string": (
        "function: a quote ({text}) at column {col}. Text in quotes is not part of the "
        "function language.",
        "函数：第 {col} 列出现了引号（{text}）。函数语言里不能有带引号的文本。",
    ),
    "expr.subscript": (
        "function: '{text}' at column {col}: lists and indexing are not part of the function "
        "language. Use separate variables such as w1, w2.",
        "函数：第 {col} 列出现了 '{text}'：函数语言不支持列表和下标。请使用 w1、w2 这样的独立变量。",
    ),
    "expr.braces": (
        "function: '{text}' at column {col}: braces are not allowed. Group with ( ).",
        "函数：第 {col} 列出现了 '{text}'：不能使用花括号。请用圆括号 ( ) 分组。",
    ),
    "expr.boolean": (
        "function: '{text}' at column {col} is a logical or bitwise operator; they are not "
        "part of the function language. For powers write ** or ^.",
        "函数：第 {col} 列的 '{text}' 是逻辑或位运算符，不属于函数语言。乘方请写 ** 或 ^。",
    ),
    "expr.modulo": (
        "function: '%' at column {col}: the remainder operator is not supported.",
        "函数：第 {col} 列出现了 '%'：不支持取余运算。",
    ),
    "expr.colon": (
        "function: ':' at column {col}: slices, lambdas and annotations are Python, not part "
        "of the function language.",
        "函数：第 {col} 列出现了 ':'：切片、lambda 和注解都是 Python 语法，不属于函数语言。",
    ),
    "expr.statement": (
        "function: '{text}' at column {col} is a Python statement or keyword. Type only a "
        "formula such as x**2 + 1.",
        "函数：第 {col} 列的 '{text}' 是 Python 语句或关键字。请只输入公式，例如 x**2 + 1。",
    ),
    "expr.comment": (
        "function: '#' at column {col}: comments are not allowed. Delete from # onwards.",
        "函数：第 {col} 列出现了 '#'：不允许注释。请删去 # 及其后的内容。",
    ),
    "expr.matmul": (
        "function: '@' at column {col}: matrix products are not supported; use * between numbers.",
        "函数：第 {col} 列出现了 '@'：不支持矩阵乘法；数值相乘请用 *。",
    ),
    "expr.backslash": (
        "function: '\\' at column {col}: LaTeX commands are not accepted as input. Type sqrt(x), "
        "not \\sqrt{{x}}; hograd draws the LaTeX for you.",
        "函数：第 {col} 列出现了 '\\'：不接受 LaTeX 命令作为输入。请写 sqrt(x)，"
        "不要写 \\sqrt{{x}}；LaTeX 由 hograd 自动生成。",
    ),
    "expr.symbol": (
        "function: '{text}' at column {col} is not part of the function language.",
        "函数：第 {col} 列的 '{text}' 不属于函数语言。",
    ),
    "expr.lambda": (
        "function: 'lambda' at column {col}: type the formula itself (x**2), not a Python lambda.",
        "函数：第 {col} 列出现了 'lambda'：请直接输入公式（如 x**2），不要写 Python 的 lambda。",
    ),
    "expr.conditional": (
        "function: '{text}' at column {col}: conditionals are not supported. For a kink use "
        "abs(x) or relu(x).",
        "函数：第 {col} 列出现了 '{text}'：不支持条件表达式。需要折点时可用 abs(x) 或 relu(x)。",
    ),
    "expr.comprehension": (
        "function: '{text}' at column {col}: loops and comprehensions are not part of the "
        "function language.",
        "函数：第 {col} 列出现了 '{text}'：函数语言不支持循环和推导式。",
    ),
    "expr.python_value": (
        "function: '{text}' at column {col} is a Python value, not a number or a variable.",
        "函数：第 {col} 列的 '{text}' 是 Python 的值，既不是数字也不是变量。",
    ),
    "expr.underscore": (
        "function: the name '{text}' at column {col} starts with an underscore; variable names "
        "must start with a letter.",
        "函数：第 {col} 列的名称 '{text}' 以下划线开头；变量名必须以字母开头。",
    ),
    "expr.function_needs_call": (
        "function: '{text}' at column {col} is a function; give it an argument, e.g. {text}(x).",
        "函数：第 {col} 列的 '{text}' 是一个函数，需要参数，例如 {text}(x)。",
    ),
    "expr.unknown_function": (
        "function: '{text}' at column {col} is not a known function. Known functions: {known}.",
        "函数：第 {col} 列的 '{text}' 不是已知函数。可用的函数有：{known}。",
    ),
    "expr.unknown_function_hint": (
        "function: '{text}' at column {col} is not a known function; did you mean {fix}? "
        "Known functions: {known}.",
        "函数：第 {col} 列的 '{text}' 不是已知函数；你是不是想写 {fix}？可用的函数有：{known}。",
    ),
    "expr.name_too_long": (
        "function: the name '{text}' at column {col} is longer than {limit} characters.",
        "函数：第 {col} 列的名称 '{text}' 超过了 {limit} 个字符。",
    ),
    "expr.unknown_variable": (
        "function: the variable '{text}' at column {col} is not allowed here; this page uses {allowed}.",
        "函数：第 {col} 列的变量 '{text}' 在这里不可用；本页只使用 {allowed}。",
    ),
    "expr.too_many_variables": (
        "function: more than {limit} different variables (the last at column {col}).",
        "函数：不同的变量超过了 {limit} 个（最后一个在第 {col} 列）。",
    ),
    "expr.unexpected_end": (
        "function: it ends too early (column {col}); something is missing after the last operator.",
        "函数：在第 {col} 列提前结束了；最后一个运算符后面缺少内容。",
    ),
    "expr.unexpected": (
        "function: '{text}' at column {col} was not expected there. Check for a missing number "
        "or a doubled operator.",
        "函数：第 {col} 列不应出现 '{text}'。请检查是否缺少数字或多写了运算符。",
    ),
    "expr.starred": (
        "function: '*' at column {col} has nothing before it to multiply; starred arguments "
        "are Python, not part of the function language.",
        "函数：第 {col} 列的 '*' 前面没有可乘的内容；带星号的参数是 Python 语法，不属于函数语言。",
    ),
    "expr.unbalanced_close": (
        "function: the ')' at column {col} has no matching '('.",
        "函数：第 {col} 列的 ')' 没有对应的 '('。",
    ),
    "expr.unbalanced_open": (
        "function: the '(' at column {col} is never closed; add a ')'.",
        "函数：第 {col} 列的 '(' 没有闭合；请补上 ')'。",
    ),
    "expr.empty_parens": (
        "function: empty parentheses at column {col}; put an expression inside.",
        "函数：第 {col} 列是一对空括号；请在括号里写上表达式。",
    ),
    "expr.comma": (
        "function: a comma at column {col}. Every function here takes one argument, and "
        "decimals are written with a dot (0.5).",
        "函数：第 {col} 列出现了逗号。这里的每个函数都只有一个参数，小数请用点号（0.5）。",
    ),
    "expr.arity": (
        "function: {text}() at column {col} takes exactly one argument, got {got}.",
        "函数：第 {col} 列的 {text}() 只接受一个参数，实际得到 {got} 个。",
    ),
    "expr.constant_not_finite": (
        "function: the constant part {text} is not a finite number in float64 ({value}). "
        "Use smaller numbers.",
        "函数：常数部分 {text} 在 float64 中不是有限数（{value}）。请使用更小的数。",
    ),
    # ---- budgets and arguments ---------------------------------------------------------------
    "budget.order": (
        "order: expected {low} to {high}, got {got}. {why}",
        "阶数：应在 {low} 到 {high} 之间，实际为 {got}。{why}",
    ),
    "budget.order.why_autograd": (
        "Nested autograd grows the graph about 2.5x per order.",
        "嵌套 autograd 每多求一阶，计算图大约扩大 2.5 倍。",
    ),
    "budget.points": (
        "points: expected 1 to {limit}, got {got}.",
        "点数：应在 1 到 {limit} 之间，实际为 {got}。",
    ),
    "budget.range": (
        "x range: expected two finite numbers with the first smaller than the second and both "
        "within ±{limit}, got {low} to {high}.",
        "x 范围：应为两个有限数，前一个小于后一个，且都在 ±{limit} 以内，实际为 {low} 到 {high}。",
    ),
    "budget.one_variable": (
        "function: this needs a function of one variable, got {names}. Use a single variable "
        "such as x.",
        "函数：这里需要单变量函数，实际有 {names}。请只使用一个变量，例如 x。",
    ),
    "budget.memory": (
        "nested autograd: order {order} on {points} points would build about {nodes} graph "
        "nodes per point, roughly {megabytes} MB, over the {limit} MB budget. Lower the order "
        "or the number of points.",
        "嵌套 autograd：在 {points} 个点上求 {order} 阶导数，每个点约产生 {nodes} 个计算图节点，"
        "约需 {megabytes} MB，超出 {limit} MB 的预算。请降低阶数或减少点数。",
    ),
    "budget.nodes": (
        "nested autograd: order {order} of this function needs more than {limit} graph nodes "
        "per point. Lower the order.",
        "嵌套 autograd：这个函数的 {order} 阶导数每个点需要超过 {limit} 个计算图节点。请降低阶数。",
    ),
    "budget.point_size": (
        "point: expected {expected} numbers (one per variable: {names}), got {got}.",
        "点：应有 {expected} 个数（每个变量一个：{names}），实际有 {got} 个。",
    ),
    "budget.vector_size": (
        "vector: expected {expected} numbers (one per variable: {names}), got {got}.",
        "向量：应有 {expected} 个数（每个变量一个：{names}），实际有 {got} 个。",
    ),
    "budget.not_finite": (
        "{what}: expected finite numbers, got {got}.",
        "{what}：应为有限数，实际为 {got}。",
    ),
    "budget.no_variables": (
        "function: it has no variables, so there is nothing to differentiate. Include a "
        "variable such as x.",
        "函数：其中没有变量，因此没有可以求导的对象。请包含一个变量，例如 x。",
    ),
    "budget.method": (
        "method: expected one of {known}, got {got}.",
        "方法：应为 {known} 之一，实际为 {got}。",
    ),
    "budget.busy": (
        "The server is busy with {slots} other heavy computations. Try again in a moment; "
        "lighter settings (a lower order, fewer points) run at once.",
        "服务器正在处理另外 {slots} 个繁重的计算。请稍后再试；"
        "较轻的设置（更低的阶数、更少的点）可以立即运行。",
    ),
    "budget.job_timeout": (
        "This computation did not finish within {seconds} s and was stopped. The server may be "
        "overloaded; try again in a moment, or with a smaller network or fewer steps.",
        "这个计算没有在 {seconds} 秒内完成，已被停止。服务器可能负载过高；"
        "请稍后再试，或换用更小的网络、更少的训练步数。",
    ),
    "budget.job_failed": (
        "This computation stopped unexpectedly ({detail}). Try again in a moment.",
        "这个计算意外中止了（{detail}）。请稍后再试。",
    ),
    "budget.number": (
        "{what}: '{got}' is not a number.",
        "{what}：'{got}' 不是数字。",
    ),
}
