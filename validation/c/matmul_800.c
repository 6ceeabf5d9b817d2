/* MatMul (GROPHECY Listing 2), C = A B in single precision, the product a
 * user writes first (validation/kernels/matmul.cu measures its layouts). */
#define N 800
#define K 400
#define M 800

float A[N][K], B[K][M], C[N][M];

void matmul(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++) {
      float sum = 0.0f;
      for (int k = 0; k < K; k++)
        sum += A[i][k] * B[k][j];
      C[i][j] = sum;
    }
}
