"""Level and power of the energy goodness-of-fit tests, beside scipy's Anderson-Darling and
Cramér-von Mises tests, and the normal test's limit distribution against simulation.

Usage: python validation/gof_power.py [--quick] [--only NAME ...] [--out validation/results]

Sections (each writes gof_<name>.csv and gof_<name>.md):

* limit: the statistic of normal_test simulated under normality (n = 50, 200, 1000) against
  the limit distribution with energystats' eigenvalues and with R's EVnormal table (from
  tests/data/r_reference_gof.json): tail probabilities at several t and the rejection rate of
  each limit test at 0.05, with binomial standard errors;
* level: rejection rate at 0.05 under the null, parameters estimated: normal_test ("bootstrap" and
  "limit"), poisson_test (three tests, small and large mean), energy_gof for the normal,
  exponential, gamma, Weibull and lognormal families (loc known for the last four);
* power: energy_gof against scipy.stats.goodness_of_fit with statistic "ad" and "cvm", the same
  null family, the same estimates (scipy fits the family on every Monte Carlo sample too) and
  the same number of Monte Carlo samples, n = 50, named alternatives (the null family itself
  first: the level);
* poisson: power of the three Poisson tests against overdispersion (negative binomial) and
  zero inflation, n = 50.

Full mode: 20,000 simulated statistics per n (limit), 1,000 data sets with B = 199 (level),
250 data sets with B = 99 (power), 400 (poisson); --quick: a few (used in CI, under a minute).
"""

from __future__ import annotations

import argparse
import json
import time
import zlib
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import optimize, stats

import energystats as es
from energystats._gof._limit import imhof_sf, normal_limit_sf
from energystats._gof.normality import _statistics as normal_statistics

ROOT = Path(__file__).resolve().parents[1]
N_POWER = 50


def seed(*parts) -> int:
    return zlib.crc32("/".join(map(str, parts)).encode())


def binomial_se(p: float, reps: int) -> float:
    return float(np.sqrt(p * (1 - p) / reps))


# --- limit ----------------------------------------------------------------------------------------


def limit(quick):
    reps = 4000 if quick else 20_000
    r_case4 = np.asarray(
        json.loads((ROOT / "tests" / "data" / "r_reference_gof.json").read_text())["evnormal"][
            "case4"
        ]
    )
    ours_q = optimize.brentq(lambda t: normal_limit_sf(t) - 0.05, 0.3, 3.0, xtol=1e-10)
    r_q = optimize.brentq(lambda t: imhof_sf(t, r_case4) - 0.05, 0.3, 3.0, xtol=1e-10)
    rows = []
    for n in (50, 200, 1000):
        rng = np.random.default_rng(seed("limit", n))
        t = np.concatenate(
            [normal_statistics(rng.standard_normal((1000, n, 1)))[0] for _ in range(reps // 1000)]
        )
        for level in (0.4, 0.6, 0.8, 1.0, 1.2):
            p = float((t > level).mean())
            rows.append(
                {
                    "n": n,
                    "t": level,
                    "simulated P(T > t)": p,
                    "se": binomial_se(p, t.size),
                    "limit, energystats": normal_limit_sf(level),
                    "limit, R EVnormal": imhof_sf(level, r_case4),
                }
            )
        for name, q in (("energystats", ours_q), ("R EVnormal", r_q)):
            p = float((t > q).mean())
            rows.append(
                {
                    "n": n,
                    "t": f"0.95 quantile, {name}: {q:.4f}",
                    "simulated P(T > t)": p,
                    "se": binomial_se(p, t.size),
                    "limit, energystats": normal_limit_sf(q),
                    "limit, R EVnormal": imhof_sf(q, r_case4),
                }
            )
        rows.append(
            {
                "n": n,
                "t": "mean",
                "simulated P(T > t)": float(t.mean()),
                "se": float(t.std() / np.sqrt(t.size)),
                "limit, energystats": 3 / (4 * np.sqrt(np.pi)),
                "limit, R EVnormal": float(r_case4.sum()),
            }
        )
    return pd.DataFrame(rows)


# --- level ----------------------------------------------------------------------------------------


def _rate(name, reps, one):
    """Rejection rate at 0.05 over ``reps`` data sets; ``one(rng)`` gives the p-value(s)."""
    rng = np.random.default_rng(seed("level", name))
    start = time.perf_counter()
    rejected = np.sum([np.atleast_1d(one(rng)) <= 0.05 for _ in range(reps)], axis=0) / reps
    return rejected, time.perf_counter() - start


def level(quick):
    reps, B = (100, 49) if quick else (1000, 199)
    rows = []

    def add(test, setting, one, labels=None):
        rates, seconds = _rate(f"{test}/{setting}", reps, one)
        for label, rate in zip(labels or [test], rates):
            rows.append(
                {
                    "test": label,
                    "null": setting,
                    "rejection rate": rate,
                    "se": binomial_se(0.05, reps),
                    "data sets": reps,
                    "B": B if "limit" not in label else "-",
                    "seconds": round(seconds, 1),
                }
            )

    for n in (20, 100):
        add(
            "normal_test mc",
            f"normal, n = {n}",
            lambda g, n=n: (
                es.normal_test(
                    g.normal(g.normal(), g.uniform(0.5, 5), n), n_resamples=B, rng=g
                ).pvalue
            ),
        )
    for n in (50, 200):
        add(
            "normal_test limit",
            f"normal, n = {n}",
            lambda g, n=n: (
                es.normal_test(g.normal(g.normal(), g.uniform(0.5, 5), n), method="limit").pvalue
            ),
        )
    for lam, n in ((0.5, 30), (5.0, 30), (50.0, 100)):
        add("poisson_test", f"Poisson({lam:g}), n = {n}",
            lambda g, lam=lam, n=n: es.poisson_test(g.poisson(lam, n), n_resamples=B, rng=g).pvalue,
            ["poisson M-CvM", "poisson M-AD", "poisson E"])
    families = {
        "normal": (stats.norm, None, lambda g, n: g.normal(g.normal(), g.uniform(0.5, 5), n)),
        "exponential": (stats.expon, {"loc": 0}, lambda g, n: g.exponential(g.uniform(0.5, 5), n)),
        "gamma": (
            stats.gamma,
            {"loc": 0},
            lambda g, n: g.gamma(g.uniform(0.5, 5), g.uniform(0.5, 3), n),
        ),
        "Weibull": (
            stats.weibull_min,
            {"loc": 0},
            lambda g, n: g.weibull(g.uniform(0.7, 4), n) * g.uniform(0.5, 3),
        ),
        "lognormal": (
            stats.lognorm,
            {"loc": 0},
            lambda g, n: g.lognormal(g.normal(), g.uniform(0.2, 1.5), n),
        ),
    }
    for name, (family, known, draw) in families.items():
        for n in (30, 100):
            add("energy_gof", f"{name}, n = {n}",
                lambda g, family=family, known=known, draw=draw, n=n: es.energy_gof(
                    draw(g, n), family, known_params=known, n_resamples=B, rng=g).pvalue)
    return pd.DataFrame(rows)


# --- power against scipy --------------------------------------------------------------------------


POWER_SETTINGS = [
    # (null name, family, known params, [(alternative name, draw(rng, n))])
    (
        "normal",
        stats.norm,
        None,
        [
            ("normal", lambda g, n: g.normal(size=n)),
            ("t, 5 df", lambda g, n: g.standard_t(5, n)),
            ("uniform", lambda g, n: g.uniform(size=n)),
            ("lognormal, sigma 0.3", lambda g, n: g.lognormal(0, 0.3, n)),
            (
                "mixture N(0,1), N(2.5,1) 70/30",
                lambda g, n: g.normal(size=n) + 2.5 * (g.uniform(size=n) < 0.3),
            ),
        ],
    ),
    (
        "exponential",
        stats.expon,
        {"loc": 0},
        [
            ("exponential", lambda g, n: g.exponential(2.0, n)),
            ("Weibull, c 1.4", lambda g, n: g.weibull(1.4, n)),
            ("gamma, a 1.7", lambda g, n: g.gamma(1.7, 1.0, n)),
            ("lognormal, sigma 1", lambda g, n: g.lognormal(0, 1.0, n)),
        ],
    ),
    (
        "gamma",
        stats.gamma,
        {"loc": 0},
        [
            ("gamma, a 2", lambda g, n: g.gamma(2.0, 1.0, n)),
            ("lognormal, sigma 0.7", lambda g, n: g.lognormal(0, 0.7, n)),
            ("Weibull, c 3", lambda g, n: g.weibull(3.0, n)),
        ],
    ),
    (
        "Weibull",
        stats.weibull_min,
        {"loc": 0},
        [
            ("Weibull, c 1.5", lambda g, n: g.weibull(1.5, n)),
            ("gamma, a 4", lambda g, n: g.gamma(4.0, 1.0, n)),
            ("lognormal, sigma 0.5", lambda g, n: g.lognormal(0, 0.5, n)),
        ],
    ),
    (
        "lognormal",
        stats.lognorm,
        {"loc": 0},
        [
            ("lognormal, sigma 0.5", lambda g, n: g.lognormal(0, 0.5, n)),
            ("gamma, a 2", lambda g, n: g.gamma(2.0, 1.0, n)),
            ("Weibull, c 1.5", lambda g, n: g.weibull(1.5, n)),
        ],
    ),
]


def power(quick):
    reps, B = (20, 39) if quick else (250, 99)
    rows = []
    for null, family, known, alternatives in POWER_SETTINGS:
        for alternative, draw in alternatives:
            rng = np.random.default_rng(seed("power", null, alternative))
            rejected = {"energy": 0, "AD": 0, "CvM": 0}
            seconds = dict.fromkeys(rejected, 0.0)
            for _ in range(reps):
                x = draw(rng, N_POWER)
                start = time.perf_counter()
                rejected["energy"] += (
                    es.energy_gof(x, family, known_params=known, n_resamples=B, rng=rng).pvalue
                    <= 0.05
                )
                seconds["energy"] += time.perf_counter() - start
                for name, statistic in (("AD", "ad"), ("CvM", "cvm")):
                    start = time.perf_counter()
                    res = stats.goodness_of_fit(
                        family, x, known_params=known, statistic=statistic, n_mc_samples=B, rng=rng
                    )
                    rejected[name] += res.pvalue <= 0.05
                    seconds[name] += time.perf_counter() - start
            row = {"null": null, "alternative": alternative, "n": N_POWER}
            row.update({f"power {k}": v / reps for k, v in rejected.items()})
            row.update({f"seconds {k}": round(v, 2) for k, v in seconds.items()})
            row.update({"se (at most)": binomial_se(0.5, reps), "data sets": reps, "B": B})
            rows.append(row)
            print(
                f"  {null} / {alternative}: energy {rejected['energy'] / reps:.3f}, AD "
                f"{rejected['AD'] / reps:.3f}, CvM {rejected['CvM'] / reps:.3f}",
                flush=True,
            )
    return pd.DataFrame(rows)


# --- Poisson --------------------------------------------------------------------------------------


def poisson(quick):
    reps, B = (30, 39) if quick else (400, 99)
    settings = [
        ("Poisson(3)", lambda g: g.poisson(3.0, N_POWER)),
        (
            "negative binomial, mean 3, variance 4.5",
            lambda g: g.negative_binomial(6, 6 / 9, N_POWER),
        ),
        ("negative binomial, mean 3, variance 6", lambda g: g.negative_binomial(3, 0.5, N_POWER)),
        (
            "zero-inflated Poisson(3), 10% zeros",
            lambda g: g.poisson(3.0, N_POWER) * (g.uniform(size=N_POWER) > 0.1),
        ),
        ("binomial(6, 0.5): underdispersed", lambda g: g.binomial(6, 0.5, N_POWER)),
    ]
    rows = []
    for name, draw in settings:
        rng = np.random.default_rng(seed("poisson", name))
        rejected = np.zeros(3)
        for _ in range(reps):
            rejected += es.poisson_test(draw(rng), n_resamples=B, rng=rng).pvalue <= 0.05
        rows.append(
            {
                "alternative": name,
                "n": N_POWER,
                "power M-CvM": rejected[0] / reps,
                "power M-AD": rejected[1] / reps,
                "power E": rejected[2] / reps,
                "se (at most)": binomial_se(0.5, reps),
                "data sets": reps,
                "B": B,
            }
        )
    return pd.DataFrame(rows)


SECTIONS = {"limit": limit, "level": level, "power": power, "poisson": poisson}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--only", nargs="+", choices=list(SECTIONS))
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    suffix = "_quick" if args.quick else ""
    for name in args.only or SECTIONS:
        start = time.perf_counter()
        table = SECTIONS[name](args.quick)
        table.to_csv(args.out / f"gof_{name}{suffix}.csv", index=False)
        text = f"# {name}\n\n```text\n{table.round(4).to_string(index=False)}\n```\n"
        (args.out / f"gof_{name}{suffix}.md").write_text(text)
        print(text, f"({time.perf_counter() - start:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
