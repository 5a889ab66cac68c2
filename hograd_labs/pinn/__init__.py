"""The physics-informed network lab (a tab of "Why gradients of gradients")."""
