"""The images of docs/goodput.md and docs/metastability-map.md, drawn with Debian's
python3-matplotlib (.ci/install-deps installs it with the test dependencies). Imported only
when a bench draws: the pure modules and their tests do not need it."""
import os

COLORS = {"fifo": "#c0392b", "lifo": "#2e86c1", "codel": "#27ae60"}


def pyplot():
    """matplotlib's pyplot without a display, or exit naming the package to install."""
    try:
        import matplotlib
    except ImportError:
        raise SystemExit("the images need matplotlib: apt-get install python3-matplotlib (Debian's), "
                         "and run the bench with Debian's /usr/bin/python3")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def save(fig, path):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    fig.savefig(path, dpi=100, metadata={"Software": None})
    print(f"wrote {path}")


def draw_goodput(rows, policy_keys, disciplines, capacity_rps, path):
    """A row of panels per measure, a panel per policy: (rps) against offered load (rps), a line
    per carrier discipline, the carrier's capacity dashed and the ideal dotted. `rows` is
    [(label, curves)], each curves (policy, discipline) → [(offered, rps)]."""
    plt = pyplot()
    fig, axes = plt.subplots(len(rows), len(policy_keys), figsize=(3.1 * len(policy_keys), 2.9 * len(rows)),
                             sharex=True, squeeze=False)
    top = max(o for _, curves in rows for c in curves.values() for o, _ in c)
    for r, (label, curves) in enumerate(rows):
        for ax, key in zip(axes[r], policy_keys):
            for d in disciplines:
                points = sorted(curves[(key, d)])
                ax.plot([o for o, _ in points], [g for _, g in points], marker="o", ms=3, label=d, color=COLORS.get(d))
            ax.plot([0, top], [0, top], ls=":", color="grey", lw=0.8)
            ax.axvline(capacity_rps, ls="--", color="grey", lw=0.8)
            ax.axhline(capacity_rps, ls="--", color="grey", lw=0.8)
            ax.set_xlim(0, top * 1.03)
            ax.set_ylim(0, top * 1.03)
            if r == 0:
                ax.set_title(key, fontsize=10)
            if r == len(rows) - 1:
                ax.set_xlabel("offered (rps)")
        axes[r][0].set_ylabel(f"{label} (rps)")
    axes[0][0].legend(fontsize=8, loc="upper left")
    fig.suptitle(f"Goodput vs offered load; the carrier's capacity, {capacity_rps:g} rps, dashed", fontsize=11)
    fig.tight_layout()
    save(fig, path)
    plt.close(fig)


def draw_map(outcomes, policy_keys, triggers, loads, window_s, path, bounds=None):
    """One heat map per policy: a row per offered load (highest on top), a column per trigger
    (depth, length); each cell the seconds to recover after the trigger, or "never" (dark)
    within `window_s`. `outcomes` maps map_grid.Point → seconds or None; a cell not run is
    left blank. `bounds` (policy → a load) draws each policy's Theorem 2 bound as a line:
    every row under it must recover."""
    plt = pyplot()
    cmap = plt.get_cmap("RdYlGn_r")
    ncols = min(3, len(policy_keys))
    nrows = -(-len(policy_keys) // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(ncols * (0.55 * len(triggers) + 1.2), nrows * (0.5 * len(loads) + 1.6) + 0.4),
                             squeeze=False)
    for ax in axes.flat[len(policy_keys):]:
        ax.axis("off")
    cells = {(p.policy, p.load, (p.depth, p.length_s)): v for p, v in outcomes.items()}
    for ax, key in zip(axes.flat, policy_keys):
        for row, load in enumerate(sorted(loads, reverse=True)):
            for col, trigger in enumerate(triggers):
                if (key, load, trigger) not in cells:
                    continue
                value = cells[(key, load, trigger)]
                color = "#3b0a0a" if value is None else cmap(min(value, window_s) / window_s * 0.85)
                ax.add_patch(plt.Rectangle((col, row), 1, 1, color=color))
                ax.text(col + 0.5, row + 0.5, "never" if value is None else f"{value}",
                        ha="center", va="center", fontsize=6, color="white" if value is None else "black")
        if bounds and key in bounds:
            y = sum(l >= bounds[key] for l in loads)
            ax.axhline(y, color="#1f3a93", lw=2, ls="--")
            ax.text(len(triggers) - 0.05, y - 0.08, "Theorem 2", ha="right", va="bottom", fontsize=6, color="#1f3a93")
        ax.set_xlim(0, len(triggers))
        ax.set_ylim(len(loads), 0)
        ax.set_xticks([c + 0.5 for c in range(len(triggers))])
        ax.set_xticklabels([f"−{d:.0%}\n{t} s" for d, t in triggers], fontsize=6)
        ax.set_yticks([r + 0.5 for r in range(len(loads))])
        ax.set_yticklabels([f"{l:.0%}" for l in sorted(loads, reverse=True)], fontsize=7)
        ax.set_title(key, fontsize=9)
        ax.set_xlabel("trigger: capacity drop, length", fontsize=7)
    for row in axes:
        row[0].set_ylabel("offered load (of capacity)", fontsize=7)
    fig.suptitle("Seconds to recover after the trigger (never: not within the window observed after it)", fontsize=10)
    fig.tight_layout()
    save(fig, path)
    plt.close(fig)
