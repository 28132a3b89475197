# Reference values of R's `energy` independence functions, loaded by tests/independence/test_dcov.py
# and the other independence tests.
#
# Usage: Rscript validation/r_reference_independence.R [tests/data/r_reference_independence.json]
#
# For each data set: the data themselves (rounded to 4 decimals, so that R and Python read the
# same numbers) and what R computes from them: dcov, dcor (index 1, 0.5, 1.5), DCOR, dcovU,
# bcdcor, dcovU_stats, dcorT and dcorT.test, pdcov and pdcor (with a third sample), mvI, and for
# one-dimensional pairs dcov2d and dcor2d (V and U). The permutation tests' statistics and
# p-values (R = 999, seed 1) are recorded for the Monte Carlo comparison. The R, energy and
# jsonlite versions are recorded at the top.
suppressMessages({
  library(energy)
  library(jsonlite)
})

args <- commandArgs(trailingOnly = TRUE)
out <- if (length(args) > 0) args[1] else "tests/data/r_reference_independence.json"

un <- function(v) unname(unlist(v))

values <- function(name, x, y, z) {
  case <- list(name = name, x = as.matrix(x), y = as.matrix(y), z = as.matrix(z))
  case$by_index <- lapply(c(1, 0.5, 1.5), function(a) {
    list(index = a, dcov = dcov(x, y, index = a), dcor = dcor(x, y, index = a))
  })
  D <- suppressWarnings(DCOR(x, y))
  case$DCOR <- un(D)
  case$dcovU <- un(dcovU(x, y))
  case$bcdcor <- un(bcdcor(x, y))
  Dx <- as.matrix(dist(x)); Dy <- as.matrix(dist(y))
  case$dcovU_stats <- un(dcovU_stats(Dx, Dy))
  case$U_product <- U_product(U_center(Dx), U_center(Dy))
  case$dcorT <- un(dcorT(x, y))
  t <- dcorT.test(x, y)
  case$dcorT_test <- list(statistic = un(t$statistic), df = un(t$parameter), p_value = t$p.value, estimate = un(t$estimate))
  case$pdcov <- un(pdcov(x, y, z))
  case$pdcor <- un(pdcor(x, y, z))
  case$mvI <- un(mvI(x, y))
  set.seed(1); dt <- dcov.test(x, y, R = 999)
  set.seed(1); ct <- dcor.test(x, y, R = 999)
  set.seed(1); pt <- pdcor.test(x, y, z, R = 999)
  case$dcov_test <- list(statistic = un(dt$statistic), p_value = dt$p.value, estimates = un(dt$estimates))
  case$dcor_test <- list(statistic = un(ct$statistic), p_value = ct$p.value)
  case$pdcor_test <- list(statistic = un(pt$statistic), p_value = pt$p.value)
  if (NCOL(x) == 1 && NCOL(y) == 1) {
    case$dcov2d <- list(V = un(dcov2d(c(x), c(y))), U = un(dcov2d(c(x), c(y), type = "U")))
    case$dcor2d <- list(V = un(dcor2d(c(x), c(y))), U = un(dcor2d(c(x), c(y), type = "U")))
  }
  case
}

set.seed(20261123)
r4 <- function(m) round(m, 4)
n <- 40
x1 <- r4(rnorm(n)); y1 <- r4(x1^2 + rnorm(n, sd = 0.5)); z1 <- r4(rnorm(n))
xm <- r4(matrix(rnorm(n * 3), ncol = 3)); ym <- r4(cbind(xm[, 1] * xm[, 2], rnorm(n))); zm <- r4(cbind(xm[, 3] + rnorm(n)))
xt <- r4(matrix(rt(60 * 2, df = 3), ncol = 2)); yt <- r4(matrix(rt(60 * 4, df = 3), ncol = 4)); zt <- r4(rnorm(60))
ties <- r4(round(rnorm(50), 1)); tiesy <- r4(round(ties^2 + rnorm(50), 1)); tiesz <- r4(rnorm(50))
iris_x <- as.matrix(iris[1:50, 1:4]); iris_y <- as.matrix(iris[51:100, 1:4]); iris_z <- as.matrix(iris[101:150, 1:4])

cases <- list(
  values("one-dimensional", x1, y1, z1),
  values("multivariate", xm, ym, zm),
  values("heavy tails", xt, yt, zt),
  values("ties", ties, tiesy, tiesz),
  values("iris", iris_x, iris_y, iris_z)
)

# an unordered factor (0-1 distance) and an ordered one (its codes)
set.seed(7)
fx <- r4(rnorm(30))
f <- factor(c("a", "b", "c")[sample(3, 30, replace = TRUE)])
o <- factor(c("low", "mid", "high")[sample(3, 30, replace = TRUE)], levels = c("low", "mid", "high"), ordered = TRUE)
factors <- list(x = fx, factor = as.character(f), ordered = as.character(o), ordered_levels = levels(o),
                dcov_factor = dcov(fx, f), dcor_factor = dcor(fx, f), dcov_ordered = dcov(fx, o))

# mutual independence: the statistic and its terms
set.seed(11)
M <- r4(matrix(rnorm(40 * 4), ncol = 4)); M[, 4] <- r4(M[, 1] * M[, 2] + rnorm(40, sd = 0.3))
set.seed(1); mt <- mutualIndep.test(M, R = 999)
mutual <- list(x = M, statistic = un(mt$statistic), p_value = mt$p.value,
               terms = sapply(1:3, function(k) un(bcdcor(M[, k], M[, (k + 1):4]))))

writeLines(toJSON(list(
  generated_by = "validation/r_reference_independence.R",
  R = paste(R.version$major, R.version$minor, sep = "."),
  energy = as.character(packageVersion("energy")),
  jsonlite = as.character(packageVersion("jsonlite")),
  cases = cases, factors = factors, mutual = mutual
), digits = NA, auto_unbox = TRUE, matrix = "rowmajor"), out)
