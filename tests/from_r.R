# energystats called from R through reticulate, checked against R's energy on the same data.
#
# Run by tests/infrastructure/test_from_r.py as `Rscript tests/from_r.R`, with RETICULATE_PYTHON
# naming a Python environment that has numpy < 2 and energystats (`make .venv-r/.stamp` builds one).
# docs/from_r.md shows the parts between the "# [name]" and "# [/name]" lines.
# Prints one line per check and exits with status 1 when one fails.

# [setup]
library(reticulate)
library(energy)
es <- import("energystats")
# [/setup]

cat(sprintf("R %s, energy %s, reticulate %s; Python %s, numpy %s, energystats %s from %s\n",
            getRversion(), packageVersion("energy"), packageVersion("reticulate"),
            py_config()$version, import("numpy")$`__version__`, es$`__version__`, es$`__file__`))

failures <- character()

report <- function(what, ok, detail) {
  cat(sprintf("%-4s %-46s %s\n", if (ok) "ok" else "FAIL", what, detail))
  if (!ok) failures <<- c(failures, what)
}

# energystats' numbers against energy's: the largest relative difference, entry by entry.
agree <- function(what, ours, theirs, tolerance = 1e-12) {
  ours <- as.numeric(ours)
  theirs <- as.numeric(theirs)
  difference <- if (length(ours) == length(theirs)) max(abs(ours - theirs) / pmax(abs(theirs), 1e-300)) else Inf
  report(what, difference <= tolerance, sprintf("relative difference %.1e (tolerance %.0e)", difference, tolerance))
}

# [kgroups]
x <- iris[, 1:4]
km <- es$KGroups(3L, random_state = 0L)$fit(x)
clusters <- km$labels_ + 1
table(clusters, iris$Species)
# [/kgroups]
agree("KGroups W_ = disco within", km$W_, disco(x, factor(clusters), R = 0)$within)

# [energy_test]
test <- es$energy_test(x, iris$Species, n_resamples = 999L, rng = 0L)
test$statistic
test$pvalue
# [/energy_test]
agree("energy_test statistic = disco.between", test$statistic, disco.between(x, iris$Species, R = 0))
report("the same seed, the same p-value", identical(es$energy_test(x, iris$Species, n_resamples = 999L, rng = 0L)$pvalue, test$pvalue), "")

# [lists]
result <- test$to_dict()
str(result[c("statistic", "pvalue", "n_resamples", "groups")])
test$to_frame()
groups <- es$dispersion(x, iris$Species)$to_frame()
groups
# [/lists]
report("to_dict gives an R list", is.list(result) && identical(result$pvalue, test$pvalue), "")
report("to_frame gives one row", is.data.frame(test$to_frame()) && nrow(test$to_frame()) == 1, "")
report("to_frame gives a data.frame", is.data.frame(groups) && identical(rownames(groups), levels(iris$Species)), "")

# [integers]
es$energy_test(x, iris$Species, n_resamples = 999, rng = 0L)$n_resamples  # a whole double counts
refused <- tryCatch(es$energy_test(x, iris$Species, n_resamples = 999.5), error = conditionMessage)
refused
# [/integers]
counted <- es$energy_test(x, iris$Species, n_resamples = 999, rng = 0L)
report("n_resamples = 999 is a count", identical(counted$n_resamples, 999L), "")
report("n_resamples = 999.5 is refused", grepl("`n_resamples` must be a whole number", refused), "")

# The same calls on every data set: x sorted by group, as edist and eqdist.etest need
# (they take group sizes, not labels); labels as they come from R.
# [compare]
compare <- function(name, x, labels) {
  sizes <- as.vector(table(labels))
  agree(paste(name, "edist"), es$dispersion(x, labels)$pairwise, as.matrix(edist(x, sizes)))
  first <- labels == unique(labels)[1]
  second <- labels == unique(labels)[2]
  n1 <- sum(first)
  n2 <- sum(second)
  agree(paste(name, "edist of the first two groups"),
        n1 * n2 / (n1 + n2) * es$energy_distance(x[first, ], x[second, ]),
        edist(rbind(x[first, ], x[second, ]), c(n1, n2)))
  for (a in c(0.5, 1, 1.5)) {
    ours <- es$dispersion(x, labels, exponent = a)
    theirs <- disco(x, factor(labels), index = a, R = 0)
    agree(sprintf("%s disco W, S, T, F, index %g", name, a),
          c(ours$W, ours$S, ours$T, ours$F),
          c(theirs$within, theirs$between, theirs$total, theirs$statistic))
  }
  ours <- es$energy_test(x, labels, statistic = "E", n_resamples = 999L, ties = "strict", rng = 0L)
  set.seed(0)
  theirs <- eqdist.etest(x, sizes, R = 999)
  agree(paste(name, "eqdist.etest statistic"), ours$statistic, theirs$statistic)
  # Monte Carlo p-values from different random streams: within 4.5 binomial standard errors
  # (two data sets: false failure 2 P(|Z| > 4.5) = 1.4e-5, normal bound)
  p <- (ours$pvalue + theirs$p.value) / 2
  allowed <- 4.5 * sqrt(2 * p * (1 - p) / 1000) + 2 / 1000
  report(paste(name, "eqdist.etest p-value"), abs(ours$pvalue - theirs$p.value) <= allowed,
         sprintf("%.3f vs %.3f (allowed difference %.3f)", ours$pvalue, theirs$p.value, allowed))
  agree(paste(name, "mvnorm.e"), es$mvnorm_statistic(x), mvnorm.e(x))
  x1 <- x[, 1]
  y <- x[, -1]
  for (a in c(0.5, 1, 1.5)) {
    agree(sprintf("%s dcov, index %g", name, a), es$dcov(x1, y, exponent = a), dcov(x1, y, index = a))
    agree(sprintf("%s dcor, index %g", name, a), es$dcor(x1, y, exponent = a), dcor(x1, y, index = a))
  }
}
compare("iris", iris[, 1:4], iris$Species)
complete <- na.omit(airquality)
compare("airquality", complete[, 1:4], complete$Month)
# [/compare]

# [r-kgroups]
start <- rep(1:3, length.out = nrow(x))
fit <- kgroups(x, 3, iter.max = 100, cluster = start)
km <- es$KGroups(3L, algorithm = "r-kgroups", init = start, max_iter = 100L)$fit(x)
all(km$labels_ + 1 == fit$cluster)
# [/r-kgroups]
report("kgroups clusters", all(km$labels_ + 1 == fit$cluster), "identical")
report("kgroups iterations", km$n_iter_ == fit$iterations, sprintf("%d vs %d", km$n_iter_, fit$iterations))
agree("kgroups sizes", km$cluster_sizes_, fit$sizes, tolerance = 0)
agree("kgroups W", km$W_, fit$W)
# [hartigan]
hartigan <- es$KGroups(3L, init = fit$cluster)$fit(x)
hartigan$W_ <= fit$W
# [/hartigan]
report("Hartigan from R's clusters: W no larger", hartigan$W_ <= fit$W * (1 + 1e-12),
       sprintf("%.6f vs R %.6f", hartigan$W_, fit$W))

# R's NA through reticulate: an integer NA arrives as -2147483648, a character NA as "NA";
# energystats reads both as missing, as R's own NA.
# [missing]
x <- c(3L, 1L, NA, 4L, 5L, 9L, 2L, 7L)
y <- c(1, 3, 2, 5, 4, 8, 1, 6)
es$dcov(x, y, nan_policy = "omit")
dcov(x[!is.na(x)], y[!is.na(x)])
g <- c("a", NA, "b", "a", "b", "a", "b", "a")
es$dispersion(y, g, nan_policy = "omit")$groups
# [/missing]
agree("dcov with an integer NA omitted", es$dcov(x, y, nan_policy = "omit"), dcov(x[!is.na(x)], y[!is.na(x)]))
agree("dcor with an integer NA omitted", es$dcor(x, y, nan_policy = "omit"), dcor(x[!is.na(x)], y[!is.na(x)]))
agree("normal_statistic with an integer NA omitted", es$normal_statistic(x, nan_policy = "omit"),
      normal.e(x[!is.na(x)]))
refused <- tryCatch(es$dcov(x, y), error = conditionMessage)
report("an integer NA is refused by default", grepl("`x` contains missing values", refused), "")
groups <- es$dispersion(y, g, nan_policy = "omit")
report("a character NA is no group", identical(as.vector(groups$groups), c("a", "b")) && groups$n_omitted == 1L, "")
agree("disco with a character NA omitted", groups$W, disco(y[!is.na(g)], factor(g[!is.na(g)]), R = 0)$within)
xy <- cbind(x, 2L * x + c(1L, 0L, 0L, 1L, 1L, 0L, 0L, 1L))
agree("mvnorm.e of an integer matrix with NA omitted", es$mvnorm_statistic(xy, nan_policy = "omit"),
      mvnorm.e(xy[!is.na(x), ]))

omitted <- es$pairwise_dcor(airquality[, 1:4], nan_policy = "omit")
kept <- na.omit(airquality[, 1:4])
agree("pairwise_dcor with R's NA omitted = dcor on the complete rows",
      omitted$matrix["Ozone", "Temp"], dcor(kept$Ozone, kept$Temp))
refused <- tryCatch(es$pairwise_dcor(airquality[, 1:4]), error = conditionMessage)
report("pairwise_dcor refuses R's NA by default",
       grepl("`X` contains missing values \\(R's NA\\) in 42 of 153", refused), "")

# Data as it comes: R's NA among strings, a factor's levels, dates, repeated column names.
# [as-it-comes]
v <- iris$Sepal.Length[1:30]
region <- rep(c(NA, "EU", "AS"), each = 10)
es$dispersion(v, region, nan_policy = "omit")$groups
dose <- factor(ToothGrowth$dose, labels = c("low", "medium", "high"), ordered = TRUE)
tooth <- data.frame(len = ToothGrowth$len, dose = dose)
by_dose <- es$dispersion(tooth, "dose")
by_dose$groups
dated <- data.frame(len = tooth$len, day = as.Date("2024-03-01") + seq_along(tooth$len))
tryCatch(es$energy_test(dated, ToothGrowth$supp), error = conditionMessage)
twice <- data.frame(len = tooth$len, len = rev(tooth$len), check.names = FALSE)
tryCatch(es$energy_test(twice, ToothGrowth$supp), error = conditionMessage)
# [/as-it-comes]
regions <- es$dispersion(v, region, nan_policy = "omit")
report("a character NA is no group",
       identical(as.vector(regions$groups), c("AS", "EU")) && regions$n_omitted == 10L, "")
known <- !is.na(region)
agree("disco with R's character NA omitted", regions$W,
      disco(v[known], factor(region[known]), R = 0)$within)
refused <- tryCatch(es$dispersion(v, region), error = conditionMessage)
report("a character NA is refused by default, named R's NA",
       grepl("`labels` contains missing values \\(R's NA\\) in 10 of 30", refused), "")
report("groups in the factor's level order", identical(as.vector(by_dose$groups), levels(dose)),
       paste(by_dose$groups, collapse = ", "))
sizes <- as.vector(table(dose))
agree("sizes in the factor's level order", by_dose$sizes, sizes, tolerance = 0)
agree("pairwise edist in the factor's level order", by_dose$pairwise,
      as.matrix(edist(tooth$len[order(dose)], sizes)))
agree("disco of an ordered factor", by_dose$W, disco(tooth$len, dose, R = 0)$within)
refused <- tryCatch(es$energy_test(dated, ToothGrowth$supp), error = conditionMessage)
report("a Date column is refused, named",
       grepl("`X` has a column 'day' of dates, times or durations", refused), "")
refused <- tryCatch(es$energy_test(twice, ToothGrowth$supp), error = conditionMessage)
report("a repeated column name is refused",
       grepl("`X` has the column name 'len' more than once", refused), "")
codes <- as.integer(dose)
left_in <- py_capture_output(es$energy_test(cbind(tooth$len, codes), codes, n_resamples = 9L,
                                            rng = 0L), type = "stderr")
report("a grouping column left in the data warns",
       grepl("`labels` holds the groups of column 1 of `X`.*X\\[, -2\\] in R", left_in), "")

# R objects as R users pass them: a data frame of variables, a dist object, several factors.
# [r-objects]
screen <- es$pairwise_dcor(quakes)
screen$n_samples
d <- dist(quakes[1:50, 1:2])
es$dcov(d, quakes[1:50, 3:4])
factors <- data.frame(cyl = factor(mtcars$cyl), am = factor(mtcars$am))
two <- es$dispersion(mtcars[, c("mpg", "disp", "hp")], factors)
two$disco_table()
# [/r-objects]
report("pairwise_dcor reads a data frame by its columns", screen$n_samples == 1000L && nrow(screen$table) == 10L,
       sprintf("%d observations, %d pairs", screen$n_samples, nrow(screen$table)))
agree("pairwise_dcor of mag and stations = dcor", screen$matrix["mag", "stations"], dcor(quakes$mag, quakes$stations))
agree("dcov of a dist object = dcov(d, y)", es$dcov(d, quakes[1:50, 3:4]), dcov(d, quakes[1:50, 3:4]))
agree("dcor of a dist object = dcor(d, y)", es$dcor(d, quakes[1:50, 3:4]), dcor(d, quakes[1:50, 3:4]))
theirs <- disco(mtcars[, c("mpg", "disp", "hp")], factors, R = 0)
agree("disco with two factors: between, within, total, F",
      c(sapply(two$by_factor, function(f) f$S), two$W, two$T, sapply(two$by_factor, function(f) f$F)),
      c(theirs$between, theirs$within, theirs$total, theirs$statistic))
agree("disco with two factors: Df", two$disco_table()$Df, c(theirs$Df.trt, theirs$Df.e, theirs$N - 1), tolerance = 0)

# The fourth probe (issue 48): dist objects as distances everywhere, whole numbers as counts and
# seeds, rows paired by position as R pairs them.
# [dist]
swiss_d <- dist(scale(swiss))
tree <- es$energy_hclust(swiss_d)
tree$n_samples
Dx <- dist(swiss[, 1:2])
Dy <- dist(swiss[, 3:5])
es$dcor(Dx, Dy)
km <- es$KGroups(3, metric = "precomputed", random_state = 1)$fit(swiss_d)
# [/dist]
report("energy_hclust of a dist: its 47 leaves", tree$n_samples == length(energy.hclust(swiss_d)$order), "")
agree("energy_hclust of a dist: merge heights = energy.hclust", sort(tree$height), sort(energy.hclust(swiss_d)$height))
agree("dcor of two dist objects = dcor(Dx, Dy)", es$dcor(Dx, Dy), dcor(Dx, Dy))
agree("dcor of two dist objects, called again", es$dcor(Dx, Dy), dcor(Dx, Dy))
agree("KGroups(3, precomputed) of a dist: W = disco", km$W_, disco(swiss_d, factor(km$labels_), R = 0)$within)
refused <- tryCatch(es$KGroups(3)$fit(swiss_d), error = conditionMessage)
report("KGroups(3) of a dist says metric = 'precomputed'", grepl("metric='precomputed'", refused), "")
seeded <- es$dcor_test(swiss$Fertility, swiss$Education, rng = 1, n_resamples = 99)
report("rng = 1 and n_resamples = 99 without L", identical(seeded$n_resamples, 99L),
       sprintf("p = %g", seeded$pvalue))
agree("a list of columns is a data frame", es$dcor(list(swiss$Fertility, swiss$Education), swiss$Agriculture),
      dcor(swiss[, c("Fertility", "Education")], swiss$Agriculture))
sorted <- swiss[order(swiss$Agriculture), ]
agree("rows paired by position, as R", es$dcor(sorted[, "Fertility", drop = FALSE], swiss[, "Education", drop = FALSE]),
      dcor(sorted$Fertility, swiss$Education))

if (length(failures) > 0) {
  cat("energystats differs from energy:", paste(failures, collapse = "; "), "\n")
  quit(status = 1)
}
