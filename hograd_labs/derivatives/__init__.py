"""The derivatives lab: f and every derivative of it, a point inspector checked four ways."""
