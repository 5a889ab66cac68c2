"""WGAN-GP on 2-D toy data: the gradient penalty and its create_graph (the WGAN-GP tab)."""
