"""What the figure scripts share: matplotlib on a file-only backend, per-run curves on a
common epoch grid, the median-and-spread band, and the figure's common ending."""
import textwrap

import numpy as np


def pyplot():
    """matplotlib.pyplot on the file-only Agg backend (no display needed), imported on first
    use so that training never pays for matplotlib."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def curve(history, key, grid):
    """history[key] on an epoch grid; a run that stopped early holds its last value."""
    ep = np.asarray(history["epoch"])
    val = np.asarray(history[key], dtype=float)
    idx = np.clip(np.searchsorted(ep, grid, side="right") - 1, 0, len(ep) - 1)
    return val[idx]


def curves(histories, key, epochs, points=400):
    """(grid, array (n_runs, len(grid))) for one logged quantity over several runs."""
    grid = np.linspace(0, epochs, points)
    return grid, np.stack([curve(h, key, grid) for h in histories])


def seeds_text(seeds):
    """Seeds for a title: "0-89" for a run of consecutive seeds, else the list."""
    seeds = list(seeds)
    return f"{seeds[0]}-{seeds[-1]}" if len(seeds) > 1 and seeds == list(range(seeds[0], seeds[-1] + 1)) \
        else ", ".join(map(str, seeds))


def save_figure(fig, path, title):
    """The figure scripts' common ending: title, layout, PNG, close."""
    import matplotlib.pyplot as plt
    width = int(fig.get_figwidth() * 72 / 6)      # characters of 10-point text across the figure
    fig.suptitle("\n".join(textwrap.fill(line, width) for line in title.split("\n")), fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    print(f"wrote {path}")


def band(ax, grid, values, label=None, color=None, log=False, ls="-"):
    """Plot the median with the min-max spread over runs."""
    mid = np.median(values, 0)
    line, = ax.plot(grid, mid, label=label, color=color, ls=ls)
    ax.fill_between(grid, values.min(0), values.max(0), color=line.get_color(), alpha=0.2, lw=0)
    if log:
        ax.set_yscale("log")
    return line
