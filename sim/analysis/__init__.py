"""``cubenoc analyze FAMILY``: the papers' analyses (docs/papers/).

Per family with a long analysis: ``<family>_formulas.py`` holds the paper's formulas (one function per
equation, citing it) and its printed tables, ``<family>_measure.py`` the computations on the explicit
networks and the data of the paper's tables and figures, ``<family>.py`` the command (``add_arguments``,
``analyze``: options, text, JSON, plots). ``metacube.py`` and ``safety.py`` are short enough to be one
module each; ``report.py`` is the shared result type and table printer.
"""
