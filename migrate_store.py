"""One-off (2026-11-23): move the per-study stores results/runs/<study>/ into the one store
results/store/, keyed by config (store.run_key). Run once; kept so that the move can be read
and checked. `python migrate_store.py` prints what it would do; `--apply` does it.

  - a run whose config is unchanged moves byte for byte (its file is renamed, not rewritten);
  - the lottery-ticket arms of Figure 4 name their dense run's weights by path; the paths
    change to the new places (results/store/<dense key>.init.pt, runs/masks/<dense key>.mask_*),
    the summary's config is rewritten to say so, the history is untouched;
  - Figure 1's five runs at rho = 0.003, lambda = 0, seeds 5-9 stopped 500 epochs after
    grokking are the same computation as Figure 3's runs of that config stopped after 200.
    Every study now stops 200 epochs after grokking (sweep.STOP_AFTER), so these five are
    compared with Figure 3's (grokking epoch, and the histories up to Figure 3's last epoch)
    and then dropped;
  - two runs that fall on one key, or a key that already holds another config, stop it.
"""
import argparse
import glob
import os
import shutil

import numpy as np

import store
import train

OLD = os.path.join("results", "runs")


def config_of(summary):
    return train.make_config(**summary["config"])


def plan():
    moves, drops, keys = [], [], {}
    files = sorted(glob.glob(os.path.join(OLD, "*", "*.json.gz")))
    dense = {}
    for f in files:
        if os.path.basename(os.path.dirname(f)) == "fig4" and "_dense_" in f:
            s, _ = store.read_file(f)
            dense[os.path.join("runs", "fig4", os.path.basename(f)[:-len(".json.gz")])] = config_of(s)
    for f in files:
        summary, _ = store.read_file(f)
        cfg = config_of(summary)
        rewrite = None
        if cfg.init_from or cfg.mask:
            source = dense[os.path.dirname(cfg.init_from)]
            kind = os.path.basename(cfg.mask)[:-len(".pt")]             # mask_lottery_keep0.4
            rewrite = dict(init_from=store.weights_path(store.STORE, source, "init"),
                           mask=os.path.join("runs", "masks", f"{store.run_key(source)}.{kind}.pt"))
            for k, v in rewrite.items():
                setattr(cfg, k, v)
        if os.path.basename(os.path.dirname(f)) == "fig1" and cfg.stop_after == 500:
            drops.append((f, cfg))
            continue
        key = store.run_key(cfg)
        if key in keys:
            raise SystemExit(f"error: {f} and {keys[key]} fall on one key {key}")
        keys[key] = f
        moves.append((f, cfg, rewrite))
    return moves, drops


def compare_dropped(drops):
    """Each dropped stop-500 run against the stop-200 run of the same config, from Figure 3."""
    lines = []
    for f, cfg in drops:
        cfg.stop_after = 200
        twin = os.path.join(OLD, "fig3", os.path.basename(f))
        a, ha = store.read_file(f)
        b, hb = store.read_file(twin)
        n = len(hb["epoch"])
        same = ha["epoch"][:n] == hb["epoch"] and np.allclose(ha["train_loss"][:n], hb["train_loss"], rtol=0, atol=0)
        dev = float(np.max(np.abs(np.log(np.asarray(ha["train_loss"][:n]) / np.asarray(hb["train_loss"])))))
        lines.append(f"{os.path.basename(f)}: grok {a['grok_epoch']} (fig1, stop 500, threads {a.get('threads')}) vs "
                     f"{b['grok_epoch']} (fig3, stop 200, threads {b.get('threads')}); histories to epoch "
                     f"{hb['epoch'][-1]} {'identical' if same else f'differ (max |log ratio| of train loss {dev:.1e})'}")
    return lines


def apply(moves, drops):
    for f, cfg, rewrite in moves:
        new = store.path(store.STORE, cfg)
        if os.path.exists(new):
            raise SystemExit(f"error: {new} exists")
        if rewrite is None:
            os.makedirs(store.STORE, exist_ok=True)
            shutil.move(f, new)
        else:
            summary, history = store.read_file(f)
            summary["config"].update(rewrite)
            store.write(store.STORE, summary, history, cfg)
            os.remove(f)
    for f, _ in drops:
        os.remove(f)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--apply", action="store_true")
    args = p.parse_args()
    moves, drops = plan()
    print(f"{len(moves)} runs move to {store.STORE}/ ({sum(r is not None for _, _, r in moves)} with their "
          f"config's weight paths rewritten); {len(drops)} dropped:")
    for line in compare_dropped([(f, train.make_config(**vars(c))) for f, c in drops]):
        print("  " + line)
    if args.apply:
        apply(moves, drops)
        print("done")


if __name__ == "__main__":
    main()
