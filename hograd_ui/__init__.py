"""hograd_ui: presentation. The plotly figure builders (the
plotting kit :mod:`.plot_kit`, built fast by :mod:`.plotting`), the DOT drawings of traced
tensors (:mod:`.tensor_drawing`), and the translation loader (:mod:`.i18n`, reading ``locales/*.toml``).

It imports hograd_serving and hograd_core; neither imports it. No computation here: a figure
builder turns a result of the core into a chart, in the language it is given.
"""
