/* glicko2.c - the steps of Glickman's paper, numbered as there. */
#include "glicko2.h"

#include <math.h>

#define GLICKO2_SCALE 173.7178 /* 400 / ln(10): Glicko <-> Glicko-2 scale */
#define GLICKO2_EPS 0.000001   /* convergence tolerance of step 5 */
#define GLICKO2_MAX_ITER 100   /* the Illinois iteration converges in ~10;
                                  bound it anyway against NaN inputs */

static double g_of(double phi) {
  return 1.0 / sqrt(1.0 + 3.0 * phi * phi / (M_PI * M_PI));
}

static double e_of(double mu, double mu_j, double phi_j) {
  return 1.0 / (1.0 + exp(-g_of(phi_j) * (mu - mu_j)));
}

/* Step 5's f(x). */
static double vol_f(double x, double delta, double phi, double v, double a,
                    double tau) {
  double ex = exp(x);
  double d = phi * phi + v + ex;
  return ex * (delta * delta - phi * phi - v - ex) / (2.0 * d * d) -
         (x - a) / (tau * tau);
}

void glicko2_update(const glicko2_rating *p, const glicko2_game *games,
                    size_t n, double tau, glicko2_rating *out) {
  /* Step 2: to the Glicko-2 scale. */
  double mu = (p->rating - 1500.0) / GLICKO2_SCALE;
  double phi = p->rd / GLICKO2_SCALE;
  double sigma = p->vol;
  if (n == 0) {
    /* Step 6 only: uncertainty grows with time away. */
    double rd = GLICKO2_SCALE * sqrt(phi * phi + sigma * sigma);
    out->rating = p->rating;
    out->rd = rd > GLICKO2_DEFAULT_RD ? GLICKO2_DEFAULT_RD : rd;
    out->vol = sigma;
    return;
  }
  /* Steps 3 and 4: estimated variance v and improvement delta. */
  double inv_v = 0.0, sum = 0.0;
  for (size_t j = 0; j < n; j++) {
    double mu_j = (games[j].opp_rating - 1500.0) / GLICKO2_SCALE;
    double phi_j = games[j].opp_rd / GLICKO2_SCALE;
    double g = g_of(phi_j), e = e_of(mu, mu_j, phi_j);
    inv_v += g * g * e * (1.0 - e);
    sum += g * (games[j].score - e);
  }
  double v = 1.0 / inv_v;
  double delta = v * sum;
  /* Step 5: new volatility by the Illinois algorithm. */
  double a = log(sigma * sigma);
  double A = a, B;
  if (delta * delta > phi * phi + v) {
    B = log(delta * delta - phi * phi - v);
  } else {
    double k = 1.0;
    while (vol_f(a - k * tau, delta, phi, v, a, tau) < 0.0 && k < GLICKO2_MAX_ITER) k += 1.0;
    B = a - k * tau;
  }
  double fa = vol_f(A, delta, phi, v, a, tau), fb = vol_f(B, delta, phi, v, a, tau);
  for (int it = 0; fabs(B - A) > GLICKO2_EPS && it < GLICKO2_MAX_ITER; it++) {
    double c = A + (A - B) * fa / (fb - fa);
    double fc = vol_f(c, delta, phi, v, a, tau);
    if (fc * fb <= 0.0) {
      A = B;
      fa = fb;
    } else {
      fa /= 2.0;
    }
    B = c;
    fb = fc;
  }
  double sigma2 = exp(A / 2.0);
  /* Steps 6 and 7. */
  double phi_star = sqrt(phi * phi + sigma2 * sigma2);
  double phi2 = 1.0 / sqrt(1.0 / (phi_star * phi_star) + 1.0 / v);
  double mu2 = mu + phi2 * phi2 * sum;
  /* Step 8: back to the Glicko scale. */
  out->rating = GLICKO2_SCALE * mu2 + 1500.0;
  out->rd = GLICKO2_SCALE * phi2;
  if (out->rd < GLICKO2_MIN_RD) out->rd = GLICKO2_MIN_RD;
  out->vol = sigma2;
}
