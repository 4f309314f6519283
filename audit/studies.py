"""Every study, listed once: the claim it judges, the command that runs it, and the summary
and figure it writes. reproduce.py runs and plans from this list (`--dry-run` counts each
study's runs from its script's own `planned_runs`, never from a typed number), audit/claims.py
reads each claim's summaries through it, and the README's tables name its figures.

Adding a study: write its script (with `parse`, `planned_runs` and `main`), add one entry
here, and a claim function in audit/claims.py if it judges a new claim.
"""
from collections import namedtuple

# The paper's claims (the README's verdict table): a short name and the statement judged.
CLAIMS = {
    "C1": ("four phases",
           "Four phases: memorization with diffuse attention; a plateau where the task gradient to "
           "attention collapses and the MLP norm decays; resurgence; grokking. Attention condenses "
           "on the informative positions before test accuracy rises."),
    "C2": ("capacity x structure",
           "Generalization needs both capacity control and the structural condition: adversarial "
           "prior -> chance even with norm matching; oracle without norm control -> partial; both -> full."),
    "C3": ("KL prior, 1/lambda law",
           "KL toward the oracle removes the plateau; t_grok falls roughly like 1/lambda until a floor."),
    "C3b": ("C3 at the closest cell, held-out seeds",
            "C3, judged at the regime map's cell closest to the paper's four phases (its pre-registered "
            "selection: no cell shows all five conditions), on held-out seeds."),
    "C3f": ("the 1/lambda law under fixed distractors (not the paper's setup)",
            "C3, judged under fixed distractors, where the lambda = 0 baseline never groks and the prior is "
            "the only way out, on a dense lambda grid (0.01-1) with a 20,000-epoch budget, seeds 0-9; "
            "Eq. 7's law on held-out seeds 10-19, run after its amendment (rules v4, rule 9)."),
    "C4": ("Bayesian ticket vs lottery-ticket transfer",
           "The Bayesian ticket (fresh init + KL) matches or outperforms lottery-ticket transfer."),
    "C5": ("Lemma 5.1 bound",
           "The task gradient to the attention logits stays below the Lemma 5.1 bound, far below it "
           "after memorization."),
    "C6": ("directed vs undirected priors",
           "Oracle KL beats entropy and sparsity priors; those beat weight decay alone; a teacher prior "
           "transfers most of the gain; annealed and late-start KL still help."),
    "C7": ("routing, length generalization",
           "A per-sequence oracle restores the bypass under dynamic routing; KL-trained models degrade "
           "less when test sequences add distractors."),
    "C8": ("width, heads",
           "Larger d learns the structure faster; multi-head models meet the condition through "
           "aggregate mass."),
    "C9": ("other tasks, autoregressive",
           "Across tasks the starvation diagnostic holds and KL accelerates where routing is the "
           "bottleneck; also in autoregressive sparse parity."),
    "C10": ("frozen attention, optimizers",
            "Frozen oracle attention: the MLP generalizes quickly. Optimizer changes alter rates but "
            "keep the norm-contractive decay."),
    "C11": ("delay ~ 1/weight decay",
            "Without a prior the delay is a structural waiting time set by weight decay: t_grok grows like "
            "1/wd, and the plateau lasts at least Eq. 5's log(||theta_mem|| / r*) / (lr * wd) steps."),
}

# title: the README gallery's label; paper: what the paper claims for this figure, where that is
# not the first sentence of its claim; variant_of: the study whose claim parts this one repeats
# in another setting, judged by the same rules and reported beside the claim, never part of
# its verdict (the pre-registered rho = 0.003 runs of the prior-effect studies, docs/figures.md)
# plan_for: the study whose parts this one decides at the seeds the power plan sized (docs/plan.md):
# once its summary is written, its parts whose names contain plan_parts (all, if None) replace the
# same parts of plan_for's in the verdict; the five-seed verdict stays in REPORT.md beside it
Study = namedtuple("Study", "claim command summary figure title paper variant_of plan_for plan_parts",
                   defaults=(None, None, None, None))
RHO = ["--regime", "refresh0.003"]      # the regime map's selected cell (docs/figures.md, "Figures 6–7")
TEN = [str(s) for s in range(10)]   # the headline comparisons' seeds (C3f, C4)


def seeds(n):
    """--seeds 0 ... n-1, as command words."""
    return ["--seeds"] + [str(s) for s in range(n)]

FIXED_GRID = ["--regime", "fixed", "--epochs", "20000", "--lam"] + \
    [str(l) for l in (0, 0.01, 0.02, 0.03, 0.05, 0.1, 0.2, 0.3, 1)]

STUDIES = {
    "fig1": Study("C1", ["exp_fig1_phases.py"], "fig1_fresh_lam0.json", "fig1_fresh_lam0.png",
                  "Figure 1: four phases (fresh)"),
    # the power plan (docs/plan.md): seeds 5-9 are cut from Figure 4's dense runs (store.derived)
    "fig1_seeds0-9": Study("C1", ["exp_fig1_phases.py", "--seeds"] + TEN, "fig1_fresh_lam0_seeds0-9.json",
                           "fig1_fresh_lam0_seeds0-9.png", "Figure 1 at seeds 0-9", plan_for="fig1"),
    "fig2": Study("C2", ["exp_fig2_ablation.py"], "fig2_ablation.json", "fig2_ablation.png",
                  "Figure 2: capacity x structure"),
    "fig3": Study("C3", ["exp_fig3_kl.py"], "fig3_kl.json", "fig3_kl.png",
                  "Figure 3: KL prior, lambda sweep (fresh)"),
    # the power plan: lambda 0 against 1 at 18 seeds; the same runs are C9's addition and AdamW's
    "fig3_plan": Study("C3", ["exp_fig3_kl.py", "--lam", "0", "1"] + seeds(18), "fig3_kl_seeds0-17_lam0_1.json",
                       "fig3_kl_seeds0-17_lam0_1.png", "Figure 3, lambda 0 and 1 at seeds 0-17 (the power plan)",
                       plan_for="fig3", plan_parts="removes the plateau"),
    "fig3_fixed": Study("C3f", ["exp_fig3_kl.py"] + FIXED_GRID + ["--seeds"] + TEN,
                        "fig3_kl_fixed_seeds0-9_lam0_0.01_0.02_0.03_0.05_0.1_0.2_0.3_1.json",
                        "fig3_kl_fixed_seeds0-9_lam0_0.01_0.02_0.03_0.05_0.1_0.2_0.3_1.png",
                        "Figure 3 in fixed distractors, seeds 0-9, 20k epochs"),
    # rules v4's plan, row 7 (docs/plan.md, before its runs): the Eq. 7 amendment's held-out seeds,
    # which alone decide C3f's law under rules v4 (report.EQ7_HELD_OUT)
    "fig3_fixed_v4plan": Study("C3f", ["exp_fig3_kl.py", "--regime", "fixed", "--epochs", "20000", "--lam"]
                               + [str(l) for l in (0.01, 0.02, 0.03, 0.05, 0.1, 0.2, 1)]
                               + ["--seeds"] + [str(s) for s in range(10, 20)],
                               "fig3_kl_fixed_seeds10-19_lam0.01_0.02_0.03_0.05_0.1_0.2_1.json",
                               "fig3_kl_fixed_seeds10-19_lam0.01_0.02_0.03_0.05_0.1_0.2_1.png",
                               "Figure 3 in fixed distractors, held-out seeds 10-19 (rules v4's plan)",
                               "C3's law, t_grok - floor ~ 1/lambda (Eq. 7, as amended 2026-11-25), judged under "
                               "fixed distractors on seeds run after the amendment.",
                               plan_for="fig3_fixed", plan_parts="1/lambda"),
    "heldout_fig3": Study("C3b", ["exp_fig3_kl.py"] + RHO + ["--seeds", "5", "6", "7", "8", "9"],
                          "fig3_kl_refresh0.003_seeds5-9.json", "fig3_kl_refresh0.003_seeds5-9.png",
                          "Figure 3 at rho 0.003, held-out seeds 5-9"),
    "heldout_fig1": Study("C3b", ["exp_fig1_phases.py"] + RHO + ["--seeds", "5", "6", "7", "8", "9"],
                          "fig1_refresh0.003_lam0_seeds5-9.json", "fig1_refresh0.003_lam0_seeds5-9.png",
                          "Figure 1 at rho 0.003, held-out seeds 5-9",
                          "Four phases (Figure 1); here the lambda = 0 baseline of the cell C3b is judged in."),
    "fig4": Study("C4", ["exp_fig4_tickets.py"], "fig4_tickets.json", "fig4_tickets.png",
                  "Figure 4: Bayesian vs lottery ticket"),
    "fig4_seeds0-9": Study("C4", ["exp_fig4_tickets.py", "--seeds"] + TEN, "fig4_tickets_seeds0-9.json",
                           "fig4_tickets_seeds0-9.png",
                           "Figure 4 at seeds 0-9", plan_for="fig4"),
    # rules v4's plan, row 11 (docs/plan.md, third addendum, before its runs): the two tickets C4
    # compares, and the dense runs they are cut from, at seeds 0-79; its censored tickets
    # extended to 50k (fourth addendum, before any ticket of seeds 10-79)
    "fig4_v4plan": Study("C4", ["exp_fig4_tickets.py", "--arms", "dense", "lottery", "bayes"] + seeds(80)
                         + ["--extend", "50000"], "fig4_tickets_seeds0-79_dense-lottery-bayes_ext50000.json",
                         "fig4_tickets_seeds0-79_dense-lottery-bayes_ext50000.png",
                         "Figure 4's dense run and two tickets at seeds 0-79, censored tickets extended to 50k "
                         "(rules v4's plan)",
                         "The Bayesian ticket (fresh init + KL) matches or outperforms lottery-ticket transfer.",
                         plan_for="fig4"),
    "bound": Study("C5", ["exp_appendix.py", "bound"], "fig5_bound.json", "fig5_bound.png",
                   "Figure 5: Lemma 5.1 bound"),
    "priors": Study("C6", ["exp_appendix.py", "priors"], "fig6_priors.json", "fig6_priors.png",
                    "Figures 6-7: structural priors (fresh)"),
    "priors_plan": Study("C6", ["exp_appendix.py", "priors", "--arms", "baseline", "teacher", "anneal",
                                "--low-lam", "0"] + seeds(28),
                         "fig6_priors_seeds0-27.json", "fig6_priors_seeds0-27.png",
                         "Figures 6-7: teacher and annealed KL at seeds 0-27 (the power plan)",
                         "A teacher prior transfers most of the gain; annealed KL still helps.",
                         plan_for="priors", plan_parts="faster than weight decay alone"),
    "priors_rho": Study("C6", ["exp_appendix.py", "priors"] + RHO, "fig6_priors_refresh0.003.json",
                        "fig6_priors_refresh0.003.png",
                        "Figures 6-7 at rho 0.003", variant_of="priors"),
    "routing": Study("C7", ["exp_appendix.py", "routing"], "fig8_routing.json", "fig8_routing.png",
                     "Figure 8 (left): dynamic routing (fresh)"),
    "routing_plan": Study("C7", ["exp_appendix.py", "routing"] + seeds(30), "fig8_routing_seeds0-29.json",
                          "fig8_routing_seeds0-29.png", "Figure 8 (left) at seeds 0-29 (the power plan)",
                          "A per-sequence oracle restores the bypass under dynamic routing.", plan_for="routing"),
    # rules v4's plan, row 8: the same, for C7's comparison
    "routing_v4plan": Study("C7", ["exp_appendix.py", "routing"] + seeds(30) + ["--extend", "50000"],
                            "fig8_routing_seeds0-29_ext50000.json", "fig8_routing_seeds0-29_ext50000.png",
                            "Figure 8 (left) at seeds 0-29, censored runs extended to 50k (rules v4's plan)",
                            "A per-sequence oracle restores the bypass under dynamic routing.", plan_for="routing"),
    "routing_rho": Study("C7", ["exp_appendix.py", "routing"] + RHO, "fig8_routing_refresh0.003.json",
                         "fig8_routing_refresh0.003.png",
                         "Figure 8 (left) at rho 0.003", variant_of="routing"),
    "lengths": Study("C7", ["exp_appendix.py", "lengths"], "fig8_lengths.json", "fig8_lengths.png",
                     "Figure 8 (right): longer test sequences",
                     "KL-trained models degrade less when test sequences add distractors."),
    "dims": Study("C8", ["exp_appendix.py", "dims"], "fig9_dims.json", "fig9_dims.png",
                  "Figure 9 (left): width d", "Larger d learns the structure faster."),
    # rules v4's plan, row 10 (its addendum, before its runs)
    "dims_v4plan": Study("C8", ["exp_appendix.py", "dims"] + seeds(10), "fig9_dims_seeds0-9.json", "fig9_dims_seeds0-9.png",
                         "Figure 9 (left) at seeds 0-9 (rules v4's plan)", "Larger d learns the structure faster.",
                         plan_for="dims"),
    "heads": Study("C8", ["exp_appendix.py", "heads"], "fig9_heads.json", "fig9_heads.png",
                   "Figure 9 (right): four heads",
                   "Multi-head models meet the condition through aggregate mass."),
    "heads_plan": Study("C8", ["exp_appendix.py", "heads"] + seeds(9), "fig9_heads_seeds0-8.json",
                        "fig9_heads_seeds0-8.png", "Figure 9 (right) at seeds 0-8 (the power plan)",
                        "Multi-head models meet the condition through aggregate mass.", plan_for="heads"),
    "tasks": Study("C9", ["exp_appendix.py", "tasks"], "fig10_tasks.json", "fig10_tasks.png",
                   "Figure 10: addition, sparse parity, S_5",
                   "Across tasks the starvation diagnostic holds and KL accelerates where routing is the bottleneck."),
    "tasks_add_plan": Study("C9", ["exp_appendix.py", "tasks", "--tasks", "add"] + seeds(18),
                            "fig10_tasks_seeds0-17.json", "fig10_tasks_seeds0-17.png",
                            "Figure 10 addition at seeds 0-17 (the power plan; Figure 3's runs)",
                            "On addition the starvation diagnostic holds and KL accelerates.",
                            plan_for="tasks", plan_parts="add: "),
    "tasks_perm_plan": Study("C9", ["exp_appendix.py", "tasks", "--tasks", "perm"] + seeds(12),
                             "fig10_tasks_seeds0-11.json", "fig10_tasks_seeds0-11.png",
                             "Figure 10 S_5 at seeds 0-11 (the power plan)",
                             "On S_5 the starvation diagnostic holds.",
                             plan_for="tasks", plan_parts="perm: the bound"),
    # rules v4's plan, row 5: S_5's KL arm against its baseline at a 30,000-epoch budget
    "tasks_perm_v4plan": Study("C9", ["exp_appendix.py", "tasks", "--tasks", "perm", "--epochs", "30000"] + seeds(10),
                               "fig10_tasks_seeds0-9.json", "fig10_tasks_seeds0-9.png",
                               "Figure 10 S_5 at seeds 0-9, 30k epochs (rules v4's plan)",
                               "On S_5 KL accelerates grokking.", plan_for="tasks", plan_parts="perm: KL faster"),
    "tasks_rho": Study("C9", ["exp_appendix.py", "tasks", "--tasks", "add"] + RHO, "fig10_tasks_refresh0.003.json",
                       "fig10_tasks_refresh0.003.png",
                       "Figure 10 addition at rho 0.003", variant_of="tasks"),
    "autoregressive": Study("C9", ["exp_appendix.py", "autoregressive"], "fig10_autoregressive.json",
                            "fig10_autoregressive.png",
                            "Figure 10: autoregressive parity",
                            "In autoregressive next-token training on sparse parity too, the starvation "
                            "diagnostic holds and KL accelerates."),
    "autoregressive_plan": Study("C9", ["exp_appendix.py", "autoregressive"] + seeds(23),
                                 "fig10_autoregressive_seeds0-22.json", "fig10_autoregressive_seeds0-22.png",
                                 "Figure 10: autoregressive parity at seeds 0-22 (the power plan)",
                                 "In autoregressive sparse parity the starvation diagnostic holds and KL accelerates.",
                                 plan_for="autoregressive"),
    # rules v4's plan, row 1 (docs/plan.md, committed before its runs)
    "autoregressive_v4plan": Study("C9", ["exp_appendix.py", "autoregressive"] + seeds(92),
                                   "fig10_autoregressive_seeds0-91.json", "fig10_autoregressive_seeds0-91.png",
                                   "Figure 10: autoregressive parity at seeds 0-91 (rules v4's plan)",
                                   "In autoregressive sparse parity the starvation diagnostic holds and KL accelerates.",
                                   plan_for="autoregressive"),
    "frozen": Study("C10", ["exp_appendix.py", "frozen"], "appendix_frozen.json", "appendix_frozen.png",
                    "App. F.4: attention frozen at the oracle"),
    "frozen_plan": Study("C10", ["exp_appendix.py", "frozen", "--arms", "baseline", "frozen"] + seeds(90), "appendix_frozen_seeds0-89.json",
                         "appendix_frozen_seeds0-89.png", "App. F.4 at seeds 0-89 (the power plan)",
                         "Frozen oracle attention: the MLP generalizes quickly.", plan_for="frozen"),
    # rules v4's plan, row 3 (docs/plan.md, before its runs): every censored run of the comparison
    # above trained on to 5x its budget, and read in its place
    "frozen_v4plan": Study("C10", ["exp_appendix.py", "frozen", "--arms", "baseline", "frozen"] + seeds(90)
                           + ["--extend", "50000"], "appendix_frozen_seeds0-89_ext50000.json",
                           "appendix_frozen_seeds0-89_ext50000.png",
                           "App. F.4 at seeds 0-89, censored runs extended to 50k (rules v4's plan)",
                           "Frozen oracle attention: the MLP generalizes quickly.", plan_for="frozen"),
    "optimizers": Study("C10", ["exp_appendix.py", "optimizers"], "fig11_optimizers.json", "fig11_optimizers.png",
                        "Figure 11: optimizers",
                        "Optimizer changes alter rates but keep the norm-contractive decay."),
    "optimizers_plan": Study("C10", ["exp_appendix.py", "optimizers", "--settings", "adamw", "beta1_0.5",
                                     "beta2_0.98"] + seeds(12),
                             "fig11_optimizers_seeds0-11.json", "fig11_optimizers_seeds0-11.png",
                             "Figure 11: AdamW and its betas at seeds 0-11 (the power plan)",
                             "Optimizer changes alter rates but keep the norm-contractive decay.",
                             plan_for="optimizers"),
    # rules v4's plan, row 4: beta2 = 0.98 at 120 seeds
    "optimizers_v4plan": Study("C10", ["exp_appendix.py", "optimizers", "--settings", "beta2_0.98"] + seeds(120),
                               "fig11_optimizers_seeds0-119.json", "fig11_optimizers_seeds0-119.png",
                               "Figure 11: beta2 = 0.98 at seeds 0-119 (rules v4's plan)",
                               "Optimizer changes alter rates but keep the norm-contractive decay.",
                               plan_for="optimizers", plan_parts="beta2_0.98"),
    "regime_map": Study("C11", ["-m", "audit.regime_map"], "regime_map.json", "regime_map.png",
                        "Regime map: rho x wd x lambda (C11)"),
    # the power plan's C11: one refresh rate at 12 seeds and a 40,000-epoch budget, so that the named
    # room's medians are measured (runs that grokked within 10,000 epochs are derived from the map's)
    **{f"regime_map_plan_{label}": Study(
        "C11", ["-m", "audit.regime_map", "--part", "baseline", "wd", "--rhos", rho, "--epochs", "40000"] + seeds(12),
        f"regime_map_{label}_seeds0-11_e40000.json", f"regime_map_{label}_seeds0-11_e40000_c11.png",
        f"C11 {name} at seeds 0-11, 40k epochs (the power plan)", plan_for="regime_map", plan_parts=f"{name}: ")
       for rho, label, name in (("1", "fresh", "fresh"), ("0.01", "rho0.01", "rho 0.01"))},
    # rules v4's plan, row 6: Eq. 5's plateau at rho 0.003 (the v3 plan's design: 9 seeds, 40k epochs)
    "regime_map_v4plan_rho0.003": Study(
        "C11", ["-m", "audit.regime_map", "--part", "baseline", "wd", "--rhos", "0.003", "--epochs", "40000"] + seeds(9),
        "regime_map_rho0.003_seeds0-8_e40000.json", "regime_map_rho0.003_seeds0-8_e40000_c11.png",
        "C11 rho 0.003 at seeds 0-8, 40k epochs (rules v4's plan)", plan_for="regime_map",
        plan_parts="rho 0.003: plateau"),
    # rules v4's plan, row 2: the held-out runs that confirm or refute C11's marking at rho 0.001
    # (claims.CONFIRM reads its summary); beside C11, never part of its verdict
    "regime_map_v4plan_rho0.001": Study(
        "C11", ["-m", "audit.regime_map", "--part", "baseline", "--rhos", "0.001", "--seeds"] + [str(s) for s in range(5, 15)],
        "regime_map_rho0.001_seeds5-14_e10000.json", "regime_map_rho0.001_seeds5-14_e10000_c11.png",
        "C11 at rho 0.001, held-out seeds 5-14 (rules v4's plan, row 2: C11's marking)", variant_of="regime_map"),
    # rules v4's plan, fifth addendum (2026-11-28, before their runs): the runs made after a choice made after its
    # data (claims.CONFIRM reads their summaries); beside their claims, never part of a verdict but so
    "optimizers_after": Study(
        "C10", ["exp_appendix.py", "optimizers", "--settings", "sgd", "lion", "muon", "bs512", "bs128", "--seeds"]
        + [str(s) for s in range(5, 10)], "fig11_optimizers_seeds5-9.json", "fig11_optimizers_seeds5-9.png",
        "C10's five 'no plateau' markings on seeds 5-9, run after the marking (plan, fifth addendum)",
        variant_of="optimizers"),
    "bound_after": Study(
        "C5", ["exp_appendix.py", "bound", "--seeds"] + [str(s) for s in range(120, 128)],
        "fig5_bound_seeds120-127.json", "fig5_bound_seeds120-127.png",
        "C5 on seeds 120-127, its window fixed in advance (plan, fifth addendum)", variant_of="bound"),
    # the fifth addendum's cheap decisive runs (registered before them; they decide as the addendum says once run)
    "dims_after": Study("C8", ["exp_appendix.py", "dims", "--seeds"] + [str(s) for s in range(10, 20)],
                        "fig9_dims_seeds10-19.json", "fig9_dims_seeds10-19.png",
                        "Figure 9 (left) at seeds 10-19, registered before their runs (plan, fifth addendum)",
                        variant_of="dims"),
    "priors_after": Study("C6", ["exp_appendix.py", "priors", "--arms", "baseline", "kl", "entropy", "sparsity"]
                          + seeds(6), "fig6_priors_seeds0-5.json", "fig6_priors_seeds0-5.png",
                          "Figures 6-7 with a sixth seed for entropy and sparsity (plan, fifth addendum)",
                          variant_of="priors"),
    # the sixth addendum (docs/plan.md, 2026-12-03, before any of its runs): runs made after choices the dates
    # found made after their data, where a verdict or a part degraded
    "priors_confirm": Study("C6", ["exp_appendix.py", "priors", "--arms", "baseline", "kl", "entropy", "sparsity", "late",
                                   "--low-lam", "0", "--seeds"] + [str(s) for s in range(30, 38)],
                            "fig6_priors_seeds30-37.json", "fig6_priors_seeds30-37.png",
                            "Figures 6-7 at seeds 30-37, run after C6's thresholds (plan, sixth addendum, row 17)",
                            variant_of="priors"),
    "tasks_parity_confirm": Study("C9", ["exp_appendix.py", "tasks", "--tasks", "parity", "--seeds"]
                                  + [str(s) for s in range(5, 11)], "fig10_tasks_seeds5-10.json",
                                  "fig10_tasks_seeds5-10.png",
                                  "Figure 10 sparse parity at seeds 5-10, run after its marking (plan, sixth addendum, "
                                  "row 18)", variant_of="tasks"),
    # the seventh addendum (docs/plan.md, 2026-12-03, before any of its runs): C11's 1/wd law in `fresh`, which the
    # dates judge on the two seeds stored after its room was named, on 16 seeds that never ran at wd 0.5 or 2
    "regime_map_confirm_fresh": Study(
        "C11", ["-m", "audit.regime_map", "--part", "baseline", "wd", "--rhos", "1", "--wds", "0.5", "2",
                "--epochs", "40000", "--seeds"] + [str(s) for s in range(12, 28)],
        "regime_map_fresh_seeds12-27_e40000_wds0.5-2.json", "regime_map_fresh_seeds12-27_e40000_wds0.5-2_c11.png",
        "C11's 1/wd law in fresh at seeds 12-27, run after its room was named (plan, seventh addendum, row 19)",
        variant_of="regime_map"),
    # the eighth addendum (docs/plan.md, 2026-12-06, before any of its runs): the runs that confirm or refute C11's
    # marking under `fixed` (claims.CONFIRM reads its summary); beside C11, never part of its verdict
    "regime_map_confirm_fixed": Study(
        "C11", ["-m", "audit.regime_map", "--part", "baseline", "wd", "--rhos", "0", "--seeds"]
        + [str(s) for s in range(20, 25)],
        "regime_map_fixed_seeds20-24_e10000.json", "regime_map_fixed_seeds20-24_e10000_c11.png",
        "C11 under fixed at seeds 20-24, run after its marking (plan, eighth addendum, row 20)",
        variant_of="regime_map"),
    "heldout_fig3_after": Study("C3b", ["exp_fig3_kl.py"] + RHO + ["--lam", "0", "1", "--seeds"]
                                + [str(s) for s in range(5, 11)], "fig3_kl_refresh0.003_seeds5-10_lam0_1.json",
                                "fig3_kl_refresh0.003_seeds5-10_lam0_1.png",
                                "C3b's plateau part with a sixth held-out seed (plan, fifth addendum)",
                                variant_of="heldout_fig3"),
    # beyond the paper (docs/registered/two_clocks.md): its own block of REPORT.md, not a claim row
    "two_clocks": Study("beyond", ["-m", "audit.two_clocks"], "two_clocks.json", "two_clocks.png",
                        "Beyond the paper: the two clocks"),
    # the readings the paper leaves open (docs/registered/sensitivity.md, pre-registered 2026-11-25): its own
    # block of REPORT.md, per claim, never part of a claim's verdict
    "choices": Study("beyond", ["-m", "audit.choices"], "choices.json", "choices.png",
                     "The paper's open readings: C1, C2, C6, C10 and the headline"),
    # beyond the paper (docs/registered/critical.md, pre-registered 2026-11-25): a critical prior strength
    "critical": Study("beyond", ["-m", "audit.critical"], "critical.json", "critical.png",
                      "Beyond the paper: a critical prior strength"),
    # beyond the paper (docs/registered/payoff.md, registered 2026-11-26): H8, the payoff predicted
    "payoff": Study("beyond", ["-m", "audit.payoff"], "payoff.json", "payoff.png",
                    "Beyond the paper: the prior's payoff predicted (H8)"),
    # beyond the paper (docs/registered/deep.md, registered 2026-11-26): a two-layer LayerNorm model
    "deep": Study("beyond", ["-m", "audit.deep"], "deep.json", "deep.png",
                  "Beyond the paper: a two-layer LayerNorm transformer"),
    # beyond the paper (docs/registered/deep_trained.md, registered 2026-11-28): the two-layer model as people
    # train it, gated on a run that groks; the gate passed (2026-11-28), so its command is the cells'
    "deep_trained": Study("beyond", ["-m", "audit.deep_trained", "--part", "cells"], "deep_trained.json",
                          "deep_trained.png",
                          "Beyond the paper: a two-layer transformer as people train it"),
    # beyond the paper (docs/registered/information.md, registered 2026-11-28): the information or any gradient
    "information": Study("beyond", ["-m", "audit.information"], "information.json", "information.png",
                         "Beyond the paper: the information or any live gradient"),
    # beyond the paper (docs/registered/plateau.md, registered 2026-12-02): part five, four accounts of `fresh`
    "plateau": Study("beyond", ["-m", "audit.plateau"], "plateau.json", "plateau.png",
                     "Beyond the paper: what ends the plateau in fresh"),
    # beyond the paper (docs/registered/imprint.md, registered 2026-12-04): part six, what the uniform KL leaves
    "imprint": Study("beyond", ["-m", "audit.imprint"], "imprint.json", "imprint.png",
                     "Beyond the paper: what the uniform KL leaves behind while the model memorizes"),
    # beyond the paper (docs/registered/data_wall.md, registered 2026-12-04): the title's need at the data wall
    "data_wall": Study("beyond", ["-m", "audit.data_wall"], "data_wall.json", "data_wall.png",
                       "Beyond the paper: the title's need at the data wall"),
}


def summary(study):
    """The file name of a study's JSON summary (under results/)."""
    return STUDIES[study].summary