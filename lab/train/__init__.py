"""Training the shipped models from the synthetic table: the cell classifiers and orientation models
(``classifier``), the board-mask model (``boards``) and the board-side model (``sides``)."""
