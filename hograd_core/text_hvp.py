"""English and Chinese strings of the hvp page. Keys are prefixed ``hvp.``."""

TEXT: dict[str, tuple[str, str]] = {
    # ---- the frame ------------------------------------------------------------------------------
    "hvp.title": ("Hessian-vector products and curvature", "Hessian-向量积与曲率"),
    "hvp.lead": (
        "**Hv is the gradient of ∇f·v.** Two backward passes give it, without ever forming the "
        "n × n Hessian H. See what it means on a function you type, then on a real neural "
        "network with thousands of parameters.",
        "**Hv 就是 ∇f·v 的梯度。** 只需两次反向传播就能得到它，完全不必构造 n × n 的 "
        "Hessian 矩阵 H。先在你输入的函数上看清它的含义，再到一个有成千上万个参数的真实神经网络上试一试。",
    ),
    "hvp.mode": ("Explore", "探索对象"),
    "hvp.mode.typed": ("A typed function", "输入的函数"),
    "hvp.mode.network": ("A neural network", "神经网络"),
    # ---- typed function: inputs -----------------------------------------------------------------
    "hvp.fn.label": ("Function f of 1 to 10 variables", "函数 f（1 到 10 个变量）"),
    "hvp.kappa.label": ("Quadratic with condition number κ", "条件数为 κ 的二次函数"),
    "hvp.kappa.help": (
        "Sets f to ((x+y)² + κ(y−x)²)/4: eigenvalues 1 and κ, along the two diagonals.",
        "把 f 设为 ((x+y)² + κ(y−x)²)/4：两个特征值为 1 和 κ，特征向量沿两条对角线。",
    ),
    "hvp.point": ("Point p", "点 p"),
    "hvp.vector": ("Direction v", "方向 v"),
    "hvp.radius": ("Window: p ± r", "窗口：p ± r"),
    "hvp.reset": ("Reset p and v", "重置 p 和 v"),
    # ---- typed function: summary ----------------------------------------------------------------
    "hvp.metric.value": ("Value f(p)", "函数值 f(p)"),
    "hvp.metric.grad_norm": ("Gradient size |∇f(p)|", "梯度大小 |∇f(p)|"),
    "hvp.metric.curvature": ("Curvature along v", "沿 v 的曲率"),
    "hvp.metric.curvature.help": (
        "vᵀHv / |v|², the second derivative of f along the unit vector v/|v|: how fast the "
        "slope changes as you walk through p in the direction of v.",
        "vᵀHv / |v|²，即 f 沿单位向量 v/|v| 的二阶导数：沿 v 的方向走过 p 时，坡度变化得有多快。",
    ),
    "hvp.metric.verdict": ("Second-derivative test", "二阶导数判别法"),
    "hvp.metric.verdict.help": (
        "The test classifies a critical point (∇f = 0) from the signs of the Hessian's "
        "eigenvalues; where ∇f ≠ 0 there is nothing to classify.",
        "判别法根据 Hessian 特征值的符号对临界点（∇f = 0）分类；在 ∇f ≠ 0 的点上无可分类。",
    ),
    "hvp.kind.minimum": ("minimum", "极小值"),
    "hvp.kind.maximum": ("maximum", "极大值"),
    "hvp.kind.saddle": ("saddle", "鞍点"),
    "hvp.kind.degenerate": ("test fails", "判别失效"),
    "hvp.kind.not_critical": ("not critical", "非临界点"),
    "hvp.col.point": ("point p", "点 p"),
    "hvp.col.vector": ("direction v", "方向 v"),
    "hvp.col.gradient": ("gradient ∇f(p)", "梯度 ∇f(p)"),
    "hvp.col.hv": ("Hessian-vector product Hv", "Hessian-向量积 Hv"),
    "hvp.table.caption": (
        "Hv is computed by double backward, g = grad(f, w, create_graph=True), then "
        "Hv = grad(g·v, w). Computed in {ms} ms.",
        "Hv 由二次反向传播求得：先 g = grad(f, w, create_graph=True)，再 Hv = grad(g·v, w)。"
        "用时 {ms} 毫秒。",
    ),
    # ---- typed function: tabs -------------------------------------------------------------------
    "hvp.tab.picture": ("Picture", "图像"),
    "hvp.tab.hessian": ("Hessian and eigenvalues", "Hessian 与特征值"),
    "hvp.tab.ways": ("Hv three ways", "Hv 的三种算法"),
    "hvp.tab.slices": ("Slices", "切片"),
    "hvp.tab.power": ("Power iteration", "幂迭代"),
    # picture
    "hvp.picture.surface": ("Show the 3-D surface", "显示三维曲面"),
    "hvp.picture.caption": (
        "Arrows start at p. ∇f is scaled to fit; v and Hv share one scale, so you see how H "
        "stretches and turns v. Dashed lines: the eigenvector axes. Click a spot on the plot to "
        "move p there.",
        "箭头都从 p 出发。∇f 按比例缩放以便显示；v 和 Hv 使用同一比例，因此能看出 H 怎样拉伸并旋转 v。"
        "虚线是特征向量的方向轴。点击图上某处可把 p 移到那里。",
    ),
    "hvp.picture.need_two": (
        "The picture needs a function of exactly two variables; this one has {n}. The Hessian, "
        "Hv, slices and power iteration in the other tabs work for any number.",
        "图像只适用于恰好两个变量的函数，而这个函数有 {n} 个变量。其他标签页里的 Hessian、Hv、"
        "切片和幂迭代适用于任意个变量。",
    ),
    "hvp.fig.f": ("value of f", "f 的值"),
    "hvp.fig.log_f": ("log scale: log₁₀(1 + f)", "对数刻度：log₁₀(1 + f)"),
    "hvp.fig.scales": (
        "arrows: ∇f × {g}, v and Hv × {v}",
        "箭头比例：∇f × {g}，v 与 Hv × {v}",
    ),
    "hvp.fig.scales_no_gradient": (
        "∇f = 0 here; arrows v and Hv × {v}",
        "这里 ∇f = 0；箭头比例：v 与 Hv × {v}",
    ),
    "hvp.fig.pick": ("click to move p", "点击以移动 p"),
    # hessian
    "hvp.hessian.title": ("Hessian H = ∇²f(p)", "Hessian 矩阵 H = ∇²f(p)"),
    "hvp.eigen.title": ("Eigenvalues and eigenvectors", "特征值与特征向量"),
    "hvp.eigen.value": ("eigenvalue λ", "特征值 λ"),
    "hvp.eigen.vector": (
        "Each row: an eigenvalue λ and its unit eigenvector e, one component per variable.",
        "每一行是一个特征值 λ 及其单位特征向量 e，每个变量对应一个分量。",
    ),
    "hvp.verdict.shape": ("Shape of the curvature: {kind}.", "曲率的形状：{kind}。"),
    "hvp.verdict.minimum": ("Minimum.", "极小值。"),
    "hvp.verdict.maximum": ("Maximum.", "极大值。"),
    "hvp.verdict.saddle": ("Saddle.", "鞍点。"),
    "hvp.verdict.degenerate": ("Degenerate.", "退化。"),
    "hvp.reason.positive_definite": (
        "All {n} eigenvalues are positive: H is positive definite, so f curves upward in every "
        "direction.",
        "全部 {n} 个特征值都为正：H 正定，f 在每个方向上都向上弯曲。",
    ),
    "hvp.reason.negative_definite": (
        "All {n} eigenvalues are negative: H is negative definite, so f curves downward in every "
        "direction.",
        "全部 {n} 个特征值都为负：H 负定，f 在每个方向上都向下弯曲。",
    ),
    "hvp.reason.indefinite": (
        "{pos} positive and {neg} negative eigenvalues: H is indefinite, so f curves up along "
        "some directions and down along others.",
        "有 {pos} 个正特征值和 {neg} 个负特征值：H 不定，f 在某些方向上向上弯、在另一些方向上向下弯。",
    ),
    "hvp.reason.zero_eigenvalue": (
        "The test fails: {zero} eigenvalue(s) are zero (|λ| ≤ {tol}), so the quadratic terms "
        "cannot decide. Higher-order terms do: x⁴ + y⁴ has a minimum at 0, x⁴ − y⁴ a saddle, "
        "and x³ + y² neither.",
        "判别法失效：有 {zero} 个特征值为零（|λ| ≤ {tol}），二次项无法作出判断，要看更高阶的项："
        "x⁴ + y⁴ 在 0 处是极小值，x⁴ − y⁴ 是鞍点，x³ + y² 则两者都不是。",
    ),
    "hvp.reason.not_finite": (
        "The test fails: the Hessian is not finite at p (f or one of its derivatives is "
        "undefined there).",
        "判别法失效：H 在 p 处不是有限值（f 或它的某个导数在这里没有定义）。",
    ),
    "hvp.verdict.critical": (
        "∇f = 0 here: p is a critical point, so the test applies.",
        "这里 ∇f = 0：p 是临界点，判别法适用。",
    ),
    "hvp.verdict.not_critical": (
        "But ∇f ≠ 0 here (|∇f| = {norm}): p is not a critical point, and the test only "
        "classifies points where the gradient vanishes. The eigenvalues still tell how f bends "
        "around p.",
        "但这里 ∇f ≠ 0（|∇f| = {norm}）：p 不是临界点，而判别法只能对梯度为零的点作判断。"
        "不过特征值仍然说明了 f 在 p 附近怎样弯曲。",
    ),
    "hvp.verdict.minors": (
        "Leading principal minors (Sylvester's criterion): {minors}. A minimum needs all of "
        "them positive; a maximum needs their signs to alternate −, +, −, …",
        "顺序主子式（Sylvester 判据）：{minors}。极小值要求它们全为正；"
        "极大值要求符号依次为 −、+、−、……",
    ),
    "hvp.verdict.minors_two": (
        "For two variables this is the textbook test with D = f₁₁·f₂₂ − f₁₂² = {det}: "
        "D > 0 and f₁₁ > 0 gives a minimum, D > 0 and f₁₁ < 0 a maximum, D < 0 a saddle, and "
        "D = 0 decides nothing.",
        "对两个变量，这就是教科书上的判别法，D = f₁₁·f₂₂ − f₁₂² = {det}："
        "D > 0 且 f₁₁ > 0 为极小值，D > 0 且 f₁₁ < 0 为极大值，D < 0 为鞍点，D = 0 则无法判断。",
    ),
    # three ways
    "hvp.ways.intro": (
        "The same Hv by three PyTorch routes. Each is checked against H·v (H built row by "
        "row) and timed: {repeats} calls of each, interleaved, median time.",
        "用三种 PyTorch 路径求同一个 Hv。每种结果都与 H·v（逐行构造出的 H）比对，并计时："
        "每种调用 {repeats} 次、交替进行，取中位数。",
    ),
    "hvp.ways.method": ("method", "方法"),
    "hvp.ways.hv": ("result Hv", "结果 Hv"),
    "hvp.ways.error": ("largest |error| vs H·v", "与 H·v 的最大误差"),
    "hvp.ways.time": ("time per call (µs)", "每次用时（微秒）"),
    "hvp.ways.relative": ("× fastest", "× 最快者"),
    "hvp.method.double_backward": ("double backward: grad(∇f·v)", "二次反向传播：grad(∇f·v)"),
    "hvp.method.forward_over_reverse": (
        "forward-over-reverse: jvp(grad(f))",
        "前向套反向：jvp(grad(f))",
    ),
    "hvp.method.functional_hvp": (
        "autograd.functional.hvp (double-backward trick)",
        "autograd.functional.hvp（二次反向技巧）",
    ),
    "hvp.ways.note": (
        "There is no `torch.func.hvp`. PyTorch's documentation warns that "
        "`autograd.functional.hvp` is slow: it turns a vector-Jacobian product into Hv by "
        "differentiating once more (the double-backward trick). On a function this small the "
        "times are mostly Python overhead, and which route wins depends on the function: "
        "measure your own.",
        "PyTorch 没有 `torch.func.hvp`。PyTorch 文档提醒 `autograd.functional.hvp` 较慢："
        "它通过再求一次导，把向量-雅可比积变成 Hv（即“二次反向技巧”）。"
        "函数这么小时，耗时主要是 Python 的开销；哪种方法更快取决于具体函数，请用你自己的函数来测。",
    ),
    "hvp.code.kept": ("∇f, kept on the graph", "∇f，保留在计算图上"),
    "hvp.code.one": ("double backward", "二次反向传播"),
    "hvp.code.two": ("forward-over-reverse", "前向套反向"),
    "hvp.code.three": (
        "autograd.functional (slow, say the docs)",
        "autograd.functional（文档说它较慢）",
    ),
    # slices
    "hvp.slices.intro": (
        "f along each eigenvector e through p (solid), and the quadratic model "
        "f(p) + t ∇f·e + ½ λ t² that the gradient and Hessian predict (dashed). They agree near "
        "t = 0; where they part, higher-order terms take over.",
        "实线是 f 沿经过 p 的各特征向量 e 的取值，虚线是由梯度和 Hessian 预测的二次模型 "
        "f(p) + t ∇f·e + ½ λ t²。两者在 t = 0 附近吻合；分开的地方，就是更高阶项开始起作用的地方。",
    ),
    "hvp.fig.slice_f": ("f along e: f(p + t e)", "f 沿 e 的取值：f(p + t e)"),
    "hvp.fig.slice_model": ("quadratic model", "二次模型"),
    "hvp.fig.t": ("t (distance along e)", "t（沿 e 的距离）"),
    # power iteration
    "hvp.power.intro": (
        "Power iteration needs nothing but Hv: start from u₀ = v/|v| and repeat "
        "u ← Hu/|Hu|. The Rayleigh quotient uᵀHu converges to the eigenvalue of largest size, "
        "λ = {target}; the error shrinks by about |λ₂/λ₁| = {ratio} per step.",
        "幂迭代只需要 Hv：从 u₀ = v/|v| 出发，反复执行 u ← Hu/|Hu|。"
        "Rayleigh 商 uᵀHu 会收敛到绝对值最大的特征值 λ = {target}；"
        "误差每一步大约缩小为原来的 |λ₂/λ₁| = {ratio} 倍。",
    ),
    "hvp.power.rayleigh_at": ("Rayleigh quotient after {k} steps", "{k} 步后的 Rayleigh 商"),
    "hvp.power.target": ("Largest |λ| (from H)", "绝对值最大的 λ（由 H 求得）"),
    "hvp.power.alignment": (
        "Alignment |uₖ · e| (1 = aligned)",
        "对齐程度 |uₖ · e|（1 为完全一致）",
    ),
    "hvp.power.converged": (
        "Converged to 1e-6 at step {k}.",
        "在第 {k} 步收敛到 1e-6 以内。",
    ),
    "hvp.power.not_converged": (
        "Not converged to 1e-6 within {steps} steps.",
        "在 {steps} 步之内没有收敛到 1e-6 以内。",
    ),
    "hvp.power.tie": (
        "|λ₂| = |λ₁|: no direction wins, so power iteration does not converge. The saddle "
        "x² − y² is the classic case: λ = 2 and −2.",
        "|λ₂| = |λ₁|：没有哪个方向占优，所以幂迭代不会收敛。鞍面 x² − y² 就是典型例子：λ = 2 和 −2。",
    ),
    "hvp.power.zero_start": (
        "v = 0: power iteration needs a nonzero start vector. Move a slider of v.",
        "v = 0：幂迭代需要一个非零的初始向量。请拖动 v 的滑块。",
    ),
    "hvp.power.hv_zero": (
        "Hu = 0: u lies where H has no curvature (for x⁴ + y⁴ at 0, H is the zero matrix), so "
        "there is nothing to iterate.",
        "Hu = 0：u 所在的方向上 H 没有曲率（例如 x⁴ + y⁴ 在 0 处，H 是零矩阵），因此无从迭代。",
    ),
    "hvp.power.not_finite": (
        "Hu is not finite at p: f or one of its derivatives is undefined there.",
        "Hu 在 p 处不是有限值：f 或它的某个导数在这里没有定义。",
    ),
    "hvp.fig.direction": ("Direction uₖ", "方向 uₖ"),
    "hvp.fig.power_title": (
        "step {k}: Rayleigh quotient {r}, alignment |uₖ · e| = {a}",
        "第 {k} 步：Rayleigh 商 {r}，对齐程度 |uₖ · e| = {a}",
    ),
    "hvp.fig.play": ("Play", "播放"),
    "hvp.fig.pause": ("Pause", "暂停"),
    "hvp.fig.rayleigh": ("Rayleigh quotient", "Rayleigh 商"),
    "hvp.fig.target": ("λ of largest size", "绝对值最大的 λ"),
    "hvp.fig.step": ("step k", "步数 k"),
    "hvp.fig.component": ("component of uₖ", "uₖ 的分量"),
    # ---- neural network -------------------------------------------------------------------------
    "hvp.net.intro": (
        "A small tanh MLP, trained here in a few seconds. Its loss depends on all n weights, "
        "so H is n × n; everything below comes from Hessian-vector products on one kept "
        "gradient graph. H itself is built only for n ≤ {limit}, as the check.",
        "一个小型 tanh 多层感知机，在这里用几秒钟训练完成。它的损失依赖全部 n 个权重，"
        "所以 H 是 n × n 的；下面的一切都来自在同一张保留下来的梯度计算图上做的 Hessian-向量积。"
        "只有当 n ≤ {limit} 时才会真正构造 H，用来核对结果。",
    ),
    "hvp.net.dataset": ("Data", "数据"),
    "hvp.net.dataset.digits": ("Digits: 8×8 images, 10 classes", "手写数字：8×8 图像，10 类"),
    "hvp.net.dataset.moons": ("Two moons: 2-D points, 2 classes", "双月形：二维点，2 类"),
    "hvp.net.layers": ("Hidden layers", "隐藏层数"),
    "hvp.net.width": ("Hidden width", "隐藏层宽度"),
    "hvp.net.steps": ("Training steps (Adam)", "训练步数（Adam）"),
    "hvp.net.seed": ("Seed", "随机种子"),
    "hvp.net.top_k": ("Lanczos eigenvalues", "Lanczos 特征值个数"),
    "hvp.net.power_steps": ("Power-iteration steps", "幂迭代步数"),
    "hvp.net.probes": ("Hutchinson probes", "Hutchinson 样本数"),
    "hvp.net.train": ("Train and analyse", "训练并分析"),
    "hvp.net.size": (
        "{n} parameters: {shape}. The full Hessian would have {n}² = {entries} entries.",
        "{n} 个参数：{shape}。完整的 Hessian 将有 {n}² = {entries} 个元素。",
    ),
    "hvp.net.training": (
        "Training: step {step} of {total}, loss {loss}",
        "训练中：第 {step} / {total} 步，损失 {loss}",
    ),
    "hvp.net.analysing": (
        "Lanczos, power iteration and Hutchinson: Hessian-vector products only…",
        "正在运行 Lanczos、幂迭代和 Hutchinson：只用 Hessian-向量积……",
    ),
    "hvp.net.metric.parameters": ("Parameters n", "参数个数 n"),
    "hvp.net.metric.accuracy": ("Held-out accuracy", "留出集准确率"),
    "hvp.net.metric.loss": ("Loss on {m} examples", "{m} 个样本上的损失"),
    "hvp.net.metric.time": ("Training: {steps} steps", "训练：{steps} 步"),
    "hvp.net.stopped": (
        "Training stopped after {steps} of {total} steps: the cap of {limit} s keeps the shared "
        "server responsive.",
        "训练在 {total} 步中的第 {steps} 步停止：{limit} 秒的上限是为了让共享服务器保持流畅。",
    ),
    "hvp.net.tab.top": ("Top eigenvalue", "最大特征值"),
    "hvp.net.tab.trace": ("Trace (Hutchinson)", "迹（Hutchinson）"),
    "hvp.net.tab.sharp": ("Sharp vs flat", "陡峭与平坦"),
    "hvp.net.tab.hessian": ("Full Hessian", "完整 Hessian"),
    "hvp.net.tab.training": ("Training", "训练过程"),
    "hvp.net.col.method": ("method", "方法"),
    "hvp.net.col.estimate": ("top eigenvalue", "最大特征值"),
    "hvp.net.col.hvps": ("HVPs", "HVP 次数"),
    "hvp.net.col.time": ("time (ms)", "用时（毫秒）"),
    "hvp.net.col.error": ("relative error", "相对误差"),
    "hvp.net.method.lanczos": ("Lanczos (scipy eigsh)", "Lanczos 方法（scipy eigsh）"),
    "hvp.net.method.power": ("Power iteration, {steps} steps", "幂迭代，{steps} 步"),
    "hvp.net.method.exact": ("Full Hessian (numpy eigvalsh)", "完整 Hessian（numpy eigvalsh）"),
    "hvp.net.error_vs_exact": (
        "Errors are relative to the exact top eigenvalue of the full Hessian.",
        "误差相对于完整 Hessian 的精确最大特征值计算。",
    ),
    "hvp.net.error_vs_lanczos": (
        "Above {limit} parameters there is no full Hessian: errors are relative to Lanczos, "
        "whose residual bounds its own error.",
        "参数超过 {limit} 个时不构造完整 Hessian：误差相对于 Lanczos 的结果计算，"
        "而 Lanczos 自身的误差由它的残差界定。",
    ),
    "hvp.net.topk": (
        "Top {k} eigenvalues by Lanczos: {values}",
        "Lanczos 求出的前 {k} 个特征值：{values}",
    ),
    "hvp.net.cost": (
        "One gradient: {grad} ms. One more HVP on the kept gradient graph: {hvp} ms, {ratio}× "
        "a gradient, because only the second backward pass is repeated (a whole HVP from "
        "scratch costs about 2 to 3 gradients; see benchmarks/hvp.py).",
        "一次梯度：{grad} 毫秒。在保留的梯度计算图上再做一次 HVP：{hvp} 毫秒，是梯度的 {ratio} 倍，"
        "因为只需重复第二次反向传播（从头完整计算一次 HVP 约相当于 2 到 3 次梯度；见 benchmarks/hvp.py）。",
    ),
    "hvp.net.residual": (
        "Residual |Hu − λu| / |λ|: Lanczos {lanczos}, power iteration {power}. H has an "
        "eigenvalue within this relative distance of each estimate.",
        "残差 |Hu − λu| / |λ|：Lanczos 为 {lanczos}，幂迭代为 {power}。"
        "H 必有一个特征值落在各估计值的这个相对距离之内。",
    ),
    "hvp.net.power_note": (
        "Power iteration converges at the rate |λ₂/λ₁| per step: when the top eigenvalues are "
        "close, 20 steps stay well below λ₁. Lanczos spends the same HVPs far better.",
        "幂迭代每步按 |λ₂/λ₁| 的比率收敛：如果最大的几个特征值很接近，20 步后仍会明显低于 λ₁。"
        "同样多次的 HVP，Lanczos 用得有效得多。",
    ),
    "hvp.fig.power_net": ("power iteration", "幂迭代"),
    "hvp.fig.lanczos": ("Lanczos (eigsh)", "Lanczos 方法（eigsh）"),
    "hvp.fig.exact": ("exact (full Hessian)", "精确值（完整 Hessian）"),
    "hvp.fig.eigenvalue": ("top eigenvalue estimate", "最大特征值的估计"),
    "hvp.net.trace.intro": (
        "Hutchinson's estimator: for z with random ±1 entries, E[zᵀHz] = tr H. Each probe costs "
        "one HVP, and the error bar shrinks like 1/√m.",
        "Hutchinson 估计：对各分量随机取 ±1 的向量 z，有 E[zᵀHz] = tr H。"
        "每个探测向量花费一次 HVP，误差条按 1/√m 缩小。",
    ),
    "hvp.net.trace.estimate": (
        "tr H ≈ {trace} ± {error} (±2 standard errors, {m} probes)",
        "tr H ≈ {trace} ± {error}（±2 倍标准误，{m} 个探测向量）",
    ),
    "hvp.net.trace.exact": (
        "Exact trace (full Hessian): {exact}",
        "精确的迹（完整 Hessian）：{exact}",
    ),
    "hvp.fig.running": ("running estimate", "累计估计"),
    "hvp.fig.band": ("± 2 standard errors", "± 2 倍标准误"),
    "hvp.fig.probes": ("probes m", "探测向量个数 m"),
    "hvp.fig.trace": ("trace estimate", "迹的估计"),
    "hvp.net.sharp.intro": (
        "The loss rises fastest along the top eigenvector (curvature λ_max = {lam}). Along a "
        "random direction the curvature is dᵀHd, on average tr H / n = {mean}: nearly flat.",
        "沿最大特征向量方向，损失上升最快（曲率 λ_max = {lam}）。沿随机方向的曲率是 dᵀHd，"
        "平均为 tr H / n = {mean}：几乎是平的。",
    ),
    "hvp.fig.top_direction": ("top eigenvector", "最大特征向量"),
    "hvp.fig.random_direction": ("random direction", "随机方向"),
    "hvp.fig.quadratic": ("quadratic model, top", "二次模型（最大特征向量）"),
    "hvp.fig.alpha": ("α: distance from θ in parameter space", "α：参数空间中离 θ 的距离"),
    "hvp.fig.loss": ("loss", "损失"),
    "hvp.net.hessian.caption": (
        "The full {n} × {n} Hessian, {n} HVPs (one per row) in {seconds} s. Each cell shows "
        "the entry of largest size in its {b} × {b} block; lines separate the weights and "
        "biases of each layer.",
        "完整的 {n} × {n} Hessian，用 {n} 次 HVP（每行一次）在 {seconds} 秒内求得。"
        "每个格子显示其 {b} × {b} 块中绝对值最大的元素；线条分隔各层的权重和偏置。",
    ),
    "hvp.net.hessian.caption_full": (
        "The full {n} × {n} Hessian, {n} HVPs (one per row) in {seconds} s. Lines separate the "
        "weights and biases of each layer.",
        "完整的 {n} × {n} Hessian，用 {n} 次 HVP（每行一次）在 {seconds} 秒内求得。"
        "线条分隔各层的权重和偏置。",
    ),
    "hvp.net.too_big": (
        "Above {limit} parameters the full Hessian is not built: this model has {n}.",
        "参数超过 {limit} 个时不构造完整 Hessian：这个模型有 {n} 个参数。",
    ),
    "hvp.net.memory.full": ("Full Hessian (float64)", "完整 Hessian（float64）"),
    "hvp.net.memory.hvp": ("One HVP (θ, g, v, Hv)", "一次 HVP（θ、g、v、Hv）"),
    "hvp.net.memory.help": (
        "n² × 8 bytes against 4 × n × 8 bytes, plus the activations of one forward pass. That "
        "is why large networks never form H. For scale: 100,000 parameters need 80 GB in "
        "float64 (40 GB in float32).",
        "n² × 8 字节对比 4 × n × 8 字节，外加一次前向传播的激活值。这就是大型网络从不构造 H 的原因。"
        "作个比较：100,000 个参数在 float64 下需要 80 GB（float32 下需要 40 GB）。",
    ),
    "hvp.fig.layer_loss": ("mini-batch loss", "小批量损失"),
    "hvp.fig.training_step": ("training step", "训练步数"),
    "hvp.fig.net_hessian": ("H entry", "H 的元素"),
    # ---- errors of the core (curvature.py, network.py, hvp.py) ----------------------------------
    "hvp.budget.variables": (
        "function: at most {limit} variables for the Hessian, got {got}. The page draws an "
        "n × n matrix and n sliders each for p and v.",
        "函数：求 Hessian 时最多 {limit} 个变量，实际有 {got} 个。页面要画 n × n 的矩阵，"
        "并为 p 和 v 各放 n 个滑块。",
    ),
    "hvp.budget.too_large": (
        "{what}: every number must be at most {limit} in size, got {got}.",
        "{what}：每个数的绝对值最多为 {limit}，实际为 {got}。",
    ),
    "hvp.budget.steps": (
        "power iteration steps: expected 1 to {high}, got {got}. Each step is one "
        "Hessian-vector product, and every example here converges long before {high}.",
        "幂迭代步数：应在 1 到 {high} 之间，实际为 {got}。每一步是一次 Hessian-向量积，"
        "这里的每个例子都远在 {high} 步之前就已收敛。",
    ),
    "hvp.budget.repeats": (
        "timing repeats: expected 1 to {high}, got {got}. More repeats only make the page slower.",
        "计时重复次数：应在 1 到 {high} 之间，实际为 {got}。再多只会让页面变慢。",
    ),
    "hvp.budget.radius": (
        "window half-width r: expected a number above 0 and at most {high}, got {got}.",
        "窗口半宽 r：应大于 0 且不超过 {high}，实际为 {got}。",
    ),
    "hvp.budget.samples": (
        "slice samples: expected 3 to {high}, got {got}.",
        "切片采样点数：应在 3 到 {high} 之间，实际为 {got}。",
    ),
    "hvp.budget.grid": (
        "grid points per side: expected 5 to {high}, got {got}; the grid costs their square in "
        "evaluations of f.",
        "网格每边的点数：应在 5 到 {high} 之间，实际为 {got}；网格需要计算 f 的次数是它的平方。",
    ),
    "hvp.budget.two_variables": (
        "contour picture: needs a function of exactly two variables, got {got}.",
        "等高线图：需要恰好两个变量的函数，实际有 {got} 个。",
    ),
    "hvp.net.dataset_unknown": (
        "data set: expected one of {known}, got '{got}'.",
        "数据集：应为 {known} 之一，实际为 '{got}'。",
    ),
    "hvp.net.budget.layers": (
        "hidden layers: expected 1 to {high}, got {got}. Training time grows with depth and must "
        "stay a few seconds on a shared server.",
        "隐藏层数：应在 1 到 {high} 之间，实际为 {got}。训练时间随深度增长，而在共享服务器上必须保持在几秒之内。",
    ),
    "hvp.net.budget.width": (
        "hidden width: expected 1 to {high}, got {got}. Training time grows with width.",
        "隐藏层宽度：应在 1 到 {high} 之间，实际为 {got}。训练时间随宽度增长。",
    ),
    "hvp.net.budget.steps": (
        "training steps: expected 1 to {high}, got {got}. Training must take seconds, not "
        "minutes (it also stops after {seconds} s).",
        "训练步数：应在 1 到 {high} 之间，实际为 {got}。训练必须在几秒内完成，而不是几分钟"
        "（超过 {seconds} 秒也会自动停止）。",
    ),
    "hvp.net.budget.batch": (
        "batch size: expected 1 to {high}, got {got}. Each step costs time in proportion.",
        "批大小：应在 1 到 {high} 之间，实际为 {got}。每一步的耗时与它成正比。",
    ),
    "hvp.net.budget.learning_rate": (
        "learning rate: expected {low} to {high}, got {got}. Adam diverges above this.",
        "学习率：应在 {low} 到 {high} 之间，实际为 {got}。超过这个值 Adam 会发散。",
    ),
    "hvp.net.budget.parameters": (
        "network: {got} parameters, over the limit of {limit}. Training and Lanczos must finish "
        "in seconds on a shared 2-core server; use fewer or narrower hidden layers.",
        "网络：有 {got} 个参数，超过了 {limit} 的上限。训练和 Lanczos 必须在共享的双核服务器上"
        "几秒内完成；请减少隐藏层的层数或宽度。",
    ),
    "hvp.net.budget.top_k": (
        "Lanczos eigenvalues: expected 1 to {high}, got {got}. Each one needs more HVPs.",
        "Lanczos 特征值个数：应在 1 到 {high} 之间，实际为 {got}。每多求一个都需要更多的 HVP。",
    ),
    "hvp.net.budget.power_steps": (
        "power-iteration steps: expected 1 to {high}, got {got}. Each step is one HVP.",
        "幂迭代步数：应在 1 到 {high} 之间，实际为 {got}。每一步是一次 HVP。",
    ),
    "hvp.net.budget.probes": (
        "Hutchinson probes: expected 2 to {high}, got {got}. Each probe is one HVP.",
        "Hutchinson 探测向量个数：应在 2 到 {high} 之间，实际为 {got}。每个探测向量是一次 HVP。",
    ),
    "hvp.net.budget.hvps": (
        "analysis: with {n} parameters, power-iteration steps and Hutchinson probes may add up "
        "to {most}, got {got}. Each is one Hessian-vector product, and on a model this size one "
        "costs tens of milliseconds.",
        "分析：模型有 {n} 个参数时，幂迭代步数与 Hutchinson 探测向量个数之和最多为 {most}，实际为 {got}。"
        "每一步、每个探测向量都是一次 Hessian-向量积，而在这么大的模型上，一次就要几十毫秒。",
    ),
    "hvp.net.budget.seconds": (
        "analysis: these settings would take about {seconds} s here (one Hessian-vector product "
        "takes {hvp_ms} ms on this server right now, and they need about {hvps}), and the "
        "analysis may take {limit} s, so that one click, training included, stays under 2 s "
        "and the server keeps answering everyone. Lower power-iteration steps plus Hutchinson "
        "probes to at most {most} (now {got}), or choose a smaller model.",
        "分析：按这些设置，在这里大约需要 {seconds} 秒（此刻这台服务器上一次 Hessian-向量积要 "
        "{hvp_ms} 毫秒，而这些设置大约需要 {hvps} 次），而分析最多只能用 {limit} 秒，"
        "这样一次点击连同训练不超过 2 秒，服务器也能继续响应每个人。请把幂迭代步数与 Hutchinson "
        "探测向量个数之和降到 {most} 以内（现在是 {got}），或换一个更小的模型。",
    ),
    "hvp.net.full_skipped": (
        "The full {n} × {n} Hessian was not built this time: its {n} HVPs would take about "
        "{seconds} s more on this server, past the 2 s one click may take. A smaller model "
        "leaves room for it.",
        "这次没有构造完整的 {n} × {n} Hessian：它需要的 {n} 次 HVP 在这台服务器上还要大约 "
        "{seconds} 秒，超出了一次点击允许的 2 秒。换一个更小的模型，就能为它留出时间。",
    ),
    "hvp.net.error_vs_lanczos_time": (
        "Without the full Hessian this time, errors are relative to Lanczos, whose residual "
        "bounds its own error.",
        "这次没有完整 Hessian，误差相对于 Lanczos 的结果计算，而 Lanczos 自身的误差由它的残差界定。",
    ),
    "hvp.net.budget.full_hessian": (
        "full Hessian: {got} parameters, over the limit of {limit}; it would need {gigabytes} GB. "
        "Use Hessian-vector products (Lanczos, Hutchinson) instead.",
        "完整 Hessian：有 {got} 个参数，超过了 {limit} 的上限；它需要 {gigabytes} GB 内存。"
        "请改用 Hessian-向量积（Lanczos、Hutchinson）。",
    ),
    "hvp.net.budget.vector_size": (
        "vector: expected {expected} numbers (one per parameter), got {got}.",
        "向量：应有 {expected} 个数（每个参数一个），实际有 {got} 个。",
    ),
}
