"""hograd_ui: presentation. The plotly figure builders (:mod:`.derivative_figures`,
:mod:`.graph_figures`, :mod:`.hvp_figures`, built fast by :mod:`.plotting`), the DOT drawing of
the graph page, and the translation loader (:mod:`.i18n`, reading ``locales/*.toml``).

It imports hograd_serving and hograd_core; neither imports it. No computation here: a figure
builder turns a result of the core into a chart, in the language it is given.
"""
