"""Pure rule engines, one module per game; no I/O, no OpenCV."""
