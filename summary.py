"""A run's summary (summary.json, the store's): what train.py writes when a run ends, and the
first-epoch marks in it. No torch: the verdict rules read the marks (through analysis.py)."""


def first_epoch(history, key, threshold):
    """First logged epoch with history[key] >= threshold, None if never: t_mem and t_struct in a
    run's summary, and every study's phase marks (analysis.py)."""
    return next((e for e, v in zip(history["epoch"], history[key]) if v >= threshold), None)


def summarize(config, history, grok, epoch, wall, device, threads):
    """A run's summary: its semantic config, its phase epochs (t_mem and t_struct by first_epoch),
    final values, the epochs it ran and where and how fast it ran. train.py writes it at the end
    of a run; store.derived cuts a longer run's to a shorter budget."""
    return {
        "config": config,
        "grok_epoch": grok,
        "mem_epoch": first_epoch(history, "train_acc", 0.99),
        "struct_epoch": first_epoch(history, "frac_struct", 0.99),
        "final_train_acc": history["train_acc"][-1],
        "final_test_acc": history["test_acc"][-1],
        "final_info_mass": history["info_mass"][-1],
        "final_mlp_norm": history["mlp_norm"][-1],
        "lemma_violations": sum(history.get("lemma_violations", [])),
        "epochs_run": epoch,
        "wall_s": wall,
        "ms_per_epoch": 1000 * wall / max(epoch, 1),
        "device": str(device),
        "threads": threads,   # a different count rounds differently (docs/registered/sensitivity.md)
    }
