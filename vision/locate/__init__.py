"""Finding boards in a photo: the board-mask model (``mask``), the board-side model (``sides``), the
boards' own edges and rectangles (``board``, ``rectangle``), and printed corner stickers (``stickers``)."""
