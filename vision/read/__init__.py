"""Reading a located board: rectify it, cut its cells, classify them, orient the board, settle the
readings into one consistent board (``reconstruct``) and normalise its colour."""
