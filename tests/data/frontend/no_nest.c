/* Nothing here can be ported: the warnings say why, then an error (exit 1). */
#define N 100

float a[N];

void recurrence(void) {
  for (int i = 1; i < N; i++)
    a[i] = 0.5f * a[i - 1];
}
