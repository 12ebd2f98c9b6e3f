"""One place every plot, figure and report picture gets matplotlib from."""


def pyplot():
    """matplotlib's ``pyplot`` on the file-only Agg backend: every plot, figure and page picture draws with it.
    Loaded on first use (about half a CPU second), so a command that draws nothing never pays for it."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt
