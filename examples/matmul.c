/* MatMul, C = A x B: the CPU code of GROPHECY's Listing 1 (Meng et al., SC'11),
 * at the paper's input size (Table 4: A[800][400] x B[400][800]).
 * Expected skeleton: the paper's Listing 2 (docs/skeletonizer.md compares them). */
#define N 800
#define K 400
#define M 800

float A[N][K], B[K][M];
float C[N][M];

void matmul(void) {
  int i, j, k;
  for (i = 0; i < N; ++i) {
    for (j = 0; j < M; ++j) {
      float sum = 0;
      for (k = 0; k < K; ++k) {
        sum += A[i][k] * B[k][j];
      }
      C[i][j] = sum;
    }
  }
}
