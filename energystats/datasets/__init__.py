"""R's classic example data sets as pandas DataFrames: ``load_<name>`` returns R's ``name``
(``load_usarrests`` R's ``USArrests``), exported from R 4.2.2 with ``write.csv`` and equal to
R's copy value for value: factors as Categoricals with R's levels in R's order, integer
columns int64, numeric ones float64, row names the index where they name the rows. Each
loader gives its data's published source."""

from __future__ import annotations

from importlib import resources

import numpy as np
import pandas as pd

from .._config import check_fits
from .._frontdoor import front_door
from .._validation import check_positive_int

__all__ = ["load_chickwts", "load_example", "load_faithful", "load_iris", "load_mtcars",
           "load_plantgrowth", "load_quakes", "load_toothgrowth", "load_usarrests",
           "load_warpbreaks", "make_power_kmeans_data"]

EXAMPLES = ("iris", "quakes", "faithful", "usarrests", "mtcars", "plantgrowth", "chickwts",
            "toothgrowth", "warpbreaks")


def _read(name: str, ints: tuple = (), row_names: bool = False, **factors) -> pd.DataFrame:
    """``name.csv`` from R's ``write.csv`` (with ``row_names``, the first column): ``ints``
    int64, each of ``factors`` (column="R's levels") a Categorical, the others float64."""
    with resources.files(__package__).joinpath(f"{name}.csv").open("r", encoding="utf-8") as fh:
        frame = pd.read_csv(fh, index_col=0 if row_names else None)
    return frame.astype({c: pd.CategoricalDtype(factors[c].split(), ordered=False)
                         if c in factors else "int64" if c in ints else "float64"
                         for c in frame.columns})


@front_door()
def load_iris() -> pd.DataFrame:
    """Fisher's (Anderson's) iris data, identical to R's built-in ``iris``.

    Returns
    -------
    pandas.DataFrame of shape (150, 5)
        ``Sepal.Length``, ``Sepal.Width``, ``Petal.Length``, ``Petal.Width`` (cm) and
        ``Species`` (a categorical: ``setosa``, ``versicolor``, ``virginica``; 50 each).

    References
    ----------
    Fisher, R. A. (1936). The use of multiple measurements in taxonomic problems.
    *Annals of Eugenics*, 7(2), 179-188. Anderson, E. (1935). The irises of the Gaspe
    Peninsula. *Bulletin of the American Iris Society*, 59, 2-5.

    Examples
    --------
    >>> list(load_iris()["Species"].cat.categories)
    ['setosa', 'versicolor', 'virginica']
    """
    return _read("iris", Species="setosa versicolor virginica")


@front_door()
def load_quakes() -> pd.DataFrame:
    """Locations of 1,000 earthquakes off Fiji since 1964 (of body-wave magnitude above 4.0, a
    subsample of 5,000), R's ``quakes``: two planes of activity, a plate junction and the
    Tonga trench.

    Returns
    -------
    pandas.DataFrame of shape (1000, 5)
        ``lat`` and ``long`` (degrees), ``depth`` (km, integer), ``mag`` (Richter
        magnitude) and ``stations`` (number of stations reporting, integer).

    References
    ----------
    One of the Harvard PRIM-H project data sets, which obtained it from Dr. John Woodhouse,
    Department of Geophysics, Harvard University (R's ``?quakes``).

    Examples
    --------
    >>> float(load_quakes()["mag"].mean())
    4.6204
    """
    return _read("quakes", ints=("depth", "stations"))


@front_door()
def load_faithful() -> pd.DataFrame:
    """Old Faithful geyser eruptions, R's ``faithful``: the waiting time between eruptions and
    the duration of 272 eruptions of the geyser in Yellowstone National Park, Wyoming, USA, in
    two clusters (short and long); the eruption times are heavily rounded (they were seconds).

    Returns
    -------
    pandas.DataFrame of shape (272, 2)
        ``eruptions`` (eruption time, minutes) and ``waiting`` (waiting time to the next
        eruption, minutes).

    References
    ----------
    Härdle, W. (1991). *Smoothing Techniques with Implementation in S*. New York: Springer
    (the source of R's copy). Azzalini, A. and Bowman, A. W. (1990). A look at some data on
    the Old Faithful geyser. *Applied Statistics*, 39, 357-365 (a more complete version).

    Examples
    --------
    >>> float(load_faithful()["waiting"].median())
    76.0
    """
    return _read("faithful")


@front_door()
def load_usarrests() -> pd.DataFrame:
    """Violent crime rates by US state in 1973, R's ``USArrests``: arrests per 100,000
    residents for assault, murder and rape, and the percentage of urban population (with the
    transcription error for Maryland R's help page notes, kept as R has it).

    Returns
    -------
    pandas.DataFrame of shape (50, 4)
        Indexed by state. ``Murder``, ``Assault`` (integer) and ``Rape`` (arrests per
        100,000) and ``UrbanPop`` (percent urban population, integer).

    References
    ----------
    World Almanac and Book of Facts 1975 (crime rates); Statistical Abstracts of the United
    States 1975, p. 20 (urban rates). McNeil, D. R. (1977). *Interactive Data Analysis*.
    New York: Wiley.

    Examples
    --------
    >>> int(load_usarrests().loc["Maryland", "UrbanPop"])
    67
    """
    return _read("USArrests", ints=("Assault", "UrbanPop"), row_names=True)


@front_door()
def load_mtcars() -> pd.DataFrame:
    """Motor Trend car road tests, R's ``mtcars``: fuel consumption and 10 aspects of design
    and performance of 32 automobiles (1973-74 models), from the 1974 *Motor Trend* magazine.

    Returns
    -------
    pandas.DataFrame of shape (32, 11)
        Indexed by car model; every column float64, as in R: ``mpg`` (miles per US gallon),
        ``cyl`` (cylinders), ``disp`` (displacement, cu. in.), ``hp`` (gross horsepower),
        ``drat`` (rear axle ratio), ``wt`` (1000 lb), ``qsec`` (quarter-mile time, s), ``vs``
        (engine: 0 V-shaped, 1 straight), ``am`` (0 automatic, 1 manual transmission),
        ``gear`` (forward gears), ``carb`` (carburettors).

    References
    ----------
    Henderson, H. V. and Velleman, P. F. (1981). Building multiple regression models
    interactively. *Biometrics*, 37, 391-411.

    Examples
    --------
    >>> float(load_mtcars().loc["Mazda RX4", "mpg"])
    21.0
    """
    return _read("mtcars", row_names=True)


@front_door()
def load_plantgrowth() -> pd.DataFrame:
    """Plant yields under a control and two treatments, R's ``PlantGrowth`` (three groups
    of 10: a k-sample test).

    Returns
    -------
    pandas.DataFrame of shape (30, 2)
        ``weight`` (dried weight of the plants) and ``group`` (a categorical: ``ctrl``,
        ``trt1``, ``trt2``).

    References
    ----------
    Dobson, A. J. (1983). *An Introduction to Statistical Modelling*. London: Chapman and
    Hall.

    Examples
    --------
    >>> load_plantgrowth().groupby("group", observed=True)["weight"].mean().round(3).tolist()
    [5.032, 4.661, 5.526]
    """
    return _read("PlantGrowth", group="ctrl trt1 trt2")


@front_door()
def load_chickwts() -> pd.DataFrame:
    """Chicken weights six weeks after hatching, by feed supplement (allocated at random), R's
    ``chickwts`` (six groups: a k-sample test).

    Returns
    -------
    pandas.DataFrame of shape (71, 2)
        ``weight`` (grams) and ``feed`` (a categorical: ``casein``, ``horsebean``,
        ``linseed``, ``meatmeal``, ``soybean``, ``sunflower``).

    References
    ----------
    Anonymous (1948). *Biometrika*, 35, 214. McNeil, D. R. (1977). *Interactive Data
    Analysis*. New York: Wiley.

    Examples
    --------
    >>> load_chickwts()["feed"].value_counts(sort=False).tolist()
    [12, 10, 12, 11, 14, 12]
    """
    return _read("chickwts", feed="casein horsebean linseed meatmeal soybean sunflower")


@front_door()
def load_toothgrowth() -> pd.DataFrame:
    """Vitamin C and tooth growth in guinea pigs, R's ``ToothGrowth``: the length of
    odontoblasts in 60 guinea pigs, each given a dose of vitamin C by orange juice or ascorbic
    acid.

    Returns
    -------
    pandas.DataFrame of shape (60, 3)
        ``len`` (tooth length), ``supp`` (a categorical: ``OJ`` orange juice, ``VC``
        ascorbic acid) and ``dose`` (0.5, 1 or 2 mg/day).

    References
    ----------
    Bliss, C. I. (1952). *The Statistics of Bioassay*. Academic Press. Crampton, E. W.
    (1947). The growth of the odontoblast of the incisor teeth as a criterion of vitamin C
    intake of the guinea pig. *The Journal of Nutrition*, 33(5), 491-504.

    Examples
    --------
    >>> round(float(load_toothgrowth()["len"].mean()), 5)
    18.81333
    """
    return _read("ToothGrowth", supp="OJ VC")


@front_door()
def load_warpbreaks() -> pd.DataFrame:
    """Warp breaks in yarn during weaving, R's ``warpbreaks`` (two factors crossed, 9 looms
    each: R's ``disco`` with several factors).

    Returns
    -------
    pandas.DataFrame of shape (54, 3)
        ``breaks`` (warp breaks per loom, a fixed length of yarn), ``wool`` (a categorical:
        ``A``, ``B``) and ``tension`` (a categorical: ``L``, ``M``, ``H``).

    References
    ----------
    Tippett, L. H. C. (1950). *Technological Applications of Statistics*. Wiley, p. 106.
    Tukey, J. W. (1977). *Exploratory Data Analysis*. Addison-Wesley.

    Examples
    --------
    >>> load_warpbreaks().groupby("tension", observed=True)["breaks"].mean().round(5).tolist()
    [36.38889, 26.38889, 21.66667]
    """
    return _read("warpbreaks", wool="A B", tension="L M H")


@front_door()
def load_example(name: str) -> pd.DataFrame:
    """An embedded example data set by name: ``load_<name>()``.

    Parameters
    ----------
    name : str
        One of ``EXAMPLES``, the loaders' names (``"iris"``, ``"usarrests"``, ...).

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> load_example("quakes").shape
    (1000, 5)
    """
    if name not in EXAMPLES:
        raise ValueError(f"`name` must be one of {EXAMPLES}, got {name!r}.")
    return globals()[f"load_{name}"]()


@front_door()
def make_power_kmeans_data(n_samples=2500, n_clusters=50, n_features=2, *, rng=None,
                           equal_sizes=False):
    """Xu & Lange's (2019) simulation: standard-normal clusters around uniform centres.

    A side r ~ U(30, 60), then ``n_clusters`` centres uniform in [0, r]^``n_features``, each
    point's cluster uniform (``equal_sizes``: a random order of n/k per cluster) and the point
    its centre plus N(0, I) noise (Section 4 of the paper: n = 2,500, k = 50, d = 2 to 200).

    Parameters
    ----------
    n_samples, n_clusters, n_features : int
        Number of points n, clusters k and dimension d.
    rng : None, int or numpy.random.Generator, default=None
        Seed or generator (a generator is used, and advanced, in place).
    equal_sizes : bool, default=False
        Clusters of equal size (sizes differing by at most one when k does not divide n)
        instead of multinomial sizes; r and the centres are the same for the same seed.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
    labels : ndarray of shape (n_samples,)
        The cluster of each point.
    centres : ndarray of shape (n_clusters, n_features)

    Examples
    --------
    >>> X, labels, centres = make_power_kmeans_data(100, 5, 3, rng=0)
    >>> X.shape, centres.shape, sorted(set(labels.tolist()))
    ((100, 3), (5, 3), [0, 1, 2, 3, 4])
    """
    n = check_positive_int(n_samples, "n_samples")
    k = check_positive_int(n_clusters, "n_clusters")
    d = check_positive_int(n_features, "n_features")
    if not isinstance(equal_sizes, (bool, np.bool_)):
        raise ValueError(f"`equal_sizes` must be True or False, got {equal_sizes!r}.")
    # the points, the noise added, the centres gathered by label and the labels
    check_fits(f"make_power_kmeans_data of {n:,} points in {d:,} dimensions",
               8 * (3 * n * d + n + k * d), "a smaller `n_samples`")
    rng = np.random.default_rng(rng)
    r = rng.uniform(30, 60)
    centres = rng.uniform(0, r, size=(k, d))
    labels = rng.permutation(np.arange(n) % k) if equal_sizes else rng.integers(0, k, size=n)
    return centres[labels] + rng.normal(size=(n, d)), labels, centres
