"""Photo -> board state: locate, rectify, cells, classify, reconstruct. Knows boards, never scoring."""
