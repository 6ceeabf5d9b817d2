/* PolyBench's adi shape, written for this set (2026-11-30): the row sweep of one
 * half step. Each row i is independent; along j each element needs the one
 * before it (a recurrence a thread walks), then the back substitution. */
#define N 4096
float u[N][N], v[N][N], p[N][N], q[N][N];
void adi_rows(float a, float b, float c, float d, float f) {
#pragma omp parallel for
  for (int i = 1; i < N - 1; i++) {
    v[0][i] = 1.0f;
    p[i][0] = 0.0f;
    q[i][0] = v[0][i];
    for (int j = 1; j < N - 1; j++) {
      p[i][j] = -c / (a * p[i][j - 1] + b);
      q[i][j] = (-d * u[j][i - 1] + (1.0f + 2.0f * d) * u[j][i] - f * u[j][i + 1] - a * q[i][j - 1]) /
                (a * p[i][j - 1] + b);
    }
  }
}
