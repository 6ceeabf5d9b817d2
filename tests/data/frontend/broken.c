/* Does not compile: skelcast prints Clang's own messages and exits with 1. */
#define N 16

float a[N];

void f(void) {
  for (int i = 0; i < N; i++)
    a[i] = undeclared_value + 1.0f;
}
