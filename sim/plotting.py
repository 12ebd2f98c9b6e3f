"""One place every plot, figure and report picture gets matplotlib from."""


def pyplot():
    """matplotlib's ``pyplot`` on the file-only Agg backend: every plot, figure and page picture draws with it.
    matplotlib is the ``[plot]`` extra, loaded on first use: a command that draws nothing needs it not
    installed and never pays its half CPU second (``--plot``/``--report`` check for it before the run)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt
