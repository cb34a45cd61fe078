"""The engine's per-page stages as compiled code (Cython, built by ``make install``)."""
