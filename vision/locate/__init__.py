"""Finding boards in a photo: the board-mask model (``mask``) and the board-side model (``sides``) propose
outlines, the boards' own straight edges place them (``edges``), a board's known proportions check them
(``rectangle``), printed corner stickers stand in where a board cannot be found (``stickers``); ``board``
puts these together (:func:`vision.locate.board.locate`)."""
