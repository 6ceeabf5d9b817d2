/* SpinFlap (GROPHECY Listing 6), as validation/kernels/spinflap.cu computes
 * it: per group of 4 columns, a 4-point transform of A and B accumulated with
 * running twiddles, five scaled butterfly rounds, and the result scattered
 * back through the permutation M. Complex values as [2] pairs.
 *   skelcast project validation/c/spinflap_65536.c --sample M=validation/skeletons/M_65536.txt */
#define ROWS 132
#define COLS 65536

float A[ROWS][COLS][2];
float B[ROWS][COLS][2];
float C[ROWS][COLS][2];
int M[COLS / 4][4];

void spinflap(void) {
  /* the scatter through M is a permutation: the programmer says so */
#pragma omp parallel for collapse(2)
  for (int j = 0; j < ROWS; j++)
    for (int i = 0; i < COLS / 4; i++) {
      float sr[4] = {0, 0, 0, 0}, si[4] = {0, 0, 0, 0};
      float rotr = 1, roti = 0, t1r = 1, t1i = 0, t2r = 1, t2i = 0, t3r = 1, t3i = 0;
      for (int n = 0; n < 4; n++) {
        int c = M[i][n];
        float ar = A[j][c][0], ai = A[j][c][1], br = B[j][c][0], bi = B[j][c][1];
        float pr = ar * br - ai * bi, pi = ar * bi + ai * br;  /* a b */
        float qr = ar * br + ai * bi, qi = ai * br - ar * bi;  /* a conj(b) */
        float xr = pr * rotr - pi * roti + 0.5f * qr;
        float xi = pr * roti + pi * rotr + 0.5f * qi;
        float nr = rotr * 0.92387953f - roti * 0.38268343f;
        roti = rotr * 0.38268343f + roti * 0.92387953f;
        rotr = nr;
        sr[0] += xr;
        si[0] += xi;
        sr[1] += xr * t1r - xi * t1i;
        si[1] += xr * t1i + xi * t1r;
        sr[2] += xr * t2r - xi * t2i;
        si[2] += xr * t2i + xi * t2r;
        sr[3] += xr * t3r - xi * t3i;
        si[3] += xr * t3i + xi * t3r;
        float u = t1r; t1r = t1i; t1i = -u;   /* * (-i) */
        t2r = -t2r; t2i = -t2i;               /* * (-1) */
        u = t3r; t3r = -t3i; t3i = u;         /* * (+i) */
      }
      for (int rr = 0; rr < 5; rr++) {
        float u0r = sr[0] + sr[2], u0i = si[0] + si[2], u1r = sr[0] - sr[2], u1i = si[0] - si[2];
        float u2r = sr[1] + sr[3], u2i = si[1] + si[3], u3r = sr[1] - sr[3], u3i = si[1] - si[3];
        sr[0] = 0.5f * (u0r + u2r); si[0] = 0.5f * (u0i + u2i);
        float s2r = 0.5f * (u0r - u2r), s2i = 0.5f * (u0i - u2i);
        float s1r = 0.5f * (u1r + u3i), s1i = 0.5f * (u1i - u3r);
        float s3r = 0.5f * (u1r - u3i), s3i = 0.5f * (u1i + u3r);
        sr[1] = s1r * 0.8f - s1i * 0.6f;     si[1] = s1r * 0.6f + s1i * 0.8f;
        sr[2] = s2r * 0.6f + s2i * 0.8f;     si[2] = s2i * 0.6f - s2r * 0.8f;
        sr[3] = -s3r * 0.28f - s3i * 0.96f;  si[3] = s3r * 0.96f - s3i * 0.28f;
      }
      for (int n = 0; n < 4; n++) {
        int c = M[i][n];
        C[j][c][0] = sr[n];
        C[j][c][1] = si[n];
      }
    }
}
