# Reference values from R's `energy` package for the goodness-of-fit family and ksample.e,
# loaded by tests/gof/test_r_reference_gof.py.
#
# Usage: Rscript validation/r_reference_gof.R [tests/data/r_reference_gof.json]
#
# Writes one JSON file holding the data (rounded to 4 decimals, or integer counts, so that R and
# Python read the same numbers) and what R computes from them: normal.e and normal.test (R = 199)
# on univariate samples; the EVnormal table (first 20 rows of the four cases, and the column
# sums, all of Case 4), and Imhof's tail probability of the Case 4 quadratic form on R's own eigenvalues
# (Imhof 1961, eq. 3.2, by R's integrate: R's normal.test(method = "limit") calls
# CompQuadForm::imhof, which Debian does not package); poisson.m, poisson.e and poisson.tests
# (R = 199) on counts; ksample.e of a permutation by its three methods; mvnorm.e in d = 100,
# 300 and 1,000 dimensions (n a little above d) on a lattice both sides compute from its
# formula (qnorm of frac(0.618... i + 0.754... j), i <= n, j <= d), not stored. The R, energy
# and jsonlite versions are recorded at the top.
suppressMessages({
  library(energy)
  library(jsonlite)
})

args <- commandArgs(trailingOnly = TRUE)
out <- if (length(args) > 0) args[1] else "tests/data/r_reference_gof.json"

normal_case <- function(name, x, seed = 1) {
  set.seed(seed)
  test <- normal.test(x, R = 199)
  list(name = name, x = x, normal_e = unname(normal.e(x)),
       test = list(R = 199, statistic = unname(test$statistic), p_value = test$p.value,
                   estimate = unname(test$estimate)))
}

set.seed(20261201)
normal <- list(
  normal_case("iris setosa sepal length", iris[1:50, 1]),
  normal_case("Gaussian n=20", round(rnorm(20, 5, 2), 4)),
  normal_case("Gaussian n=200", round(rnorm(200), 4)),
  normal_case("exponential n=40", round(rexp(40), 4)),
  normal_case("t3 n=60", round(rt(60, df = 3), 4)),
  normal_case("two values", c(1, 2))
)

data(EVnormal)
# Imhof (1961), eq. 3.2: P(sum lambda_k Z_k^2 > q) = 1/2 + (1/pi) int_0^Inf sin(theta(u)) / (u rho(u)) du
imhof_sf <- function(q, lambda) {
  integrand <- function(u) vapply(u, function(v) {
    theta <- 0.5 * sum(atan(lambda * v)) - 0.5 * q * v
    rho <- prod((1 + lambda^2 * v^2)^0.25)
    sin(theta) / (v * rho)
  }, numeric(1))
  0.5 + integrate(integrand, 0, Inf, rel.tol = 1e-12, abs.tol = 1e-14, subdivisions = 10000L)$value / pi
}
limit_t <- c(0.1, 0.2, 0.4, 0.4650294552821066, 0.6, 0.8, 1.0, 1.5, 2.5)
evnormal <- list(
  head = unname(EVnormal[1:20, 2:5]),
  sums = unname(colSums(EVnormal[, 2:5])),
  case4 = unname(EVnormal[, 5]),
  imhof_case4 = list(t = limit_t, sf = vapply(limit_t, imhof_sf, numeric(1), lambda = EVnormal[, 5]))
)

poisson_case <- function(name, x, seed = 1) {
  x <- as.integer(x)
  set.seed(seed)
  tests <- poisson.tests(x, R = 199)
  list(name = name, x = x, poisson_m = unname(poisson.m(x)), poisson_e = unname(poisson.e(x)),
       tests = list(R = 199, statistic = unname(tests$statistic), p_value = unname(tests$p.value),
                    estimate = unname(tests$estimate[1])))
}

set.seed(20261202)
poisson <- list(
  poisson_case("lambda 2, n=30", rpois(30, 2)),
  poisson_case("lambda 0.3, n=40", rpois(40, 0.3)),
  poisson_case("lambda 60, n=25", rpois(25, 60)),
  poisson_case("negative binomial n=35", rnbinom(35, size = 1, mu = 4)),
  poisson_case("zeros and a jump", c(0, 5)),
  poisson_case("constant", rep(3, 10))
)

ksample_case <- function(name, x, sizes, seed = 1) {
  set.seed(seed)
  ix <- sample(sum(sizes))
  methods <- c("original", "discoB", "discoF")
  list(name = name, x = x, sizes = sizes, ix = ix,
       identity = vapply(methods, function(m) unname(ksample.e(x, sizes, method = m)), numeric(1), USE.NAMES = FALSE),
       permuted = vapply(methods, function(m) unname(ksample.e(x, sizes, method = m, ix = ix)), numeric(1), USE.NAMES = FALSE))
}

set.seed(20261203)
iris_x <- as.matrix(iris[, 1:4])
dimnames(iris_x) <- NULL
ksample <- list(
  ksample_case("iris", iris_x, c(50, 50, 50)),
  ksample_case("normal k=4, d=2", round(matrix(rnorm(2 * 70), ncol = 2) + rep(c(0, 0.3, 0.6, 0.9), c(10, 25, 15, 20)), 4),
               c(10, 25, 15, 20))
)

lattice <- function(n, d) {
  u <- outer(seq_len(n) * 0.6180339887498949, seq_len(d) * 0.7548776662466927, "+") %% 1
  qnorm(pmin(pmax(u, 1e-12), 1 - 1e-12))
}
mvnorm <- lapply(list(c(100, 110), c(300, 320), c(1000, 1020)), function(dn)
  list(d = dn[1], n = dn[2], mvnorm_e = mvnorm.e(lattice(dn[2], dn[1]))))

reference <- list(
  generated_by = "validation/r_reference_gof.R",
  R = paste(R.version$major, R.version$minor, sep = "."),
  energy = as.character(packageVersion("energy")),
  jsonlite = as.character(packageVersion("jsonlite")),
  normal = normal,
  evnormal = evnormal,
  poisson = poisson,
  ksample = ksample,
  mvnorm = mvnorm
)
dir.create(dirname(out), showWarnings = FALSE, recursive = TRUE)
writeLines(toJSON(reference, auto_unbox = TRUE, digits = NA, pretty = TRUE), out)
cat("wrote", out, "\n")
