# Reference values from R's `energy` package, loaded by tests/infrastructure/test_r_reference.py.
#
# Usage: Rscript validation/r_reference.R [tests/data/r_reference.json]
#
# Writes one JSON file holding, for each data set, the data themselves (rounded to 4 decimals,
# so that R and Python read the same numbers), the group sizes, and what R computes from them:
# edist, disco (R = 0), eqdist.e, the eqdist.etest statistic and p-value, kgroups from a
# stated start, and energy.hclust (merge, height, order) for alpha = 0.5, 1, 1.5; then data sets
# for mvnorm.e and mvnorm.test (d = 1, 2, 5; Gaussian and not). The R, energy and jsonlite
# versions are recorded at the top.
suppressMessages({
  library(energy)
  library(jsonlite)
})

args <- commandArgs(trailingOnly = TRUE)
out <- if (length(args) > 0) args[1] else "tests/data/r_reference.json"

upper <- function(m) m[upper.tri(m)]  # column-major: (1,2), (1,3), (2,3), ...

energy_values <- function(x, sizes, distance, alpha) {
  groups <- factor(rep(seq_along(sizes), sizes))
  d <- disco(x, groups, distance = distance, index = alpha, R = 0)
  list(
    alpha = alpha,
    edist = upper(as.matrix(edist(x, sizes, distance = distance, alpha = alpha))),
    disco = list(between = d$between, within = d$within, total = d$total,
                 statistic = unname(d$statistic))
  )
}

make_case <- function(name, x, sizes, distance = FALSE, seed = 1) {
  set.seed(seed)
  n <- sum(sizes)
  k <- length(sizes)
  by_alpha <- lapply(c(1, 0.5), function(a) energy_values(x, sizes, distance, a))
  set.seed(seed)
  etest <- eqdist.etest(x, sizes, distance = distance, R = 199)
  case <- list(name = name, distance = distance, sizes = sizes, by_alpha = by_alpha,
               eqdist_e = unname(eqdist.e(x, sizes, distance = distance)),
               etest = list(R = 199, statistic = unname(etest$statistic), p_value = etest$p.value))
  case$hclust <- lapply(c(0.5, 1, 1.5), function(a) {
    h <- energy.hclust(if (distance) x else dist(x), alpha = a)
    list(alpha = a, merge = h$merge, height = h$height, order = h$order)
  })
  if (!distance) {
    start <- rep(seq_len(k), length.out = n)[sample(n)]
    kg <- kgroups(x, k, iter.max = 100, nstart = 1, cluster = start)
    case$kgroups <- list(start = start, cluster = kg$cluster, sizes = kg$sizes,
                         within = kg$within, W = kg$W, iterations = kg$iterations, count = kg$count)
    case$x <- x
  } else {
    case$x <- as.matrix(x)
  }
  case
}

set.seed(20261122)
normal_sizes <- c(30, 45, 25)
normal <- round(matrix(rnorm(sum(normal_sizes) * 3), ncol = 3) +
                  0.5 * rep(seq_along(normal_sizes) - 1, normal_sizes), 4)
heavy_sizes <- c(40, 35)
heavy <- round(matrix(rt(sum(heavy_sizes) * 2, df = 2), ncol = 2) +
                 c(rep(0, 40), rep(1, 35)), 4)
onedim_sizes <- c(40, 60)
onedim <- round(matrix(c(rexp(40), rexp(60, 0.5)), ncol = 1), 4)

iris_x <- as.matrix(iris[, 1:4])
dimnames(iris_x) <- NULL
cases <- list(
  make_case("iris", iris_x, as.vector(table(iris$Species))),
  make_case("normal k=3, d=3", normal, normal_sizes),
  make_case("t2 k=2, d=2", heavy, heavy_sizes),
  make_case("exponential 1-D", onedim, onedim_sizes),
  make_case("L1 distances of the normal data", dist(normal, method = "manhattan"), normal_sizes,
            distance = TRUE)
)

normality_case <- function(name, x, seed = 1) {
  set.seed(seed)
  test <- mvnorm.test(x, R = 199)
  list(name = name, x = as.matrix(x), mvnorm_e = unname(mvnorm.e(x)),
       test = list(R = 199, statistic = unname(test$statistic), p_value = test$p.value))
}

set.seed(20261123)
mixture <- matrix(rnorm(60 * 5), ncol = 5)
mixture[1:20, 1] <- mixture[1:20, 1] + 4
normality <- list(
  normality_case("Gaussian d=1", round(matrix(rnorm(40), ncol = 1), 4)),
  normality_case("Gaussian d=2", round(matrix(rnorm(50 * 2), ncol = 2), 4)),
  normality_case("Gaussian d=5", round(matrix(rnorm(80 * 5), ncol = 5), 4)),
  normality_case("exponential d=1", round(matrix(rexp(40), ncol = 1), 4)),
  normality_case("t3 d=2", round(matrix(rt(50 * 2, df = 3), ncol = 2), 4)),
  normality_case("mixture d=5", round(mixture, 4))
)

reference <- list(
  generated_by = "validation/r_reference.R",
  R = paste(R.version$major, R.version$minor, sep = "."),
  energy = as.character(packageVersion("energy")),
  jsonlite = as.character(packageVersion("jsonlite")),
  cases = cases,
  normality = normality
)
dir.create(dirname(out), showWarnings = FALSE, recursive = TRUE)
writeLines(toJSON(reference, auto_unbox = TRUE, digits = NA, pretty = TRUE), out)
cat("wrote", out, "\n")
