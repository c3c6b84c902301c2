"""The lab: what garden-scorer is built and measured with, kept apart from the product a table runs.

The synthetic table (``synth``), training (``train``), the benchmarks (``bench``), the reliability harnesses
(``reliability``) and the page screenshots; ``garden-scorer-lab`` is its command (``lab.cli``). It imports the
product; no product module imports it.
"""
